/**
 * Goal: MarginEngine.forgetHistoryOf(userId) drops what a synthetic participant would pile up
 * (its ended orders from `orders` and `orderList`, its fills and funding payments, its ended client
 * order ids) while a real user trading against it sees exactly what it would without the flag:
 * same fill records (ids and seqs included), cash, positions, public trades, listener events and
 * listing order. cancelAll still cancels every order of a forgetful user (its loop compacts the list).
 * Method: two engines on the same catalog, clock and seed run the same scripted calls; in one the
 * synthetic user forgets. Records are compared field by field.
 */

import { describe, expect, it } from 'vitest';
import { MarginEngine, loadMarginCatalog, isMarginError, type CreateMarginOrder, type MarginOrderRecord } from '../../../src/sim/margin/index.ts';

/** 2026-01-01T00:00:00Z: a whole hour, so hourly funding falls at +1 h. */
const START_MS = Date.UTC(2026, 0, 1);
const TICKER = 'KXBTCPERP';
const MARK = 1_000_000; // $100.00
const TICK = 100; // $0.01
const CASH = 10_000_000_000; // $1,000,000 in centicents

interface Run {
  engine: MarginEngine;
  clock: { ms: number };
  events: string[];
}

function makeEngine(forget: boolean): Run {
  const clock = { ms: START_MS };
  const engine = new MarginEngine({ catalog: loadMarginCatalog('config/margin-markets.json'), now: () => clock.ms, seed: 4 });
  const events: string[] = [];
  engine.observe({
    onOrder: (o) => events.push(`o ${o.userId} ${o.orderId} ${o.clientOrderId} ${o.side} ${o.price} ${o.remaining} ${o.filled} ${o.status} ${o.lastUpdateReason}`),
    onTrade: (m, t) => events.push(`t ${m.spec.ticker} ${t.seq} ${t.tradeId} ${t.price} ${t.count} ${t.takerSide}`),
  });
  for (const user of ['real', 'synthetic']) engine.ensureAccount(user, 0, CASH);
  if (forget) engine.forgetHistoryOf('synthetic');
  return { engine, clock, events };
}

let counter = 0;
function request(
  side: 'bid' | 'ask', price: number, contracts: number, timeInForce: CreateMarginOrder['timeInForce'] = 'good_till_canceled', clientOrderId = `c${++counter}`,
  selfTradePrevention: CreateMarginOrder['selfTradePrevention'] = 'taker_at_cross',
): CreateMarginOrder {
  return {
    ticker: TICKER, clientOrderId, side, count: contracts * 100, price, timeInForce, selfTradePrevention,
    postOnly: false, reduceOnly: false, cancelOrderOnPause: false, expirationTs: null,
  };
}

function place(engine: MarginEngine, user: string, order: CreateMarginOrder): MarginOrderRecord {
  const result = engine.create(user, 0, order);
  if (isMarginError(result)) throw new Error(`${result.code}: ${result.message}`);
  return result.order;
}

/** A scripted session: the synthetic user quotes, is taken, takes the real user, cancels, and both hold positions over a funding time. */
function script(run: Run): void {
  const { engine, clock } = run;
  counter = 0;
  for (let round = 0; round < 40; round++) {
    clock.ms += 1_000;
    const offset = (round % 5) + 1;
    const bid = place(engine, 'synthetic', request('bid', MARK - offset * TICK, 2 + (round % 3)));
    const ask = place(engine, 'synthetic', request('ask', MARK + offset * TICK, 2));
    // The real user takes part of the synthetic bid, rests an ask the synthetic user then lifts in
    // part, its own cheaper ask cancelled first on the way (self-trade prevention 'maker') every other round.
    place(engine, 'real', request('ask', MARK - offset * TICK, 1, 'immediate_or_cancel'));
    place(engine, 'real', request('ask', MARK + 20 * TICK + round * TICK, 3));
    if (round % 2 === 1) expect(isMarginError(engine.cancel('synthetic', 0, ask.orderId))).toBe(false);
    place(engine, 'synthetic', request('bid', MARK + 20 * TICK + round * TICK, 1, 'immediate_or_cancel', undefined, 'maker'));
    if (round % 2 === 0 && bid.status === 'resting') expect(isMarginError(engine.cancel('synthetic', 0, bid.orderId))).toBe(false);
  }
  clock.ms = START_MS + 3_600_000 + 1; // past a funding time: both hold positions
  engine.advance();
}

