/**
 * The driver's clock for the hot-path lanes: moves when told to, like core's ManualClock, and hands
 * out times boxed before the run.
 *
 * Why: epoch milliseconds are past V8's small-integer range, and V8 allocates a 16-byte heap number
 * for every new double it stores in a field. A ManualClock advanced every frame therefore allocates
 * one a frame: 16 MB, about one scavenge, per 1,000,000 frames, which the allocation rows would
 * charge to the path (bench/hot-path/heap-profile.ts showed it as 17 of 21 bytes an order). The live
 * runtime's CoarseClock makes one such number per refresh (1 ms), not per frame, and every reader
 * shares it; this clock does the same per step, from an array made before the run. Past its
 * prepared steps (or after an advance of another size) it computes the time, allocating as a
 * ManualClock does.
 */

import type { Clock } from '../../src/core/index.ts';

export class SteppedClock implements Clock {
  readonly #startMs: number;
  readonly #stepMs: number;
  /** Tagged elements (each time a heap number made once): reading one hands out that box. */
  readonly #times: number[];
  #steps = 0;
  /** Time added by advances of another size than the step: the prepared times no longer apply. */
  #otherMs = 0;

  constructor(startMs: number, stepMs: number, preparedSteps: number) {
    this.#startMs = startMs;
    this.#stepMs = stepMs;
    // A null first keeps the array's elements tagged: filled with doubles from the start, V8 keeps
    // them unboxed and boxes a new number on every read.
    const times: unknown[] = [null];
    for (let i = 0; i <= preparedSteps; i++) times[i] = startMs + i * stepMs;
    this.#times = times as number[];
  }

  nowMs(): number {
    const steps = this.#steps;
    if (this.#otherMs === 0 && steps < this.#times.length) return this.#times[steps];
    return this.#startMs + steps * this.#stepMs + this.#otherMs;
  }

  /** Moves time forward by `ms` (>= 0) and returns the new time. */
  advance(ms: number): number {
    if (!(ms >= 0)) throw new RangeError('SteppedClock.advance: ms must be >= 0');
    if (ms === this.#stepMs) this.#steps++;
    else this.#otherMs += ms;
    return this.nowMs();
  }
}
