/**
 * One market's binary order book: YES bids and NO bids, as the exchange publishes it. Both sides are
 * indexed by the YES-price level of the market's grid: a NO bid at q is kept at the level of the
 * equivalent YES ask 1 - q, so the best YES ask is simply the lowest such level. Sizes are integer
 * Counts held in one Float64Array (one allocation per book; integers stay exact up to 2^53, where
 * Int32 would overflow at 21 million contracts). The best levels are kept current on every change and
 * rescanned only when the best level empties. This file owns book state and its sync flag; it never
 * knows about sids, seqs or the network (book-store.ts does) and never decides what to trade.
 *
 * Reads (best*, *SizeAtLevel, top*Levels) are for everyone. The mutators (beginSnapshot, setLevel,
 * endSnapshot, applyDelta, breakSync, regrid) are driven by BookStore; strategies must not call them.
 */

import { PRICE_INVALID, PRICE_ONE, assert, type Count, type Price, type PriceGrid } from '../core/index.ts';
import { ApplyStatus } from './apply-status.ts';

export type OutOfSyncListener = (book: OrderBook, reason: number) => void;

// Life cycle of a book's contents. synced === (state === SYNCED).
const EMPTY = 0; // never had a snapshot
const SNAPSHOTTING = 1; // between beginSnapshot and endSnapshot
const SYNCED = 2;
const BROKEN = 3; // out of sync, reported once; waits for a new snapshot

const NO_LEVEL = -1;
// Object header, fields, typed-array view and ArrayBuffer overhead (V8, 64-bit), for estimates only.
const BOOK_OVERHEAD_BYTES = 256;

export class OrderBook {
  readonly ticker: string;
  grid: PriceGrid;
  /** True only between a complete snapshot and the first break. */
  synced: boolean;
  /** ApplyStatus code: OK when synced, NO_SNAPSHOT before the first snapshot, else why it broke. */
  outOfSyncReason: number;
  /** Unix ms of the last applied change, from the store's injected clock; 0 before any. */
  updatedAtMs: number;
  /** Highest YES-bid level with size, -1 when none. */
  bestBidLevel: number;
  /** Lowest YES-ask level (NO bid at 1 - price) with size, -1 when none. */
  bestAskLevel: number;
  /** The subscription whose snapshot this book holds; -1 when none. Set by BookStore. */
  sid: number;
  #state: number;
  #levelCount: number;
  // [0, levelCount): YES bids by level; [levelCount, 2 * levelCount): NO bids by YES-ask level.
  #sizes: Float64Array;
  readonly #onOutOfSync: OutOfSyncListener | null;

  constructor(ticker: string, grid: PriceGrid, onOutOfSync: OutOfSyncListener | null = null) {
    this.ticker = ticker;
    this.grid = grid;
    this.synced = false;
    this.outOfSyncReason = ApplyStatus.NO_SNAPSHOT;
    this.updatedAtMs = 0;
    this.bestBidLevel = NO_LEVEL;
    this.bestAskLevel = NO_LEVEL;
    this.sid = -1;
    this.#state = EMPTY;
    this.#levelCount = grid.levelCount;
    this.#sizes = new Float64Array(2 * grid.levelCount);
    this.#onOutOfSync = onOutOfSync;
  }

  // ---- reads ------------------------------------------------------------------------------

  /** Best YES bid price; PRICE_INVALID when there is none. */
  bestBid(): Price {
    return this.bestBidLevel === NO_LEVEL ? PRICE_INVALID : this.grid.priceAt(this.bestBidLevel);
  }

  /** Best YES ask price (= 1 - best NO bid); PRICE_INVALID when there is none. */
  bestAsk(): Price {
    return this.bestAskLevel === NO_LEVEL ? PRICE_INVALID : this.grid.priceAt(this.bestAskLevel);
  }

