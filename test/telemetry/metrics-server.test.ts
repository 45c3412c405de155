/**
 * Goal: the metrics server serves a prom-client registry in the Prometheus text format on loopback,
 * runs beforeScrape once per scrape, refuses other paths and methods, and an HDR-backed histogram
 * reports exact cumulative buckets, sum and count of what its recorders hold (no observe per
 * sample). Also checks the test's own text-format parser rejects what a scraper would.
 * Method: a real MetricsServer on 127.0.0.1 port 0 scraped with fetch; LatencyRecorders filled
 * with known samples; the exposition parsed by test/telemetry/prometheus-text.ts.
 */

import { afterEach, describe, expect, it } from 'vitest';
import { Gauge, Registry } from 'prom-client';
import { HdrHistogramMetric, LatencyRecorder, MetricsServer, registerHdrHistogram } from '../../src/telemetry/index.ts';
import { parsePrometheusText, sampleOf } from './prometheus-text.ts';

let server: MetricsServer | null = null;
afterEach(async () => {
  await server?.stop();
  server = null;
});

describe('HdrHistogramMetric', () => {
  it('reports cumulative buckets, sum and count from the recorders, per label', async () => {
    const fast = new LatencyRecorder('fast');
    const slow = new LatencyRecorder('slow');
    // ns: 500 ns, 1.5 µs, 4 µs, 40 µs; and one 3 ms sample.
    for (const ns of [500, 1_500, 4_000, 40_000]) fast.record(ns);
    slow.record(3_000_000);
    const registry = new Registry();
    registerHdrHistogram(registry, new HdrHistogramMetric({
      name: 'test_latency_seconds',
      help: 'latency',
      labelName: 'hop',
      boundsSeconds: [1e-6, 2e-6, 1e-5, 1e-3],
      recorders: () => [['fast', fast], ['slow', slow], ['empty', new LatencyRecorder('empty')]],
    }));
    const families = parsePrometheusText(await registry.metrics());
    const family = families.get('test_latency_seconds')!;
    expect(family.type).toBe('histogram');
    // By the bound's value: the text may spell 1e-6 as 0.000001.
    const bucket = (hop: string, le: number): number[] => family.samples.filter((s) => s.name === 'test_latency_seconds_bucket' && s.labels.hop === hop && (s.labels.le === '+Inf' ? Infinity : Number(s.labels.le)) === le).map((s) => s.value);
    expect([1e-6, 2e-6, 1e-5, 1e-3, Infinity].map((le) => bucket('fast', le))).toEqual([[1], [2], [3], [4], [4]]);
    expect([1e-6, 1e-3, Infinity].map((le) => bucket('slow', le))).toEqual([[0], [0], [1]]);
    expect(bucket('empty', Infinity)).toEqual([0]);
    expect(sampleOf(families, 'test_latency_seconds', { hop: 'fast' }, 'test_latency_seconds_count').value).toBe(4);
    // HDR keeps 3 significant digits: the sum is within 0.1% of 46 µs.
    expect(sampleOf(families, 'test_latency_seconds', { hop: 'fast' }, 'test_latency_seconds_sum').value).toBeCloseTo(46e-6, 7);
    expect(sampleOf(families, 'test_latency_seconds', { hop: 'slow' }, 'test_latency_seconds_sum').value).toBeCloseTo(3e-3, 5);
  });
});

describe('MetricsServer', () => {
  it('serves the registry at GET /metrics on loopback, one beforeScrape per scrape', async () => {
    const registry = new Registry();
    let scrapes = 0;
    let value = 0;
    new Gauge({ name: 'test_value', help: 'a value read at scrape', registers: [registry], collect() {
      this.set(value);
    } });
    server = await MetricsServer.start({ registry, host: '127.0.0.1', port: 0, beforeScrape: () => {
      scrapes++;
      value = scrapes * 10;
    } });
    expect(server.port).toBeGreaterThan(0);
    expect(server.url).toBe(`http://127.0.0.1:${server.port}/metrics`);
    for (const expected of [10, 20]) {
      const response = await fetch(server.url);
      expect(response.status).toBe(200);
      expect(response.headers.get('content-type')).toBe('text/plain; version=0.0.4; charset=utf-8');
      const families = parsePrometheusText(await response.text());
      expect(families.get('test_value')).toMatchObject({ type: 'gauge', help: 'a value read at scrape' });
      expect(sampleOf(families, 'test_value').value).toBe(expected);
    }
    expect((await fetch(`http://127.0.0.1:${server.port}/other`)).status).toBe(404);
    expect((await fetch(server.url, { method: 'POST', body: 'x' })).status).toBe(405);
  });

  it('answers 500 and reports the error when collecting fails', async () => {
    const registry = new Registry();
    new Gauge({ name: 'test_broken', help: 'throws', registers: [registry], collect() {
      throw new Error('snapshot failed');
    } });
    const errors: unknown[] = [];
    server = await MetricsServer.start({ registry, host: '127.0.0.1', port: 0, onError: (error) => errors.push(error) });
    expect((await fetch(server.url)).status).toBe(500);
    expect((errors[0] as Error).message).toBe('snapshot failed');
  });

  it('refuses to start on a port in use', async () => {
    server = await MetricsServer.start({ registry: new Registry(), host: '127.0.0.1', port: 0 });
    await expect(MetricsServer.start({ registry: new Registry(), host: '127.0.0.1', port: server.port })).rejects.toMatchObject({ code: 'EADDRINUSE' });
  });
});

describe('the test parser of the text format', () => {
  it('refuses what a scraper would', () => {
    expect(() => parsePrometheusText('x 1\n')).toThrow(/before its # TYPE/);
    expect(() => parsePrometheusText('# TYPE x gauge\nx{a="1} 1\n')).toThrow(/unterminated/);
    expect(() => parsePrometheusText('# TYPE x gauge\nx 1\nx 2\n')).toThrow(/twice/);
    expect(() => parsePrometheusText('# TYPE x gauge\nx one\n')).toThrow(/bad value/);
    expect(() => parsePrometheusText('# TYPE 1x gauge\n')).toThrow(/bad metric name/);
    expect(parsePrometheusText('# TYPE h histogram\nh_bucket{le="+Inf",a="q\\"\\n"} 3\nh_sum 1.5e-3\nh_count 3\n').get('h')!.samples.map((s) => [s.name, s.labels, s.value]))
      .toEqual([['h_bucket', { le: '+Inf', a: 'q"\n' }, 3], ['h_sum', {}, 1.5e-3], ['h_count', {}, 3]]);
  });
});
