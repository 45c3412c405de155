/**
 * Goal: a sweep on a BullMQ queue gives the same rows (order hash and PnL per combination) as the
 * local sweep of the same grid, though its combinations ran in two other processes and one of them
 * was killed (SIGKILL) mid-job: that job is retried through BullMQ's stalled-job check, reported
 * with its extra attempt, and every combination comes back once; a combination whose run throws
 * is retried, and one that fails every attempt is reported failed; the jobs are gone afterwards.
 * Method: a real redis-server on a free port of 127.0.0.1 (test/fleet/redis-server.ts); workers
 * are child processes running src/replay/sweep-worker-main.ts with a short lock; the producer is
 * runQueueSweep in this process; the reference is runSweep (the local piscina pool). The shipped
 * recording and config, 40 combinations, each cut at replay.framesMax frames.
 */

import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Queue, QueueEvents } from 'bullmq';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readRecordingFile } from '../../src/record/index.ts';
import { expandGrid, parseGridSpec } from '../../src/replay/sweep/grid.ts';
import type { Combination } from '../../src/replay/sweep/grid.ts';
import { buildMidSeries } from '../../src/replay/sweep/mid-series.ts';
import { SWEEP_QUEUE_NAME, openQueueRedis, sha256OfFile } from '../../src/replay/sweep/queue-jobs.ts';
import type { QueueRecording } from '../../src/replay/sweep/queue-jobs.ts';
import { runQueueSweep } from '../../src/replay/sweep/queue-producer.ts';
import { REPLAY_DEFAULTS } from '../../src/replay/sweep/run-combination.ts';
import { shareRecording } from '../../src/replay/sweep/shared-recording.ts';
import { SWEEP_NODE_FLAGS, runSweep } from '../../src/replay/sweep/sweep-pool.ts';
import { startTestRedis } from '../fleet/redis-server.ts';
import type { TestRedis } from '../fleet/redis-server.ts';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const FIXTURE = path.join(ROOT, 'test', 'fixtures', 'recordings', 'sim-market-maker.prrc');
const CONFIG_PATH = path.join(ROOT, 'test', 'fixtures', 'recordings', 'replay-config.json');
const WORKER_MAIN = path.join(ROOT, 'src', 'replay', 'sweep-worker-main.ts');
const configValue = JSON.parse(readFileSync(CONFIG_PATH, 'utf8')) as unknown;

// 4 x 2 x 5 = 40 combinations, each the first 400 frames of the recording.
const GRID = parseGridSpec({
  params: {
    'strategies.0.params.halfSpreadTicks': [1, 2, 3, 4],
    'strategies.0.params.requoteTicks': [1, 2],
    'replay.orderLatencyUs': [100, 500, 1_000, 2_000, 5_000],
    'replay.framesMax': [400],
  },
});

interface WorkerProcess {
  child: ChildProcess;
  /** Lines of stdout so far. */
  lines: string[];
  /** Resolves when a line matching `pattern` has been seen `count` times. */
  waitFor(pattern: RegExp, count: number, timeoutMs: number): Promise<void>;
  exited: Promise<number | null>;
}

function startWorker(url: string): WorkerProcess {
  const child = spawn(process.execPath, [...SWEEP_NODE_FLAGS, '--import', 'tsx', WORKER_MAIN, '--queue', url, '--concurrency', '1', '--lock-ms', '1000'], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
  const lines: string[] = [];
  const waiters: (() => void)[] = [];
  let partial = '';
  child.stdout!.on('data', (chunk: Buffer) => {
    const parts = (partial + chunk.toString()).split('\n');
    partial = parts.pop()!;
    lines.push(...parts);
    for (const wake of waiters.splice(0)) wake();
  });
  child.stderr!.on('data', (chunk: Buffer) => process.stderr.write(`[sweep-worker ${child.pid}] ${chunk.toString()}`));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const waitFor = async (pattern: RegExp, count: number, timeoutMs: number): Promise<void> => {
    const deadlineMs = Date.now() + timeoutMs;
    while (lines.filter((line) => pattern.test(line)).length < count) {
      if (Date.now() > deadlineMs) throw new Error(`worker ${child.pid}: ${count} x ${pattern} not seen in ${timeoutMs} ms; stdout: ${lines.slice(-5).join(' / ')}`);
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, 200);
        waiters.push(() => { clearTimeout(timer); resolve(); });
      });
    }
  };
  return { child, lines, waitFor, exited };
}

async function stopWorker(worker: WorkerProcess): Promise<void> {
  if (worker.child.exitCode !== null || worker.child.signalCode !== null) return;
  worker.child.kill('SIGTERM');
  const timer = setTimeout(() => worker.child.kill('SIGKILL'), 10_000);
  await worker.exited;
  clearTimeout(timer);
}

async function recordingOf(): Promise<QueueRecording> {
  return { path: FIXTURE, name: path.basename(FIXTURE), sha256: await sha256OfFile(FIXTURE), sizeBytes: readFileSync(FIXTURE).length };
}

