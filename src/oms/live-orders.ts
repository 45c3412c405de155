/**
 * The OMS's orders that are not terminal, in the order they became live, as a list threaded
 * through the order records themselves (Order.livePrev / liveNext): adding and removing an order
 * allocates nothing, where a Set's table is reallocated as orders come and go (about 60 bytes an
 * order in bench/hot-path's heap profile). Iteration allows the current order to leave the list
 * (the tick's timeouts end orders while walking it) and visits orders added meanwhile, as a Set's
 * does. Owns the links only; never decides what is live.
 */

import type { Order } from './order.ts';

export class LiveOrders {
  #head: Order | null = null;
  #tail: Order | null = null;
  #size = 0;

  get size(): number {
    return this.#size;
  }

  has(order: Order): boolean {
    return order.inLive;
  }

  /** Appends `order` unless it is in the list already. */
  add(order: Order): void {
    if (order.inLive) return;
    order.inLive = true;
    order.livePrev = this.#tail;
    order.liveNext = null;
    if (this.#tail === null) this.#head = order;
    else this.#tail.liveNext = order;
    this.#tail = order;
    this.#size++;
  }

  /** Removes `order`; false when it was not in the list. */
  delete(order: Order): boolean {
    if (!order.inLive) return false;
    const prev = order.livePrev;
    const next = order.liveNext;
    if (prev === null) this.#head = next;
    else prev.liveNext = next;
    if (next === null) this.#tail = prev;
    else next.livePrev = prev;
    order.inLive = false;
    order.livePrev = null;
    order.liveNext = null;
    this.#size--;
    return true;
  }

  /** The oldest live order; walk on with successor() (no iterator object: the tick walks the list). */
  get first(): Order | null {
    return this.#head;
  }

  /**
   * The order after `order` in a walk, given `next`, its successor read before `order` was
   * handled (it may have left the list since); at the tail, what was appended meanwhile follows.
   */
  static successor(order: Order, next: Order | null): Order | null {
    return next !== null ? next : order.inLive ? order.liveNext : null;
  }

  /** Off the hot path (allocates an iterator): listings and tests. */
  *[Symbol.iterator](): IterableIterator<Order> {
    let order = this.#head;
    while (order !== null) {
      const next = order.liveNext;
      yield order;
      order = LiveOrders.successor(order, next);
    }
  }
}
