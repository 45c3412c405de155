/**
 * Budget use: three runtimes on one Basic-tier key (100 write tokens/s, capacity 100), each running
 * the flood plugin (it always wants more than the whole write budget), as test/fleet does. After
 * every runtime holds a lease and the shares settled, the write tokens the venue admitted for the
 * key over a steady window (the simulator child's admit() counter), against the key's write rate
 * over the same window (the children's clock): the share of the account's budget the fleet used.
 * 429s are every refusal the venue answered for the key, reads and writes, from the first start.
 * With `seat` null the same three runtimes run without a fleet (each spends as if it had the whole
 * key): the baseline that shows what the leases prevent. This file starts and measures the fleet;
 * the caller stops it (stopAll) in `finally`, after using it for the kill phase too.
 */

import type { Runtime } from '../../src/runtime/runtime.ts';
import { TIER_BUDGETS } from '../../src/sim/rate-limit/index.ts';
import type { BenchChild } from '../child-process.ts';
import { floodRuntime, journalIn } from './fleet-runtime.ts';
import type { ApiKey, FleetSeat } from './fleet-runtime.ts';
import type { Logger } from '../../src/telemetry/index.ts';

export const BASIC_WRITE_PER_SEC = TIER_BUDGETS.basic.write.refillPerSecond;
/** How long start-up may take before every runtime holds a lease. */
const LEASED_BOUND_MS = 10_000;

export interface BudgetPhase {
  /** After every lease is held, before the window: demand-weighted shares converge. */
  settleMs: number;
  windowMs: number;
}

export interface VenueCounts {
  readTokens: number;
  readRefused: number;
  writeTokens: number;
  writeRefused: number;
  atMs: number;
}

export interface BudgetResult {
  /** Write tokens admitted in the window / (write rate x window seconds). */
  share: number;
  windowSeconds: number;
  writeTokens: number;
  /** Refusals (429 answers) for the key from the first start to the window's end. */
  refused: { reads: number; writes: number };
  /** Orders each runtime sent in the window; RATE_LIMITED denies in all; share held at the end (ppm, -1 without a fleet). */
  perRuntime: Array<{ ordersSent: number; rateLimited: number; sharePpm: number }>;
  /** Ms from the first start() until every runtime held a lease (-1 without a fleet). */
  leasedAfterMs: number;
}

const pause = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

export async function venueCounts(sim: BenchChild, keyId: string): Promise<VenueCounts> {
  return (await sim.command({ cmd: 'stats', keyId })) as unknown as VenueCounts;
}

/** Three flooding runtimes, subaccounts 1..3; `seatOf` null: no fleet. `loggers[i]` null: quiet. */
export function floodFleet(sim: BenchChild, key: ApiKey, work: string, tag: string, seatOf: ((index: number) => FleetSeat) | null, params: Record<string, unknown>, loggers: ReadonlyArray<Logger | null>): Runtime[] {
  return [0, 1, 2].map((index) => floodRuntime(sim, key, {
    seat: seatOf === null ? null : seatOf(index),
    subaccount: index + 1,
    tag: `${tag}${index + 1}`,
    params,
    journalPath: journalIn(work, `${tag}${index + 1}`),
    logger: loggers[index] ?? null,
  }));
}

/** Starts the runtimes together and waits (bounded) for every lease; ms until then, -1 without a fleet. */
export async function startFleet(runtimes: readonly Runtime[]): Promise<number> {
  const startedMs = performance.now();
  await Promise.all(runtimes.map((runtime) => runtime.start()));
  if (runtimes.some((runtime) => runtime.fleet === null)) return -1;
  const deadline = startedMs + LEASED_BOUND_MS;
  while (!runtimes.every((runtime) => runtime.fleet!.leased)) {
    if (performance.now() > deadline) throw new Error(`bench fleet: not every runtime held a lease ${LEASED_BOUND_MS} ms after start`);
    await pause(20);
  }
  return performance.now() - startedMs;
}

export async function measureBudget(sim: BenchChild, key: ApiKey, runtimes: readonly Runtime[], phase: BudgetPhase, leasedAfterMs: number): Promise<BudgetResult> {
  await pause(phase.settleMs);
  const sentBefore = runtimes.map((runtime) => runtime.status().ordersSent);
  const before = await venueCounts(sim, key.keyId);
  await pause(phase.windowMs);
  const after = await venueCounts(sim, key.keyId);
  const windowSeconds = (after.atMs - before.atMs) / 1000;
  const writeTokens = after.writeTokens - before.writeTokens;
  return {
    share: writeTokens / (BASIC_WRITE_PER_SEC * windowSeconds),
    windowSeconds,
    writeTokens,
    refused: { reads: after.readRefused, writes: after.writeRefused },
    perRuntime: runtimes.map((runtime, index) => {
      const status = runtime.status();
      return { ordersSent: status.ordersSent - sentBefore[index]!, rateLimited: status.denies.RATE_LIMITED ?? 0, sharePpm: runtime.fleet?.status().sharePpm ?? -1 };
    }),
    leasedAfterMs,
  };
}

/** Stops every runtime (each bounded by its own drain timeout); never throws. */
export async function stopAll(runtimes: readonly Runtime[]): Promise<void> {
  await Promise.all(runtimes.map((runtime) => runtime.stop('bench done').catch(() => undefined)));
}
