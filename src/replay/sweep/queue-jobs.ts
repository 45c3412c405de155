/**
 * What a sweep puts on its BullMQ queue and what comes back: the queue's name, one job's data (a
 * combination plus everything a worker on another machine needs to run it: the recording named by
 * path and sha256, the base configuration, the base replay settings), the job id (a hash of the
 * sweep id and the combination, so adding a job twice, e.g. after the producer restarts, never
 * runs it twice), and the Redis connections both sides open. Owns the wire format; never runs a
 * combination and never waits on one.
 */

import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { Redis } from 'ioredis';
import type { Combination } from './grid.ts';
import type { ReplaySettings } from './run-combination.ts';

/** One queue for every sweep; a job's sweep id keeps sweeps apart. */
export const SWEEP_QUEUE_NAME = 'replay-sweep';

/** A recording as a worker finds it: `path` (or `name` under the worker's --data-dir), checked against `sha256`. */
export interface QueueRecording {
  /** Absolute path on the producer's machine. */
  path: string;
  /** File name, looked up under a worker's --data-dir. */
  name: string;
  sha256: string;
  sizeBytes: number;
}

export interface SweepJobData {
  sweepId: string;
  index: number;
  combination: Combination;
  recording: QueueRecording;
  /** The base configuration as parsed JSON; the worker applies the combination to a copy. */
  configValue: unknown;
  /** A label for configuration errors (validateConfig reads nothing from it). */
  configFile: string;
  baseSettings: ReplaySettings;
}

/** The sweep id: a hash of what decides the results, so the same sweep re-run finds its own jobs. */
export function sweepIdOf(recording: QueueRecording, configValue: unknown, baseSettings: ReplaySettings, combinations: readonly Combination[]): string {
  const hash = createHash('sha256');
  hash.update(JSON.stringify([recording.sha256, configValue, baseSettings, combinations]));
  return hash.digest('hex').slice(0, 24);
}

/** The job id of one combination: never all digits (BullMQ refuses integer-like custom ids), never a ':'. */
export function jobIdOf(sweepId: string, index: number, combination: Combination): string {
  const hash = createHash('sha256');
  // The index is part of the identity: --random may draw the same combination twice.
  hash.update(JSON.stringify([sweepId, index, combination]));
  return `sweep-${sweepId}-${hash.digest('hex').slice(0, 32)}`;
}

/** sha256 of a file, streamed (a recording can be larger than we want to hold twice). */
export async function sha256OfFile(file: string): Promise<string> {
  const hash = createHash('sha256');
  for await (const chunk of createReadStream(file)) hash.update(chunk as Buffer);
  return hash.digest('hex');
}

/**
 * A BullMQ connection. maxRetriesPerRequest null: BullMQ's blocking commands must wait across
 * reconnects (a Worker refuses any other value); connectTimeout bounds a first connection.
 */
export function openQueueRedis(url: string): Redis {
  const redis = new Redis(url, { maxRetriesPerRequest: null, connectTimeout: 5_000, enableReadyCheck: true });
  // ioredis reconnects on its own; an 'error' without a listener would crash the process.
  redis.on('error', () => {});
  return redis;
}
