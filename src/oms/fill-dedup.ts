/**
 * Fill de-duplication by trade id (the WS fill's trade_id equals the REST fill's fill_id, rest.md
 * §4): the same fill may arrive on the socket twice (resubscribe), from reconciliation reads, and
 * from the journal at start-up, and must count once. Bounded: the oldest ids are forgotten first,
 * FIFO, once `capacity` is reached (default 1,048,576 ids, a few days of heavy trading); a fill
 * older than that is not expected again. The ring grows with the ids it holds, up to `capacity`:
 * allocated whole it cost 8 MB per OMS, twice per replay (a sweep worker's largest allocation).
 * This file owns the set; it never applies a fill.
 */

export class FillDedup {
  readonly #seen = new Set<string>();
  /** Ids in arrival order: appended until `capacity`, then a ring whose oldest entry is at #next. */
  readonly #order: string[] = [];
  readonly #capacity: number;
  #next = 0;

  constructor(capacity = 1 << 20) {
    if (!Number.isSafeInteger(capacity) || capacity < 1) throw new RangeError(`FillDedup: capacity must be a positive integer, got ${capacity}`);
    this.#capacity = capacity;
  }

  /** True the first time `tradeId` is offered (and remembers it); false for a duplicate. */
  firstTime(tradeId: string): boolean {
    if (this.#seen.has(tradeId)) return false;
    if (this.#order.length < this.#capacity) {
      this.#order.push(tradeId);
    } else {
      this.#seen.delete(this.#order[this.#next]!);
      this.#order[this.#next] = tradeId;
      this.#next = (this.#next + 1) % this.#capacity;
    }
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
