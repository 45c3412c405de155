/**
 * The client-side mirror of the venue's token buckets (rest.md §9), so the gate refuses what the
 * venue would answer with 429 instead of spending a round trip on it. Tokens are held in
 * milli-tokens: a bucket refilling R tokens/s gains R milli-tokens per millisecond, plain integer
 * arithmetic for integer clocks.
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

export class RateBudget {
  #writeMilli: number;
  #writeCapacityMilli: number;
  #writeReserveMilli: number;
  #writePerSecond: number;
  #readMilli: number;
  #readCapacityMilli: number;
  #readPerSecond: number;
  #lastWriteMs: number;
  #lastReadMs: number;

  /**
   * @param writePerSecond write tokens added per second
   * @param writeCapacity write bucket capacity in tokens
   * @param reserveShare share (0..1) of the write capacity kept for cancels
   * @param readPerSecond read tokens per second; the read bucket holds one second (rest.md §9, implied)
   */
  constructor(writePerSecond: number, writeCapacity: number, reserveShare: number, readPerSecond: number, nowMs: number) {
    this.#writePerSecond = writePerSecond;
    this.#writeCapacityMilli = Math.round(writeCapacity * 1000);
    this.#writeReserveMilli = Math.round(writeCapacity * reserveShare * 1000);
    this.#writeMilli = this.#writeCapacityMilli; // the venue starts a key with a full bucket
    this.#readPerSecond = readPerSecond;
    this.#readCapacityMilli = Math.round(readPerSecond * 1000);
    this.#readMilli = this.#readCapacityMilli;
    this.#lastWriteMs = nowMs;
    this.#lastReadMs = nowMs;
  }

  /**
   * Takes `cost` write tokens if available. `reserveAllowed` (cancels, cancel-all) may drain the
   * bucket to zero; anything else must leave the reserve untouched. Returns whether it took.
   */
  tryTakeWrite(cost: number, reserveAllowed: boolean, nowMs: number): boolean {
    this.#refillWrite(nowMs);
    const left = this.#writeMilli - cost * 1000;
    if (left < (reserveAllowed ? 0 : this.#writeReserveMilli)) return false;
    this.#writeMilli = left;
    return true;
  }

  /** Would tryTakeWrite succeed? Takes nothing. */
  canTakeWrite(cost: number, reserveAllowed: boolean, nowMs: number): boolean {
    this.#refillWrite(nowMs);
    return this.#writeMilli - cost * 1000 >= (reserveAllowed ? 0 : this.#writeReserveMilli);
  }

  /** Read bucket (reconciliation reads: listOrders, listFills, listPositions cost 10 each by default). */
  tryTakeRead(cost: number, nowMs: number): boolean {
    this.#refillRead(nowMs);
    const left = this.#readMilli - cost * 1000;
    if (left < 0) return false;
    this.#readMilli = left;
    return true;
  }

  /**
   * The venue answered 429: our mirror was optimistic (another session shares the key, or the
   * clocks drift). Empty the non-reserve part so creates wait for a refill; the reserve stays.
   */
  onVenueRateLimited(nowMs: number): void {
    this.#refillWrite(nowMs);
    if (this.#writeMilli > this.#writeReserveMilli) this.#writeMilli = this.#writeReserveMilli;
  }

  /** Whole write tokens available now (including the reserve). */
  writeTokens(nowMs: number): number {
    this.#refillWrite(nowMs);
    return Math.floor(this.#writeMilli / 1000);
  }

  readTokens(nowMs: number): number {
    this.#refillRead(nowMs);
    return Math.floor(this.#readMilli / 1000);
  }

  get writeCapacity(): number {
    return this.#writeCapacityMilli / 1000;
  }

  get writeReserve(): number {
    return this.#writeReserveMilli / 1000;
  }

  get writePerSecond(): number {
    return this.#writePerSecond;
  }

  #refillWrite(nowMs: number): void {
    const elapsedMs = nowMs - this.#lastWriteMs;
    if (!(elapsedMs > 0)) return; // a clock stepping back never mints tokens
    this.#lastWriteMs = nowMs;
    const next = this.#writeMilli + elapsedMs * this.#writePerSecond;
    this.#writeMilli = next > this.#writeCapacityMilli ? this.#writeCapacityMilli : next;
  }

  #refillRead(nowMs: number): void {
    const elapsedMs = nowMs - this.#lastReadMs;
    if (!(elapsedMs > 0)) return;
    this.#lastReadMs = nowMs;
    const next = this.#readMilli + elapsedMs * this.#readPerSecond;
    this.#readMilli = next > this.#readCapacityMilli ? this.#readCapacityMilli : next;
  }
}
