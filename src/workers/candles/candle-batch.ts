/**
 * CandleBatch: the columnar input of candlestick aggregation, one row per market event, every
 * column a typed array over ONE buffer, so a batch crosses to a worker as a single transferable
 * ArrayBuffer (moved, not copied) or a SharedArrayBuffer (shared, reused after the task) and is
 * never walked or copied per trade on the way. The worker wraps the same bytes with fromBuffer.
 *
 * A row says what changed at `tsMs` on `market` (an index the caller assigns, 0..marketCount-1):
 *   count > 0          a trade of `count` (1/100 contract) at YES `price` (1/10,000 dollar)
 *   yesBid / yesAsk    the best YES bid / ask after the event; -1 unchanged, 0 that side is empty
 *   openInterest       contracts open after the event (1/100 contract); -1 unchanged
 * so one row can carry a trade and the book top it left. Rows of one market are in time order.
 *
 * Buffer layout, capacity C rows (40 bytes a row; the Float64 columns first keep alignment):
 *
 *   0      8C     16C    24C    28C    32C    36C    40C
 *   | tsMs | count | oi  | mkt  | price| bid  | ask  |
 *   Float64 Float64 Float64 Int32 Int32 Int32  Int32
 *
 * This file owns the layout and appending; it never aggregates.
 */

import { assert } from '../../core/index.ts';

export const BATCH_ROW_BYTES = 40;
/** "No change" in the yesBid, yesAsk and openInterest columns. */
export const UNCHANGED = -1;
/** Largest count of one row: price (< 2^14) x count stays below 2^52 (exact sums, candle-aggregator.ts). */
export const ROW_COUNT_MAX = 2 ** 38;
export const PRICE_MAX = 10_000;

export type BatchBuffer = ArrayBuffer | SharedArrayBuffer;

export class CandleBatch {
  readonly buffer: BatchBuffer;
  readonly capacity: number;
  /** Rows written. */
  length: number;
  readonly tsMs: Float64Array;
  readonly count: Float64Array;
  readonly openInterest: Float64Array;
  readonly market: Int32Array;
  readonly price: Int32Array;
  readonly yesBid: Int32Array;
  readonly yesAsk: Int32Array;

  /** Views over `buffer` (capacity from its size); `length` rows already written. */
  constructor(buffer: BatchBuffer, length = 0) {
    assert(buffer.byteLength % BATCH_ROW_BYTES === 0, 'CandleBatch: buffer size is not a whole number of rows');
    const capacity = buffer.byteLength / BATCH_ROW_BYTES;
    assert(Number.isSafeInteger(length) && length >= 0 && length <= capacity, 'CandleBatch: length out of range');
    this.buffer = buffer;
    this.capacity = capacity;
    this.length = length;
    this.tsMs = new Float64Array(buffer, 0, capacity);
    this.count = new Float64Array(buffer, 8 * capacity, capacity);
    this.openInterest = new Float64Array(buffer, 16 * capacity, capacity);
    this.market = new Int32Array(buffer, 24 * capacity, capacity);
    this.price = new Int32Array(buffer, 28 * capacity, capacity);
    this.yesBid = new Int32Array(buffer, 32 * capacity, capacity);
    this.yesAsk = new Int32Array(buffer, 36 * capacity, capacity);
  }

  /** A batch of `capacity` rows over a new ArrayBuffer (transferable) or SharedArrayBuffer. */
  static create(capacity: number, shared = false): CandleBatch {
    assert(Number.isSafeInteger(capacity) && capacity >= 1, 'CandleBatch.create: capacity must be >= 1');
    const bytes = capacity * BATCH_ROW_BYTES;
    return new CandleBatch(shared ? new SharedArrayBuffer(bytes) : new ArrayBuffer(bytes));
  }

  get full(): boolean {
    return this.length === this.capacity;
  }

  clear(): void {
    this.length = 0;
  }

  /**
   * Appends a trade (and optionally the open interest it left); returns the row index, or -1 when
   * the batch is full (the caller flushes and starts another).
   */
  appendTrade(market: number, tsMs: number, price: number, count: number, openInterest: number = UNCHANGED): number {
    return this.appendRow(market, tsMs, price, count, UNCHANGED, UNCHANGED, openInterest);
  }

  /** Appends a book top change; -1 when full. */
  appendTop(market: number, tsMs: number, yesBid: number, yesAsk: number, openInterest: number = UNCHANGED): number {
    return this.appendRow(market, tsMs, 0, 0, yesBid, yesAsk, openInterest);
  }

  /** Appends a row with every column given; -1 when full. Asserts the column ranges. */
  appendRow(market: number, tsMs: number, price: number, count: number, yesBid: number, yesAsk: number, openInterest: number): number {
    const row = this.length;
    if (row === this.capacity) return -1;
    assert(market >= 0 && market <= 0x7fffffff && (market | 0) === market, 'CandleBatch: market index not an int32 >= 0');
    assert(Number.isSafeInteger(tsMs) && tsMs >= 0, 'CandleBatch: tsMs not a safe integer >= 0');
    assert(Number.isSafeInteger(count) && count >= 0 && count <= ROW_COUNT_MAX, 'CandleBatch: count out of range');
    assert(count === 0 || ((price | 0) === price && price >= 0 && price <= PRICE_MAX), 'CandleBatch: trade price out of range');
    assert((yesBid | 0) === yesBid && yesBid >= UNCHANGED && yesBid <= PRICE_MAX, 'CandleBatch: yesBid out of range');
    assert((yesAsk | 0) === yesAsk && yesAsk >= UNCHANGED && yesAsk <= PRICE_MAX, 'CandleBatch: yesAsk out of range');
    assert(Number.isSafeInteger(openInterest) && openInterest >= UNCHANGED, 'CandleBatch: openInterest out of range');
    this.tsMs[row] = tsMs;
    this.count[row] = count;
    this.openInterest[row] = openInterest;
    this.market[row] = market;
    this.price[row] = count === 0 ? 0 : price;
    this.yesBid[row] = yesBid;
    this.yesAsk[row] = yesAsk;
    this.length = row + 1;
    return row;
  }
}
