/**
 * `npm run sweep -- --data FILE|DIR --config X --grid grid.json [--random N --seed S] [--workers N] [--out DIR]`:
 * runs a replay (replay.ts) for every combination of grid.json's parameters (or N seeded random
 * draws of them) on a worker pool, the recording decoded once into shared memory, and writes
 * results.json, results.parquet and report.html to --out (default var/sweeps/<time>; with a
 * directory of recordings, one sub-folder per recording). With --queue redis://HOST:PORT the
 * combinations go on a BullMQ queue for `npm run sweep-worker` processes on any machine instead
 * (sweep/queue-producer.ts), and the same table and report are written from their results.
 * docs/sweep.md is the guide.
 * Exit 0 done; 1 a combination failed every attempt (reported, the others ran); 2 usage or
 * configuration error; 3 a bad recording.
 */

import { mkdirSync, readFileSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { helpText, parseCli } from '../core/index.ts';
import type { CliCommand } from '../core/index.ts';
import { RecordingError, readRecordingFile } from '../record/index.ts';
import { ConfigError, validateConfig } from '../runtime/config.ts';
import { SweepUsageError, applyCombination, expandGrid, parseGridSpec } from './sweep/grid.ts';
import type { Combination, GridSpec } from './sweep/grid.ts';
import { buildMidSeries } from './sweep/mid-series.ts';
import { createProgress } from './sweep/progress.ts';
import { rowOf, writeResults } from './sweep/results.ts';
import { REPLAY_DEFAULTS, replaySettingsOf } from './sweep/run-combination.ts';
import { bestOutcome, renderSweepHtml } from './sweep/sweep-html.ts';
import { defaultWorkerCount, runSweep, WORKER_YOUNG_GENERATION_MB } from './sweep/sweep-pool.ts';
import type { SweepOutcome } from './sweep/sweep-pool.ts';
import { sha256OfFile } from './sweep/queue-jobs.ts';
import { runQueueSweep } from './sweep/queue-producer.ts';
import { shareRecording } from './sweep/shared-recording.ts';
import { dollarsOfMicro } from './report.ts';

const ROOT_DIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');

const COMMAND: CliCommand = {
  usage: 'usage: npm run sweep -- --data FILE|DIR --config X --grid grid.json [--random N --seed S] [--workers N [--worker-young-mb MB] | --queue redis://HOST:PORT] [--out DIR]',
  options: [
    { name: '--data', value: '<file|dir>', help: 'a recording, or a folder of them (each swept on its own)' },
    { name: '--config', value: '<file>', help: 'runtime configuration the parameters apply to (default config/runtime.json)' },
    { name: '--grid', value: '<file>', help: 'grid.json: {"params": {NAME: [values]}} and/or {"ranges": {NAME: {min, max, step}}}' },
    { name: '--random', value: '<n>', help: 'run N seeded random draws instead of every combination' },
    { name: '--seed', value: '<n>', help: 'seed of the --random draws (default 1)' },
    { name: '--workers', value: '<n>', help: 'worker threads (default: the cores)' },
    { name: '--worker-young-mb', value: '<n>', help: `each worker's young generation in MB, 0 for V8's own sizing (default ${WORKER_YOUNG_GENERATION_MB}: less memory per worker, slower runs; README, sweep)` },
    { name: '--retries', value: '<n>', help: 'retries of a combination whose run crashed (default 2)' },
    { name: '--queue', value: '<url>', help: 'put the combinations on a BullMQ queue at redis://HOST:PORT for `npm run sweep-worker`s, instead of the local pool' },
    { name: '--out', value: '<dir>', help: 'where results.json, results.parquet and report.html go (default var/sweeps/<time>)' },
  ],
  notes: ['Exit status: 0 done; 1 a combination failed every attempt; 2 usage or configuration error; 3 bad recording.'],
};

function intArg(values: ReadonlyMap<string, string>, name: string, fallback: number, min = 0): number {
  const text = values.get(name);
  if (text === undefined) return fallback;
  const value = Number(text);
  if (!/^\d+$/.test(text) || !Number.isSafeInteger(value) || value < min) throw new SweepUsageError(`${name} needs an integer >= ${min}`);
  return value;
}

function recordingsOf(data: string): string[] {
  if (!statSync(data, { throwIfNoEntry: false })?.isDirectory()) return [data];
  const files = readdirSync(data).filter((name) => name.endsWith('.prrc')).sort().map((name) => path.join(data, name));
  if (files.length === 0) throw new SweepUsageError(`${data}: no .prrc recordings in it`);
  return files;
}

function readJson(file: string, what: string): unknown {
  try {
    return JSON.parse(readFileSync(file, 'utf8'));
  } catch (error) {
    throw new SweepUsageError(`${what} ${file}: ${(error as Error).message}`);
  }
}

/** Every combination's configuration and settings are checked before anything runs: a typo fails fast. */
function checkCombinations(configValue: unknown, configFile: string, combinations: readonly Combination[]): void {
  for (const [index, combination] of combinations.entries()) {
    try {
      const applied = applyCombination(configValue, combination);
      validateConfig(applied.configValue, configFile, {});
      replaySettingsOf(applied.replay);
    } catch (error) {
      throw new SweepUsageError(`combination ${index} ${JSON.stringify(combination)}: ${(error as Error).message}`);
    }
  }
}

interface SweepJob {
  file: string;
  configFile: string;
  configValue: unknown;
  gridFile: string;
  spec: GridSpec;
  combinations: Combination[];
  workers: number;
  /** Each local worker's young generation, MB; null: V8's own sizing. */
  youngGenerationMb: number | null;
  retries: number;
  outDir: string;
  /** redis://… of a BullMQ queue for sweep workers; null: the local pool. */
  queueUrl: string | null;
}

/** The combinations on the queue (sweep/queue-producer.ts), the recording named by its path and sha256. */
async function runOnQueue(job: SweepJob, url: string, onProgress: (done: number, total: number, failed: number) => void): Promise<SweepOutcome[]> {
  const file = path.resolve(job.file);
  const recording = { path: file, name: path.basename(file), sha256: await sha256OfFile(file), sizeBytes: statSync(file).size };
  process.stderr.write(`sweep: ${job.file}: ${job.combinations.length} runs on the queue ${url}; recording sha256 ${recording.sha256}\n`);
  return runQueueSweep(job.combinations, {
    url,
    recording,
    configValue: job.configValue,
    configFile: job.configFile,
    baseSettings: REPLAY_DEFAULTS,
    retries: job.retries,
    onProgress,
    onStart: (sweepId, workers) => process.stderr.write(`sweep: sweep id ${sweepId}; ${workers} workers on the queue now${workers === 0 ? ' (start some: npm run sweep-worker -- --queue URL)' : ''}\n`),
  });
}

async function runLocally(job: SweepJob, onProgress: (done: number, total: number, failed: number) => void): Promise<SweepOutcome[]> {
  const recording = readRecordingFile(job.file);
  const shared = { recording: shareRecording(recording), mids: await buildMidSeries(recording), configValue: job.configValue, configFile: job.configFile, rootDir: ROOT_DIR, baseSettings: REPLAY_DEFAULTS };
  process.stderr.write(`sweep: ${job.file}: ${job.combinations.length} runs on ${job.workers} workers; shared recording ${shared.recording.buffer.byteLength} bytes\n`);
  return runSweep(job.combinations, { shared, workers: job.workers, retries: job.retries, onProgress, youngGenerationMb: job.youngGenerationMb });
}

async function sweepOne(job: SweepJob): Promise<number> {
  const progress = createProgress(job.combinations.length);
  const onProgress = (done: number, total: number, failed: number): void => progress.update(done, total, failed);
  // A bad recording fails here (exit 3) either way, not on every worker.
  if (job.queueUrl !== null) readRecordingFile(job.file);
  const outcomes = job.queueUrl === null ? await runLocally(job, onProgress) : await runOnQueue(job, job.queueUrl, onProgress);
  progress.stop();
  mkdirSync(job.outDir, { recursive: true });
  const rows = outcomes.map(rowOf);
  const written = await writeResults(job.outDir, rows);
  const paramNames = [...Object.keys(job.spec.params), ...Object.keys(job.spec.ranges)];
  const html = path.join(job.outDir, 'report.html');
  writeFileSync(html, renderSweepHtml({ recordingSource: job.file, configFile: job.configFile, gridFile: job.gridFile, baseSettings: REPLAY_DEFAULTS, workers: job.workers, outcomes, rows, paramNames }));
  const failed = outcomes.filter((o) => o.status === 'failed');
  const retried = outcomes.filter((o) => o.status === 'ok' && o.attempts > 1);
  const best = bestOutcome(outcomes);
  process.stdout.write(`sweep ${job.file}: ${outcomes.length} runs, ${retried.length} retried, ${failed.length} failed\n`);
  for (const o of [...retried, ...failed]) process.stdout.write(`  combination ${o.index} ${JSON.stringify(o.combination)}: ${o.status === 'ok' ? 'ok' : 'FAILED'} after ${o.attempts} attempts (${o.errors.join(' | ')})\n`);
  if (best?.result) process.stdout.write(`  best: combination ${best.index} ${JSON.stringify(best.combination)}: PnL ${dollarsOfMicro(best.result.report.pnlMicro)}, ${best.result.report.fills.count} fills\n`);
  process.stdout.write(`  wrote ${written.json}, ${written.parquet}, ${html}\n`);
  return failed.length === 0 ? 0 : 1;
}

async function main(argv: string[]): Promise<number> {
  try {
    const { help, values } = parseCli(argv, COMMAND);
    if (help) {
      process.stdout.write(`${helpText(COMMAND)}\n`);
      return 0;
    }
    const data = values.get('--data');
    const gridFile = values.get('--grid');
    if (data === undefined || gridFile === undefined) throw new SweepUsageError(COMMAND.usage);
    const configFile = values.get('--config') ?? path.join(ROOT_DIR, 'config', 'runtime.json');
    const configValue = readJson(configFile, 'configuration');
    validateConfig(configValue, configFile);
    const spec = parseGridSpec(readJson(gridFile, 'grid'), gridFile);
    const random = values.has('--random') ? { count: intArg(values, '--random', 1, 1), seed: intArg(values, '--seed', 1) } : null;
    const combinations = expandGrid(spec, random);
    checkCombinations(configValue, configFile, combinations);
    const workers = intArg(values, '--workers', defaultWorkerCount(), 1);
    const youngMb = intArg(values, '--worker-young-mb', WORKER_YOUNG_GENERATION_MB);
    const youngGenerationMb = youngMb === 0 ? null : youngMb;
    const retries = intArg(values, '--retries', 2);
    const queueUrl = values.get('--queue') ?? null;
    if (queueUrl !== null && !/^rediss?:\/\//.test(queueUrl)) throw new SweepUsageError('--queue needs a redis://HOST:PORT url');
    const files = recordingsOf(data);
    const outRoot = values.get('--out') ?? path.join(ROOT_DIR, 'var', 'sweeps', new Date().toISOString().replace(/[:.]/g, '-'));
    let code = 0;
    for (const file of files) {
      const outDir = files.length === 1 ? outRoot : path.join(outRoot, path.basename(file, '.prrc'));
      code = Math.max(code, await sweepOne({ file, configFile, configValue, gridFile, spec, combinations, workers, youngGenerationMb, retries, outDir, queueUrl }));
    }
    return code;
  } catch (error) {
    process.stderr.write(`sweep: ${(error as Error).message}\n`);
    if (error instanceof RecordingError) return 3;
    if (error instanceof SweepUsageError || error instanceof ConfigError) return 2;
    return 2;
  }
}

process.exitCode = await main(process.argv.slice(2));
