/**
 * The injected clock. Code that needs wall time takes a `Clock` (or a `now` function) so tests and
 * the simulator can drive time; nothing in the runtime calls Date.now() directly. This file owns the
 * interface, the system clock, a coarse cached clock for hot paths and a manual clock for tests; the
 * coarse clock's optional refresh timer is the only timer here.
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

/**
 * A clock read from a cached value, for hot paths that stamp every message: Date.now() costs about
 * 40 ns a call, a third of a BookStore delta (bench/book). Its owner refreshes it (per event-loop
 * turn, per read batch) or starts its own unref'd timer; between refreshes time stands still, which
 * is the point: every message of one burst gets the same stamp.
 */
export class CoarseClock implements Clock {
  // Declared without an initializer on purpose: the field holds a tagged heap number, so a refresh
  // allocates one (16 bytes; epoch ms are past V8's small-integer range) and every reader shares it.
  // A field that first held a small integer (`= 0`) becomes a double field: written in place, but
  // boxed anew by every read kept in a field or array that holds any value (measured, Node 20/24).
  #nowMs: number;
  #timer: ReturnType<typeof setInterval> | null;
  readonly #source: Clock;
  constructor(source: Clock = systemClock) {
    this.#source = source;
    this.#nowMs = source.nowMs();
    this.#timer = null;
  }
  nowMs(): number {
    return this.#nowMs;
  }
  /** Reads the source clock now; returns the new time. */
  refresh(): number {
    this.#nowMs = this.#source.nowMs();
    return this.#nowMs;
  }
  /** Refreshes every `intervalMs` from an unref'd timer (never keeps the process alive). Idempotent. */
  start(intervalMs = 1): void {
    if (this.#timer !== null) return;
    this.#timer = setInterval(() => this.refresh(), intervalMs);
    this.#timer.unref();
  }
  stop(): void {
    if (this.#timer === null) return;
    clearInterval(this.#timer);
    this.#timer = null;
  }
}
