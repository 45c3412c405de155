/**
 * The bench harness: the row format every suite reports, HDR latency percentiles
 * (hdr-histogram-js), bounded throughput loops, and the table printer. Suites (bench/<folder>/suite.ts)
 * measure real work through public APIs and put each baseline (naive version, peer library, floor)
 * beside it in the same run; bench/run.ts runs them and writes bench/results/*.json, and bench/doc.ts
 * renders bench/RESULTS.md. This file never decides what a suite measures and never writes files.
 *
 * Throughput is a careful hand loop rather than benchmark.js: the op is a tight loop over a recorded
 * stream, already amortising call overhead, and a hand loop keeps every run bounded in count and time.
 * Latency is per call, timed with performance.now() (sub-ns resolution, ~30-60 ns per read on this
 * class of machine); suites add a "timer floor" baseline row so readers can see that cost.
 * Throughput rounds also read process.cpuUsage(): on a shared machine the wall-clock rate measures
 * the neighbours as much as the code, so rows carry both, and ratios use the CPU-time rate when
 * both rows have one.
 */

import * as hdr from 'hdr-histogram-js';
import { performance } from 'node:perf_hooks';

export interface BenchRow {
  suite: string;
  case: string;
  /** Baseline rows are the comparison (naive, peer, floor). */
  baseline: boolean;
  /** Samples or operations measured. */
  count: number;
  opsPerSec?: number;
  /** Operations per second of this process's CPU time (user + system): steadier than opsPerSec on a shared machine. */
  opsPerCpuSec?: number;
  /** CPU time / wall time while measuring: below ~0.9 the machine was taking the core away. */
  cpuShare?: number;
  p50Ns?: number;
  p99Ns?: number;
  p999Ns?: number;
  maxNs?: number;
  meanNs?: number;
  note?: string;
  // Additions to the lead's contract (optional):
  /** Case name of the baseline row this row is compared with (ratio in the table and RESULTS.md). */
  compareTo?: string;
  /** A non-latency measurement (bytes, bytes per book...) and its unit. */
  value?: number;
  unit?: string;
  /** A stated target ("≥ 5M/s") and whether this run met it. */
  target?: string;
  pass?: boolean;
  /**
   * The latency percentile curve, [percentile, ns] pairs in increasing percentile order, ending with
   * [100, max]: what `npm run bench:doc` plots (bench/plots/). Rows made by latencyRow carry it; rows
   * from older result files, or built by hand, have only p50/p99/p99.9/max and are plotted from those.
   */
  curveNs?: Array<[number, number]>;
}

export interface BenchOptions {
  /** CI smoke mode: a fraction of the samples and time, same code paths. */
  quick: boolean;
}

export interface BenchSuite {
  name: string;
  run(options: BenchOptions): Promise<BenchRow[]>;
}

export type Histogram = hdr.Histogram;

/** Highest latency tracked exactly: 60 s in ns. Larger samples are clamped to it. */
export const HIGHEST_NS = 60_000_000_000;

/** An HDR histogram of nanoseconds, 3 significant digits, fixed range (recording never allocates). */
export function createHistogram(highestNs = HIGHEST_NS): Histogram {
  return hdr.build({
    bitBucketSize: 64,
    autoResize: false,
    lowestDiscernibleValue: 1,
    highestTrackableValue: highestNs,
    numberOfSignificantValueDigits: 3,
    useWebAssembly: false,
  });
}

/** Records ns (rounded, clamped into [0, highest]) so a stray sample never throws mid-run. */
export function recordNs(histogram: Histogram, ns: number): void {
  const value = ns <= 0 ? 0 : ns >= histogram.highestTrackableValue ? histogram.highestTrackableValue : Math.round(ns);
  histogram.recordValue(value);
}

/** Monotonic time in ns as a double. */
export function nowNs(): number {
  return performance.now() * 1e6;
}

/**
 * Percentiles kept in a row's curve: every 10 up to 90, then the tail halved, quartered and cut to a
 * tenth in turn (95, 97.5, 99, 99.5 ... 99.9999), so the points are about evenly spaced on the usual HDR
 * x-axis (log of 1/(1-p)); at most 25 points plus the max, ~1 KB of pretty-printed JSON per row.
 */
