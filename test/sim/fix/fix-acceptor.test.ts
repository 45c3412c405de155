// Goal: the simulator's FIX acceptor behaves as shared/spec/fix.md says, over real sockets: the
// signed Logon on KalshiNR and KalshiRT, the 141=Y rule, one session per key ("already exists"),
// order entry (35=D/F/G/q, order groups) answered with the venue's ExecutionReport fields, reject
// texts and OrderCancelReject codes, an unsolicited Trade report when another participant fills a
// resting order, throttling as BusinessMessageReject 380=8, garbled bytes answered per §3 without
// harming the simulator, KalshiRT resend after a reconnect, and drop-copy replay by ExecID.
// Method: startSim in-process with fix enabled on 127.0.0.1 (port 0 per session kind), a temporary
// keys directory and rate limits on; clients are our initiator FixSession (src/fix) on node:net
// sockets, or raw sockets for malformed bytes. Every wait is a bounded poll.

import { createPrivateKey, randomUUID, type KeyObject } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FixEncoder, MemorySequenceStore, MsgType, Tag } from '../../../src/fix/index.ts';
import { easternDate } from '../../../src/sim/server/fix/index.ts';
import { startSim, type SimHandle } from '../../../src/sim/index.ts';
import { FixTestClient, RawFixClient, until, type Received } from './fix-test-client.ts';

const TICKER = 'KXDEMO-26DEC31-T50';
let sim: SimHandle;
let workDir: string;
let demo: { keyId: string; privateKey: KeyObject };

function key(userId: string, tier: 'basic' | 'prime' = 'prime', subaccount?: number): { keyId: string; privateKey: KeyObject } {
  const created = sim.createApiKey({ scopes: ['read', 'write'], userId, tier, ...(subaccount === undefined ? {} : { subaccount }) });
  return { keyId: created.keyId, privateKey: createPrivateKey(created.privateKeyPem) };
}

function port(name: 'KalshiNR' | 'KalshiRT' | 'KalshiDC'): number {
  return sim.fix!.ports[name];
}

async function logon(name: 'KalshiNR' | 'KalshiRT' | 'KalshiDC', who: { keyId: string; privateKey: KeyObject },
  extra: Partial<ConstructorParameters<typeof FixTestClient>[0]> = {}): Promise<FixTestClient> {
  return new FixTestClient({ port: port(name), sessionName: name, keyId: who.keyId, privateKey: who.privateKey, logonFields: [[21005, 'Y']], ...extra }).open();
}

function newOrder(client: FixTestClient, fields: { clOrdId?: string; side?: '1' | '2'; qty?: string; price?: string; tif?: string; extra?: (e: FixEncoder) => void } = {}): string {
  const clOrdId = fields.clOrdId ?? randomUUID();
  client.send(MsgType.NewOrderSingle, (e) => {
    e.string(Tag.ClOrdID, clOrdId).string(Tag.Symbol, TICKER).string(Tag.Side, fields.side ?? '1').string(Tag.OrderQty, fields.qty ?? '10')
      .string(Tag.OrdType, '2').string(Tag.Price, fields.price ?? '0.4200').string(Tag.TimeInForce, fields.tif ?? '1').int(Tag.ExDestination, -1);
    fields.extra?.(e);
  });
  return clOrdId;
}

const report = (clOrdId: string, execType: string) => (m: Received) => m.msgType === '8' && m.fields.get(Tag.ClOrdID) === clOrdId && m.fields.get(Tag.ExecType) === execType;

beforeAll(async () => {
  workDir = mkdtempSync(join(tmpdir(), 'sim-fix-'));
  sim = await startSim({ keysDir: join(workDir, 'keys'), logger: pino({ level: 'silent' }), fix: { enabled: true } });
  demo = { keyId: sim.demoKey.keyId, privateKey: createPrivateKey(sim.demoKey.privateKeyPem) };
});

afterAll(async () => {
  await sim?.close();
  rmSync(workDir, { recursive: true, force: true });
});

