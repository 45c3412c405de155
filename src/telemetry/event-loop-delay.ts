/**
 * Event-loop delay of this process: how late the loop ran a 1 ms timer, from Node's own sampler
 * (perf_hooks.monitorEventLoopDelay, sampled in libuv, nothing on the hot path). It cannot see
 * stalls shorter than its 1 ms resolution; it is for the status line, the summary and soak runs.
 */

import { monitorEventLoopDelay } from 'node:perf_hooks';
import type { IntervalHistogram } from 'node:perf_hooks';

export interface EventLoopDelaySummary {
  p50Ms: number;
  p99Ms: number;
  maxMs: number;
}

export class EventLoopDelay {
  readonly #histogram: IntervalHistogram;

  constructor() {
    this.#histogram = monitorEventLoopDelay({ resolution: 1 });
    this.#histogram.enable();
  }

  summary(): EventLoopDelaySummary {
    const h = this.#histogram;
    // Nanoseconds to ms with 0.01 ms precision; an empty histogram reports 0, not its sentinel.
    const ms = (ns: number): number => (h.count === 0 ? 0 : Math.round(ns / 10_000) / 100);
    return { p50Ms: ms(h.percentile(50)), p99Ms: ms(h.percentile(99)), maxMs: ms(h.max) };
  }

  stop(): void {
    this.#histogram.disable();
  }
}
