/**
 * CandlePool: a small piscina pool running candle-task.ts. The caller hands a CandleBatch over
 * (its ArrayBuffer is moved, a SharedArrayBuffer shared: no per-trade copy), gets a promise it
 * never awaits on the hot path, and reads the pool's queue depth for its status line.
 *
 * Failures are reported, never swallowed: a task that throws (a broken invariant in the batch)
 * rejects with CandlePoolError CANDLE_TASK_FAILED; a worker that dies mid-task (process.exit,
 * a native crash, out of memory) rejects its tasks with CANDLE_WORKER_EXITED, and piscina starts
 * a replacement, so the pool keeps serving (test/workers/candle-pool.test.ts shows both). Every
 * failure also goes to `onFailure` and the counters. Backpressure is a value: submit returns null
 * when `maxQueue` tasks already wait. This file owns the pool's life and bookkeeping; the work
 * is the task's.
 */

import { Piscina } from 'piscina';
import { CandleBatch } from './candle-batch.ts';
import { CandleTable } from './candle-table.ts';
import type { CandleTaskInput, CandleTaskOutput } from './candle-task.ts';

export type CandlePoolErrorCode = 'CANDLE_TASK_FAILED' | 'CANDLE_WORKER_EXITED' | 'CANDLE_POOL_CLOSED';

export class CandlePoolError extends Error {
  readonly code: CandlePoolErrorCode;
  constructor(code: CandlePoolErrorCode, message: string, cause?: unknown) {
    super(message, cause === undefined ? undefined : { cause });
    this.name = 'CandlePoolError';
    this.code = code;
  }
}

export interface CandlePoolOptions {
  /** Worker threads, kept alive. Default 1. */
  threads?: number;
  /** Tasks allowed to wait for a worker before submit answers null. Default 64. */
  maxQueue?: number;
  /** Task module (tests substitute a wrapper). Default candle-task-loader.mjs beside this file. */
  filename?: string;
  /** Called once per failed task and per worker error outside a task. */
  onFailure?: (error: CandlePoolError) => void;
}

export interface CandleRequest {
  /** Moved to the worker when over an ArrayBuffer (unusable until the result hands it back). */
  batch: CandleBatch;
  marketCount: number;
  intervalMinutes: number;
  startTs: number;
  endTs: number;
  asOfMs: number;
  maxCandidates?: number;
  seeds?: Float64Array | null;
}

export interface CandleResult {
  table: CandleTable;
  adjusted: boolean;
  adjustedEndTs: number;
  seeds: Float64Array;
  /** The batch handed back over the same buffer, emptied, ready to refill. */
  batch: CandleBatch;
}

export const CANDLE_POOL_DEFAULTS = { threads: 1, maxQueue: 64 } as const;

const DEFAULT_TASK = new URL('./candle-task-loader.mjs', import.meta.url).href;

export class CandlePool {
  readonly #piscina: Piscina<CandleTaskInput, CandleTaskOutput>;
  readonly #threads: number;
  readonly #maxQueue: number;
  readonly #onFailure: (error: CandlePoolError) => void;
  #inFlight = 0;
  #completed = 0;
  #failed = 0;
  #workerExits = 0;
  #lastFailure: CandlePoolError | null = null;
  #closed = false;

