/**
 * Sweep suite: how many replays a second a parameter sweep runs on 1 and 2 workers, what each
 * extra worker costs in memory next to the shared decoded recording, and the baseline a sweep
 * replaces: one `npm run replay` process per combination.
 *
 * 1. Replays/s. The shipped recording (test/fixtures/recordings, 878 frames, the sample market
 *    maker) swept over halfSpreadTicks x order latency (96 combinations) on a pool of 1, then 2
 *    workers, each sweep a process of its own started as `npm run sweep` starts (SWEEP_NODE_FLAGS:
 *    single-threaded V8), in 5 interleaved rounds; the round with the median speed-up is reported
 *    (one round on a shared VM varies too much to judge by). The rate is the steady state: runs
 *    finished after every worker finished its first (worker start-up, module loading, is excluded
 *    and reported in the note). Target: 2 workers >= 1.7x of 1 (this machine has 2 cores).
 *    Beside it, in the same rounds, the pool with its workers' young generation left to V8
 *    (WORKER_YOUNG_GENERATION_MB caps it), as a baseline for what the cap costs or saves.
 *    Beside it, in the same rounds, the same pair with V8's default helper threads (what the sweep
 *    ran with before), as a baseline.
 * 2. Memory per extra worker. A synthetic recording (bench/replay's writer: the fixture's opening
 *    then seeded deltas and trades) large enough that a per-worker copy would show, shared once;
 *    runs replay its first frames (replay.framesMax) so the sweep stays short, two runs a worker.
 *    Each sweep runs in a process of its own (memory-child.ts: heap settled, then the RSS peak
 *    while the pool runs), 1 and 2 workers, repeated (2 rounds, 3 full) and the median of the
 *    rounds' differences reported against the shared buffer's size. Target: <= 10% of the decoded
 *    recording. Beside it, the same with the workers loading the task through tsx (what they did
 *    before worker-bundle.ts), and with their young generation uncapped, as baselines.
 * 3. Queue (issue "5 of 6"): the same 96 combinations on a BullMQ queue, taken by 1 then 2
 *    `npm run sweep-worker -- --concurrency 1` processes (queue-rate.ts), on a Redis of its own; 5
 *    interleaved rounds, the median by speed-up. Target: 2 processes >= 1.7x of 1. The producer and
 *    Redis share the 2 cores with the workers. Not measured (a row says why) without redis-server.
 * 4. Baseline: one `node --import tsx src/replay/main.ts FILE --json` process per combination (what
 *    `npm run replay` runs), two at a time, same recording, replays/s.
 *
 * Bounded: run counts fixed, each child process has a timeout.
 */

