/**
 * Goal: a strategy bound to an order group with a small contracts limit is stopped by the venue's
 * group trigger and the runtime follows: a counterparty fills more than the limit inside the
 * 15 s window, the venue triggers the group and cancels its resting orders, the runtime hears it
 * on order_group_updates and its gate denies new orders in the group (ORDER_GROUP_TRIGGERED) with
 * nothing reaching the venue; the OMS's open orders equal the venue's resting orders (none). After
 * a reset at the venue the gate lets the group trade again and the maker quotes again.
 * Method: an in-process simulator without synthetic activity, a Runtime wired as the main job
 * wires it running the market maker with an order group, a second simulator user as the taker
 * (REST, immediate-or-cancel). State is polled with deadlines; no timing assertions.
 */

import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { asCount, parsePrice } from '../../src/core/index.ts';
import { OrderState } from '../../src/oms/index.ts';
import { Deny, OrderFlags } from '../../src/strategy/index.ts';
import type { Runtime } from '../../src/runtime/runtime.ts';
import { MARKET, counterpartyKey, createRuntime, demoKey, entry, orderBody, rest, startTestSim, waitUntil } from './helpers.ts';
import type { ApiKey, TestSim } from './helpers.ts';

const SUB = 6;
let sim: TestSim;
let cp: ApiKey;
let runtime: Runtime | null = null;

beforeAll(async () => {
  sim = await startTestSim();
  cp = counterpartyKey(sim);
});

afterEach(async () => {
  await runtime?.stop('test done');
  runtime = null;
  await rest(sim, cp, 'DELETE', '/portfolio/events/orders');
});

afterAll(async () => {
  await sim.close();
});

const live = (rt: Runtime) => rt.oms.liveOrders().filter((o) => o.subaccount === SUB);
const resting = (rt: Runtime) => live(rt).filter((o) => o.state === OrderState.RESTING);

async function venueOrders(status = ''): Promise<Record<string, unknown>[]> {
  const filter = status === '' ? '' : `&status=${status}`;
  const reply = await rest(sim, demoKey(sim), 'GET', `/portfolio/orders?ticker=${MARKET}&subaccount=${SUB}&limit=1000${filter}`);
  expect(reply.status).toBe(200);
  return reply.body.orders as Record<string, unknown>[];
}

const ids = (orders: Record<string, unknown>[]) => orders.map((o) => o.client_order_id as string).sort();

async function take(side: 'bid' | 'ask', price: string, count: string): Promise<string> {
  const reply = await rest(sim, cp, 'POST', '/portfolio/events/orders', orderBody(side, price, count, 'immediate_or_cancel'));
  expect(reply.status).toBe(201);
  return reply.body.fill_count as string;
}

describe('order group trigger against the simulator', () => {
  it('a taker exceeds the group limit: the venue cancels the group, the gate blocks it until reset', async () => {
    // Limit 4 contracts, quotes of 3: one quote filled (3) stays under it, 2 more exceed it.
    const strategy = {
      ...entry('grouped', 'strategies/market-maker.ts', { fairValue: '0.5000', halfSpreadTicks: 2, size: '3.00', maxPosition: '10.00', timerIntervalMs: 50 }, SUB),
      orderGroup: { contractsLimit: '4.00' },
    };
    const rt = createRuntime(sim, { strategies: [strategy], journalPath: join(sim.workDir, 'group-trigger.jsonl') });
    runtime = rt;
    await rt.start();
    await waitUntil(() => resting(rt).length === 2, 5_000, 'two grouped quotes');
    const ctx = rt.host.context('grouped')!;
    const groupHandle = ctx.orderGroup;
    const group = rt.gate.groups.at(groupHandle)!;
    expect(group.triggered).toBe(false);
    expect(group.contractsLimit).toBe(400);
    const groupId = group.id;
    expect(resting(rt).every((o) => o.orderGroupId === groupId)).toBe(true);
    expect(ids(await venueOrders('resting'))).toEqual(resting(rt).map((o) => o.clientOrderId).sort());

    // 3 matched: at the limit, not above it; the venue keeps the group.
    expect(await take('ask', '0.4800', '3.00')).toBe('3.00');
    await waitUntil(() => rt.router.position(SUB, MARKET) === 300, 5_000, 'position +3 from the bid fill');
    expect(group.triggered).toBe(false);

    // 2 more from the ask (3 resting): 5 matched > 4, the venue triggers the group and cancels the rest.
    const ask = resting(rt).find((o) => o.side === 'ask');
    expect(ask).toBeDefined();
    expect(await take('bid', '0.9900', '2.00')).toBe('2.00');
    await waitUntil(() => group.triggered, 5_000, 'order_group_updates "triggered" seen by the gate');
    await waitUntil(() => live(rt).length === 0, 5_000, 'the group\'s orders gone from the OMS');
    expect(rt.oms.order(ask!.clientOrderId)?.state ?? OrderState.CANCELED).toBe(OrderState.CANCELED);
    expect(await venueOrders('resting')).toEqual([]);
    // The venue cancelled the rest of the ask itself (1 of 3 left after the 2 filled).
    const askAtVenue = (await venueOrders()).find((o) => o.client_order_id === ask!.clientOrderId);
    expect(askAtVenue?.status).toBe('canceled');
    expect(askAtVenue?.fill_count_fp ?? askAtVenue?.fill_count).toBe('2.00');
    const venueAtTrigger = ids(await venueOrders());
    const sentAtTrigger = rt.oms.stats.ordersSent;

    // The gate denies new orders in the group, before the wire; the maker's own attempts too.
    const requestsBefore = rt.rest.stats.requests;
    expect(ctx.place(MARKET, 'bid', parsePrice('0.10'), asCount(100), OrderFlags.POST_ONLY)).toBe(Deny.ORDER_GROUP_TRIGGERED);
    expect(rt.rest.stats.requests).toBe(requestsBefore);
    const triggeredBefore = ctx.denies[Deny.ORDER_GROUP_TRIGGERED];
    await waitUntil(() => ctx.denies[Deny.ORDER_GROUP_TRIGGERED] >= triggeredBefore + 3, 5_000, 'the maker denied ORDER_GROUP_TRIGGERED on its timer');
    expect(rt.oms.stats.ordersSent).toBe(sentAtTrigger);
    expect(live(rt)).toEqual([]);
    expect(await venueOrders('resting')).toEqual([]);
    expect(ids(await venueOrders())).toEqual(venueAtTrigger);

    // The venue resets the group: "reset" on order_group_updates, the gate clears it and the maker quotes again.
    const reset = await rest(sim, demoKey(sim), 'PUT', `/portfolio/order_groups/${groupId}/reset?subaccount=${SUB}`);
    expect(reset.status).toBe(200);
    await waitUntil(() => !group.triggered, 5_000, 'order_group_updates "reset" seen by the gate');
    await waitUntil(() => resting(rt).length === 2, 5_000, 'two grouped quotes again');
    expect(resting(rt).every((o) => o.orderGroupId === groupId)).toBe(true);
    await waitUntil(async () => ids(await venueOrders('resting')).join() === resting(rt).map((o) => o.clientOrderId).sort().join(), 5_000, 'venue resting = OMS resting');
    const atVenue = await venueOrders('resting');
    expect(atVenue.every((o) => o.order_group_id === groupId)).toBe(true);
  });
});
