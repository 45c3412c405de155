/**
 * Goal: market lifecycle messages from the venue steer the runtime. When the venue pauses a market
 * (market_lifecycle_v2 "deactivated") the risk gate denies new orders on it (MARKET_NOT_OPEN), the
 * market maker's attempts never reach the venue, and when the venue activates it again the maker
 * quotes again. When the venue moves a market to a finer price grid (price_level_structure_updated)
 * the runtime's book regrids keeping its levels (still equal to GET /markets/{ticker}/orderbook)
 * and applies deltas on the finer levels, and a price only the finer grid has passes the gate.
 * When the venue closes a market early (close_date_updated with close_ts = now) the gate denies
 * new orders from then on and the market maker does not flood the venue with rejected orders.
 * Method: a fresh in-process simulator per test (no synthetic activity), driven through its engine
 * handle (setMarketStatus, setPriceLevelStructure) so the venue sends the lifecycle messages over
 * the real WebSocket; a Runtime wired as the main job wires it; a counterparty user places orders
 * over REST. Assertions compare the runtime's gate, OMS and book with the venue's REST answers,
 * polling with deadlines (no timing assertions).
 */

import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { asCount, parsePrice } from '../../src/core/index.ts';
import { OrderState } from '../../src/oms/index.ts';
import { Deny, OrderFlags } from '../../src/strategy/index.ts';
import type { Runtime } from '../../src/runtime/runtime.ts';
import { MARKET, counterpartyKey, createRuntime, demoKey, entry, localBook, orderBody, rest, startTestSim, venueBook, waitUntil } from './helpers.ts';
import type { TestSim } from './helpers.ts';

const MM_SUB = 1;
const IDLE_SUB = 2;
let sim: TestSim;
let runtime: Runtime | null = null;

beforeEach(async () => {
  sim = await startTestSim();
});

afterEach(async () => {
  await runtime?.stop('test done');
  runtime = null;
  await sim.close();
});

const resting = (rt: Runtime, subaccount: number) => rt.oms.liveOrders().filter((o) => o.state === OrderState.RESTING && o.subaccount === subaccount);

/** The venue's orders of a subaccount in MARKET, any status (resting, canceled, executed). */
async function venueOrders(subaccount: number, status = ''): Promise<Record<string, unknown>[]> {
  const filter = status === '' ? '' : `&status=${status}`;
  const reply = await rest(sim, demoKey(sim), 'GET', `/portfolio/orders?ticker=${MARKET}&subaccount=${subaccount}&limit=1000${filter}`);
  expect(reply.status).toBe(200);
  return reply.body.orders as Record<string, unknown>[];
}

const ids = (orders: Record<string, unknown>[]) => orders.map((o) => o.client_order_id as string).sort();

function start(rt: Runtime): Promise<void> {
  runtime = rt;
  return rt.start();
}

