/**
 * A sweep worker on any machine: a BullMQ Worker on the sweep queue that runs each job's
 * combination on a local piscina pool with the very task the local sweep runs
 * (workers/sweep/sweep-task.ts), so a row is the same wherever it ran. A recording is found by
 * path (or by name under --data-dir), checked against the job's sha256, and decoded once per
 * machine into shared memory (shared-recording.ts) with its mid series; one pool per sweep
 * context (recording, base configuration, base settings) gets it in workerData (the task pre-built to
 * JavaScript, worker-bundle.ts, so a thread does not load tsx), and the worker's
 * concurrent jobs share it. The replays run off the main thread, so BullMQ's lock renewal never
 * waits on a replay; a worker process that dies mid-job stops renewing, and another worker's
 * stalled-job check puts the job back on the queue. Owns the worker, the recording cache and the
 * pools; never decides a retry or a result.
 */

import { createHash } from 'node:crypto';
import path from 'node:path';
import { Worker } from 'bullmq';
import type { Job } from 'bullmq';
import { Piscina } from 'piscina';
import { readRecordingFile } from '../../record/index.ts';
import type { SweepShared, SweepTaskInput, SweepTaskOutput } from '../../workers/sweep/sweep-task.ts';
import { buildMidSeries } from './mid-series.ts';
import type { SharedMidSeries } from './mid-series.ts';
import { SWEEP_QUEUE_NAME, openQueueRedis, sha256OfFile } from './queue-jobs.ts';
import type { QueueRecording, SweepJobData } from './queue-jobs.ts';
import { shareRecording } from './shared-recording.ts';
import type { SharedRecording } from './shared-recording.ts';
import type { CombinationResult } from './run-combination.ts';
import { prepareWorkerTask } from './worker-bundle.ts';
import type { WorkerTask } from './worker-bundle.ts';

export interface SweepWorkerOptions {
  url: string;
  /** Jobs run at once on this machine, and the pool's threads. */
  concurrency: number;
  /** Where recordings are looked up by file name; null: at the producer's path. */
  dataDir: string | null;
  rootDir: string;
  /** BullMQ lock of a running job, ms; a dead worker's job is back on the queue within about this plus stalledIntervalMs. */
  lockDurationMs: number;
  stalledIntervalMs: number;
  /** Times a job may lose its worker before it fails (each stall is a dead worker). */
  maxStalledCount: number;
  /** Told of each job as it starts and ends (the CLI's log lines; a test waits on them). */
  onJob?: (event: 'start' | 'done' | 'fail', job: Job<SweepJobData>, detail: string) => void;
}

export interface SweepWorker {
  close(): Promise<void>;
}

interface Decoded {
  recording: SharedRecording;
  mids: SharedMidSeries;
}

/** Pools kept for other sweep contexts while idle: a worker serving two sweeps at once keeps both warm. */
const POOLS_IDLE_MAX = 2;

export class RecordingMismatchError extends Error {}

