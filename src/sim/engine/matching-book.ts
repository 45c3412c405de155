/**
 * One market's matching book: for each grid level of the YES price, a FIFO queue of resting
 * orders per side (intrusive doubly linked list through EngineOrder.prev/next) and the level's
 * total size. Side 0 holds YES bids at their YES price; side 1 holds asks (sell YES = buy NO) at
 * the YES price, i.e. a NO bid at q sits at level of 1 - q. Best levels are kept current and
 * rescanned only when the best level empties. It owns queues and sizes only: no fills, no money.
 */

import type { Count, PriceGrid } from '../../core/index.ts';
import { assert as assertImported } from '../../core/index.ts';
import type { EngineOrder } from './engine-order.ts';

// Module-local alias: under tsx (CommonJS) an imported binding is a getter call per use.
const assert: (ok: boolean, message: string) => asserts ok = assertImported;

export class MatchingBook {
  grid: PriceGrid;
  levelCount: number;
  // Heads and tails per level; side 0 = bids, side 1 = asks.
  bidHead: Array<EngineOrder | null>;
  bidTail: Array<EngineOrder | null>;
  askHead: Array<EngineOrder | null>;
  askTail: Array<EngineOrder | null>;
  // Total resting Count per level (Float64Array: sizes may exceed 2^31).
  bidSize: Float64Array;
  askSize: Float64Array;
  /** Highest bid level, -1 when no bid. */
  bestBid: number;
  /** Lowest ask level, -1 when no ask. */
  bestAsk: number;
  orderCount: number;
  /** YES price (0..10_000) -> level, -1 off the grid: the book's own copy of grid.levelOf for the hot path. */
  levelByPrice: Int32Array;

  constructor(grid: PriceGrid) {
    this.grid = grid;
    this.levelCount = grid.levelCount;
    this.levelByPrice = levelTable(grid);
    this.bidHead = new Array<EngineOrder | null>(grid.levelCount).fill(null);
    this.bidTail = new Array<EngineOrder | null>(grid.levelCount).fill(null);
    this.askHead = new Array<EngineOrder | null>(grid.levelCount).fill(null);
    this.askTail = new Array<EngineOrder | null>(grid.levelCount).fill(null);
    this.bidSize = new Float64Array(grid.levelCount);
    this.askSize = new Float64Array(grid.levelCount);
    this.bestBid = -1;
    this.bestAsk = -1;
    this.orderCount = 0;
  }

  /** Level of a YES price on this book's grid; -1 when off tick, out of band, <= $0 or >= $1. */
  levelOf(price: number): number {
    return price > 0 && price < 10_000 && (price | 0) === price ? this.levelByPrice[price] : -1;
  }

  /** Appends `order` (level and sideCode set, remainingCount > 0) at the back of its level's queue. */
  add(order: EngineOrder): void {
    assert(!order.inBook, 'MatchingBook.add: order already in book');
    const level = order.level;
    order.next = null;
    if (order.sideCode === 0) {
      const tail = this.bidTail[level];
      order.prev = tail;
      if (tail === null) this.bidHead[level] = order;
      else tail.next = order;
      this.bidTail[level] = order;
      this.bidSize[level] += order.remainingCount;
      if (level > this.bestBid) this.bestBid = level;
    } else {
      const tail = this.askTail[level];
      order.prev = tail;
      if (tail === null) this.askHead[level] = order;
      else tail.next = order;
      this.askTail[level] = order;
      this.askSize[level] += order.remainingCount;
      if (this.bestAsk === -1 || level < this.bestAsk) this.bestAsk = level;
    }
    order.inBook = true;
    this.orderCount++;
  }

