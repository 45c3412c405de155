/**
 * One combination's run: a Replay of the (shared) recording under one configuration and one set
 * of replay settings, with a RunObserver on its fills; the replay's report and the run summary
 * (markouts, curves) out. The same function runs in a sweep's workers and behind
 * `npm run replay --html`, so a sweep row is exactly what a single replay of its parameters gives.
 * Settings are always passed explicitly (the defaults below are the CLI's), so the report states
 * the model that ran. Owns the settings' names and defaults; the replay is replay.ts's.
 */

import type { Recording } from '../../record/index.ts';
import type { DeepReadonly, RuntimeConfig } from '../../runtime/config.ts';
import { Replay } from '../replay.ts';
import type { ReplayOptions } from '../replay.ts';
import type { ReplayReport } from '../report.ts';
import type { ReplayPrep } from '../replay-prep.ts';
import type { ParamValue } from './grid.ts';
import { SweepUsageError } from './grid.ts';
import type { MidSeries } from './mid-series.ts';
import { RunObserver, summarizeRun } from './run-observer.ts';
import type { RunSummary } from './run-observer.ts';

/** The latency and queue model a run used, as passed to Replay. */
export interface ReplaySettings {
  orderLatencyUs: number;
  answerLatencyUs: number;
  feedLatencyUs: number;
  queueModel: 'risk_averse' | 'optimistic';
  /** The one-run report's: trades where the live run rested filled us as they filled it (a sweep never sets it). */
  queueFromLiveFills?: boolean;
  seed: number;
  tickMs?: number;
  cashCenticents?: number;
  framesMax?: number;
}

/** The CLI's defaults (src/replay/main.ts). */
export const REPLAY_DEFAULTS: ReplaySettings = { orderLatencyUs: 500, answerLatencyUs: 500, feedLatencyUs: 1_000, queueModel: 'risk_averse', seed: 1 };

const INTEGER_SETTINGS = ['orderLatencyUs', 'answerLatencyUs', 'feedLatencyUs', 'seed', 'tickMs', 'cashCenticents', 'framesMax'] as const;

/** `replay.*` parameters over a base (the defaults, or the CLI's flags); a name or value it does not know is a usage error. */
export function replaySettingsOf(params: Readonly<Record<string, ParamValue>>, base: ReplaySettings = REPLAY_DEFAULTS): ReplaySettings {
  const settings: ReplaySettings = { ...base };
  for (const [name, value] of Object.entries(params)) {
    if (name === 'queueModel') {
      if (value !== 'risk_averse' && value !== 'optimistic') throw new SweepUsageError('replay.queueModel is risk_averse or optimistic');
      settings.queueModel = value;
    } else if ((INTEGER_SETTINGS as readonly string[]).includes(name)) {
      if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 0) throw new SweepUsageError(`replay.${name} needs a non-negative integer`);
      settings[name as (typeof INTEGER_SETTINGS)[number]] = value;
    } else {
      throw new SweepUsageError(`unknown parameter replay.${name} (known: queueModel, ${INTEGER_SETTINGS.join(', ')})`);
    }
  }
  return settings;
}

export interface CombinationInput {
  recording: Recording;
  mids: MidSeries;
  config: DeepReadonly<RuntimeConfig>;
  settings: ReplaySettings;
  rootDir: string;
  /** The recording's prepared passes, shared by the runs of one worker (absent: the Replay's own). */
  prep?: ReplayPrep;
}

export interface CombinationResult {
  report: ReplayReport;
  summary: RunSummary;
  settings: ReplaySettings;
}

export async function runCombination(input: CombinationInput): Promise<CombinationResult> {
  const options: ReplayOptions = { recording: input.recording, config: input.config, rootDir: input.rootDir, prep: input.prep, ...input.settings };
  const replay = new Replay(options);
  const observer = new RunObserver(replay);
  try {
    await replay.start();
    const report = await replay.run();
    return { report, summary: summarizeRun(input.recording, input.mids, observer.fills), settings: input.settings };
  } finally {
    await replay.close();
  }
}