  bestBidSize(): Count {
    return (this.bestBidLevel === NO_LEVEL ? 0 : this.#sizes[this.bestBidLevel]) as Count;
  }

  bestAskSize(): Count {
    return (this.bestAskLevel === NO_LEVEL ? 0 : this.#sizes[this.#levelCount + this.bestAskLevel]) as Count;
  }

  /** YES-bid size at a level; 0 when empty or outside the grid. */
  bidSizeAtLevel(level: number): Count {
    return (level >= 0 && level < this.#levelCount ? this.#sizes[level] : 0) as Count;
  }

  /** YES-ask size (NO bids at 1 - price) at a YES level; 0 when empty or outside the grid. */
  askSizeAtLevel(level: number): Count {
    return (level >= 0 && level < this.#levelCount ? this.#sizes[this.#levelCount + level] : 0) as Count;
  }

  /** Size resting at a price in the exchange's terms: side 0 = YES bid at a YES price, 1 = NO bid at a NO price. */
  sizeAtPrice(side: 0 | 1, price: Price): Count {
    if (side === 0) return this.bidSizeAtLevel(this.grid.levelOf(price));
    return this.askSizeAtLevel(this.grid.levelOf((PRICE_ONE - price) as Price));
  }

  /** Fills `out` with up to n non-empty YES-bid levels, best (highest) first; returns how many. No allocation. */
  topBidLevels(n: number, out: Int32Array): number {
    const limit = n < out.length ? n : out.length;
    const sizes = this.#sizes;
    let found = 0;
    for (let level = this.bestBidLevel; level >= 0 && found < limit; level--) {
      if (sizes[level] > 0) out[found++] = level;
    }
    return found;
  }

  /** Fills `out` with up to n non-empty YES-ask levels, best (lowest) first; returns how many. No allocation. */
  topAskLevels(n: number, out: Int32Array): number {
    const limit = n < out.length ? n : out.length;
    const sizes = this.#sizes;
    const offset = this.#levelCount;
    let found = 0;
    if (this.bestAskLevel === NO_LEVEL) return 0;
    for (let level = this.bestAskLevel; level < offset && found < limit; level++) {
      if (sizes[offset + level] > 0) out[found++] = level;
    }
    return found;
  }

  /** Bytes held by this book (typed array plus an estimate of object overhead). The bench measures real RSS. */
  estimatedBytes(): number {
    return this.#sizes.byteLength + BOOK_OVERHEAD_BYTES;
  }

  // ---- mutators (BookStore) ---------------------------------------------------------------

  /** Empties the book and starts taking snapshot levels; the book is not synced until endSnapshot. */
  beginSnapshot(): void {
    this.#sizes.fill(0);
    this.bestBidLevel = NO_LEVEL;
    this.bestAskLevel = NO_LEVEL;
    this.#state = SNAPSHOTTING;
    this.synced = false;
    this.outOfSyncReason = ApplyStatus.NO_SNAPSHOT;
  }

  /** Sets one snapshot level (side 0 YES bid at a YES price, 1 NO bid at a NO price). Returns an ApplyStatus. */
  setLevel(side: 0 | 1, price: Price, size: Count): number {
    if (this.#state !== SNAPSHOTTING) return this.#refuse();
    const index = this.#indexOf(side, price);
    if (index === NO_LEVEL) return this.#break(ApplyStatus.OFF_GRID);
    if (!(size >= 0)) return this.#break(ApplyStatus.NEGATIVE_LEVEL); // also NaN
    this.#sizes[index] = size;
    return ApplyStatus.OK;
  }

  /** Completes a snapshot: finds the best levels and marks the book synced (unless a level broke it). */
  endSnapshot(): void {
    if (this.#state !== SNAPSHOTTING) return;
    this.bestBidLevel = this.#scanBidDown(this.#levelCount - 1);
    this.bestAskLevel = this.#scanAskUp(0);
    this.#state = SYNCED;
    this.synced = true;
    this.outOfSyncReason = ApplyStatus.OK;
  }

  /**
   * Adds `delta` (a change of size, not the new size) at a price. Breaks the book on an off-grid
   * price or a negative result; refuses when not synced. Returns an ApplyStatus. Allocates nothing.
   */
  applyDelta(side: 0 | 1, price: Price, delta: Count): number {
    if (this.#state !== SYNCED) return this.#refuse();
    const grid = this.grid;
    const sizes = this.#sizes;
    if (side === 0) {
      const level = grid.levelOf(price);
      if (level === NO_LEVEL) return this.#break(ApplyStatus.OFF_GRID);
      const size = sizes[level] + delta;
      if (!(size >= 0)) return this.#break(ApplyStatus.NEGATIVE_LEVEL);
      sizes[level] = size;
      if (size > 0) {
        if (level > this.bestBidLevel) this.bestBidLevel = level;
      } else if (level === this.bestBidLevel) {
        this.bestBidLevel = this.#scanBidDown(level - 1);
      }
      // The best bid is a non-empty level at or above the one just changed when that one holds size.
      assert(this.bestBidLevel === NO_LEVEL || sizes[this.bestBidLevel] > 0, 'OrderBook.applyDelta: best bid level is empty');
      assert(size === 0 || this.bestBidLevel >= level, 'OrderBook.applyDelta: a non-empty bid above the best bid');
      return ApplyStatus.OK;
    }
    const level = grid.levelOf((PRICE_ONE - price) as Price);
    if (level === NO_LEVEL) return this.#break(ApplyStatus.OFF_GRID);
    const index = this.#levelCount + level;
    const size = sizes[index] + delta;
    if (!(size >= 0)) return this.#break(ApplyStatus.NEGATIVE_LEVEL);
    sizes[index] = size;
    if (size > 0) {
      if (level < this.bestAskLevel || this.bestAskLevel === NO_LEVEL) this.bestAskLevel = level;
    } else if (level === this.bestAskLevel) {
      this.bestAskLevel = this.#scanAskUp(level + 1);
    }
    assert(this.bestAskLevel === NO_LEVEL || sizes[this.#levelCount + this.bestAskLevel] > 0, 'OrderBook.applyDelta: best ask level is empty');
    assert(size === 0 || this.bestAskLevel <= level, 'OrderBook.applyDelta: a non-empty ask below the best ask');
    return ApplyStatus.OK;
  }

  /**
   * Marks the book out of sync for `reason` and reports it once; later breaks are silent until a
   * new snapshot. Returns true when this call broke it.
   */
  breakSync(reason: number): boolean {
    if (this.#state === BROKEN) return false;
    this.#state = BROKEN;
    this.synced = false;
    this.outOfSyncReason = reason;
    if (this.#onOutOfSync !== null) this.#onOutOfSync(this, reason);
    return true;
  }

  /**
   * Moves the book to another grid (price_level_structure_updated: a finer grid), keeping every
   * level at its price. A non-empty level that the new grid lacks is a bug upstream: the book moves
   * anyway, is marked out of sync (OFF_GRID) and the status is returned. Allocates (rare event).
   */
  regrid(grid: PriceGrid): number {
    if (grid === this.grid) return ApplyStatus.OK;
    const oldGrid = this.grid;
    const oldSizes = this.#sizes;
    const oldCount = this.#levelCount;
    const newCount = grid.levelCount;
    const sizes = new Float64Array(2 * newCount);
    let missing = false;
    for (let level = 0; level < oldCount; level++) {
      const bid = oldSizes[level];
      const ask = oldSizes[oldCount + level];
      if (bid === 0 && ask === 0) continue;
      const newLevel = grid.levelOf(oldGrid.priceAt(level));
      if (newLevel === NO_LEVEL) {
        missing = true;
        continue;
      }
      sizes[newLevel] = bid;
      sizes[newCount + newLevel] = ask;
    }
    this.grid = grid;
    this.#levelCount = newCount;
    this.#sizes = sizes;
    this.bestBidLevel = this.#scanBidDown(newCount - 1);
    this.bestAskLevel = this.#scanAskUp(0);
    if (missing) {
      this.breakSync(ApplyStatus.OFF_GRID);
      return ApplyStatus.OFF_GRID;
    }
    return ApplyStatus.OK;
  }

  // ---- internals --------------------------------------------------------------------------

  #indexOf(side: 0 | 1, price: Price): number {
    if (side === 0) return this.grid.levelOf(price);
    const level = this.grid.levelOf((PRICE_ONE - price) as Price);
    return level === NO_LEVEL ? NO_LEVEL : this.#levelCount + level;
  }

  /** Not synced: a break when the book had no snapshot yet, else nothing more to say. */
  #refuse(): number {
    if (this.#state === BROKEN) return ApplyStatus.OUT_OF_SYNC;
    return this.#break(ApplyStatus.NO_SNAPSHOT);
  }

  #break(reason: number): number {
    this.breakSync(reason);
    return reason;
  }

  #scanBidDown(from: number): number {
    const sizes = this.#sizes;
    for (let level = from; level >= 0; level--) if (sizes[level] > 0) return level;
    return NO_LEVEL;
  }

  #scanAskUp(from: number): number {
    const sizes = this.#sizes;
    const offset = this.#levelCount;
    for (let level = from; level < offset; level++) if (sizes[offset + level] > 0) return level;
    return NO_LEVEL;
  }
}
