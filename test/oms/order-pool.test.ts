/**
 * Goal: the OMS's order records are reused (order-pool.ts) and never while anything still refers
 * to them: an order the OMS tracks keeps its record, identity and generation until it has been
 * terminal for the retention time, no two tracked orders share a record or a slot, a new order
 * never gets the record of a tracked one, and a record whose order is forgotten is reused.
 * Pruning also waits for a reconciliation round in flight (it holds orders across its reads).
 * Method: a real Oms, RiskGate and Router (test/oms/fakes.ts world, fake route, manual clock),
 * driven by seeded random create / ack / reject / amend / cancel / fill / time sequences (3
 * seeds x 3,000 steps, bounded) beside a reference model of which orders are tracked and since
 * when they are terminal; every invariant checked after every step.
 */

import { describe, expect, it } from 'vitest';
import { IntentKind, createIntent, seededRandom } from '../../src/core/index.ts';
import type { Count, Price } from '../../src/core/index.ts';
import { OrderPool, OrderState } from '../../src/oms/index.ts';
import type { Order, WireOrder } from '../../src/oms/index.ts';
import { Deny } from '../../src/risk/index.ts';
import { c, fill, p, world } from './fakes.ts';

const RETENTION_MS = 200;
const TERMINAL: number[] = [OrderState.CANCELED, OrderState.FILLED, OrderState.REJECTED];
const microtasks = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

interface Modelled {
  id: string;
  record: Order;
  generation: number;
  slot: number;
  orderId: string;
  /** 'pending' (create sent), 'resting', 'amending' (amend sent), 'cancelling' (cancel sent), 'done' (terminal). */
  phase: 'pending' | 'resting' | 'amending' | 'cancelling' | 'done';
  terminalAtMs: number;
  forgotten: boolean;
}

function setup() {
  const w = world({ oms: { terminalRetentionMs: RETENTION_MS, pendingTimeoutMs: 1e9 } });
  return w;
}

