/**
 * Sweep suite: how many replays a second a parameter sweep runs on 1 and 2 workers, what each
 * extra worker costs in memory next to the shared decoded recording, and the baseline a sweep
 * replaces: one `npm run replay` process per combination.
 *
 * 1. Replays/s. The shipped recording (test/fixtures/recordings, 878 frames, the sample market
 *    maker) swept over halfSpreadTicks x order latency (96 combinations) on a pool of 1, then 2
 *    workers, in 5 interleaved rounds; the round with the median speed-up is reported (one round
 *    on a shared VM varies too much to judge by). The rate is the steady state: runs finished
 *    after every worker finished its first (worker start-up, tsx registration and module loading, is excluded
 *    and reported in the note). Target: 2 workers >= 1.7x of 1 (this machine has 2 cores).
 * 2. Memory per extra worker. A synthetic recording (bench/replay's writer: the fixture's opening
 *    then seeded deltas and trades) large enough that a per-worker copy would show, shared once;
 *    runs replay its first frames (replay.framesMax) so the sweep stays short, two runs a worker.
 *    Each sweep runs in a process of its own (memory-child.ts: heap settled, then the RSS peak
 *    while the pool runs), 1 and 2 workers, repeated (2 rounds, 3 full) and the median of the
 *    rounds' differences reported against the shared buffer's size. Target: <= 10% of the decoded
 *    recording. Beside it, the same with the workers loading the task through tsx (what they did
 *    before worker-bundle.ts), as a baseline.
 * 3. Baseline: one `node --import tsx src/replay/main.ts FILE --json` process per combination (what
 *    `npm run replay` runs), two at a time, same recording, replays/s.
 *
 * Bounded: run counts fixed, each child process has a timeout.
 */

