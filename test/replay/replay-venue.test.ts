/**
 * Goal: the replay venue's latency and queue-position models do what they say. A request reaches
 * the engine orderLatencyUs after it was sent and its answer the OMS answerLatencyUs later; an order
 * joining a recorded level queues behind the size already there; size that leaves the level leaves
 * from behind us (risk_averse) or from the front (optimistic), so the same recorded trades fill us
 * under one model and not the other; a crossing order fills against the recorded liquidity at once.
 * A trade's own book decrease, recorded just before it, is taken once; size that joins our level
 * while we rest queues behind us. Given the live run's share of each trade, a trade at a level
 * where the live run rested fills us by that share whatever the model says, if ours joined the level
after the same public size as the live one; elsewhere the model decides.
 * Method: a ReplayVenue over a real OrderBook driven by hand, a listener and a frame sink that
 * collect what the venue sends back, time moved by runUntil.
 */

import { describe, expect, it } from 'vitest';
import { PriceGrid } from '../../src/core/index.ts';
import type { Count, Price } from '../../src/core/index.ts';
import { OrderBook } from '../../src/book/index.ts';
import type { ExecListener, NewOrder } from '../../src/oms/index.ts';
import { ReplayVenue } from '../../src/replay/replay-venue.ts';
import type { QueueModel, ReplayVenueOptions } from '../../src/replay/replay-venue.ts';

const TICKER = 'KXT-26DEC31-T50';
const MS = 1_790_000_000_000;

interface Harness {
  venue: ReplayVenue;
  book: OrderBook;
  acks: string[];
  frames: string[];
  at: (ns: number) => void;
}

/** The live run's own order of `count` joins the YES bid at $0.50: its recorded delta (own). */
function liveJoins(h: Harness, count: number): void {
  h.book.applyDelta(0, 5000 as Price, count as Count);
  h.venue.onRecordedDelta(TICKER, 'bid', 5000 as Price, count, true, false);
}

function harness(queueModel: QueueModel, live: Pick<ReplayVenueOptions, 'liveMakerCount' | 'liveOwnSize'> = {}): Harness {
  const book = new OrderBook(TICKER, PriceGrid.fromStructure('linear_cent'));
  book.beginSnapshot();
  book.setLevel(0, 5000 as Price, 1000 as Count); // 10.00 YES bid at $0.50
  book.setLevel(1, 4000 as Price, 500 as Count); // 5.00 NO bid at $0.40 = YES ask at $0.60
  book.endSnapshot();
  const acks: string[] = [];
  const frames: string[] = [];
  const venue = new ReplayVenue({
    markets: [{ ticker: TICKER, priceLevelStructure: 'linear_cent', priceRanges: null, open: true, closeMs: null, eventTicker: 'KXT-26DEC31' }],
    startMs: MS, orderLatencyUs: 300, answerLatencyUs: 200, feedLatencyUs: 100, queueModel, seed: 1, cashCenticents: 10_000_000, subaccounts: [0],
    book: (ticker) => (ticker === TICKER ? book : undefined),
    deliverFrame: (text) => frames.push(text),
    ...live,
  });
  venue.setSids(11, 12);
  const record = (name: string) => (...args: unknown[]) => acks.push(`${name} ${args.map(String).join(' ')}`);
  venue.setListener({
    onCreateAck: record('create_ack'), onCreateReject: (id, reject) => acks.push(`create_reject ${id} ${reject.code}`), onCreateUnknown: record('create_unknown'),
    onCancelAck: record('cancel_ack'), onCancelReject: record('cancel_reject'), onCancelUnknown: record('cancel_unknown'),
    onAmendAck: record('amend_ack'), onAmendReject: record('amend_reject'), onDecreaseAck: record('decrease_ack'), onDecreaseReject: record('decrease_reject'),
  } satisfies ExecListener);
  const at = (ns: number): void => {
    venue.runUntil(ns, () => {});
    venue.setNow(ns);
  };
  return { venue, book, acks, frames, at };
}

function order(clientOrderId: string, side: 'bid' | 'ask', price: number, count: number): NewOrder {
  return {
    clientOrderId, ticker: TICKER, side, price: price as Price, count: count as Count, timeInForce: 'good_till_canceled', postOnly: false,
    reduceOnly: false, selfTradePrevention: 'taker_at_cross', subaccount: 0, orderGroupId: null, expirationTs: 0,
  };
}

