/**
 * Scale suite (issue "3 of 6", "Performance to reach"): the sample maker (strategies/market-maker.ts)
 * quoting both sides of N markets against the simulator in a process of its own (bench/scale/
 * sim-child.ts: N synthetic markets, activity at the case's update rate, the rate limits of a key
 * of the case's tier enforced), the runtime reading its budgets from GET /account/limits at start.
 * Every case runs twice in the same run: holding the intents the write bucket cannot pay for
 * (holdIntents true, the default) and beside it today's behaviour (holdIntents false: denied
 * RATE_LIMITED), each as a fresh user with a fresh key (buckets full at start).
 *
 * Per case and mode (run-case.ts measures, this file judges):
 * - start-up: runtime.start() -> every book synced, against its floor: the read tokens the venue
 *   admitted until then, less the read bucket's capacity (it starts full), at the read rate;
 * - coverage: the strategy started -> every quote slot (market x side) has rested once, and -> 2N
 *   quotes resting at once, each against 2N x 10 tokens / write rate (target <= 1.15x; the flow
 *   fills quotes meanwhile, so 2N at once can lie past the floor). A case whose floor exceeds its
 *   duration (Basic, 1,000 and 5,000 markets) reports the slots rested by the end and their rate
 *   against the floor rate;
 * - steady state (from max(coverage, 5 s)): the share of the write rate the venue admitted over
 *   the seconds in which demand exceeded the budget (held intents waiting while the gate's bucket
 *   could not pay for two creates, or RATE_LIMITED denies in that second; target >= 0.95), RATE_LIMITED denies per second (target 0 when holding), 429
 *   answers from the venue over the whole run (target 0);
 * - cost: tick-to-trade of the orders sent inside a book frame (the runtime's probe: frame
 *   received -> exec returned), event-loop delay p99 (target <= 2 ms at 50,000 updates/s), this
 *   process's CPU share over the steady state and its RSS peak (target <= 500 MB at 5,000 markets).
 *   perf_hooks' monitorEventLoopDelay records the interval between two runs of its 1 ms timer, the
 *   1 ms included (an idle process reads p50 ~1.1 ms): the delay judged is that interval less the
 *   resolution, i.e. how late the timer ran; the raw interval is its own row, beside the same
 *   histogram of this process idle for IDLE_LOOP_MS before the first case.
 *
 * Matrix: the default runs four cases (Basic 100 markets at 5,000/s, Prime 1,000 at 5,000/s,
 * Prime 5,000 at 50,000/s, Basic 5,000 at 50,000/s); `--full` (or BENCH_SCALE_FULL=1) runs all
 * twelve (100, 1,000, 5,000 markets x 5,000, 50,000 updates/s x Basic, Prime). Each run lasts
 * 1.2x its coverage floor + 8 s, within [20 s, 40 s]; --quick: two cases of 10 s.
 * BENCH_SCALE_ONLY=tier:markets:rate runs one case of the full matrix and BENCH_SCALE_MODE=hold|deny one
 * of its two modes (profiling: NODE_OPTIONS=--cpu-prof).
 * Placement as bench/tick-to-trade: the runtime's event loop on the first CPU, the simulator on
 * the others (BENCH_PLACEMENT=off: none). Children are stopped by their own handles.
 */

import { mkdtempSync, rmSync } from 'node:fs';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { placementForThisMachine } from '../../src/runtime/cpu-placement.ts';
import { BenchChild } from '../child-process.ts';
import { latencyRow } from '../harness.ts';
import type { BenchRow, BenchSuite } from '../harness.ts';
import { runCase, type CaseResult, type ScaleCase, type ScaleTier } from './run-case.ts';

