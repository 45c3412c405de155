/**
 * Tick-to-trade of a fleet runtime beside a lone one, on the same simulator, key, strategy and
 * market, one after the other for the same time: the runtime's own probe (frame received -> exec
 * returned, the first order of each book frame; bench/tick-to-trade). The fleet runtime holds a
 * budget lease in Redis, renewed on a timer with the config's defaults; the claim is that the lease
 * costs nothing per order (the gate spends from local buckets). Runs alternate (lone, fleet, fleet,
 * lone, ...) so drift over the phase and the JIT's warm-up weigh on both alike; each kind's samples
 * are merged into one histogram, and each run's p50 and p99 are kept to show the run-to-run spread. The event loop is pinned while measuring, as `npm start` does.
 * Every wait is bounded; each runtime is stopped in `finally`.
 */

import { pinEventLoop } from '../../src/runtime/cpu-placement.ts';
import type { Runtime } from '../../src/runtime/runtime.ts';
import type { BenchChild } from '../child-process.ts';
import { createHistogram } from '../harness.ts';
import type { Histogram } from '../harness.ts';
import { journalIn, tickToTradeRuntime } from './fleet-runtime.ts';
import type { ApiKey } from './fleet-runtime.ts';

export type RunKind = 'lone' | 'fleet';

export interface TickToTradePhase {
  /** Before the first run's measurement (JIT tier-up of the whole path); later runs reuse the compiled code. */
  firstWarmupMs: number;
  warmupMs: number;
  measureMs: number;
  /** Run order, e.g. lone, fleet, fleet, lone. */
  order: readonly RunKind[];
}

export interface KindResult {
  histogram: Histogram;
  runs: number;
  /** Each run's p50 and p99, ns, in run order: their spread is this machine's run-to-run noise. */
  perRun: Array<{ p50Ns: number; p99Ns: number }>;
  /** Each run's samples, in run order (the split-half control: alternate runs of one kind against each other). */
  runHistograms: Histogram[];
  frames: number;
  framesWithOrder: number;
  ordersSent: number;
  denies: Record<string, number>;
  /** Fleet runs only: lease renewals and failures, the share held at the end (ppm). */
  renewals: number;
  renewalFailures: number;
  sharePpmEnd: number;
}

/** Two default lease TTLs and more: a lease table's quiet first TTL, then a renewal. */
const LEASE_BOUND_MS = 5_000;
const pause = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

function emptyResult(): KindResult {
  return { histogram: createHistogram(), runs: 0, perRun: [], runHistograms: [], frames: 0, framesWithOrder: 0, ordersSent: 0, denies: {}, renewals: 0, renewalFailures: 0, sharePpmEnd: 0 };
}

/**
 * start() waits for the budget lease but not for the first limit grant (the gate's position and
 * loss shares are 0 until it arrives: MARKET_POSITION_LIMIT denies), so the fleet run waits for
 * both before its warm-up.
 */
async function waitForLeases(runtime: Runtime): Promise<void> {
  const deadline = performance.now() + LEASE_BOUND_MS;
  for (;;) {
    const fleet = runtime.fleet!.status();
    if (fleet.leased && fleet.limitShares.some((share) => share > 0)) return;
    if (performance.now() > deadline) throw new Error(`bench fleet: no budget lease and limit grant ${LEASE_BOUND_MS} ms after start`);
    await pause(20);
  }
}

/** `keysByRun`: a fresh user for each run (as the paired rounds), so no run inherits another's position. */
export async function tickToTradeRuns(sim: BenchChild, keysByRun: readonly ApiKey[], redisUrl: string, work: string, phase: TickToTradePhase, pin: string | null): Promise<Record<RunKind, KindResult>> {
  const results: Record<RunKind, KindResult> = { lone: emptyResult(), fleet: emptyResult() };
  for (let index = 0; index < phase.order.length; index++) {
    const kind = phase.order[index]!;
    const seat = kind === 'fleet' ? { redisUrl, runtimeName: `t2t-fleet-${index}`, leaseTtlMs: null, renewMs: null } : null;
    const runtime = tickToTradeRuntime(sim, keysByRun[index]!, seat, journalIn(work, `t2t-${kind}-${index}`));
    await measureOne(runtime, kind, index === 0 ? phase.firstWarmupMs : phase.warmupMs, phase.measureMs, pin, results[kind]);
  }
  return results;
}

