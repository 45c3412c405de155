/**
 * A Prometheus histogram read from HDR histograms (LatencyRecorder) when scraped: the cumulative
 * count at each `le` bound is counted by walking the HDR's recorded buckets, the sum is mean ×
 * count. Nothing is observed per sample: the recorders stay the only thing the hot path (or the
 * tick-to-trade probe's drain) writes, and a scrape costs one walk of each histogram's non-empty
 * buckets (a few hundred at 3 significant digits).
 *
 * prom-client's own Histogram counts each observe() into its buckets and offers no way to set
 * bucket counts, so this is a metric object of the shape its Registry reads (name, help, type,
 * aggregator, get(), reset()), registered with a cast (registerHdrHistogram). Owns no state
 * beyond its configuration; never records.
 */

import * as hdr from 'hdr-histogram-js';
import type { Registry } from 'prom-client';
import type { LatencyRecorder } from './latency-recorder.ts';

/** Bucket bounds for hot-path latencies, seconds: 1 µs to 1 s in 1-2-5 steps. */
export const LATENCY_BOUNDS_SECONDS: readonly number[] = [
  1e-6, 2e-6, 5e-6, 1e-5, 2e-5, 5e-5, 1e-4, 2e-4, 5e-4, 1e-3, 2e-3, 5e-3, 1e-2, 2e-2, 5e-2, 0.1, 0.2, 0.5, 1,
];

export interface HdrHistogramMetricOptions {
  /** Metric name, e.g. trading_hop_latency_seconds (values in seconds, recorders in ns). */
  name: string;
  help: string;
  /** The one label that tells the recorders apart, e.g. "hop". */
  labelName: string;
  /** The recorders, read when scraped; the callback may drain buffers first (the probe's getters do). */
  recorders: () => Iterable<readonly [labelValue: string, recorder: LatencyRecorder]>;
  /** Upper bounds, seconds, ascending; +Inf is added. Default LATENCY_BOUNDS_SECONDS. */
  boundsSeconds?: readonly number[];
}

interface SampleValue {
  value: number;
  labels: Record<string, string | number>;
  metricName: string;
}

export class HdrHistogramMetric {
  readonly name: string;
  readonly help: string;
  readonly type = 'histogram';
  readonly aggregator = 'sum';
  readonly labelNames: readonly string[];
  readonly #labelName: string;
  readonly #recorders: HdrHistogramMetricOptions['recorders'];
  readonly #boundsSeconds: readonly number[];
  readonly #boundsNs: Float64Array;
  readonly #cumulative: Float64Array;

  constructor(options: HdrHistogramMetricOptions) {
    const bounds = options.boundsSeconds ?? LATENCY_BOUNDS_SECONDS;
    for (let i = 1; i < bounds.length; i++) if (!(bounds[i] > bounds[i - 1])) throw new RangeError(`${options.name}: bounds must ascend`);
    this.name = options.name;
    this.help = options.help;
    this.labelNames = [options.labelName];
    this.#labelName = options.labelName;
    this.#recorders = options.recorders;
    this.#boundsSeconds = bounds;
    this.#boundsNs = Float64Array.from(bounds, (seconds) => Math.round(seconds * 1e9));
    this.#cumulative = new Float64Array(bounds.length);
  }

  /** The Registry's read: buckets, sum and count per recorder, in the Prometheus text order. */
  async get(): Promise<{ name: string; help: string; type: string; aggregator: string; values: SampleValue[] }> {
    const values: SampleValue[] = [];
    for (const [labelValue, recorder] of this.#recorders()) {
      const h = recorder.histogram;
      this.#countBuckets(h);
      const bucketName = `${this.name}_bucket`;
      for (let i = 0; i < this.#boundsSeconds.length; i++) {
        values.push({ value: this.#cumulative[i], labels: { [this.#labelName]: labelValue, le: this.#boundsSeconds[i] }, metricName: bucketName });
      }
      const count = h.totalCount;
      values.push({ value: count, labels: { [this.#labelName]: labelValue, le: '+Inf' }, metricName: bucketName });
      values.push({ value: count === 0 ? 0 : (h.mean * count) / 1e9, labels: { [this.#labelName]: labelValue }, metricName: `${this.name}_sum` });
      values.push({ value: count, labels: { [this.#labelName]: labelValue }, metricName: `${this.name}_count` });
    }
    return { name: this.name, help: this.help, type: this.type, aggregator: this.aggregator, values };
  }

  /** Registry.resetMetrics(): the recorders belong to their owner, so nothing is reset here. */
  reset(): void {}

  /** Cumulative counts at each bound into #cumulative, from the HDR's non-empty buckets. */
  #countBuckets(h: hdr.Histogram): void {
    const cumulative = this.#cumulative;
    cumulative.fill(0);
    // LatencyRecorder builds with useWebAssembly false: a JsHistogram, whose iterator is public.
    if (!(h instanceof hdr.JsHistogram) || h.totalCount === 0) return;
    const bounds = this.#boundsNs;
    const iterator = h.recordedValuesIterator;
    iterator.reset();
    // Bounded by the histogram's bucket count (finite); each step is one non-empty HDR bucket.
    while (iterator.hasNext()) {
      const step = iterator.next();
      // The bucket's highest equivalent value: a sample counts under a bound only if its whole HDR bucket does.
      const valueNs = step.valueIteratedTo;
      for (let i = bounds.length - 1; i >= 0 && valueNs <= bounds[i]; i--) cumulative[i] += step.countAtValueIteratedTo;
    }
  }
}

/** Registers the metric: prom-client's Registry reads any object of this shape (see the file comment). */
export function registerHdrHistogram(registry: Registry, metric: HdrHistogramMetric): void {
  registry.registerMetric(metric as unknown as Parameters<Registry['registerMetric']>[0]);
}
