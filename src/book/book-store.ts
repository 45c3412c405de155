/**
 * All order books of a session and the sequence state of the subscriptions feeding them. It applies
 * decoded orderbook_snapshot and orderbook_delta messages (prices and counts already parsed by core):
 * seq must rise by exactly one per message on a sid (websocket.md §5); a gap marks every book of that
 * sid out of sync, and a delta before its snapshot, a negative level or an off-grid price marks its
 * book. Each break is reported once through onOutOfSync, and no delta touches a broken book until a
 * new snapshot. This file never decodes JSON, talks to the network or requests the resync itself:
 * the feed does that when told.
 */

import { TickGrid, type Count, type Price, type PriceGrid } from '../core/index.ts';
import { MarketRegistry } from '../market/index.ts';
import { ApplyStatus } from './apply-status.ts';
import { OrderBook, PERP_MAX_WINDOW_TICKS, PERP_WINDOW_TICKS, SyncTally } from './order-book.ts';

export interface BookStoreOptions {
  /** Injected clock, Unix ms: stamps updatedAtMs. */
  now: () => number;
  /** Called once per break of a book (until its next snapshot). Must not throw. */
  onOutOfSync: (book: OrderBook, reason: number) => void;
  /** The one market registry: books are kept by its index (default a registry of the store's own). */
  markets?: MarketRegistry;
}

/** Sequence state of one subscription. */
class Subscription {
  readonly sid: number;
  seqLast: number;
  /** Books whose current snapshot came on this sid. */
  readonly books: OrderBook[];
  constructor(sid: number, seq: number) {
    this.sid = sid;
    this.seqLast = seq;
    this.books = [];
  }
}

export class BookStore {
  /** By the registry's market index; undefined where the market has no book here. */
  readonly #books: (OrderBook | undefined)[] = [];
  readonly #markets: MarketRegistry;
  #size = 0;
  readonly #subscriptions = new Map<number, Subscription>();
  // Deltas arrive in runs on one sid: remembering the last one skips a Map lookup per delta.
  #lastSubscription: Subscription | null = null;
  readonly #now: () => number;
  readonly #onOutOfSync: (book: OrderBook, reason: number) => void;
  #sequenceBreaks = 0;
  readonly #tally = new SyncTally();

  constructor(options: BookStoreOptions) {
    this.#now = options.now;
    this.#markets = options.markets ?? new MarketRegistry();
    this.#onOutOfSync = options.onOutOfSync;
  }

  get size(): number {
    return this.#size;
  }

  /** Books in sync now, kept by the books themselves: O(1), no walk. */
  get syncedCount(): number {
    return this.#tally.synced;
  }

  /** Slots to walk with at(0 .. slotCount - 1); a slot without a book reads undefined. */
  get slotCount(): number {
    return this.#books.length;
  }

  /**
   * Seq breaks (a gap, a repeat or a step back) on any sid since the store was made, counted once
   * each whatever state the sid's books are in: a break while every book already waits for a
   * snapshot reports no book, yet a frame was lost.
   */
  get sequenceBreaks(): number {
    return this.#sequenceBreaks;
  }

