/**
 * The sweep's piscina task: one combination of a parameter sweep, run on the recording every
 * worker shares. The pool's workerData carries the shared recording and mid series
 * (SharedArrayBuffers: each worker wraps them in views once and caches them, never a copy per
 * run) and the base configuration; a task carries only the combination. `runSweepTask` is the same
 * work as a plain function (tests, the main thread). The `test.crash` parameter ("throw" or
 * "exit", on attempts below `test.crashAttempts`, default 1) makes a run fail on purpose, so the
 * pool's retry is tested with a real crash. Loaded through sweep-task-loader.mjs, never directly.
 */

import { workerData } from 'piscina';
import type { Recording } from '../../record/index.ts';
import { validateConfig } from '../../runtime/config.ts';
import type { DeepReadonly, RuntimeConfig } from '../../runtime/config.ts';
import { applyCombination } from '../../replay/sweep/grid.ts';
import type { Combination } from '../../replay/sweep/grid.ts';
import { MidSeries } from '../../replay/sweep/mid-series.ts';
import type { SharedMidSeries } from '../../replay/sweep/mid-series.ts';
import { replaySettingsOf, runCombination } from '../../replay/sweep/run-combination.ts';
import type { CombinationResult, ReplaySettings } from '../../replay/sweep/run-combination.ts';
import { recordingOfShared, replayPrepOfShared } from '../../replay/sweep/shared-recording.ts';
import type { ReplayPrep } from '../../replay/replay-prep.ts';
import type { SharedRecording } from '../../replay/sweep/shared-recording.ts';

/** What every worker gets once (piscina's workerData). */
export interface SweepShared {
  recording: SharedRecording;
  mids: SharedMidSeries;
  /** The base configuration as parsed JSON (each combination is applied to a copy, then validated). */
  configValue: unknown;
  configFile: string;
  rootDir: string;
  /** The replay settings the combinations start from (the CLI's flags over the defaults). */
  baseSettings: ReplaySettings;
}

export interface SweepTaskInput {
  index: number;
  combination: Combination;
  /** 0 on the first try; the pool counts retries. */
  attempt: number;
  /**
   * The combination's configuration already validated by the pool on the main thread, without
   * credentials (a replay reads none): no worker compiles the schema's validator, which is most of
   * what a worker would hold beyond its code. Absent: the task validates it itself.
   */
  config?: DeepReadonly<RuntimeConfig>;
}

export interface SweepTaskOutput extends CombinationResult {
  index: number;
}

interface Views {
  shared: SweepShared;
  recording: Recording;
  mids: MidSeries;
  /** The recording's per-run passes, done once per worker over the shared class codes. */
  prep: ReplayPrep;
}

let cached: Views | null = null;

function viewsOf(shared: SweepShared): Views {
  if (cached === null || cached.shared.recording.buffer !== shared.recording.buffer) {
    const recording = recordingOfShared(shared.recording);
    cached = { shared, recording, mids: new MidSeries(shared.mids), prep: replayPrepOfShared(shared.recording, recording) };
  }
  return cached;
}

export async function runSweepTask(shared: SweepShared, input: SweepTaskInput): Promise<SweepTaskOutput> {
  const views = viewsOf(shared);
  const applied = applyCombination(shared.configValue, input.combination);
  const crash = applied.test.crash;
  const crashAttempts = typeof applied.test.crashAttempts === 'number' ? applied.test.crashAttempts : 1;
  if (crash !== undefined && crash !== null && input.attempt < crashAttempts) {
    if (crash === 'exit') process.exit(71); // in a worker thread: ends this worker only
    throw new Error(`test.crash: combination ${input.index} failed on purpose (attempt ${input.attempt})`);
  }
  const config = input.config ?? validateConfig(applied.configValue, shared.configFile, {});
  const settings = replaySettingsOf(applied.replay, shared.baseSettings);
  const result = await runCombination({ recording: views.recording, mids: views.mids, config, settings, rootDir: shared.rootDir, prep: views.prep });
  return { index: input.index, ...result };
}

/** piscina entry. */
export default function sweepTask(input: SweepTaskInput): Promise<SweepTaskOutput> {
  return runSweepTask(workerData as SweepShared, input);
}
