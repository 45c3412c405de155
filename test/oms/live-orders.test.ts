// Goal: the OMS's live-order list (src/oms/live-orders.ts) behaves as the Set it replaced: insertion
// order, add twice keeps one entry, delete reports whether it removed, and a walk survives the
// current order leaving and visits orders appended meanwhile; against a Set over random sequences.
// Method: records from an OrderPool, 5,000 seeded random add/delete/walk steps compared with a Set.

import { describe, expect, it } from 'vitest';
import { seededRandom } from '../../src/core/index.ts';
import type { Price } from '../../src/core/index.ts';
import { OrderPool } from '../../src/oms/index.ts';
import type { Order } from '../../src/oms/index.ts';
import { LiveOrders } from '../../src/oms/live-orders.ts';

function records(n: number): Order[] {
  const pool = new OrderPool();
  const out: Order[] = [];
  for (let i = 0; i < n; i++) out.push(pool.take().reinit(`t-${i}`, i, 'T', 0, 'bid', 4000 as Price, 100, 'good_till_canceled', false, false, 'taker_at_cross', 0, null, -1, 0, 0));
  return out;
}

describe('live orders list', () => {
  it('matches a Set over random adds, deletes and walks', () => {
    const orders = records(64);
    const list = new LiveOrders();
    const set = new Set<Order>();
    const next = seededRandom(7);
    for (let step = 0; step < 5_000; step++) {
      const order = orders[Math.floor(next() * orders.length)]!;
      if (next() < 0.55) {
        list.add(order);
        set.add(order);
      } else {
        expect(list.delete(order)).toBe(set.delete(order));
      }
      expect(list.size).toBe(set.size);
      expect(list.has(order)).toBe(set.has(order));
      if (step % 50 === 0) expect([...list]).toEqual([...set]);
    }
  });

  it('lets the current order leave during a walk and visits orders appended meanwhile', () => {
    const [a, b, c, d] = records(4) as [Order, Order, Order, Order];
    const list = new LiveOrders();
    list.add(a);
    list.add(b);
    list.add(c);
    const seen: Order[] = [];
    for (const order of list) {
      seen.push(order);
      if (order === b) list.delete(b);
      if (order === c) list.add(d);
    }
    expect(seen).toEqual([a, b, c, d]);
    expect([...list]).toEqual([a, c, d]);
  });
});
