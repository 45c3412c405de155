/**
 * Goal: the router, as the strategies' order port, tells a strategy why the OMS refused a cancel /
 * amend / decrease with the OMS's own codes (ORDER_UNKNOWN, ORDER_NOT_LIVE, ORDER_BUSY), passes the
 * gate's code through for a risk denial, and reports a queued cancel as accepted; a denied intent
 * reaches neither the OMS nor the route.
 * Method: the router over a real Oms and RiskGate (test/oms/fakes.ts world, fake route); the
 * OMS's answers are driven through its ExecListener as in production.
 */

import { describe, expect, it } from 'vitest';
import { OmsResult, OrderState } from '../../src/oms/index.ts';
import { Deny } from '../../src/risk/index.ts';
import { c, p, world } from '../oms/fakes.ts';
import { createIntent, IntentKind } from '../../src/core/index.ts';

function setup() {
  const w = world();
  const port = w.router;
  const modify = createIntent();
  modify.market = w.market;
  const send = (kind: IntentKind, clientOrderId: string, price = p('0.38'), count = c('5')): Deny => {
    modify.kind = kind;
    modify.clientOrderId = clientOrderId;
    modify.price = price;
    modify.count = count;
    return port.submit(modify);
  };
  return { w, port, send };
}

describe('Router: the verdicts a strategy sees', () => {
  it('ORDER_UNKNOWN for an order the OMS never had', () => {
    const { port, send } = setup();
    for (const kind of [IntentKind.CANCEL, IntentKind.AMEND, IntentKind.DECREASE]) {
      expect(send(kind, 'tst-nope-1')).toBe(Deny.ORDER_UNKNOWN);
      expect(port.lastOmsResult).toBe(OmsResult.ORDER_UNKNOWN);
    }
  });

  it('ORDER_BUSY while its create is unanswered, a queued cancel is accepted, NONE once acknowledged', () => {
    const { w, port, send } = setup();
    expect(port.submit(w.intent)).toBe(Deny.NONE);
    const id = w.oms.lastClientOrderId;
    expect(send(IntentKind.AMEND, id)).toBe(Deny.ORDER_BUSY);
    expect(send(IntentKind.DECREASE, id, p('0.40'), c('1'))).toBe(Deny.ORDER_BUSY);
    w.entry.listener!.onCreateAck(id, 'o-1', c('0'), c('10'), 0);
    expect(send(IntentKind.AMEND, id)).toBe(Deny.NONE);
    expect(send(IntentKind.AMEND, id, p('0.37'))).toBe(Deny.ORDER_BUSY); // the first amend is in flight
    expect(send(IntentKind.CANCEL, id)).toBe(Deny.NONE); // remembered, sent when the amend ends
    expect(port.lastOmsResult).toBe(OmsResult.QUEUED);
  });

  it('ORDER_NOT_LIVE once the order is cancelled; the gate\'s own code for a risk denial', () => {
    const { w, send, port } = setup();
    expect(port.submit(w.intent)).toBe(Deny.NONE);
    const id = w.oms.lastClientOrderId;
    w.entry.listener!.onCreateAck(id, 'o-1', c('0'), c('10'), 0);
    expect(send(IntentKind.AMEND, id, p('0.40'), c('500000'))).toBe(Deny.COUNT_ABOVE_MAX);
    expect(port.lastOmsResult).toBe(OmsResult.RISK_DENIED);
    expect(send(IntentKind.CANCEL, id)).toBe(Deny.NONE);
    w.entry.listener!.onCancelAck('o-1', c('10'), 0);
    for (const kind of [IntentKind.CANCEL, IntentKind.AMEND]) expect(send(kind, id)).toBe(Deny.ORDER_NOT_LIVE);
  });

  it('a denied intent reaches neither the OMS nor the route; an allowed one is one Order the route gets as is', () => {
    const { w, port } = setup();
    w.intent.count = c('500000');
    expect(port.submit(w.intent)).toBe(Deny.COUNT_ABOVE_MAX);
    expect(w.entry.creates).toHaveLength(0);
    expect(w.oms.liveOrderCount).toBe(0);
    expect(w.oms.stats.ordersSent).toBe(0);
    w.intent.count = c('10');
    expect(port.submit(w.intent)).toBe(Deny.NONE);
    expect(w.entry.creates).toHaveLength(1);
    // The new order's handle, its id's text left unmade; the route gets the OMS's record itself.
    expect(w.intent.clientOrderId).toBe('');
    expect(w.intent.orderHandle).toBe(w.oms.clientOrderIds.counter);
    expect(w.oms.orderByHandle(w.intent.orderHandle)!.clientOrderId).toBe(w.oms.lastClientOrderId);
    expect(w.entry.creates[0].clientOrderId).toBe(w.oms.lastClientOrderId);
  });

  it('a route that throws on create leaves the order UNKNOWN for reconciliation, never resent', () => {
    const { w, port } = setup();
    w.entry.create = () => {
      throw new Error('socket gone');
    };
    expect(port.submit(w.intent)).toBe(Deny.NONE);
    const order = w.oms.order(w.oms.lastClientOrderId)!;
    expect(order.state).toBe(OrderState.UNKNOWN);
    expect(order.needsReconcile).toBe(true);
  });
});