import { execFile, execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { BenchRow, BenchSuite } from '../harness.ts';
import { readRecordingFile } from '../../src/record/index.ts';
import { expandGrid, parseGridSpec } from '../../src/replay/sweep/grid.ts';
import type { Combination } from '../../src/replay/sweep/grid.ts';
import { buildMidSeries } from '../../src/replay/sweep/mid-series.ts';
import { REPLAY_DEFAULTS } from '../../src/replay/sweep/run-combination.ts';
import { shareRecording } from '../../src/replay/sweep/shared-recording.ts';
import { runSweep } from '../../src/replay/sweep/sweep-pool.ts';
import type { SweepShared } from '../../src/workers/sweep/sweep-task.ts';
import { writeSyntheticRecording } from '../replay/suite.ts';

const SUITE = 'sweep';
const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const FIXTURE = path.join(ROOT, 'test', 'fixtures', 'recordings', 'sim-market-maker.prrc');
const CONFIG = path.join(ROOT, 'test', 'fixtures', 'recordings', 'replay-config.json');
const ONE = 'sweep, 1 worker (replays/s, steady state)';
const TWO = 'sweep, 2 workers (replays/s, steady state)';
const MEMORY = 'memory added per extra worker vs the shared decoded recording';
const PROCESSES = 'baseline: one `npm run replay` process per combination, 2 at a time (replays/s)';
const MEMORY_TSX = 'baseline: memory added per extra worker, task loaded through tsx';
/** Rounds of the replays/s pair (1 worker, then 2); the median round is reported. */
const SPEED_ROUNDS = 5;
/** Frames each memory run replays (replay.framesMax). */
const MEMORY_FRAMES = 20_000;

interface MemoryChild {
  rssBefore: number;
  rssPeak: number;
  sharedBytes: number;
  failed: number;
  filename: string;
  reason: string;
}

/** One sweep in a process of its own (memory-child.ts). */
function memoryChild(file: string, workers: number, task: 'bundled' | 'tsx'): MemoryChild {
  const out = execFileSync(process.execPath, ['--expose-gc', '--import', 'tsx', path.join(ROOT, 'bench', 'sweep', 'memory-child.ts'), file, String(workers), task, String(MEMORY_FRAMES)], { cwd: ROOT, timeout: 180_000, encoding: 'utf8' });
  const result = JSON.parse(out.trim().split('\n').pop()!) as MemoryChild;
  if (result.failed > 0) throw new Error(`bench sweep: memory child (${workers} workers, ${task}): ${result.failed} runs failed`);
  return result;
}

interface MemoryFigure {
  /** Median over the rounds of (2-worker peak added) - (1-worker peak added), bytes. */
  added: number;
  rounds: number[];
  sharedBytes: number;
  task: string;
}

/** Per extra worker: each round measures 1 then 2 workers, each in a fresh process; tasks interleaved so load hits both alike. */
function memoryFigures(file: string, rounds: number): Record<'bundled' | 'tsx', MemoryFigure> {
  const figures = { bundled: { added: 0, rounds: [] as number[], sharedBytes: 0, task: '' }, tsx: { added: 0, rounds: [] as number[], sharedBytes: 0, task: '' } };
  for (let round = 0; round < rounds; round++) {
    for (const task of ['bundled', 'tsx'] as const) {
      const one = memoryChild(file, 1, task);
      const two = memoryChild(file, 2, task);
      figures[task].rounds.push((two.rssPeak - two.rssBefore) - (one.rssPeak - one.rssBefore));
      figures[task].sharedBytes = two.sharedBytes;
      figures[task].task = two.reason === '' || two.reason === 'filename given' ? two.filename : `${two.filename} (${two.reason})`;
    }
  }
  for (const figure of Object.values(figures)) figure.added = Math.max(0, [...figure.rounds].sort((a, b) => a - b)[Math.floor(figure.rounds.length / 2)]);
  return figures;
}

async function sharedOf(file: string): Promise<SweepShared> {
  const recording = readRecordingFile(file);
  return { recording: shareRecording(recording), mids: await buildMidSeries(recording), configValue: JSON.parse(readFileSync(CONFIG, 'utf8')), configFile: CONFIG, rootDir: ROOT, baseSettings: REPLAY_DEFAULTS };
}

interface SweepTiming {
  rate: number;
  startupMs: number;
  rssBytes: number;
  runs: number;
}

/** A sweep on `workers` workers: the steady-state rate (after each worker's first run) and the RSS at its end. */
async function timedSweep(shared: SweepShared, combinations: Combination[], workers: number): Promise<SweepTiming> {
  const start = performance.now();
  const doneAt: number[] = [];
  let rssBytes = 0;
  await runSweep(combinations, {
    shared, workers, retries: 0,
    onProgress: () => {
      doneAt.push(performance.now());
      rssBytes = Math.max(rssBytes, process.memoryUsage().rss);
    },
  });
  const first = doneAt[workers - 1];
  const last = doneAt[doneAt.length - 1];
  const runs = doneAt.length - workers;
  return { rate: runs / ((last - first) / 1000), startupMs: Math.round(first - start), rssBytes, runs };
}

function replayProcess(latencyUs: number): Promise<void> {
  return new Promise((resolve, reject) => {
    execFile(process.execPath, ['--import', 'tsx', path.join(ROOT, 'src', 'replay', 'main.ts'), FIXTURE, '--config', CONFIG, '--json', '--order-latency-us', String(latencyUs)], { cwd: ROOT, timeout: 120_000 }, (error) => (error === null ? resolve() : reject(error)));
  });
}

async function processRate(count: number): Promise<number> {
  const start = performance.now();
  for (let n = 0; n < count; n += 2) await Promise.all([replayProcess(100 + n), replayProcess(101 + n)]);
  return count / ((performance.now() - start) / 1000);
}

export default {
  name: SUITE,
  async run({ quick }): Promise<BenchRow[]> {
    const runs = quick ? 8 : 96;
    const grid = parseGridSpec({ params: { 'strategies.0.params.halfSpreadTicks': [1, 2, 3, 4], 'replay.orderLatencyUs': Array.from({ length: runs / 4 }, (_, k) => 100 + 200 * k) } });
    const combinations = expandGrid(grid);
    const shared = await sharedOf(FIXTURE);
    // Rounds of 1 then 2 workers, interleaved so a load change hits both alike; the median round.
    const rounds: { one: SweepTiming; two: SweepTiming }[] = [];
    for (let round = 0; round < (quick ? 1 : SPEED_ROUNDS); round++) rounds.push({ one: await timedSweep(shared, combinations, 1), two: await timedSweep(shared, combinations, 2) });
    rounds.sort((a, b) => a.two.rate / a.one.rate - b.two.rate / b.one.rate);
    const { one, two } = rounds[Math.floor(rounds.length / 2)]!;
    const roundsNote = rounds.map((r) => `${(r.two.rate / r.one.rate).toFixed(2)}x`).join(', ');
    const baselineRate = await processRate(quick ? 4 : 8);
    const work = mkdtempSync(path.join(tmpdir(), 'bench-sweep-'));
    let memory: Record<'bundled' | 'tsx', MemoryFigure>;
    try {
      memory = memoryFigures(await writeSyntheticRecording(work, quick ? 400_000 : 1_500_000), quick ? 2 : 3);
    } finally {
      rmSync(work, { recursive: true, force: true });
    }
    const mb = (bytes: number): string => `${(bytes / 1048576).toFixed(1)} MB`;
    const memoryNote = (figure: MemoryFigure): string =>
      `shared recording ${mb(figure.sharedBytes)}; +${((figure.added / figure.sharedBytes) * 100).toFixed(1)}% of it; median of ${figure.rounds.length} rounds (${figure.rounds.map(mb).join(', ')}), ` +
      `each the 2-worker minus the 1-worker RSS peak over settled RSS, one process per sweep, ${MEMORY_FRAMES} frames a run, 2 runs a worker; workers load ${figure.task}`;
    const speedup = two.rate / one.rate;
    return [
      { suite: SUITE, case: ONE, baseline: false, count: one.runs, opsPerSec: Math.round(one.rate * 100) / 100, note: `${combinations.length} combinations; worker start-up ${one.startupMs} ms (excluded); the median of ${rounds.length} rounds by speed-up` },
      { suite: SUITE, case: TWO, baseline: false, count: two.runs, opsPerSec: Math.round(two.rate * 100) / 100, compareTo: ONE, target: '>= 1.7x of 1 worker', pass: speedup >= 1.7, note: `${speedup.toFixed(2)}x of 1 worker (rounds: ${roundsNote}); start-up ${two.startupMs} ms (excluded)` },
      { suite: SUITE, case: MEMORY, baseline: false, count: memory.bundled.rounds.length, value: memory.bundled.added, unit: 'bytes', compareTo: MEMORY_TSX, target: '<= 10% of the decoded recording', pass: memory.bundled.added <= memory.bundled.sharedBytes * 0.1, note: memoryNote(memory.bundled) },
      { suite: SUITE, case: MEMORY_TSX, baseline: true, count: memory.tsx.rounds.length, value: memory.tsx.added, unit: 'bytes', note: memoryNote(memory.tsx) },
      { suite: SUITE, case: PROCESSES, baseline: true, count: quick ? 4 : 8, opsPerSec: Math.round(baselineRate * 100) / 100, note: 'process start, tsx, module load and file read per combination' },
    ];
  },
} satisfies BenchSuite;