const SUITE = 'scale';
/** monitorEventLoopDelay's timer period, ns: each sample is the interval between two of its runs. */
const LOOP_RESOLUTION_NS = 1e6;
/** How long the idle control samples this process's loop before the first case. */
const IDLE_LOOP_MS = 3_000;
const REPO_DIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
/** Tokens per create (rest.md §9): what one resting quote costs at least. */
const CREATE_TOKENS = 10;
/** Read and write rates and the read capacity of each tier (src/sim/rate-limit/tiers.ts). */
const TIERS: Record<ScaleTier, { readPerSec: number; readCapacity: number; writePerSec: number }> = {
  basic: { readPerSec: 200, readCapacity: 200, writePerSec: 100 },
  prime: { readPerSec: 4_000, readCapacity: 4_000, writePerSec: 4_000 },
};
const DEFAULT_MATRIX: ReadonlyArray<Omit<ScaleCase, 'durationMs'>> = [
  { tier: 'basic', markets: 100, updatesPerSec: 5_000 },
  { tier: 'prime', markets: 1_000, updatesPerSec: 5_000 },
  { tier: 'prime', markets: 5_000, updatesPerSec: 50_000 },
  { tier: 'basic', markets: 5_000, updatesPerSec: 50_000 },
];

function fullMatrix(): Array<Omit<ScaleCase, 'durationMs'>> {
  const cases: Array<Omit<ScaleCase, 'durationMs'>> = [];
  for (const markets of [100, 1_000, 5_000]) for (const updatesPerSec of [5_000, 50_000]) for (const tier of ['basic', 'prime'] as const) cases.push({ tier, markets, updatesPerSec });
  return cases;
}

function coverageFloorMs(scale: Omit<ScaleCase, 'durationMs'>): number {
  return ((2 * scale.markets * CREATE_TOKENS) / TIERS[scale.tier].writePerSec) * 1000;
}

function durationMs(scale: Omit<ScaleCase, 'durationMs'>, quick: boolean): number {
  if (quick) return 10_000;
  return Math.min(40_000, Math.max(20_000, Math.round(1.2 * coverageFloorMs(scale) + 8_000)));
}

const label = (scale: ScaleCase, hold: boolean): string =>
  `[${scale.tier}, ${scale.markets.toLocaleString('en-US')} mkts, ${scale.updatesPerSec / 1000}k upd/s, ${hold ? 'hold' : 'deny (today)'}]`;

export default {
  name: SUITE,
  async run({ quick }): Promise<BenchRow[]> {
    const full = !quick && (process.argv.includes('--full') || process.env.BENCH_SCALE_FULL === '1');
    const only = process.env.BENCH_SCALE_ONLY ?? ''; // e.g. "prime:5000:50000": one case of the full matrix (profiling)
    const matrix = only !== '' ? fullMatrix().filter((scale) => `${scale.tier}:${scale.markets}:${scale.updatesPerSec}` === only)
      : quick ? DEFAULT_MATRIX.slice(0, 2) : full ? fullMatrix() : DEFAULT_MATRIX;
    const modes = process.env.BENCH_SCALE_MODE === 'hold' ? [true] : process.env.BENCH_SCALE_MODE === 'deny' ? [false] : [true, false];
    const placement = process.env.BENCH_PLACEMENT === 'off' ? { plan: null, reason: 'placement off (BENCH_PLACEMENT=off)' } : placementForThisMachine();
    const work = mkdtempSync(path.join(tmpdir(), 'bench-scale-'));
    const idle = await idleLoopInterval(IDLE_LOOP_MS);
    const rows: BenchRow[] = [];
    let runIndex = 1;
    try {
      // One simulator per (markets, rate): its tiers' runs each trade as a user of their own.
      const groups = new Map<string, Array<Omit<ScaleCase, 'durationMs'>>>();
      for (const scale of matrix) {
        const groupKey = `${scale.markets}/${scale.updatesPerSec}`;
        groups.set(groupKey, [...(groups.get(groupKey) ?? []), scale]);
      }
      for (const group of groups.values()) {
        const { markets, updatesPerSec } = group[0]!;
        const sim = await BenchChild.start(path.join('bench', 'scale', 'sim-child.ts'), [work, String(markets), String(updatesPerSec)], 120_000, placement.plan?.simCpus ?? null);
        try {
          const tickers = (sim.ready.tickers as string[]).slice(0, markets);
          for (const base of group) {
            const scale: ScaleCase = { ...base, durationMs: durationMs(base, quick) };
            for (const hold of modes) {
              console.error(`bench scale: ${label(scale, hold)} for ${scale.durationMs / 1000} s ...`);
              const result = await runCase(sim, tickers, scale, hold, REPO_DIR, work, runIndex++, placement.plan?.runtimeCpus ?? null);
              const others = placement.plan === null ? '' : `, the runtime's other threads (workers, V8 helpers) on CPU ${placement.plan.simCpus} too`;
              rows.push(...caseRows(scale, hold, result, `${placement.reason}${others}`, idle));
            }
          }
        } finally {
          await sim.stop();
        }
      }
    } finally {
      rmSync(work, { recursive: true, force: true });
    }
    return rows;
  },
} satisfies BenchSuite;

