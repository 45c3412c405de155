/**
 * Runs a sweep's combinations on a piscina pool (one worker per core by default). The recording
 * and mid series go to every worker once, as SharedArrayBuffers in workerData; a task is only the
 * combination. A combination whose worker crashed (the task threw, or the worker exited: piscina
 * replaces it) is retried up to `retries` times and its outcome says how many attempts it took
 * and why each failed; one that fails every attempt is reported as failed, and the sweep goes on.
 * Results come back in combination order, whatever order the workers finish in, so a sweep's
 * results do not depend on the worker count. The workers load the task pre-built to JavaScript
 * (worker-bundle.ts), or through tsx when it cannot be built. Owns the pool's life and the retries.
 */

import os from 'node:os';
import { Piscina } from 'piscina';
import { applyCombination } from './grid.ts';
import type { Combination } from './grid.ts';
import { validateConfig } from '../../runtime/config.ts';
import type { DeepReadonly, RuntimeConfig } from '../../runtime/config.ts';
import type { CombinationResult } from './run-combination.ts';
import type { SweepShared, SweepTaskInput, SweepTaskOutput } from '../../workers/sweep/sweep-task.ts';
import { prepareWorkerTask } from './worker-bundle.ts';

/**
 * Node flags the sweep's processes start with (package.json's `sweep` and `sweep-worker`; the
 * sweep bench's children). A pool fills every core with workers, so V8's helper threads (parallel
 * and concurrent GC, concurrent compilation) have no core of their own: measured on 2 cores, a
 * worker spent 13 of each 66 ms run off the CPU, waiting for helpers it shared a core with;
 * single-threaded, each worker does that work on its own thread, and its runs are on the CPU
 * (60.2 ms of wall time on 58.4 of CPU; README, sweep). V8 flags are process-wide and cannot be
 * set once V8 runs (it aborts).
 */
export const SWEEP_NODE_FLAGS: readonly string[] = ['--single-threaded'];

/**
 * Each worker thread's young generation, MB. V8 grows a thread's young generation to tens of MB
 * under a replay's allocation rate, and each worker has its own: with the schema validator moved
 * to the main thread, that was most of what an extra worker added beyond its code (bench/sweep's
 * memory rows, against the 10%-of-the-recording budget). What the smaller one costs in collections
 * shows in the same suite's replays-per-second rows.
 */
export const WORKER_YOUNG_GENERATION_MB = 2;

export interface SweepPoolOptions {
  shared: SweepShared;
  /** Worker threads (default: the machine's cores). */
  workers?: number;
  /** Retries of a combination whose run crashed (default 2: three attempts in all). */
  retries?: number;
  /** Called after each combination settles (done counts successes and final failures). */
  onProgress?: (done: number, total: number, failed: number) => void;
  /** Task module (default: the pre-built task, worker-bundle.ts; sweep-task-loader.mjs when that cannot be built). */
  filename?: string;
  /** Told once which task module the workers load and, for the tsx loader, why. */
  onWorkerTask?: (task: { filename: string; bundled: boolean; reason: string }) => void;
  /** Each worker's young generation, MB (default WORKER_YOUNG_GENERATION_MB); null: V8's own sizing (the bench's baseline). */
  youngGenerationMb?: number | null;
}

export interface SweepOutcome {
  index: number;
  combination: Combination;
  status: 'ok' | 'failed';
  attempts: number;
  /** Why each failed attempt failed, in order. */
  errors: string[];
  result: CombinationResult | null;
}

/**
 * A combination's configuration validated here, once, for its worker (SweepTaskInput.config):
 * the schema's compiled validator then lives in this thread only. Credentials are dropped: a
 * replay reads none, and they need not be copied to every worker.
 */
function validatedConfig(shared: SweepShared, combination: Combination): DeepReadonly<RuntimeConfig> {
  const applied = applyCombination(shared.configValue, combination);
  const config = validateConfig(applied.configValue, shared.configFile, {});
  return { ...config, credentials: { venue: null } };
}

export function defaultWorkerCount(): number {
  return Math.max(1, os.availableParallelism());
}

export async function runSweep(combinations: readonly Combination[], options: SweepPoolOptions): Promise<SweepOutcome[]> {
  const workers = options.workers ?? defaultWorkerCount();
  const retries = options.retries ?? 2;
  // The pre-built task (worker-bundle.ts): a worker that loads plain JavaScript costs about half the
  // memory of one that registers tsx. An explicit `filename` gets the caller's workerData as given.
  const task = options.filename === undefined ? await prepareWorkerTask(options.shared, combinations) : null;
  options.onWorkerTask?.(task ?? { filename: options.filename!, bundled: false, reason: 'filename given' });
  const pool = new Piscina<SweepTaskInput, SweepTaskOutput>({
    filename: task?.filename ?? options.filename,
    workerData: task?.shared ?? options.shared,
    execArgv: task?.execArgv,
    ...(options.youngGenerationMb === null ? {} : { resourceLimits: { maxYoungGenerationSizeMb: options.youngGenerationMb ?? WORKER_YOUNG_GENERATION_MB } }),
    minThreads: workers,
    maxThreads: workers,
    idleTimeout: 60_000,
  });
  // A worker error with no task running: the tasks it had reject on their own; nothing to throw here.
  pool.on('error', () => {});
  let done = 0;
  let failed = 0;
  const shared = task?.shared ?? options.shared;
  const runOne = async (index: number): Promise<SweepOutcome> => {
    const combination = combinations[index];
    const taskCombination = task === null ? combination : task.combinationFor(combination);
    const errors: string[] = [];
    let config: DeepReadonly<RuntimeConfig>;
    try {
      config = validatedConfig(shared, taskCombination);
    } catch (error) {
      // The same answer on every attempt: reported once, not retried.
      errors.push(error instanceof Error ? error.message : String(error));
      done++;
      failed++;
      options.onProgress?.(done, combinations.length, failed);
      return { index, combination, status: 'failed', attempts: 1, errors, result: null };
    }
    for (let attempt = 0; attempt <= retries; attempt++) {
      try {
        const output = await pool.run({ index, combination: taskCombination, attempt, config });
        done++;
        options.onProgress?.(done, combinations.length, failed);
        return { index, combination, status: 'ok', attempts: attempt + 1, errors, result: { report: output.report, summary: output.summary, settings: output.settings } };
      } catch (error) {
        errors.push(error instanceof Error ? error.message : String(error));
      }
    }
    done++;
    failed++;
    options.onProgress?.(done, combinations.length, failed);
    return { index, combination, status: 'failed', attempts: retries + 1, errors, result: null };
  };
  try {
    return await Promise.all(combinations.map((_, index) => runOne(index)));
  } finally {
    await pool.destroy();
  }
}