export const CURVE_PERCENTILES: readonly number[] = [
  0, 10, 20, 30, 40, 50, 60, 70, 80, 90, 95, 97.5, 99, 99.5, 99.75, 99.9, 99.95, 99.975, 99.99, 99.995, 99.9975, 99.999,
  99.9995, 99.99975, 99.9999,
];

/**
 * The percentile curve of a histogram, [percentile, ns] pairs ending with [100, max]. A percentile the
 * samples cannot resolve (fewer than one sample above it) is left out: its value would be the max.
 */
export function percentileCurve(histogram: Histogram): Array<[number, number]> {
  const curve: Array<[number, number]> = [];
  const count = histogram.totalCount;
  if (count === 0) return curve;
  for (const percentile of CURVE_PERCENTILES) {
    // count * (1 - p) < 1 sample; the tolerance keeps 99.9 of 1000 samples (100 - 99.9 is 0.0999...).
    if (count * (100 - percentile) < 100 - 1e-6) break;
    curve.push([percentile, histogram.getValueAtPercentile(percentile)]);
  }
  curve.push([100, histogram.maxValue]);
  return curve;
}

/** A row from an hdr-histogram-js histogram of nanoseconds. */
export function latencyRow(suite: string, caseName: string, baseline: boolean, histogram: Histogram, extra: Partial<BenchRow> = {}): BenchRow {
  return {
    suite,
    case: caseName,
    baseline,
    count: histogram.totalCount,
    p50Ns: histogram.getValueAtPercentile(50),
    p99Ns: histogram.getValueAtPercentile(99),
    p999Ns: histogram.getValueAtPercentile(99.9),
    maxNs: histogram.maxValue,
    meanNs: round1(histogram.mean),
    curveNs: percentileCurve(histogram),
    ...extra,
  };
}

// Results written to a module variable cannot be optimised away.
let sink: unknown = 0;
/** Keeps a value alive so the JIT cannot drop the work that made it. */
export function consume(value: unknown): void {
  sink = value;
}
export function sinkValue(): unknown {
  return sink;
}

export interface LatencyOptions {
  /** Samples to record at most. */
  samples: number;
  /** Stop recording after this long even if samples remain. */
  timeBudgetMs: number;
  /** Untimed calls first (JIT warm-up); bounded by the same budget. Default samples / 10. */
  warmup?: number;
}

/** Times `op` call by call into a new histogram. Bounded by sample count and time. */
export function measureLatency(op: () => void, options: LatencyOptions): Histogram {
  const histogram = createHistogram();
  const warmup = options.warmup ?? Math.ceil(options.samples / 10);
  const deadline = performance.now() + options.timeBudgetMs;
  for (let i = 0; i < warmup; i++) {
    op();
    if ((i & 1023) === 0 && performance.now() > deadline) break;
  }
  const recordDeadline = performance.now() + options.timeBudgetMs;
  for (let i = 0; i < options.samples; i++) {
    const start = performance.now();
    op();
    const end = performance.now();
    recordNs(histogram, (end - start) * 1e6);
    if ((i & 1023) === 0 && end > recordDeadline) break;
  }
  return histogram;
}

export interface ThroughputOptions {
  /** Operations done by one call of `run`. */
  opsPerCall: number;
  /** Measuring time per round. */
  roundMs: number;
  /** Rounds; the median round is reported. */
  rounds: number;
  /** Untimed warm-up time. */
  warmupMs: number;
  /** Hard cap on calls per round (bounds the loop even if the clock misbehaves). */
  maxCallsPerRound?: number;
}

export interface ThroughputResult {
  /** Median round, wall clock. */
  opsPerSec: number;
  /** Median round, process CPU time. */
  opsPerCpuSec: number;
  /** Total CPU time / total wall time over the rounds. */
  cpuShare: number;
  opsPerSecMin: number;
  opsPerSecMax: number;
  ops: number;
  /** Mean ns per op of the median round. */
  meanNs: number;
}

