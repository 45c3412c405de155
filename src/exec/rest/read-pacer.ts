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
 *
 * Reads on the way: the venue charges a read when it arrives, so while reads taken here are on the
 * way its bucket holds their tokens too and can sit at capacity, losing refill ours keeps (the same
 * loss as the gate's write mirror, risk/rate-budget.ts). A read from take() counts as in flight
 * until its caller calls settled(): the bucket holds at most its capacity less that, and a read
 * that only a settle can pay for waits for one instead of a timer. The gate's synchronous reads
 * (tryTakeNow: reconciliation, keep-warm) count the same way until their caller calls settleNow().
 */

import { TokenBucket, mirrorHeadroom, type Clock } from '../../core/index.ts';

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
  resolve: (granted: number) => void;
  reject: (error: Error) => void;
}

export class ReadPacer {
  #bucket: TokenBucket;
  /** Tokens never spent (core's mirrorHeadroom of #arrivalSkewMs): reads reach the venue bunched. */
  #headroom: number;
  #arrivalSkewMs = 0;
  readonly #clock: Clock;
  readonly #timers: PacerTimers;
  readonly #queue: Waiter[] = [];
  #timer: unknown = null;
  #closed = false;
  /** Tokens of reads granted by take() and not yet settled(). */
  #inFlight = 0;
  /** Reads that had to wait, and 429s reported (tests, status). */
  waits = 0;
  rateLimited = 0;

  /** `refillPerSecond` and `capacity` in whole tokens; the bucket starts full, as the venue's does. */
  constructor(refillPerSecond: number, capacity: number, clock: Clock, timers: PacerTimers = SYSTEM_TIMERS) {
    this.#clock = clock;
    this.#timers = timers;
    this.#bucket = new TokenBucket(refillPerSecond, capacity, clock.nowMs());
    this.#headroom = mirrorHeadroom(refillPerSecond, capacity, this.#arrivalSkewMs);
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
    this.#headroom = mirrorHeadroom(refillPerSecond, capacity, this.#arrivalSkewMs);
    this.#bucket.drainTo(held, nowMs);
    this.#rearm();
  }

  /**
   * Resolves once `cost` tokens are taken (at most what the bucket can give, #due), with the
   * tokens taken: the read counts as in flight until the caller passes them to settled().
   */
  take(cost: number): Promise<number> {
    if (this.#closed) return Promise.reject(new ReadPacerClosedError());
    if (this.#queue.length === 0 && this.#tryTake(cost, this.#clock.nowMs())) {
      const granted = this.#due(cost);
      this.#inFlight += granted;
      return Promise.resolve(granted);
    }
    this.waits++;
    return new Promise<number>((resolve, reject) => {
      this.#queue.push({ cost, resolve, reject });
      if (this.#queue.length === 1) this.#rearm();
    });
  }

  /**
   * A read from take() was answered (or failed): the venue has charged it by now. The bucket is
   * capped with it still counted (as the venue's was while it was on the way), then it stops counting.
   */
  settled(granted: number): void {
    if (!(granted > 0)) return;
    this.#cap(this.#clock.nowMs());
    this.#inFlight = this.#inFlight > granted ? this.#inFlight - granted : 0;
    if (this.#queue.length > 0 && !this.#closed) this.#drain();
  }

  /** Tokens of reads taken and not yet settled. */
  get inFlight(): number {
    return this.#inFlight;
  }

  /** Leaves the refill of `skewMs` unspent from now on (core's mirrorHeadroom; 0, the default: none). */
  setArrivalSkew(skewMs: number): void {
    this.#arrivalSkewMs = skewMs;
    this.#headroom = mirrorHeadroom(this.#bucket.refillPerSecond, this.#bucket.capacity, skewMs);
    this.#rearm();
  }

  /**
   * Takes `cost` tokens at once if no read waits ahead and the bucket holds them (the gate's
   * synchronous reads: reconciliation, keep-warm). A refusal takes nothing and queues nothing.
   * A read taken counts as in flight until its caller passes the same cost to settleNow().
   */
  tryTakeNow(cost: number): boolean {
    if (this.#closed || this.#queue.length > 0) return false;
    if (!this.#tryTake(cost, this.#clock.nowMs())) return false;
    this.#inFlight += this.#due(cost);
    return true;
  }

  /** A read from tryTakeNow(cost) was answered (or failed): as settled(), for what it took. */
  settleNow(cost: number): void {
    this.settled(this.#due(cost));
  }

  /** Whole tokens a read may take now (the headroom not counted). */
  available(): number {
    this.#cap(this.#clock.nowMs());
    const spendable = Math.floor(this.#bucket.available(this.#clock.nowMs()) - this.#headroom);
    return spendable > 0 ? spendable : 0;
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
      if (!this.#tryTake(head.cost, nowMs)) break;
      this.#queue.shift();
      const granted = this.#due(head.cost);
      this.#inFlight += granted;
      head.resolve(granted);
    }
    this.#rearm();
  }

  /**
   * What a read of `cost` takes: a cost above what the bucket can ever give (capacity less the
   * headroom) takes all of that (the venue's bucket could never hold more; waiting forever would be
   * the worse answer).
   */
  #due(cost: number): number {
    const most = this.#bucket.capacity - this.#headroom;
    return cost > most ? most : cost;
  }

  #tryTake(cost: number, nowMs: number): boolean {
    this.#cap(nowMs);
    return this.#bucket.tryTake(this.#due(cost), nowMs, this.#headroom);
  }

  /** The bucket never holds more than its capacity less the reads on the way. */
  #cap(nowMs: number): void {
    this.#bucket.capBelowOnTheWay(this.#inFlight, nowMs);
  }

  #rearm(): void {
    if (this.#closed) return;
    if (this.#timer !== null) this.#timers.clearTimeout(this.#timer);
    this.#timer = null;
    if (this.#queue.length === 0) return;
    const head = this.#queue[0];
    // Only a settle can make room for it (reads on the way hold the rest of the bucket): settled() drains.
    if (this.#bucket.capacity - this.#inFlight < this.#due(head.cost) + this.#headroom) return;
    // At least 1 ms: waitMs rounds up, and a 0 ms timer on a coarse clock would spin.
    const delayMs = Math.max(1, this.#bucket.waitMs(this.#due(head.cost) + this.#headroom, this.#clock.nowMs()));
    this.#timer = this.#timers.setTimeout(() => this.#drain(), delayMs);
  }
}
