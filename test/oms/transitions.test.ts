// Goal: every row of the order state table holds when the real OMS receives the real message, a
// pair missing from the table keeps the order (flagged, logged, reconciled, never forgotten), and
// the table itself is well formed.
// Method: for each TRANSITIONS row, a fresh OMS over a fake OrderEntry is driven into the row's
// state through its public API and ExecListener / feed callbacks, then the row's event is produced
// by the callback that produces it in production; the order's state must be the row's next state.
// The test fails if a state or event has no driver, so a new row cannot go untested.

import { describe, expect, it } from 'vitest';
import { ORDER_EVENT_COUNT, ORDER_EVENT_NAMES, ORDER_STATE_NAMES, OmsResult, OrderEvent as E, OrderState as S, TRANSITIONS, nextState, NO_TRANSITION } from '../../src/oms/index.ts';
import type { OrderEvent, OrderState } from '../../src/oms/index.ts';
import { Deny } from '../../src/risk/index.ts';
import { GRACE_MS, PENDING_TIMEOUT_MS, c, fill, p, userOrder, wireOrder, world } from './fakes.ts';
import type { World } from './fakes.ts';

const COUNT = c('10');

interface Ctx {
  w: World;
  coid: string;
  orderId: string;
}

function submit(w: World): string {
  expect(w.router.submit(w.intent)).toBe(Deny.NONE);
  return w.oms.lastClientOrderId;
}

function resting(w: World): Ctx {
  const coid = submit(w);
  const orderId = `oid-${coid}`;
  w.entry.listener!.onCreateAck(coid, orderId, c('0'), COUNT, 0);
  return { w, coid, orderId };
}

/** Events that need the order id known when the order is UNKNOWN. */
const NEEDS_ORDER_ID = new Set<OrderEvent>([
  E.CANCEL_SENT, E.CANCEL_ACK, E.CANCEL_GONE, E.CANCEL_UNKNOWN, E.AMEND_ACK_OPEN, E.AMEND_ACK_FILLED, E.AMEND_ACK_DONE, E.AMEND_UNKNOWN,
  E.DECREASE_ACK_OPEN, E.DECREASE_ACK_DONE, E.DECREASE_UNKNOWN, E.RECONCILE_GONE_EXPIRED,
]);

const DRIVERS: Record<OrderState, (w: World, event: OrderEvent) => Ctx> = {
  [S.PENDING_NEW]: (w) => ({ w, coid: submit(w), orderId: '' }),
  [S.RESTING]: (w) => resting(w),
  [S.PENDING_CANCEL]: (w) => {
    const ctx = resting(w);
    expect(w.router.cancel(ctx.coid)).toBe(OmsResult.OK);
    return ctx;
  },
  [S.PENDING_AMEND]: (w) => {
    const ctx = resting(w);
    expect(w.router.amend(ctx.coid, p('0.41'), COUNT)).toBe(OmsResult.OK);
    return ctx;
  },
  [S.PENDING_DECREASE]: (w) => {
    const ctx = resting(w);
    expect(w.router.decrease(ctx.coid, c('1'))).toBe(OmsResult.OK);
    return ctx;
  },
  [S.UNKNOWN]: (w, event) => {
    if (NEEDS_ORDER_ID.has(event)) {
      const ctx = resting(w);
      w.router.cancel(ctx.coid);
      w.entry.listener!.onCancelUnknown(ctx.orderId, 'EXEC_TIMEOUT');
      return ctx;
    }
    const coid = submit(w);
    w.entry.listener!.onCreateUnknown(coid, 'EXEC_TIMEOUT');
    return { w, coid, orderId: '' };
  },
  [S.FILLED]: (w) => {
    const ctx = resting(w);
    w.oms.onFill(fill(ctx.orderId, ctx.coid, 'bid', p('0.40'), COUNT));
    return ctx;
  },
  [S.CANCELED]: (w) => {
    const ctx = resting(w);
    w.router.cancel(ctx.coid);
    w.entry.listener!.onCancelAck(ctx.orderId, COUNT, 0);
    return ctx;
  },
  [S.REJECTED]: (w) => {
    const coid = submit(w);
    w.entry.listener!.onCreateReject(coid, { status: 400, code: 'invalid_order', message: '', details: '' });
    return { w, coid, orderId: '' };
  },
};