let redis: TestRedis;
const workers: WorkerProcess[] = [];

beforeAll(async () => {
  redis = await startTestRedis();
});

afterAll(async () => {
  await Promise.all(workers.map(stopWorker));
  await redis?.stop();
});

async function localRows(combinations: readonly Combination[]): Promise<{ orderSha256: string | undefined; pnlMicro: number | undefined }[]> {
  const recording = readRecordingFile(FIXTURE);
  const shared = { recording: shareRecording(recording), mids: await buildMidSeries(recording), configValue, configFile: CONFIG_PATH, rootDir: ROOT, baseSettings: REPLAY_DEFAULTS };
  const outcomes = await runSweep(combinations, { shared, workers: 2 });
  expect(outcomes.every((o) => o.status === 'ok')).toBe(true);
  return outcomes.map((o) => ({ orderSha256: o.result?.report.orders.sha256, pnlMicro: o.result?.report.pnlMicro }));
}

describe('sweep on a BullMQ queue', () => {
  it('40 combinations on two worker processes, one killed mid-job, give the local sweep\'s results', async () => {
    const combinations = expandGrid(GRID);
    expect(combinations).toHaveLength(40);
    const events = new QueueEvents(SWEEP_QUEUE_NAME, { connection: openQueueRedis(redis.url) });
    const stalledJobIds: string[] = [];
    events.on('stalled', ({ jobId }) => stalledJobIds.push(jobId));
    await events.waitUntilReady();
    const victim = startWorker(redis.url);
    const survivor = startWorker(redis.url);
    workers.push(victim, survivor);
    const sweep = runQueueSweep(combinations, { url: redis.url, recording: await recordingOf(), configValue, configFile: CONFIG_PATH, baseSettings: REPLAY_DEFAULTS, retries: 2, pollMs: 500, timeoutMs: 150_000 });
    // The victim's second job: its pool is warm, so the kill lands in a running replay.
    await victim.waitFor(/^sweep-worker: start /, 2, 120_000);
    const killedJobId = victim.lines.filter((line) => line.startsWith('sweep-worker: start '))[1].split(' ')[2];
    victim.child.kill('SIGKILL');
    expect(await victim.exited).toBeNull(); // killed by the signal, not exited
    const outcomes = await sweep;
    await events.close();

    expect(outcomes).toHaveLength(40);
    expect(outcomes.map((o) => o.index)).toEqual(combinations.map((_, index) => index));
    expect(outcomes.every((o) => o.status === 'ok')).toBe(true);
    // The killed job stalled, was taken again by the survivor, and says so.
    expect(stalledJobIds).toContain(killedJobId);
    const retried = outcomes.filter((o) => o.attempts > 1);
    expect(retried.length).toBeGreaterThanOrEqual(1);
    expect(retried[0].errors.some((error) => /stalled/.test(error))).toBe(true);
    expect(survivor.lines.some((line) => line.startsWith(`sweep-worker: done ${killedJobId} `))).toBe(true);

    const local = await localRows(combinations);
    expect(outcomes.map((o) => ({ orderSha256: o.result?.report.orders.sha256, pnlMicro: o.result?.report.pnlMicro }))).toEqual(local);
    expect(new Set(local.map((row) => row.orderSha256)).size).toBeGreaterThan(1); // the parameters reach the runs

    // The producer removed its jobs once read.
    const queue = new Queue(SWEEP_QUEUE_NAME, { connection: openQueueRedis(redis.url) });
    const counts = await queue.getJobCounts('wait', 'active', 'completed', 'failed', 'delayed');
    await queue.close();
    expect(counts).toEqual({ wait: 0, active: 0, completed: 0, failed: 0, delayed: 0 });
  }, 280_000);

  it('retries a combination whose run throws, and reports one that fails every attempt', async () => {
    if (workers.every((w) => w.child.exitCode !== null || w.child.signalCode !== null)) workers.push(startWorker(redis.url));
    const combinations: Combination[] = [
      { 'test.crash': 'throw', 'replay.framesMax': 200 },
      { 'test.crash': 'throw', 'test.crashAttempts': 99, 'replay.framesMax': 200 },
      { 'test.crash': null, 'replay.framesMax': 200 },
    ];
    const outcomes = await runQueueSweep(combinations, { url: redis.url, recording: await recordingOf(), configValue, configFile: CONFIG_PATH, baseSettings: REPLAY_DEFAULTS, retries: 2, pollMs: 500, timeoutMs: 120_000 });
    expect(outcomes.map((o) => [o.status, o.attempts])).toEqual([['ok', 2], ['failed', 3], ['ok', 1]]);
    expect(outcomes[0].errors[0]).toMatch(/failed on purpose/);
    expect(outcomes[1].errors).toHaveLength(3);
    expect(outcomes[1].result).toBeNull();
    expect(outcomes[0].result!.report.orders.sha256).toBe(outcomes[2].result!.report.orders.sha256);
  }, 150_000);
});
