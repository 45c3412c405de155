/**
 * One scale run: a Runtime in this process with the sample maker (strategies/market-maker.ts) on
 * every synthetic market of the simulator child, trading as a fresh user whose key has the case's
 * tier, holding intents the write bucket cannot pay for (holdIntents true) or denying them
 * RATE_LIMITED (false, today's behaviour). It samples, without touching the hot path:
 *
 *   - every 50 ms until all books are synced, then every 250 ms: the quotes resting (OMS orders
 *     RESTING or with an amend or decrease in flight), for the time to 2N;
 *   - every second: the venue's counts for the key (write and read tokens admitted, 429s: the
 *     child's admit() counter), the router's held intents, the RATE_LIMITED denies, this process's
 *     CPU time and RSS;
 *   - the event-loop delay (perf_hooks, 1 ms resolution) and the runtime's tick-to-trade probe over
 *     the trading phase.
 *
 * It never decides what is a target; suite.ts turns a CaseResult into rows. Every loop is bounded
 * by the case duration; the runtime is stopped in `finally`.
 */

import { monitorEventLoopDelay } from 'node:perf_hooks';
import path from 'node:path';
import { loadPrivateKey } from '../../src/core/index.ts';
import { ORDER_STATE_NAMES, OrderState } from '../../src/core/index.ts';
import { validateConfig } from '../../src/runtime/config.ts';
import { Runtime } from '../../src/runtime/runtime.ts';
import { OtherThreadsPlacement, otherCpus, pinEventLoop } from '../../src/runtime/cpu-placement.ts';
import { createLogger } from '../../src/telemetry/index.ts';
import type { BenchChild } from '../child-process.ts';
import type { Histogram } from '../harness.ts';

export type ScaleTier = 'basic' | 'prime';

export interface ScaleCase {
  tier: ScaleTier;
  markets: number;
  updatesPerSec: number;
  /** Trading phase after start() resolved, ms. */
  durationMs: number;
}

/** One second of counts (cumulative figures at the sample). */
export interface SecondSample {
  atMs: number;
  writeTokens: number;
  held: number;
  /**
   * The gate's write bucket could not pay for two creates at the sample: held intents then wait
   * for the budget. Otherwise they wait for a connection (the route saturated), not the budget.
   */
  budgetBound: boolean;
  rateLimited: number;
  cpuUs: number;
}

export interface CaseResult {
  /** runtime.start() called -> every book synced, ms; -1 if not within the bound. */
  startupMs: number;
  /** runtime.start() called -> resolved (order entry, feed, workers, the strategy deployed), ms. */
  startResolvedMs: number;
  /** Read tokens the venue admitted for the key until then. */
  startupReadTokens: number;
  /** start() resolved (the strategy runs) -> 2N quotes resting, ms; -1 if not within the duration. */
  coverageMs: number;
  /**
   * start() resolved -> every one of the 2N quote slots (market x side) has had a quote resting at a
   * sample, ms; -1 if not within the duration. Differs from coverageMs by the quotes the simulated
   * flow fills meanwhile (each costs a new create to replace).
   */
  slotsCoveredMs: number;
  slotsCovered: number;
  /** Most quotes resting at once, and when the run ended. */
  restingMax: number;
  restingEnd: number;
  /** The OMS's live orders by state name at the end, and the venue's resting count then. */
  statesAtEnd: Record<string, number>;
  venueRestingEnd: number;
  /** Trading-phase length actually run, ms. */
  tradingMs: number;
  seconds: SecondSample[];
  /** Steady state starts here (ms after start() resolved): max(coverage, 5 s). */
  steadyFromMs: number;
  refused429: number;
  /** Of which on the read bucket (the rest on the write bucket). */
  refused429Read: number;
  ticks: Histogram;
  /** perf_hooks monitorEventLoopDelay over the trading phase: intervals between runs of its 1 ms timer, the period included, ns. */
  loopDelay: { count: number; p50Ns: number; p99Ns: number; p999Ns: number; maxNs: number; meanNs: number };
  rssMaxBytes: number;
  /** Book updates the simulator made per second over the trading phase (asked: updatesPerSec). */
  deliveredUpdatesPerSec: number;
  holdStats: { heldSent: number; heldDropped: number; batchesSent: number; batchedOrders: number };
  /** Order-route requests over the trading phase, and those signed on the event loop (RSA, about 1 ms each) for want of a presigned signature. */
  signing: { requests: number; inlineSigned: number; workerSigned: number };
  /** The keep-warm dry run over the trading phase: runs, timer ticks it skipped as the loop was busy, and the loop time its runs took, ms (all 0 when off). */
  keepWarm: { runs: number; thinned: number; busyMs: number };
  ordersSent: number;
  /** Fills of our orders, and book resyncs (a resync pulls the maker's quotes). */
  fills: number;
  resyncs: number;
  denies: Record<string, number>;
}

