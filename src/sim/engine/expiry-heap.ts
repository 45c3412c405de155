/**
 * A binary min-heap of resting orders by expiration time (unix seconds), so an engine finds due
 * orders in O(1) per call and O(log n) per expiry without a timer per order. Entries are removed
 * lazily: an order cancelled or filled before it expires stays in the heap and is skipped when
 * popped. Both exchanges' engines use it (Predictions GTD orders, Margin `expiration_time`); only
 * orders with an expiration are pushed.
 */

/** An order the heap can hold: its expiration, unix seconds (never null once pushed). */
export interface Expiring {
  readonly expirationTs: number | null;
}

export class ExpiryHeap<T extends Expiring> {
  readonly #items: T[] = [];

  get size(): number {
    return this.#items.length;
  }

  /** Expiration of the earliest order, Unix ms; Infinity when empty. */
  peekMs(): number {
    return this.#items.length === 0 ? Infinity : at(this.#items[0]) * 1000;
  }

  push(order: T): void {
    const items = this.#items;
    const due = at(order);
    items.push(order);
    let i = items.length - 1;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (at(items[parent]) <= due) break;
      items[i] = items[parent];
      i = parent;
    }
    items[i] = order;
  }

  pop(): T {
    const items = this.#items;
    const top = items[0];
    const last = items.pop() as T;
    if (items.length > 0) {
      const due = at(last);
      let i = 0;
      const n = items.length;
      for (;;) {
        const left = 2 * i + 1;
        if (left >= n) break;
        const right = left + 1;
        const child = right < n && at(items[right]) < at(items[left]) ? right : left;
        if (at(items[child]) >= due) break;
        items[i] = items[child];
        i = child;
      }
      items[i] = last;
    }
    return top;
  }
}

function at(order: Expiring): number {
  return order.expirationTs as number;
}
