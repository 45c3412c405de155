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
 *
 * Perpetual (Margin) books (`OrderBook.perp`, grid a TickGrid): side 0 is a bid at its price and
 * side 1 an ask at its price, no complement; the level arrays cover a window of the tick grid
 * (`grid`, replaced when the window moves: read `book.grid` afresh). Levels outside the window go
 * to a small overflow (a Map by price per side) and are never lost; the window is re-centred on the
 * best bid/ask (rebuilt from window + overflow, off the common path) when a best gets within an
 * eighth of the window of an edge, a side of the window is empty while the overflow holds that
 * side, or a level lands beyond the best. best*() and sizeAtPrice() are always exact;
 * top*Levels give the best levels inside the window, which holds every level within an eighth of
 * the window of the best. A spread wider than half the window doubles the window (up to a cap);
 * beyond the cap the bests may sit in the overflow: bestBidLevel/bestAskLevel then name the best
 * level inside the window (or -1) while best*() answer for the whole book.
 */

import { PRICE_INVALID, PRICE_ONE, TickGrid, assert, type Count, type LevelGrid, type Price, type PriceGrid } from '../core/index.ts';
import { ApplyStatus } from './apply-status.ts';

export type OutOfSyncListener = (book: OrderBook, reason: number) => void;

/**
 * How many books of one store are in sync, kept by the books as they enter and leave SYNCED: the
 * status reads it each second without walking thousands of books.
 */
export class SyncTally {
  synced = 0;
}

// Life cycle of a book's contents. synced === (state === SYNCED).
const EMPTY = 0; // never had a snapshot
const SNAPSHOTTING = 1; // between beginSnapshot and endSnapshot
const SYNCED = 2;
const BROKEN = 3; // out of sync, reported once; waits for a new snapshot

const NO_LEVEL = -1;
// Perpetual window: 16,384 ticks = +/-$81.92 around the mid at a $0.01 tick, 256 KB of sizes per book (perps are few); drift beyond it re-centres.
export const PERP_WINDOW_TICKS = 16_384;
// A spread wider than half the window doubles it, up to 262,144 ticks (4 MB of sizes); wider still, the bests sit in the overflow.
export const PERP_MAX_WINDOW_TICKS = 262_144;
// Rough bytes per overflow Map entry (key, value, hash slot), for estimates only.
const OVERFLOW_ENTRY_BYTES = 48;
// Object header, fields, typed-array view and ArrayBuffer overhead (V8, 64-bit), for estimates only.
const BOOK_OVERHEAD_BYTES = 256;

export class OrderBook {
  readonly ticker: string;
  /** Binary books: the market's PriceGrid. Perpetual books: the TickGrid of the current window. */
  grid: LevelGrid;
  /** A perpetual book: side 1 is an ask at its own price (no complement), grid a moving TickGrid window. */
  readonly perp: boolean;
  /** Times the perpetual window was moved (telemetry, tests); 0 for binary books. */
  recentres: number;
  /** True only between a complete snapshot and the first break. */
  synced: boolean;
  /** ApplyStatus code: OK when synced, NO_SNAPSHOT before the first snapshot, else why it broke. */
  outOfSyncReason: number;
  /** Unix ms of the last applied change, from the store's injected clock; 0 before any. */
  updatedAtMs: number;
  /** Changes applied (snapshots and deltas): the status's "most active markets" diff it once a second. */
  changesApplied: number;
  /** Highest YES-bid level with size, -1 when none. */
  bestBidLevel: number;
  /** Lowest YES-ask level (NO bid at 1 - price) with size, -1 when none. */
  bestAskLevel: number;
  /**
   * The last change moved the best bid or best ask price: false after a delta that left both where
   * they were (a size at the best, a deeper level). A snapshot, a regrid and every perpetual delta
   * (its window may move) count as moved. Strategies with `bookUpdates: 'bestPrice'` hear of the
   * others only.
   */
  topMoved: boolean;
  /** The subscription whose snapshot this book holds; -1 when none. Set by BookStore. */
  sid: number;
  /** The store's count of synced books, told of each change; null outside a store. Set by BookStore. */
  tally: SyncTally | null;
  #state: number;
  #levelCount: number;
  // [0, levelCount): YES bids by level; [levelCount, 2 * levelCount): NO bids by YES-ask level.
  #sizes: Float64Array;
  readonly #onOutOfSync: OutOfSyncListener | null;
  // Perpetual books only (null on binary books): levels outside the window, price -> size > 0.
  #bidOverflow: Map<number, number> | null;
  #askOverflow: Map<number, number> | null;
  #tickGrid: TickGrid | null;
  readonly #maxWindow: number;
  // Perpetual, past the window cap: the overflow may hold a bid above / an ask below the window, so best*() look there too.
  #bidBeyond = false;
  #askBeyond = false;