const idOf = (ctx: Ctx): string => (ctx.orderId !== '' ? ctx.orderId : `oid-${ctx.coid}`);

async function reconcileWith(ctx: Ctx, status: 'resting' | 'canceled' | 'executed' | null): Promise<void> {
  ctx.w.oms.requestReconcile(ctx.coid);
  ctx.w.entry.orders = status === null ? [] : [wireOrder(idOf(ctx), ctx.coid, status, status === 'executed' ? COUNT : c('0'), status === 'resting' ? COUNT : c('0'))];
  await ctx.w.oms.reconcile();
}

const FIRE: Record<OrderEvent, (ctx: Ctx) => void | Promise<void>> = {
  [E.CREATE_ACK_OPEN]: (x) => x.w.entry.listener!.onCreateAck(x.coid, idOf(x), c('0'), COUNT, 0),
  [E.CREATE_ACK_FILLED]: (x) => x.w.entry.listener!.onCreateAck(x.coid, idOf(x), COUNT, c('0'), 0),
  [E.CREATE_ACK_DONE]: (x) => x.w.entry.listener!.onCreateAck(x.coid, idOf(x), c('0'), c('0'), 0),
  [E.CREATE_REJECT]: (x) => x.w.entry.listener!.onCreateReject(x.coid, { status: 400, code: 'invalid_price', message: '', details: '' }),
  [E.CREATE_UNKNOWN]: (x) => x.w.entry.listener!.onCreateUnknown(x.coid, 'EXEC_DISCONNECTED'),
  [E.CANCEL_SENT]: (x) => void expect(x.w.router.cancel(x.coid)).toBe(OmsResult.OK),
  [E.CANCEL_ACK]: (x) => x.w.entry.listener!.onCancelAck(x.orderId, COUNT, 0),
  [E.CANCEL_REJECT]: (x) => x.w.entry.listener!.onCancelReject(x.orderId, { status: 400, code: 'bad_request', message: '', details: '' }),
  [E.CANCEL_GONE]: (x) => x.w.entry.listener!.onCancelReject(x.orderId, { status: 404, code: 'not_found', message: '', details: '' }),
  [E.CANCEL_UNKNOWN]: (x) => x.w.entry.listener!.onCancelUnknown(x.orderId, 'EXEC_TIMEOUT'),
  [E.AMEND_SENT]: (x) => void expect(x.w.router.amend(x.coid, p('0.42'), COUNT)).toBe(OmsResult.OK),
  [E.AMEND_ACK_OPEN]: (x) => x.w.entry.listener!.onAmendAck(x.orderId, c('0'), COUNT, 0),
  [E.AMEND_ACK_FILLED]: (x) => x.w.entry.listener!.onAmendAck(x.orderId, COUNT, c('0'), 0),
  [E.AMEND_ACK_DONE]: (x) => x.w.entry.listener!.onAmendAck(x.orderId, c('0'), c('0'), 0),
  [E.AMEND_REJECT]: (x) => x.w.entry.listener!.onAmendReject(x.orderId, { status: 400, code: 'invalid_price', message: '', details: '' }),
  [E.AMEND_UNKNOWN]: (x) => x.w.entry.listener!.onAmendUnknown!(x.orderId, 'EXEC_TIMEOUT'),
  [E.DECREASE_SENT]: (x) => void expect(x.w.router.decrease(x.coid, c('1'))).toBe(OmsResult.OK),
  [E.DECREASE_ACK_OPEN]: (x) => x.w.entry.listener!.onDecreaseAck(x.orderId, c('9'), 0),
  [E.DECREASE_ACK_DONE]: (x) => x.w.entry.listener!.onDecreaseAck(x.orderId, c('0'), 0),
  [E.DECREASE_REJECT]: (x) => x.w.entry.listener!.onDecreaseReject(x.orderId, { status: 400, code: 'bad_request', message: '', details: '' }),
  [E.DECREASE_UNKNOWN]: (x) => x.w.entry.listener!.onDecreaseUnknown!(x.orderId, 'EXEC_TIMEOUT'),
  [E.WS_RESTING]: (x) => x.w.oms.onUserOrder(userOrder(idOf(x), x.coid, 'resting', c('0'), COUNT)),
  [E.WS_CANCELED]: (x) => x.w.oms.onUserOrder(userOrder(idOf(x), x.coid, 'canceled', c('0'), c('0'))),
  [E.WS_EXECUTED]: (x) => x.w.oms.onUserOrder(userOrder(idOf(x), x.coid, 'executed', COUNT, c('0'))),
  [E.FILL_PARTIAL]: (x) => x.w.oms.onFill(fill(idOf(x), x.coid, 'bid', p('0.40'), c('1'))),
  [E.FILL_FULL]: (x) => {
    const order = x.w.oms.order(x.coid)!;
    x.w.oms.onFill(fill(idOf(x), x.coid, 'bid', p('0.40'), (order.totalCount - order.filledCount) as never));
  },
  [E.RECONCILE_RESTING]: (x) => reconcileWith(x, 'resting'),
  [E.RECONCILE_CANCELED]: (x) => reconcileWith(x, 'canceled'),
  [E.RECONCILE_EXECUTED]: (x) => reconcileWith(x, 'executed'),
  [E.RECONCILE_MISSING]: (x) => reconcileWith(x, null),
  [E.RECONCILE_MISSING_EXPIRED]: (x) => {
    x.w.clock.advance(GRACE_MS);
    return reconcileWith(x, null);
  },
  [E.RECONCILE_GONE_EXPIRED]: (x) => {
    x.w.clock.advance(GRACE_MS);
    return reconcileWith(x, null);
  },
  [E.PENDING_TIMEOUT]: async (x) => {
    x.w.clock.advance(PENDING_TIMEOUT_MS);
    x.w.book.updatedAtMs = x.w.clock.nowMs();
    const round = x.w.oms.tick();
    expect(x.w.oms.order(x.coid)!.state).toBe(S.UNKNOWN); // before any reconciliation read settles it
    await round;
  },
};