describe('logon', () => {
  it('accepts a signed Logon on KalshiNR and answers with 49 = the session name and 56 = the key', async () => {
    const client = await logon('KalshiNR', demo);
    expect(client.session.state).toBe('active');
    expect(new Set(Object.values(sim.fix!.ports)).size).toBe(6); // one port per session kind
    const reply = client.wire().find((m) => m.msgType === 'A')!;
    expect([reply.fields.get(Tag.SenderCompID), reply.fields.get(Tag.TargetCompID), reply.fields.get(Tag.HeartBtInt),
      reply.fields.get(Tag.ResetSeqNumFlag), reply.fields.get(Tag.DefaultApplVerID)]).toEqual(['KalshiNR', demo.keyId, '30', 'Y', '9']);
    await client.logout();
    expect(client.wire().some((m) => m.msgType === '5')).toBe(true); // the server answers the Logout
  });

  it('refuses NR without 141=Y, a wrong signature, and a second session with the same key ("already exists")', async () => {
    const noReset = await logon('KalshiNR', demo, { resetSeqNum: false });
    expect(noReset.closed).toBe(true);
    expect(noReset.events.find((e) => e.type === 'logon-refused')?.text).toMatch(/141/);

    const stranger = key('logon-user');
    const forged = await logon('KalshiNR', { keyId: stranger.keyId, privateKey: demo.privateKey });
    expect(forged.events.find((e) => e.type === 'logon-refused')?.text).toMatch(/signature/i);

    const first = await logon('KalshiNR', demo);
    const second = await logon('KalshiRT', demo);
    expect(second.closed).toBe(true);
    expect(second.events.find((e) => e.type === 'logon-refused')?.text).toMatch(/already exists/);
    expect(first.session.state).toBe('active');
    await first.logout();
    // The key is free again once its session ends.
    const again = await logon('KalshiRT', demo);
    expect(again.session.state).toBe('active');
    await again.logout();
  });

  it('refuses DC and RT to a subaccount-restricted key, but lets it trade on NR', async () => {
    const restricted = key('restricted-user', 'prime', 3);
    const dc = await logon('KalshiDC', restricted);
    expect(dc.events.find((e) => e.type === 'logon-refused')?.text).toMatch(/KalshiDC/);
    const nr = await logon('KalshiNR', restricted);
    const clOrdId = newOrder(nr, { price: '0.1100' });
    const ack = await nr.next(report(clOrdId, '0'), 'New on a restricted key');
    expect(ack.fields.get(Tag.AllocAccount)).toBe('3'); // the order is on its subaccount: 79 echoed
    await nr.logout();
  });
});

