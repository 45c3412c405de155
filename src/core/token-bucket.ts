/**
 * One token bucket on an injected clock, shared by everything that meters a rate: the simulator's
 * per-key REST buckets, the risk gate's mirror of them and the feed's command pacing. Tokens are
 * held in milli-tokens so refill is exact integer arithmetic: a bucket refilling R tokens per
 * second gains R milli-tokens per millisecond. A take is all or nothing (a refused take takes
 * nothing), and a caller may require a floor of tokens to stay behind (the gate's cancel reserve).
 * This file never knows endpoints, tiers or intents, and never reads a clock itself.
 */

export class TokenBucket {
  #milliTokens: number;
  readonly #capacityMilli: number;
  readonly #refillPerSecond: number;
  #lastMs: number;

  /** Starts full (the venue starts a key with a full bucket). refillPerSecond and capacity are whole tokens. */
  constructor(refillPerSecond: number, capacity: number, nowMs: number) {
    if (!Number.isSafeInteger(refillPerSecond) || refillPerSecond <= 0) throw new RangeError(`TokenBucket: refillPerSecond must be a positive integer, got ${refillPerSecond}`);
    if (!(capacity > 0)) throw new RangeError(`TokenBucket: capacity must be positive, got ${capacity}`);
    this.#refillPerSecond = refillPerSecond;
    this.#capacityMilli = Math.round(capacity * 1000);
    this.#milliTokens = this.#capacityMilli;
    this.#lastMs = nowMs;
  }

  /** Takes `cost` tokens if, after the take, at least `floor` tokens stay; returns whether it took. */
  tryTake(cost: number, nowMs: number, floor = 0): boolean {
    this.#refill(nowMs);
    const left = this.#milliTokens - cost * 1000;
    if (left < floor * 1000) return false;
    this.#milliTokens = left;
    return true;
  }

  /** Would tryTake succeed? Takes nothing. */
  canTake(cost: number, nowMs: number, floor = 0): boolean {
    this.#refill(nowMs);
    return this.#milliTokens - cost * 1000 >= floor * 1000;
  }

  /** Whole tokens available now. */
  available(nowMs: number): number {
    this.#refill(nowMs);
    return Math.floor(this.#milliTokens / 1000);
  }

  /** Milliseconds until `cost` tokens are available (0 when they are). */
  waitMs(cost: number, nowMs: number): number {
    this.#refill(nowMs);
    const missing = cost * 1000 - this.#milliTokens;
    return missing <= 0 ? 0 : Math.ceil(missing / this.#refillPerSecond);
  }

  /** Lowers the bucket to at most `tokens` (a venue 429 says our mirror was optimistic). */
  drainTo(tokens: number, nowMs: number): void {
    this.#refill(nowMs);
    const milli = Math.round(tokens * 1000);
    if (this.#milliTokens > milli) this.#milliTokens = milli;
  }

  /**
   * Lowers the bucket to at most its capacity less `onTheWay` tokens (never below 0): a mirror of
   * a venue bucket whose requests are still on the way, which the venue holds too and charges only
   * on arrival, so its bucket is full - and loses refill - that much sooner than ours would be.
   */
  capBelowOnTheWay(onTheWay: number, nowMs: number): void {
    if (!(onTheWay > 0)) return;
    const room = this.#capacityMilli / 1000 - onTheWay;
    this.drainTo(room > 0 ? room : 0, nowMs);
  }

  get capacity(): number {
    return this.#capacityMilli / 1000;
  }

  get refillPerSecond(): number {
    return this.#refillPerSecond;
  }

  #refill(nowMs: number): void {
    const elapsedMs = nowMs - this.#lastMs;
    if (!(elapsedMs > 0)) return; // a clock that steps back never mints tokens
    this.#lastMs = nowMs;
    const next = this.#milliTokens + elapsedMs * this.#refillPerSecond;
    this.#milliTokens = next > this.#capacityMilli ? this.#capacityMilli : next;
  }
}

/**
 * Tokens a client-side mirror of a venue bucket never spends: the refill of `skewMs` (at most
 * half the capacity). One request may reach the venue later than a request spent after it (a
 * connection busy with an earlier answer, a slower signature); the venue then sees the two closer
 * together than the mirror did and has refilled less. The headroom keeps the venue's bucket above
 * zero through that. It lowers only the first burst; the steady rate stays the refill's.
 */
export function mirrorHeadroom(refillPerSecond: number, capacity: number, skewMs: number): number {
  const skew = (refillPerSecond * skewMs) / 1000;
  return skew < capacity / 2 ? skew : capacity / 2;
}
