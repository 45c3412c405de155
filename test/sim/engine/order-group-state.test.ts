/**
 * Goal: order groups behave like the exchange's: a rolling 15 s window of matched contracts;
 * when it exceeds the contracts limit every order of the group is cancelled and new orders are
 * refused until reset; trigger, reset, delete and limit updates (an already-breached limit
 * triggers at once); at most 100,000 groups per user.
 * Method: the window arithmetic on OrderGroupState directly with explicit times, then scripted
 * engine scenarios with a manual clock; the 100,000 cap is filled through the public API (one
 * cheap call each, bounded) and checked at the boundary.
 */

import { describe, expect, it } from 'vitest';
import type { Count } from '../../../src/core/index.ts';
import { isSimError } from '../../../src/sim/engine/index.ts';
import type { OrderGroup } from '../../../src/sim/engine/index.ts';
import { OrderGroupState } from '../../../src/sim/engine/order-group-state.ts';
import { LINEAR, contracts, makeEngine, ok, order } from './fixtures.ts';

describe('OrderGroupState window', () => {
  it('sums matched contracts inside the window and forgets older ones', () => {
    const group = new OrderGroupState('g', 'u', 0, 0, contracts('10'), 0);
    expect(group.addMatched(contracts('4'), 1_000, 15_000)).toBe(false);
    expect(group.addMatched(contracts('6'), 2_000, 15_000)).toBe(false); // exactly the limit: not exceeded
    expect(group.matchedInWindow).toBe(contracts('10'));
    group.expire(16_000, 15_000); // the 1 s entry falls out
    expect(group.matchedInWindow).toBe(contracts('6'));
    expect(group.addMatched(contracts('5'), 16_500, 15_000)).toBe(true);
    group.clearWindow();
    expect(group.matchedInWindow).toBe(0);
  });

  it('grows its ring past the initial capacity without losing entries', () => {
    const group = new OrderGroupState('g', 'u', 0, 0, null, 0);
    for (let i = 0; i < 100; i++) group.addMatched(1 as Count, i, 1_000_000);
    expect(group.matchedInWindow).toBe(100);
    group.expire(1_000_049, 1_000_000);
    expect(group.matchedInWindow).toBe(50);
  });
});