describe('transitions table', () => {
  it('is well formed: unique pairs, names for every code, drivers for every state and event', () => {
    const pairs = new Set(TRANSITIONS.map((r) => `${r.state}/${r.event}`));
    expect(pairs.size).toBe(TRANSITIONS.length);
    expect(ORDER_EVENT_NAMES.length).toBe(ORDER_EVENT_COUNT);
    for (const r of TRANSITIONS) expect(nextState(r.state, r.event)).toBe(r.next);
    expect(Object.keys(DRIVERS).length).toBe(ORDER_STATE_NAMES.length);
    expect(Object.keys(FIRE).length).toBe(ORDER_EVENT_COUNT);
    // Every state but the initial one is reachable, and every event is used by some row.
    for (let state = S.PENDING_NEW + 1; state < ORDER_STATE_NAMES.length; state++) {
      expect(TRANSITIONS.some((r) => r.next === state), ORDER_STATE_NAMES[state]).toBe(true);
    }
    for (let event = 0; event < ORDER_EVENT_COUNT; event++) {
      expect(TRANSITIONS.some((r) => r.event === event), ORDER_EVENT_NAMES[event]).toBe(true);
    }
  });

  for (const r of TRANSITIONS) {
    const name = `${ORDER_STATE_NAMES[r.state]} + ${ORDER_EVENT_NAMES[r.event]} -> ${ORDER_STATE_NAMES[r.next]}`;
    it(name, async () => {
      const w = world();
      const ctx = DRIVERS[r.state](w, r.event);
      expect(ORDER_STATE_NAMES[w.oms.order(ctx.coid)!.state]).toBe(ORDER_STATE_NAMES[r.state]);
      await FIRE[r.event](ctx);
      const order = w.oms.order(ctx.coid)!;
      expect(ORDER_STATE_NAMES[order.state]).toBe(ORDER_STATE_NAMES[r.next]);
      expect(order.anomalies).toBe(0);
      expect(w.oms.stats.missingTransitions).toBe(0);
      // The ledger holds this order's remainder only while it is live.
      const slot = w.gate.exposure.slot(w.market, 0);
      if (r.next === S.FILLED || r.next === S.CANCELED || r.next === S.REJECTED) {
        expect(slot === null ? 0 : slot.restingBid).toBe(0);
        expect(w.gate.exposure.openOrders).toBe(0);
      } else {
        expect(w.gate.exposure.openOrders).toBe(1);
      }
      // And the ledger equals the sum of the live orders after every row (the tick's invariant).
      expect(() => w.gate.assertLedger(w.oms.liveOrders())).not.toThrow();
    });
  }
});

