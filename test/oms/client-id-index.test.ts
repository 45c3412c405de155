// Goal: the OMS's index of orders by client order id (src/oms/client-id-index.ts) answers as the Map
// it replaced, for this session's ids (ring by counter), ids that collide in the ring (a
// long-lived order a ring's length behind), ids of earlier sessions and other tools, and strings
// that only look like ours (leading zeros, letters, 17 digits): the same order or undefined, the
// same size, delete reporting the same; and the ring grows past its start. Method: seeded random
// set/get/delete/has steps from a ring of 8 cells, compared with a Map after every step; then the
// OMS itself with a ring-sized gap between a resting order and a new one, over its query API.

import { describe, expect, it } from 'vitest';
import { seededRandom, type Count, type Price } from '../../src/core/index.ts';
import { OrderPool, type Order } from '../../src/oms/index.ts';
import { ClientIdIndex } from '../../src/oms/client-id-index.ts';
import { TICKER, world } from './fakes.ts';

const HEAD = 'mm1-mhc0x2ps-';

function idPool(next: () => number): string[] {
  const ids: string[] = [];
  for (let c = 1; c <= 300; c++) ids.push(`${HEAD}${c}`); // dense own counters: the ring's case
  for (const c of [8, 16, 24, 1_000_000, 2 ** 32 + 8, 2 ** 40, Number.MAX_SAFE_INTEGER]) ids.push(`${HEAD}${c}`); // collide in 8 cells, and past 2^32
  ids.push(`${HEAD}0`, `${HEAD}007`, `${HEAD}12a`, `${HEAD}${'9'.repeat(17)}`, HEAD, `${HEAD}-5`, `mm1-mhc0x2pr-5`, 'x', '', '9b8e0d3f-2c1a-4e01-a5e1-d6f05c2b4b8e');
  for (let i = 0; i < 20; i++) ids.push(`other-${Math.floor(next() * 1e9)}`);
  return ids;
}

describe('client id index', () => {
  for (const seed of [1, 2, 3]) {
    it(`answers as a Map over random steps (seed ${seed})`, () => {
      const next = seededRandom(seed);
      const ids = idPool(next);
      const pool = new OrderPool();
      const index = new ClientIdIndex(HEAD, 8);
      const reference = new Map<string, Order>();
      let overflowSeen = 0;
      for (let step = 0; step < 4_000; step++) {
        // Ids drift upward like a session's counters; a few old ones stay (long-resting orders).
        const window = Math.min(ids.length, 20 + Math.floor(step / 10));
        const id = ids[Math.floor(next() * window)]!;
        const roll = next();
        if (roll < 0.45) {
          const order = pool.take().reinit(id, 0, 'T', 0, 'bid', 4000 as Price, 100, 'good_till_canceled', false, false, 'taker_at_cross', 0, null, -1, 0, 0);
          index.set(id, order);
          reference.set(id, order);
        } else if (roll < 0.8) {
          expect(index.delete(id), `delete ${id} at ${step}`).toBe(reference.delete(id));
        } else {
          expect(index.has(id)).toBe(reference.has(id));
        }
        overflowSeen = Math.max(overflowSeen, index.overflowCount);
        expect(index.size, `size at ${step}`).toBe(reference.size);
        expect(index.get(id), `${id} at ${step}`).toBe(reference.get(id));
        if (step % 100 === 0) for (const probe of ids) expect(index.get(probe), `${probe} at ${step}`).toBe(reference.get(probe));
      }
      expect(overflowSeen).toBeGreaterThan(0); // the collisions and foreign ids were exercised
      expect(new Set(index.values())).toEqual(new Set(reference.values()));
    });
  }

  it('grows the ring and keeps every order', () => {
    const pool = new OrderPool();
    const index = new ClientIdIndex(HEAD, 8);
    const orders: Order[] = [];
    for (let c = 1; c <= 5_000; c++) {
      const order = pool.take().reinit(`${HEAD}${c}`, c, 'T', 0, 'bid', 4000 as Price, 100, 'good_till_canceled', false, false, 'taker_at_cross', 0, null, -1, 0, 0);
      orders.push(order);
      index.set(order.clientOrderId, order);
    }
    expect(index.size).toBe(5_000);
    expect(index.overflowCount).toBe(0); // dense counters: each in its own cell as the ring doubled
    for (const order of orders) expect(index.get(order.clientOrderId)).toBe(order);
  });

  it('finds, through the OMS, an order resting while thousands after it come and go', () => {
    const w = world({ oms: { terminalRetentionMs: 0, reconcileIntervalMs: 3_600_000 } });
    const resting = w.oms.accept(w.intent, TICKER, null);
    w.oms.onCreateAck(resting.clientOrderId, 'v-resting', 0 as Count, 1000 as Count, 0);
    for (let i = 0; i < 10_000; i++) {
      const order = w.oms.accept(w.intent, TICKER, null);
      w.oms.onCreateAck(order.clientOrderId, `v-${i}`, 1000 as Count, 0 as Count, 0); // filled at once: terminal
      if ((i & 1023) === 0) {
        w.clock.advance(1);
        void w.oms.tick();
      }
    }
    w.clock.advance(1);
    void w.oms.tick();
    expect(w.oms.order(resting.clientOrderId)).toBe(resting);
    expect(w.oms.orderByOrderId('v-resting')).toBe(resting);
    expect(w.oms.liveOrderCount).toBe(1);
    expect(w.oms.order(w.oms.lastClientOrderId)).toBeUndefined(); // forgotten: cancelled, retention 0
  });
});