describe('order groups in the engine', () => {
  function groupOf(result: OrderGroup | { isError: true }): OrderGroup {
    if (isSimError(result)) throw new Error('group');
    return result as OrderGroup;
  }

  it('exceeding the limit inside 15 s cancels the group orders and blocks new ones until reset', () => {
    const { engine, clock } = makeEngine();
    const events: string[] = [];
    engine.subscribe({ onOrderGroup: (_u, e) => events.push(e.eventType) });
    const group = groupOf(engine.createOrderGroup('a', { contractsLimit: contracts('5') }));
    const quote = ok(engine.createOrder('a', order(LINEAR, 'ask', '0.60', '20', { orderGroupId: group.orderGroupId })));
    const other = ok(engine.createOrder('a', order(LINEAR, 'bid', '0.30', '1', { orderGroupId: group.orderGroupId })));
    ok(engine.createOrder('b', order(LINEAR, 'bid', '0.60', '3')));
    expect(quote.order.status).toBe('resting');
    clock.ms += 16_000; // the first 3 leave the window
    ok(engine.createOrder('b', order(LINEAR, 'bid', '0.60', '5')));
    expect(quote.order.status).toBe('resting'); // 5 in window: not above 5
    ok(engine.createOrder('b', order(LINEAR, 'bid', '0.60', '1')));
    expect(quote.order.status).toBe('canceled');
    expect(quote.order.lastUpdateReason).toBe('OrderGroupCancel');
    expect(other.order.status).toBe('canceled');
    expect(events).toEqual(['created', 'triggered']);
    const blocked = engine.createOrder('a', order(LINEAR, 'bid', '0.30', '1', { orderGroupId: group.orderGroupId }));
    expect(isSimError(blocked) && blocked.code).toBe('order_group_triggered');
    expect(engine.resetOrderGroup('a', group.orderGroupId)).toBeNull();
    ok(engine.createOrder('a', order(LINEAR, 'bid', '0.30', '1', { orderGroupId: group.orderGroupId })));
    const detail = engine.getOrderGroup('a', group.orderGroupId);
    expect(!isSimError(detail) && detail.orderIds.length).toBe(1);
  });

  it('a taker in a group stops once its own fills trigger the group', () => {
    const { engine } = makeEngine();
    const group = groupOf(engine.createOrderGroup('a', { contractsLimit: contracts('2') }));
    ok(engine.createOrder('b', order(LINEAR, 'ask', '0.50', '2')));
    ok(engine.createOrder('c', order(LINEAR, 'ask', '0.50', '2')));
    const taker = ok(engine.createOrder('a', order(LINEAR, 'bid', '0.50', '10', { orderGroupId: group.orderGroupId })));
    expect(taker.fillCount).toBe(contracts('4')); // 2 (= limit), then 2 more exceed it
    expect(taker.order.status).toBe('canceled');
    expect(taker.order.lastUpdateReason).toBe('OrderGroupCancel');
  });

  it('trigger cancels at once; a limit set below the window volume triggers; delete cancels and removes', () => {
    const { engine } = makeEngine();
    const group = groupOf(engine.createOrderGroup('a', { contractsLimit: contracts('100') }));
    const resting = ok(engine.createOrder('a', order(LINEAR, 'ask', '0.60', '10', { orderGroupId: group.orderGroupId })));
    expect(engine.triggerOrderGroup('a', group.orderGroupId)).toBeNull();
    expect(resting.order.status).toBe('canceled');
    engine.resetOrderGroup('a', group.orderGroupId);
    const again = ok(engine.createOrder('a', order(LINEAR, 'ask', '0.60', '10', { orderGroupId: group.orderGroupId })));
    ok(engine.createOrder('b', order(LINEAR, 'bid', '0.60', '4')));
    expect(engine.setOrderGroupLimit('a', group.orderGroupId, contracts('3'))).toBeNull();
    expect(again.order.status).toBe('canceled');
    expect(group.triggered).toBe(true);
    engine.resetOrderGroup('a', group.orderGroupId);
    const third = ok(engine.createOrder('a', order(LINEAR, 'ask', '0.61', '1', { orderGroupId: group.orderGroupId })));
    expect(engine.deleteOrderGroup('a', group.orderGroupId)).toBeNull();
    expect(third.order.status).toBe('canceled');
    const gone = engine.getOrderGroup('a', group.orderGroupId);
    expect(isSimError(gone) && gone.status).toBe(404);
    const foreign = engine.triggerOrderGroup('b', group.orderGroupId);
    expect(foreign !== null && foreign.status).toBe(404);
  });

  it('limits are whole contracts from 1 to 1,000,000; subaccounts must match', () => {
    const { engine } = makeEngine();
    for (const bad of [contracts('0.50'), 0 as Count, contracts('1000001')]) {
      const r = engine.createOrderGroup('a', { contractsLimit: bad });
      expect(isSimError(r) && r.status).toBe(400);
    }
    const group = groupOf(engine.createOrderGroup('a', { contractsLimit: contracts('1'), subaccount: 4 }));
    const wrongSub = engine.createOrder('a', order(LINEAR, 'bid', '0.30', '1', { orderGroupId: group.orderGroupId }));
    expect(isSimError(wrongSub) && wrongSub.status).toBe(400);
    const listed = engine.listOrderGroups('a', 4);
    expect(!isSimError(listed) && listed.map((g) => g.orderGroupId)).toEqual([group.orderGroupId]);
  });

  it('caps a user at 100,000 groups', () => {
    const { engine } = makeEngine();
    let created = 0;
    for (let i = 0; i < 100_000; i++) {
      const r = engine.createOrderGroup('a', { contractsLimit: contracts('10') });
      if (!isSimError(r)) created++;
    }
    expect(created).toBe(100_000);
    const over = engine.createOrderGroup('a', { contractsLimit: contracts('10') });
    expect(isSimError(over) && [over.status, over.code]).toEqual([400, 'order_group_limit_reached']);
    ok(engine.createOrder('b', order(LINEAR, 'bid', '0.30', '1'))); // other users unaffected
    expect(isSimError(engine.createOrderGroup('b', { contractsLimit: contracts('10') }))).toBe(false);
  });
});
