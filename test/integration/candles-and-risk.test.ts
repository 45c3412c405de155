// Goal: against the simulator over real sockets, the runtime's worker pool does its three jobs
// beside trading: live candlesticks start from the venue's candlestick endpoint (trades made
// before the runtime existed are in them: backfill) and continue from the trade feed (a trade
// made after start reaches the candles a strategy reads through ctx.candles); portfolio risk is
// published to the gate before strategies start and keeps being refreshed; the status reports
// the event-loop stall (setImmediate round trips) and the pool's queue depth; the pool is opened at
// the start's first step (its threads boot while the connects wait).
// Method: an in-process simulator, two counterparty users trading with each other (so volume is
// ours to know), a runtime wired as the main job wires it with a passive plugin that reads
// ctx.candles on every trade; every wait is bounded (waitUntil); only counts and prices asserted.

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Runtime } from '../../src/runtime/runtime.ts';
import { MARKET, counterpartyKey, createRuntime, entry, orderBody, rest, startTestSim, waitUntil } from './helpers.ts';
import type { ApiKey, TestSim } from './helpers.ts';

let sim: TestSim;
let seller: ApiKey;
let buyer: ApiKey;
let runtime: Runtime | null = null;
const work = mkdtempSync(join(tmpdir(), 'candles-and-risk-'));

beforeAll(async () => {
  sim = await startTestSim();
  seller = counterpartyKey(sim, 'seller');
  buyer = counterpartyKey(sim, 'buyer');
});

afterAll(async () => {
  await runtime?.stop('test over');
  await sim.close();
  rmSync(work, { recursive: true, force: true });
});

/** `count` contracts change hands at `price` between the two counterparties. */
async function trade(price: string, count: string): Promise<void> {
  const ask = await rest(sim, seller, 'POST', '/portfolio/events/orders', orderBody('ask', price, count));
  expect(ask.status, JSON.stringify(ask.body)).toBe(201);
  const bid = await rest(sim, buyer, 'POST', '/portfolio/events/orders', orderBody('bid', price, count, 'immediate_or_cancel'));
  expect(bid.status, JSON.stringify(bid.body)).toBe(201);
}

function totalVolume(rt: Runtime): number {
  const view = rt.candles?.view(MARKET, 1) ?? null;
  if (view === null) return 0;
  let volume = 0;
  for (let i = 0; i < view.length; i++) volume += view.volume(i);
  return volume;
}

describe('worker pool in the runtime, against the simulator', () => {
  it('backfills candles from the venue, continues them from the trade feed, and publishes portfolio risk', async () => {
    await trade('0.5500', '3.00'); // before the runtime exists: only the backfill can know it
    runtime = createRuntime(sim, {
      journalPath: join(work, 'journal.jsonl'),
      strategies: [entry('watcher', 'strategies/candle-watcher.ts', {})],
      options: { startTimeoutMs: 10_000 },
    });
    const rt = runtime;
    expect(rt.workersStatus()).toBeNull();
    const starting = rt.start();
    // The pool's threads boot from the start's first step, while the connects wait on the network.
    expect(rt.workersStatus()).not.toBeNull();
    await starting;

    // Portfolio risk: the first snapshot was waited for, and it keeps being recomputed.
    const portfolio = rt.portfolio!;
    expect(portfolio.view.generation).toBeGreaterThan(0);
    expect(rt.gate.portfolio).toBe(portfolio.view);

    // Backfill: the pre-start trade is in the candles without any live trade since.
    await waitUntil(() => totalVolume(rt) >= 300, 10_000, 'the backfilled volume');
    const view = rt.candles!.view(MARKET, 1)!;
    const before = totalVolume(rt);
    expect(view.length).toBeGreaterThan(0);

    // Live: a trade after start reaches the candles through the feed and the pool.
    await trade('0.5700', '2.00');
    await waitUntil(() => totalVolume(rt) >= before + 200 && view.close(view.length - 1) === 5700, 10_000, 'the live trade in the candles');

    // The strategy reads the same through ctx.candles.
    const ctx = rt.host.context('watcher')!;
    const seen = ctx.candles(MARKET, 1)!;
    expect(seen.close(seen.length - 1)).toBe(5700);
    expect(ctx.candles(MARKET, 60)!.length).toBeGreaterThan(0);
    expect(ctx.candles('KXOTHER-NOT-MINE', 1)).toBeNull();
    expect(rt.host.summaries().map((s) => s.status)).toEqual(['running']);

    // Status: event-loop stall samples and the pool.
    const generation = portfolio.view.generation;
    await waitUntil(() => portfolio.view.generation > generation, 10_000, 'a refreshed portfolio snapshot');
    await waitUntil(() => (rt.status().eventLoopStall?.samples ?? 0) > 0, 10_000, 'event-loop stall samples');
    const status = rt.status();
    expect(status.workers).not.toBeNull();
    expect(status.workers!.queueDepth).toBeGreaterThanOrEqual(0);
    expect(status.workers!.completed).toBeGreaterThan(0);
    expect(status.workers!.failed).toBe(0);
    expect(status.workers!.portfolioAgeMs).toBeGreaterThanOrEqual(0);
    expect(rt.candles!.stats.rowsAppended).toBeGreaterThan(0);
  });
});
