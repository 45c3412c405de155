/**
 * The operator's view's overhead target (metrics, dashboard: p50 and p99 within 5% of off), judged
 * against two off runs, one before the on runs and one after: at tick-to-trade's live figures two
 * off runs of one build differ by more than 5% (52.4 against 59.3 µs at p50, Nov 2026), so a single
 * off run cannot tell a 5% cost from drift. Per percentile the bound is 5% over the off runs' mean,
 * or the slower off run when the two are further apart than that: within the off runs' own spread
 * an on run cannot be told from off. Owns the judgement only.
 */

import type { BenchRow } from '../harness.ts';

/** The cost allowed over off. */
export const OPERATOR_COST_MAX = 0.05;

/** The highest value an on run's percentile may take, given the same percentile of the two off runs. */
export function operatorBound(offBefore: number, offAfter: number): number {
  return Math.max((1 + OPERATOR_COST_MAX) * ((offBefore + offAfter) / 2), offBefore, offAfter);
}

/**
 * `row` (an on run's tick-to-trade row, case `[replace, <operator> on] ...`) judged against the
 * rows of the same case in the off run (`[replace] ...`) and the off run after (`[replace, off
 * again] ...`); null when either has no such row.
 */
export function judgeOperatorRow(row: BenchRow, offRows: readonly BenchRow[], afterRows: readonly BenchRow[]): BenchRow | null {
  const label = /^\[replace, ([^\]]+) on\] /.exec(row.case);
  if (label === null) return null;
  const rest = row.case.slice(label[0].length);
  const before = offRows.find((candidate) => candidate.case === `[replace] ${rest}`);
  const after = afterRows.find((candidate) => candidate.case === `[replace, off again] ${rest}`);
  if (before === undefined || after === undefined) return null;
  const p50Bound = operatorBound(before.p50Ns ?? 0, after.p50Ns ?? 0);
  const p99Bound = operatorBound(before.p99Ns ?? 0, after.p99Ns ?? 0);
  const p50 = row.p50Ns ?? Infinity;
  const p99 = row.p99Ns ?? Infinity;
  const off = label[1] === 'metrics' ? 'metrics' : 'dashboard and metrics';
  const us = (ns: number): string => (ns / 1000).toFixed(1);
  const judged = `off runs before / after: p50 ${us(before.p50Ns ?? 0)} / ${us(after.p50Ns ?? 0)} us, p99 ${us(before.p99Ns ?? 0)} / ${us(after.p99Ns ?? 0)} us; bound p50 ${us(p50Bound)}, p99 ${us(p99Bound)} us`;
  return {
    ...row,
    compareTo: before.case,
    target: `p50 and p99 within 5% of ${off} off (mean of the off runs before and after, or the slower of them)`,
    pass: p50 <= p50Bound && p99 <= p99Bound,
    note: row.note === undefined || row.note === '' ? judged : `${judged}; ${row.note}`,
  };
}
