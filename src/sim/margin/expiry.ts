/**
 * A binary min-heap of resting Margin orders by expiration_time (the Predictions engine's
 * engine/expiry-heap.ts for margin records), so advance() finds due orders without a timer per
 * order. Entries leave lazily: an order filled or cancelled before it expires is skipped when popped.
 */

import type { MarginOrderRecord } from './records.ts';

export class MarginExpiryHeap {
  readonly #items: MarginOrderRecord[] = [];

  get size(): number {
    return this.#items.length;
  }

  /** Expiration of the earliest order, Unix ms; Infinity when empty. */
  peekMs(): number {
    return this.#items.length === 0 ? Infinity : (this.#items[0].expirationTs as number) * 1000;
  }

  push(order: MarginOrderRecord): void {
    const items = this.#items;
    const at = order.expirationTs as number;
    items.push(order);
    let i = items.length - 1;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if ((items[parent].expirationTs as number) <= at) break;
      items[i] = items[parent];
      i = parent;
    }
    items[i] = order;
  }

  pop(): MarginOrderRecord {
    const items = this.#items;
    const top = items[0];
    const last = items.pop() as MarginOrderRecord;
    if (items.length > 0) {
      const at = last.expirationTs as number;
      let i = 0;
      const n = items.length;
      for (;;) {
        const left = 2 * i + 1;
        if (left >= n) break;
        const right = left + 1;
        const child = right < n && (items[right].expirationTs as number) < (items[left].expirationTs as number) ? right : left;
        if ((items[child].expirationTs as number) >= at) break;
        items[i] = items[child];
        i = child;
      }
      items[i] = last;
    }
    return top;
  }
}
