// Goal: the OMS's index of orders by client order id (src/oms/client-id-index.ts) answers as the Map
// it replaced, for this session's orders (ids left as counters, found by counter and by text: the
// ring), ones that collide in the ring (a long-lived order a ring's length behind), ids given as
// text (earlier sessions, other tools, and this session's format given as text), and strings that
// only look like ours (leading zeros, letters, 17 digits, another epoch): the same order or
// undefined, the same size, delete reporting the same; and the ring grows past its start. Method:
// seeded random add/get/delete/has steps from a ring of 8 cells, compared with a Map after every
// step; then the OMS itself with a ring-sized gap between a resting order and a new one.

import { describe, expect, it } from 'vitest';
import { seededRandom, type Count, type Price } from '../../src/core/index.ts';
import { ClientOrderIds, OrderPool, type Order } from '../../src/oms/index.ts';
import { ClientIdIndex } from '../../src/oms/client-id-index.ts';
import { TICKER, world } from './fakes.ts';

const HEAD = 'mm1-mhc0x2ps-';
const IDS = new ClientOrderIds('mm1', parseInt('mhc0x2ps', 36), 0);

/** This session's order with `counter`: its id left as the counter (Order.ids set), as the OMS's accept makes it. */
function own(pool: OrderPool, counter: number): Order {
  return pool.take().reinit('', counter, 'T', 0, 'bid', 4000 as Price, 100, 'good_till_canceled', false, false, 'taker_at_cross', 0, null, -1, 0, 0, IDS);
}

/** The counter of `id` when it is this session's canonical form, else -1 (the test's own reading, by pattern). */
function ownCounter(id: string): number {
  const match = /^mm1-mhc0x2ps-([1-9][0-9]{0,15})$/.exec(id);
  return match === null || !Number.isSafeInteger(Number(match[1])) ? -1 : Number(match[1]);
}

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
          // This session's form: usually an order whose id is left as its counter; sometimes the same id given as text.
          const counter = ownCounter(id);
          const asCounter = counter >= 0 && next() < 0.8;
          const order = asCounter ? own(pool, counter) : pool.take().reinit(id, 0, 'T', 0, 'bid', 4000 as Price, 100, 'good_till_canceled', false, false, 'taker_at_cross', 0, null, -1, 0, 0);
          if (asCounter) expect(order.clientOrderId).toBe(id);
          // One id, one order, as in the OMS: a new record under an indexed id replaces the old one.
          const before = reference.get(id);
          if (before !== undefined) index.remove(before);
          if (asCounter) index.add(order);
          else index.set(id, order);
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
      const order = own(pool, c);
      orders.push(order);
      index.add(order);
    }
    expect(index.size).toBe(5_000);
    expect(index.overflowCount).toBe(0); // dense counters: each in its own cell as the ring doubled
    for (const order of orders) expect(index.own(order.counter)).toBe(order);
    for (const order of orders) expect(index.get(`${HEAD}${order.counter}`)).toBe(order);
    for (const order of orders.slice(0, 100)) expect(index.remove(order)).toBe(true);
    expect(index.size).toBe(4_900);
    expect(index.own(1)).toBeUndefined();
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
