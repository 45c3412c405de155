/**
 * Goal: market activity is deterministic (same seed and calls -> the same event stream; another
 * seed -> a different one), honours the step's book-update budget, keeps books uncrossed with
 * trades happening, survives a regrid and skips markets that are not active.
 * Method: run the generator on the shipped catalog with a manual clock for a bounded number of
 * steps, record every engine event as text, compare streams and inspect books.
 */

import { describe, expect, it } from 'vitest';
import { SimEngine, isSimError, loadCatalog } from '../../../src/sim/engine/index.ts';
import { MarketActivity } from '../../../src/sim/activity/index.ts';

const START_MS = 1_790_000_000_000;

function run(seed: number, steps: number, perStep: number): { events: string[]; engine: SimEngine; activity: MarketActivity; produced: number[] } {
  const clock = { ms: START_MS };
  const engine = new SimEngine({ now: () => clock.ms, seed: 11, catalog: loadCatalog('config/markets.json') });
  const events: string[] = [];
  engine.subscribe({
    onBookDelta: (m, side, price, delta, order, reason) => events.push(`d ${m.ticker} ${side} ${price} ${delta} ${order.userId} ${order.orderId} ${reason}`),
    onTrade: (m, t) => events.push(`t ${m.ticker} ${t.tradeId} ${t.price} ${t.count} ${t.takerSide}`),
    onFill: (user, f) => events.push(`f ${user} ${f.fillId} ${f.count} ${f.fee}`),
  });
  const activity = new MarketActivity(engine, { seed });
  const produced: number[] = [];
  for (let i = 0; i < steps; i++) {
    clock.ms += 10;
    produced.push(activity.step(clock.ms, perStep));
  }
  return { events, engine, activity, produced };
}

describe('MarketActivity', () => {
  it('is deterministic for a seed and differs across seeds', () => {
    const first = run(5, 50, 200);
    const second = run(5, 50, 200);
    const other = run(6, 50, 200);
    expect(first.events.length).toBeGreaterThan(10_000);
    expect(second.events).toEqual(first.events);
    expect(other.events).not.toEqual(first.events);
  });

  it('honours the update budget, trades, and keeps every book uncrossed', () => {
    const { engine, produced, events } = run(9, 100, 500);
    for (const n of produced) {
      expect(n).toBeGreaterThanOrEqual(500);
      expect(n).toBeLessThan(520); // one action adds a handful of deltas at most
    }
    expect(events.filter((e) => e.startsWith('t ')).length).toBeGreaterThan(500);
    for (const market of engine.markets()) {
      if (market.status !== 'active') {
        expect(market.volume).toBe(0);
        continue;
      }
      expect(market.volume).toBeGreaterThan(0);
      const bid = market.bestBid();
      const ask = market.bestAsk();
      if (bid !== 0 && ask !== 0) expect(bid).toBeLessThan(ask);
    }
  });

  it('keeps running after a regrid and a market close', () => {
    const clock = { ms: START_MS };
    const engine = new SimEngine({ now: () => clock.ms, seed: 1, catalog: loadCatalog('config/markets.json') });
    const activity = new MarketActivity(engine, { seed: 2, tickers: ['KXDEMO-26DEC31-T50', 'KXGOLD-26DEC31-T3000'] });
    activity.step(clock.ms, 2_000);
    expect(engine.setPriceLevelStructure('KXDEMO-26DEC31-T50', 'deci_cent')).toBeNull();
    engine.setMarketStatus('KXGOLD-26DEC31-T3000', 'closed');
    const goldVolume = engine.getMarket('KXGOLD-26DEC31-T3000')?.volume;
    for (let i = 0; i < 20; i++) {
      clock.ms += 10;
      activity.step(clock.ms, 500);
    }
    expect(engine.getMarket('KXGOLD-26DEC31-T3000')?.volume).toBe(goldVolume);
    const book = engine.orderbook('KXDEMO-26DEC31-T50');
    if (isSimError(book)) throw new Error('book');
    // Quotes on the finer grid appear (prices that are not whole cents).
    expect(book.yes.some(([price]) => price % 100 !== 0) || book.no.some(([price]) => price % 100 !== 0)).toBe(true);
  });

  it('returns 0 when nothing can trade', () => {
    const clock = { ms: START_MS };
    const engine = new SimEngine({ now: () => clock.ms, seed: 1, catalog: loadCatalog('config/markets.json') });
    const activity = new MarketActivity(engine, { seed: 3, tickers: ['KXCPI-26JUN-T3'] });
    expect(activity.step(clock.ms, 100)).toBe(0);
  });
});
