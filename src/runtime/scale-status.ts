/**
 * What the status line, the terminal table, the dashboard and the metrics show of a runtime that
 * trades thousands of markets: totals and the top few, never one row per market. The write budget
 * (tokens now, spent per second against the refill, intents held, sent and dropped, batches) and
 * the most active markets (book changes per second). Built once a second on a timer, O(markets)
 * then, nothing per frame. Owns the rates' last readings only; decides nothing.
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

export class ScaleStatus {
  #spentLast = 0;
  #spentAtMs = -1;
  #spentPerSecond = 0;
  // The books as the last reading walked them and their change counts then, by walk position: a
  // pointer compare instead of a Map lookup by ticker per book (a walk of 5,000 books took ~7 ms).
  // A book not at its last position (markets added) reads as unchanged once.
  #lastBooks: (OrderBook | null)[] = [];
  #lastChanges = new Float64Array(0);
  #changesAtMs = -1;
  /** Books the last mostActive walk saw, and how many of them were synced (read in the same walk). */
  booksTotal = 0;
  booksSynced = 0;

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

  /**
   * The TOP_ROWS books with the most changes per second since the last call; the same walk counts
   * the books and the synced ones (booksTotal, booksSynced): at 5,000 markets one walk over the
   * books took about a millisecond, and the status line had made two each second.
   */
  mostActive(stores: readonly Iterable<OrderBook>[], nowMs: number): MarketActivity[] {
    const seconds = this.#changesAtMs < 0 || nowMs <= this.#changesAtMs ? 0 : (nowMs - this.#changesAtMs) / 1000;
    this.#changesAtMs = nowMs;
    const top: MarketActivity[] = [];
    let at = 0;
    let synced = 0;
    for (const books of stores) {
      for (const book of books) {
        if (book.synced) synced++;
        if (at === this.#lastChanges.length) this.#grow();
        const changes = book.changesApplied;
        const last = this.#lastBooks[at] === book ? this.#lastChanges[at]! : changes;
        this.#lastBooks[at] = book;
        this.#lastChanges[at] = changes;
        at++;
        if (seconds === 0) continue;
        const rate = Math.round((changes - last) / seconds);
        // A row object only for a book that makes the list.
        if (rate > 0 && (top.length < TOP_ROWS || rate > top[TOP_ROWS - 1]!.changesPerSecond)) {
          insertTop(top, { ticker: book.ticker, changesPerSecond: rate }, (row) => row.changesPerSecond);
        }
      }
    }
    this.#lastBooks.length = at;
    this.booksTotal = at;
    this.booksSynced = synced;
    return top;
  }

  #grow(): void {
    const grown = new Float64Array(Math.max(64, this.#lastChanges.length * 2));
    grown.set(this.#lastChanges);
    this.#lastChanges = grown;
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