interface Steady {
  /** Write tokens admitted / (write rate x seconds) over the over-demand seconds; -1 when there were none. */
  share: number;
  overDemandSeconds: number;
  rateLimitedPerSec: number;
  cpuShare: number;
  seconds: number;
}

/** Steady-state figures from the per-second samples at or after result.steadyFromMs. */
function steadyState(result: CaseResult, hold: boolean, writePerSec: number): Steady {
  let tokens = 0;
  let overSeconds = 0;
  let windowSeconds = 0;
  let denies = 0;
  let cpuUs = 0;
  const samples = result.seconds;
  for (let i = 1; i < samples.length; i++) {
    const before = samples[i - 1]!;
    const after = samples[i]!;
    if (before.atMs < result.steadyFromMs) continue;
    const seconds = (after.atMs - before.atMs) / 1000;
    windowSeconds += seconds;
    denies += after.rateLimited - before.rateLimited;
    cpuUs += after.cpuUs - before.cpuUs;
    // Holding: intents held while the bucket was short (held for a busy route is not over-budget demand).
    const overDemand = hold ? (before.held > 0 && before.budgetBound) || (after.held > 0 && after.budgetBound) : after.rateLimited > before.rateLimited;
    if (!overDemand) continue;
    overSeconds += seconds;
    tokens += after.writeTokens - before.writeTokens;
  }
  return {
    share: overSeconds === 0 ? -1 : tokens / (writePerSec * overSeconds),
    overDemandSeconds: overSeconds,
    rateLimitedPerSec: windowSeconds === 0 ? 0 : denies / windowSeconds,
    cpuShare: windowSeconds === 0 ? 0 : cpuUs / 1e6 / windowSeconds,
    seconds: windowSeconds,
  };
}

const round2 = (value: number): number => Math.round(value * 100) / 100;
const ms = (ns: number): string => (ns / 1e6).toFixed(2);
/** A timer interval as lateness: less the timer's period (a shift, so percentiles map one to one), at least 0. */
const late = (intervalNs: number): number => Math.max(0, intervalNs - LOOP_RESOLUTION_NS);

interface LoopInterval {
  p50Ns: number;
  p99Ns: number;
  maxNs: number;
}

/** monitorEventLoopDelay over `forMs` of this process doing nothing: the period's own floor. */
async function idleLoopInterval(forMs: number): Promise<LoopInterval> {
  const histogram = monitorEventLoopDelay({ resolution: LOOP_RESOLUTION_NS / 1e6 });
  histogram.enable();
  await new Promise((resolve) => setTimeout(resolve, forMs));
  histogram.disable();
  return { p50Ns: histogram.percentile(50), p99Ns: histogram.percentile(99), maxNs: histogram.max };
}