export function startSweepWorker(options: SweepWorkerOptions): SweepWorker {
  const decoded = new Map<string, Promise<Decoded>>();
  const pools = new Map<string, PoolEntry>();
  const fileHashes = new Map<string, Promise<string>>();

  const fileOf = (recording: QueueRecording): string => (options.dataDir === null ? recording.path : path.join(options.dataDir, recording.name));

  const decode = async (recording: QueueRecording): Promise<Decoded> => {
    const file = fileOf(recording);
    // Hashed once per file per process: a recording is large and does not change under a sweep.
    let hashing = fileHashes.get(file);
    if (hashing === undefined) {
      hashing = sha256OfFile(file);
      fileHashes.set(file, hashing);
      hashing.catch(() => fileHashes.delete(file));
    }
    const sha256 = await hashing;
    if (sha256 !== recording.sha256) throw new RecordingMismatchError(`recording ${file}: sha256 ${sha256}, the sweep's is ${recording.sha256}`);
    let entry = decoded.get(sha256);
    if (entry === undefined) {
      entry = (async () => {
        const read = readRecordingFile(file);
        return { recording: shareRecording(read), mids: await buildMidSeries(read) };
      })();
      decoded.set(sha256, entry);
      entry.catch(() => decoded.delete(sha256));
    }
    return entry;
  };

  const poolOf = async (data: SweepJobData): Promise<PoolEntry> => {
    // A sweep that sets plugin paths gets a build with those plugins: its own pool.
    const pluginParams = Object.keys(data.combination).filter((name) => name.endsWith('.plugin')).map((name) => [name, data.combination[name]]);
    const key = createHash('sha256').update(JSON.stringify([data.recording.sha256, data.configValue, data.configFile, data.baseSettings, pluginParams])).digest('hex');
    const found = pools.get(key);
    if (found !== undefined) return found;
    const { recording, mids } = await decode(data.recording);
    const again = pools.get(key); // another job of this context may have made it meanwhile
    if (again !== undefined) return again;
    const shared: SweepShared = { recording, mids, configValue: data.configValue, configFile: data.configFile, rootDir: options.rootDir, baseSettings: data.baseSettings };
    // The task pre-built to JavaScript (worker-bundle.ts): each worker thread costs about half as much.
    const task = await prepareWorkerTask(shared, [data.combination]);
    const built = pools.get(key); // made by another job of this context while this one was building
    if (built !== undefined) return built;
    const pool = new Piscina<SweepTaskInput, SweepTaskOutput>({ filename: task.filename, workerData: task.shared, execArgv: task.execArgv, minThreads: options.concurrency, maxThreads: options.concurrency, idleTimeout: 60_000 });
    pool.on('error', () => {}); // a thread that dies rejects its own task; the job fails and BullMQ retries it
    const entry: PoolEntry = { pool, running: 0, task };
    pools.set(key, entry);
    evictIdlePools(pools, entry);
    return entry;
  };

  const processJob = async (job: Job<SweepJobData>): Promise<CombinationResult> => {
    options.onJob?.('start', job, `combination ${job.data.index}`);
    const entry = await poolOf(job.data);
    entry.running++;
    try {
      // attemptsMade counts failed attempts: test.crash fails the first ones, as in the local pool.
      const output = await entry.pool.run({ index: job.data.index, combination: entry.task.combinationFor(job.data.combination), attempt: job.attemptsMade });
      options.onJob?.('done', job, `combination ${job.data.index}`);
      return { report: output.report, summary: output.summary, settings: output.settings };
    } catch (error) {
      options.onJob?.('fail', job, error instanceof Error ? error.message : String(error));
      throw error;
    } finally {
      entry.running--;
    }
  };

  const connection = openQueueRedis(options.url);
  const worker = new Worker<SweepJobData, CombinationResult>(SWEEP_QUEUE_NAME, processJob, {
    connection,
    concurrency: options.concurrency,
    lockDuration: options.lockDurationMs,
    stalledInterval: options.stalledIntervalMs,
    maxStalledCount: options.maxStalledCount,
    autorun: true,
  });
  worker.on('error', () => {}); // connection errors: ioredis reconnects, BullMQ resumes

  return {
    async close() {
      await worker.close();
      connection.disconnect();
      await Promise.all([...pools.values()].map((entry) => entry.pool.destroy()));
      pools.clear();
      decoded.clear();
    },
  };
}

/** Destroys idle pools of other contexts beyond POOLS_IDLE_MAX, oldest first (Map order is insertion order). */
interface PoolEntry {
  pool: Piscina<SweepTaskInput, SweepTaskOutput>;
  running: number;
  /** What the pool's workers load, and how a job's combination is handed to them. */
  task: WorkerTask;
}

function evictIdlePools(pools: Map<string, PoolEntry>, keep: object): void {
  let idle = [...pools.entries()].filter(([, entry]) => entry !== keep && entry.running === 0);
  while (idle.length > POOLS_IDLE_MAX) {
    const [key, entry] = idle[0];
    pools.delete(key);
    void entry.pool.destroy();
    idle = idle.slice(1);
  }
}
