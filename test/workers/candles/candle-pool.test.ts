// Goal: CandlePool runs the real candle task in a real worker thread (a TypeScript task loaded
// through candle-task-loader.mjs, which registers tsx inside the worker: vitest's transform does
// not reach worker threads), moves batches without copying them (the ArrayBuffer is detached on
// the caller's side and handed back), agrees with the same task run on this thread, and survives
// failures: a task that throws is reported (CANDLE_TASK_FAILED) and the next task is served; a
// worker that dies mid-task is reported (CANDLE_WORKER_EXITED), replaced, and the pool keeps
// serving. Method: one single-thread pool per test; every wait is bounded by vitest's timeouts.

import { afterEach, describe, expect, it } from 'vitest';
import {
  CandleBatch,
  CandlePool,
  CandlePoolError,
  CandleTable,
  runCandleTask,
  type CandleRequest,
} from '../../../src/workers/index.ts';

const MINUTE_MS = 60_000;
const START_TS = 1_767_225_600; // 2026-01-01T00:00:00Z

let pools: CandlePool[] = [];
afterEach(async () => {
  for (const pool of pools) await pool.close();
  pools = [];
});

function newPool(options: ConstructorParameters<typeof CandlePool>[0] = {}): CandlePool {
  const pool = new CandlePool({ threads: 1, ...options });
  pools.push(pool);
  return pool;
}

/** 20 trades and tops on two markets over 5 minutes. */
function sampleBatch(shared: boolean): CandleBatch {
  const batch = CandleBatch.create(64, shared);
  for (let i = 0; i < 20; i++) {
    const tsMs = START_TS * 1000 + i * 15_000 + 1;
    batch.appendTop(i % 2, tsMs, 4000 + i * 10, 6000 - i * 10);
    batch.appendTrade(i % 2, tsMs, 5000 + i * 25, 100 * (i + 1), 1000 + i);
  }
  return batch;
}

function request(batch: CandleBatch): CandleRequest {
  return { batch, marketCount: 2, intervalMinutes: 1, startTs: START_TS, endTs: START_TS + 600, asOfMs: START_TS * 1000 + 5 * MINUTE_MS };
}

describe('CandlePool', () => {
  it('runs the task in a worker, moving the batch buffer out and back', async () => {
    const pool = newPool();
    const expected = runCandleTask({ ...request(sampleBatch(false)), batch: sampleBatch(false).buffer, batchLength: 40, seeds: null });
    const batch = sampleBatch(false);
    const promise = pool.submit(request(batch));
    expect(promise).not.toBeNull();
    expect(batch.buffer.byteLength).toBe(0); // moved, not copied
    expect(pool.inFlight).toBe(1);
    const result = await promise!;
    expect(result.table.length).toBe(expected.rows);
    expect(result.table.candles()).toEqual(new CandleTable(expected.candles, expected.rows).candles());
    expect(result.batch.capacity).toBe(64); // the same buffer, handed back for refilling
    expect(result.batch.length).toBe(0);
    expect(Array.from(result.seeds)).toEqual(Array.from(expected.seeds));
    expect(pool.completed).toBe(1);
    expect(pool.inFlight).toBe(0);
    expect(pool.queueDepth).toBe(0);
  });

  it('shares a SharedArrayBuffer batch instead of moving it', async () => {
    const pool = newPool();
    const batch = sampleBatch(true);
    const result = await pool.submit(request(batch))!;
    expect(batch.buffer.byteLength).toBe(64 * 40);
    expect(result.table.length).toBe(10); // 5 one-minute periods x 2 markets
  });

  it('reports queue depth and answers null when the queue is full', async () => {
    const pool = newPool({ maxQueue: 2 });
    const promises: Array<Promise<unknown>> = [];
    for (let i = 0; i < 3; i++) promises.push(pool.submit(request(sampleBatch(false)))!);
    expect(pool.inFlight).toBe(3);
    expect(pool.submit(request(sampleBatch(false)))).toBeNull();
    await Promise.all(promises);
    expect(pool.inFlight).toBe(0);
    expect(pool.queueDepth).toBe(0);
  });

  it('a task that throws is reported and the pool keeps serving', async () => {
    const failures: CandlePoolError[] = [];
    const pool = newPool({ onFailure: (error) => failures.push(error) });
    const bad = CandleBatch.create(4);
    bad.appendTrade(0, 2_000_000, 5000, 100);
    bad.appendTrade(0, 1_000_000, 5000, 100); // out of time order: a broken invariant in the worker
    const error = await pool.submit({ ...request(bad), marketCount: 1 })!.catch((e: unknown) => e);
    expect(error).toBeInstanceOf(CandlePoolError);
    expect((error as CandlePoolError).code).toBe('CANDLE_TASK_FAILED');
    expect((error as CandlePoolError).message).toContain('out of time order');
    expect(failures.map((f) => f.code)).toEqual(['CANDLE_TASK_FAILED']);
    const result = await pool.submit(request(sampleBatch(false)))!;
    expect(result.table.length).toBe(10);
    expect(pool.failed).toBe(1);
    expect(pool.workerExits).toBe(0);
  });

  it('a worker that dies mid-task is reported, replaced, and the pool keeps serving', async () => {
    const failures: CandlePoolError[] = [];
    const pool = newPool({ filename: new URL('./fixtures/exit-task-loader.mjs', import.meta.url).href, onFailure: (error) => failures.push(error) });
    // Warm the worker first so the death happens to a ready worker (piscina replaces those).
    expect((await pool.submit(request(sampleBatch(false)))!).table.length).toBe(10);
    // The fixture ends its worker thread when maxCandidates is negative (exit code = -maxCandidates).
    const error = await pool.submit({ ...request(sampleBatch(false)), maxCandidates: -7 })!.catch((e: unknown) => e);
    expect(error).toBeInstanceOf(CandlePoolError);
    expect((error as CandlePoolError).code).toBe('CANDLE_WORKER_EXITED');
    expect(pool.workerExits).toBe(1);
    expect(failures.map((f) => f.code)).toEqual(['CANDLE_WORKER_EXITED']);
    for (let i = 0; i < 3; i++) {
      const result = await pool.submit(request(sampleBatch(false)))!;
      expect(result.table.length).toBe(10);
    }
    expect(pool.completed).toBe(4);
  });
});