/** One timed round: calls `run` until `roundMs` passed (or maxCalls); returns [calls, wall ms, cpu ms]. */
function timeRound(run: () => void, roundMs: number, maxCalls: number): [number, number, number] {
  const cpuStart = process.cpuUsage();
  const start = performance.now();
  const end = start + roundMs;
  let calls = 0;
  let now = start;
  while (calls < maxCalls && now < end) {
    run();
    calls++;
    now = performance.now();
  }
  const cpu = process.cpuUsage(cpuStart);
  return [calls, now - start, (cpu.user + cpu.system) / 1000];
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
}

function summarise(rates: number[], cpuRates: number[], ops: number, wallMs: number, cpuMs: number): ThroughputResult {
  const wallMedian = median(rates);
  return {
    opsPerSec: Math.round(wallMedian),
    opsPerCpuSec: Math.round(median(cpuRates)),
    cpuShare: Math.round((cpuMs / wallMs) * 100) / 100,
    opsPerSecMin: Math.round(Math.min(...rates)),
    opsPerSecMax: Math.round(Math.max(...rates)),
    ops,
    meanNs: round1(1e9 / wallMedian),
  };
}

/** Calls `run` repeatedly for `rounds` rounds of `roundMs`, returning the median round's rate. */
export function measureThroughput(run: () => void, options: ThroughputOptions): ThroughputResult {
  return measureThroughputInterleaved([{ run, opsPerCall: options.opsPerCall }], options)[0];
}

/**
 * Measures several cases round-robin (round r runs every case once, starting order rotating), so a
 * noisy neighbour or a GC slows each case alike and their ratio stays honest on a shared machine.
 * Returns one result per case, in the order given.
 */
export function measureThroughputInterleaved(
  cases: ReadonlyArray<{ run: () => void; opsPerCall: number }>,
  options: Omit<ThroughputOptions, 'opsPerCall'>,
): ThroughputResult[] {
  const maxCalls = options.maxCallsPerRound ?? 10_000_000;
  for (const item of cases) {
    const warmupEnd = performance.now() + options.warmupMs;
    for (let calls = 0; calls < maxCalls && performance.now() < warmupEnd; calls++) item.run();
  }
  const rates: number[][] = cases.map(() => []);
  const cpuRates: number[][] = cases.map(() => []);
  const ops: number[] = cases.map(() => 0);
  const wallMs: number[] = cases.map(() => 0);
  const cpuMs: number[] = cases.map(() => 0);
  for (let round = 0; round < options.rounds; round++) {
    for (let k = 0; k < cases.length; k++) {
      const index = (round + k) % cases.length;
      const [calls, elapsedMs, elapsedCpuMs] = timeRound(cases[index].run, options.roundMs, maxCalls);
      const roundOps = calls * cases[index].opsPerCall;
      ops[index] += roundOps;
      wallMs[index] += elapsedMs;
      cpuMs[index] += elapsedCpuMs;
      rates[index].push(roundOps / (elapsedMs / 1000));
      // cpuUsage has microsecond resolution; a round is >= tens of ms, so this never divides by ~0.
      cpuRates[index].push(roundOps / (Math.max(elapsedCpuMs, 0.001) / 1000));
    }
  }
  return cases.map((_, index) => summarise(rates[index], cpuRates[index], ops[index], wallMs[index], cpuMs[index]));
}

/** A row from a throughput result; extra.note is kept in front of the rounds' range. */
export function throughputRow(suite: string, caseName: string, baseline: boolean, result: ThroughputResult, extra: Partial<BenchRow> = {}): BenchRow {
  const range = `median of rounds; range ${formatRate(result.opsPerSecMin)}-${formatRate(result.opsPerSecMax)}/s`;
  return {
    suite,
    case: caseName,
    baseline,
    count: result.ops,
    opsPerSec: result.opsPerSec,
    opsPerCpuSec: result.opsPerCpuSec,
    cpuShare: result.cpuShare,
    meanNs: result.meanNs,
    ...extra,
    note: extra.note === undefined ? range : `${extra.note}; ${range}`,
  };
}

