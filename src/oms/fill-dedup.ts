/**
 * Fill de-duplication by trade id (the WS fill's trade_id equals the REST fill's fill_id, rest.md
 * §4): the same fill may arrive on the socket twice (resubscribe), from reconciliation reads, and
 * from the journal at start-up, and must count once. Bounded: the oldest ids are forgotten first,
 * FIFO, once `capacity` is reached (default 1,048,576 ids, a few days of heavy trading); a fill
 * older than that is not expected again. This file owns the set; it never applies a fill.
 */

export class FillDedup {
  readonly #seen = new Set<string>();
  readonly #order: string[];
  #next = 0;

  constructor(capacity = 1 << 20) {
    this.#order = new Array<string>(capacity).fill('');
  }

  /** True the first time `tradeId` is offered (and remembers it); false for a duplicate. */
  firstTime(tradeId: string): boolean {
    if (this.#seen.has(tradeId)) return false;
    const evicted = this.#order[this.#next];
    if (evicted !== '') this.#seen.delete(evicted);
    this.#order[this.#next] = tradeId;
    this.#next = (this.#next + 1) % this.#order.length;
    this.#seen.add(tradeId);
    return true;
  }

  has(tradeId: string): boolean {
    return this.#seen.has(tradeId);
  }

  get size(): number {
    return this.#seen.size;
  }
}
