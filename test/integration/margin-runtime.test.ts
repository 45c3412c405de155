/**
 * Goal: the runtime trades the Margin exchange beside Predictions (issue 17 item 3): a perpetual's
 * book comes from the Margin WebSocket, its orders go out on the Margin route with the gate's
 * margin checks, one strategy holds positions on both exchanges, the kill switch and the stop
 * leave nothing resting on either, and an order the exchange places on the account (a fired exit
 * trigger) is adopted, not treated as foreign.
 * Method: the Runtime as the main job wires it (margin.enabled), against the simulator over real
 * sockets; a counterparty posts liquidity on both exchanges over REST; positions and resting orders
 * are read back from the venue. Every wait is bounded.
 */

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Deny } from '../../src/risk/index.ts';
import type { Runtime } from '../../src/runtime/runtime.ts';
import { MARKET, counterpartyKey, createRuntime, demoKey, orderBody, rest, startTestSim, waitUntil } from './helpers.ts';
import type { ApiKey, TestSim } from './helpers.ts';

const PERP = 'KXBTCPERP'; // tick $0.01, mark $100.00 (config/margin-markets.json)
let sim: TestSim;
let workDir: string;
let cp: ApiKey;

function marginOrder(side: 'bid' | 'ask', price: string, count: string): Record<string, unknown> {
  return { ticker: PERP, client_order_id: `cp-m-${process.pid}-${Date.now()}-${Math.random().toString(36).slice(2, 8)}`, side, count, price, time_in_force: 'good_till_canceled', self_trade_prevention_type: 'taker_at_cross', subaccount: 0 };
}

async function venueResting(userId: string): Promise<{ predictions: number; margin: number }> {
  const margin = sim.services.margin.orderList.filter((order) => order.userId === userId && order.status === 'resting').length;
  const reply = await rest(sim, demoKey(sim), 'GET', '/portfolio/orders?status=resting');
  const predictions = (reply.body.orders as unknown[] | undefined)?.length ?? 0;
  return { predictions, margin };
}

function marginPosition(userId: string, ticker: string): number {
  return sim.services.margin.accountsOf(userId).find((account) => account.subaccount === 0)?.positions.get(ticker)?.count ?? 0;
}

beforeAll(async () => {
  sim = await startTestSim({ rateLimits: false });
  workDir = mkdtempSync(join(tmpdir(), 'margin-runtime-'));
  cp = counterpartyKey(sim, 'margin-cp');
  // Liquidity to take on both exchanges, and to rest behind.
  expect((await rest(sim, cp, 'POST', '/portfolio/events/orders', orderBody('ask', '0.5500', '10.00'))).status).toBe(201);
  expect((await rest(sim, cp, 'POST', '/portfolio/events/orders', orderBody('bid', '0.4500', '10.00'))).status).toBe(201);
  expect((await rest(sim, cp, 'POST', '/margin/orders', marginOrder('ask', '100.1000', '10.00'))).status).toBe(201);
  expect((await rest(sim, cp, 'POST', '/margin/orders', marginOrder('bid', '99.9000', '10.00'))).status).toBe(201);
});

afterAll(async () => {
  await sim?.close();
  rmSync(workDir, { recursive: true, force: true });
});

