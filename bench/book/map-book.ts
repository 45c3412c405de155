/**
 * The naive baseline the book bench compares against: what a first version would write. One
 * Map<string, number> per side keyed by the exchange's price string, sizes as plain numbers, best
 * prices found by scanning the keys when asked. Its store does the same work as BookStore (seq per
 * sid, ticker lookup, a time stamp from the same injected clock) so each comparison is like for
 * like. Never used by the runtime.
 */

export class MapBook {
  readonly yes = new Map<string, number>();
  readonly no = new Map<string, number>();
  synced = false;
  updatedAtMs = 0;

  /** Adds `delta` at a price string; false (nothing changed) when the level would go negative. */
  apply(side: string, price: string, delta: number): boolean {
    const map = side === 'yes' ? this.yes : this.no;
    const size = (map.get(price) ?? 0) + delta;
    if (size < 0) return false;
    if (size === 0) map.delete(price);
    else map.set(price, size);
    return true;
  }

  /** Best YES bid as a float dollar price (NaN when empty): scans the keys. */
  bestBid(): number {
    let best = Number.NaN;
    for (const price of this.yes.keys()) {
      const value = parseFloat(price);
      if (!(value <= best)) best = value;
    }
    return best;
  }

  /** Best YES ask = 1 - best NO bid. */
  bestAsk(): number {
    let best = Number.NaN;
    for (const price of this.no.keys()) {
      const value = parseFloat(price);
      if (!(value <= best)) best = value;
    }
    return 1 - best;
  }
}

export class MapBookStore {
  readonly books = new Map<string, MapBook>();
  readonly seqs = new Map<number, number>();
  readonly #now: () => number;

  constructor(now: () => number) {
    this.#now = now;
  }

  add(ticker: string): MapBook {
    const book = new MapBook();
    this.books.set(ticker, book);
    return book;
  }

  snapshot(ticker: string, side: 'yes' | 'no', levels: ReadonlyArray<[string, number]>): void {
    const book = this.books.get(ticker)!;
    const map = side === 'yes' ? book.yes : book.no;
    map.clear();
    for (const [price, size] of levels) map.set(price, size);
    book.synced = true;
  }

  #sequence(sid: number, seq: number): boolean {
    const last = this.seqs.get(sid);
    this.seqs.set(sid, seq);
    return last === undefined || seq === last + 1;
  }

  /** Returns false when the message cannot be applied (gap, unknown, not synced, negative). */
  applyDelta(sid: number, seq: number, ticker: string, side: string, price: string, delta: number): boolean {
    if (!this.#sequence(sid, seq)) return false;
    const book = this.books.get(ticker);
    if (book === undefined || !book.synced || !book.apply(side, price, delta)) return false;
    book.updatedAtMs = this.#now();
    return true;
  }

  /** applyDelta with the book already in hand. */
  applyDeltaToBook(sid: number, seq: number, book: MapBook, side: string, price: string, delta: number): boolean {
    if (!this.#sequence(sid, seq)) return false;
    if (!book.synced || !book.apply(side, price, delta)) return false;
    book.updatedAtMs = this.#now();
    return true;
  }
}
