/**
 * Goal: the runtime, wired as the main job wires it, trades against the simulator over real
 * sockets: the market maker's post-only quotes rest at the venue, a counterparty fills one, and
 * the runtime's position equals the venue's GET /portfolio/positions; a post-only order that would
 * cross the local book is denied locally (POST_ONLY_CROSS) and never reaches the exchange; a
 * restricted key trades only in its own subaccount (SUBACCOUNT_LOCKED before the wire).
 * Method: an in-process simulator with no synthetic activity (books move only when a test acts), a
 * second simulator user as counterparty, a Runtime per test; assertions compare the runtime's
 * OMS and books with the venue's REST answers.
 */

import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { asCount, parsePrice } from '../../src/core/index.ts';
import { OrderState } from '../../src/oms/index.ts';
import { Deny, OrderFlags } from '../../src/strategy/index.ts';
import type { Runtime } from '../../src/runtime/runtime.ts';
import { MARKET, counterpartyKey, createRuntime, demoKey, entry, orderBody, rest, startTestSim, waitUntil } from './helpers.ts';
import type { TestSim } from './helpers.ts';

let sim: TestSim;
let runtime: Runtime | null = null;

beforeAll(async () => {
  sim = await startTestSim();
});

afterEach(async () => {
  await runtime?.stop('test done');
  runtime = null;
});

afterAll(async () => {
  await sim.close();
});

const resting = (rt: Runtime, subaccount: number) => rt.oms.liveOrders().filter((o) => o.state === OrderState.RESTING && o.subaccount === subaccount);

async function venueResting(subaccount: number): Promise<Record<string, unknown>[]> {
  const reply = await rest(sim, demoKey(sim), 'GET', `/portfolio/orders?ticker=${MARKET}&status=resting&subaccount=${subaccount}`);
  expect(reply.status).toBe(200);
  return reply.body.orders as Record<string, unknown>[];
}