describe('market lifecycle against the simulator', () => {
  it('pause: the gate denies new orders (MARKET_NOT_OPEN), nothing reaches the venue; activation: quoting resumes', async () => {
    const rt = createRuntime(sim, {
      strategies: [
        entry('mm', 'strategies/market-maker.ts', { fairValue: '0.5000', halfSpreadTicks: 2, size: '1.00', maxPosition: '10.00', timerIntervalMs: 50 }, MM_SUB),
        entry('idle', 'strategies/taker.ts', { maxOrders: 0 }, IDLE_SUB),
      ],
      journalPath: join(sim.workDir, 'pause.jsonl'),
    });
    await start(rt);
    await waitUntil(() => resting(rt, MM_SUB).length === 2, 5_000, 'two resting quotes');
    expect(ids(await venueOrders(MM_SUB, 'resting'))).toEqual(resting(rt, MM_SUB).map((o) => o.clientOrderId).sort());
    const handle = rt.gate.marketHandle(MARKET);
    expect(rt.gate.markets.at(handle)?.open).toBe(true);

    // The venue pauses the market: market_lifecycle_v2 "deactivated" (is_deactivated: true).
    expect(sim.engine.setMarketStatus(MARKET, 'inactive')).toBeNull();
    await waitUntil(() => rt.gate.markets.at(handle)?.open === false, 5_000, 'the gate to see the market paused');
    const sentAtPause = rt.oms.stats.ordersSent;
    const venueAtPause = ids(await venueOrders(MM_SUB));

    // A new order on the paused market is denied before the wire.
    const idle = rt.host.context('idle')!;
    const requestsBefore = rt.rest.stats.requests;
    expect(idle.place(MARKET, 'bid', parsePrice('0.40'), asCount(100), OrderFlags.POST_ONLY)).toBe(Deny.MARKET_NOT_OPEN);
    expect(rt.rest.stats.requests).toBe(requestsBefore);

    // The venue takes the maker's quotes away (as a pause with cancel_order_on_pause would): the
    // maker wants to quote again on every timer tick and the gate refuses every attempt.
    const mm = rt.host.context('mm')!;
    const notOpenBefore = mm.denies[Deny.MARKET_NOT_OPEN];
    for (const order of resting(rt, MM_SUB)) {
      const cancel = await rest(sim, demoKey(sim), 'DELETE', `/portfolio/events/orders/${order.orderId}?subaccount=${MM_SUB}`);
      expect(cancel.status).toBe(200);
    }
    await waitUntil(() => resting(rt, MM_SUB).length === 0 && rt.oms.liveOrders().filter((o) => o.subaccount === MM_SUB).length === 0, 5_000, 'the venue cancels seen');
    await waitUntil(() => mm.denies[Deny.MARKET_NOT_OPEN] >= notOpenBefore + 3, 5_000, 'the maker denied MARKET_NOT_OPEN on several attempts');
    expect(rt.oms.stats.ordersSent).toBe(sentAtPause);
    expect(ids(await venueOrders(MM_SUB))).toEqual(venueAtPause);
    expect(await venueOrders(MM_SUB, 'resting')).toEqual([]);
    expect(await venueOrders(IDLE_SUB)).toEqual([]);

    // The venue activates the market again: the gate opens and the maker quotes both sides.
    expect(sim.engine.setMarketStatus(MARKET, 'active')).toBeNull();
    await waitUntil(() => rt.gate.markets.at(handle)?.open === true, 5_000, 'the gate to see the market active');
    await waitUntil(() => resting(rt, MM_SUB).length === 2, 5_000, 'two quotes again');
    const quotes = resting(rt, MM_SUB).map((o) => [o.side, o.price, o.remainingCount]).sort();
    expect(quotes).toEqual([['ask', 5200, 100], ['bid', 4800, 100]]);
    await waitUntil(async () => ids(await venueOrders(MM_SUB, 'resting')).join() === resting(rt, MM_SUB).map((o) => o.clientOrderId).sort().join(), 5_000, 'the venue resting = the OMS resting');
    expect(rt.oms.stats.ordersSent).toBeGreaterThan(sentAtPause);
  });

  it('close: the venue closes the market early (close_date_updated to now): the gate denies MARKET_NOT_OPEN and the maker never floods the venue', async () => {
    const rt = createRuntime(sim, {
      strategies: [entry('mm', 'strategies/market-maker.ts', { fairValue: '0.5000', halfSpreadTicks: 2, size: '1.00', maxPosition: '10.00', timerIntervalMs: 50 }, MM_SUB)],
      journalPath: join(sim.workDir, 'close.jsonl'),
    });
    await start(rt);
    await waitUntil(() => resting(rt, MM_SUB).length === 2, 5_000, 'two resting quotes');
    const mm = rt.host.context('mm')!;
    const notOpenBefore = mm.denies[Deny.MARKET_NOT_OPEN];

    // Closing cancels every resting order at the venue and announces the close time as now.
    expect(sim.engine.setMarketStatus(MARKET, 'closed')).toBeNull();
    await waitUntil(() => rt.oms.liveOrders().filter((o) => o.subaccount === MM_SUB).length === 0, 5_000, 'the venue cancels seen');
    const sentAtClose = rt.oms.stats.ordersSent;
    await waitUntil(() => mm.denies[Deny.MARKET_NOT_OPEN] >= notOpenBefore + 3, 5_000, 'the maker denied MARKET_NOT_OPEN on several attempts');
    // At most the attempts already in flight when the close arrived reached the venue.
    expect(rt.oms.stats.ordersSent - sentAtClose).toBeLessThanOrEqual(2);
    expect(await venueOrders(MM_SUB, 'resting')).toEqual([]);
  });

  it('regrid to a finer grid: book levels kept and equal to the venue\'s, finer deltas applied', async () => {
    const rt = createRuntime(sim, {
      strategies: [entry('idle', 'strategies/taker.ts', { maxOrders: 0 }, IDLE_SUB)],
      journalPath: join(sim.workDir, 'regrid.jsonl'),
    });
    const cp = counterpartyKey(sim);
    for (const [side, price, count] of [['ask', '0.60', '2.00'], ['ask', '0.63', '1.00'], ['bid', '0.35', '3.00'], ['bid', '0.31', '1.00']] as const) {
      const reply = await rest(sim, cp, 'POST', '/portfolio/events/orders', orderBody(side, price, count));
      expect(reply.status).toBe(201);
    }
    await start(rt);
    const ctx = rt.host.context('idle')!;
    const book = rt.feed.books.get(MARKET)!;
    await waitUntil(() => book.synced && book.bestAsk() === 6000 && book.bestBid() === 3500, 5_000, 'counterparty levels in our book');
    expect(ctx.place(MARKET, 'bid', parsePrice('0.40'), asCount(100), OrderFlags.POST_ONLY)).toBe(Deny.NONE);
    const ours = ctx.lastClientOrderId;
    await waitUntil(() => rt.oms.order(ours)?.state === OrderState.RESTING, 5_000, 'our bid resting');
    // On the cent grid a tenth-of-a-cent price is off grid.
    expect(ctx.place(MARKET, 'bid', parsePrice('0.405'), asCount(100), OrderFlags.POST_ONLY)).toBe(Deny.PRICE_OFF_GRID);
    const before = localBook(book);
    expect(before).toEqual(await venueBook(sim, demoKey(sim)));
    const levelsBefore = book.grid.levelCount;

    // The venue moves the market to the tenth-of-a-cent grid: price_level_structure_updated.
    expect(sim.engine.setPriceLevelStructure(MARKET, 'deci_cent')).toBeNull();
    await waitUntil(() => book.grid.levelCount > levelsBefore, 5_000, 'our book on the finer grid');
    expect(book.grid.levelOf(parsePrice('0.405'))).toBeGreaterThanOrEqual(0);
    expect(book.synced).toBe(true);
    expect(localBook(book)).toEqual(before);
    expect(localBook(book)).toEqual(await venueBook(sim, demoKey(sim)));

    // A price only the finer grid has now passes the gate and rests at the venue.
    expect(ctx.place(MARKET, 'bid', parsePrice('0.405'), asCount(100), OrderFlags.POST_ONLY)).toBe(Deny.NONE);
    const fine = ctx.lastClientOrderId;
    await waitUntil(() => rt.oms.order(fine)?.state === OrderState.RESTING, 5_000, 'the finer-grid bid resting');
    const atVenue = (await venueOrders(IDLE_SUB, 'resting')).find((o) => o.client_order_id === fine);
    expect(parsePrice(atVenue?.yes_price_dollars as string)).toBe(4050);

    // Deltas on finer levels keep both books equal.
    const finer = await rest(sim, cp, 'POST', '/portfolio/events/orders', orderBody('ask', '0.5950', '1.00'));
    expect(finer.status).toBe(201);
    await waitUntil(() => book.bestAsk() === 5950, 5_000, 'the finer ask in our book');
    await waitUntil(() => book.bestBid() === 4050, 5_000, 'our finer bid in our book');
    expect(localBook(book)).toEqual(await venueBook(sim, demoKey(sim)));
    await rest(sim, cp, 'DELETE', '/portfolio/events/orders');
  });
});