function fills(frames: readonly string[]): { count: string; price: string; taker: boolean }[] {
  return frames.filter((text) => text.startsWith('{"type":"fill"')).map((text) => {
    const msg = (JSON.parse(text) as { sid: number; msg: { count_fp: string; yes_price_dollars: string; is_taker: boolean } }).msg;
    return { count: msg.count_fp, price: msg.yes_price_dollars, taker: msg.is_taker };
  });
}

/** Our 1.00 bid joins 10.00 at $0.50; 5.00 joins behind us; a 1.00 trade; 5.00 leaves; a 6.00 trade. */
function queueScenario(model: QueueModel): ReturnType<typeof fills> {
  const h = harness(model);
  h.at(1_000_000);
  h.venue.create(order('c1', 'bid', 5000, 100));
  h.at(2_000_000); // arrived (300 µs) and acked (200 µs more)
  expect(h.acks).toEqual([expect.stringMatching(/^create_ack c1 \S+ 0 100 /)]);
  h.book.applyDelta(0, 5000 as Price, 500 as Count); // 15.00 now: the new 5.00 queues behind us
  h.venue.onRecordedTrade(TICKER, 5000 as Price, 100 as Count, 'ask'); // a seller takes 1.00 from the front: 9.00 ahead
  h.book.applyDelta(0, 5000 as Price, -100 as Count); // the trade, as the recorded book shows it
  h.book.applyDelta(0, 5000 as Price, -500 as Count); // 5.00 cancelled: 9.00 left besides us
  h.at(3_000_000);
  h.venue.onRecordedTrade(TICKER, 5000 as Price, 600 as Count, 'ask');
  h.at(4_000_000);
  return fills(h.frames);
}

