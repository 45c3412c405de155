/**
 * The OrderEntry the OMS drives, wrapping the real one (RestOrderEntry) for two things wiring
 * needs and neither side offers: the tick-to-trade probe's stamps around each call into exec, and
 * order-change notices to strategies after the OMS has applied each exec answer. Every call and
 * answer passes straight through, synchronously, with no allocation; nothing is ever decided,
 * retried, reordered or dropped here. Each answer looks its order up once (the OMS keeps one Order
 * object per id, so the one found before the answer is the one to compare after it).
 */

import type { BookSide, Count, Price } from '../core/index.ts';
import type { OrderView } from '../strategy/index.ts';
import type { OrderUpdates } from './order-updates.ts';
import type { TickToTradeProbe } from './tick-to-trade-probe.ts';
import type { ExecErrorCode, ExecListener, ExecReject, FillsQuery, NewOrder, OrderEntry, OrdersQuery, PositionsQuery, WireFill, WireOrder, WirePosition } from '../oms/index.ts';

/** How the wrapper finds the OMS's order behind an exec answer (the Oms satisfies it). */
export interface OrderLookup {
  order(clientOrderId: string): OrderView | undefined;
  orderByOrderId(orderId: string): OrderView | undefined;
}

const NO_LOOKUP: OrderLookup = { order: () => undefined, orderByOrderId: () => undefined };

export class ObservedOrderEntry implements OrderEntry, ExecListener {
  readonly inner: OrderEntry;
  readonly #probe: TickToTradeProbe;
  readonly #updates: OrderUpdates;
  #listener: ExecListener | null = null;
  #orders: OrderLookup = NO_LOOKUP;

  constructor(inner: OrderEntry, probe: TickToTradeProbe, updates: OrderUpdates) {
    this.inner = inner;
    this.#probe = probe;
    this.#updates = updates;
  }

  /** Wiring, once the OMS exists. */
  setOrderLookup(orders: OrderLookup): void {
    this.#orders = orders;
  }

  // ---- OrderEntry (called by the OMS) ---------------------------------------------------------

  setListener(listener: ExecListener): void {
    this.#listener = listener;
    this.inner.setListener(this);
  }

  create(order: Readonly<NewOrder>): void {
    this.#probe.onExecCall();
    this.inner.create(order);
    this.#probe.onExecReturn();
  }

  cancel(orderId: string, subaccount: number): void {
    this.#probe.onExecCall();
    this.inner.cancel(orderId, subaccount);
    this.#probe.onExecReturn();
  }

  amend(orderId: string, ticker: string, side: BookSide, price: Price, count: Count, subaccount: number): void {
    this.#probe.onExecCall();
    this.inner.amend(orderId, ticker, side, price, count, subaccount);
    this.#probe.onExecReturn();
  }

  decrease(orderId: string, reduceBy: Count, subaccount: number): void {
    this.#probe.onExecCall();
    this.inner.decrease(orderId, reduceBy, subaccount);
    this.#probe.onExecReturn();
  }

  cancelAll(subaccount: number | null): Promise<void> {
    return this.inner.cancelAll(subaccount);
  }

  listOrders(query: OrdersQuery): Promise<WireOrder[]> {
    return this.inner.listOrders(query);
  }

  listFills(query: FillsQuery): Promise<WireFill[]> {
    return this.inner.listFills(query);
  }

  listPositions(query: PositionsQuery): Promise<WirePosition[]> {
    return this.inner.listPositions(query);
  }

  // ---- ExecListener (answers from exec, relayed to the OMS) ------------------------------------

  onCreateAck(clientOrderId: string, orderId: string, fillCount: Count, remainingCount: Count, tsMs: number): void {
    const listener = this.#listener;
    if (listener === null) return;
    const order = this.#orders.order(clientOrderId);
    this.#updates.before(order);
    listener.onCreateAck(clientOrderId, orderId, fillCount, remainingCount, tsMs);
    this.#updates.after(order ?? this.#orders.order(clientOrderId));
  }

