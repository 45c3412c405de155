/**
 * The order store: every live order (and every order of history users) by sequence number, the
 * expiry heap, and the ways an order leaves the book or ends: shrink, cancel (one order, a user's,
 * a market's, the expired ones), finish. Each keeps the book, the owner's resting list, the order
 * group's set, the collateral (through accounts) and the events (book delta, user order) in step,
 * so the matching part, order groups (trigger, delete) and market operations (pause, close,
 * settle) end orders the same way. It never validates a request, never matches, never puts an
 * order into a book (matching does, after matching it) and never moves cash itself; it is the
 * layer below those three parts, which is what keeps them free of cycles.
 */

import type { Count } from '../../core/index.ts';
import type { SimError, UpdateReason } from './types.ts';
import { ERR_ORDER_NOT_FOUND } from './errors.ts';
import type { EngineOrder } from './engine-order.ts';
import type { MarketState } from './market-state.ts';
import type { UserState } from './user-state.ts';
import { ExpiryHeap } from './expiry-heap.ts';
import type { IdSource } from './ids.ts';
import type { Accounts } from './accounts.ts';
import type { EngineEvents } from './events.ts';

export class OrderStore {
  readonly #ids: IdSource;
  readonly #accounts: Accounts;
  readonly #events: EngineEvents;
  /** Live orders (and every order of history users) by sequence number. */
  readonly #orders = new Map<number, EngineOrder>();
  readonly #expiry = new ExpiryHeap<EngineOrder>();
  #seq = 0;

  constructor(ids: IdSource, accounts: Accounts, events: EngineEvents) {
    this.#ids = ids;
    this.#accounts = accounts;
    this.#events = events;
  }

  /** Accepts an order: sequence number (and so id), index, client order id of history users, collateral. */
  register(order: EngineOrder): void {
    order.seq = ++this.#seq;
    this.#orders.set(order.seq, order);
    const user = order.user;
    if (user.keepHistory) {
      user.orders.push(order);
      if (order.clientOrderId !== '') user.clientOrderIds.add(order.clientOrderId);
    }
    this.#accounts.reserve(order);
  }

  /** The order with this id (live, or kept for a history user), or undefined. */
  find(orderId: string): EngineOrder | undefined {
    return this.#orders.get(this.#ids.parse(orderId));
  }

  /** The user's resting order, or the 404 the exchange gives for unknown, foreign or finished orders. */
  ownedResting(user: UserState, orderId: string, subaccount: number | null | undefined): EngineOrder | SimError {
    const order = this.#orders.get(this.#ids.parse(orderId));
    if (order === undefined || order.user !== user) return ERR_ORDER_NOT_FOUND;
    if (subaccount !== undefined && subaccount !== null && order.subaccount !== subaccount) return ERR_ORDER_NOT_FOUND;
    if (order.status !== 'resting' || !order.inBook) return ERR_ORDER_NOT_FOUND;
    return order;
  }

  /** Expires `order` (resting, GTC, expirationTs set) when its time comes; see expireDue. */
  trackExpiry(order: EngineOrder): void {
    this.#expiry.push(order);
  }

  /** Reduces a resting order in place (keeps its queue position). */
  shrinkResting(order: EngineOrder, by: number, reason: UpdateReason, nowMs: number): void {
    order.market.book.shrink(order, by as Count);
    order.remainingCount = (order.remainingCount - by) as Count;
    order.lastUpdateMs = nowMs;
    order.lastUpdateReason = reason;
    this.#accounts.reserve(order);
    this.#events.bookDelta(order, -by, reason, nowMs);
  }

  /** Cancels a resting order: leaves the book (delta), releases collateral, emits the update. Returns the count removed. */
  cancelResting(order: EngineOrder, reason: UpdateReason, nowMs: number): number {
    const reducedBy = order.remainingCount as number;
    order.market.book.remove(order);
    order.status = 'canceled';
    order.lastUpdateReason = reason;
    order.lastUpdateMs = nowMs;
    this.#accounts.reserve(order);
    this.#events.bookDelta(order, -reducedBy, reason, nowMs);
    order.remainingCount = 0 as Count;
    this.detach(order);
    if (!order.user.keepHistory) this.#orders.delete(order.seq);
    this.#events.userOrder(order);
    return reducedBy;
  }

  /** Ends an order that is not in the book: canceled (remaining dropped) or executed. */
  finish(order: EngineOrder, status: 'canceled' | 'executed', reason: UpdateReason, nowMs: number): void {
    order.status = status;
    order.remainingCount = 0 as Count;
    order.lastUpdateReason = reason;
    order.lastUpdateMs = nowMs;
    this.#accounts.reserve(order);
    this.detach(order);
    if (!order.user.keepHistory) this.#orders.delete(order.seq);
  }

  /** Off the owner's resting list and out of its group's set (the book is the caller's). */
  detach(order: EngineOrder): void {
    order.user.removeResting(order);
    if (order.group !== null) order.group.orders.delete(order);
  }

  /** Drops a finished order of a user without history from the index (history users keep theirs). */
  forgetIfDone(order: EngineOrder): void {
    if (!order.user.keepHistory && order.status !== 'resting') this.#orders.delete(order.seq);
  }

  /** Cancels every resting order of `user` (one subaccount, or all when null), oldest first. Returns how many. */
  cancelUserOrders(user: UserState, subaccount: number | null, reason: UpdateReason, nowMs: number): number {
    const victims: EngineOrder[] = [];
    for (let order = user.restingHead; order !== null; order = order.userNext) if (subaccount === null || order.subaccount === subaccount) victims.push(order);
    victims.sort((a, b) => a.seq - b.seq);
    for (const order of victims) this.cancelResting(order, reason, nowMs);
    return victims.length;
  }

  /** Cancels every resting order of `market` (only those flagged cancel_order_on_pause when `onlyOnPause`), oldest first. */
  cancelMarketOrders(market: MarketState, reason: UpdateReason, nowMs: number, onlyOnPause: boolean): void {
    const victims: EngineOrder[] = [];
    const book = market.book;
    for (let level = 0; level < book.levelCount; level++) {
      for (let o = book.bidHead[level]; o !== null; o = o.next) if (!onlyOnPause || o.cancelOrderOnPause) victims.push(o);
      for (let o = book.askHead[level]; o !== null; o = o.next) if (!onlyOnPause || o.cancelOrderOnPause) victims.push(o);
    }
    victims.sort((a, b) => a.seq - b.seq);
    for (const order of victims) this.cancelResting(order, reason, nowMs);
  }

  /** Cancels every GTC order whose expiration_time is at or before nowMs; returns how many. */
  expireDue(nowMs: number): number {
    const heap = this.#expiry;
    if (heap.size === 0 || heap.peekMs() > nowMs) return 0;
    let expired = 0;
    while (heap.size > 0 && heap.peekMs() <= nowMs) {
      const order = heap.pop();
      if (order.status === 'resting' && order.inBook) {
        this.cancelResting(order, 'ExpiryCancel', nowMs);
        expired++;
      }
    }
    return expired;
  }
}
