/**
 * Goal: a parameter sweep runs each combination exactly as a single replay of the same parameters
 * would (same order hash, same PnL), gives the same results on 1 and 2 workers, retries a
 * combination whose worker crashed (a thrown error, a worker that exits) and reports it, and one
 * that fails every attempt is reported as failed while the others still run. Also: the grid's
 * cartesian product and seeded draws, the shared recording is the file's recording, and the
 * markouts and curves agree with the replay's own report.
 * Method: the shipped recording and config (test/fixtures/recordings); the pool (piscina worker
 * threads over the SharedArrayBuffer recording) against in-process Replay runs; crashes injected
 * with the test-only `test.crash` parameter.
 */

import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { readRecordingFile } from '../../src/record/index.ts';
import { validateConfig } from '../../src/runtime/config.ts';
import { Replay } from '../../src/replay/replay.ts';
import { applyCombination, expandGrid, parseGridSpec } from '../../src/replay/sweep/grid.ts';
import type { Combination } from '../../src/replay/sweep/grid.ts';
import { MidSeries, buildMidSeries } from '../../src/replay/sweep/mid-series.ts';
import { REPLAY_DEFAULTS, runCombination } from '../../src/replay/sweep/run-combination.ts';
import { recordingOfShared, shareRecording } from '../../src/replay/sweep/shared-recording.ts';
import { rowOf } from '../../src/replay/sweep/results.ts';
import { SWEEP_NODE_FLAGS, runSweep } from '../../src/replay/sweep/sweep-pool.ts';
import type { SweepShared } from '../../src/workers/sweep/sweep-task.ts';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const FIXTURE = path.join(ROOT, 'test', 'fixtures', 'recordings', 'sim-market-maker.prrc');
const CONFIG_PATH = path.join(ROOT, 'test', 'fixtures', 'recordings', 'replay-config.json');
const configValue = JSON.parse(readFileSync(CONFIG_PATH, 'utf8')) as unknown;
const recording = readRecordingFile(FIXTURE);

async function sharedOf(): Promise<SweepShared> {
  return { recording: shareRecording(recording), mids: await buildMidSeries(recording), configValue, configFile: CONFIG_PATH, rootDir: ROOT, baseSettings: REPLAY_DEFAULTS };
}

const GRID = parseGridSpec({ params: { 'strategies.0.params.halfSpreadTicks': [1, 2], 'replay.orderLatencyUs': [100, 2_000] } });

describe('sweep grid', () => {
  it('expands params and ranges into their cartesian product, the last parameter fastest', () => {
    const spec = parseGridSpec({ params: { a: [1, 2] }, ranges: { b: { min: 0.5, max: 1.5, step: 0.5 } } });
    expect(expandGrid(spec)).toEqual([{ a: 1, b: 0.5 }, { a: 1, b: 1 }, { a: 1, b: 1.5 }, { a: 2, b: 0.5 }, { a: 2, b: 1 }, { a: 2, b: 1.5 }]);
  });

  it('draws --random combinations from the ranges, the same for the same seed', () => {
    const spec = parseGridSpec({ ranges: { x: { min: 1, max: 5, step: 1 }, y: { min: 0, max: 100, step: 10 } } });
    const first = expandGrid(spec, { count: 20, seed: 7 });
    expect(expandGrid(spec, { count: 20, seed: 7 })).toEqual(first);
    expect(expandGrid(spec, { count: 20, seed: 8 })).not.toEqual(first);
    for (const draw of first) {
      expect([1, 2, 3, 4, 5]).toContain(draw.x);
      expect((draw.y as number) % 10).toBe(0);
    }
  });

  it('refuses malformed grids and sends parameters to their place', () => {
    expect(() => parseGridSpec({ params: { a: [] } })).toThrow(/non-empty/);
    expect(() => parseGridSpec({ ranges: { a: { min: 2, max: 1, step: 1 } } })).toThrow(/min <= max/);
    expect(() => parseGridSpec({ grid: {} })).toThrow(/unknown keys/);
    const applied = applyCombination(configValue, { 'strategies.0.params.halfSpreadTicks': 3, 'replay.queueModel': 'optimistic', 'test.crash': 'throw' });
    expect((applied.configValue as { strategies: { params: { halfSpreadTicks: number } }[] }).strategies[0].params.halfSpreadTicks).toBe(3);
    expect(applied.replay).toEqual({ queueModel: 'optimistic' });
    expect(applied.test).toEqual({ crash: 'throw' });
    expect((configValue as { strategies: { params: object }[] }).strategies[0].params).toEqual({}); // the base is not modified
  });
});

