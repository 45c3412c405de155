/**
 * Goal: each simulator fault - a sequence gap, a subscription buffer overflow (error 25), a
 * disconnect, a 5xx on create, an ambiguous ack (order applied, answer lost) - leaves no lost,
 * duplicated or forgotten order, and the runtime's book equals the venue's afterwards.
 * Method: an in-process simulator without synthetic activity; a runtime whose idle strategy's
 * context places post-only orders; a counterparty moves the book and fills us. After each fault
 * the test waits until the OMS has no order in doubt, then compares the OMS's live orders with the
 * venue's resting orders (same client ids, prices, sizes, each once), positions with the venue's,
 * and the local book with GET /markets/{ticker}/orderbook, level by level.
 */

import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { asCount, parsePrice, parseSignedCount } from '../../src/core/index.ts';
import { OrderState } from '../../src/oms/index.ts';
import { Deny, OrderFlags } from '../../src/strategy/index.ts';
import type { StrategyContext } from '../../src/strategy/index.ts';
import type { Runtime } from '../../src/runtime/runtime.ts';
import { MARKET, counterpartyKey, createRuntime, demoKey, entry, localBook, orderBody, rest, startTestSim, venueBook, waitUntil } from './helpers.ts';
import type { ApiKey, TestSim } from './helpers.ts';

const SUB = 3;
let sim: TestSim;
let cp: ApiKey;
let rt: Runtime;
let ctx: StrategyContext;
let run = 0;

beforeAll(async () => {
  sim = await startTestSim();
  cp = counterpartyKey(sim);
});

afterAll(async () => {
  await sim.close();
});

beforeEach(async () => {
  run++;
  rt = createRuntime(sim, { strategies: [entry('idle', 'strategies/taker.ts', { maxOrders: 0 }, SUB)], journalPath: join(sim.workDir, `faults-${run}.jsonl`) });
  await rt.start();
  ctx = rt.host.context('idle')!;
});

afterEach(async () => {
  sim.faults.clear();
  await rt.stop('test done');
  expect(rt.oms.liveOrderCount).toBe(0);
  await rest(sim, cp, 'DELETE', '/portfolio/events/orders');
});

const inDoubt = (state: number) => state !== OrderState.RESTING;

async function venueOrders(): Promise<Record<string, unknown>[]> {
  const reply = await rest(sim, demoKey(sim), 'GET', `/portfolio/orders?ticker=${MARKET}&status=resting&subaccount=${SUB}`);
  return reply.body.orders as Record<string, unknown>[];
}

/** No order in doubt, then OMS live == venue resting (ids, prices, sizes, no duplicates) and books equal. */
async function expectConsistent(): Promise<void> {
  await waitUntil(() => rt.oms.liveOrders().every((o) => !inDoubt(o.state)), 10_000, 'every order settled');
  const venue = await venueOrders();
  const venueIds = venue.map((o) => o.client_order_id as string);
  expect(new Set(venueIds).size).toBe(venueIds.length);
  const ours = rt.oms.liveOrders().filter((o) => o.subaccount === SUB);
  expect(venueIds.sort()).toEqual(ours.map((o) => o.clientOrderId).sort());
  for (const order of ours) {
    const wire = venue.find((o) => o.client_order_id === order.clientOrderId)!;
    expect(parsePrice(wire.yes_price_dollars as string)).toBe(order.price);
  }
  const book = rt.feed.books.get(MARKET)!;
  await waitUntil(() => book.synced, 10_000, 'book synced');
  const local = localBook(book);
  const remote = await venueBook(sim, demoKey(sim));
  expect(local).toEqual(remote);
}

/** The venue's position of the test subaccount, 1/100 contract (tests share the simulator, so positions carry over). */
async function venuePosition(): Promise<number> {
  const reply = await rest(sim, demoKey(sim), 'GET', `/portfolio/positions?subaccount=${SUB}&ticker=${MARKET}`);
  const line = (reply.body.market_positions as { ticker: string; position_fp: string }[]).find((p) => p.ticker === MARKET);
  return line === undefined ? 0 : parseSignedCount(line.position_fp);
}

function place(price: string): string {
  expect(ctx.place(MARKET, 'bid', parsePrice(price), asCount(100), OrderFlags.POST_ONLY)).toBe(Deny.NONE);
  return ctx.lastClientOrderId;
}

async function counterparty(side: 'bid' | 'ask', price: string, count = '1.00', tif = 'good_till_canceled'): Promise<void> {
  const reply = await rest(sim, cp, 'POST', '/portfolio/events/orders', orderBody(side, price, count, tif));
  expect(reply.status).toBe(201);
}

