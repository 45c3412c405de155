/**
 * Child process of the sweep bench's replays/s case: runs the shipped recording's 96-combination
 * sweep (halfSpreadTicks x order latency) on a pool of N workers and prints one JSON line: the
 * steady-state rate (runs finished after every worker finished its first, so worker start-up is
 * left out) and that start-up. Its own process so it starts with the node flags asked for (V8
 * flags are process-wide): the suite runs it as `npm run sweep` starts (SWEEP_NODE_FLAGS) and
 * without them. Usage:
 *   node [flags] --import tsx bench/sweep/speed-child.ts <workers> <combinations, a multiple of 4> [uncapped]
 * `uncapped`: the workers' young generation left to V8 (the baseline of WORKER_YOUNG_GENERATION_MB).
 */

import { runSweep } from '../../src/replay/sweep/sweep-pool.ts';
import { FIXTURE, speedCombinations, sweepShared } from './sweep-inputs.ts';

const [workersText, runsText, young] = process.argv.slice(2);
const workers = Number(workersText);
const runs = Number(runsText);
if (!(workers >= 1 && workers <= 16) || !(runs >= 4 && runs % 4 === 0 && runs <= 4_000) || (young !== undefined && young !== 'uncapped')) throw new Error('usage: speed-child.ts <workers 1..16> <combinations, a multiple of 4> [uncapped]');

const shared = await sweepShared(FIXTURE);
const combinations = speedCombinations(runs);
const start = performance.now();
const doneAt: number[] = [];
const outcomes = await runSweep(combinations, { shared, workers, retries: 0, onProgress: () => doneAt.push(performance.now()), ...(young === 'uncapped' ? { youngGenerationMb: null } : {}) });
const failed = outcomes.filter((outcome) => outcome.status !== 'ok').length;
const first = doneAt[workers - 1];
const last = doneAt[doneAt.length - 1];
const steadyRuns = doneAt.length - workers;
process.stdout.write(`${JSON.stringify({ workers, flags: process.execArgv.filter((flag) => flag !== '--import' && flag !== 'tsx'), rate: steadyRuns / ((last - first) / 1000), startupMs: Math.round(first - start), runs: steadyRuns, failed })}\n`);