describe('replay venue', () => {
  it('answers after the order latency plus the answer latency, on the recording\'s clock', () => {
    const h = harness('risk_averse');
    h.at(1_000_000);
    h.venue.create(order('c1', 'bid', 4500, 100));
    h.at(1_499_999);
    expect(h.acks).toEqual([]); // reached the engine at 1.3 ms; its answer is due at 1.5 ms
    h.at(1_500_000);
    expect(h.acks).toHaveLength(1);
    expect(h.acks[0]).toMatch(new RegExp(`^create_ack c1 \\S+ 0 100 ${MS + 1}$`));
    expect(h.venue.stats.ackLatencyUs).toEqual([500]);
  });

  it('a crossing order fills at once against the recorded liquidity, and its fill reaches the feed as a fill frame', () => {
    const h = harness('risk_averse');
    h.at(1_000_000);
    h.venue.create(order('c1', 'bid', 6000, 200)); // 2.00 at $0.60 against 5.00 offered at $0.60
    h.at(2_000_000);
    expect(h.acks[0]).toMatch(/^create_ack c1 \S+ 200 0 /);
    expect(fills(h.frames)).toEqual([{ count: '2.00', price: '0.6000', taker: true }]);
    expect(JSON.parse(h.frames.find((text) => text.startsWith('{"type":"fill"'))!).sid).toBe(11);
  });

  it('risk_averse: size leaving the level leaves from behind us, so the trades do not reach us', () => {
    expect(queueScenario('risk_averse')).toEqual([]);
  });

  it('optimistic: size leaving the level leaves from the front, so the second trade fills us', () => {
    expect(queueScenario('optimistic')).toEqual([{ count: '1.00', price: '0.5000', taker: false }]);
  });

  it('a trade\'s own book decrease, recorded just before it, is taken once: by the trade, from the front', () => {
    const h = harness('risk_averse');
    h.at(1_000_000);
    h.venue.create(order('c1', 'bid', 5000, 100)); // 1.00 behind 10.00 at $0.50
    h.at(2_000_000);
    const recordedTrade = (count: number): void => {
      h.book.applyDelta(0, 5000 as Price, -count as Count);
      h.venue.onRecordedDelta(TICKER, 'bid', 5000 as Price, -count, false, true); // a trade is the next frame
      h.venue.onRecordedTrade(TICKER, 5000 as Price, count as Count, 'ask');
    };
    recordedTrade(600); // 6.00 of the 10.00 ahead: taken once, 4.00 still ahead
    h.at(3_000_000);
    expect(fills(h.frames)).toEqual([]);
    recordedTrade(500); // the 4.00 ahead, then 1.00 of us
    h.at(4_000_000);
    expect(fills(h.frames)).toEqual([{ count: '1.00', price: '0.5000', taker: false }]);
  });

  it('with the live run\'s fills: a trade where it rested fills us as it filled the live order; where it did not, the queue model decides', () => {
    // The live run took 0.50 of T1 and none of T2 at $0.50, where it rested 1.00 until T3; T3 came after it left.
    const liveShare = new Map([['T1', 50], ['T2', 0], ['T3', 0]]);
    let liveResting = 100;
    const h = harness('risk_averse', { liveMakerCount: (tradeId) => liveShare.get(tradeId) ?? -1, liveOwnSize: (_ticker, side, price) => (side === 'bid' && price === 5000 ? liveResting : 0) });
    liveJoins(h, 100); // the live order joined behind the 10.00, as ours will: its counterpart
    h.at(1_000_000);
    h.venue.create(order('c1', 'bid', 5000, 100)); // 1.00 behind 10.00 at $0.50
    h.at(2_000_000);
    h.venue.onRecordedTrade(TICKER, 5000 as Price, 300 as Count, 'ask', 'T1'); // the model: 3.00 of the 10.00 ahead, not us
    h.at(3_000_000);
    expect(fills(h.frames)).toEqual([{ count: '0.50', price: '0.5000', taker: false }]);
    h.venue.onRecordedTrade(TICKER, 5000 as Price, 2_000 as Count, 'ask', 'T2'); // the model: through the queue and us
    h.at(4_000_000);
    expect(fills(h.frames)).toHaveLength(1); // the live order was not reached: neither are we
    liveResting = 0;
    h.venue.onRecordedTrade(TICKER, 5000 as Price, 2_000 as Count, 'ask', 'T3');
    h.at(5_000_000);
    expect(fills(h.frames)).toEqual([{ count: '0.50', price: '0.5000', taker: false }, { count: '0.50', price: '0.5000', taker: false }]); // the model: the rest of us
    expect(h.venue.stats.tradesAsLive).toBe(2);
    expect(h.venue.stats.tradesNotCounterpart).toBe(0);
  });

  it('with the live run\'s fills: where other public size joined between the live order and ours, the queue model decides', () => {
    const liveShare = new Map([['T1', 50]]);
    const h = harness('optimistic', { liveMakerCount: (tradeId) => liveShare.get(tradeId) ?? -1, liveOwnSize: (_ticker, side, price) => (side === 'bid' && price === 5000 ? 100 : 0) });
    liveJoins(h, 100);
    h.book.applyDelta(0, 5000 as Price, 200 as Count); // 2.00 more joined after the live order: ahead of ours, behind it
    h.venue.onRecordedDelta(TICKER, 'bid', 5000 as Price, 200, false, false);
    h.at(1_000_000);
    h.venue.create(order('c1', 'bid', 5000, 100)); // 1.00 behind 12.00 at $0.50
    h.at(2_000_000);
    h.venue.onRecordedTrade(TICKER, 5000 as Price, 300 as Count, 'ask', 'T1'); // the live order took 0.50 of it; 12.00 stand ahead of ours
    h.at(3_000_000);
    expect(fills(h.frames)).toEqual([]);
    expect(h.venue.stats.tradesNotCounterpart).toBe(1);
    expect(h.venue.stats.tradesAsLive).toBe(0);
  });

  it('size joining our level while we rest stands behind us, even when size ahead leaves before we meet the level again', () => {
    const h = harness('optimistic');
    h.at(1_000_000);
    h.venue.create(order('c1', 'bid', 5000, 100)); // 1.00 behind 10.00 at $0.50
    h.at(2_000_000);
    const recordedDelta = (delta: number, tradeNext: boolean): void => {
      h.book.applyDelta(0, 5000 as Price, delta as Count);
      h.venue.onRecordedDelta(TICKER, 'bid', 5000 as Price, delta, false, tradeNext);
    };
    recordedDelta(500, false); // 5.00 joins: behind us
    recordedDelta(-1000, false); // the 10.00 ahead cancelled (optimistic: from the front); netted with the join, 5.00 would stay ahead
    recordedDelta(-100, true);
    h.venue.onRecordedTrade(TICKER, 5000 as Price, 100 as Count, 'ask'); // nothing ahead: us
    h.at(3_000_000);
    expect(fills(h.frames)).toEqual([{ count: '1.00', price: '0.5000', taker: false }]);
  });

  it('a cancel is answered after the latencies and the order is gone at the venue', async () => {
    const h = harness('risk_averse');
    h.at(1_000_000);
    h.venue.create(order('c1', 'bid', 4500, 100));
    h.at(2_000_000);
    const orderId = h.acks[0].split(' ')[2];
    h.venue.cancel(orderId, 0);
    h.at(3_000_000);
    expect(h.acks[1]).toMatch(new RegExp(`^cancel_ack ${orderId} 100 `));
    expect(await h.venue.listOrders()).toEqual([]);
  });
});
