/**
 * Tells strategies when one of their orders changed. The OMS applies venue answers and private
 * WS messages but has no change callback, so wiring snapshots the order's state and counts before
 * handing a message to the OMS and compares after: a difference becomes one
 * host.onOrderUpdate(order). Scalars only, no allocation. Changes made inside oms.tick()
 * (pending timeouts, reconciliation) are not reported here; strategies read the order's state
 * through ctx.order() whenever they act, so they never act on a stale view.
 * This file owns the comparison; it never changes an order.
 */

import type { OrderView } from '../strategy/index.ts';

export interface OrderUpdateSink {
  onOrderUpdate(order: OrderView): void;
}

export class OrderUpdates {
  #sink: OrderUpdateSink | null = null;
  #state = -1;
  #filled = -1;
  #remaining = -1;
  #price = -1;
  #orderId = '';
  #known = false;

  setSink(sink: OrderUpdateSink | null): void {
    this.#sink = sink;
  }

  before(order: OrderView | undefined): void {
    if (order === undefined) {
      this.#known = false;
      return;
    }
    this.#known = true;
    this.#state = order.state;
    this.#filled = order.filledCount;
    this.#remaining = order.remainingCount;
    this.#price = order.price;
    this.#orderId = order.orderId;
  }

  after(order: OrderView | undefined): void {
    if (order === undefined || this.#sink === null) return;
    if (
      this.#known &&
      order.state === this.#state &&
      order.filledCount === this.#filled &&
      order.remainingCount === this.#remaining &&
      order.price === this.#price &&
      order.orderId === this.#orderId
    ) {
      return;
    }
    this.#known = false;
    this.#sink.onOrderUpdate(order);
  }
}
