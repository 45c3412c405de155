/**
 * Tells strategies when one of their orders changed.
 *
 * Venue answers and private WS messages: wiring snapshots the order's state and counts before
 * handing a message to the OMS and compares after (before/after); a difference becomes one
 * host.onOrderUpdate(order), at once. Scalars only, no allocation.
 *
 * Everything else the OMS changes by itself - pending timeouts in its tick, reconciliation rounds,
 * the kill switch - arrives through the OMS's onOrderChange (noteChange) and is reported one event-
 * loop turn later (setImmediate), once per order however often it changed, outside any OMS update
 * or strategy callback, so a strategy may place or cancel from onOrderUpdate safely. Changes inside
 * a compared message are left to the comparison, and those a strategy's own request causes
 * (between beginOwn and endOwn) are not reported: the strategy made them.
 * This file owns the comparison and the deferral; it never changes an order.
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
  #comparing = false;
  #ownDepth = 0;
  readonly #deferred = new Set<OrderView>();
  #flushScheduled = false;
  readonly #flushBound = (): void => this.#flush();

  setSink(sink: OrderUpdateSink | null): void {
    this.#sink = sink;
  }

  before(order: OrderView | undefined): void {
    this.#comparing = true;
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
    this.#comparing = false;
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

  /** The OMS changed an order by itself (Oms option onOrderChange). */
  noteChange(order: OrderView): void {
    if (this.#comparing || this.#ownDepth > 0 || this.#sink === null) return;
    this.#deferred.add(order);
    if (this.#flushScheduled) return;
    this.#flushScheduled = true;
    setImmediate(this.#flushBound);
  }

  /** A strategy's own request is being handled (OmsOrderPort.submit): its changes are not news to it. */
  beginOwn(): void {
    this.#ownDepth++;
  }

  endOwn(): void {
    this.#ownDepth--;
  }

  #flush(): void {
    this.#flushScheduled = false;
    const sink = this.#sink;
    if (sink === null) {
      this.#deferred.clear();
      return;
    }
    for (const order of this.#deferred) {
      this.#deferred.delete(order);
      sink.onOrderUpdate(order);
    }
  }
}
