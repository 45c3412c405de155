/**
 * The live run's own resting orders, as of the replay's clock, from the recording's user_order
 * frames (which a replay does not deliver). The recorded book was the exchange's, so it holds
 * them; the venue's mirror subtracts them so a replay order that sits where the live one sat
 * queues where it queued live, instead of behind its own ghost. The feed's books keep them: the
 * live strategy saw its own orders in the book too. Owns this map only.
 */

import type { BookSide, Count, Price } from '../core/index.ts';
import type { UserOrderRecord } from '../feed/index.ts';

interface LiveOrder {
  ticker: string;
  side: BookSide;
  price: Price;
  remaining: Count;
}

export class LiveOrders {
  readonly #orders = new Map<string, LiveOrder>();
  /** Resting count by `${ticker}|${side}|${price}`. */
  readonly #atLevel = new Map<string, number>();
  /** The sum of the live orders' own book deltas by the same key (onOwnDelta). */
  readonly #ownDeltaSum = new Map<string, number>();
  #ownDeltasSeen = false;

  /** A recorded user_order frame, decoded by the feed's decoder: the order rests with its remaining count, or is gone. */
  onUserOrder(msg: Readonly<UserOrderRecord>): void {
    if (msg.orderId === '') return;
    const old = this.#orders.get(msg.orderId);
    if (old !== undefined) {
      this.#add(old, -old.remaining);
      this.#orders.delete(msg.orderId);
    }
    if (msg.status !== 'resting' || msg.ticker === '' || !(msg.yesPrice > 0) || !(msg.remainingCount > 0)) return;
    const order: LiveOrder = { ticker: msg.ticker, side: msg.bookSide, price: msg.yesPrice, remaining: msg.remainingCount };
    this.#orders.set(msg.orderId, order);
    this.#add(order, msg.remainingCount);
  }

  /**
   * A recorded book delta caused by the live run's own order (it carries client_order_id). Once
   * the venue sends these, the live size at a level is their sum: in step with the recorded book,
   * where the user_order frame of the same change comes a little later.
   */
  onOwnDelta(ticker: string, side: BookSide, price: Price, delta: number): void {
    const key = `${ticker}|${side}|${price}`;
    const next = (this.#ownDeltaSum.get(key) ?? 0) + delta;
    if (next <= 0) this.#ownDeltaSum.delete(key);
    else this.#ownDeltaSum.set(key, next);
    this.#ownDeltasSeen = true;
  }

  /** The live run's resting count at a level, 1/100 contract. */
  sizeAt(ticker: string, side: BookSide, price: Price): number {
    const key = `${ticker}|${side}|${price}`;
    return (this.#ownDeltasSeen ? this.#ownDeltaSum.get(key) : this.#atLevel.get(key)) ?? 0;
  }

  get count(): number {
    return this.#orders.size;
  }

  #add(order: LiveOrder, delta: number): void {
    const key = `${order.ticker}|${order.side}|${order.price}`;
    const next = (this.#atLevel.get(key) ?? 0) + delta;
    if (next <= 0) this.#atLevel.delete(key);
    else this.#atLevel.set(key, next);
  }
}
