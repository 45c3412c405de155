/**
 * Goal: strategies hear of every change of their orders exactly once per cause: venue answers at
 * once (before/after comparison), changes the OMS makes by itself (a pending create timing out into
 * UNKNOWN in its tick, a reconciliation, the kill switch) one event-loop turn later, once per
 * order; and never the changes their own requests cause.
 * Method: OrderUpdates wired to a real Oms (test/oms/fakes.ts world: real RiskGate, fake
 * OrderEntry, manual clock) through the Oms's onOrderChange, the port's beginOwn/endOwn and the
 * wrapper's before/after, exactly as src/runtime/runtime.ts wires them; a recording sink.
 */

import { describe, expect, it } from 'vitest';
import { OrderState } from '../../src/oms/index.ts';
import { Deny } from '../../src/risk/index.ts';
import { OmsOrderPort } from '../../src/runtime/oms-order-port.ts';
import { OrderUpdates } from '../../src/runtime/order-updates.ts';
import { TickToTradeProbe } from '../../src/runtime/tick-to-trade-probe.ts';
import type { OrderView } from '../../src/strategy/index.ts';
import { PENDING_TIMEOUT_MS, c, p, world } from '../oms/fakes.ts';
import { createIntent, IntentKind } from '../../src/core/index.ts';

const nextTurn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

function setup() {
  const updates = new OrderUpdates();
  const seen: { id: string; state: number }[] = [];
  updates.setSink({ onOrderUpdate: (order: OrderView) => seen.push({ id: order.clientOrderId, state: order.state }) });
  const w = world({ oms: { onOrderChange: (order) => updates.noteChange(order) } });
  const port = new OmsOrderPort(w.oms, w.gate, new TickToTradeProbe({ enabled: false }), updates);
  return { updates, seen, w, port };
}

describe('OrderUpdates', () => {
  it('reports a pending create that times out into UNKNOWN in the OMS tick, one turn later, once', async () => {
    const { seen, w, port } = setup();
    expect(port.submit(w.intent)).toBe(Deny.NONE);
    const id = w.oms.lastClientOrderId;
    await nextTurn();
    expect(seen).toEqual([]); // the strategy's own create is not news to it
    w.clock.advance(PENDING_TIMEOUT_MS + 1);
    void w.oms.tick();
    expect(w.oms.order(id)!.state).toBe(OrderState.UNKNOWN);
    expect(seen).toEqual([]); // not inside the OMS's update
    await nextTurn();
    expect(seen).toEqual([{ id, state: OrderState.UNKNOWN }]);
    await nextTurn();
    expect(seen).toHaveLength(1);
  });

  it('reports a venue answer at once through the comparison, and not a second time deferred', async () => {
    const { updates, seen, w, port } = setup();
    port.submit(w.intent);
    const id = w.oms.lastClientOrderId;
    const order = w.oms.order(id);
    updates.before(order);
    w.entry.listener!.onCreateAck(id, 'o-1', c('0'), c('10'), 0);
    updates.after(order);
    expect(seen).toEqual([{ id, state: OrderState.RESTING }]);
    await nextTurn();
    expect(seen).toHaveLength(1);
  });

  it('does not report what the strategy\'s own amend does to its order', async () => {
    const { updates, seen, w, port } = setup();
    port.submit(w.intent);
    const id = w.oms.lastClientOrderId;
    updates.before(w.oms.order(id));
    w.entry.listener!.onCreateAck(id, 'o-1', c('0'), c('10'), 0);
    updates.after(w.oms.order(id));
    const amend = createIntent();
    amend.kind = IntentKind.AMEND;
    amend.market = w.market;
    amend.clientOrderId = id;
    amend.price = p('0.39');
    amend.count = c('10');
    expect(port.submit(amend)).toBe(Deny.NONE);
    expect(w.oms.order(id)!.state).toBe(OrderState.PENDING_AMEND);
    await nextTurn();
    expect(seen.map((s) => s.state)).toEqual([OrderState.RESTING]); // the ack only
  });

  it('reports several changes of one order between two turns once, in its latest state', async () => {
    const { updates, seen, w, port } = setup();
    port.submit(w.intent);
    const id = w.oms.lastClientOrderId;
    const order = w.oms.order(id)!;
    updates.noteChange(order);
    updates.noteChange(order);
    await nextTurn();
    expect(seen).toEqual([{ id, state: OrderState.PENDING_NEW }]);
  });

  it('says nothing once its sink is gone', async () => {
    const { updates, seen, w, port } = setup();
    port.submit(w.intent);
    updates.noteChange(w.oms.order(w.oms.lastClientOrderId)!);
    updates.setSink(null);
    await nextTurn();
    expect(seen).toEqual([]);
  });
});
