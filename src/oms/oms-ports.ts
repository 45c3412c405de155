/**
 * The OMS's seams to the rest of the runtime, as types it owns, so it imports neither the risk
 * gate nor a route: what it tells about orders (OmsListener: the gate keeps its ledger from it),
 * how it sends the cancels it decides on (OmsSender: the router, through the gate), and who hears
 * of order changes it did not cause itself (OrderUpdateSink: the strategy host).
 */

import type { BookSide } from '../core/index.ts';
import type { Order } from './order.ts';

export interface OmsListener {
  /** After every event applied to an order (state, remainder, price or amend target may have moved). */
  onOrderChange(order: Readonly<Order>): void;
  /** A new, de-duplicated fill (`market` -1 and group -1/null when the order is not ours or not known). */
  onFill(market: number, ticker: string, subaccount: number, side: BookSide, count: number, groupHandle: number, groupId: string | null, tsMs: number): void;
  /** The venue's position for a market replaces ours. */
  onPosition(ticker: string, subaccount: number, position: number): void;
  /** The venue answered 429. */
  onVenueRateLimited(nowMs: number): void;
}

export interface OmsSender {
  /**
   * A cancel the OMS decided to send (one a strategy asked for before it could go out, or a retry):
   * through the gate, then the route. When the gate refuses, the OMS is told (cancelDeferred) and
   * its tick tries again.
   */
  sendCancel(order: Readonly<Order>): void;
  /** Every order of one subaccount (the kill switch and the stop path); rejects when refused or failed. */
  cancelAll(subaccount: number): Promise<void>;
  /** One read's tokens for a reconciliation read; false when the budget cannot pay now. */
  takeReadToken(): boolean;
  /** A read takeReadToken() paid for was answered or failed (the budget stops counting it on the way). */
  readSettled(): void;
}

export interface OrderUpdateSink {
  /**
   * One of a strategy's orders changed by a venue answer, a WebSocket message, a timeout or a
   * reconciliation (never by the strategy's own request). Called once the OMS has finished the
   * work that changed it (a microtask later), once per order however often it changed meanwhile.
   */
  onOrderUpdate(order: Readonly<Order>): void;
}

export const NO_LISTENER: OmsListener = Object.freeze({
  onOrderChange(): void {},
  onFill(): void {},
  onPosition(): void {},
  onVenueRateLimited(): void {},
});

/** Until a router is attached: nothing can be sent, so a cancel stays wanted and the kill switch retries. */
export const NO_SENDER: OmsSender = Object.freeze({
  sendCancel(): void {},
  cancelAll(): Promise<void> {
    return Promise.reject(new Error('no router attached to the OMS'));
  },
  takeReadToken(): boolean {
    return true;
  },
  readSettled(): void {},
});
