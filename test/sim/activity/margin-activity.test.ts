/**
 * Goal: Margin activity is deterministic (same seed, catalog and calls -> the same order and trade
 * events; another seed -> different ones), honours the step's book-update budget (and returns 0
 * with no market), keeps every perpetual book uncrossed with prices on whole ticks inside the band
 * around the catalog mark while takers trade, keeps the engine's memory bounded over a long run
 * (orders, orderList, fills, funding payments of the synthetic users), and fills a real user's
 * resting order with its fill, position and cash recorded as for any trade.
 * Method: run the generator on config/margin-markets.json with a manual clock for a bounded number
 * of steps, record every engine event (MarginEngine.observe) as text, compare streams, inspect
 * books and the engine's public collections.
 */

import { describe, expect, it } from 'vitest';
import { MarginActivity } from '../../../src/sim/activity/index.ts';
import { CONTRACT, MarginBookLevels, MarginEngine, isMarginError, loadMarginCatalog } from '../../../src/sim/margin/index.ts';

/** 2026-01-01T00:00:00Z: a whole hour, so hourly funding falls at +1 h. */
const START_MS = Date.UTC(2026, 0, 1);
const MAKERS = 3;
const QUOTES_PER_SIDE = 3;
const BAND_PPM = 200_000;

function newEngine(clock: { ms: number }): MarginEngine {
  return new MarginEngine({ catalog: loadMarginCatalog('config/margin-markets.json'), now: () => clock.ms, seed: 11 });
}

function record(engine: MarginEngine): string[] {
  const events: string[] = [];
  engine.observe({
    onOrder: (o) => events.push(`o ${o.userId} ${o.orderId} ${o.clientOrderId} ${o.ticker} ${o.side} ${o.price} ${o.remaining} ${o.filled} ${o.status} ${o.lastUpdateReason}`),
    onTrade: (m, t) => events.push(`t ${m.spec.ticker} ${t.tradeId} ${t.price} ${t.count} ${t.takerSide}`),
  });
  return events;
}

function run(seed: number, steps: number, perStep: number): { events: string[]; produced: number[] } {
  const clock = { ms: START_MS };
  const engine = newEngine(clock);
  const events = record(engine);
  const activity = new MarginActivity(engine, { seed });
  const produced: number[] = [];
  for (let i = 0; i < steps; i++) {
    clock.ms += 10;
    produced.push(activity.step(clock.ms, perStep));
  }
  return { events, produced };
}

/** Every level of every book: on tick, inside the band, whole contracts; bids below asks. */
function checkBooks(engine: MarginEngine): void {
  for (const market of engine.markets.values()) {
    const { tickSize, markPrice } = market.spec;
    const band = Math.floor((markPrice * BAND_PPM) / 1_000_000);
    for (const side of ['bid', 'ask'] as const) {
      for (const [price, size] of market.book.depth(side, 0)) {
        if (price % tickSize !== 0) throw new Error(`${market.spec.ticker} ${side} ${price} off tick`);
        if (price <= 0 || price < markPrice - band || price > markPrice + band) throw new Error(`${market.spec.ticker} ${side} ${price} out of band`);
        if (size <= 0 || size % CONTRACT !== 0) throw new Error(`${market.spec.ticker} ${side} size ${size}`);
      }
    }
    const bid = market.book.best('bid');
    const ask = market.book.best('ask');
    if (bid !== null && ask !== null && bid >= ask) throw new Error(`${market.spec.ticker} crossed: ${bid} >= ${ask}`);
  }
}