function caseRows(scale: ScaleCase, hold: boolean, result: CaseResult, placementNote: string, idle: LoopInterval): BenchRow[] {
  const tier = TIERS[scale.tier];
  const name = label(scale, hold);
  const base = label(scale, false);
  const compare = (suffix: string): Partial<BenchRow> => (hold ? { compareTo: `${base} ${suffix}` } : {});
  const row = (suffix: string, extra: Partial<BenchRow>): BenchRow => ({ suite: SUITE, case: `${name} ${suffix}`, baseline: !hold, count: 1, ...compare(suffix), ...extra });
  const steady = steadyState(result, hold, tier.writePerSec);
  const startupFloorMs = (Math.max(0, result.startupReadTokens - tier.readCapacity) / tier.readPerSec) * 1000;
  const big = scale.markets >= 5_000;
  return [
    row('start-up: all books synced', {
      value: Math.round(result.startupMs), unit: 'ms',
      note: `start() resolved after ${Math.round(result.startResolvedMs)} ms (order entry, feed, worker pool, strategy deployed); floor ${Math.round(startupFloorMs)} ms: ${result.startupReadTokens} read tokens admitted until synced, less the ${tier.readCapacity}-token bucket, at ${tier.readPerSec}/s (reads x cost / rate: ${Math.round((result.startupReadTokens / tier.readPerSec) * 1000)} ms)`,
    }),
    ...coverageRows(scale, result, row),
    row('steady: write-token share while demand > budget', {
      value: steady.share < 0 ? 0 : round2(steady.share), unit: 'x budget',
      ...(steady.share < 0 ? {} : { target: '>= 0.95', pass: steady.share >= 0.95 }),
      note: `over ${steady.overDemandSeconds.toFixed(0)} s of ${steady.seconds.toFixed(0)} s steady (from ${(result.steadyFromMs / 1000).toFixed(1)} s); write rate ${tier.writePerSec}/s; ` +
        `held sent ${result.holdStats.heldSent}, dropped ${result.holdStats.heldDropped}, V2 batches ${result.holdStats.batchesSent} (${result.holdStats.batchedOrders} orders); creates sent ${result.ordersSent}, fills ${result.fills}, resyncs ${result.resyncs}`,
    }),
    row('steady: RATE_LIMITED denies/s', { value: round2(steady.rateLimitedPerSec), unit: '/s', ...(hold ? { target: '0', pass: steady.rateLimitedPerSec === 0 } : {}), note: `denies (whole run) ${JSON.stringify(result.denies)}` }),
    row('429 answers from the venue (whole run)', { value: result.refused429, unit: '429s', target: '0', pass: result.refused429 === 0, note: `${result.refused429Read} on the read bucket, ${result.refused429 - result.refused429Read} on the write bucket` }),
    latencyRow(SUITE, `${name} tick-to-trade of orders sent (probe)`, !hold, result.ticks, { ...compare('tick-to-trade of orders sent (probe)'), note: `frame received -> exec returned, orders sent inside a book frame; ${placementNote}` }),
    row('event-loop delay', {
      count: result.loopDelay.count, p50Ns: late(result.loopDelay.p50Ns), p99Ns: late(result.loopDelay.p99Ns), p999Ns: late(result.loopDelay.p999Ns), maxNs: late(result.loopDelay.maxNs), meanNs: late(result.loopDelay.meanNs),
      ...(scale.updatesPerSec >= 50_000 ? { target: 'p99 <= 2 ms', pass: late(result.loopDelay.p99Ns) <= 2e6 } : {}),
      note: `how late perf_hooks' 1 ms timer ran: the row below less the 1 ms period, trading phase; simulator delivered ${Math.round(result.deliveredUpdatesPerSec)} book updates/s (asked ${scale.updatesPerSec}); ` +
        `order-route requests signed on the loop (RSA, ~1 ms each; no presigned signature ready): ${result.signing.inlineSigned} of ${result.signing.requests}, per-order and batch ones signed by the worker on demand instead ${result.signing.workerSigned}; ` +
        `keep-warm (process.keepWarmMs): ${result.keepWarm.runs} runs, ${result.keepWarm.thinned} ticks thinned, ${result.keepWarm.busyMs} ms of loop time`,
    }),
    row('event-loop timer interval (monitorEventLoopDelay as recorded)', {
      count: result.loopDelay.count, p50Ns: result.loopDelay.p50Ns, p99Ns: result.loopDelay.p99Ns, p999Ns: result.loopDelay.p999Ns, maxNs: result.loopDelay.maxNs, meanNs: result.loopDelay.meanNs,
      note: `the interval between two runs of the 1 ms timer, the period included; this process idle before the first case (${IDLE_LOOP_MS / 1000} s): p50 ${ms(idle.p50Ns)}, p99 ${ms(idle.p99Ns)}, max ${ms(idle.maxNs)} ms`,
    }),
    row('runtime RSS peak', {
      value: Math.round(result.rssMaxBytes / 1e6), unit: 'MB', cpuShare: round2(steady.cpuShare),
      ...(big ? { target: '<= 500 MB', pass: result.rssMaxBytes <= 500e6 } : {}),
      note: 'cpu: this process (runtime, its worker threads) over the steady state',
    }),
  ];
}