  onCreateReject(clientOrderId: string, reject: ExecReject): void {
    const listener = this.#listener;
    if (listener === null) return;
    const order = this.#orders.order(clientOrderId);
    this.#updates.before(order);
    listener.onCreateReject(clientOrderId, reject);
    this.#updates.after(order ?? this.#orders.order(clientOrderId));
  }

  onCreateUnknown(clientOrderId: string, code: ExecErrorCode): void {
    const listener = this.#listener;
    if (listener === null) return;
    const order = this.#orders.order(clientOrderId);
    this.#updates.before(order);
    listener.onCreateUnknown(clientOrderId, code);
    this.#updates.after(order ?? this.#orders.order(clientOrderId));
  }

  onCancelAck(orderId: string, reducedBy: Count, tsMs: number): void {
    const listener = this.#listener;
    if (listener === null) return;
    const order = this.#orders.orderByOrderId(orderId);
    this.#updates.before(order);
    listener.onCancelAck(orderId, reducedBy, tsMs);
    this.#updates.after(order ?? this.#orders.orderByOrderId(orderId));
  }

  onCancelReject(orderId: string, reject: ExecReject): void {
    const listener = this.#listener;
    if (listener === null) return;
    const order = this.#orders.orderByOrderId(orderId);
    this.#updates.before(order);
    listener.onCancelReject(orderId, reject);
    this.#updates.after(order ?? this.#orders.orderByOrderId(orderId));
  }

  onCancelUnknown(orderId: string, code: ExecErrorCode): void {
    const listener = this.#listener;
    if (listener === null) return;
    const order = this.#orders.orderByOrderId(orderId);
    this.#updates.before(order);
    listener.onCancelUnknown(orderId, code);
    this.#updates.after(order ?? this.#orders.orderByOrderId(orderId));
  }

  onAmendAck(orderId: string, fillCount: Count, remainingCount: Count, tsMs: number): void {
    const listener = this.#listener;
    if (listener === null) return;
    const order = this.#orders.orderByOrderId(orderId);
    this.#updates.before(order);
    listener.onAmendAck(orderId, fillCount, remainingCount, tsMs);
    this.#updates.after(order ?? this.#orders.orderByOrderId(orderId));
  }

  onAmendReject(orderId: string, reject: ExecReject): void {
    const listener = this.#listener;
    if (listener === null) return;
    const order = this.#orders.orderByOrderId(orderId);
    this.#updates.before(order);
    listener.onAmendReject(orderId, reject);
    this.#updates.after(order ?? this.#orders.orderByOrderId(orderId));
  }

  onAmendUnknown(orderId: string, code: ExecErrorCode): void {
    const listener = this.#listener;
    if (listener === null || listener.onAmendUnknown === undefined) return;
    const order = this.#orders.orderByOrderId(orderId);
    this.#updates.before(order);
    listener.onAmendUnknown(orderId, code);
    this.#updates.after(order ?? this.#orders.orderByOrderId(orderId));
  }

  onDecreaseAck(orderId: string, remainingCount: Count, tsMs: number): void {
    const listener = this.#listener;
    if (listener === null) return;
    const order = this.#orders.orderByOrderId(orderId);
    this.#updates.before(order);
    listener.onDecreaseAck(orderId, remainingCount, tsMs);
    this.#updates.after(order ?? this.#orders.orderByOrderId(orderId));
  }

  onDecreaseReject(orderId: string, reject: ExecReject): void {
    const listener = this.#listener;
    if (listener === null) return;
    const order = this.#orders.orderByOrderId(orderId);
    this.#updates.before(order);
    listener.onDecreaseReject(orderId, reject);
    this.#updates.after(order ?? this.#orders.orderByOrderId(orderId));
  }

  onDecreaseUnknown(orderId: string, code: ExecErrorCode): void {
    const listener = this.#listener;
    if (listener === null || listener.onDecreaseUnknown === undefined) return;
    const order = this.#orders.orderByOrderId(orderId);
    this.#updates.before(order);
    listener.onDecreaseUnknown(orderId, code);
    this.#updates.after(order ?? this.#orders.orderByOrderId(orderId));
  }
}
