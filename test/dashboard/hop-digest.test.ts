/**
 * Goal: HopDigest's one pass over an HDR histogram gives what hdr-histogram-js's own (slow)
 * readers give: the count, the mean, the percentiles and the max, and cumulative counts at the
 * bounds equal to HdrHistogramMetric's (the Prometheus buckets the metrics used to serve); an
 * unchanged histogram is not re-read, a reset one is.
 * Method: LatencyRecorders filled with seeded random samples of several shapes (narrow, wide,
 * heavy-tailed, a single value, empty), compared field by field with hdr's answers.
 */

import { describe, expect, it } from 'vitest';
import { Registry } from 'prom-client';
import { DIGEST_PERCENTILES, HopDigest } from '../../src/dashboard/index.ts';
import { HdrHistogramMetric, LATENCY_BOUNDS_SECONDS, LatencyRecorder, registerHdrHistogram } from '../../src/telemetry/index.ts';
import { parsePrometheusText } from '../telemetry/prometheus-text.ts';

const BOUNDS_NS = Float64Array.from(LATENCY_BOUNDS_SECONDS, (seconds) => Math.round(seconds * 1e9));

/** xorshift32: the same samples every run. */
function random(seed: number): () => number {
  let x = seed >>> 0 || 1;
  return () => {
    x ^= x << 13;
    x >>>= 0;
    x ^= x >>> 17;
    x ^= x << 5;
    x >>>= 0;
    return x / 2 ** 32;
  };
}

const SHAPES: Record<string, (next: () => number) => number> = {
  narrow: (next) => 40_000 + next() * 20_000,
  wide: (next) => 500 + next() * 5_000_000,
  tail: (next) => 20_000 / Math.max(1e-4, next()),
  single: () => 123_456,
};

describe('HopDigest', () => {
  for (const [shape, sample] of Object.entries(SHAPES)) {
    it(`agrees with hdr's readers on a ${shape} distribution`, async () => {
      const recorder = new LatencyRecorder(shape);
      const next = random(shape.length * 7919);
      for (let i = 0; i < 20_000; i++) recorder.record(sample(next));
      const h = recorder.histogram;
      const digest = new HopDigest(shape, BOUNDS_NS);
      expect(digest.read(h)).toBe(true);
      expect(digest.count).toBe(h.totalCount);
      expect(digest.maxNs).toBe(h.maxValue);
      for (let i = 0; i < DIGEST_PERCENTILES.length; i++) expect(digest.percentilesNs[i], `p${DIGEST_PERCENTILES[i]}`).toBe(h.getValueAtPercentile(DIGEST_PERCENTILES[i]));
      expect(digest.sumNs / digest.count).toBeCloseTo(h.mean, 6);
      // The buckets HdrHistogramMetric computes for the same recorder.
      const registry = new Registry();
      registerHdrHistogram(registry, new HdrHistogramMetric({ name: 'x_seconds', help: 'x', labelName: 'hop', recorders: () => [['a', recorder]] }));
      const buckets = parsePrometheusText(await registry.metrics()).get('x_seconds')!.samples.filter((s) => s.name === 'x_seconds_bucket' && s.labels.le !== '+Inf');
      expect(Array.from(digest.cumulative)).toEqual(buckets.map((s) => s.value));
      // Unchanged: not re-read; one more sample: re-read.
      expect(digest.read(h)).toBe(false);
      recorder.record(1_000);
      expect(digest.read(h)).toBe(true);
      expect(digest.count).toBe(20_001);
    });
  }

  it('reads an empty histogram, and a reset one, as zeros', () => {
    const recorder = new LatencyRecorder('empty');
    const digest = new HopDigest('empty', BOUNDS_NS);
    digest.read(recorder.histogram);
    expect([digest.count, digest.sumNs, digest.maxNs, ...digest.percentilesNs, ...digest.cumulative].every((v) => v === 0)).toBe(true);
    recorder.record(5_000);
    digest.read(recorder.histogram);
    expect(digest.count).toBe(1);
    expect(digest.cumulative[BOUNDS_NS.length - 1]).toBe(1);
    recorder.reset();
    expect(digest.read(recorder.histogram)).toBe(true);
    expect(digest.count).toBe(0);
    expect(digest.cumulative.every((v) => v === 0)).toBe(true);
  });
});
