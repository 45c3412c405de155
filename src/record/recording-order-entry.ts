/**
 * The order tap: an OrderEntry that passes each request to the real route, then records it (so the
 * recording never delays an order's bytes), and an ExecListener that records each answer, then
 * passes it to the OMS. It sits between
 * the router and the route, the one boundary every order and answer crosses, so neither side
 * changes. Bodies are short '|'-separated text (docs/recording-format.md); a '|' inside an
 * exchange message is written as '/'. It owns the text encoding only; it decides nothing.
 */

import type { BookSide, Count, Price } from '../core/index.ts';
import type { CreateKey, ExecErrorCode, ExecListener, ExecReject, NewOrder, OrderEntry } from '../oms/index.ts';
import { RecordKind } from './format.ts';
import type { Recorder } from './recorder.ts';

function clean(text: string): string {
  return text.indexOf('|') === -1 ? text : text.replaceAll('|', '/');
}

function rejectText(reject: ExecReject): string {
  return `${reject.status}|${clean(reject.code)}|${clean(reject.message)}`;
}

export function createOrderText(order: Readonly<NewOrder>): string {
  return `create|${order.clientOrderId}|${order.ticker}|${order.side}|${order.price}|${order.count}|${order.timeInForce}|${order.postOnly ? 1 : 0}|${order.reduceOnly ? 1 : 0}|${order.selfTradePrevention}|${order.subaccount}|${order.orderGroupId ?? ''}|${order.expirationTs}`;
}

/** Records answers, then hands them on. */
class RecordingListener implements ExecListener {
  readonly #recorder: Recorder;
  readonly #next: ExecListener;
  /** The ids of creates in flight whose route answers by handle, by handle (the recording keeps text). */
  readonly #createIds: Map<number, string>;
  constructor(recorder: Recorder, next: ExecListener, createIds: Map<number, string>) {
    this.#recorder = recorder;
    this.#next = next;
    this.#createIds = createIds;
  }

