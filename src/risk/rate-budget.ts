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
 * so a strategy flooding creates can never starve its own cancels or the kill switch. Under both
 * sits a headroom nothing spends (core's mirrorHeadroom of `arrivalSkewMs`; 0 spends to the last
 * token): a margin for spending this mirror does not see (another session on the key, reads the
 * pacer does not count in flight).
 *
 * Writes on the way: a write we paid for is charged by the venue only when it arrives, so until
 * then the venue's bucket holds its tokens too and can reach its capacity where ours did not; the
 * refill it loses there is lost for good, and over a long busy run those losses added up to 429s
 * (scale bench, Basic: the venue's answers 0.5-1 s late). So the write mirror never holds more than
 * the capacity less the tokens of writes not yet answered (countWritesInFlight, onWriteAnswer):
 * the venue's bucket is then never full while ours could spend, and it holds at least what ours does.
 * This file owns the buckets; it never knows intents' other fields or the network. A refused take
 * takes nothing.
 */

import { TokenBucket, mirrorHeadroom } from '../core/index.ts';

/**
 * Where the read tokens really are when the runtime has a read pacer (exec/rest/read-pacer.ts):
 * the venue has one read bucket per key, so the gate's synchronous reads (reconciliation, the
 * order route's keep-warm) and the pacer's queued ones must spend from the same mirror. Two
 * mirrors each believing they hold the whole budget overdrew it at start-up (429s on market lookups).
 */
export interface ReadTokenSource {
  /** Takes `cost` tokens now if no queued read is ahead and the bucket holds them; counted on the way until settleNow(cost). */
  tryTakeNow(cost: number): boolean;
  /** A read tryTakeNow(cost) paid for was answered or failed. */
  settleNow(cost: number): void;
  /** Whole tokens available now. */
  available(): number;
}

export class RateBudget {
  #write: TokenBucket;
  #read: TokenBucket;
  #readSource: ReadTokenSource | null = null;
  /**
   * [0]: write tokens taken since start (the status's "spent per second" diffs it). A typed array:
   * a number field passes 2^30 after days of trading and its change of representation would
   * deprecate the budget's map under the gate's optimized checks (as exposure-ledger.ts's total did).
   */
  readonly #writeSpent = new Float64Array(1);
  /** Whole tokens of the write bucket only cancels and cancel-all may spend. */
  #writeReserve: number;
  /** Tokens under everything in each bucket (arrival skew at the venue). */
  #writeHeadroom: number;
  #readHeadroom: number;
  readonly #reserveShare: number;
  readonly #arrivalSkewMs: number;
  /** Write tokens of requests sent and not yet answered (the order route's count); null: none counted. */
  #writesInFlight: (() => number) | null = null;

  /**
   * @param writePerSecond write tokens added per second
   * @param writeCapacity write bucket capacity in tokens
   * @param reserveShare share (0..1) of the write capacity kept for cancels
   * @param readPerSecond read tokens per second; the read bucket holds one second (rest.md §9, implied)
   * @param arrivalSkewMs the refill of this many ms stays unspent in each bucket (0: none)
   */
  constructor(writePerSecond: number, writeCapacity: number, reserveShare: number, readPerSecond: number, nowMs: number, arrivalSkewMs = 0) {
    this.#arrivalSkewMs = arrivalSkewMs;
    this.#write = new TokenBucket(writePerSecond, writeCapacity, nowMs);
    this.#read = new TokenBucket(readPerSecond, readPerSecond, nowMs);
    this.#reserveShare = reserveShare;
    this.#writeReserve = Math.round(writeCapacity * reserveShare * 1000) / 1000;
    this.#writeHeadroom = mirrorHeadroom(writePerSecond, writeCapacity, this.#arrivalSkewMs);
    this.#readHeadroom = mirrorHeadroom(readPerSecond, readPerSecond, this.#arrivalSkewMs);
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
    this.#writeHeadroom = mirrorHeadroom(writePerSecond, writeCapacity, this.#arrivalSkewMs);
    this.#readHeadroom = mirrorHeadroom(readPerSecond, readCapacity, this.#arrivalSkewMs);
  }

  /** Write tokens taken since start. */
  get writeSpent(): number {
    return this.#writeSpent[0]!;
  }

  /**
   * Takes `cost` write tokens if available. `reserveAllowed` (cancels, cancel-all) may drain the
   * bucket to zero; anything else must leave the reserve untouched. Returns whether it took.
   */
  tryTakeWrite(cost: number, reserveAllowed: boolean, nowMs: number): boolean {
    if (this.#writesInFlight !== null) this.#capWrite(nowMs);
    if (!this.#write.tryTake(cost, nowMs, this.#writeFloor(reserveAllowed))) return false;
    this.#writeSpent[0] += cost;
    return true;
  }

  /** Would tryTakeWrite succeed? Takes nothing. */
  canTakeWrite(cost: number, reserveAllowed: boolean, nowMs: number): boolean {
    if (this.#writesInFlight !== null) this.#capWrite(nowMs);
    return this.#write.canTake(cost, nowMs, this.#writeFloor(reserveAllowed));
  }

  #writeFloor(reserveAllowed: boolean): number {
    return reserveAllowed ? this.#writeHeadroom : this.#writeHeadroom + this.#writeReserve;
  }

  /**
   * From now on the write mirror holds at most its capacity less `source()`, the write tokens of
   * the requests the order route has sent (or queued) and not yet seen answered.
   */
  countWritesInFlight(source: () => number): void {
    this.#writesInFlight = source;
  }

  /**
   * A write's exchange has ended and its tokens are about to leave the in-flight count: the venue
   * has charged it by now, and while it was on the way the venue's bucket was capped with it in. Cap
   * ours the same before it stops counting (between two such calls the count only grows by sends,
   * which come after a take that capped).
   */
  onWriteAnswer(nowMs: number): void {
    if (this.#writesInFlight !== null) this.#capWrite(nowMs);
  }

  #capWrite(nowMs: number): void {
    this.#write.capBelowOnTheWay(this.#writesInFlight!(), nowMs);
  }

  /** From now on, reads spend from `source` (the runtime's read pacer) instead of this budget's own read bucket. */
  shareReads(source: ReadTokenSource): void {
    this.#readSource = source;
  }

  /** Read bucket (reconciliation reads: listOrders, listFills, listPositions cost 10 each by default). */
  tryTakeRead(cost: number, nowMs: number): boolean {
    if (this.#readSource !== null) return this.#readSource.tryTakeNow(cost);
    return this.#read.tryTake(cost, nowMs, this.#readHeadroom);
  }

  /** A read tryTakeRead(cost) paid for was answered or failed (the shared read source stops counting it on the way). */
  settleRead(cost: number): void {
    this.#readSource?.settleNow(cost);
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
    if (this.#writesInFlight !== null) this.#capWrite(nowMs);
    return this.#write.available(nowMs);
  }

  readTokens(nowMs: number): number {
    if (this.#readSource !== null) return this.#readSource.available();
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
