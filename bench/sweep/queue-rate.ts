/**
 * The sweep suite's queue case (issue "5 of 6"): replays/s of a sweep on a BullMQ queue taken by
 * 1, then 2 `npm run sweep-worker` processes (each one worker thread, started with the sweep's
 * node flags), on a Redis of its own (bench/fleet/redis-child.ts). The producer runs in the bench
 * process (runQueueSweep, as `npm run sweep -- --queue` does); the rate is the steady state: jobs
 * finished after each process finished its first (process start, bundle and recording load left
 * out). Bounded: each sweep has a timeout, each process is stopped (SIGTERM, then SIGKILL).
 */

import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { Combination } from '../../src/replay/sweep/grid.ts';
import { sha256OfFile } from '../../src/replay/sweep/queue-jobs.ts';
import { runQueueSweep } from '../../src/replay/sweep/queue-producer.ts';
import { REPLAY_DEFAULTS } from '../../src/replay/sweep/run-combination.ts';
import { SWEEP_NODE_FLAGS } from '../../src/replay/sweep/sweep-pool.ts';

const READY_TIMEOUT_MS = 60_000;
const SWEEP_TIMEOUT_MS = 300_000;
const STOP_GRACE_MS = 10_000;

export interface QueueTiming {
  rate: number;
  runs: number;
  failed: number;
}

interface WorkerProcess {
  child: ChildProcess;
  exited: Promise<void>;
}

function startWorker(root: string, url: string): Promise<WorkerProcess> {
  const child = spawn(process.execPath, [...SWEEP_NODE_FLAGS, '--import', 'tsx', path.join(root, 'src', 'replay', 'sweep-worker-main.ts'), '--queue', url, '--concurrency', '1'], { cwd: root, stdio: ['ignore', 'pipe', 'inherit'] });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('bench sweep: a sweep-worker did not start in time')), READY_TIMEOUT_MS);
    let seen = '';
    child.stdout!.on('data', (chunk: Buffer) => {
      if (seen.length < 4_096) seen += chunk.toString();
      if (seen.includes('sweep-worker: on ')) {
        clearTimeout(timer);
        resolve({ child, exited });
      }
    });
    child.once('exit', (code) => reject(new Error(`bench sweep: a sweep-worker exited at start (code ${code})`)));
  });
}

async function stopWorker(worker: WorkerProcess): Promise<void> {
  if (worker.child.exitCode === null && worker.child.signalCode === null) worker.child.kill('SIGTERM');
  const timer = setTimeout(() => worker.child.kill('SIGKILL'), STOP_GRACE_MS);
  await worker.exited;
  clearTimeout(timer);
}

/** One queue sweep of `combinations` taken by `processes` sweep-worker processes. */
export async function queueSweepRate(root: string, url: string, processes: number, combinations: readonly Combination[], recordingFile: string, configFile: string): Promise<QueueTiming> {
  const workers: WorkerProcess[] = [];
  try {
    for (let i = 0; i < processes; i++) workers.push(await startWorker(root, url));
    const doneAt: number[] = [];
    const outcomes = await runQueueSweep(combinations, {
      url,
      recording: { path: recordingFile, name: path.basename(recordingFile), sha256: await sha256OfFile(recordingFile), sizeBytes: readFileSync(recordingFile).length },
      configValue: JSON.parse(readFileSync(configFile, 'utf8')) as unknown, configFile, baseSettings: REPLAY_DEFAULTS,
      retries: 0, timeoutMs: SWEEP_TIMEOUT_MS,
      onProgress: () => doneAt.push(performance.now()),
    });
    const first = doneAt[processes - 1];
    const last = doneAt[doneAt.length - 1];
    const runs = doneAt.length - processes;
    return { rate: runs / ((last - first) / 1000), runs, failed: outcomes.filter((outcome) => outcome.status !== 'ok').length };
  } finally {
    await Promise.all(workers.map(stopWorker));
  }
}