async function measureOne(runtime: Runtime, kind: RunKind, warmupMs: number, measureMs: number, pin: string | null, into: KindResult): Promise<void> {
  let unpin: (() => void) | null = null;
  try {
    await runtime.start();
    if (kind === 'fleet') await waitForLeases(runtime);
    // As `npm start`: the event loop is pinned once the runtime's worker threads exist (they inherit it otherwise).
    if (pin !== null) unpin = pinEventLoop(pin);
    await pause(warmupMs);
    const sentBefore = runtime.status().ordersSent;
    runtime.probe.reset();
    await pause(measureMs);
    collect(runtime, sentBefore, into);
  } finally {
    unpin?.();
    await runtime.stop('bench done');
  }
}

/** One measured run's probe, orders, denies and lease counters, added to `into`. */
function collect(runtime: Runtime, sentBefore: number, into: KindResult): void {
  const probe = runtime.probe;
  const run = probe.total.histogram;
  into.histogram.add(run);
  const copy = createHistogram();
  copy.add(run);
  into.runHistograms.push(copy);
  into.perRun.push({ p50Ns: run.getValueAtPercentile(50), p99Ns: run.getValueAtPercentile(99) });
  into.runs++;
  into.frames += probe.frames;
  into.framesWithOrder += probe.framesWithOrder;
  const status = runtime.status();
  into.ordersSent += status.ordersSent - sentBefore;
  for (const [code, count] of Object.entries(status.denies)) into.denies[code] = (into.denies[code] ?? 0) + count;
  const fleet = runtime.fleet?.status();
  if (fleet !== undefined) {
    into.renewals += fleet.renewals;
    into.renewalFailures += fleet.renewalFailures;
    into.sharePpmEnd = fleet.sharePpm;
  }
}

export interface PairedPhase {
  firstWarmupMs: number;
  warmupMs: number;
  measureMs: number;
  /** Rounds; the runtime started (and subscribed) first alternates, lone on even rounds. */
  rounds: number;
}

/**
 * The paired design: a lone and a fleet runtime run at the same time in this process, on the same
 * market's frames (each its own key and user, so neither's orders or budget touch the other's),
 * so both are measured over the same seconds of this machine: the run-to-run drift of the
 * sequential runs (p50 of two runs of one kind up to ±9% apart) cancels. Each frame reaches both;
 * whichever socket the simulator writes first is read first, so the start order alternates by
 * round. What it compares is the work per order; the lease's timer work lands on the shared loop,
 * delaying both alike (the sequential runs above keep it apart).
 */
/** The paired runs' results: pooled, and by read position (the runtime started first reads each frame first). */
export interface PairedResult {
  pooled: Record<RunKind, KindResult>;
  readFirst: Record<RunKind, KindResult>;
  readSecond: Record<RunKind, KindResult>;
}

export async function pairedRuns(sim: BenchChild, keysByRound: readonly Record<RunKind, ApiKey>[], redisUrl: string, work: string, phase: PairedPhase, pin: string | null): Promise<PairedResult> {
  const empty = (): Record<RunKind, KindResult> => ({ lone: emptyResult(), fleet: emptyResult() });
  const results: PairedResult = { pooled: empty(), readFirst: empty(), readSecond: empty() };
  for (let round = 0; round < phase.rounds; round++) {
    // Fresh users each round: a position one round built (its far bids fill now and then) never
    // reaches the fleet runtime's leased share of the position limit in a later round.
    const keys = keysByRound[round]!;
    const runtimes: Record<RunKind, Runtime> = {
      lone: tickToTradeRuntime(sim, keys.lone, null, journalIn(work, `pair-lone-${round}`)),
      fleet: tickToTradeRuntime(sim, keys.fleet, { redisUrl, runtimeName: `pair-fleet-${round}`, leaseTtlMs: null, renewMs: null }, journalIn(work, `pair-fleet-${round}`)),
    };
    const order: RunKind[] = round % 2 === 0 ? ['lone', 'fleet'] : ['fleet', 'lone'];
    let unpin: (() => void) | null = null;
    try {
      for (const kind of order) await runtimes[kind].start();
      await waitForLeases(runtimes.fleet);
      if (pin !== null) unpin = pinEventLoop(pin);
      await pause(round === 0 ? phase.firstWarmupMs : phase.warmupMs);
      const sentBefore = { lone: runtimes.lone.status().ordersSent, fleet: runtimes.fleet.status().ordersSent };
      runtimes.lone.probe.reset();
      runtimes.fleet.probe.reset();
      await pause(phase.measureMs);
      for (const kind of order) {
        collect(runtimes[kind], sentBefore[kind], results.pooled[kind]);
        collect(runtimes[kind], sentBefore[kind], (kind === order[0] ? results.readFirst : results.readSecond)[kind]);
      }
    } finally {
      unpin?.();
      await Promise.all(order.map((kind) => runtimes[kind].stop('bench done')));
    }
  }
  return results;
}
