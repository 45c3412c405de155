/**
 * The fleet suite's rows from its phases' results: names, targets and notes. Judges, never measures.
 */

import { latencyRow } from '../harness.ts';
import type { BenchRow, Histogram } from '../harness.ts';
import { BASIC_WRITE_PER_SEC } from './budget-use.ts';
import type { BudgetResult } from './budget-use.ts';
import type { KillResult } from './kill-propagation.ts';
import type { KindResult, RunKind } from './tick-to-trade.ts';

export const SUITE = 'fleet';
const T2T = (kind: RunKind): string => `tick-to-trade: ${kind === 'lone' ? 'lone runtime' : 'fleet runtime (budget lease)'}`;
const SHARE = (mode: string): string => `budget [${mode}, 3 runtimes flooding 1 Basic key]: write-token share admitted`;
const REFUSED = (mode: string): string => `budget [${mode}, 3 runtimes flooding 1 Basic key]: 429 answers`;
const KILL_EACH = (fleet: string): string => `kill switch [${fleet}]: engaged on 1 of 3 -> each other's gate killed`;
const KILL_BOTH = (fleet: string): string => `kill switch [${fleet}]: engaged on 1 of 3 -> both others killed`;
const KILL_LOCAL = (fleet: string): string => `kill switch [${fleet}]: engaged on 1 of 3 -> its record sent to Redis`;
const FLOOR = 'floor: Redis PUBLISH -> 2 subscribers in this process (each)';
const T2T_TARGET = 'p50 and p99 within 2% of lone';
const T2T_PAIRED = (kind: RunKind): string => `tick-to-trade, paired (both at once, same frames): ${kind === 'lone' ? 'lone runtime' : 'fleet runtime (budget lease)'}`;

/** Every row of a full run, unmeasured, with the reason (e.g. no redis-server). */
export function unmeasuredRows(note: string): BenchRow[] {
  const cases = [T2T('lone'), T2T('fleet'), T2T_PAIRED('lone'), T2T_PAIRED('fleet'), SHARE('fleet'), REFUSED('fleet'), KILL_EACH('quiet fleet'), KILL_BOTH('quiet fleet'), FLOOR];
  return cases.map((name) => ({ suite: SUITE, case: name, baseline: name === T2T('lone') || name === T2T_PAIRED('lone') || name === FLOOR, count: 0, note }));
}

function denyText(denies: Record<string, number>): string {
  const entries = Object.entries(denies);
  return entries.length === 0 ? 'none' : entries.map(([code, count]) => `${code} ${count}`).join(', ');
}

/** p50 fleet / lone of each adjacent pair of runs in run order (the pairs of lone, fleet, fleet, lone, ...). */
function pairRatios(results: Record<RunKind, KindResult>, order: readonly RunKind[]): string {
  const next: Record<RunKind, number> = { lone: 0, fleet: 0 };
  const p50s = order.map((kind) => ({ kind, p50Ns: results[kind].perRun[next[kind]++]?.p50Ns ?? 0 }));
  const ratios: string[] = [];
  for (let i = 0; i + 1 < p50s.length; i += 2) {
    const [a, b] = [p50s[i]!, p50s[i + 1]!];
    if (a.kind === b.kind) continue;
    const [fleet, lone] = a.kind === 'fleet' ? [a, b] : [b, a];
    if (lone.p50Ns > 0) ratios.push((fleet.p50Ns / lone.p50Ns).toFixed(2));
  }
  return ratios.length === 0 ? '' : `; p50 fleet/lone of adjacent runs: ${ratios.join(', ')}`;
}

/** The fleet kind's p50 and p99 against the lone one's: the ratios' text and the 2% target's verdict. */
function againstLone(lone: KindResult, fleet: KindResult): { ratios: string; pass: boolean } {
  const p50 = lone.histogram.getValueAtPercentile(50);
  const p99 = lone.histogram.getValueAtPercentile(99);
  const fleetP50 = fleet.histogram.getValueAtPercentile(50);
  const fleetP99 = fleet.histogram.getValueAtPercentile(99);
  const measured = lone.histogram.totalCount > 0 && fleet.histogram.totalCount > 0;
  return {
    ratios: measured ? `p50 ${(fleetP50 / p50).toFixed(3)}x, p99 ${(fleetP99 / p99).toFixed(3)}x lone` : 'not measured (no samples)',
    pass: measured && fleetP50 <= 1.02 * p50 && fleetP99 <= 1.02 * p99,
  };
}

export function tickToTradeRows(results: Record<RunKind, KindResult>, order: readonly RunKind[], placementNote: string): BenchRow[] {
  const lone = results.lone;
  const fleet = results.fleet;
  const us = (ns: number): string => (ns / 1000).toFixed(0);
  const spread = (result: KindResult): string => result.perRun.map((run) => `${us(run.p50Ns)}/${us(run.p99Ns)}`).join(', ');
  const note = (result: KindResult): string =>
    `frame received -> exec returned (the runtime's probe), ${result.runs} run(s), each run's p50/p99 us: ${spread(result)}; book frames ${result.frames}, with an order ${result.framesWithOrder}; orders sent ${result.ordersSent}; denies (whole runs) ${denyText(result.denies)}`;
  const loneRow = latencyRow(SUITE, T2T('lone'), true, lone.histogram, { note: `${note(lone)}; ${placementNote}` });
  const { ratios, pass } = againstLone(lone, fleet);
  const lease = `lease renewals ${fleet.renewals} (failed ${fleet.renewalFailures}), share at the end ${(fleet.sharePpmEnd / 10_000).toFixed(1)}%`;
  const fleetRow = latencyRow(SUITE, T2T('fleet'), false, fleet.histogram, {
    compareTo: T2T('lone'),
    target: T2T_TARGET,
    pass,
    note: `${ratios}${pairRatios(results, order)}; ${note(fleet)}; ${lease} (config defaults: lease 2 s, renewed every 250 ms); ${placementNote}`,
  });
  return [loneRow, fleetRow];
}

