import { describe, expect, it } from 'vitest';
import { judgeOperatorRow, operatorBound } from '../../bench/tick-to-trade/operator-bound.ts';
import type { BenchRow } from '../../bench/harness.ts';

const CASE = 'tick-to-trade: frame received -> first byte handed to socket.write';

function row(label: string, p50Us: number, p99Us: number): BenchRow {
  return { suite: 'tick-to-trade', case: `[${label}] ${CASE}`, baseline: false, count: 1000, p50Ns: p50Us * 1000, p99Ns: p99Us * 1000 };
}

describe('operator view bound', () => {
  it('is 5% over the off runs mean when they agree, the slower off run when they are further apart', () => {
    expect(operatorBound(100_000, 100_000)).toBe(105_000);
    expect(operatorBound(100_000, 104_000)).toBeCloseTo(107_100, 6);
    expect(operatorBound(52_400, 59_300)).toBe(59_300);
  });

  it('passes an on run within the bound and fails one above it, on p50 and on p99 alike', () => {
    const before = [row('replace', 52.4, 137)];
    const after = [row('replace, off again', 59.3, 172)];
    const within = judgeOperatorRow(row('replace, metrics on', 58.0, 160), before, after)!;
    expect(within.pass).toBe(true);
    expect(within.compareTo).toBe(`[replace] ${CASE}`);
    expect(within.target).toContain('metrics off');
    expect(judgeOperatorRow(row('replace, metrics on', 62.5, 160), before, after)!.pass).toBe(false);
    expect(judgeOperatorRow(row('replace, dashboard+metrics on', 55.0, 181), before, after)!.pass).toBe(false);
    const dashboard = judgeOperatorRow(row('replace, dashboard+metrics on', 55.0, 170), before, after)!;
    expect(dashboard.pass).toBe(true);
    expect(dashboard.target).toContain('dashboard and metrics off');
    expect(dashboard.note).toContain('bound p50 59.3, p99 172.0 us');
  });

  it('judges nothing without both off rows of the same case', () => {
    const on = row('replace, metrics on', 50, 100);
    expect(judgeOperatorRow(on, [], [row('replace, off again', 50, 100)])).toBeNull();
    expect(judgeOperatorRow(on, [row('replace', 50, 100)], [])).toBeNull();
    expect(judgeOperatorRow(row('replace', 50, 100), [row('replace', 50, 100)], [row('replace, off again', 50, 100)])).toBeNull();
  });
});
