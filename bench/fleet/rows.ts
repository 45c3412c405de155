/**
 * The fleet suite's rows from its phases' results: names, targets and notes. Judges, never measures.
 */

import { createHistogram, latencyRow } from '../harness.ts';
import type { BenchRow, Histogram } from '../harness.ts';
import { BASIC_WRITE_PER_SEC } from './budget-use.ts';
import type { BudgetResult } from './budget-use.ts';
import type { KillResult } from './kill-propagation.ts';
import type { InProcessResult } from './in-process.ts';
import type { KindResult, PairedResult, RunKind } from './tick-to-trade.ts';

export const SUITE = 'fleet';
const T2T = (kind: RunKind): string => `tick-to-trade: ${kind === 'lone' ? 'lone runtime' : 'fleet runtime (budget lease)'}`;
const SHARE = (mode: string): string => `budget [${mode}, 3 runtimes flooding 1 Basic key]: write-token share admitted`;
const REFUSED = (mode: string): string => `budget [${mode}, 3 runtimes flooding 1 Basic key]: 429 answers`;
const KILL_EACH = (fleet: string): string => `kill switch [${fleet}]: engaged on 1 of 3 -> each other's gate killed`;
const KILL_BOTH = (fleet: string): string => `kill switch [${fleet}]: engaged on 1 of 3 -> both others killed`;
const KILL_LOCAL = (fleet: string): string => `kill switch [${fleet}]: engaged on 1 of 3 -> its record sent to Redis`;
const FLOOR = 'floor: Redis PUBLISH -> 2 subscribers in this process (each)';
const T2T_TARGET = 'p50 and p99 within 2% of lone';
const T2T_PAIRED = (kind: RunKind, position: 'pooled' | 'read first' | 'read second'): string =>
  `tick-to-trade, paired (both at once, same frames${position === 'pooled' ? '' : `, ${position}`}): ${kind === 'lone' ? 'lone runtime' : 'fleet runtime (budget lease)'}`;

/** Every row of a full run, unmeasured, with the reason (e.g. no redis-server). */
export function unmeasuredRows(note: string): BenchRow[] {
  const positions = ['pooled', 'read first', 'read second'] as const;
  const pairedLone = positions.map((position) => T2T_PAIRED('lone', position));
  const pairedFleet = positions.map((position) => T2T_PAIRED('fleet', position));
  const cases = [T2T_IN_PROCESS('lone'), T2T_IN_PROCESS('fleet'), T2T('lone'), T2T('fleet'), ...pairedLone, ...pairedFleet, SHARE('fleet'), REFUSED('fleet'), KILL_EACH('quiet fleet'), KILL_BOTH('quiet fleet'), FLOOR];
  return cases.map((name) => ({ suite: SUITE, case: name, baseline: name === T2T('lone') || name === T2T_IN_PROCESS('lone') || pairedLone.includes(name) || name === FLOOR, count: 0, note }));
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
  return histogramAgainstLone(lone.histogram, fleet.histogram);
}

/**
 * The split-half control: the lone kind's alternate runs (or rounds) merged into two halves and
 * compared as the fleet kind is compared with the lone one. Two halves of one kind differ only by
 * this design's noise on this machine, which a 2% verdict must stand above.
 */
function loneAgainstLone(lone: KindResult): { text: string; p50: number; p99: number } {
  const halves = [createHistogram(), createHistogram()];
  lone.runHistograms.forEach((run, index) => halves[index % 2]!.add(run));
  const [a, b] = halves as [Histogram, Histogram];
  if (a.totalCount === 0 || b.totalCount === 0) return { text: 'control, lone against lone: fewer than two runs', p50: Number.NaN, p99: Number.NaN };
  const p50 = b.getValueAtPercentile(50) / a.getValueAtPercentile(50);
  const p99 = b.getValueAtPercentile(99) / a.getValueAtPercentile(99);
  return { text: `control, lone against lone (its alternate runs merged): p50 ${p50.toFixed(3)}x, p99 ${p99.toFixed(3)}x`, p50, p99 };
}

/**
 * A live row's verdict fields: the 2% target judged where the design's own control (lone against
 * lone) is within 2% at p50 and p99; otherwise not judged, and the note says why (a verdict below
 * the noise would flip from run to run, as it did: fleet p99 1.097x read first in one run, 1.597x
 * read second in the next, each passing the other position).
 */
function judgedIfResolvable(lone: KindResult, pass: boolean): { target?: string; pass?: boolean; control: string } {
  const control = loneAgainstLone(lone);
  const within = (ratio: number): boolean => Math.abs(ratio - 1) <= 0.02;
  if (within(control.p50) && within(control.p99)) return { target: T2T_TARGET, pass, control: control.text };
  return { control: `${control.text}: above the 2% target, so not judged here (the in-process row is)` };
}

function histogramAgainstLone(lone: Histogram, fleet: Histogram): { ratios: string; pass: boolean } {
  const p50 = lone.getValueAtPercentile(50);
  const p99 = lone.getValueAtPercentile(99);
  const fleetP50 = fleet.getValueAtPercentile(50);
  const fleetP99 = fleet.getValueAtPercentile(99);
  const measured = lone.totalCount > 0 && fleet.totalCount > 0;
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
  const { control, ...verdict } = judgedIfResolvable(lone, pass);
  const lease = `lease renewals ${fleet.renewals} (failed ${fleet.renewalFailures}), share at the end ${(fleet.sharePpmEnd / 10_000).toFixed(1)}%`;
  const fleetRow = latencyRow(SUITE, T2T('fleet'), false, fleet.histogram, {
    compareTo: T2T('lone'),
    ...verdict,
    note: `${ratios}; ${control}${pairRatios(results, order)}; ${note(fleet)}; ${lease} (config defaults: lease 2 s, renewed every 250 ms); ${placementNote}`,
  });
  return [loneRow, fleetRow];
}