  constructor(options: CandlePoolOptions = {}) {
    this.#threads = options.threads ?? CANDLE_POOL_DEFAULTS.threads;
    this.#maxQueue = options.maxQueue ?? CANDLE_POOL_DEFAULTS.maxQueue;
    this.#onFailure = options.onFailure ?? ((): void => {});
    this.#piscina = new Piscina({
      filename: options.filename ?? DEFAULT_TASK,
      minThreads: this.#threads,
      maxThreads: this.#threads,
      idleTimeout: 60_000, // minThreads stay anyway; this only bounds a surplus
    });
    // A worker error with no task running (piscina emits it on the pool): report, never throw.
    this.#piscina.on('error', (error: unknown) => this.#report(new CandlePoolError('CANDLE_WORKER_EXITED', `candle worker failed outside a task: ${messageOf(error)}`, error)));
  }

  /** Tasks waiting for a worker (not yet started). */
  get queueDepth(): number {
    return this.#piscina.queueSize;
  }

  /** Tasks submitted and not yet settled (running or waiting). */
  get inFlight(): number {
    return this.#inFlight;
  }

  get completed(): number {
    return this.#completed;
  }

  get failed(): number {
    return this.#failed;
  }

  /** Workers lost mid-task (each replaced by piscina). */
  get workerExits(): number {
    return this.#workerExits;
  }

  get lastFailure(): CandlePoolError | null {
    return this.#lastFailure;
  }

  get threads(): number {
    return this.#threads;
  }

  /**
   * Queues one batch; null when `maxQueue` tasks already wait (the caller keeps the batch and
   * tries later). Never blocks; the promise rejects with a CandlePoolError on failure.
   */
  submit(request: CandleRequest): Promise<CandleResult> | null {
    if (this.#closed) return Promise.reject(new CandlePoolError('CANDLE_POOL_CLOSED', 'candle pool is closed'));
    if (this.#inFlight >= this.#threads + this.#maxQueue) return null;
    const batch = request.batch;
    const input: CandleTaskInput = {
      batch: batch.buffer,
      batchLength: batch.length,
      marketCount: request.marketCount,
      intervalMinutes: request.intervalMinutes,
      startTs: request.startTs,
      endTs: request.endTs,
      asOfMs: request.asOfMs,
      maxCandidates: request.maxCandidates,
      seeds: request.seeds ?? null,
    };
    const transferList = batch.buffer instanceof ArrayBuffer ? [batch.buffer] : [];
    this.#inFlight++;
    return this.#piscina.run(input, { transferList }).then(
      (output) => {
        this.#inFlight--;
        this.#completed++;
        return {
          table: new CandleTable(output.candles, output.rows),
          adjusted: output.adjusted,
          adjustedEndTs: output.adjustedEndTs,
          seeds: output.seeds,
          batch: new CandleBatch(output.batch, 0),
        };
      },
      (error: unknown) => {
        throw this.#onTaskError(error);
      },
    );
  }

  /** Books a failed task (worker exit or task error), reports it and returns the error to throw. */
  #onTaskError(error: unknown): CandlePoolError {
    this.#inFlight--;
    const exited = messageOf(error).startsWith('worker exited');
    if (exited) this.#workerExits++;
    const failure = exited
      ? new CandlePoolError('CANDLE_WORKER_EXITED', `candle worker exited during a task: ${messageOf(error)}`, error)
      : new CandlePoolError('CANDLE_TASK_FAILED', `candle task failed: ${messageOf(error)}`, error);
    this.#report(failure);
    return failure;
  }

  /**
   * Runs another named export of the task module (the loader exports `candleSeries` and
   * `portfolioRisk` beside the default), with the same accounting, failure reports and
   * backpressure as submit: null when `maxQueue` tasks already wait; never blocks.
   */
  run<I, O>(name: string, input: I, transferList: ArrayBuffer[] = []): Promise<O> | null {
    if (this.#closed) return Promise.reject(new CandlePoolError('CANDLE_POOL_CLOSED', 'candle pool is closed'));
    if (this.#inFlight >= this.#threads + this.#maxQueue) return null;
    this.#inFlight++;
    const piscina = this.#piscina as unknown as Piscina<I, O>;
    return piscina.run(input, { name, transferList: transferList as never }).then(
      (output) => {
        this.#inFlight--;
        this.#completed++;
        return output;
      },
      (error: unknown) => {
        throw this.#onTaskError(error);
      },
    );
  }

  /** Stops the workers after the running tasks; queued ones reject. */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    await this.#piscina.destroy();
  }

  #report(error: CandlePoolError): void {
    this.#failed++;
    this.#lastFailure = error;
    this.#onFailure(error);
  }
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