describe('a pair missing from the table', () => {
  it('keeps the order in its state, logs it, flags it, and reconciles it once', async () => {
    const w = world();
    const ctx = resting(w);
    expect(nextState(S.RESTING, E.CREATE_REJECT)).toBe(NO_TRANSITION);
    w.entry.listener!.onCreateReject(ctx.coid, { status: 400, code: 'invalid_order', message: '', details: '' });
    const order = w.oms.order(ctx.coid)!;
    expect(order.state).toBe(S.RESTING);
    expect(order.anomalies).toBe(1);
    expect(order.needsReconcile).toBe(true);
    expect(w.oms.stats.missingTransitions).toBe(1);
    expect(w.logger.lines.some((l) => l.level === 'warn' && /no transition/.test(l.message))).toBe(true);
    expect(w.oms.liveOrders()).toContain(order);

    w.entry.orders = [wireOrder(ctx.orderId, ctx.coid, 'resting', c('0'), COUNT)];
    const round = w.oms.tick();
    expect(round).not.toBeNull();
    await round;
    expect(w.entry.listOrdersCalls).toBe(1);
    expect(order.state).toBe(S.RESTING);
    expect(order.needsReconcile).toBe(false);
    expect(w.oms.tick()).toBeNull(); // nothing left to reconcile: no loop
  });

  it('the user_order executed before the fill that completed it: the fill is booked, the order stays filled, nothing flagged', () => {
    const w = world();
    const ctx = DRIVERS[S.RESTING](w, E.WS_EXECUTED);
    w.oms.onUserOrder(userOrder(ctx.orderId, ctx.coid, 'executed', COUNT, c('0')));
    const order = w.oms.order(ctx.coid)!;
    expect(order.state).toBe(S.FILLED);
    w.oms.onFill(fill(ctx.orderId, ctx.coid, 'bid', p('0.40'), COUNT));
    expect(order.state).toBe(S.FILLED);
    expect(order.anomalies).toBe(0);
    expect(order.needsReconcile).toBe(false);
    expect(w.oms.stats.missingTransitions).toBe(0);
    expect(w.oms.position(0, order.ticker)!.position).toBe(COUNT); // the fill is booked once
  });

  it('keeps a filled order filled when an over-fill arrives, and flags it', () => {
    const w = world();
    const ctx = DRIVERS[S.FILLED](w, E.FILL_FULL);
    w.oms.onFill(fill(ctx.orderId, ctx.coid, 'bid', p('0.40'), c('1')));
    const order = w.oms.order(ctx.coid)!;
    expect(order.state).toBe(S.FILLED);
    expect(order.anomalies).toBe(1);
    expect(order.needsReconcile).toBe(true);
    expect(w.oms.position(0, order.ticker)!.position).toBe(c('11')); // the fill is real: the position counts it
  });
});