/**
 * The paired design (tick-to-trade.ts pairedRuns): both kinds over the same rounds, the same frames.
 * The runtime that reads a frame first pays for caches the other finds warm (p50 about 2x apart),
 * so the pooled p50 of both positions sits between two modes and moves with small shifts between
 * them: the 2% target is judged within each read position, lone against fleet, where the
 * position's control resolves it (judgedIfResolvable); the pooled rows stay for reference.
 */
export function pairedRows(results: PairedResult, placementNote: string): BenchRow[] {
  const { lone, fleet } = results.pooled;
  const us = (ns: number): string => (ns / 1000).toFixed(0);
  const perRound = lone.perRun.map((run, i) => `${us(run.p50Ns)}/${us(run.p99Ns)} vs ${us(fleet.perRun[i]?.p50Ns ?? 0)}/${us(fleet.perRun[i]?.p99Ns ?? 0)}`).join(', ');
  const how = `both runtimes at once in this process on the same market's frames, each its own key; ${lone.runs} round(s), the runtime started first (and so reading first) alternating; each round's lone vs fleet p50/p99 us: ${perRound}`;
  const counts = (result: KindResult): string => `book frames ${result.frames}, with an order ${result.framesWithOrder}; orders sent ${result.ordersSent}; denies ${denyText(result.denies)}`;
  const pooled = againstLone(lone, fleet);
  const rows: BenchRow[] = [
    latencyRow(SUITE, T2T_PAIRED('lone', 'pooled'), true, lone.histogram, { note: `frame received -> exec returned (the runtime's probe); ${how}; ${counts(lone)}; ${placementNote}` }),
    latencyRow(SUITE, T2T_PAIRED('fleet', 'pooled'), false, fleet.histogram, {
      compareTo: T2T_PAIRED('lone', 'pooled'),
      note: `${pooled.ratios} (for reference: both read positions pooled; judged by position below); the work per order compared: the lease's timer runs on the loop both share; ${counts(fleet)}; lease renewals ${fleet.renewals} (failed ${fleet.renewalFailures}); ${placementNote}`,
    }),
  ];
  for (const position of ['read first', 'read second'] as const) {
    const kinds = position === 'read first' ? results.readFirst : results.readSecond;
    const { ratios, pass } = againstLone(kinds.lone, kinds.fleet);
    const { control, ...verdict } = judgedIfResolvable(kinds.lone, pass);
    const runs = (result: KindResult): string => result.perRun.map((run) => `${us(run.p50Ns)}/${us(run.p99Ns)}`).join(', ');
    rows.push(
      latencyRow(SUITE, T2T_PAIRED('lone', position), true, kinds.lone.histogram, { note: `the rounds in which the lone runtime read each frame ${position === 'read first' ? 'first' : 'second'} (${kinds.lone.runs}); each round's p50/p99 us: ${runs(kinds.lone)}` }),
      latencyRow(SUITE, T2T_PAIRED('fleet', position), false, kinds.fleet.histogram, {
        compareTo: T2T_PAIRED('lone', position),
        ...verdict,
        note: `${ratios}; ${control}; the rounds in which the fleet runtime read each frame ${position === 'read first' ? 'first' : 'second'} (${kinds.fleet.runs}); each round's p50/p99 us: ${runs(kinds.fleet)}`,
      }),
    );
  }
  return rows;
}

const T2T_IN_PROCESS = (kind: RunKind): string => `tick-to-trade in process (frame bytes in -> order bytes out): ${kind === 'lone' ? "lone runtime's path" : "fleet runtime's path (leased budget and limit shares)"}`;

/** The in-process comparison (in-process.ts): judged on 2% at p50 and p99, as the live rows. */
export function inProcessRows(result: InProcessResult): BenchRow[] {
  const verdict = histogramAgainstLone(result.lone, result.fleet);
  const control = histogramAgainstLone(result.lone, result.control);
  const resolves = control.pass && histogramAgainstLone(result.control, result.lone).pass;
  const how = `the runtime's whole path in this process (bench/hot-path's wiring, a sink for the order bytes), three instances interleaved frame by frame, ${result.frames} frames timed each over ${result.rounds} rounds of fresh instances (one per build order, each role built first, second and third alike), driver clock around Feed.handleBytes`;
  return [
    latencyRow(SUITE, T2T_IN_PROCESS('lone'), true, result.lone, { note: `${how}; orders ${result.orders.lone}, denies ${result.denies.lone}` }),
    latencyRow(SUITE, T2T_IN_PROCESS('fleet'), false, result.fleet, {
      compareTo: T2T_IN_PROCESS('lone'),
      ...(resolves ? { target: T2T_TARGET, pass: verdict.pass && result.denies.fleet === 0 && result.orders.fleet === result.orders.lone } : {}),
      note: `${verdict.ratios}; control, a second lone instance in the same interleaving: ${control.ratios}${resolves ? '' : ' (above 2%: not judged)'}; ${result.leased}; orders ${result.orders.fleet}, denies ${result.denies.fleet}; the lease's renewals are off this path (the live rows carry them)`,
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
