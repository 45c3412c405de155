/**
 * Goal: a sweep's workers start from one esbuild build of the task and the strategy plugins
 * (src/replay/sweep/worker-bundle.ts): the build exists on disk, plugin paths (in the config and
 * in combinations) point into it, the workers drop tsx's preloads and the flags a Worker refuses,
 * and the tsx loader is used, with its reason, where a build cannot serve (SWEEP_WORKER_BUNDLE=0,
 * plugins outside this code's root).
 * Method: prepareWorkerTask on the shipped recording's config; the built module is imported here
 * and run on one combination, against the same combination run in process.
 */

import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { readRecordingFile } from '../../src/record/index.ts';
import { buildMidSeries } from '../../src/replay/sweep/mid-series.ts';
import { REPLAY_DEFAULTS } from '../../src/replay/sweep/run-combination.ts';
import { shareRecording } from '../../src/replay/sweep/shared-recording.ts';
import { TSX_TASK, prepareWorkerTask, workerExecArgv } from '../../src/replay/sweep/worker-bundle.ts';
import { runSweepTask } from '../../src/workers/sweep/sweep-task.ts';
import type { SweepShared } from '../../src/workers/sweep/sweep-task.ts';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const FIXTURE = path.join(ROOT, 'test', 'fixtures', 'recordings', 'sim-market-maker.prrc');
const CONFIG_PATH = path.join(ROOT, 'test', 'fixtures', 'recordings', 'replay-config.json');
const configValue = JSON.parse(readFileSync(CONFIG_PATH, 'utf8')) as { strategies: { plugin: string }[] };
const recording = readRecordingFile(FIXTURE);

async function sharedOf(rootDir = ROOT): Promise<SweepShared> {
  return { recording: shareRecording(recording), mids: await buildMidSeries(recording), configValue, configFile: CONFIG_PATH, rootDir, baseSettings: REPLAY_DEFAULTS };
}

describe('sweep worker bundle', () => {
  const saved = process.env.SWEEP_WORKER_BUNDLE;
  afterEach(() => {
    if (saved === undefined) delete process.env.SWEEP_WORKER_BUNDLE;
    else process.env.SWEEP_WORKER_BUNDLE = saved;
  });

  it('builds the task and the plugins once, maps plugin paths into the build, and the built task runs a combination as the source does', async () => {
    delete process.env.SWEEP_WORKER_BUNDLE;
    const shared = await sharedOf();
    const plugin = configValue.strategies[0]!.plugin;
    const combination = { 'strategies.0.params.halfSpreadTicks': 2, 'strategies.0.plugin': plugin };
    const task = await prepareWorkerTask(shared, [combination]);
    expect(task.bundled).toBe(true);
    expect(task.reason).toBe('');
    const file = fileURLToPath(task.filename);
    expect(existsSync(file)).toBe(true);
    expect(file.startsWith(path.join(ROOT, 'node_modules', '.cache', 'sweep-worker'))).toBe(true);
    const builtPlugin = (task.shared.configValue as { strategies: { plugin: string }[] }).strategies[0]!.plugin;
    expect(builtPlugin).not.toBe(plugin);
    expect(existsSync(path.resolve(task.shared.rootDir, builtPlugin))).toBe(true);
    expect(task.combinationFor(combination)['strategies.0.plugin']).toBe(builtPlugin);
    expect(task.combinationFor({ 'strategies.0.params.halfSpreadTicks': 2 })).toEqual({ 'strategies.0.params.halfSpreadTicks': 2 });
    expect((await prepareWorkerTask(shared, [combination])).filename).toBe(task.filename); // one build per process

    const built = (await import(task.filename)) as { runSweepTask: typeof runSweepTask };
    const fromBuild = await built.runSweepTask(task.shared, { index: 0, combination: task.combinationFor(combination), attempt: 0 });
    const fromSource = await runSweepTask(shared, { index: 0, combination, attempt: 0 });
    expect(fromBuild.report.orders.sha256).toBe(fromSource.report.orders.sha256);
    expect(fromBuild.report.orders.creates).toBeGreaterThan(0);
  }, 60_000);

  it('falls back to the tsx loader, saying why, when told to or when plugins live elsewhere', async () => {
    process.env.SWEEP_WORKER_BUNDLE = '0';
    const off = await prepareWorkerTask(await sharedOf(), []);
    expect([off.bundled, off.filename, off.reason, off.execArgv]).toEqual([false, TSX_TASK, 'SWEEP_WORKER_BUNDLE=0', undefined]);
    delete process.env.SWEEP_WORKER_BUNDLE;
    const elsewhere = await prepareWorkerTask(await sharedOf('/tmp'), []);
    expect(elsewhere.bundled).toBe(false);
    expect(elsewhere.reason).toContain('not this code\'s root');
  });

  it('keeps only the flags that change what worker code does', () => {
    expect(workerExecArgv(['--require', '/x/tsx/preflight.cjs', '--import', 'file:///x/tsx/loader.mjs', '--expose-gc', '--max-old-space-size=4096', '--enable-source-maps', '--conditions=dev', '-C', 'prod', '--no-warnings']))
      .toEqual(['--enable-source-maps', '--conditions=dev', '-C', 'prod', '--no-warnings']);
  });
});
