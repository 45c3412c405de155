/**
 * The client-side mirror of the venue's token buckets (rest.md §9), so the gate refuses what the
 * venue would answer with 429 instead of spending a round trip on it. Both buckets are core's
 * TokenBucket (exact integer milli-tokens on the injected clock), the same the simulator meters with.
 *
 * Write bucket, with a reserve only cancels and cancel-all may spend:
 *
 *   0 ........ reserve ............................ capacity
 *   |<- cancels, cancel-all ->|<- everything else (and cancels) ->|
 *
 * so a strategy flooding creates can never starve its own cancels or the kill switch.
 * This file owns the buckets; it never knows intents' other fields or the network. A refused take
 * takes nothing.
 */

import { TokenBucket } from '../core/index.ts';

export class RateBudget {
  #write: TokenBucket;
  #read: TokenBucket;
  /** Write tokens taken since start (the status's "spent per second" diffs it). */
  writeSpent = 0;
  /** Whole tokens of the write bucket only cancels and cancel-all may spend. */
  #writeReserve: number;
  readonly #reserveShare: number;

  /**
   * @param writePerSecond write tokens added per second
   * @param writeCapacity write bucket capacity in tokens
   * @param reserveShare share (0..1) of the write capacity kept for cancels
   * @param readPerSecond read tokens per second; the read bucket holds one second (rest.md §9, implied)
   */
  constructor(writePerSecond: number, writeCapacity: number, reserveShare: number, readPerSecond: number, nowMs: number) {
    this.#write = new TokenBucket(writePerSecond, writeCapacity, nowMs);
    this.#read = new TokenBucket(readPerSecond, readPerSecond, nowMs);
    this.#reserveShare = reserveShare;
    this.#writeReserve = Math.round(writeCapacity * reserveShare * 1000) / 1000;
  }

  /**
   * The account's real budgets, read from the venue at start (GET /account/limits) after the gate
   * was built from the configured tier. The new buckets hold no more than the old ones did: the
   * venue's buckets did not refill because we learnt their size. Off the hot path, once.
   */
  setBudget(writePerSecond: number, writeCapacity: number, readPerSecond: number, readCapacity: number, nowMs: number): void {
    const writeHeld = this.#write.available(nowMs);
    const readHeld = this.#read.available(nowMs);
    this.#write = new TokenBucket(writePerSecond, writeCapacity, nowMs);
    this.#write.drainTo(writeHeld, nowMs);
    this.#read = new TokenBucket(readPerSecond, readCapacity, nowMs);
    this.#read.drainTo(readHeld, nowMs);
    this.#writeReserve = Math.round(writeCapacity * this.#reserveShare * 1000) / 1000;
  }

  /**
   * Takes `cost` write tokens if available. `reserveAllowed` (cancels, cancel-all) may drain the
   * bucket to zero; anything else must leave the reserve untouched. Returns whether it took.
   */
  tryTakeWrite(cost: number, reserveAllowed: boolean, nowMs: number): boolean {
    if (!this.#write.tryTake(cost, nowMs, reserveAllowed ? 0 : this.#writeReserve)) return false;
    this.writeSpent += cost;
    return true;
  }

  /** Would tryTakeWrite succeed? Takes nothing. */
  canTakeWrite(cost: number, reserveAllowed: boolean, nowMs: number): boolean {
    return this.#write.canTake(cost, nowMs, reserveAllowed ? 0 : this.#writeReserve);
  }

  /** Read bucket (reconciliation reads: listOrders, listFills, listPositions cost 10 each by default). */
  tryTakeRead(cost: number, nowMs: number): boolean {
    return this.#read.tryTake(cost, nowMs);
  }

  /**
   * The venue answered 429: our mirror was optimistic (another session shares the key, or the
   * clocks drift). Empty the non-reserve part so creates wait for a refill; the reserve stays.
   */
  onVenueRateLimited(nowMs: number): void {
    this.#write.drainTo(this.#writeReserve, nowMs);
  }

  /** Whole write tokens available now (including the reserve). */
  writeTokens(nowMs: number): number {
    return this.#write.available(nowMs);
  }

  readTokens(nowMs: number): number {
    return this.#read.available(nowMs);
  }

  get writeCapacity(): number {
    return this.#write.capacity;
  }

  get writeReserve(): number {
    return this.#writeReserve;
  }

  get writePerSecond(): number {
    return this.#write.refillPerSecond;
  }

  get readPerSecond(): number {
    return this.#read.refillPerSecond;
  }
}