  /**
   * A binary book on a PriceGrid, or a perpetual book on a TickGrid (its first window; the first
   * snapshot moves it) that may grow to `maxWindowTicks` levels.
   */
  constructor(ticker: string, grid: PriceGrid | TickGrid, onOutOfSync: OutOfSyncListener | null = null, maxWindowTicks: number = PERP_MAX_WINDOW_TICKS) {
    this.ticker = ticker;
    this.grid = grid;
    this.perp = grid instanceof TickGrid;
    this.recentres = 0;
    this.#tickGrid = grid instanceof TickGrid ? grid : null;
    this.#bidOverflow = this.perp ? new Map() : null;
    this.#askOverflow = this.perp ? new Map() : null;
    this.#maxWindow = Math.max(maxWindowTicks, grid.levelCount);
    this.synced = false;
    this.outOfSyncReason = ApplyStatus.NO_SNAPSHOT;
    this.updatedAtMs = 0;
    this.changesApplied = 0;
    this.bestBidLevel = NO_LEVEL;
    this.bestAskLevel = NO_LEVEL;
    this.topMoved = true;
    this.sid = -1;
    this.tally = null;
    this.#state = EMPTY;
    this.#levelCount = grid.levelCount;
    this.#sizes = new Float64Array(2 * grid.levelCount);
    this.#onOutOfSync = onOutOfSync;
  }

  // ---- reads ------------------------------------------------------------------------------