describe('faults leave orders and books consistent', () => {
  it('sequence gap: the book resyncs and equals the venue\'s', async () => {
    place('0.30');
    await counterparty('ask', '0.70');
    await waitUntil(() => rt.feed.books.get(MARKET)!.bestAsk() === 7000, 5_000, 'ask in book');
    sim.faults.add({ kind: 'ws_drop_delta', target: { times: 1, marketTicker: MARKET } });
    await counterparty('ask', '0.69'); // dropped
    await counterparty('ask', '0.68'); // reveals the gap
    await waitUntil(() => rt.feed.books.get(MARKET)!.bestAsk() === 6800, 5_000, 'resynced book');
    expect(sim.faults.list().map((rule) => rule.fired)).toEqual([1]);
    expect(rt.feed.counters.seqGaps).toBeGreaterThanOrEqual(1);
    await expectConsistent();
  });

  it('reordered deltas: seen as a gap, the book resyncs and equals the venue\'s', async () => {
    await counterparty('ask', '0.75');
    await waitUntil(() => rt.feed.books.get(MARKET)!.bestAsk() === 7500, 5_000, 'ask in book');
    const gapsBefore = rt.feed.counters.seqGaps;
    sim.faults.add({ kind: 'ws_reorder_delta', target: { times: 1, marketTicker: MARKET } });
    await counterparty('ask', '0.74'); // held back
    await counterparty('ask', '0.73'); // sent first, then the held one
    await waitUntil(() => rt.feed.books.get(MARKET)!.bestAsk() === 7300 && rt.feed.books.get(MARKET)!.synced, 5_000, 'book after the reorder');
    expect(sim.faults.list().map((rule) => rule.fired)).toEqual([1]);
    expect(rt.feed.counters.seqGaps).toBeGreaterThan(gapsBefore);
    await expectConsistent();
  });

  it('error 25 (buffer overflow): subscriptions come back, nothing is lost', async () => {
    const before = await venuePosition();
    const first = place('0.31');
    await waitUntil(() => rt.oms.order(first)?.state === OrderState.RESTING, 5_000, 'resting');
    expect(sim.faults.overflowSubscriptions({})).toBeGreaterThan(0);
    // While subscriptions are being re-created: a counterparty fills our bid.
    await counterparty('ask', '0.31', '1.00', 'immediate_or_cancel');
    // The gate takes no order on a book that is resubscribing (BOOK_NOT_SYNCED): trade once it is whole again.
    await waitUntil(() => rt.feed.books.get(MARKET)!.synced, 5_000, 'the book resubscribed');
    place('0.29');
    await waitUntil(() => rt.oms.order(first)?.state === OrderState.FILLED, 10_000, 'the fill seen (message or reconciliation)');
    await waitUntil(() => rt.router.position(SUB, MARKET) === before + 100, 5_000, 'position +1');
    expect(await venuePosition()).toBe(before + 100);
    await expectConsistent();
  });

  it('disconnect: reconnect, resubscribe, reconcile a fill missed while down', async () => {
    const before = await venuePosition();
    const first = place('0.32');
    await waitUntil(() => rt.oms.order(first)?.state === OrderState.RESTING, 5_000, 'resting');
    expect(sim.faults.closeConnections({})).toBeGreaterThan(0);
    await counterparty('ask', '0.32', '1.00', 'immediate_or_cancel');
    await waitUntil(() => rt.oms.order(first)?.state === OrderState.FILLED, 10_000, 'the missed fill reconciled');
    await waitUntil(() => rt.router.position(SUB, MARKET) === before + 100, 5_000, 'position +1');
    expect(await venuePosition()).toBe(before + 100);
    place('0.28');
    await expectConsistent();
  });

  it('5xx on create: the order was not applied; it is retired, never resent', async () => {
    sim.faults.add({ kind: 'rest_error', status: 503, target: { times: 1, method: 'POST', path: '/portfolio/events/orders' } });
    const failed = place('0.33');
    const ok = place('0.27');
    await waitUntil(() => rt.oms.order(failed)?.state === OrderState.REJECTED, 10_000, 'the 5xx order retired after reconciliation');
    expect(rt.oms.order(ok)?.state).toBe(OrderState.RESTING);
    expect(sim.faults.list().map((rule) => rule.fired)).toEqual([1]);
    await expectConsistent();
  });

  it('ambiguous ack: applied at the venue, answer lost (500 or closed connection); reconciled as resting', async () => {
    sim.faults.add({ kind: 'ambiguous_order', mode: 'error', status: 500, target: { times: 1, method: 'POST', path: '/portfolio/events/orders' } });
    const viaError = place('0.34');
    await waitUntil(() => rt.oms.order(viaError)?.state === OrderState.RESTING, 10_000, '500-answered order found resting');
    sim.faults.add({ kind: 'ambiguous_order', mode: 'close', target: { times: 1, method: 'POST', path: '/portfolio/events/orders' } });
    const viaClose = place('0.26');
    await waitUntil(() => rt.oms.order(viaClose)?.state === OrderState.RESTING, 10_000, 'closed-connection order found resting');
    expect(sim.faults.list().map((rule) => rule.fired)).toEqual([1, 1]);
    await expectConsistent();
  });

  it('5xx and lost answers on cancels: the order ends cancelled at the venue and in the OMS, once', async () => {
    const a = place('0.25');
    const b = place('0.24');
    await waitUntil(() => [a, b].every((id) => rt.oms.order(id)?.state === OrderState.RESTING), 5_000, 'two resting');
    // Cancels travel on the batched DELETE route (exec cancelRoute 'batched') or the single one: fault both.
    sim.faults.add({ kind: 'ambiguous_order', mode: 'error', status: 500, target: { times: 1, method: 'DELETE' } });
    expect(ctx.cancel(a)).toBe(Deny.NONE);
    await waitUntil(() => rt.oms.order(a)?.state === OrderState.CANCELED, 10_000, 'lost-answer cancel reconciled as cancelled');
    sim.faults.add({ kind: 'rest_error', status: 503, target: { times: 1, method: 'DELETE' } });
    expect(ctx.cancel(b)).toBe(Deny.NONE);
    // Not applied: the order still rests; the OMS finds it so and a later cancel goes through.
    await waitUntil(() => rt.oms.order(b)?.state === OrderState.RESTING, 10_000, 'the 503 cancel reconciled: still resting');
    expect(ctx.cancel(b)).toBe(Deny.NONE);
    await waitUntil(() => rt.oms.order(b)?.state === OrderState.CANCELED, 5_000, 'second cancel');
    expect(sim.faults.list().map((rule) => rule.fired)).toEqual([1, 1]);
    await expectConsistent();
  });
});