describe('order entry on KalshiNR', () => {
  let client: FixTestClient;
  let counterparty: FixTestClient;
  beforeAll(async () => {
    client = await logon('KalshiNR', demo);
    counterparty = await logon('KalshiNR', key('fix-counterparty'));
  });
  afterAll(async () => {
    await client?.logout();
    await counterparty?.logout();
  });

  it('NewOrderSingle -> New report with the fields of fix.md §5 (21011 not set: PendingNew first)', async () => {
    const clOrdId = newOrder(client, { price: '0.3100' });
    const ack = await client.next(report(clOrdId, '0'), 'New');
    const pending = client.about(clOrdId).find((m) => m.fields.get(Tag.ExecType) === 'A')!;
    expect(pending.fields.get(Tag.ExecID)).toBe('-1;-1');
    expect(client.received.indexOf(pending)).toBeLessThan(client.received.indexOf(ack));
    const f = ack.fields;
    expect(f.get(Tag.OrderID)).toMatch(/\S/);
    expect(f.get(Tag.ExecID)).toMatch(/^\d+;\d+$/); // index 0: clock;event
    expect([f.get(Tag.OrdStatus), f.get(Tag.Symbol), f.get(Tag.Side)]).toEqual(['0', TICKER, '1']);
    expect([f.get(Tag.OrderQty), f.get(Tag.Price), f.get(Tag.CumQty), f.get(Tag.LeavesQty), f.get(Tag.AvgPx)]).toEqual(['10.00', '0.3100', '0.00', '10.00', '0.0000']);
    expect(f.get(Tag.LastMkt)).toBe('0');
    expect(f.has(Tag.ClearingBusinessDate)).toBe(false); // 715 only on trades
    expect(ack.fields.get(Tag.SenderCompID)).toBe('KalshiNR');
    expect(ack.fields.get(Tag.TargetCompID)).toBe(demo.keyId);
  });

  it('a fill in the same cycle folds New into the Trade report; 715 is the Eastern date of 60; maker gets an unsolicited Trade', async () => {
    const resting = newOrder(client, { side: '1', price: '0.4200', qty: '10' });
    const restingAck = await client.next(report(resting, '0'), 'resting New');
    const from = client.received.length;
    const taker = newOrder(counterparty, { side: '2', price: '0.4200', qty: '4' });
    const takerTrade = await counterparty.next(report(taker, 'F'), 'taker Trade');
    expect(counterparty.about(taker).some((m) => m.fields.get(Tag.ExecType) === '0')).toBe(false); // folded
    const t = takerTrade.fields;
    expect([t.get(Tag.OrdStatus), t.get(Tag.LastQty), t.get(Tag.LastPx), t.get(Tag.CumQty), t.get(Tag.LeavesQty)]).toEqual(['2', '4.00', '0.4200', '4.00', '0.00']);
    expect(t.get(Tag.AggressorIndicator)).toBe('Y');
    expect(t.get(Tag.ClearingBusinessDate)).toBe(String(easternDate(Date.parse(t.get(Tag.TransactTime)!.replace(/^(\d{4})(\d{2})(\d{2})-/, '$1-$2-$3T') + 'Z'))));
    expect([t.get(Tag.LongQty), t.get(Tag.ShortQty)]).toEqual(['0.00', '4.00']); // sold YES = long NO
    expect(t.get(Tag.NoMiscFees)).toBe('1');
    expect(t.get(Tag.MiscFeeCurr)).toBe('USD');
    expect(t.get(Tag.CollateralType)).toBe('BALANCE');
    expect(t.get(Tag.TrdMatchID)).toMatch(/\S/);

    const makerTrade = await client.next(report(resting, 'F'), 'unsolicited maker Trade', from);
    const m = makerTrade.fields;
    expect([m.get(Tag.OrderID), m.get(Tag.OrdStatus), m.get(Tag.CumQty), m.get(Tag.LeavesQty), m.get(Tag.AvgPx)])
      .toEqual([restingAck.fields.get(Tag.OrderID), '1', '4.00', '6.00', '0.4200']);
    expect(m.get(Tag.AggressorIndicator)).toBe('N');
    expect(m.get(Tag.TrdMatchID)).toBe(t.get(Tag.TrdMatchID));
  });

  it('OrderCancelRequest -> Canceled with 41; cancel of an unknown order -> 35=9 102=1', async () => {
    const clOrdId = newOrder(client, { price: '0.2000' });
    const ack = await client.next(report(clOrdId, '0'), 'New');
    const cancelId = randomUUID();
    client.send(MsgType.OrderCancelRequest, (e) => e.string(Tag.ClOrdID, cancelId).string(Tag.OrigClOrdID, clOrdId)
      .string(Tag.Side, '1').string(Tag.Symbol, TICKER));
    const canceled = await client.next(report(cancelId, '4'), 'Canceled');
    expect([canceled.fields.get(Tag.OrigClOrdID), canceled.fields.get(Tag.OrdStatus), canceled.fields.get(Tag.LeavesQty), canceled.fields.get(Tag.OrderID)])
      .toEqual([clOrdId, '4', '0.00', ack.fields.get(Tag.OrderID)]);
    const again = randomUUID();
    client.send(MsgType.OrderCancelRequest, (e) => e.string(Tag.ClOrdID, again).string(Tag.OrigClOrdID, clOrdId)
      .string(Tag.Side, '1').string(Tag.Symbol, TICKER));
    const reject = await client.next((m) => m.msgType === '9' && m.fields.get(Tag.ClOrdID) === again, 'OrderCancelReject');
    expect([reject.fields.get(Tag.CxlRejReason), reject.fields.get(Tag.CxlRejResponseTo), reject.fields.get(Tag.OrigClOrdID)]).toEqual(['1', '1', clOrdId]);
  });

  it('OrderCancelReplaceRequest -> Replaced with the new ClOrdID; INVALID_PRICE and ORDER_ALREADY_EXISTS as 35=9', async () => {
    const clOrdId = newOrder(client, { price: '0.2100', qty: '5' });
    const ack = await client.next(report(clOrdId, '0'), 'New');
    const replaceId = randomUUID();
    client.send(MsgType.OrderCancelReplaceRequest, (e) => e.string(Tag.ClOrdID, replaceId).string(Tag.OrigClOrdID, clOrdId)
      .string(Tag.OrderID, ack.fields.get(Tag.OrderID)!).string(Tag.OrderQty, '8').string(Tag.OrdType, '2').string(Tag.Price, '0.2200')
      .string(Tag.Side, '1').string(Tag.Symbol, TICKER));
    const replaced = await client.next(report(replaceId, '5'), 'Replaced');
    expect([replaced.fields.get(Tag.OrigClOrdID), replaced.fields.get(Tag.OrdStatus), replaced.fields.get(Tag.Price), replaced.fields.get(Tag.OrderQty),
      replaced.fields.get(Tag.LeavesQty), replaced.fields.get(Tag.TimeInForce)]).toEqual([clOrdId, '0', '0.2200', '8.00', '8.00', '1']);

    const offTick = randomUUID();
    client.send(MsgType.OrderCancelReplaceRequest, (e) => e.string(Tag.ClOrdID, offTick).string(Tag.OrigClOrdID, replaceId)
      .string(Tag.OrderQty, '8').string(Tag.OrdType, '2').string(Tag.Price, '0.2250').string(Tag.Side, '1').string(Tag.Symbol, TICKER));
    const priceReject = await client.next((m) => m.msgType === '9' && m.fields.get(Tag.ClOrdID) === offTick, 'INVALID_PRICE');
    expect([priceReject.fields.get(Tag.Text), priceReject.fields.get(Tag.CxlRejReason), priceReject.fields.get(Tag.CxlRejResponseTo)]).toEqual(['INVALID_PRICE', '99', '2']);

    client.send(MsgType.OrderCancelReplaceRequest, (e) => e.string(Tag.ClOrdID, clOrdId).string(Tag.OrigClOrdID, replaceId)
      .string(Tag.OrderQty, '7').string(Tag.OrdType, '2').string(Tag.Price, '0.2200').string(Tag.Side, '1').string(Tag.Symbol, TICKER));
    const duplicate = await client.next((m) => m.msgType === '9' && m.fields.get(Tag.ClOrdID) === clOrdId, 'ORDER_ALREADY_EXISTS');
    expect([duplicate.fields.get(Tag.Text), duplicate.fields.get(Tag.CxlRejReason)]).toEqual(['ORDER_ALREADY_EXISTS', '6']);
  });

  it('rejects with the venue texts: ORDER_ALREADY_EXISTS (103=6), MARKET_NOT_FOUND (103=1), POST_ONLY_CROSS as a Canceled report', async () => {
    const clOrdId = newOrder(client, { price: '0.0500' });
    await client.next(report(clOrdId, '0'), 'New');
    newOrder(client, { clOrdId, price: '0.0600' });
    const dup = await client.next((m) => report(clOrdId, '8')(m), 'duplicate reject');
    expect([dup.fields.get(Tag.Text), dup.fields.get(Tag.OrdRejReason), dup.fields.get(Tag.OrdStatus), dup.fields.get(Tag.ExecID)]).toEqual(['ORDER_ALREADY_EXISTS', '6', '8', '-1;-1']);

    const unknown = randomUUID();
    client.send(MsgType.NewOrderSingle, (e) => e.string(Tag.ClOrdID, unknown).string(Tag.Symbol, 'NO-SUCH-MARKET').string(Tag.Side, '1')
      .string(Tag.OrderQty, '1').string(Tag.OrdType, '2').string(Tag.Price, '0.5000'));
    const notFound = await client.next(report(unknown, '8'), 'market not found');
    expect([notFound.fields.get(Tag.Text), notFound.fields.get(Tag.OrdRejReason)]).toEqual(['MARKET_NOT_FOUND', '1']);

    const ask = newOrder(counterparty, { side: '2', price: '0.6000', qty: '2' });
    await counterparty.next(report(ask, '0'), 'resting ask');
    const crossing = newOrder(client, { side: '1', price: '0.6000', qty: '1', extra: (e) => e.string(Tag.ExecInst, '6') });
    const cross = await client.next(report(crossing, '4'), 'post-only cross');
    expect([cross.fields.get(Tag.Text), cross.fields.get(Tag.OrdStatus), cross.fields.get(Tag.CumQty)]).toEqual(['POST_ONLY_CROSS', '4', '0.00']);
  });

  it('OrderMassCancelRequest -> 35=r 531=6, then a Canceled report per order; a second within 1 s -> 380=8', async () => {
    const a = newOrder(client, { price: '0.0300' });
    const b = newOrder(client, { price: '0.0400' });
    await client.next(report(b, '0'), 'New b');
    await new Promise((resolve) => setTimeout(resolve, 1_050)); // past any earlier mass cancel's 1 s window
    const from = client.received.length;
    const massId = randomUUID();
    client.send(MsgType.OrderMassCancelRequest, (e) => e.string(Tag.ClOrdID, massId).string(Tag.MassCancelRequestType, '6'));
    const done = await client.next((m) => m.msgType === 'r' && m.fields.get(Tag.ClOrdID) === massId, 'mass cancel report', from);
    expect(done.fields.get(Tag.MassCancelResponse)).toBe('6');
    await client.next(report(a, '4'), 'a canceled', from);
    await client.next(report(b, '4'), 'b canceled', from);
    const r = client.received.indexOf(done);
    expect(client.received.findIndex((m, i) => i > from && report(a, '4')(m))).toBeGreaterThan(r);
    const second = randomUUID();
    client.send(MsgType.OrderMassCancelRequest, (e) => e.string(Tag.ClOrdID, second).string(Tag.MassCancelRequestType, '6'));
    const throttled = await client.next((m) => m.msgType === 'j' && m.fields.get(Tag.BusinessRejectRefID) === second, '380=8');
    expect([throttled.fields.get(Tag.BusinessRejectReason), throttled.fields.get(Tag.RefMsgType)]).toEqual(['8', 'q']);
  });

  it('order groups: create echoes 79 and the limit; an order joins with 526; trigger cancels it; unknown group -> 35=j', async () => {
    const from = client.received.length;
    client.send(MsgType.OrderGroupRequest, (e) => e.int(Tag.OrderGroupAction, 1).int(Tag.OrderGroupContractsLimit, 50));
    const created = await client.next((m) => m.msgType === 'UOH', 'OrderGroupResponse', from);
    expect([created.fields.get(Tag.OrderGroupContractsLimit), created.fields.get(Tag.AllocAccount)]).toEqual(['50', '0']);
    const groupId = created.fields.get(Tag.OrderGroupID)!;
    const member = newOrder(client, { price: '0.0700', extra: (e) => e.string(Tag.SecondaryClOrdID, groupId) });
    await client.next(report(member, '0'), 'group member New');
    client.send(MsgType.OrderGroupRequest, (e) => e.int(Tag.OrderGroupAction, 4).string(Tag.OrderGroupID, groupId));
    const canceled = await client.next(report(member, '4'), 'group trigger cancels');
    expect(canceled.fields.get(Tag.Text)).toBe('ORDER_GROUP_CANCEL');
    client.send(MsgType.OrderGroupRequest, (e) => e.int(Tag.OrderGroupAction, 3).string(Tag.OrderGroupID, randomUUID()));
    const missing = await client.next((m) => m.msgType === 'j' && m.fields.get(Tag.RefMsgType) === 'UOG', 'group not found');
    expect(missing.fields.get(Tag.Text)).toBe('ORDER_GROUP_NOT_FOUND');
  });

  it('answers an undefined tag and a missing required tag with Reject 35=3 (fix.md §3 example)', async () => {
    const seq = client.send(MsgType.NewOrderSingle, (e) => e.string(Tag.ClOrdID, randomUUID()).string(Tag.Symbol, TICKER).string(Tag.Side, '1')
      .string(Tag.OrderQty, '1').string(Tag.OrdType, '2').string(Tag.Price, '0.1000').string(333333, 'x'));
    const reject = await client.nextOnWire((m) => m.msgType === '3' && m.fields.get(Tag.RefSeqNum) === String(seq), 'undefined tag');
    expect([reject.fields.get(Tag.Text), reject.fields.get(Tag.RefTagID), reject.fields.get(Tag.RefMsgType), reject.fields.get(Tag.SessionRejectReason)])
      .toEqual(['Undefined tag received', '333333', 'D', '3']);
    const seq2 = client.send(MsgType.NewOrderSingle, (e) => e.string(Tag.ClOrdID, randomUUID()).string(Tag.Side, '1').string(Tag.OrderQty, '1')
      .string(Tag.OrdType, '2').string(Tag.Price, '0.1000'));
    const missing = await client.nextOnWire((m) => m.msgType === '3' && m.fields.get(Tag.RefSeqNum) === String(seq2), 'missing tag');
    expect([missing.fields.get(Tag.RefTagID), missing.fields.get(Tag.SessionRejectReason)]).toEqual(['55', '1']);
  });
});

