/**
 * A binary min-heap of GTC orders by expiration time, so the engine finds due orders in O(1) per
 * call and O(log n) per expiry without a timer per order. Entries are removed lazily: an order
 * cancelled or filled before it expires stays in the heap and is skipped when popped.
 */

import type { EngineOrder } from './engine-order.ts';

export class ExpiryHeap {
  readonly #items: EngineOrder[] = [];

  get size(): number {
    return this.#items.length;
  }

  /** Expiration of the earliest order, Unix ms. */
  peekMs(): number {
    return this.#items[0].expirationTs * 1000;
  }

  push(order: EngineOrder): void {
    const items = this.#items;
    items.push(order);
    let i = items.length - 1;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (items[parent].expirationTs <= order.expirationTs) break;
      items[i] = items[parent];
      i = parent;
    }
    items[i] = order;
  }

  pop(): EngineOrder {
    const items = this.#items;
    const top = items[0];
    const last = items.pop() as EngineOrder;
    if (items.length > 0) {
      let i = 0;
      const n = items.length;
      for (;;) {
        const left = 2 * i + 1;
        if (left >= n) break;
        const right = left + 1;
        const child = right < n && items[right].expirationTs < items[left].expirationTs ? right : left;
        if (items[child].expirationTs >= last.expirationTs) break;
        items[i] = items[child];
        i = child;
      }
      items[i] = last;
    }
    return top;
  }
}
