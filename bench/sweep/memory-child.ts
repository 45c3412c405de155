/**
 * Child process of the sweep bench's memory case: decodes a recording into shared memory (as
 * `npm run sweep` does), settles the heap, then runs a sweep on a pool of N workers and prints one
 * JSON line: RSS settled before the pool, the RSS peak while it ran (sampled every 20 ms and at each
 * finished run) and the task module the workers loaded. Run alone in its own process per worker
 * count, so what one sweep left behind never counts against the next. `task` picks the workers'
 * code: `bundled` (the pool's default, worker-bundle.ts) or `tsx` (the tsx-registering loader, what
 * every worker ran before). Usage:
 *   node --expose-gc --import tsx bench/sweep/memory-child.ts <recording> <workers> <bundled|tsx> <frames per run> [uncapped]
 * `uncapped`: the workers' young generation left to V8 (the baseline of WORKER_YOUNG_GENERATION_MB).
 */

import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { expandGrid, parseGridSpec } from '../../src/replay/sweep/grid.ts';
import { runSweep } from '../../src/replay/sweep/sweep-pool.ts';
import { TSX_TASK } from '../../src/replay/sweep/worker-bundle.ts';
import { ROOT, sweepShared } from './sweep-inputs.ts';

const SAMPLE_MS = 20;

const [file, workersText, task, framesText, young] = process.argv.slice(2);
const workers = Number(workersText);
const framesMax = Number(framesText);
const gc = (globalThis as { gc?: () => void }).gc;
if (gc === undefined) throw new Error('memory-child: run with --expose-gc');
if (file === undefined || !(workers >= 1 && workers <= 16) || (task !== 'bundled' && task !== 'tsx') || !(framesMax > 0) || (young !== undefined && young !== 'uncapped')) {
  throw new Error('usage: memory-child.ts <recording> <workers 1..16> <bundled|tsx> <frames per run>');
}

const shared = await sweepShared(file);
const sharedBytes = shared.recording.buffer.byteLength;
// Two runs a worker: the second shows what a worker keeps between runs, not only its first.
const combinations = expandGrid(parseGridSpec({ params: { 'strategies.0.params.halfSpreadTicks': Array.from({ length: 2 * workers }, (_, k) => 1 + (k % 4)), 'replay.framesMax': [framesMax] } }));
for (let i = 0; i < 4; i++) gc();
const rssBefore = process.memoryUsage.rss();
let rssPeak = rssBefore;
const sample = (): void => {
  rssPeak = Math.max(rssPeak, process.memoryUsage.rss());
};
const timer = setInterval(sample, SAMPLE_MS);
let filename = '';
let reason = '';
const started = performance.now();
const outcomes = await runSweep(combinations, {
  shared, workers, retries: 0, onProgress: sample,
  ...(young === 'uncapped' ? { youngGenerationMb: null } : {}),
  ...(task === 'tsx' ? { filename: TSX_TASK } : {}),
  onWorkerTask: (chosen) => {
    filename = chosen.filename;
    reason = chosen.reason;
  },
});
clearInterval(timer);
const failed = outcomes.filter((outcome) => outcome.status !== 'ok').length;
process.stdout.write(`${JSON.stringify({ workers, task, runs: outcomes.length, failed, rssBefore, rssPeak, sharedBytes, filename: path.relative(ROOT, fileURLToPath(filename)), reason, ms: Math.round(performance.now() - started) })}\n`);