import { execFile, execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { BenchRow, BenchSuite } from '../harness.ts';
import { SWEEP_NODE_FLAGS, WORKER_YOUNG_GENERATION_MB } from '../../src/replay/sweep/sweep-pool.ts';
import type { Combination } from '../../src/replay/sweep/grid.ts';
import { redisMissing, startRedis } from '../fleet/redis-child.ts';
import { queueSweepRate } from './queue-rate.ts';
import { CONFIG, FIXTURE, ROOT, speedCombinations } from './sweep-inputs.ts';
import type { QueueTiming } from './queue-rate.ts';
import { writeSyntheticRecording } from '../replay/suite.ts';

const SUITE = 'sweep';
const ONE = 'sweep, 1 worker (replays/s, steady state)';
const TWO = 'sweep, 2 workers (replays/s, steady state)';
const ONE_UNCAPPED = 'baseline: sweep, 1 worker, young generation uncapped (replays/s)';
const TWO_UNCAPPED = 'baseline: sweep, 2 workers, young generation uncapped (replays/s)';
const MEMORY_UNCAPPED = 'baseline: memory added per extra worker, young generation uncapped';
const ONE_HELPERS = 'baseline: sweep, 1 worker, V8 helper threads on (replays/s)';
const TWO_HELPERS = 'baseline: sweep, 2 workers, V8 helper threads on (replays/s)';
const MEMORY = 'memory added per extra worker vs the shared decoded recording';
const PROCESSES = 'baseline: one `npm run replay` process per combination, 2 at a time (replays/s)';
const MEMORY_TSX = 'baseline: memory added per extra worker, task loaded through tsx';
const QUEUE_ONE = 'queue sweep, 1 sweep-worker process (replays/s, steady state)';
const QUEUE_TWO = 'queue sweep, 2 sweep-worker processes (replays/s, steady state)';
/** Rounds of the queue pair (1 process, then 2); the median round is reported. */
const QUEUE_ROUNDS = 5;
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
function memoryChild(file: string, workers: number, task: 'bundled' | 'tsx' | 'uncapped'): MemoryChild {
  const args = task === 'uncapped' ? ['bundled', String(MEMORY_FRAMES), 'uncapped'] : [task, String(MEMORY_FRAMES)];
  const out = execFileSync(process.execPath, ['--expose-gc', ...SWEEP_NODE_FLAGS, '--import', 'tsx', path.join(ROOT, 'bench', 'sweep', 'memory-child.ts'), file, String(workers), ...args], { cwd: ROOT, timeout: 180_000, encoding: 'utf8' });
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
function memoryFigures(file: string, rounds: number): Record<'bundled' | 'tsx' | 'uncapped', MemoryFigure> {
  const figure = (): MemoryFigure => ({ added: 0, rounds: [], sharedBytes: 0, task: '' });
  const figures = { bundled: figure(), tsx: figure(), uncapped: figure() };
  for (let round = 0; round < rounds; round++) {
    for (const task of ['bundled', 'tsx', 'uncapped'] as const) {
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

interface SweepTiming {
  rate: number;
  startupMs: number;
  runs: number;
}

/** One sweep of `runs` combinations on `workers` workers, in a child process started with `flags` (speed-child.ts). */
function timedSweep(workers: number, runs: number, flags: readonly string[], uncapped = false): SweepTiming {
  const out = execFileSync(process.execPath, [...flags, '--import', 'tsx', path.join(ROOT, 'bench', 'sweep', 'speed-child.ts'), String(workers), String(runs), ...(uncapped ? ['uncapped'] : [])], { cwd: ROOT, timeout: 300_000, encoding: 'utf8' });
  const result = JSON.parse(out.trim().split('\n').pop()!) as SweepTiming & { failed: number };
  if (result.failed > 0) throw new Error(`bench sweep: speed child (${workers} workers, flags ${flags.join(' ')}): ${result.failed} runs failed`);
  return result;
}

interface SpeedRound {
  one: SweepTiming;
  two: SweepTiming;
}

/** The round with the median speed-up, and every round's speed-up. */
function medianRound(rounds: SpeedRound[]): { round: SpeedRound; note: string } {
  const sorted = [...rounds].sort((a, b) => a.two.rate / a.one.rate - b.two.rate / b.one.rate);
  return { round: sorted[Math.floor(sorted.length / 2)]!, note: sorted.map((r) => `${(r.two.rate / r.one.rate).toFixed(2)}x`).join(', ') };
}

interface QueueFigures {
  rounds: { one: QueueTiming; two: QueueTiming }[];
  skipped: string | null;
}

/** Rounds of the queue sweep on 1 then 2 sweep-worker processes, on a Redis of its own; skipped when there is no redis-server. */
async function queueFigures(combinations: readonly Combination[], rounds: number): Promise<QueueFigures> {
  const missing = redisMissing();
  if (missing !== null) return { rounds: [], skipped: missing };
  const redis = await startRedis(null);
  try {
    const figures: QueueFigures = { rounds: [], skipped: null };
    for (let round = 0; round < rounds; round++) {
      const one = await queueSweepRate(ROOT, redis.url, 1, combinations, FIXTURE, CONFIG);
      const two = await queueSweepRate(ROOT, redis.url, 2, combinations, FIXTURE, CONFIG);
      if (one.failed + two.failed > 0) throw new Error(`bench sweep: queue sweep had ${one.failed + two.failed} failed runs`);
      figures.rounds.push({ one, two });
    }
    return figures;
  } finally {
    await redis.stop();
  }
}

function queueRows(queue: QueueFigures): BenchRow[] {
  if (queue.skipped !== null) return [{ suite: SUITE, case: QUEUE_TWO, baseline: false, count: 0, note: `not measured: ${queue.skipped}` }];
  const sorted = [...queue.rounds].sort((a, b) => a.two.rate / a.one.rate - b.two.rate / b.one.rate);
  const { one, two } = sorted[Math.floor(sorted.length / 2)]!;
  const speedup = two.rate / one.rate;
  const roundsNote = sorted.map((r) => `${(r.two.rate / r.one.rate).toFixed(2)}x`).join(', ');
  return [
    { suite: SUITE, case: QUEUE_ONE, baseline: false, count: one.runs, opsPerSec: Math.round(one.rate * 100) / 100, note: `the same ${one.runs + 1} combinations on a BullMQ queue; npm run sweep-worker -- --concurrency 1 (node ${SWEEP_NODE_FLAGS.join(' ')}); process start excluded; the median of ${sorted.length} rounds by speed-up` },
    { suite: SUITE, case: QUEUE_TWO, baseline: false, count: two.runs, opsPerSec: Math.round(two.rate * 100) / 100, compareTo: QUEUE_ONE, target: '>= 1.7x of 1 process', pass: speedup >= 1.7, note: `${speedup.toFixed(2)}x of 1 process (rounds: ${roundsNote})` },
  ];
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
    // Rounds of 1 then 2 workers, with and without the sweep's flags, interleaved so a load change hits all alike.
    const flagged: SpeedRound[] = [];
    const helpers: SpeedRound[] = [];
    const uncapped: SpeedRound[] = [];
    for (let round = 0; round < (quick ? 1 : SPEED_ROUNDS); round++) {
      flagged.push({ one: timedSweep(1, runs, SWEEP_NODE_FLAGS), two: timedSweep(2, runs, SWEEP_NODE_FLAGS) });
      helpers.push({ one: timedSweep(1, runs, []), two: timedSweep(2, runs, []) });
      uncapped.push({ one: timedSweep(1, runs, SWEEP_NODE_FLAGS, true), two: timedSweep(2, runs, SWEEP_NODE_FLAGS, true) });
    }
    const { round: { one, two }, note: roundsNote } = medianRound(flagged);
    const { round: uncappedRound, note: uncappedNote } = medianRound(uncapped);
    const { round: helperRound, note: helperNote } = medianRound(helpers);
    const queue = await queueFigures(speedCombinations(runs), quick ? 1 : QUEUE_ROUNDS);
    const baselineRate = await processRate(quick ? 4 : 8);
    const work = mkdtempSync(path.join(tmpdir(), 'bench-sweep-'));
    let memory: Record<'bundled' | 'tsx' | 'uncapped', MemoryFigure>;
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
      { suite: SUITE, case: ONE, baseline: false, count: one.runs, opsPerSec: Math.round(one.rate * 100) / 100, note: `${runs} combinations; node ${SWEEP_NODE_FLAGS.join(' ')}; worker start-up ${one.startupMs} ms (excluded); the median of ${flagged.length} rounds by speed-up` },
      { suite: SUITE, case: TWO, baseline: false, count: two.runs, opsPerSec: Math.round(two.rate * 100) / 100, compareTo: ONE, target: '>= 1.7x of 1 worker', pass: speedup >= 1.7, note: `${speedup.toFixed(2)}x of 1 worker (rounds: ${roundsNote}); start-up ${two.startupMs} ms (excluded)` },
      { suite: SUITE, case: ONE_UNCAPPED, baseline: true, count: uncappedRound.one.runs, opsPerSec: Math.round(uncappedRound.one.rate * 100) / 100, note: `the workers' young generation left to V8 (the sweep caps it at ${WORKER_YOUNG_GENERATION_MB} MB); same flags, same rounds` },
      { suite: SUITE, case: TWO_UNCAPPED, baseline: true, count: uncappedRound.two.runs, opsPerSec: Math.round(uncappedRound.two.rate * 100) / 100, compareTo: ONE_UNCAPPED, note: `${(uncappedRound.two.rate / uncappedRound.one.rate).toFixed(2)}x of 1 worker (rounds: ${uncappedNote})` },
      { suite: SUITE, case: ONE_HELPERS, baseline: true, count: helperRound.one.runs, opsPerSec: Math.round(helperRound.one.rate * 100) / 100, note: 'no node flags: V8\'s helper threads on; same rounds' },
      { suite: SUITE, case: TWO_HELPERS, baseline: true, count: helperRound.two.runs, opsPerSec: Math.round(helperRound.two.rate * 100) / 100, compareTo: ONE_HELPERS, note: `${(helperRound.two.rate / helperRound.one.rate).toFixed(2)}x of 1 worker (rounds: ${helperNote})` },
      { suite: SUITE, case: MEMORY, baseline: false, count: memory.bundled.rounds.length, value: memory.bundled.added, unit: 'bytes', compareTo: MEMORY_TSX, target: '<= 10% of the decoded recording', pass: memory.bundled.added <= memory.bundled.sharedBytes * 0.1, note: memoryNote(memory.bundled) },
      { suite: SUITE, case: MEMORY_TSX, baseline: true, count: memory.tsx.rounds.length, value: memory.tsx.added, unit: 'bytes', note: memoryNote(memory.tsx) },
      { suite: SUITE, case: MEMORY_UNCAPPED, baseline: true, count: memory.uncapped.rounds.length, value: memory.uncapped.added, unit: 'bytes', note: `${memoryNote(memory.uncapped)}; young generation left to V8` },
      ...queueRows(queue),
      { suite: SUITE, case: PROCESSES, baseline: true, count: quick ? 4 : 8, opsPerSec: Math.round(baselineRate * 100) / 100, note: 'process start, tsx, module load and file read per combination' },
    ];
  },
} satisfies BenchSuite;
