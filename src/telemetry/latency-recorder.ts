// A latency distribution in nanoseconds over an HDR histogram (hdr-histogram-js, 3 significant
// digits, fixed range, no auto-resize so recording never allocates). Owns one histogram; never
// reads the clock by itself except in `recordSince`, and never logs.

import * as hdr from 'hdr-histogram-js';
import { nowNs } from './clock.ts';
import { TelemetryError } from './telemetry-error.ts';

export interface LatencySummary {
  name: string;
  /** Samples recorded (overflowed samples included, at highestNs). */
  count: number;
  p50: number;
  p99: number;
  p999: number;
  max: number;
  mean: number;
  min: number;
  /** Samples above highestNs, recorded as highestNs: a non-zero value means max is a floor. */
  overflowCount: number;
  /** Samples rejected as negative or not finite (a caller bug: a monotonic clock never goes back). */
  invalidCount: number;
}

export interface LatencyRecorderOptions {
  /** Highest value tracked exactly, in ns; default 60 s. Larger samples are clamped and counted. */
  highestNs?: number;
  /** HDR precision, significant decimal digits; default 3 (0.1% relative error). */
  significantDigits?: 1 | 2 | 3 | 4 | 5;
}

const DEFAULT_HIGHEST_NS = 60_000_000_000;

export class LatencyRecorder {
  readonly name: string;
  readonly highestNs: number;
  readonly histogram: hdr.Histogram;
  #overflowCount = 0;
  #invalidCount = 0;
  /** Sum of the recorded values, ns (a float64 stays exact far past any run's total). */
  #sumNs = 0;

  constructor(name: string, options: LatencyRecorderOptions = {}) {
    const highestNs = options.highestNs ?? DEFAULT_HIGHEST_NS;
    if (!Number.isSafeInteger(highestNs) || highestNs < 2) {
      throw new TelemetryError('TELEMETRY_RANGE_INVALID', `LatencyRecorder ${name}: highestNs must be a safe integer >= 2, got ${highestNs}`);
    }
    this.name = name;
    this.highestNs = highestNs;
    this.histogram = hdr.build({
      bitBucketSize: 64,
      autoResize: false,
      lowestDiscernibleValue: 1,
      highestTrackableValue: highestNs,
      numberOfSignificantValueDigits: options.significantDigits ?? 3,
      useWebAssembly: false,
    });
  }

  /** Record one sample in ns. Never throws and never allocates. */
  record(ns: number): void {
    if (!(ns >= 0) || ns === Infinity) {
      this.#invalidCount++;
      return;
    }
    let value = Math.round(ns);
    if (value > this.highestNs) {
      value = this.highestNs;
      this.#overflowCount++;
    }
    this.histogram.recordValue(value);
    this.#sumNs += value;
  }

  /** Record the time elapsed since `startNs` (a value from nowNs()). */
  recordSince(startNs: number): void {
    this.record(nowNs() - startNs);
  }

  reset(): void {
    this.histogram.reset();
    this.#sumNs = 0;
    this.#overflowCount = 0;
    this.#invalidCount = 0;
  }

  get count(): number {
    return this.histogram.totalCount;
  }

  summary(): LatencySummary {
    const h = this.histogram;
    const empty = h.totalCount === 0;
    return {
      name: this.name,
      count: h.totalCount,
      p50: h.getValueAtPercentile(50),
      p99: h.getValueAtPercentile(99),
      p999: h.getValueAtPercentile(99.9),
      max: h.maxValue,
      // From the recorded values' sum: hdr-histogram-js walks every bucket for its mean (milliseconds).
      mean: empty ? 0 : this.#sumNs / h.totalCount,
      // Percentile 0 is the lowest recorded value, zero included (minNonZeroValue skips zeros).
      min: empty ? 0 : h.getValueAtPercentile(0),
      overflowCount: this.#overflowCount,
      invalidCount: this.#invalidCount,
    };
  }
}