describe('order records pool', () => {
  for (const seed of [1, 2, 3]) {
    it(`never hands out a record still referenced, over random order lives (seed ${seed})`, async () => {
      const w = setup();
      const next = seededRandom(seed);
      const pick = (n: number): number => Math.floor(next() * n);
      const model: Modelled[] = [];
      let venueIds = 0;
      let peakTracked = 0;
      let live: Modelled[] = []; // the model's orders not forgotten yet
      const tracked = (): Modelled[] => live;
      const inPhase = (phase: Modelled['phase']): Modelled | undefined => {
        const candidates = tracked().filter((m) => m.phase === phase);
        return candidates.length === 0 ? undefined : candidates[pick(candidates.length)];
      };
      const end = (m: Modelled): void => {
        m.phase = 'done';
        m.terminalAtMs = w.clock.nowMs();
      };

      for (let step = 0; step < 3_000; step++) {
        const action = pick(8);
        if (action === 0 || action === 1) {
          const intent = createIntent();
          intent.kind = IntentKind.NEW;
          intent.market = w.market;
          intent.side = next() < 0.5 ? 'bid' : 'ask';
          intent.price = p(intent.side === 'bid' ? '0.40' : '0.60');
          intent.count = c('1');
          if (w.router.submit(intent) === Deny.NONE) {
            const id = w.oms.lastClientOrderId;
            const record = w.oms.order(id) as Order;
            // A new order never takes the record or the slot of an order still tracked.
            for (const other of tracked()) if (other.record === record || other.slot === record.slot) expect({ reused: other.id, by: id }).toBeNull();
            const m: Modelled = { id, record, generation: record.generation, slot: record.slot, orderId: '', phase: 'pending', terminalAtMs: 0, forgotten: false };
            model.push(m);
            live.push(m);
          }
        } else if (action === 2) {
          const m = inPhase('pending');
          if (m !== undefined) {
            if (next() < 0.8) {
              m.orderId = `v-${++venueIds}`;
              w.entry.listener!.onCreateAck(m.id, m.orderId, c('0'), c('1'), 0);
              m.phase = 'resting';
            } else {
              w.entry.listener!.onCreateReject(m.id, { status: 400, code: 'invalid_order', message: '', details: '' });
              end(m);
            }
          }
        } else if (action === 3) {
          const m = inPhase('resting');
          if (m !== undefined) {
            const amend = createIntent();
            amend.kind = IntentKind.AMEND;
            amend.market = w.market;
            amend.clientOrderId = m.id;
            amend.price = (m.record.side === 'bid' ? p('0.39') : p('0.61')) as Price;
            amend.count = c('1');
            if (w.router.submit(amend) === Deny.NONE) m.phase = 'amending';
          }
        } else if (action === 4) {
          const m = inPhase('amending');
          if (m !== undefined) {
            w.entry.listener!.onAmendAck(m.orderId, c('0'), c('1'), 0);
            m.phase = 'resting';
          }
        } else if (action === 5) {
          const m = inPhase('resting');
          if (m !== undefined) {
            const cancel = createIntent();
            cancel.kind = IntentKind.CANCEL;
            cancel.market = w.market;
            cancel.clientOrderId = m.id;
            if (w.router.submit(cancel) === Deny.NONE) {
              m.phase = 'cancelling';
              w.entry.listener!.onCancelAck(m.orderId, c('1'), 0);
              end(m);
            }
          }
        } else if (action === 6) {
          const m = inPhase('resting');
          if (m !== undefined) {
            w.oms.onFill(fill(m.orderId, m.id, m.record.side, m.record.price, c('1') as Count));
            end(m);
          }
        } else {
          w.clock.advance(pick(60));
          void w.oms.tick();
        }
        await Promise.resolve();

        // The reference model: which orders the OMS may have forgotten, and which it must still know
        // (plain checks, an expect() only on a mismatch: millions of them otherwise).
        const nowMs = w.clock.nowMs();
        const slots = new Set<number>();
        for (const m of live) {
          const found = w.oms.order(m.id);
          if (found === undefined) {
            if (m.phase !== 'done' || nowMs - m.terminalAtMs < RETENTION_MS) expect({ forgotten: m.id, phase: m.phase, since: nowMs - m.terminalAtMs }).toBeNull();
            // Forgotten by its venue id too: a late answer must not reach the record's next order.
            if (m.orderId !== '' && w.oms.orderByOrderId(m.orderId) !== undefined) expect({ stillByVenueId: m.orderId }).toBeNull();
            m.forgotten = true;
            continue;
          }
          const same = found === m.record && found.clientOrderId === m.id && found.generation === m.generation && !slots.has(found.slot);
          if (!same) expect({ id: m.id, record: found === m.record, foundId: found.clientOrderId, generation: found.generation, expected: m.generation }).toBeNull();
          if (m.phase === 'done' && !TERMINAL.includes(found.state)) expect({ id: m.id, state: found.state }).toBeNull();
          slots.add(found.slot);
        }
        live = live.filter((m) => !m.forgotten);
        peakTracked = Math.max(peakTracked, slots.size);
      }
      const records = w.oms.orderRecords;
      expect(records.reused).toBeGreaterThan(100);
      expect(records.size).toBeLessThanOrEqual(peakTracked);
      // A forgotten order's record was handed on: its generation moved, so a holder can tell.
      const forgotten = model.filter((m) => m.forgotten);
      expect(forgotten.length).toBeGreaterThan(100);
      for (const m of forgotten) expect(m.record.generation).not.toBe(m.generation);
    });
  }

  it('keeps every record while a reconciliation round is in flight, and releases them after', async () => {
    const w = setup();
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) {
      w.router.submit(w.intent);
      ids.push(w.oms.lastClientOrderId);
    }
    for (let i = 0; i < 4; i++) w.entry.listener!.onCreateReject(ids[i]!, { status: 400, code: 'invalid_order', message: '', details: '' });
    w.oms.requestReconcile(ids[4]!); // the fifth makes a round due
    let answer: ((orders: WireOrder[]) => void) | null = null;
    w.entry.listOrders = () => new Promise<WireOrder[]>((resolve) => {
      answer = resolve;
    });
    const round = w.oms.reconcile();
    await microtasks();
    expect(answer).not.toBeNull();
    w.clock.advance(RETENTION_MS + 1);
    void w.oms.tick();
    for (const id of ids) expect(w.oms.order(id)).toBeDefined();
    expect(w.oms.orderRecords.released).toBe(0);
    answer!([]);
    await round;
    void w.oms.tick();
    for (let i = 0; i < 4; i++) expect(w.oms.order(ids[i]!)).toBeUndefined();
    expect(w.oms.orderRecords.released).toBe(4);
    w.router.submit(w.intent);
    expect(w.oms.orderRecords.reused).toBe(1);
  });

  it('refuses a record released twice or not its own', () => {
    const pool = new OrderPool();
    const order = pool.take().reinit('a-1', 1, 'T', 0, 'bid', 4000 as Price, 100, 'good_till_canceled', false, false, 'taker_at_cross', 0, null, -1, 0, 0);
    pool.release(order);
    expect(() => pool.release(order)).toThrow(/already free/);
    const other = new OrderPool().take().reinit('b-1', 1, 'T', 0, 'bid', 4000 as Price, 100, 'good_till_canceled', false, false, 'taker_at_cross', 0, null, -1, 0, 0);
    expect(() => pool.release(other)).toThrow(/not a record/);
    const again = pool.take().reinit('a-2', 2, 'U', 1, 'ask', 6000 as Price, 200, 'immediate_or_cancel', true, true, 'maker', 3, 'g', 1, 2, 5);
    expect(again).toBe(order);
    expect(again.generation).toBe(1);
    expect({ id: again.clientOrderId, orderId: again.orderId, state: again.state, total: again.totalCount, filled: again.filledCount, tif: again.timeInForce }).toEqual({ id: 'a-2', orderId: '', state: OrderState.PENDING_NEW, total: 200, filled: 0, tif: 'immediate_or_cancel' });
  });
});