describe('the runtime on both exchanges', () => {
  let runtime: Runtime;

  it('one strategy holds a Predictions position and a perpetual position, each order on its exchange', async () => {
    runtime = createRuntime(sim, {
      strategies: [{ id: 'both', plugin: 'strategies/cross-exchange.ts', subaccount: 0, orderGroup: null, markets: [MARKET, PERP], params: { size: '2.00', restTicksBelow: 3 } }],
      journalPath: join(workDir, 'journal-1.jsonl'),
      risk: { maxOrderNotionalDollars: '1000.00' },
      margin: { enabled: true, maxLeverage: 20 },
    });
    await runtime.start();
    const perpBook = runtime.marginFeed!.books.get(PERP)!;
    expect(perpBook.synced).toBe(true);
    expect(perpBook.bestAsk()).toBe(1_001_000);
    expect(perpBook.bestBid()).toBe(999_000);
    await waitUntil(() => runtime.oms.position(0, PERP)?.position === 200 && runtime.oms.position(0, MARKET)?.position === 200, 5_000, 'positions on both exchanges');
    expect(marginPosition(sim.userId, PERP)).toBe(200);
    // The resting bids: one per market, the perpetual's at $99.87 on the Margin book.
    await waitUntil(async () => {
      const resting = await venueResting(sim.userId);
      return resting.predictions === 1 && resting.margin === 1;
    }, 5_000, 'a resting bid on each exchange');
    const marginResting = sim.services.margin.orderList.find((order) => order.userId === sim.userId && order.status === 'resting')!;
    expect(marginResting.price).toBe(998_700);
    expect(runtime.oms.liveOrders().map((order) => order.exchange).sort()).toEqual(['margin', 'predictions']);
    // A perpetual book that lost sequence resyncs on the Margin endpoint (get_snapshot) like a Predictions one.
    const feed = runtime.marginFeed!;
    feed.resyncBook(PERP);
    expect(perpBook.synced).toBe(false);
    await waitUntil(() => perpBook.synced, 5_000, 'the perpetual book resynced');
    expect(perpBook.bestAsk()).toBe(1_001_000);
    expect(feed.counters.resyncsCompleted).toBeGreaterThanOrEqual(1);
  }, 30_000);

  it('the gate applies margin checks to a perpetual: off-tick, fractional and a resting reduce-only are denied', () => {
    const handle = runtime.gate.marketHandle(PERP);
    expect(handle).toBeGreaterThanOrEqual(0);
    expect(runtime.gate.markets.registry.at(handle)!.exchange).toBe('margin');
    const ctx = runtime.host.context('both')!;
    expect(ctx.place(PERP, 'bid', 999_950 as never, 100 as never)).toBe(Deny.PRICE_OFF_GRID);
    expect(ctx.place(PERP, 'bid', 990_000 as never, 150 as never)).toBe(Deny.COUNT_OFF_INCREMENT);
    expect(ctx.place(PERP, 'ask', 1_001_000 as never, 100 as never, 2 /* REDUCE_ONLY, good-till-cancelled */)).toBe(Deny.REDUCE_ONLY_RESTING);
  });

  it('an exit trigger on the perpetual goes through the gate; when it fires, its system order is adopted and closes the position', async () => {
    const ctx = runtime.host.context('both')!;
    // A long's stop-loss must be below the mark ($100): above it the gate refuses, nothing is sent.
    expect((await ctx.exitTrigger({ ticker: PERP, stopLossPrice: 1_005_000 as never })).deny).toBe(Deny.TRIGGER_INVALID);
    const set = await ctx.exitTrigger({ ticker: PERP, stopLossPrice: 950_000 as never, takeProfitPrice: 1_005_000 as never });
    expect(set).toMatchObject({ deny: Deny.NONE, state: 'active', error: '' });
    expect(set.triggerId).not.toBe('');
    // Move the mark to the take-profit: clear the asks, then a trade at $100.50 with no ask left.
    const dave = counterpartyKey(sim, 'margin-dave');
    const erin = counterpartyKey(sim, 'margin-erin');
    expect((await rest(sim, erin, 'POST', '/margin/orders', { ...marginOrder('bid', '100.1000', '8.00'), time_in_force: 'immediate_or_cancel' })).status).toBe(201);
    expect((await rest(sim, dave, 'POST', '/margin/orders', marginOrder('ask', '100.5000', '1.00'))).status).toBe(201);
    expect((await rest(sim, erin, 'POST', '/margin/orders', { ...marginOrder('bid', '100.5000', '1.00'), time_in_force: 'immediate_or_cancel' })).status).toBe(201);
    await waitUntil(() => runtime.oms.stats.systemOrders >= 1 && runtime.oms.position(0, PERP)?.position === 0, 5_000, 'the fired order adopted and the position closed');
    expect(marginPosition(sim.userId, PERP)).toBe(0);
    const system = sim.services.margin.orderList.find((order) => order.userId === sim.userId && order.source === 'system')!;
    expect(runtime.oms.systemOrder(system.orderId)).toMatchObject({ ticker: PERP, reason: 'take_profit_stop_loss', side: 'ask' });
    expect(runtime.oms.stats.foreignOrders).toBe(0);
    await waitUntil(() => runtime.graph.exitTriggers!.triggerOfOrder(system.orderId) !== null, 5_000, 'the fired order linked to its trigger');
  }, 30_000);

  it('the kill switch cancels on both exchanges; the stop leaves nothing resting', async () => {
    await runtime.router.killSwitch('test', 'test');
    await waitUntil(async () => {
      const resting = await venueResting(sim.userId);
      return resting.predictions === 0 && resting.margin === 0;
    }, 5_000, 'nothing resting on either exchange');
    await runtime.stop('test');
    expect(runtime.oms.liveOrderCount).toBe(0);
  }, 30_000);

  it('a restart adopts the positions and the exit triggers the venue holds, and the gate counts them', async () => {
    // Our user is long 3 contracts again, with a 1-contract stop set by hand (not by this runtime).
    const ours = demoKey(sim);
    expect((await rest(sim, cp, 'POST', '/margin/orders', marginOrder('ask', '100.0000', '3.00'))).status).toBe(201);
    expect((await rest(sim, ours, 'POST', '/margin/orders', { ...marginOrder('bid', '100.0000', '3.00'), time_in_force: 'immediate_or_cancel' })).status).toBe(201);
    expect(marginPosition(sim.userId, PERP)).toBe(300);
    const byHand = await rest(sim, ours, 'PUT', `/margin/cross/positions/${PERP}/exit_trigger?subaccount=0`, { kind: 'bracket', stop_loss_price: '90.0000', count: '1.00', client_trigger_id: 'by-hand-1' });
    expect(byHand.status).toBe(200);
    const again = createRuntime(sim, {
      strategies: [{ id: 'watch', plugin: 'strategies/candle-watcher.ts', subaccount: 0, orderGroup: null, markets: [PERP, MARKET], params: {} }],
      journalPath: join(workDir, 'journal-2.jsonl'),
      risk: { maxOrderNotionalDollars: '1000.00' },
      margin: { enabled: true, maxLeverage: 20 },
    });
    await again.start();
    try {
      expect(again.graph.exitTriggers!.triggersOf(PERP, 0, false).map((trigger) => trigger.clientTriggerId)).toEqual(['by-hand-1']);
      expect(again.oms.position(0, PERP)?.position).toBe(300);
      // Positions read at start, before the markets were registered, reach both of the gate's ledgers.
      expect(again.gate.exposure.slot(again.gate.marketHandle(MARKET), 0)?.position).toBe(200);
      const ctx = again.host.context('watch')!;
      // 1 (adopted) + 3 contracts would close more than the 3 held.
      expect((await ctx.exitTrigger({ ticker: PERP, stopLossPrice: 900_000 as never, count: 300 as never, clientTriggerId: 'x-2' })).deny).toBe(Deny.TRIGGER_COUNT_ABOVE_POSITION);
      expect((await ctx.exitTrigger({ ticker: PERP, stopLossPrice: 900_000 as never, count: 200 as never, clientTriggerId: 'x-3' })).deny).toBe(Deny.NONE);
    } finally {
      await again.stop('test');
    }
  }, 30_000);
});