describe('rate limits', () => {
  it('bills 35=D to the REST write bucket: past it, BusinessMessageReject 380=8 with the ClOrdID', async () => {
    const basic = key('basic-user', 'basic'); // write bucket 100 tokens, a create costs 10
    const client = await logon('KalshiNR', basic);
    const ids: string[] = [];
    for (let i = 0; i < 12; i++) ids.push(newOrder(client, { price: '0.0100', qty: '1' }));
    const throttled = await client.next((m) => m.msgType === 'j', 'throttle');
    expect(throttled.fields.get(Tag.BusinessRejectReason)).toBe('8');
    expect(ids).toContain(throttled.fields.get(Tag.BusinessRejectRefID));
    await client.logout();
  });
});

describe('garbled input', () => {
  it('drops a bad checksum silently (no Reject, no sequence number used), survives binary noise and a huge BodyLength, keeps serving', async () => {
    const noise = await new RawFixClient().open(port('KalshiNR'));
    noise.write(Buffer.from(Array.from({ length: 4096 }, (_, i) => (i * 131 + 7) % 256)));
    noise.write('8=FIXT.1.1\x019=99999999\x0135=A\x0110=000\x01');
    await until(() => noise.ended || noise.chunks.length > 0, 'noise answered', 300).catch(() => {});
    noise.destroy();

    const client = await logon('KalshiNR', demo);
    // A frame with a wrong checksum: ignored, no sequence number consumed (standard FIXT), session intact.
    const encoder = new FixEncoder();
    const good = Buffer.from(encoder.begin(MsgType.TestRequest, demo.keyId, 'KalshiNR', client.session.nextOutgoing, Date.now()).string(Tag.TestReqID, 'bad').finish());
    good[good.length - 2] = good[good.length - 2] === 0x30 ? 0x31 : 0x30;
    client.socket!.write(good);
    const clOrdId = newOrder(client, { price: '0.0200', qty: '1' });
    await client.next(report(clOrdId, '0'), 'order after a bad frame');
    expect(client.wire().some((m) => m.msgType === '3')).toBe(false);
    await client.logout();

    // The simulator still answers REST and new FIX sessions.
    const status = await fetch(`${sim.httpUrl}/trade-api/v2/exchange/status`);
    expect(status.status).toBe(200);
  });
});