/**
 * Ratio of a row to the row it names in compareTo: CPU-time throughput ratio when both have one,
 * else wall throughput ratio (higher is better), else p50 ratio baseline/ours (higher is better),
 * else value ratio. Null when unknown.
 */
export function ratioToBaseline(row: BenchRow, rows: readonly BenchRow[]): number | null {
  if (row.compareTo === undefined) return null;
  const base = rows.find((r) => r.suite === row.suite && r.case === row.compareTo);
  if (base === undefined) return null;
  if (row.opsPerCpuSec !== undefined && base.opsPerCpuSec !== undefined && base.opsPerCpuSec > 0) return row.opsPerCpuSec / base.opsPerCpuSec;
  if (row.opsPerSec !== undefined && base.opsPerSec !== undefined && base.opsPerSec > 0) return row.opsPerSec / base.opsPerSec;
  if (row.p50Ns !== undefined && base.p50Ns !== undefined && row.p50Ns > 0) return base.p50Ns / row.p50Ns;
  if (row.value !== undefined && base.value !== undefined && row.value > 0) return base.value / row.value;
  return null;
}

export function round1(value: number): number {
  return Math.round(value * 10) / 10;
}

export function formatRate(value: number): string {
  if (value >= 1e6) return `${(value / 1e6).toFixed(2)}M`;
  if (value >= 1e3) return `${(value / 1e3).toFixed(1)}k`;
  return value.toFixed(0);
}

function formatNs(value: number | undefined): string {
  if (value === undefined) return '';
  if (value >= 1e6) return `${(value / 1e6).toFixed(2)}ms`;
  if (value >= 1e4) return `${(value / 1e3).toFixed(1)}us`;
  return `${Math.round(value)}ns`;
}

function formatValue(row: BenchRow): string {
  if (row.value === undefined) return '';
  const unitText = row.unit ?? '';
  if (unitText === 'bytes') {
    if (row.value >= 1024 * 1024) return `${(row.value / 1024 / 1024).toFixed(1)} MiB`;
    if (row.value >= 1024) return `${(row.value / 1024).toFixed(2)} KiB`;
  }
  return `${round1(row.value)} ${unitText}`.trim();
}

export const TABLE_COLUMNS = ['suite', 'case', 'base', 'count', 'ops/s', 'ops/cpu-s', 'cpu', 'mean', 'p50', 'p99', 'p99.9', 'max', 'value', 'vs base', 'target', 'note'] as const;

/** The cells of one row as text, in TABLE_COLUMNS order (shared by the console table and RESULTS.md). */
export function rowCells(row: BenchRow, rows: readonly BenchRow[]): string[] {
  const ratio = ratioToBaseline(row, rows);
  const target = row.target === undefined ? '' : `${row.target} ${row.pass === undefined ? '' : row.pass ? 'PASS' : 'FAIL'}`.trim();
  return [
    row.suite,
    row.case,
    row.baseline ? 'yes' : '',
    String(row.count),
    row.opsPerSec === undefined ? '' : formatRate(row.opsPerSec),
    row.opsPerCpuSec === undefined ? '' : formatRate(row.opsPerCpuSec),
    row.cpuShare === undefined ? '' : `${Math.round(row.cpuShare * 100)}%`,
    formatNs(row.meanNs),
    formatNs(row.p50Ns),
    formatNs(row.p99Ns),
    formatNs(row.p999Ns),
    formatNs(row.maxNs),
    formatValue(row),
    ratio === null ? '' : `${ratio.toFixed(2)}x`,
    target,
    row.note ?? '',
  ];
}

/** A fixed-width console table of rows. */
export function formatTable(rows: readonly BenchRow[]): string {
  const table = [Array.from(TABLE_COLUMNS), ...rows.map((row) => rowCells(row, rows))];
  const widths = TABLE_COLUMNS.map((_, column) => Math.max(...table.map((cells) => cells[column].length)));
  return table.map((cells) => cells.map((cell, column) => cell.padEnd(widths[column])).join('  ').trimEnd()).join('\n');
}