interface VenueStats {
  readTokens: number;
  readRefused: number;
  writeTokens: number;
  writeRefused: number;
  resting: number;
  bookUpdates: number;
}

const SAMPLE_MS = 250;
const STARTUP_BOUND_MS = 120_000;
/** Steady state never starts before this, ms after the strategy started: the bucket's initial burst is spent. */
const STEADY_AFTER_MS = 5_000;

const pause = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

function buildRuntime(sim: BenchChild, key: { keyId: string; privateKeyPem: string }, tickers: readonly string[], hold: boolean, repoDir: string, journalPath: string): Runtime {
  const config = validateConfig(
    {
      // auto: the budgets come from GET /account/limits at start, as in production.
      risk: {
        rateLimitTier: 'auto', maxRestingExposureDollars: '1000000.00', maxPositionPerSubaccount: '1000000.00',
        maxWorstCaseLossPerSubaccountDollars: '10000000.00', maxWorstCaseLossPerEventDollars: '10000000.00',
      },
      // Worker nice 0, not the default 19: this machine is shared with other jobs (load average ~20
      // on 2 CPUs while it ran), and a nice-19 signing thread starved there (rings not full in 10 s).
      exec: { signing: 'presigned', connections: 4, presignWorkerNice: 0 },
      strategies: [{
        id: 'mm-scale', plugin: 'strategies/market-maker.ts', subaccount: 0, markets: [...tickers], holdIntents: hold,
        params: { size: '1.00', halfSpreadTicks: 3, maxPosition: '1000.00', requoteTicks: 1 },
      }],
    },
    '<bench scale>',
    {},
  );
  return new Runtime({
    config,
    venue: { restUrl: `${String(sim.ready.http)}/trade-api/v2`, wsUrl: String(sim.ready.ws), keyId: key.keyId, privateKey: loadPrivateKey(key.privateKeyPem) },
    rootDir: repoDir,
    journalPath,
    // BENCH_SCALE_LOG=info (or debug): the runtime's log on stderr, to see why a run misses.
    logger: createLogger({ level: process.env.BENCH_SCALE_LOG ?? 'silent', pretty: false, destination: process.stderr }),
    startTimeoutMs: STARTUP_BOUND_MS,
  });
}