describe('KalshiRT', () => {
  it('resends reports missed while disconnected after a reconnect without 141=Y', async () => {
    const trader = key('rt-trader');
    const store = new MemorySequenceStore();
    const first = await logon('KalshiRT', trader, { store });
    const clOrdId = newOrder(first, { side: '1', price: '0.3300', qty: '5' });
    const ack = await first.next(report(clOrdId, '0'), 'New on RT');
    first.destroy(); // an unclean drop
    await until(() => first.closed, 'RT client closed');

    // Another participant fills the resting order while the RT client is away.
    const other = await logon('KalshiNR', key('rt-counterparty'));
    const hit = newOrder(other, { side: '2', price: '0.3300', qty: '5' });
    await other.next(report(hit, 'F'), 'counterparty fill');
    await other.logout();

    // The server may still hold the dropped session until it notices the close: retry a few times.
    for (let attempt = 0; attempt < 20; attempt++) {
      const client = new FixTestClient({ port: port('KalshiRT'), sessionName: 'KalshiRT', keyId: trader.keyId, privateKey: trader.privateKey,
        logonFields: [[21005, 'Y']], resetSeqNum: false, store });
      await client.open();
      if (client.session.state === 'active') {
        const replay = await client.next((m) => m.msgType === '8' && m.fields.get(Tag.OrderID) === ack.fields.get(Tag.OrderID) && m.fields.get(Tag.ExecType) === 'F', 'replayed fill');
        expect(replay.fields.get(Tag.PossDupFlag)).toBe('Y');
        expect(replay.fields.get(Tag.LeavesQty)).toBe('0.00');
        expect(client.events.some((e) => e.type === 'resend-requested')).toBe(true);
        await client.logout();
        return;
      }
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    throw new Error('could not log on to KalshiRT again');
  });
});

describe('KalshiDC drop copy', () => {
  it('replays execution reports by ExecID range and ends with U2; too old / too large are U3', async () => {
    const trader = key('dc-trader');
    const nr = await logon('KalshiNR', trader);
    const a = newOrder(nr, { price: '0.1200', qty: '1' });
    const ackA = await nr.next(report(a, '0'), 'New a');
    const b = newOrder(nr, { price: '0.1300', qty: '1' });
    const ackB = await nr.next(report(b, '0'), 'New b');
    await nr.logout();

    const dc = await logon('KalshiDC', trader);
    const seq = dc.send(MsgType.EventResendRequest, (e) => e.string(Tag.BeginExecID, ackA.fields.get(Tag.ExecID)!).string(Tag.EndExecID, ackB.fields.get(Tag.ExecID)!));
    const complete = await dc.next((m) => m.msgType === 'U2', 'EventResendComplete');
    expect([complete.fields.get(Tag.RefSeqNum), complete.fields.get(Tag.ResendEventCount)]).toEqual([String(seq), '2']);
    const replayed = dc.received.filter((m) => m.msgType === '8').map((m) => m.fields.get(Tag.ClOrdID));
    expect(replayed).toEqual([a, b]);

    await new Promise((resolve) => setTimeout(resolve, 1_050)); // one U1 per second
    const [clock, event] = ackB.fields.get(Tag.ExecID)!.split(';').map(Number);
    dc.send(MsgType.EventResendRequest, (e) => e.string(Tag.BeginExecID, `${clock};${event + 1000}`));
    const tooLarge = await dc.next((m) => m.msgType === 'U3', 'EventResendReject');
    expect(tooLarge.fields.get(Tag.EventResendRejectReason)).toBe('4');
    dc.send(MsgType.NewOrderSingle, (e) => e.string(Tag.ClOrdID, 'x').string(Tag.Symbol, TICKER).string(Tag.Side, '1').string(Tag.OrderQty, '1').string(Tag.OrdType, '2').string(Tag.Price, '0.1'));
    const unsupported = await dc.next((m) => m.msgType === 'j', 'no orders on DC');
    expect(unsupported.fields.get(Tag.BusinessRejectReason)).toBe('3');
    await dc.logout();
  });
});