describe('sweep', () => {
  it('npm starts the sweep and the sweep worker with the pool\'s node flags', () => {
    const scripts = (JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> }).scripts;
    for (const name of ['sweep', 'sweep-worker']) {
      expect(scripts[name].startsWith(`node ${SWEEP_NODE_FLAGS.join(' ')} --import tsx `), name).toBe(true);
    }
  });

  it('shares the recording: the views over the SharedArrayBuffer hold the file\'s records', () => {
    const shared = shareRecording(recording);
    const view = recordingOfShared(shared);
    expect(view.bytes.buffer).toBe(shared.buffer);
    expect(view.count).toBe(recording.count);
    expect(view.startMs).toBe(recording.startMs);
    expect(Buffer.compare(view.bytes, recording.bytes)).toBe(0);
    expect(Array.from(view.timesNs)).toEqual(Array.from(recording.timesNs));
    expect(Array.from(view.bodyStarts)).toEqual(Array.from(recording.bodyStarts));
    expect(Array.from(view.kinds)).toEqual(Array.from(recording.kinds));
  });

  it('a combination gives what a single replay of the same parameters gives; 1 and 2 workers give the same rows', async () => {
    const shared = await sharedOf();
    const combinations = expandGrid(GRID);
    const one = await runSweep(combinations, { shared, workers: 1 });
    const two = await runSweep(combinations, { shared, workers: 2 });
    const uncapped = await runSweep(combinations, { shared, workers: 2, youngGenerationMb: null });
    expect(one.every((o) => o.status === 'ok' && o.attempts === 1)).toBe(true);
    expect(two.map(rowOf)).toEqual(one.map(rowOf));
    expect(uncapped.map(rowOf)).toEqual(one.map(rowOf)); // the workers' young-generation cap changes no result
    // Not all the same run: the parameters reach the strategy and the venue.
    expect(new Set(one.map((o) => o.result!.report.orders.sha256)).size).toBeGreaterThan(1);
    for (const outcome of one) {
      const applied = applyCombination(configValue, outcome.combination);
      const replay = new Replay({ recording: readRecordingFile(FIXTURE), config: validateConfig(applied.configValue, CONFIG_PATH, {}), rootDir: ROOT, ...REPLAY_DEFAULTS, orderLatencyUs: applied.replay.orderLatencyUs as number });
      await replay.start();
      const report = await replay.run();
      await replay.close();
      expect(outcome.result!.report.orders.sha256).toBe(report.orders.sha256);
      expect(outcome.result!.report.pnlMicro).toBe(report.pnlMicro);
      expect(outcome.result!.report).toEqual(report);
    }
  }, 240_000);

  it('observes every fill of the run, and its markouts use the recorded mid', async () => {
    const shared = await sharedOf();
    const result = await runCombination({ recording, mids: new MidSeries(shared.mids), config: validateConfig(configValue, CONFIG_PATH, {}), settings: REPLAY_DEFAULTS, rootDir: ROOT });
    const { report, summary } = result;
    expect(report.fills.count).toBeGreaterThan(0);
    expect(summary.fills.length).toBe(report.fills.count);
    expect(summary.fills.reduce((sum, fill) => sum + fill.count, 0)).toBe(report.fills.contracts);
    expect(summary.positionFinal).toBe(report.positions.reduce((sum, p) => sum + p.position, 0));
    // The recording is 6 s long: some fills have a 1 s horizon inside it, none a 10 s one.
    expect(summary.markouts.map((m) => m.horizonS)).toEqual([1, 10, 60]);
    expect(summary.markouts[0].fills).toBeGreaterThan(0);
    expect(summary.markouts[1].fills).toBe(0);
    expect(summary.curve.timeMs.length).toBeGreaterThan(100);
  }, 120_000);

  it('reports a combination whose configuration is invalid once, with the validator\'s message, and runs the rest', async () => {
    const shared = await sharedOf();
    const combinations = expandGrid(parseGridSpec({ params: { 'risk.bogusKnob': [1] } }));
    const valid = expandGrid(GRID).slice(0, 1);
    const outcomes = await runSweep([...combinations, ...valid], { shared, workers: 1, retries: 2 });
    expect(outcomes[0]!.status).toBe('failed');
    expect(outcomes[0]!.attempts).toBe(1); // the same answer on every attempt: not retried
    expect(outcomes[0]!.errors.join(' ')).toMatch(/bogusKnob: unknown key/);
    expect(outcomes[1]!.status).toBe('ok');
  }, 120_000);

  it('retries a combination whose worker threw or exited, reports it, and reports one that fails every attempt', async () => {
    const shared = await sharedOf();
    const combinations: Combination[] = [
      { 'test.crash': 'exit' },
      { 'test.crash': 'throw' },
      { 'test.crash': 'throw', 'test.crashAttempts': 99 },
      { 'test.crash': null },
    ];
    const outcomes = await runSweep(combinations, { shared, workers: 2, retries: 2 });
    expect(outcomes.map((o) => [o.status, o.attempts])).toEqual([['ok', 2], ['ok', 2], ['failed', 3], ['ok', 1]]);
    expect(outcomes[0].errors[0]).toMatch(/exit/i);
    expect(outcomes[1].errors[0]).toMatch(/failed on purpose/);
    expect(outcomes[2].errors).toHaveLength(3);
    expect(outcomes[2].result).toBeNull();
    // The retried runs are the same run as the one that never crashed.
    expect(outcomes[0].result!.report.orders.sha256).toBe(outcomes[3].result!.report.orders.sha256);
    const rows = outcomes.map(rowOf);
    expect(rows[2]).toMatchObject({ status: 'failed', attempts: 3, pnlMicro: null });
    expect(rows[0]).toMatchObject({ status: 'ok', attempts: 2 });
  }, 240_000);
});