/** The paired design (tick-to-trade.ts pairedRuns): both kinds over the same rounds, the same frames. */
export function pairedRows(results: Record<RunKind, KindResult>, placementNote: string): BenchRow[] {
  const { lone, fleet } = results;
  const us = (ns: number): string => (ns / 1000).toFixed(0);
  const perRound = lone.perRun.map((run, i) => `${us(run.p50Ns)}/${us(run.p99Ns)} vs ${us(fleet.perRun[i]?.p50Ns ?? 0)}/${us(fleet.perRun[i]?.p99Ns ?? 0)}`).join(', ');
  // The runtime read first (started first: lone on even rounds) pays for the cold caches after the
  // idle wait; the second finds them warm: compare each position with itself.
  const median = (values: number[]): number => (values.length === 0 ? 0 : [...values].sort((a, b) => a - b)[values.length >> 1]!);
  const p50At = (result: KindResult, first: boolean, kindIsLone: boolean): number =>
    median(result.perRun.filter((_, round) => (round % 2 === 0) === (kindIsLone === first)).map((run) => run.p50Ns));
  const positions = `median p50 of the rounds read first: lone ${us(p50At(lone, true, true))}, fleet ${us(p50At(fleet, true, false))} us; read second: lone ${us(p50At(lone, false, true))}, fleet ${us(p50At(fleet, false, false))} us`;
  const how = `both runtimes at once in this process on the same market's frames, each its own key; ${lone.runs} round(s), the runtime started first alternating; ${positions}; each round's lone vs fleet p50/p99 us: ${perRound}`;
  const counts = (result: KindResult): string => `book frames ${result.frames}, with an order ${result.framesWithOrder}; orders sent ${result.ordersSent}; denies ${denyText(result.denies)}`;
  const { ratios, pass } = againstLone(lone, fleet);
  return [
    latencyRow(SUITE, T2T_PAIRED('lone'), true, lone.histogram, { note: `frame received -> exec returned (the runtime's probe); ${how}; ${counts(lone)}; ${placementNote}` }),
    latencyRow(SUITE, T2T_PAIRED('fleet'), false, fleet.histogram, {
      compareTo: T2T_PAIRED('lone'),
      target: T2T_TARGET,
      pass,
      note: `${ratios}; the work per order compared: the lease's timer runs on the loop both share; ${counts(fleet)}; lease renewals ${fleet.renewals} (failed ${fleet.renewalFailures}); ${placementNote}`,
    }),
  ];
}

const round1 = (value: number): number => Math.round(value * 10) / 10;

export function budgetRows(mode: string, result: BudgetResult, baseline: boolean): BenchRow[] {
  const refused = result.refused.reads + result.refused.writes;
  const runtimes = result.perRuntime
    .map((entry, index) => `rt${index + 1}: ${entry.ordersSent} orders${entry.sharePpm < 0 ? '' : `, share ${(entry.sharePpm / 10_000).toFixed(1)}%`}, RATE_LIMITED ${entry.rateLimited}`)
    .join('; ');
  const leased = result.leasedAfterMs < 0 ? 'no leases' : `every lease held ${Math.round(result.leasedAfterMs)} ms after start`;
  return [
    {
      suite: SUITE, case: SHARE(mode), baseline, count: 1,
      value: round1(result.share * 100), unit: '% of budget',
      ...(baseline ? {} : { target: '>= 90%', pass: result.share >= 0.9 }),
      note: `${result.writeTokens} write tokens admitted in ${result.windowSeconds.toFixed(1)} s against ${BASIC_WRITE_PER_SEC}/s${result.leasedAfterMs < 0 ? '' : ' (leases add up to 98% at most)'}; ${leased}; ${runtimes}`,
    },
    {
      suite: SUITE, case: REFUSED(mode), baseline, count: 1,
      value: refused, unit: '429s',
      ...(baseline ? {} : { target: '0', pass: refused === 0 }),
      note: `from the first start to the window's end: reads ${result.refused.reads}, writes ${result.refused.writes}`,
    },
  ];
}

export function killRows(fleet: string, result: KillResult): BenchRow[] {
  const health = `${result.reps} repetitions, engaging runtime in turn; missed (not killed within 3 s) ${result.missed}; gates that flipped on their own ${result.anomalies}`;
  const how = 'stamped when its OMS logs the kill, just before gate.kill(); released between repetitions with publishKillRecord(engaged false), as `npm run fleet -- release`; all three runtimes share this process\'s event loop';
  return [
    latencyRow(SUITE, KILL_EACH(fleet), false, result.each, { compareTo: FLOOR, note: `${health}; ${how}` }),
    latencyRow(SUITE, KILL_BOTH(fleet), false, result.both, { compareTo: FLOOR, note: 'the later of the two other runtimes, per repetition' }),
    latencyRow(SUITE, KILL_LOCAL(fleet), false, result.local, {
      note: 'engageKillSwitch() returned: the engaging runtime journaled the kill (sync write), halted, sent its cancel-all, then wrote SET + PUBLISH to Redis; the part of the rows above spent before anything left this runtime',
    }),
  ];
}

export function floorRow(floor: { each: Histogram; missed: number }): BenchRow {
  return latencyRow(SUITE, FLOOR, true, floor.each, { note: `a kill record's bytes, publish call -> each message handler; missed ${floor.missed}` });
}