  /** Unlinks `order`; its remainingCount (as counted in the level size) leaves the level. */
  remove(order: EngineOrder): void {
    assert(order.inBook, 'MatchingBook.remove: order not in book');
    const level = order.level;
    const prev = order.prev;
    const next = order.next;
    if (order.sideCode === 0) {
      if (prev === null) this.bidHead[level] = next;
      else prev.next = next;
      if (next === null) this.bidTail[level] = prev;
      else next.prev = prev;
      this.bidSize[level] -= order.remainingCount;
      if (this.bidHead[level] === null) {
        this.bidSize[level] = 0;
        if (level === this.bestBid) this.bestBid = this.#scanBidDown(level - 1);
      }
    } else {
      if (prev === null) this.askHead[level] = next;
      else prev.next = next;
      if (next === null) this.askTail[level] = prev;
      else next.prev = prev;
      this.askSize[level] -= order.remainingCount;
      if (this.askHead[level] === null) {
        this.askSize[level] = 0;
        if (level === this.bestAsk) this.bestAsk = this.#scanAskUp(level + 1);
      }
    }
    order.prev = null;
    order.next = null;
    order.inBook = false;
    this.orderCount--;
  }

  /** The order's remaining count is about to shrink by `by` while it stays queued. */
  shrink(order: EngineOrder, by: Count): void {
    if (order.sideCode === 0) this.bidSize[order.level] -= by;
    else this.askSize[order.level] -= by;
  }

  #scanBidDown(from: number): number {
    for (let level = from; level >= 0; level--) if (this.bidHead[level] !== null) return level;
    return -1;
  }

  #scanAskUp(from: number): number {
    for (let level = from; level < this.levelCount; level++) if (this.askHead[level] !== null) return level;
    return -1;
  }

  /**
   * Contracts ahead of `order` in its queue (price-time priority): the sizes of the orders
   * before it at its level. Better levels would have matched it, so only its level counts.
   */
  queueAhead(order: EngineOrder): number {
    let ahead = 0;
    for (let cursor = order.prev; cursor !== null; cursor = cursor.prev) ahead += cursor.remainingCount;
    return ahead;
  }

  /**
   * Moves every queue to `grid`, which must contain every price of the current grid (a finer
   * grid): queues keep their order, levels are renumbered, orders' `level` updated.
   */
  regrid(grid: PriceGrid): void {
    const old = this.grid;
    const count = grid.levelCount;
    const bidHead = new Array<EngineOrder | null>(count).fill(null);
    const bidTail = new Array<EngineOrder | null>(count).fill(null);
    const askHead = new Array<EngineOrder | null>(count).fill(null);
    const askTail = new Array<EngineOrder | null>(count).fill(null);
    const bidSize = new Float64Array(count);
    const askSize = new Float64Array(count);
    for (let level = 0; level < this.levelCount; level++) {
      const head0 = this.bidHead[level];
      const head1 = this.askHead[level];
      if (head0 === null && head1 === null) continue;
      const target = grid.levelOf(old.priceAt(level));
      assert(target !== -1, 'MatchingBook.regrid: new grid lacks a resting price');
      bidHead[target] = head0;
      bidTail[target] = this.bidTail[level];
      bidSize[target] = this.bidSize[level];
      askHead[target] = head1;
      askTail[target] = this.askTail[level];
      askSize[target] = this.askSize[level];
      for (let o = head0; o !== null; o = o.next) o.level = target;
      for (let o = head1; o !== null; o = o.next) o.level = target;
    }
    this.grid = grid;
    this.levelCount = count;
    this.levelByPrice = levelTable(grid);
    this.bidHead = bidHead;
    this.bidTail = bidTail;
    this.askHead = askHead;
    this.askTail = askTail;
    this.bidSize = bidSize;
    this.askSize = askSize;
    this.bestBid = this.#scanBidDown(count - 1);
    this.bestAsk = this.#scanAskUp(0);
  }
}

/**
 * Price -> level tables, one per grid (grids are shared by structure): 40 KB each, so 5,000
 * synthetic markets on a handful of grids share a handful of tables instead of holding 200 MB.
 * Read-only once built.
 */
const levelTables = new WeakMap<PriceGrid, Int32Array>();

function levelTable(grid: PriceGrid): Int32Array {
  let table = levelTables.get(grid);
  if (table !== undefined) return table;
  table = new Int32Array(10_001).fill(-1);
  for (let level = 0; level < grid.levelCount; level++) table[grid.priceAt(level)] = level;
  levelTables.set(grid, table);
  return table;
}