  /** A create answer's id as text; a handle's text is forgotten with its answer. */
  #idText(key: CreateKey): string {
    if (typeof key === 'string') return key;
    const text = this.#createIds.get(key) ?? String(key);
    this.#createIds.delete(key);
    return text;
  }
  answersBegin(): void {
    this.#next.answersBegin?.();
  }
  answersEnd(): void {
    this.#next.answersEnd?.();
  }
  onCreateAck(key: CreateKey, orderId: string, fillCount: Count, remainingCount: Count, tsMs: number): void {
    this.#recorder.text(RecordKind.ANSWER, `create_ack|${this.#idText(key)}|${orderId}|${fillCount}|${remainingCount}|${tsMs}`);
    this.#next.onCreateAck(key, orderId, fillCount, remainingCount, tsMs);
  }
  onCreateReject(key: CreateKey, reject: ExecReject): void {
    this.#recorder.text(RecordKind.ANSWER, `create_reject|${this.#idText(key)}|${rejectText(reject)}`);
    this.#next.onCreateReject(key, reject);
  }
  onCreateUnknown(key: CreateKey, code: ExecErrorCode): void {
    this.#recorder.text(RecordKind.ANSWER, `create_unknown|${this.#idText(key)}|${code}`);
    this.#next.onCreateUnknown(key, code);
  }
  onCancelAck(orderId: string, reducedBy: Count, tsMs: number): void {
    this.#recorder.text(RecordKind.ANSWER, `cancel_ack|${orderId}|${reducedBy}|${tsMs}`);
    this.#next.onCancelAck(orderId, reducedBy, tsMs);
  }
  onCancelReject(orderId: string, reject: ExecReject): void {
    this.#recorder.text(RecordKind.ANSWER, `cancel_reject|${orderId}|${rejectText(reject)}`);
    this.#next.onCancelReject(orderId, reject);
  }
  onCancelUnknown(orderId: string, code: ExecErrorCode): void {
    this.#recorder.text(RecordKind.ANSWER, `cancel_unknown|${orderId}|${code}`);
    this.#next.onCancelUnknown(orderId, code);
  }
  onAmendAck(orderId: string, fillCount: Count, remainingCount: Count, tsMs: number): void {
    this.#recorder.text(RecordKind.ANSWER, `amend_ack|${orderId}|${fillCount}|${remainingCount}|${tsMs}`);
    this.#next.onAmendAck(orderId, fillCount, remainingCount, tsMs);
  }
  onAmendReject(orderId: string, reject: ExecReject): void {
    this.#recorder.text(RecordKind.ANSWER, `amend_reject|${orderId}|${rejectText(reject)}`);
    this.#next.onAmendReject(orderId, reject);
  }
  onDecreaseAck(orderId: string, remainingCount: Count, tsMs: number): void {
    this.#recorder.text(RecordKind.ANSWER, `decrease_ack|${orderId}|${remainingCount}|${tsMs}`);
    this.#next.onDecreaseAck(orderId, remainingCount, tsMs);
  }
  onDecreaseReject(orderId: string, reject: ExecReject): void {
    this.#recorder.text(RecordKind.ANSWER, `decrease_reject|${orderId}|${rejectText(reject)}`);
    this.#next.onDecreaseReject(orderId, reject);
  }
  onAmendUnknown(orderId: string, code: ExecErrorCode): void {
    this.#recorder.text(RecordKind.ANSWER, `amend_unknown|${orderId}|${code}`);
    // The same fallback the transports use when a listener lacks the method (order-route.ts).
    if (this.#next.onAmendUnknown !== undefined) this.#next.onAmendUnknown(orderId, code);
    else this.#next.onAmendReject(orderId, { status: 0, code, message: '', details: '' });
  }
  onDecreaseUnknown(orderId: string, code: ExecErrorCode): void {
    this.#recorder.text(RecordKind.ANSWER, `decrease_unknown|${orderId}|${code}`);
    if (this.#next.onDecreaseUnknown !== undefined) this.#next.onDecreaseUnknown(orderId, code);
    else this.#next.onDecreaseReject(orderId, { status: 0, code, message: '', details: '' });
  }
}

/** Records requests, then hands them to the route; records the route's answers on their way back. */
export class RecordingOrderEntry implements OrderEntry {
  readonly #recorder: Recorder;
  readonly #route: OrderEntry;
  readonly #routeName: string;
  /** Shared with the listener: creates sent by handle, their id's text (made here: the recording needs it). */
  readonly #createIds = new Map<number, string>();

  constructor(recorder: Recorder, route: OrderEntry, routeName: string) {
    this.#recorder = recorder;
    this.#route = route;
    this.#routeName = routeName;
  }

  setListener(listener: ExecListener): void {
    this.#route.setListener(new RecordingListener(this.#recorder, listener, this.#createIds));
  }

  create(order: Readonly<NewOrder>): void {
    const handle = order.handle ?? 0;
    if (handle > 0) this.#createIds.set(handle, order.clientOrderId); // before the route: it may answer inside create()
    try {
      this.#route.create(order);
    } catch (error) {
      this.#createIds.delete(handle); // no answer follows a throw (the OMS reconciles the order)
      throw error;
    }
    this.#recorder.text(RecordKind.ORDER, createOrderText(order));
  }

  cancel(orderId: string, subaccount: number): void {
    this.#route.cancel(orderId, subaccount);
    this.#recorder.text(RecordKind.ORDER, `cancel|${orderId}|${subaccount}`);
  }

  amend(orderId: string, ticker: string, side: BookSide, price: Price, count: Count, subaccount: number): void {
    this.#route.amend(orderId, ticker, side, price, count, subaccount);
    this.#recorder.text(RecordKind.ORDER, `amend|${orderId}|${ticker}|${side}|${price}|${count}|${subaccount}`);
  }

  decrease(orderId: string, reduceBy: Count, subaccount: number): void {
    this.#route.decrease(orderId, reduceBy, subaccount);
    this.#recorder.text(RecordKind.ORDER, `decrease|${orderId}|${reduceBy}|${subaccount}`);
  }

  cancelAll(subaccount: number | null): Promise<void> {
    this.#recorder.text(RecordKind.ORDER, `cancel_all|${subaccount ?? ''}|${this.#routeName}`);
    return this.#route.cancelAll(subaccount);
  }
}