  /** Best YES bid price (perpetual: best bid); PRICE_INVALID when there is none. */
  bestBid(): Price {
    if (this.bestBidLevel !== NO_LEVEL && !this.#bidBeyond) return this.grid.priceAt(this.bestBidLevel);
    return this.#bidOverflow === null ? PRICE_INVALID : (this.#trueBest(0) as Price);
  }

  /** Best YES ask price (= 1 - best NO bid; perpetual: best ask); PRICE_INVALID when there is none. */
  bestAsk(): Price {
    if (this.bestAskLevel !== NO_LEVEL && !this.#askBeyond) return this.grid.priceAt(this.bestAskLevel);
    return this.#askOverflow === null ? PRICE_INVALID : (this.#trueBest(1) as Price);
  }

  bestBidSize(): Count {
    if (this.bestBidLevel !== NO_LEVEL && !this.#bidBeyond) return this.#sizes[this.bestBidLevel] as Count;
    return (this.#bidOverflow === null ? 0 : this.sizeAtPrice(0, this.#trueBest(0) as Price)) as Count;
  }

  bestAskSize(): Count {
    if (this.bestAskLevel !== NO_LEVEL && !this.#askBeyond) return this.#sizes[this.#levelCount + this.bestAskLevel] as Count;
    return (this.#askOverflow === null ? 0 : this.sizeAtPrice(1, this.#trueBest(1) as Price)) as Count;
  }

  /** YES-bid size at a level; 0 when empty or outside the grid. */
  bidSizeAtLevel(level: number): Count {
    return (level >= 0 && level < this.#levelCount ? this.#sizes[level] : 0) as Count;
  }

  /** YES-ask size (NO bids at 1 - price) at a YES level; 0 when empty or outside the grid. */
  askSizeAtLevel(level: number): Count {
    return (level >= 0 && level < this.#levelCount ? this.#sizes[this.#levelCount + level] : 0) as Count;
  }

  /**
   * Size resting at a price in the exchange's terms: side 0 = YES bid at a YES price, 1 = NO bid at
   * a NO price; perpetual: 0 = bid, 1 = ask, at their own prices, inside the window or not.
   */
  sizeAtPrice(side: 0 | 1, price: Price): Count {
    if (this.perp) {
      const level = this.grid.levelOf(price);
      if (level !== NO_LEVEL) return (side === 0 ? this.#sizes[level] : this.#sizes[this.#levelCount + level]) as Count;
      return ((side === 0 ? this.#bidOverflow! : this.#askOverflow!).get(price) ?? 0) as Count;
    }
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
    return this.#sizes.byteLength + BOOK_OVERHEAD_BYTES + this.overflowLevelCount() * OVERFLOW_ENTRY_BYTES;
  }

  /**
   * Every non-empty level of a side in the exchange's terms, best first: binary 0 = YES bids, 1 = NO
   * bids at NO prices; perpetual 0 = bids, 1 = asks, window and overflow. Allocates: tools, tests,
   * status pages, never the hot path.
   */
  levels(side: 0 | 1): [Price, Count][] {
    const out: [Price, Count][] = [];
    const grid = this.grid;
    const offset = side === 0 ? 0 : this.#levelCount;
    for (let level = 0; level < this.#levelCount; level++) {
      const size = this.#sizes[offset + level];
      if (size <= 0) continue;
      const price = grid.priceAt(level);
      out.push([(side === 1 && !this.perp ? PRICE_ONE - price : price) as Price, size as Count]);
    }
    const overflow = side === 0 ? this.#bidOverflow : this.#askOverflow;
    if (overflow !== null) for (const [price, size] of overflow) out.push([price as Price, size as Count]);
    // Best first: bids (and NO bids) high to low, perpetual asks low to high.
    return side === 1 && this.perp ? out.sort((a, b) => a[0] - b[0]) : out.sort((a, b) => b[0] - a[0]);
  }

  /** Perpetual: non-empty levels held outside the window (both sides); 0 for binary books. */
  overflowLevelCount(): number {
    return this.#bidOverflow === null ? 0 : this.#bidOverflow.size + this.#askOverflow!.size;
  }

  // ---- mutators (BookStore) ---------------------------------------------------------------

  /** Empties the book and starts taking snapshot levels; the book is not synced until endSnapshot. */
  beginSnapshot(): void {
    this.#sizes.fill(0);
    if (this.#bidOverflow !== null) {
      this.#bidOverflow.clear();
      this.#askOverflow!.clear();
      this.#bidBeyond = false;
      this.#askBeyond = false;
    }
    this.bestBidLevel = NO_LEVEL;
    this.bestAskLevel = NO_LEVEL;
    if (this.#state === SYNCED && this.tally !== null) this.tally.synced--;
    this.#state = SNAPSHOTTING;
    this.synced = false;
    this.outOfSyncReason = ApplyStatus.NO_SNAPSHOT;
  }

  /** Sets one snapshot level (side 0 YES bid at a YES price, 1 NO bid at a NO price). Returns an ApplyStatus. */
  setLevel(side: 0 | 1, price: Price, size: Count): number {
    if (this.#state !== SNAPSHOTTING) return this.#refuse();
    if (this.perp) return this.#setPerpLevel(side, price, size);
    const index = this.#indexOf(side, price);
    if (index === NO_LEVEL) return this.#break(ApplyStatus.OFF_GRID);
    if (!(size >= 0)) return this.#break(ApplyStatus.NEGATIVE_LEVEL); // also NaN
    this.#sizes[index] = size;
    return ApplyStatus.OK;
  }

  /** Completes a snapshot: finds the best levels and marks the book synced (unless a level broke it). */
  endSnapshot(): void {
    if (this.#state !== SNAPSHOTTING) return;
    // Perpetual snapshot levels wait in the overflow: now that all are known, centre the window on them.
    if (this.perp) this.#recentre(true);
    this.bestBidLevel = this.#scanBidDown(this.#levelCount - 1);
    this.bestAskLevel = this.#scanAskUp(0);
    this.topMoved = true;
    this.#state = SYNCED;
    this.synced = true;
    if (this.tally !== null) this.tally.synced++;
    this.outOfSyncReason = ApplyStatus.OK;
  }

  /**
   * Adds `delta` (a change of size, not the new size) at a price. Breaks the book on an off-grid
   * price or a negative result; refuses when not synced. Returns an ApplyStatus. Allocates nothing.
   */
  applyDelta(side: 0 | 1, price: Price, delta: Count): number {
    if (this.#state !== SYNCED) return this.#refuse();
    if (this.perp) {
      this.topMoved = true;
      return this.#applyPerpDelta(side, price, delta);
    }
    const grid = this.grid;
    const sizes = this.#sizes;
    if (side === 0) {
      const level = grid.levelOf(price);
      if (level === NO_LEVEL) return this.#break(ApplyStatus.OFF_GRID);
      const size = sizes[level] + delta;
      if (!(size >= 0)) return this.#break(ApplyStatus.NEGATIVE_LEVEL);
      sizes[level] = size;
      const best = this.bestBidLevel;
      if (size > 0) {
        if (level > best) this.bestBidLevel = level;
      } else if (level === best) {
        this.bestBidLevel = this.#scanBidDown(level - 1);
      }
      this.topMoved = this.bestBidLevel !== best;
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
    const best = this.bestAskLevel;
    if (size > 0) {
      if (level < best || best === NO_LEVEL) this.bestAskLevel = level;
    } else if (level === best) {
      this.bestAskLevel = this.#scanAskUp(level + 1);
    }
    this.topMoved = this.bestAskLevel !== best;
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
    if (this.#state === SYNCED && this.tally !== null) this.tally.synced--;
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
    // A perpetual's grid is its tick, which lifecycle messages do not change: nothing to move.
    if (grid === this.grid || this.perp) return ApplyStatus.OK;
    this.topMoved = true; // the levels are renumbered
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

  // ---- perpetual books ------------------------------------------------------------------------

  /** A snapshot level: validated and parked in the overflow until endSnapshot places the window. */
  #setPerpLevel(side: 0 | 1, price: Price, size: Count): number {
    if (!this.#tickGrid!.onTick(price)) return this.#break(ApplyStatus.OFF_GRID);
    if (!(size >= 0)) return this.#break(ApplyStatus.NEGATIVE_LEVEL); // also NaN
    const overflow = side === 0 ? this.#bidOverflow! : this.#askOverflow!;
    if (size > 0) overflow.set(price, size);
    else overflow.delete(price);
    return ApplyStatus.OK;
  }

  #applyPerpDelta(side: 0 | 1, price: Price, delta: Count): number {
    const grid = this.#tickGrid!;
    const level = grid.levelOf(price);
    if (level === NO_LEVEL) return this.#applyOverflowDelta(side, price, delta);
    const sizes = this.#sizes;
    const index = side === 0 ? level : this.#levelCount + level;
    const size = sizes[index] + delta;
    if (!(size >= 0)) return this.#break(ApplyStatus.NEGATIVE_LEVEL);
    sizes[index] = size;
    if (side === 0) {
      if (size > 0) {
        if (level > this.bestBidLevel) this.bestBidLevel = level;
      } else if (level === this.bestBidLevel) {
        this.bestBidLevel = this.#scanBidDown(level - 1);
      }
    } else if (size > 0) {
      if (level < this.bestAskLevel || this.bestAskLevel === NO_LEVEL) this.bestAskLevel = level;
    } else if (level === this.bestAskLevel) {
      this.bestAskLevel = this.#scanAskUp(level + 1);
    }
    if (this.#nearEdge()) this.#recentre(false);
    return ApplyStatus.OK;
  }

  /** A delta outside the window: off the tick breaks the book; else the overflow takes it. */
  #applyOverflowDelta(side: 0 | 1, price: Price, delta: Count): number {
    const grid = this.#tickGrid!;
    if (!grid.onTick(price)) return this.#break(ApplyStatus.OFF_GRID);
    const overflow = side === 0 ? this.#bidOverflow! : this.#askOverflow!;
    const size = (overflow.get(price) ?? 0) + delta;
    if (!(size >= 0)) return this.#break(ApplyStatus.NEGATIVE_LEVEL);
    if (size > 0) overflow.set(price, size);
    else overflow.delete(price);
    // A bid above the window or an ask below it is the new best: move the window to it.
    const beyondBest = side === 0 ? price > grid.maxPrice : price < grid.minPrice;
    if ((size > 0 && beyondBest) || this.#nearEdge()) this.#recentre(false);
    return ApplyStatus.OK;
  }

  /**
   * True when the window should move: the overflow holds levels and a best is within an eighth of
   * the window of an edge, or a side of the window is empty while the overflow holds that side.
   * (An empty overflow means the window holds the whole book, wherever its bests are.)
   */
  #nearEdge(): boolean {
    const bids = this.#bidOverflow!.size;
    const asks = this.#askOverflow!.size;
    if (bids === 0 && asks === 0) return false;
    const edge = this.#levelCount >> 3;
    const top = this.#levelCount - edge;
    const bid = this.bestBidLevel;
    const ask = this.bestAskLevel;
    if (bid === NO_LEVEL ? bids > 0 : bid < edge || bid >= top) return true;
    return ask === NO_LEVEL ? asks > 0 : ask < edge || ask >= top;
  }

  /**
   * Moves the window so the mid of the true best bid and ask (window and overflow) is its middle,
   * and rebuilds the level arrays from window + overflow. `force`: rebuild even when the base stays
   * (endSnapshot: every level is in the overflow). O(window + overflow); allocates a TickGrid.
   */
  #recentre(force: boolean): void {
    const grid = this.#tickGrid!;
    const bids = this.#bidOverflow!;
    const asks = this.#askOverflow!;
    const bestBid = this.#trueBest(0);
    const bestAsk = this.#trueBest(1);
    let centre: number;
    let count = this.#levelCount;
    if (bestBid !== PRICE_INVALID && bestAsk !== PRICE_INVALID) {
      const spreadTicks = (bestAsk - bestBid) / grid.tick; // exact: both are on the tick
      centre = bestBid + Math.floor(spreadTicks / 2) * grid.tick;
      // Both bests must fit in the middle half of the window: grow it (rare: a very wide spread).
      const width = spreadTicks < 0 ? -spreadTicks : spreadTicks;
      while (width > count >> 1 && count * 2 <= this.#maxWindow) count *= 2;
    } else if (bestBid !== PRICE_INVALID) centre = bestBid;
    else if (bestAsk !== PRICE_INVALID) centre = bestAsk;
    else return; // empty book: the window stays where it is
    const base = TickGrid.baseAround(grid.tick, centre, count);
    const grows = count !== this.#levelCount;
    if (base === grid.base && !force && !grows) {
      this.#bidBeyond = bestBid !== PRICE_INVALID && bestBid > grid.maxPrice;
      this.#askBeyond = bestAsk !== PRICE_INVALID && bestAsk < grid.minPrice;
      return;
    }
    // Window levels out to the overflow, then everything the new window covers back in.
    let sizes = this.#sizes;
    const oldCount = this.#levelCount;
    for (let level = 0; level < oldCount; level++) {
      const bid = sizes[level];
      const ask = sizes[oldCount + level];
      if (bid > 0) bids.set(grid.priceAt(level), bid);
      if (ask > 0) asks.set(grid.priceAt(level), ask);
    }
    if (grows) {
      sizes = new Float64Array(2 * count);
      this.#sizes = sizes;
      this.#levelCount = count;
    } else {
      sizes.fill(0);
    }
    const next = grows ? new TickGrid(grid.tick, base, count) : grid.recentred(base);
    this.#tickGrid = next;
    this.grid = next;
    for (const [price, size] of bids) {
      const level = next.levelOf(price as Price);
      if (level === NO_LEVEL) continue;
      sizes[level] = size;
      bids.delete(price);
    }
    for (const [price, size] of asks) {
      const level = next.levelOf(price as Price);
      if (level === NO_LEVEL) continue;
      sizes[count + level] = size;
      asks.delete(price);
    }
    this.bestBidLevel = this.#scanBidDown(count - 1);
    this.bestAskLevel = this.#scanAskUp(0);
    // Only past the window cap can a best stay outside; flags stay set (reads stay exact) until the next re-centre.
    this.#bidBeyond = bestBid !== PRICE_INVALID && bestBid > next.maxPrice;
    this.#askBeyond = bestAsk !== PRICE_INVALID && bestAsk < next.minPrice;
    if (base !== grid.base || grows) this.recentres++;
  }

  /** Best price of a side over window and overflow; PRICE_INVALID when the side is empty. O(overflow). */
  #trueBest(side: 0 | 1): number {
    const grid = this.grid;
    if (side === 0) {
      const inWindow = this.bestBidLevel === NO_LEVEL ? PRICE_INVALID as number : grid.priceAt(this.bestBidLevel);
      const outside = this.#bidOverflow!.size === 0 ? PRICE_INVALID as number : this.#overflowBest(this.#bidOverflow!, true);
      return inWindow > outside ? inWindow : outside;
    }
    const inWindow = this.bestAskLevel === NO_LEVEL ? PRICE_INVALID as number : grid.priceAt(this.bestAskLevel);
    const outside = this.#askOverflow!.size === 0 ? PRICE_INVALID as number : this.#overflowBest(this.#askOverflow!, false);
    if (inWindow === PRICE_INVALID) return outside;
    return outside === PRICE_INVALID || inWindow < outside ? inWindow : outside;
  }

  /** Highest (bids) or lowest (asks) price of a non-empty overflow; PRICE_INVALID when empty. */
  #overflowBest(overflow: Map<number, number>, highest: boolean): number {
    let best = PRICE_INVALID as number;
    for (const price of overflow.keys()) {
      if (best === PRICE_INVALID || (highest ? price > best : price < best)) best = price;
    }
    return best;
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
