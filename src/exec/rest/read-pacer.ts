/**
 * The read pacer: the client-side mirror of the venue's read token bucket (rest.md §9) for every
 * REST read off the hot path. A read takes its cost from the bucket; when the bucket is short, the
 * read waits (a promise, never a busy loop) in FIFO order behind earlier reads until refill covers
 * it, so a burst of 5,000 market lookups becomes a steady stream at the account's read rate
 * instead of a wall of 429s. One timer at a time, armed for the head of the queue only.
 *
 * The budget is replaceable at run time (the account's limits are read from the venue after the
 * pacer is built). A venue 429 says our mirror was optimistic (another session on the key, clock
 * drift): `onRateLimited` empties the bucket so the next reads wait for refill. This file owns the
 * bucket and the queue; it never knows paths, HTTP or retries.
 */

import { TokenBucket, type Clock } from '../../core/index.ts';

/** Timers the pacer arms (injected so tests drive time by hand). */
export interface PacerTimers {
  setTimeout(callback: () => void, delayMs: number): unknown;
  clearTimeout(handle: unknown): void;
}

export const SYSTEM_TIMERS: PacerTimers = {
  setTimeout: (callback, delayMs) => {
    const handle = setTimeout(callback, delayMs);
    handle.unref(); // a pending read never keeps the process alive on its own
    return handle;
  },
  clearTimeout: (handle) => clearTimeout(handle as NodeJS.Timeout),
};

export class ReadPacerClosedError extends Error {
  readonly code = 'READ_PACER_CLOSED' as const;
  constructor() {
    super('read pacer closed');
    this.name = 'ReadPacerClosedError';
  }
}

interface Waiter {
  cost: number;
  resolve: () => void;
  reject: (error: Error) => void;
}

export class ReadPacer {
  #bucket: TokenBucket;
  readonly #clock: Clock;
  readonly #timers: PacerTimers;
  readonly #queue: Waiter[] = [];
  #timer: unknown = null;
  #closed = false;
  /** Reads that had to wait, and 429s reported (tests, status). */
  waits = 0;
  rateLimited = 0;

  /** `refillPerSecond` and `capacity` in whole tokens; the bucket starts full, as the venue's does. */
  constructor(refillPerSecond: number, capacity: number, clock: Clock, timers: PacerTimers = SYSTEM_TIMERS) {
    this.#clock = clock;
    this.#timers = timers;
    this.#bucket = new TokenBucket(refillPerSecond, capacity, clock.nowMs());
  }

  get refillPerSecond(): number {
    return this.#bucket.refillPerSecond;
  }

  get capacity(): number {
    return this.#bucket.capacity;
  }

  /** Reads waiting for tokens now. */
  get queued(): number {
    return this.#queue.length;
  }

  /**
   * A new budget (the account's limits). The new bucket starts with no more tokens than the old
   * one held: the venue's bucket did not refill because we learnt its size.
   */
  setBudget(refillPerSecond: number, capacity: number): void {
    const nowMs = this.#clock.nowMs();
    const held = this.#bucket.available(nowMs);
    this.#bucket = new TokenBucket(refillPerSecond, capacity, nowMs);
    this.#bucket.drainTo(held, nowMs);
    this.#rearm();
  }

  /**
   * Resolves once `cost` tokens are taken. A cost above the capacity takes the whole capacity
   * (the venue's bucket could never hold more; waiting forever would be the worse answer).
   */
  take(cost: number): Promise<void> {
    if (this.#closed) return Promise.reject(new ReadPacerClosedError());
    const due = cost > this.#bucket.capacity ? this.#bucket.capacity : cost;
    if (this.#queue.length === 0 && this.#bucket.tryTake(due, this.#clock.nowMs())) return Promise.resolve();
    this.waits++;
    return new Promise<void>((resolve, reject) => {
      this.#queue.push({ cost: due, resolve, reject });
      if (this.#queue.length === 1) this.#rearm();
    });
  }

  /** The venue answered 429: our mirror was optimistic, so it empties and reads wait for refill. */
  onRateLimited(): void {
    this.rateLimited++;
    this.#bucket.drainTo(0, this.#clock.nowMs());
  }

  /** Rejects every waiting read; later takes reject at once. */
  close(): void {
    this.#closed = true;
    if (this.#timer !== null) this.#timers.clearTimeout(this.#timer);
    this.#timer = null;
    const error = new ReadPacerClosedError();
    for (const waiter of this.#queue.splice(0)) waiter.reject(error);
  }

  /** Serves the queue head while tokens last, then arms one timer for the next head's shortfall. */
  #drain(): void {
    this.#timer = null;
    const nowMs = this.#clock.nowMs();
    while (this.#queue.length > 0) {
      const head = this.#queue[0];
      const due = head.cost > this.#bucket.capacity ? this.#bucket.capacity : head.cost;
      if (!this.#bucket.tryTake(due, nowMs)) break;
      this.#queue.shift();
      head.resolve();
    }
    this.#rearm();
  }

  #rearm(): void {
    if (this.#closed) return;
    if (this.#timer !== null) this.#timers.clearTimeout(this.#timer);
    this.#timer = null;
    if (this.#queue.length === 0) return;
    const head = this.#queue[0];
    const due = head.cost > this.#bucket.capacity ? this.#bucket.capacity : head.cost;
    // At least 1 ms: waitMs rounds up, and a 0 ms timer on a coarse clock would spin.
    const delayMs = Math.max(1, this.#bucket.waitMs(due, this.#clock.nowMs()));
    this.#timer = this.#timers.setTimeout(() => this.#drain(), delayMs);
  }
}
