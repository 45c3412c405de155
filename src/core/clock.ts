/**
 * The injected clock. Code that needs wall time takes a `Clock` (or a `now` function) so tests and
 * the simulator can drive time; nothing in the runtime calls Date.now() directly. This file owns
 * only the interface, the system clock and a manual clock for tests; it never schedules timers.
 */

export interface Clock {
  /** Unix time in milliseconds (integer). */
  nowMs(): number;
}

export const systemClock: Clock = {
  nowMs(): number {
    return Date.now();
  },
};

/** A clock that moves only when told to: for tests and deterministic replays. */
export class ManualClock implements Clock {
  #nowMs: number;
  constructor(startMs = 0) {
    this.#nowMs = startMs;
  }
  nowMs(): number {
    return this.#nowMs;
  }
  /** Moves time forward by `ms` (>= 0) and returns the new time. */
  advance(ms: number): number {
    if (!(ms >= 0)) throw new RangeError('ManualClock.advance: ms must be >= 0');
    this.#nowMs += ms;
    return this.#nowMs;
  }
  set(ms: number): void {
    this.#nowMs = ms;
  }
}
