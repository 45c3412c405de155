/**
 * One token bucket with an injected clock. Tokens are held in milli-tokens so refill stays exact
 * integer arithmetic: a bucket refilling R tokens per second gains R milli-tokens per millisecond.
 * A request is admitted only when the bucket holds its whole cost; a rejected request takes
 * nothing (rest.md §9 leaves that open; we choose the client-friendly reading, README).
 * This file never knows endpoints or tiers.
 */

export class TokenBucket {
  #milliTokens: number;
  #capacityMilli: number;
  #refillPerSecond: number;
  #lastMs: number;

  constructor(refillPerSecond: number, capacity: number, nowMs: number) {
    this.#refillPerSecond = refillPerSecond;
    this.#capacityMilli = capacity * 1000;
    this.#milliTokens = this.#capacityMilli; // a new key starts with a full bucket
    this.#lastMs = nowMs;
  }

  /** Takes `cost` tokens if the bucket holds them all; returns whether it did. */
  tryTake(cost: number, nowMs: number): boolean {
    this.#refill(nowMs);
    const need = cost * 1000;
    if (this.#milliTokens < need) return false;
    this.#milliTokens -= need;
    return true;
  }

  /** Whole tokens available now. */
  available(nowMs: number): number {
    this.#refill(nowMs);
    return Math.floor(this.#milliTokens / 1000);
  }

  get capacity(): number {
    return this.#capacityMilli / 1000;
  }

  get refillPerSecond(): number {
    return this.#refillPerSecond;
  }

  #refill(nowMs: number): void {
    const elapsedMs = nowMs - this.#lastMs;
    if (elapsedMs <= 0) return; // a clock that steps back never mints tokens
    this.#lastMs = nowMs;
    const next = this.#milliTokens + elapsedMs * this.#refillPerSecond;
    this.#milliTokens = next > this.#capacityMilli ? this.#capacityMilli : next;
  }
}
