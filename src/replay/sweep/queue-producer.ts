/**
 * The producer side of a sweep on a BullMQ queue: one job per combination (job id from
 * queue-jobs.ts, so adding the same sweep again, e.g. after this process restarts, finds the jobs
 * already there instead of duplicating them), then waits for every job to settle: QueueEvents tell
 * it promptly, and a poll of the jobs still pending catches what an event missed (events sent
 * before it subscribed, a dropped connection). A job that failed is retried by BullMQ up to
 * `retries` times; a worker that died mid-job is BullMQ's stalled-job check's business. Outcomes
 * come back in combination order, as the local pool's do, and the jobs are removed once read.
 * Owns adding, waiting and gathering; never runs a combination.
 */

import { Job, Queue, QueueEvents } from 'bullmq';
import type { Combination } from './grid.ts';
import { SWEEP_QUEUE_NAME, jobIdOf, openQueueRedis, sweepIdOf } from './queue-jobs.ts';
import type { QueueRecording, SweepJobData } from './queue-jobs.ts';
import type { CombinationResult, ReplaySettings } from './run-combination.ts';
import type { SweepOutcome } from './sweep-pool.ts';

export interface QueueSweepOptions {
  url: string;
  recording: QueueRecording;
  configValue: unknown;
  configFile: string;
  baseSettings: ReplaySettings;
  /** Retries of a combination whose run failed (default 2: three attempts). */
  retries?: number;
  /** Poll of the pending jobs, ms (default 2000): the safety net under QueueEvents. */
  pollMs?: number;
  /** Give up waiting after this many ms (default: never; a sweep may wait hours for workers). */
  timeoutMs?: number;
  onProgress?: (done: number, total: number, failed: number) => void;
  /** Told once of the sweep id and how many workers are on the queue. */
  onStart?: (sweepId: string, workers: number) => void;
}

export class QueueSweepTimeoutError extends Error {}

/** Jobs added per round trip. */
const ADD_CHUNK = 500;

export async function runQueueSweep(combinations: readonly Combination[], options: QueueSweepOptions): Promise<SweepOutcome[]> {
  const queueConnection = openQueueRedis(options.url);
  const eventsConnection = openQueueRedis(options.url);
  const queue = new Queue<SweepJobData, CombinationResult>(SWEEP_QUEUE_NAME, { connection: queueConnection });
  const events = new QueueEvents(SWEEP_QUEUE_NAME, { connection: eventsConnection });
  queue.on('error', () => {});
  events.on('error', () => {});
  try {
    await events.waitUntilReady();
    const sweepId = sweepIdOf(options.recording, options.configValue, options.baseSettings, combinations);
    const ids = combinations.map((combination, index) => jobIdOf(sweepId, index, combination));
    await addJobs(queue, sweepId, combinations, ids, options);
    options.onStart?.(sweepId, await queue.getWorkersCount());
    const outcomes = await gather(queue, events, combinations, ids, options);
    // Read: the jobs have done their work; a re-run of the same sweep runs afresh.
    for (const id of ids) await queue.remove(id);
    return outcomes;
  } finally {
    await events.close();
    await queue.close();
    queueConnection.disconnect();
    eventsConnection.disconnect();
  }
}

async function addJobs(queue: Queue<SweepJobData, CombinationResult>, sweepId: string, combinations: readonly Combination[], ids: readonly string[], options: QueueSweepOptions): Promise<void> {
  // A job left failed by an earlier run of this sweep (the producer died before removing it): run it again.
  const ours = new Set(ids);
  for (const job of await queue.getJobs(['failed'])) if (job.id !== undefined && ours.has(job.id)) await job.retry('failed');
  const attempts = (options.retries ?? 2) + 1;
  for (let start = 0; start < combinations.length; start += ADD_CHUNK) {
    const chunk = combinations.slice(start, start + ADD_CHUNK).map((combination, offset) => {
      const index = start + offset;
      const data: SweepJobData = { sweepId, index, combination, recording: options.recording, configValue: options.configValue, configFile: options.configFile, baseSettings: options.baseSettings };
      // Results stay until this producer reads them (removeOnComplete false); no backoff: a failure is a crash, not a busy service.
      return { name: 'combination', data, opts: { jobId: ids[index], attempts, removeOnComplete: false, removeOnFail: false } };
    });
    await queue.addBulk(chunk);
  }
}