/** Quote slots (market x side) that have had a quote resting: a flag per slot by the market registry's index, no string per order. */
class RestedSlots {
  #flags = new Uint8Array(0);
  size = 0;
  add(marketIndex: number, side: string): void {
    if (marketIndex < 0) return;
    const slot = marketIndex * 2 + (side === 'bid' ? 0 : 1);
    if (slot >= this.#flags.length) {
      const grown = new Uint8Array(Math.max(1_024, slot * 2));
      grown.set(this.#flags);
      this.#flags = grown;
    }
    if (this.#flags[slot] === 1) return;
    this.#flags[slot] = 1;
    this.size++;
  }
}

/**
 * Resting orders now; `everRested` (null once every slot rested) gains their slots. Walks the OMS's
 * live list in place: this sampler runs in the process it measures, four times a second over
 * up to 10,000 orders, and must not make garbage of its own.
 */
function restingCount(runtime: Runtime, everRested: RestedSlots | null): number {
  let resting = 0;
  const markets = runtime.feed.markets;
  for (let order = runtime.oms.oldestLiveOrder; order !== null; order = order.liveNext) {
    if (order.state !== OrderState.RESTING && order.state !== OrderState.PENDING_AMEND && order.state !== OrderState.PENDING_DECREASE) continue;
    resting++;
    everRested?.add(markets.indexOf(order.ticker), order.side);
  }
  return resting;
}

function liveStates(runtime: Runtime): Record<string, number> {
  const states: Record<string, number> = {};
  for (const order of runtime.oms.liveOrders()) {
    const name = ORDER_STATE_NAMES[order.state] ?? String(order.state);
    states[name] = (states[name] ?? 0) + 1;
  }
  // Why an order is in doubt: the order route's unknown answers and its connections' timeouts.
  const raw = runtime.rest.rawStats;
  states.execUnknowns = runtime.rest.stats.unknowns;
  states.netTimeouts = raw.timeouts;
  states.netQueueTimeouts = raw.queueTimeouts;
  states.netQueued = raw.queued;
  return states;
}

async function venueStats(sim: BenchChild, keyId: string, userId: string): Promise<VenueStats> {
  return (await sim.command({ cmd: 'stats', keyId, userId })) as unknown as VenueStats;
}

/** Waits (bounded, or until `abandoned`) until every book is synced; returns ms since `startedMs` or -1. */
async function waitSynced(runtime: Runtime, markets: number, startedMs: number, abandoned: () => boolean): Promise<number> {
  const deadline = startedMs + STARTUP_BOUND_MS;
  while (performance.now() < deadline && !abandoned()) {
    if (runtime.status().booksSynced >= markets) return performance.now() - startedMs;
    await pause(50);
  }
  return -1;
}

/**
 * Builds and starts a runtime. The books are watched while start() runs (they sync before it
 * resolves: it waits for the events and candle reads of the markets it added too), so `synced` is
 * start() called -> every book synced. (A presigner that cannot fill its rings in time no longer
 * fails the start: it starts short and orders sign inline meanwhile.)
 */
async function startRuntime(build: () => Runtime, markets: number): Promise<{ runtime: Runtime; startedMs: number; resolvedMs: number; synced: Promise<number> }> {
  const runtime = build();
  const startedMs = performance.now();
  let failed = false;
  const synced = waitSynced(runtime, markets, startedMs, () => failed);
  try {
    await runtime.start();
    return { runtime, startedMs, resolvedMs: performance.now() - startedMs, synced };
  } catch (error) {
    failed = true;
    await synced;
    await runtime.stop('bench start failed').catch(() => undefined);
    throw error;
  }
}

export async function runCase(sim: BenchChild, tickers: readonly string[], scale: ScaleCase, hold: boolean, repoDir: string, work: string, runIndex: number, pin: string | null): Promise<CaseResult> {
  const userId = `c0ffee00-0000-4000-8000-${String(runIndex).padStart(12, '0')}`;
  const key = (await sim.command({ cmd: 'key', tier: scale.tier, userId })) as unknown as { keyId: string; privateKeyPem: string };
  const build = (): Runtime => buildRuntime(sim, key, tickers, hold, repoDir, path.join(work, `journal-${runIndex}.jsonl`));
  const { runtime, resolvedMs, synced } = await startRuntime(build, tickers.length);
  let unpin: (() => void) | null = null;
  let others: OtherThreadsPlacement | null = null;
  const loopDelay = monitorEventLoopDelay({ resolution: 1 });
  try {
    const tradingFromMs = performance.now();
    if (pin !== null) {
      const rest = otherCpus(pin); // read before pinning: the allowed list is the event-loop thread's
      unpin = pinEventLoop(pin); // as `npm start`: after the worker threads exist, the others off its CPU
      if (rest !== null) {
        others = new OtherThreadsPlacement(rest);
        await others.start();
      }
    }
    const startupMs = await synced;
    const startupReadTokens = (await venueStats(sim, key.keyId, userId)).readTokens;
    runtime.probe.reset();
    const routeStats = runtime.rest.stats;
    const requestsBefore = routeStats.requests;
    const inlineBefore = routeStats.inlineSigned;
    const workerBefore = routeStats.workerSigned;
    const warm = runtime.keepWarm?.stats;
    const warmBefore = { runs: warm?.runs ?? 0, thinned: warm?.thinned ?? 0, busyUs: warm?.busyUsTotal ?? 0 };
    loopDelay.enable();
    const trading = await sampleTrading(runtime, sim, key.keyId, userId, scale, tradingFromMs);
    loopDelay.disable();
    const signing = { requests: routeStats.requests - requestsBefore, inlineSigned: routeStats.inlineSigned - inlineBefore, workerSigned: routeStats.workerSigned - workerBefore };
    const keepWarm = warm === undefined ? { runs: 0, thinned: 0, busyMs: 0 } : { runs: warm.runs - warmBefore.runs, thinned: warm.thinned - warmBefore.thinned, busyMs: Math.round((warm.busyUsTotal - warmBefore.busyUs) / 1000) };
    const status = runtime.status();
    const stats = runtime.router.holdStats;
    return {
      ...trading,
      startupMs,
      startResolvedMs: resolvedMs,
      startupReadTokens,
      signing,
      keepWarm,
      ticks: runtime.probe.total.histogram,
      loopDelay: {
        count: loopDelay.count, p50Ns: loopDelay.percentile(50), p99Ns: loopDelay.percentile(99), p999Ns: loopDelay.percentile(99.9),
        maxNs: loopDelay.max, meanNs: Math.round(loopDelay.mean),
      },
      holdStats: { heldSent: stats.heldSent, heldDropped: stats.heldDropped, batchesSent: stats.batchesSent, batchedOrders: stats.batchedOrders },
      ordersSent: status.ordersSent,
      fills: status.fills,
      resyncs: runtime.feed.counters.resyncsRequested,
      denies: status.denies,
    };
  } finally {
    loopDelay.disable();
    others?.stop();
    unpin?.();
    await runtime.stop('bench done');
  }
}

/** The trading phase: samples until `durationMs` after start() resolved (see the file comment). */
async function sampleTrading(
  runtime: Runtime, sim: BenchChild, keyId: string, userId: string, scale: ScaleCase, tradingFromMs: number,
): Promise<Pick<CaseResult, 'coverageMs' | 'slotsCoveredMs' | 'slotsCovered' | 'restingMax' | 'restingEnd' | 'statesAtEnd' | 'venueRestingEnd' | 'tradingMs' | 'seconds' | 'steadyFromMs' | 'refused429' | 'refused429Read' | 'rssMaxBytes' | 'deliveredUpdatesPerSec'>> {
  const target = 2 * scale.markets;
  const endMs = tradingFromMs + scale.durationMs;
  const cpuStart = process.cpuUsage();
  const first = await venueStats(sim, keyId, userId);
  const seconds: SecondSample[] = [];
  let coverageMs = -1;
  let slotsCoveredMs = -1;
  const everRested = new RestedSlots();
  let restingMax = 0;
  let resting = 0;
  let rssMaxBytes = 0;
  let nextSecondMs = performance.now();
  let last = first;
  for (let step = 0; performance.now() < endMs && step < 100_000; step++) {
    await pause(SAMPLE_MS);
    resting = restingCount(runtime, slotsCoveredMs < 0 ? everRested : null);
    if (resting > restingMax) restingMax = resting;
    const now = performance.now();
    if (coverageMs < 0 && resting >= target) coverageMs = now - tradingFromMs;
    if (slotsCoveredMs < 0 && everRested.size >= target) slotsCoveredMs = now - tradingFromMs;
    if (now < nextSecondMs) continue;
    nextSecondMs += 1_000;
    last = await venueStats(sim, keyId, userId);
    const cpu = process.cpuUsage(cpuStart);
    rssMaxBytes = Math.max(rssMaxBytes, process.memoryUsage.rss());
    seconds.push({
      atMs: performance.now() - tradingFromMs,
      writeTokens: last.writeTokens,
      held: runtime.router.holdStats.held,
      budgetBound: !runtime.gate.budget.canTakeWrite(2 * 10, false, runtime.clock.nowMs()),
      rateLimited: runtime.status().denies.RATE_LIMITED ?? 0,
      cpuUs: cpu.user + cpu.system,
    });
  }
  const tradingMs = performance.now() - tradingFromMs;
  return {
    coverageMs,
    slotsCoveredMs,
    slotsCovered: everRested.size,
    restingMax,
    restingEnd: resting,
    statesAtEnd: liveStates(runtime),
    venueRestingEnd: last.resting,
    tradingMs,
    seconds,
    steadyFromMs: Math.max(coverageMs, STEADY_AFTER_MS),
    refused429: last.writeRefused + last.readRefused,
    refused429Read: last.readRefused,
    rssMaxBytes,
    deliveredUpdatesPerSec: ((last.bookUpdates - first.bookUpdates) * 1000) / tradingMs,
  };
}
