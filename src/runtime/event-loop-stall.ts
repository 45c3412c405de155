/**
 * Event-loop stall, measured by setImmediate round trips: every `sampleMs` a timer callback notes
 * the time and schedules a setImmediate; the immediate runs in the check phase of the same loop
 * turn, after every I/O callback the poll phase ran (WebSocket frames, socket writes, worker
 * answers). The round trip is how long the loop was busy before it could come back: it sees
 * stalls of microseconds, where monitorEventLoopDelay (telemetry/event-loop-delay.ts) cannot see
 * below its 1 ms resolution. Samples go into a perf_hooks histogram (nanoseconds; no allocation
 * per sample beyond the Immediate handle Node makes). Nothing here runs per message.
 * This file owns the sampler and its summary; the status line formats it.
 */

import { createHistogram, type RecordableHistogram } from 'node:perf_hooks';

export interface EventLoopStallSummary {
  samples: number;
  p50Us: number;
  p99Us: number;
  maxUs: number;
}

export class EventLoopStall {
  readonly #sampleMs: number;
  readonly #onImmediate: () => void;
  readonly #onTimer: () => void;
  #histogram: RecordableHistogram = createHistogram();
  #timer: NodeJS.Timeout | null = null;
  #scheduledNs = 0n;
  #pending = false;

  constructor(sampleMs: number) {
    this.#sampleMs = sampleMs;
    // Bound once: no closure per sample.
    this.#onImmediate = () => {
      this.#pending = false;
      const ns = process.hrtime.bigint() - this.#scheduledNs;
      this.#histogram.record(ns > 0n ? ns : 1n);
    };
    this.#onTimer = () => {
      if (this.#pending) return; // the last sample has not come back: it is itself still a stall
      this.#pending = true;
      this.#scheduledNs = process.hrtime.bigint();
      setImmediate(this.#onImmediate);
    };
  }

  start(): void {
    if (this.#timer !== null) return;
    this.#timer = setInterval(this.#onTimer, this.#sampleMs);
    this.#timer.unref();
  }

  stop(): void {
    if (this.#timer !== null) clearInterval(this.#timer);
    this.#timer = null;
  }

  get running(): boolean {
    return this.#timer !== null;
  }

  /** Percentiles over every sample since start (or the last reset), microseconds. */
  summary(): EventLoopStallSummary {
    const h = this.#histogram;
    const us = (ns: number): number => (h.count === 0 ? 0 : Math.round(ns / 10) / 100);
    return { samples: h.count, p50Us: us(h.percentile(50)), p99Us: us(h.percentile(99)), maxUs: us(h.max) };
  }

  reset(): void {
    this.#histogram.reset();
  }

  /** Records one sample directly (tests): a round trip of `us` microseconds. */
  record(us: number): void {
    this.#histogram.record(Math.max(1, Math.round(us * 1000)));
  }
}