describe('MarginActivity', () => {
  it('is deterministic for a seed and differs across seeds', () => {
    const first = run(5, 40, 200);
    const second = run(5, 40, 200);
    const other = run(6, 40, 200);
    expect(first.events.length).toBeGreaterThan(4_000);
    expect(first.events.some((e) => e.startsWith('t '))).toBe(true);
    expect(second.events).toEqual(first.events);
    expect(other.events).not.toEqual(first.events);
  });

  it('honours the update budget, trades, and keeps books uncrossed, on tick and in band over 50,000 updates', () => {
    const clock = { ms: START_MS };
    const engine = newEngine(clock);
    const events = record(engine);
    const activity = new MarginActivity(engine, { seed: 9 });
    // An independent count of what the WebSocket feed would send: one delta per changed level.
    const levels = new MarginBookLevels(engine);
    let deltas = 0;
    for (const ticker of engine.markets.keys()) levels.watch(ticker);
    engine.observe({ onOrder: (o) => void (deltas += levels.diff(o.ticker).length), onTrade: () => undefined });
    let total = 0;
    for (let i = 0; i < 250 && total < 50_000; i++) {
      clock.ms += 10;
      const produced = activity.step(clock.ms, 200);
      expect(produced).toBeGreaterThanOrEqual(200);
      expect(produced).toBeLessThan(205); // one action changes a few levels at most
      total += produced;
      checkBooks(engine);
    }
    expect(total).toBeGreaterThanOrEqual(50_000);
    expect(deltas).toBe(total);
    for (const market of engine.markets.values()) {
      expect(market.volume, market.spec.ticker).toBeGreaterThan(0);
      expect(market.book.bids.length, market.spec.ticker).toBeGreaterThan(0);
      expect(market.book.asks.length, market.spec.ticker).toBeGreaterThan(0);
    }
    expect(events.filter((e) => e.startsWith('t ')).length).toBeGreaterThan(1_000);
    // Post-only quotes never refused: no quote ever crossed.
    expect(events.some((e) => e.includes('PostOnlyCrossCancel'))).toBe(false);
  });

  it('returns 0 with no market or no budget', () => {
    const clock = { ms: START_MS };
    const engine = newEngine(clock);
    const none = new MarginActivity(engine, { seed: 1, tickers: [] });
    expect(none.step(clock.ms, 1_000)).toBe(0);
    const some = new MarginActivity(engine, { seed: 1, tickers: ['KXGOLDPERP'], userPrefix: 'other' });
    expect(some.step(clock.ms, 0)).toBe(0);
    expect(some.step(clock.ms, 50)).toBeGreaterThanOrEqual(50);
    some.detach();
    expect(some.step(clock.ms, 50)).toBe(0);
    expect(() => new MarginActivity(engine, { seed: 1, tickers: ['NOPE'], userPrefix: 'x' })).toThrow(/unknown margin market/);
  });

  it('keeps the engine\'s records bounded over 60,000 updates and a funding time', () => {
    const clock = { ms: START_MS };
    const engine = newEngine(clock);
    const activity = new MarginActivity(engine, { seed: 3, makers: MAKERS, quotesPerSide: QUOTES_PER_SIDE });
    const resting = MAKERS * QUOTES_PER_SIDE * 2 * engine.markets.size;
    let total = 0;
    let ordersMax = 0;
    let listMax = 0;
    for (let i = 0; i < 400 && total < 60_000; i++) {
      clock.ms += 10_000; // 4,000 s in all: past the first hourly funding time
      total += activity.step(clock.ms, 150);
      ordersMax = Math.max(ordersMax, engine.orders.size);
      listMax = Math.max(listMax, engine.orderList.length);
    }
    expect(total).toBeGreaterThanOrEqual(60_000);
    expect(activity.actionCount).toBeGreaterThan(30_000);
    expect(ordersMax).toBeLessThanOrEqual(resting);
    expect(listMax).toBeLessThanOrEqual(2 * resting + 2); // stale entries compacted past half
    expect(engine.fills).toHaveLength(0);
    expect(engine.markets.get('KXBTCPERP')!.fundingRates.length).toBeGreaterThan(0);
    expect(engine.fundingPayments).toHaveLength(0);
    // The synthetic users did trade and hold positions all along.
    const positions = activity.userIds.map((id) => engine.account(id, 0)!.positions.get('KXBTCPERP')?.count ?? 0);
    expect(positions.some((count) => count !== 0)).toBe(true);
  });

  it('keeps each market\'s public trades, tops and open interest tapes within tapeEntriesMax, the newest kept', () => {
    const clock = { ms: START_MS };
    const engine = new MarginEngine({ catalog: loadMarginCatalog('config/margin-markets.json'), now: () => clock.ms, seed: 11, tapeEntriesMax: 200 });
    const events = record(engine);
    const activity = new MarginActivity(engine, { seed: 5, takerPerMille: 400 });
    for (let i = 0; i < 400; i++) {
      clock.ms += 10;
      activity.step(clock.ms, 100);
    }
    const traded = events.filter((e) => e.startsWith('t KXBTCPERP ')).length;
    expect(traded).toBeGreaterThan(400); // the tape was full at least twice
    for (const market of engine.markets.values()) {
      expect(market.trades.length, market.spec.ticker).toBeLessThanOrEqual(200);
      expect(market.tops.length, market.spec.ticker).toBeLessThanOrEqual(200);
      expect(market.openInterestTape.length, market.spec.ticker).toBeLessThanOrEqual(200);
    }
    const btc = engine.markets.get('KXBTCPERP')!;
    const lastTrade = events.filter((e) => e.startsWith('t KXBTCPERP ')).at(-1)!.split(' ')[2];
    expect(btc.trades.at(-1)!.tradeId).toBe(lastTrade);
    for (let i = 1; i < btc.trades.length; i++) expect(btc.trades[i]!.seq).toBeGreaterThan(btc.trades[i - 1]!.seq);
  });

  it('fills a real user\'s resting order: its fill in fills, its position and cash moved', () => {
    const clock = { ms: START_MS };
    const engine = newEngine(clock);
    engine.ensureAccount('real', 0, 10_000_000_000);
    const spec = engine.markets.get('KXBTCPERP')!.spec;
    const placed = engine.create('real', 0, {
      ticker: 'KXBTCPERP', clientOrderId: 'real-ask', side: 'ask', count: 500 * CONTRACT, price: spec.markPrice + spec.tickSize,
      timeInForce: 'good_till_canceled', selfTradePrevention: 'taker_at_cross', postOnly: true, reduceOnly: false, cancelOrderOnPause: false, expirationTs: null,
    });
    if (isMarginError(placed)) throw new Error(placed.message);
    const order = placed.order;
    const activity = new MarginActivity(engine, { seed: 21, tickers: ['KXBTCPERP'] });
    for (let i = 0; i < 500 && order.filled === 0; i++) {
      clock.ms += 10;
      activity.step(clock.ms, 100);
    }
    expect(order.filled).toBeGreaterThan(0);
    expect(engine.orders.get(order.orderId)).toBe(order);
    expect(engine.fills.length).toBeGreaterThan(0);
    expect(engine.fills.every((fill) => fill.userId === 'real' && fill.orderId === order.orderId && !fill.isTaker)).toBe(true);
    const filled = engine.fills.reduce((sum, fill) => sum + fill.count, 0);
    expect(filled).toBe(order.filled);
    const account = engine.account('real', 0)!;
    expect(account.positions.get('KXBTCPERP')!.count).toBe(-order.filled);
    const fees = engine.fills.reduce((sum, fill) => sum + fill.fee, 0);
    expect(fees).toBeGreaterThan(0);
    expect(account.cash).toBe(10_000_000_000 - fees);
  });
});