describe('MarginEngine.forgetHistoryOf', () => {
  it('leaves the real user\'s records, cash, positions, trades and events exactly as without it', () => {
    const keep = makeEngine(false);
    const forget = makeEngine(true);
    script(keep);
    script(forget);
    expect(forget.events).toEqual(keep.events);
    const realFills = keep.engine.fills.filter((fill) => fill.userId === 'real');
    expect(realFills.length).toBeGreaterThan(40);
    expect(forget.engine.fills).toEqual(realFills);
    expect(forget.engine.account('real', 0)).toEqual(keep.engine.account('real', 0));
    expect(forget.engine.account('synthetic', 0)).toEqual(keep.engine.account('synthetic', 0)); // cash and positions still move
    expect(forget.engine.account('synthetic', 0)!.positions.get(TICKER)!.count).not.toBe(0);
    expect(forget.engine.markets.get(TICKER)!.trades).toEqual(keep.engine.markets.get(TICKER)!.trades);
    expect(keep.engine.fundingPayments.some((p) => p.userId === 'synthetic')).toBe(true);
    expect(forget.engine.fundingPayments).toEqual(keep.engine.fundingPayments.filter((p) => p.userId === 'real'));
    // What remains: every real order and the synthetic user's resting ones, listed in creation order;
    // dropped entries linger in orderList until they pass half of it (then one compaction).
    const remaining = keep.engine.orderList.filter((o) => o.userId === 'real' || o.status === 'resting');
    const listed = forget.engine.orderList.filter((o) => forget.engine.orders.get(o.orderId) === o);
    expect(listed.map((o) => o.orderId)).toEqual(remaining.map((o) => o.orderId));
    expect([...forget.engine.orders.keys()].sort()).toEqual(remaining.map((o) => o.orderId).sort());
    expect(forget.engine.orderList.length).toBeLessThanOrEqual(2 * forget.engine.orders.size + 1);
    expect(forget.engine.orderList.length).toBeLessThan(keep.engine.orderList.length);
    expect(forget.engine.keepsHistory('synthetic')).toBe(false);
    expect(forget.engine.keepsHistory('real')).toBe(true);
  });

  it('releases an ended order\'s client order id, still refuses a live one, and a real user keeps refusing', () => {
    const { engine } = makeEngine(true);
    const live = place(engine, 'synthetic', request('bid', MARK - TICK, 1, 'good_till_canceled', 'quote-1'));
    const duplicate = engine.create('synthetic', 0, request('bid', MARK - 2 * TICK, 1, 'good_till_canceled', 'quote-1'));
    expect(isMarginError(duplicate) && duplicate.code).toBe('order_already_exists');
    engine.cancel('synthetic', 0, live.orderId);
    expect(engine.orders.has(live.orderId)).toBe(false);
    expect(isMarginError(engine.create('synthetic', 0, request('bid', MARK - TICK, 1, 'good_till_canceled', 'quote-1')))).toBe(false);
    const real = place(engine, 'real', request('bid', MARK - 3 * TICK, 1, 'good_till_canceled', 'mine'));
    engine.cancel('real', 0, real.orderId);
    const again = engine.create('real', 0, request('bid', MARK - 3 * TICK, 1, 'good_till_canceled', 'mine'));
    expect(isMarginError(again) && again.code).toBe('order_already_exists');
    expect(engine.orders.get(real.orderId)?.status).toBe('canceled');
  });

  it('cancel-all cancels every resting order of a forgetful user while the list compacts under it', () => {
    const { engine } = makeEngine(true);
    for (let i = 0; i < 4; i++) place(engine, 'real', request('bid', MARK - (30 + i) * TICK, 1));
    const quotes: MarginOrderRecord[] = [];
    for (let i = 0; i < 25; i++) quotes.push(place(engine, 'synthetic', request(i % 2 === 0 ? 'bid' : 'ask', i % 2 === 0 ? MARK - (i + 1) * TICK : MARK + (i + 1) * TICK, 1)));
    expect(engine.cancelAll('synthetic', null)).toBe(25);
    expect(quotes.every((q) => q.status === 'canceled')).toBe(true);
    expect(engine.orders.size).toBe(4);
    expect(engine.orderList.filter((o) => engine.orders.get(o.orderId) === o).map((o) => o.userId)).toEqual(['real', 'real', 'real', 'real']);
    expect(engine.orderList.length).toBeLessThanOrEqual(2 * 4 + 1); // compacted while the loop ran
    expect(engine.markets.get(TICKER)!.book.asks).toHaveLength(0);
  });

  it('drops the orders that ended before the call too', () => {
    const { engine } = makeEngine(false);
    const quote = place(engine, 'synthetic', request('bid', MARK - TICK, 1));
    const resting = place(engine, 'synthetic', request('bid', MARK - 2 * TICK, 1));
    engine.cancel('synthetic', 0, quote.orderId);
    engine.forgetHistoryOf('synthetic');
    expect([...engine.orders.keys()]).toEqual([resting.orderId]);
    expect(engine.orderList.map((o) => o.orderId)).toEqual([resting.orderId]);
  });
});