async function gather(queue: Queue<SweepJobData, CombinationResult>, events: QueueEvents, combinations: readonly Combination[], ids: readonly string[], options: QueueSweepOptions): Promise<SweepOutcome[]> {
  const outcomes: (SweepOutcome | null)[] = combinations.map(() => null);
  const indexOf = new Map(ids.map((id, index) => [id, index]));
  let done = 0;
  let failed = 0;
  const settle = async (index: number): Promise<void> => {
    if (outcomes[index] !== null) return;
    // The state first, then the job: read the other way round, a job that completed between the two
    // reads came back 'completed' without its return value.
    const state = await queue.getJobState(ids[index]);
    if (state !== 'completed' && state !== 'failed') return;
    const job = await Job.fromId<SweepJobData, CombinationResult>(queue, ids[index]);
    if (job === undefined) return;
    if (outcomes[index] !== null) return; // settled by another call while this one waited
    outcomes[index] = outcomeOf(index, combinations[index], job, state);
    done++;
    if (state === 'failed') failed++;
    options.onProgress?.(done, combinations.length, failed);
  };
  let wake: () => void = () => {};
  let eventsSinceScan = 0;
  const onEvent = ({ jobId }: { jobId: string }): void => {
    const index = indexOf.get(jobId);
    if (index === undefined) return;
    eventsSinceScan++;
    void settle(index).then(() => wake(), () => wake());
  };
  events.on('completed', onEvent);
  events.on('failed', onEvent);
  const pollMs = options.pollMs ?? 2_000;
  const deadlineMs = Date.now() + (options.timeoutMs ?? Number.POSITIVE_INFINITY);
  try {
    for (let scan = 0; done < combinations.length; scan++) {
      // The scan (one read per pending job) is the net under the events: while events keep
      // coming it waits, and it runs once a poll period passes without one (at the first pass,
      // and when the only jobs left are ones whose event was missed).
      if (scan === 0 || eventsSinceScan === 0) {
        for (let index = 0; index < combinations.length; index++) if (outcomes[index] === null) await settle(index);
      }
      eventsSinceScan = 0;
      if (done === combinations.length) break;
      if (Date.now() > deadlineMs) throw new QueueSweepTimeoutError(`sweep queue: ${combinations.length - done} of ${combinations.length} combinations still pending after ${options.timeoutMs} ms`);
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, pollMs);
        wake = () => {
          if (done < combinations.length) return;
          clearTimeout(timer);
          resolve();
        };
      });
    }
  } finally {
    events.off('completed', onEvent);
    events.off('failed', onEvent);
  }
  return outcomes as SweepOutcome[];
}

/** A settled job as the local pool's outcome: attempts counts every start (a stall is an attempt), errors each failure's message. */
function outcomeOf(index: number, combination: Combination, job: Job<SweepJobData, CombinationResult>, state: 'completed' | 'failed'): SweepOutcome {
  const errors = (job.stacktrace ?? []).map((stack) => stack.split('\n')[0]);
  if (state === 'failed' && errors.length === 0) errors.push(job.failedReason);
  const attemptsFinished = state === 'completed' ? errors.length + 1 : errors.length;
  const stalls = Math.max(0, (job.attemptsStarted ?? 0) - attemptsFinished);
  for (let n = 0; n < stalls; n++) errors.push('stalled: its worker stopped renewing the lock (died?)');
  const attempts = attemptsFinished + stalls;
  if (state === 'completed') return { index, combination, status: 'ok', attempts, errors, result: job.returnvalue };
  return { index, combination, status: 'failed', attempts, errors, result: null };
}
