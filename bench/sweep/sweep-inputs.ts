/**
 * What the sweep bench's cases and child processes sweep: the shipped recording and its config,
 * the replays/s grid, and a recording decoded into shared memory as `npm run sweep` does. One
 * place, so every case and child sweeps the same thing.
 */

import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { readRecordingFile } from '../../src/record/index.ts';
import { expandGrid, parseGridSpec } from '../../src/replay/sweep/grid.ts';
import type { Combination } from '../../src/replay/sweep/grid.ts';
import { buildMidSeries } from '../../src/replay/sweep/mid-series.ts';
import { REPLAY_DEFAULTS } from '../../src/replay/sweep/run-combination.ts';
import { shareRecording } from '../../src/replay/sweep/shared-recording.ts';
import type { SweepShared } from '../../src/workers/sweep/sweep-task.ts';

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
export const FIXTURE = path.join(ROOT, 'test', 'fixtures', 'recordings', 'sim-market-maker.prrc');
export const CONFIG = path.join(ROOT, 'test', 'fixtures', 'recordings', 'replay-config.json');

/** The replays/s cases' combinations: halfSpreadTicks 1..4 x `runs / 4` order latencies. */
export function speedCombinations(runs: number): Combination[] {
  return expandGrid(parseGridSpec({ params: { 'strategies.0.params.halfSpreadTicks': [1, 2, 3, 4], 'replay.orderLatencyUs': Array.from({ length: runs / 4 }, (_, k) => 100 + 200 * k) } }));
}

/** `file` decoded into shared memory with its mid series, swept with CONFIG and the replay defaults. */
export async function sweepShared(file: string): Promise<SweepShared> {
  const recording = readRecordingFile(file);
  return {
    recording: shareRecording(recording), mids: await buildMidSeries(recording), configValue: JSON.parse(readFileSync(CONFIG, 'utf8')) as unknown,
    configFile: CONFIG, rootDir: ROOT, baseSettings: REPLAY_DEFAULTS,
  };
}