function coverageRows(scale: ScaleCase, result: CaseResult, row: (suffix: string, extra: Partial<BenchRow>) => BenchRow): BenchRow[] {
  const floorMs = coverageFloorMs(scale);
  const target = 2 * scale.markets;
  if (floorMs < scale.durationMs) {
    const ratio = result.coverageMs < 0 ? -1 : result.coverageMs / floorMs;
    const slotsRatio = result.slotsCoveredMs < 0 ? -1 : result.slotsCoveredMs / floorMs;
    // The flow fills quotes while the rest are placed; each costs a create to replace, so 2N at
    // once can lie beyond the floor. Every slot quoted once is the floor's own measure.
    const slots = row('coverage: every quote slot rested once', {
      value: result.slotsCoveredMs < 0 ? -1 : round2(result.slotsCoveredMs / 1000), unit: 's',
      target: '<= 1.15x floor', pass: slotsRatio >= 0 && slotsRatio <= 1.15,
      note: `${slotsRatio < 0 ? `${result.slotsCovered} of ${target} slots in ${(result.tradingMs / 1000).toFixed(0)} s` : `${slotsRatio.toFixed(2)}x floor`}; fills meanwhile took quotes away (fills ${result.fills} over the run), sampled every 250 ms`,
    });
    return [slots, row('coverage: 2N resting quotes', {
      value: result.coverageMs < 0 ? -1 : round2(result.coverageMs / 1000), unit: 's',
      target: '<= 1.15x floor', pass: ratio >= 0 && ratio <= 1.15,
      note: `floor ${(floorMs / 1000).toFixed(2)} s (2N x ${CREATE_TOKENS} tokens / ${TIERS[scale.tier].writePerSec} per s); ${ratio < 0 ? `not reached in ${(result.tradingMs / 1000).toFixed(0)} s` : `${ratio.toFixed(2)}x floor`}; resting max ${result.restingMax} of ${target}, at the end ${result.restingEnd} (venue: ${result.venueRestingEnd}; live by state ${JSON.stringify(result.statesAtEnd)})`,
    })];
  }
  // Capped: the floor is beyond the case's duration; the rate at which quote slots were first
  // rested against the floor rate instead (slots, not quotes resting now: fills take some away).
  const floorRate = TIERS[scale.tier].writePerSec / CREATE_TOKENS;
  const seconds = result.tradingMs / 1000;
  const rate = result.slotsCovered / seconds;
  return [row('coverage: quote slots rested by the cap', {
    value: round2(result.slotsCovered / target), unit: 'of 2N',
    target: 'rate >= floor rate / 1.15', pass: rate >= floorRate / 1.15,
    note: `floor ${(floorMs / 1000).toFixed(0)} s > the ${(scale.durationMs / 1000).toFixed(0)} s cap; ${result.slotsCovered} of ${target} slots rested in ${seconds.toFixed(1)} s: ${rate.toFixed(1)} slots/s vs the floor rate ${floorRate}/s (${(rate / floorRate).toFixed(2)}x); resting at the end ${result.restingEnd}, fills ${result.fills}`,
  })];
}
