/**
 * MarketTape: one market's recorded history as a bounded ring of CandleBatch rows (the columnar
 * input of the shared candlestick arithmetic, src/workers/candles), so the candlestick routes feed
 * the ring's own typed arrays to CandleAggregator without copying a row. Beside the batch columns
 * it keeps what the trade routes need and candles do not: the trade's sequence number (its id)
 * and the taker's book side.
 *
 * The ring starts small and doubles up to `capacity` rows; once full, the oldest row is
 * overwritten and first folded into `evicted` (a CandleSeeds record: last trade price, top and
 * open interest as of the oldest row still kept), so candles stay exact for everything the ring
 * still holds and carry the right state across what it dropped.
 *
 *   rows in time order: [head .. capacity) then [0 .. head) once wrapped; `size` rows in all
 *
 * Times never go backwards on a tape: a row stamped before the previous one (a test clock set
 * back) is recorded at the previous row's time. This file owns the ring; it never renders JSON.
 */

import { CandleBatch, SeedField, createSeeds } from '../../workers/index.ts';

const INITIAL_ROWS = 1024;
const NO_TRADE = -1;
const SIDE_BID = 0;
const SIDE_ASK = 1;

export class MarketTape {
  readonly ticker: string;
  readonly capacity: number;
  /** The rows; market column always 0. `batch.length` is the ring's allocated size once wrapped. */
  batch: CandleBatch;
  /** Trade sequence number per row, NO_TRADE (-1) for rows without a trade. */
  tradeSeq: Float64Array;
  /** Taker side per row (0 bid, 1 ask); meaningless without a trade. */
  takerSide: Uint8Array;
  /** Index of the oldest row. */
  head: number;
  size: number;
  /** State folded in from overwritten rows (SEED_STRIDE values). */
  readonly evicted: Float64Array;
  /** Last values recorded, to skip rows that change nothing. */
  lastBid: number;
  lastAsk: number;
  lastOpenInterest: number;
  lastTsMs: number;
  tradesRecorded: number;

  constructor(ticker: string, capacity: number) {
    this.ticker = ticker;
    this.capacity = capacity;
    const rows = Math.min(INITIAL_ROWS, capacity);
    this.batch = CandleBatch.create(rows);
    this.tradeSeq = new Float64Array(rows);
    this.takerSide = new Uint8Array(rows);
    this.head = 0;
    this.size = 0;
    this.evicted = createSeeds(1);
    this.lastBid = 0;
    this.lastAsk = 0;
    this.lastOpenInterest = 0;
    this.lastTsMs = 0;
    this.tradesRecorded = 0;
  }

  recordTrade(tsMs: number, price: number, count: number, takerSide: 'bid' | 'ask', seq: number): void {
    const row = this.#append(tsMs, price, count, -1, -1, -1);
    this.tradeSeq[row] = seq;
    this.takerSide[row] = takerSide === 'bid' ? SIDE_BID : SIDE_ASK;
    this.tradesRecorded++;
  }

  /** Records the book top when it differs from the last one recorded. */
  recordTop(tsMs: number, yesBid: number, yesAsk: number): void {
    if (yesBid === this.lastBid && yesAsk === this.lastAsk) return;
    const row = this.#append(tsMs, 0, 0, yesBid === this.lastBid ? -1 : yesBid, yesAsk === this.lastAsk ? -1 : yesAsk, -1);
    this.tradeSeq[row] = NO_TRADE;
    this.lastBid = yesBid;
    this.lastAsk = yesAsk;
  }

  /**
   * Open interest after the latest event: written into the latest row when that row is at the
   * same time (the fills of the trade just recorded), else a row of its own.
   */
  recordOpenInterest(tsMs: number, openInterest: number): void {
    if (openInterest === this.lastOpenInterest) return;
    this.lastOpenInterest = openInterest;
    if (this.size > 0 && tsMs <= this.lastTsMs) {
      this.batch.openInterest[this.#newestRow()] = openInterest;
      return;
    }
    const row = this.#append(tsMs, 0, 0, -1, -1, openInterest);
    this.tradeSeq[row] = NO_TRADE;
  }

  /** Physical index of the i-th oldest row (0 <= i < size). */
  rowAt(i: number): number {
    const at = this.head + i;
    return at < this.batch.capacity ? at : at - this.batch.capacity;
  }

  /** Index (0..size) of the first row, oldest first, stamped after `tsMs`: a binary search. */
  firstAfter(tsMs: number): number {
    let lo = 0;
    let hi = this.size;
    const ts = this.batch.tsMs;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (ts[this.rowAt(mid)] <= tsMs) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  isBidTaker(row: number): boolean {
    return this.takerSide[row] === SIDE_BID;
  }

  /** Seeds (SEED_STRIDE values) for aggregating this tape's rows: the state its dropped rows left. */
  seeds(): Float64Array {
    return this.evicted;
  }

  #newestRow(): number {
    return this.rowAt(this.size - 1);
  }

  #append(tsMs: number, price: number, count: number, bid: number, ask: number, openInterest: number): number {
    const stamped = tsMs < this.lastTsMs ? this.lastTsMs : tsMs;
    this.lastTsMs = stamped;
    if (this.size === this.batch.capacity) {
      if (this.batch.capacity < this.capacity) this.#grow();
      else this.#evictOldest();
    }
    const row = this.rowAt(this.size);
    const batch = this.batch;
    batch.tsMs[row] = stamped;
    batch.count[row] = count;
    batch.price[row] = count === 0 ? 0 : price;
    batch.yesBid[row] = bid;
    batch.yesAsk[row] = ask;
    batch.openInterest[row] = openInterest;
    batch.market[row] = 0;
    this.size++;
    if (batch.length < this.size) batch.length = this.size;
    return row;
  }

  /** Doubles the ring (only before it has wrapped: head is 0, rows already in order). */
  #grow(): void {
    const old = this.batch;
    const rows = Math.min(this.capacity, old.capacity * 2);
    const next = CandleBatch.create(rows);
    next.tsMs.set(old.tsMs);
    next.count.set(old.count);
    next.openInterest.set(old.openInterest);
    next.market.set(old.market);
    next.price.set(old.price);
    next.yesBid.set(old.yesBid);
    next.yesAsk.set(old.yesAsk);
    next.length = old.length;
    const seq = new Float64Array(rows);
    seq.set(this.tradeSeq);
    const side = new Uint8Array(rows);
    side.set(this.takerSide);
    this.batch = next;
    this.tradeSeq = seq;
    this.takerSide = side;
  }

  /** Folds the oldest row into `evicted` and frees its slot. */
  #evictOldest(): void {
    const row = this.head;
    const batch = this.batch;
    const seeds = this.evicted;
    if (batch.count[row] > 0) seeds[SeedField.LAST_PRICE] = batch.price[row];
    if (batch.yesBid[row] !== -1) seeds[SeedField.YES_BID] = batch.yesBid[row];
    if (batch.yesAsk[row] !== -1) seeds[SeedField.YES_ASK] = batch.yesAsk[row];
    if (batch.openInterest[row] !== -1) seeds[SeedField.OPEN_INTEREST] = batch.openInterest[row];
    seeds[SeedField.KNOWN] = 1;
    this.head = row + 1 === batch.capacity ? 0 : row + 1;
    this.size--;
  }
}
