/**
 * What the status line, the terminal table, the dashboard and the metrics show of a runtime that
 * trades thousands of markets: totals and the top few, never one row per market. The write budget
 * (tokens now, spent per second against the refill, intents held, sent and dropped, batches) and
 * the most active markets (book changes per second), found by a walk over the books a slice per
 * timer step, nothing per frame. Owns the rates' last readings only; decides nothing.
 */

import type { OrderBook } from '../book/index.ts';
import type { RateBudget } from '../risk/index.ts';
import type { HoldStats } from '../router/index.ts';

/** Rows of each "top" list. */
export const TOP_ROWS = 5;

export interface BudgetStatus {
  writeTokens: number;
  writeCapacity: number;
  writePerSecond: number;
  /** Write tokens taken per second since the last reading (against writePerSecond: the share used). */
  writeSpentPerSecond: number;
  /** Creates and amends the router holds for the budget now, and since start: sent, dropped. */
  held: number;
  heldSent: number;
  heldDropped: number;
  /** V2 batch requests sent and the orders they carried. */
  batchesSent: number;
  batchedOrders: number;
}

export interface MarketActivity {
  ticker: string;
  /** Book changes (snapshots and deltas) applied per second since the last reading. */
  changesPerSecond: number;
}

export interface RankedPosition {
  ticker: string;
  subaccount: number;
  position: number;
  pnlMicro: number;
}

/** What the activity walk reads of a book store: its slots by index (BookStore). */
export interface BookSlots {
  readonly slotCount: number;
  at(index: number): OrderBook | undefined;
}

/** Books the activity walk reads per step: at 5,000 markets and a step each 100 ms, a pass a second. */
export const ACTIVITY_SLICE_BOOKS = 512;

export class ScaleStatus {
  #spentLast = 0;
  #spentAtMs = -1;
  #spentPerSecond = 0;
  // The activity walk: a cursor over the stores' slots, and per slot the book last read there,
  // its change count and when (a book not in its slot any more reads as unchanged once).
  #store = 0;
  #slot = 0;
  #lastBooks: (OrderBook | undefined)[][] = [];
  #lastChanges: Float64Array[] = [];
  #lastMs: Float64Array[] = [];
  #passTop: MarketActivity[] = [];
  #top: readonly MarketActivity[] = [];

  budget(budget: RateBudget, hold: Readonly<HoldStats>, heldNow: number, nowMs: number): BudgetStatus {
    if (this.#spentAtMs >= 0 && nowMs > this.#spentAtMs) {
      this.#spentPerSecond = Math.round(((budget.writeSpent - this.#spentLast) * 1000) / (nowMs - this.#spentAtMs));
    }
    if (nowMs !== this.#spentAtMs) {
      this.#spentLast = budget.writeSpent;
      this.#spentAtMs = nowMs;
    }
    return {
      writeTokens: budget.writeTokens(nowMs),
      writeCapacity: budget.writeCapacity,
      writePerSecond: budget.writePerSecond,
      writeSpentPerSecond: this.#spentPerSecond,
      held: heldNow,
      heldSent: hold.heldSent,
      heldDropped: hold.heldDropped,
      batchesSent: hold.batchesSent,
      batchedOrders: hold.batchedOrders,
    };
  }

  /** The TOP_ROWS books with the most changes per second, as the last complete pass of the walk found them. */
  get mostActive(): readonly MarketActivity[] {
    return this.#top;
  }

  /**
   * One step of the activity walk: up to `maxSlots` book slots, each book's changes per second
   * since the pass before read in the same step. A pass that reaches the last slot of the last
   * store publishes its top list and starts again. Walked a slice at a time from a timer because
   * one walk over 5,000 books in the status call took 1-2 ms, a stall of the event loop each second.
   */
  walkActivity(stores: readonly BookSlots[], nowMs: number, maxSlots: number = ACTIVITY_SLICE_BOOKS): void {
    let budget = maxSlots;
    while (budget > 0) {
      if (this.#store >= stores.length) {
        this.#top = this.#passTop;
        this.#passTop = [];
        this.#store = 0;
        this.#slot = 0;
        return;
      }
      const store = stores[this.#store]!;
      const slots = store.slotCount;
      this.#ensure(this.#store, slots);
      const lastBooks = this.#lastBooks[this.#store]!;
      const lastChanges = this.#lastChanges[this.#store]!;
      const lastMs = this.#lastMs[this.#store]!;
      const end = Math.min(slots, this.#slot + budget);
      for (let slot = this.#slot; slot < end; slot++) {
        const book = store.at(slot);
        if (book === undefined) {
          lastBooks[slot] = undefined;
          continue;
        }
        const changes = book.changesApplied;
        const seen = lastBooks[slot] === book;
        const elapsedMs = nowMs - lastMs[slot]!;
        const rate = seen && elapsedMs > 0 ? Math.round(((changes - lastChanges[slot]!) * 1000) / elapsedMs) : 0;
        lastBooks[slot] = book;
        lastChanges[slot] = changes;
        lastMs[slot] = nowMs;
        // A row object only for a book that makes the list.
        const top = this.#passTop;
        if (rate > 0 && (top.length < TOP_ROWS || rate > top[TOP_ROWS - 1]!.changesPerSecond)) {
          insertTop(top, { ticker: book.ticker, changesPerSecond: rate }, (row) => row.changesPerSecond);
        }
      }
      budget -= end - this.#slot;
      this.#slot = end;
      if (end === slots) {
        this.#store++;
        this.#slot = 0;
      }
    }
  }

  #ensure(store: number, slots: number): void {
    while (this.#lastBooks.length <= store) {
      this.#lastBooks.push([]);
      this.#lastChanges.push(new Float64Array(0));
      this.#lastMs.push(new Float64Array(0));
    }
    if (this.#lastChanges[store]!.length >= slots) return;
    const size = Math.max(64, slots * 2);
    const changes = new Float64Array(size);
    changes.set(this.#lastChanges[store]!);
    this.#lastChanges[store] = changes;
    const times = new Float64Array(size);
    times.set(this.#lastMs[store]!);
    this.#lastMs[store] = times;
  }
}

/** The `rows` positions with the largest |PnL|, largest first. */
export function topPositions(positions: readonly RankedPosition[], rows: number): RankedPosition[] {
  const top: RankedPosition[] = [];
  for (const position of positions) insertTop(top, position, (row) => Math.abs(row.pnlMicro), rows);
  return top;
}

/** Keeps `top` sorted by `score`, largest first, at most `rows` long: O(rows) per insert. */
function insertTop<T>(top: T[], row: T, score: (row: T) => number, rows = TOP_ROWS): void {
  const value = score(row);
  if (top.length === rows && value <= score(top[rows - 1]!)) return;
  let at = top.length;
  while (at > 0 && score(top[at - 1]!) < value) at--;
  top.splice(at, 0, row);
  if (top.length > rows) top.length = rows;
}