  /** Adds a market's book. Adding a known ticker returns its book, regridded when the grid differs. */
  add(ticker: string, grid: PriceGrid): OrderBook {
    const index = this.#markets.add(ticker).index;
    const existing = this.#books[index];
    if (existing !== undefined) {
      existing.regrid(grid);
      return existing;
    }
    const book = new OrderBook(ticker, grid, this.#onOutOfSync);
    book.tally = this.#tally;
    while (this.#books.length < index) this.#books.push(undefined);
    this.#books[index] = book;
    this.#size++;
    return book;
  }

  /**
   * Adds a perpetual (Margin) market's book: bids and asks at their own prices on a `tick`-price
   * grid, held in a window of `windowTicks` levels that follows the market and widens up to
   * `maxWindowTicks` for a wide spread (OrderBook). Adding a
   * known ticker returns its book when it is a perpetual of that tick, else replaces the book (its
   * subscription binding is dropped; it waits for a snapshot). Throws RangeError on a bad tick.
   */
  addPerp(ticker: string, tick: number, windowTicks: number = PERP_WINDOW_TICKS, maxWindowTicks: number = PERP_MAX_WINDOW_TICKS): OrderBook {
    // The first window is a placeholder: the first snapshot centres it (OrderBook.endSnapshot).
    const grid = TickGrid.around(tick, tick * Math.floor(windowTicks / 2), windowTicks);
    const index = this.#markets.add(ticker).index;
    const existing = this.#books[index];
    if (existing !== undefined) {
      if (existing.perp && (existing.grid as TickGrid).tick === tick) return existing;
      this.#forget(existing);
    }
    const book = new OrderBook(ticker, grid, this.#onOutOfSync, maxWindowTicks);
    book.tally = this.#tally;
    while (this.#books.length < index) this.#books.push(undefined);
    this.#books[index] = book;
    this.#size++;
    return book;
  }

  get(ticker: string): OrderBook | undefined {
    return this.#books[this.#markets.indexOf(ticker)];
  }

  /** The book of a market by its registry index (the hot path's way), undefined when none. */
  at(index: number): OrderBook | undefined {
    return index >= 0 ? this.#books[index] : undefined;
  }

  /** Forgets a market (settled, delisted). Returns false when unknown. */
  remove(ticker: string): boolean {
    const index = this.#markets.indexOf(ticker);
    const book = this.at(index);
    if (book === undefined) return false;
    this.#forget(book);
    this.#books[index] = undefined;
    return true;
  }

  /** A book leaving the store: unbound from its sid, out of the counts. */
  #forget(book: OrderBook): void {
    this.#unbind(book);
    if (book.synced) this.#tally.synced--;
    book.tally = null;
    this.#size--;
  }

  /** Iterates the books (off the hot path: allocates an iterator). */
  *books(): IterableIterator<OrderBook> {
    for (const book of this.#books) if (book !== undefined) yield book;
  }

  /** Last seq seen on a sid; -1 when the sid is unknown. */
  seqLast(sid: number): number {
    const subscription = this.#subscriptions.get(sid);
    return subscription === undefined ? -1 : subscription.seqLast;
  }

  /**
   * Checks and records the seq of any message counted on `sid` that is not a book message (an
   * `ok` reply can take a number from the same counter). Returns OK or SEQ_GAP (books broken).
   */
  advanceSeq(sid: number, seq: number): number {
    return this.#sequence(sid, seq);
  }

  /**
   * Starts an orderbook_snapshot: checks seq, empties the book and binds it to `sid`. Returns null
   * when the market is unknown or seq broke (the sid's books, and this one, are reported).
   */
  beginSnapshot(sid: number, seq: number, ticker: string): OrderBook | null {
    const status = this.#sequence(sid, seq);
    const book = this.get(ticker);
    if (book === undefined) return null;
    if (status !== ApplyStatus.OK) {
      book.breakSync(ApplyStatus.SEQ_GAP); // silent when the gap already broke it
      return null;
    }
    if (book.sid !== sid) {
      this.#unbind(book);
      this.#subscription(sid).books.push(book);
      book.sid = sid;
    }
    book.beginSnapshot();
    book.updatedAtMs = this.#now();
    book.changesApplied++;
    return book;
  }

  /** One level of the snapshot begun by beginSnapshot: side 0 YES bid at a YES price, 1 NO bid at a NO price (perpetual: bid / ask). */
  snapshotLevel(book: OrderBook, side: 0 | 1, price: Price, size: Count): number {
    return book.setLevel(side, price, size);
  }

  /** Completes the snapshot: the book becomes synced unless one of its levels broke it. */
  endSnapshot(book: OrderBook): void {
    book.endSnapshot();
  }

  /**
   * Applies one orderbook_delta. `delta` is a change of size. Returns an ApplyStatus; the hot path:
   * two map lookups and an array write, no allocation.
   */
  applyDelta(sid: number, seq: number, ticker: string, side: 0 | 1, price: Price, delta: Count): number {
    const last = this.#lastSubscription;
    if (last !== null && last.sid === sid && seq === last.seqLast + 1) {
      last.seqLast = seq; // the common case, inline
    } else {
      const status = this.#sequence(sid, seq);
      if (status !== ApplyStatus.OK) return status;
    }
    const book = this.get(ticker);
    if (book === undefined) return ApplyStatus.UNKNOWN_MARKET;
    if (book.sid !== sid) {
      // Its snapshot came on another subscription (or never): deltas here are not anchored to it.
      return book.breakSync(ApplyStatus.NO_SNAPSHOT) ? ApplyStatus.NO_SNAPSHOT : ApplyStatus.OUT_OF_SYNC;
    }
    const result = book.applyDelta(side, price, delta);
    if (result === ApplyStatus.OK) {
      book.updatedAtMs = this.#now();
      book.changesApplied++;
    }
    return result;
  }

  /**
   * applyDelta for a caller that already holds the book (the feed resolves the ticker through its
   * own interned table): same checks and result, one map lookup fewer.
   */
  applyDeltaToBook(sid: number, seq: number, book: OrderBook, side: 0 | 1, price: Price, delta: Count): number {
    const last = this.#lastSubscription;
    if (last !== null && last.sid === sid && seq === last.seqLast + 1) {
      last.seqLast = seq; // the common case, inline
    } else {
      const status = this.#sequence(sid, seq);
      if (status !== ApplyStatus.OK) return status;
    }
    if (book.sid !== sid) {
      return book.breakSync(ApplyStatus.NO_SNAPSHOT) ? ApplyStatus.NO_SNAPSHOT : ApplyStatus.OUT_OF_SYNC;
    }
    const result = book.applyDelta(side, price, delta);
    if (result === ApplyStatus.OK) {
      book.updatedAtMs = this.#now();
      book.changesApplied++;
    }
    return result;
  }

  /** The feed's own verdicts (STALE, RESYNC): marks the book out of sync, reported once. */
  markOutOfSync(ticker: string, reason: number): void {
    const book = this.get(ticker);
    if (book !== undefined) book.breakSync(reason);
  }

  /**
   * Forgets a sid's seq (resubscribe, reconnect: a new connection's sids mean nothing). Its books
   * stop receiving data, so they are marked out of sync (RESYNC, reported once) until their next snapshot.
   */
  resetSubscription(sid: number): void {
    const subscription = this.#subscriptions.get(sid);
    if (subscription === undefined) return;
    this.#subscriptions.delete(sid);
    if (this.#lastSubscription === subscription) this.#lastSubscription = null;
    for (const book of subscription.books) {
      book.sid = -1;
      book.breakSync(ApplyStatus.RESYNC);
    }
  }

  /** price_level_structure_updated: moves a live book to its new grid keeping its levels. Returns an ApplyStatus. */
  regrid(ticker: string, grid: PriceGrid): number {
    const book = this.get(ticker);
    if (book === undefined) return ApplyStatus.UNKNOWN_MARKET;
    return book.regrid(grid);
  }

  #sequence(sid: number, seq: number): number {
    let subscription = this.#lastSubscription;
    if (subscription === null || subscription.sid !== sid) {
      const known = this.#subscriptions.get(sid);
      if (known === undefined) {
        const created = new Subscription(sid, seq); // first message of a sid sets the baseline
        this.#subscriptions.set(sid, created);
        this.#lastSubscription = created;
        return ApplyStatus.OK;
      }
      subscription = known;
      this.#lastSubscription = known;
    }
    if (seq === subscription.seqLast + 1) {
      subscription.seqLast = seq;
      return ApplyStatus.OK;
    }
    // A gap, a repeat or a step back: whatever we missed or replayed, no book of the sid can be trusted.
    this.#sequenceBreaks++;
    subscription.seqLast = seq;
    const books = subscription.books;
    for (let i = 0; i < books.length; i++) books[i].breakSync(ApplyStatus.SEQ_GAP);
    return ApplyStatus.SEQ_GAP;
  }

  #subscription(sid: number): Subscription {
    let subscription = this.#subscriptions.get(sid);
    if (subscription === undefined) {
      subscription = new Subscription(sid, 0);
      this.#subscriptions.set(sid, subscription);
    }
    return subscription;
  }

  #unbind(book: OrderBook): void {
    if (book.sid === -1) return;
    const subscription = this.#subscriptions.get(book.sid);
    if (subscription !== undefined) {
      const index = subscription.books.indexOf(book);
      if (index !== -1) subscription.books.splice(index, 1);
    }
    book.sid = -1;
  }
}
