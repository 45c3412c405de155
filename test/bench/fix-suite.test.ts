// Goal: the fix bench suite (bench/fix) keeps measuring what it says: both encoders write the same
// NewOrderSingle, both parsers read the same values from the venue's ExecutionReport, the codec part
// runs and yields its rows with their targets, and the in-process FIX sink still drives the real
// FixOrderEntry (a create becomes counted bytes; the sink's answer becomes an ack).
// Method: the suite's own functions with a tiny phase (bounded in samples and time; no timing
// asserted), and the sink route on 127.0.0.1 port 0 with a recording listener.
import { beforeAll, describe, expect, it } from 'vitest';
import type { Count, Price } from '../../src/core/index.ts';
import { FixEncoder, FixMessage, MsgType, Tag, parseMessage } from '../../src/fix/index.ts';
import type { ExecListener, NewOrder } from '../../src/oms/index.ts';
import {
  ENCODE_OURS, OursParser, PARSE_OURS, codecRows, createPeer, encodeOurs, encodePeer, executionReportBytes, sameNewOrderSingle,
  type Peer,
} from '../../bench/fix/codec.ts';
import { FixSinkRoute } from '../../bench/fix/fix-sink.ts';

describe('bench/fix codec part', () => {
  let peer: Peer;
  beforeAll(async () => {
    peer = await createPeer(); // jspurefix loads its FIX 5.0 SP2 dictionary: seconds
  }, 30_000);

  it('compares like with like: the same NewOrderSingle, the same values read from the report', () => {
    const check = sameNewOrderSingle(peer);
    expect(check.same).toBe(true);
    expect(check.ours.map(([tag]) => tag)).toEqual(expect.arrayContaining([Tag.ClOrdID, Tag.Symbol, Tag.ExDestination, Tag.SelfTradePreventionType]));

    // Both NewOrderSingles are well-framed FIXT.1.1 for our parser (BodyLength, CheckSum).
    for (const bytes of [Buffer.from(encodeOurs(new FixEncoder(), 7, Date.now())), Buffer.from(encodePeer(peer))]) {
      const parsed = parseMessage(bytes);
      expect(parsed).toBeInstanceOf(FixMessage);
      expect((parsed as FixMessage).msgTypeIs(MsgType.NewOrderSingle)).toBe(true);
    }

    const report = executionReportBytes();
    const ours = new OursParser();
    ours.framer.push(report);
    peer.parser.parseBuffer(report);
    expect(ours.errors).toBe(0);
    expect(ours.messages).toBe(1);
    expect(peer.read.count).toBe(1);
    const [clOrdId, orderId, execType, ordStatus, cumQty, leavesQty, , side, symbol, price] = peer.read.values as [string, string, string, string, number, number, Date, string, string, number];
    expect([ours.clOrdId, ours.orderId, ours.execType, ours.ordStatus, ours.symbol]).toEqual([clOrdId, orderId, execType, ordStatus, symbol]);
    expect([ours.cumQty / 100, ours.leavesQty / 100, ours.price / 10_000, ours.side ? '2' : '1']).toEqual([cumQty, leavesQty, price, side]);
  });

  it('runs in a tiny phase and reports its rows with the targets', async () => {
    const rows = await codecRows('fix', { samples: 300, warmup: 300, rounds: 1, roundMs: 20, budgetMs: 2_000 }, peer);
    expect(rows.length).toBe(11);
    const encode = rows.find((row) => row.case === ENCODE_OURS)!;
    const parse = rows.find((row) => row.case === PARSE_OURS)!;
    for (const row of [encode, parse]) {
      expect(row.count).toBeGreaterThan(0);
      expect(row.compareTo).toMatch(/^baseline: /);
      expect(rows.some((other) => other.case === row.compareTo && other.baseline)).toBe(true);
      expect(row.target).toMatch(/p50 <= \d+ ns and >= 5x jspurefix/);
      expect(typeof row.pass).toBe('boolean');
      expect(row.note).toMatch(/(meets|misses) \d+ ns/);
    }
  }, 30_000);
});

describe('bench/fix in-process FIX sink', () => {
  it('runs the real FixOrderEntry: creates become counted NewOrderSingle bytes (two before an answer) and the sink answers acks', async () => {
    const route = await FixSinkRoute.start();
    try {
      const acks: string[] = [];
      const unexpected: string[] = [];
      const fail = (name: string) => (): void => {
        unexpected.push(name);
      };
      const listener: ExecListener = {
        onCreateAck: (clientOrderId, orderId) => acks.push(`${clientOrderId} ${orderId}`),
        onCreateReject: fail('create reject'), onCreateUnknown: fail('create unknown'), onCancelAck: fail('cancel ack'),
        onCancelReject: fail('cancel reject'), onCancelUnknown: fail('cancel unknown'), onAmendAck: fail('amend ack'),
        onAmendReject: fail('amend reject'), onDecreaseAck: fail('decrease ack'), onDecreaseReject: fail('decrease reject'),
      };
      route.entry.setListener(listener);
      const order: NewOrder = {
        clientOrderId: 'rt-test-1', ticker: 'KXDEMO-26DEC31-T50', side: 'bid', price: 4000 as Price, count: 100 as Count,
        timeInForce: 'good_till_canceled', postOnly: true, reduceOnly: false, selfTradePrevention: 'taker_at_cross', subaccount: 0,
        orderGroupId: null, expirationTs: 0,
      };
      route.entry.create(order);
      expect(route.requests).toBe(1);
      expect(route.bytes).toBeGreaterThan(150);
      // A second message before the answers: the transport reuses its buffer for it, so the sink
      // must have kept a copy of the first (as the kernel does), not the buffer.
      route.entry.create({ ...order, clientOrderId: 'rt-test-2', price: 4100 as Price });
      expect(route.requests).toBe(2);
      expect(route.deliverAnswers()).toBe(2);
      expect(acks).toEqual(['rt-test-1 sink-1', 'rt-test-2 sink-2']);
      expect(unexpected).toEqual([]);
      expect(route.entry.stats.acks).toBe(2);
    } finally {
      await route.stop();
    }
  }, 20_000);
});
