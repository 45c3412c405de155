// Goal: LatencyRecorder reports the percentiles of what was recorded, within HDR's 3-digit
// precision, and handles out-of-range samples without throwing. Method: record known
// distributions (1..100_000 ns uniform, constant values, overflow, invalid) and compare with
// exact values computed by hand. nowNs is checked for monotonicity only (no timing assertions).

import { describe, expect, it } from 'vitest';
import { LatencyRecorder, nowNs, TelemetryError } from '../../src/telemetry/index.ts';

const relativeError = (actual: number, expected: number): number => Math.abs(actual - expected) / expected;

describe('LatencyRecorder', () => {
  it('summarises a uniform distribution within 0.1%', () => {
    const recorder = new LatencyRecorder('uniform');
    for (let ns = 1; ns <= 100_000; ns++) recorder.record(ns);
    const summary = recorder.summary();
    expect(summary.name).toBe('uniform');
    expect(summary.count).toBe(100_000);
    expect(relativeError(summary.p50, 50_000)).toBeLessThan(0.001);
    expect(relativeError(summary.p99, 99_000)).toBeLessThan(0.001);
    expect(relativeError(summary.p999, 99_900)).toBeLessThan(0.001);
    expect(relativeError(summary.max, 100_000)).toBeLessThan(0.001);
    expect(summary.mean).toBe(50_000.5); // exact: the recorded values' sum, not bucket midpoints
    expect(summary.min).toBe(1);
    expect(summary.overflowCount).toBe(0);
    expect(summary.invalidCount).toBe(0);
  });

  it('reports zeros when empty and after reset', () => {
    const recorder = new LatencyRecorder('empty');
    expect(recorder.summary()).toEqual({
      name: 'empty', count: 0, p50: 0, p99: 0, p999: 0, max: 0, mean: 0, min: 0, overflowCount: 0, invalidCount: 0,
    });
    recorder.record(500);
    recorder.record(-1);
    recorder.reset();
    expect(recorder.summary().count).toBe(0);
    expect(recorder.summary().mean).toBe(0);
    recorder.record(300);
    expect(recorder.summary().mean).toBe(300); // nothing of the samples before the reset
    expect(recorder.summary().invalidCount).toBe(0);
  });

  it('clamps samples above highestNs and counts them', () => {
    const recorder = new LatencyRecorder('clamped', { highestNs: 1_000_000 });
    recorder.record(10);
    recorder.record(5_000_000);
    const summary = recorder.summary();
    expect(summary.count).toBe(2);
    expect(summary.overflowCount).toBe(1);
    expect(relativeError(summary.max, 1_000_000)).toBeLessThan(0.001);
  });

  it('skips negative and non-finite samples without throwing', () => {
    const recorder = new LatencyRecorder('invalid');
    recorder.record(-5);
    recorder.record(Number.NaN);
    recorder.record(Number.POSITIVE_INFINITY);
    recorder.record(0);
    recorder.record(12.6);
    const summary = recorder.summary();
    expect(summary.invalidCount).toBe(3);
    expect(summary.count).toBe(2);
    expect(summary.min).toBe(0);
    expect(summary.max).toBe(13);
  });

  it('records elapsed time since a nowNs() start', () => {
    const recorder = new LatencyRecorder('since');
    recorder.recordSince(nowNs());
    expect(recorder.count).toBe(1);
    expect(recorder.summary().invalidCount).toBe(0);
  });

  it('rejects a bad range with a code', () => {
    expect(() => new LatencyRecorder('bad', { highestNs: 1 })).toThrowError(TelemetryError);
    expect(() => new LatencyRecorder('bad', { highestNs: 1.5 })).toThrowError(/highestNs/);
  });
});

describe('nowNs', () => {
  it('is a non-decreasing safe integer', () => {
    let previous = nowNs();
    for (let i = 0; i < 1_000; i++) {
      const now = nowNs();
      expect(Number.isSafeInteger(now)).toBe(true);
      expect(now).toBeGreaterThanOrEqual(previous);
      previous = now;
    }
  });
});