describe('runtime against the simulator', () => {
  it('quotes both sides post-only, gets filled, and its position equals the venue\'s', async () => {
    const rt = createRuntime(sim, {
      strategies: [entry('mm', 'strategies/market-maker.ts', { fairValue: '0.5000', halfSpreadTicks: 2, size: '3.00', maxPosition: '10.00', timerIntervalMs: 100 }, 1)],
      journalPath: join(sim.workDir, 'mm.jsonl'),
    });
    runtime = rt;
    await rt.start();
    await waitUntil(() => resting(rt, 1).length === 2, 5_000, 'two resting quotes');
    const quotes = resting(rt, 1).map((o) => [o.side, o.price, o.remainingCount, o.postOnly]).sort();
    expect(quotes).toEqual([['ask', 5200, 300, true], ['bid', 4800, 300, true]]);
    const atVenue = await venueResting(1);
    expect(atVenue.map((o) => o.client_order_id).sort()).toEqual(resting(rt, 1).map((o) => o.clientOrderId).sort());

    // A counterparty sells 2 into our bid.
    const fill = await rest(sim, counterpartyKey(sim), 'POST', '/portfolio/events/orders', orderBody('ask', '0.4800', '2.00', 'immediate_or_cancel'));
    expect(fill.status).toBe(201);
    expect(fill.body.fill_count).toBe('2.00');
    await waitUntil(() => rt.router.position(1, MARKET) === 200, 5_000, 'position +2.00 from the fill');
    const positions = await rest(sim, demoKey(sim), 'GET', `/portfolio/positions?subaccount=1&ticker=${MARKET}`);
    const venuePosition = (positions.body.market_positions as { ticker: string; position_fp: string }[]).find((p) => p.ticker === MARKET);
    expect(venuePosition?.position_fp).toBe('2.00');
    expect(rt.status().fills).toBe(1);
    // Long 2 of max 10 with skew: the maker keeps quoting both sides, skewed down.
    await waitUntil(() => resting(rt, 1).length === 2 && resting(rt, 1).every((o) => o.remainingCount === 300), 5_000, 'quotes refreshed after the fill');

    await rt.stop('test done');
    runtime = null;
    expect(rt.oms.liveOrderCount).toBe(0);
    expect(await venueResting(1)).toEqual([]);
  });

  it('denies a post-only order that would cross the local book without sending it', async () => {
    const rt = createRuntime(sim, {
      strategies: [entry('idle', 'strategies/taker.ts', { maxOrders: 0 }, 2)],
      journalPath: join(sim.workDir, 'post-only.jsonl'),
    });
    runtime = rt;
    const cp = counterpartyKey(sim, 'counterparty-2');
    const ask = await rest(sim, cp, 'POST', '/portfolio/events/orders', orderBody('ask', '0.5500', '5.00'));
    expect(ask.status).toBe(201);
    await rt.start();
    const book = rt.feed.books.get(MARKET)!;
    await waitUntil(() => book.synced && book.bestAsk() === 5500, 5_000, 'the counterparty ask in our book');
    const ctx = rt.host.context('idle')!;
    const requestsBefore = rt.rest.stats.requests;
    expect(ctx.place(MARKET, 'bid', parsePrice('0.55'), asCount(100), OrderFlags.POST_ONLY)).toBe(Deny.POST_ONLY_CROSS);
    expect(ctx.place(MARKET, 'bid', parsePrice('0.60'), asCount(100), OrderFlags.POST_ONLY)).toBe(Deny.POST_ONLY_CROSS);
    expect(rt.rest.stats.requests).toBe(requestsBefore);
    expect(rt.oms.stats.ordersSent).toBe(0);
    expect(await venueResting(2)).toEqual([]);
    // One tick under the ask is fine and does reach the venue.
    expect(ctx.place(MARKET, 'bid', parsePrice('0.54'), asCount(100), OrderFlags.POST_ONLY)).toBe(Deny.NONE);
    await waitUntil(async () => (await venueResting(2)).length === 1, 5_000, 'the allowed bid at the venue');
    await rest(sim, cp, 'DELETE', '/portfolio/events/orders');
  });

  it('keeps a restricted key in its own subaccount', async () => {
    const created = sim.createApiKey({ scopes: ['read', 'write'], subaccount: 4, tier: 'prime' });
    const { createPrivateKey } = await import('node:crypto');
    const key = { keyId: created.keyId, privateKey: createPrivateKey(created.privateKeyPem) };
    const rt = createRuntime(sim, {
      key,
      restrictedSubaccount: 4,
      strategies: [
        entry('mm4', 'strategies/market-maker.ts', { fairValue: '0.3000', halfSpreadTicks: 1, size: '1.00' }, 4),
        entry('stray', 'strategies/taker.ts', { maxOrders: 0 }, 5),
      ],
      journalPath: join(sim.workDir, 'restricted.jsonl'),
    });
    runtime = rt;
    await rt.start();
    await waitUntil(() => resting(rt, 4).length === 2, 5_000, 'two quotes in subaccount 4');
    const atVenue = await venueResting(4);
    expect(atVenue).toHaveLength(2);
    expect(atVenue.every((o) => (o.subaccount_number ?? 4) === 4)).toBe(true);
    const stray = rt.host.context('stray')!;
    const requestsBefore = rt.rest.stats.requests;
    expect(stray.place(MARKET, 'bid', parsePrice('0.10'), asCount(100), OrderFlags.POST_ONLY)).toBe(Deny.SUBACCOUNT_LOCKED);
    expect(rt.rest.stats.requests).toBe(requestsBefore);
    expect(await venueResting(5)).toEqual([]);
  });

  it('creates the configured order group at start, tags its orders with it and deletes it at stop', async () => {
    const strategy = { ...entry('grouped', 'strategies/market-maker.ts', { fairValue: '0.6000', halfSpreadTicks: 1, size: '1.00' }, 7), orderGroup: { contractsLimit: '50.00' } };
    const rt = createRuntime(sim, { strategies: [strategy], journalPath: join(sim.workDir, 'group.jsonl') });
    runtime = rt;
    await rt.start();
    await waitUntil(() => resting(rt, 7).length === 2, 5_000, 'two grouped quotes');
    const groupIds = new Set(resting(rt, 7).map((o) => o.orderGroupId));
    expect(groupIds.size).toBe(1);
    const groupId = [...groupIds][0]!;
    expect(groupId).not.toBeNull();
    const atVenue = await venueResting(7);
    expect(atVenue.every((o) => o.order_group_id === groupId)).toBe(true);
    const group = await rest(sim, demoKey(sim), 'GET', `/portfolio/order_groups/${groupId}?subaccount=7`);
    expect(group.status).toBe(200);
    await rt.stop('test done');
    runtime = null;
    const after = await rest(sim, demoKey(sim), 'GET', `/portfolio/order_groups/${groupId}?subaccount=7`);
    expect(after.status).toBe(404);
  });
});
