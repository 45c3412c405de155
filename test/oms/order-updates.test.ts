/**
 * Goal: strategies hear of every change of their orders once per round of work: venue answers,
 * WebSocket messages and changes the OMS makes by itself (a pending create timing out into UNKNOWN
 * in its tick) are reported once the OMS has finished (a microtask later, never inside an update),
 * once per order however often it changed meanwhile; never the changes their own requests cause.
 * Method: a real Oms, RiskGate and Router (test/oms/fakes.ts world, fake route, manual clock) with
 * a recording sink set as the runtime's graph sets the strategy host.
 */

import { describe, expect, it } from 'vitest';
import { IntentKind, createIntent } from '../../src/core/index.ts';
import { OrderState } from '../../src/oms/index.ts';
import type { Order } from '../../src/oms/index.ts';
import { Deny } from '../../src/risk/index.ts';
import { PENDING_TIMEOUT_MS, c, p, userOrder, world } from './fakes.ts';

const microtasks = (): Promise<void> => Promise.resolve();

function setup() {
  const w = world();
  const seen: { id: string; state: number }[] = [];
  let inside = false;
  let reentered = false;
  w.oms.setUpdateSink({
    onOrderUpdate: (order: Readonly<Order>) => {
      if (inside) reentered = true;
      seen.push({ id: order.clientOrderId, state: order.state });
    },
  });
  const during = (work: () => void): void => {
    inside = true;
    work();
    inside = false;
  };
  return { w, seen, during, reentered: () => reentered };
}

describe('Oms: order updates for strategies', () => {
  it('reports a venue answer after the OMS has applied it, not inside the call, once', async () => {
    const { w, seen, during, reentered } = setup();
    expect(w.router.submit(w.intent)).toBe(Deny.NONE);
    const id = w.oms.lastClientOrderId;
    during(() => w.entry.listener!.onCreateAck(id, 'o-1', c('0'), c('10'), 0));
    expect(seen).toEqual([]);
    await microtasks();
    expect(seen).toEqual([{ id, state: OrderState.RESTING }]);
    expect(reentered()).toBe(false);
    await new Promise((resolve) => setImmediate(resolve));
    expect(seen).toHaveLength(1);
  });

  it('reports a read\'s answers at answersEnd, in the transport\'s callback, without a microtask', async () => {
    const { w, seen, during, reentered } = setup();
    w.router.submit(w.intent);
    const first = w.oms.lastClientOrderId;
    w.router.submit({ ...w.intent, price: p('0.39') });
    const second = w.oms.lastClientOrderId;
    const listener = w.entry.listener!;
    during(() => {
      listener.answersBegin!();
      listener.onCreateAck(first, 'o-1', c('0'), c('10'), 0);
      listener.onCreateAck(second, 'o-2', c('0'), c('10'), 0);
    });
    expect(seen).toEqual([]); // not inside the answers
    listener.answersEnd!();
    expect(seen).toEqual([
      { id: first, state: OrderState.RESTING },
      { id: second, state: OrderState.RESTING },
    ]);
    await microtasks();
    await new Promise((resolve) => setImmediate(resolve));
    expect(seen).toHaveLength(2); // nothing told twice by a leftover microtask
    expect(reentered()).toBe(false);
  });

  it('leaves an answer that arrives inside a strategy\'s update to the next round, never re-entering it', async () => {
    const w = world();
    w.router.submit(w.intent);
    const first = w.oms.lastClientOrderId;
    w.router.submit({ ...w.intent, price: p('0.39') });
    const second = w.oms.lastClientOrderId;
    const listener = w.entry.listener!;
    const seen: string[] = [];
    let depth = 0;
    let deepest = 0;
    w.oms.setUpdateSink({
      onOrderUpdate: (order: Readonly<Order>) => {
        depth++;
        deepest = Math.max(deepest, depth);
        seen.push(order.clientOrderId);
        if (order.clientOrderId === first) {
          // A transport that answers synchronously (a "not sent" failure) while the strategy reacts.
          listener.answersBegin!();
          listener.onCreateAck(second, 'o-2', c('0'), c('10'), 0);
          listener.answersEnd!();
        }
        depth--;
      },
    });
    listener.answersBegin!();
    listener.onCreateAck(first, 'o-1', c('0'), c('10'), 0);
    listener.answersEnd!();
    expect(seen).toEqual([first]);
    await microtasks();
    expect(seen).toEqual([first, second]);
    expect(deepest).toBe(1);
  });

  it('reports a pending create that times out into UNKNOWN in the tick, once', async () => {
    const { w, seen } = setup();
    w.router.submit(w.intent);
    const id = w.oms.lastClientOrderId;
    await microtasks();
    expect(seen).toEqual([]); // the strategy's own create is not news to it
    w.clock.advance(PENDING_TIMEOUT_MS + 1);
    void w.oms.tick();
    expect(w.oms.order(id)!.state).toBe(OrderState.UNKNOWN);
    await microtasks();
    expect(seen).toEqual([{ id, state: OrderState.UNKNOWN }]);
  });

  it('does not report what the strategy\'s own amend does to its order', async () => {
    const { w, seen } = setup();
    w.router.submit(w.intent);
    const id = w.oms.lastClientOrderId;
    w.entry.listener!.onCreateAck(id, 'o-1', c('0'), c('10'), 0);
    await microtasks();
    const amend = createIntent();
    amend.kind = IntentKind.AMEND;
    amend.market = w.market;
    amend.clientOrderId = id;
    amend.price = p('0.39');
    amend.count = c('10');
    expect(w.router.submit(amend)).toBe(Deny.NONE);
    expect(w.oms.order(id)!.state).toBe(OrderState.PENDING_AMEND);
    await microtasks();
    expect(seen.map((s) => s.state)).toEqual([OrderState.RESTING]); // the ack only
  });

  it('reports several changes of one order in one round once, in its latest state', async () => {
    const { w, seen } = setup();
    w.router.submit(w.intent);
    const id = w.oms.lastClientOrderId;
    w.entry.listener!.onCreateAck(id, 'o-1', c('0'), c('10'), 0);
    w.oms.onUserOrder(userOrder('o-1', id, 'canceled', c('0'), c('0')));
    await microtasks();
    expect(seen).toEqual([{ id, state: OrderState.CANCELED }]);
  });

  it('a strategy acting in its callback is heard in the next round, not lost', async () => {
    const { w, seen } = setup();
    w.router.submit(w.intent);
    const first = w.oms.lastClientOrderId;
    w.router.submit(w.intent);
    const second = w.oms.lastClientOrderId;
    w.oms.setUpdateSink({
      onOrderUpdate: (order) => {
        seen.push({ id: order.clientOrderId, state: order.state });
        // The first ack makes the strategy's venue answer for the second arrive meanwhile.
        if (order.clientOrderId === first) w.entry.listener!.onCreateAck(second, 'o-2', c('0'), c('10'), 0);
      },
    });
    w.entry.listener!.onCreateAck(first, 'o-1', c('0'), c('10'), 0);
    await microtasks();
    await microtasks();
    expect(seen).toEqual([
      { id: first, state: OrderState.RESTING },
      { id: second, state: OrderState.RESTING },
    ]);
  });

  it('says nothing once its sink is gone', async () => {
    const { w, seen } = setup();
    w.router.submit(w.intent);
    w.entry.listener!.onCreateAck(w.oms.lastClientOrderId, 'o-1', c('0'), c('10'), 0);
    w.oms.setUpdateSink(null);
    await microtasks();
    expect(seen).toEqual([]);
  });
});
