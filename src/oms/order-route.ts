/**
 * The order-entry port: the contract every route (REST, FIX) implements and the OMS knows routes
 * by. It owns the record a route encodes (NewOrder, which the OMS's Order satisfies), the listener
 * that receives acks, rejects and unknown outcomes, the reads used for reconciliation, and the
 * exchange objects those reads return with prices and counts already in core units, plus the coded
 * ExecError. Types only: it never does I/O and never holds order state (the OMS does).
 *
 * Outcome rules every implementation keeps:
 * - A reject (onXxxReject) means the exchange answered "no" and nothing was applied: an HTTP 4xx
 *   with the exchange's error body, or a per-item error inside a batch response.
 * - An unknown (onXxxUnknown) means the request may or may not have been applied: timeout,
 *   disconnect, 5xx, or a success status whose body does not parse. The OMS must reconcile.
 * - 429 is a reject (the rate limiter refused the request before it reached matching) with
 *   status 429 and code EXEC_RATE_LIMITED, since the exchange's 429 body carries no code.
 */

import type { BookSide, Centicents, Count, Price, TimeInForce } from '../core/index.ts';

export type { TimeInForce };
export type SelfTradePrevention = 'taker_at_cross' | 'maker';

/** A reused record: the exec layer copies what it needs synchronously inside create(). */
export interface NewOrder {
  /** The id as text; an OMS order makes it when first read, so a route on the order path reads `handle` and writeClientOrderId instead. */
  readonly clientOrderId: string;
  /**
   * The OMS's handle of the order: the counter of this session's id (`<head><counter>`), 0 when
   * the id is only text. A route that answers the request it sent passes it as the answer's key
   * (CreateKey) instead of the text. Absent: 0.
   */
  readonly handle?: number;
  /**
   * Writes the id's characters (no quotes; they need no JSON escape) at `at` without making its
   * string, and returns the offset after them; -1 when the id is only text (write clientOrderId).
   * Room: CLIENT_ORDER_ID_BYTES_MAX. Absent: write clientOrderId.
   */
  writeClientOrderId?(out: Buffer, at: number): number;
  ticker: string;
  side: BookSide;
  price: Price; // YES price
  count: Count;
  timeInForce: TimeInForce;
  postOnly: boolean;
  reduceOnly: boolean;
  selfTradePrevention: SelfTradePrevention;
  subaccount: number;
  orderGroupId: string | null;
  expirationTs: number; // unix seconds, 0 = none
}

export type ExecErrorCode =
  | 'EXEC_TIMEOUT' // no response headers (or body) within the configured timeout
  | 'EXEC_DISCONNECTED' // socket closed, reset or refused before a full response
  | 'EXEC_HTTP_5XX' // the exchange answered 5xx (503 EXCHANGE_UNAVAILABLE included)
  | 'EXEC_RATE_LIMITED' // 429
  | 'EXEC_REJECTED' // 4xx whose body names no code
  | 'EXEC_BAD_RESPONSE'; // a body that does not parse or lacks required fields

/** Every ExecErrorCode with its meaning; a test checks each code is documented here. */
export const EXEC_ERROR_CODES: Readonly<Record<ExecErrorCode, string>> = Object.freeze({
  EXEC_TIMEOUT: 'no response within headersTimeoutMs/bodyTimeoutMs; the request may have been applied',
  EXEC_DISCONNECTED: 'the connection failed or closed before a full response; the request may have been applied',
  EXEC_HTTP_5XX: 'the exchange answered 5xx; the request may have been applied',
  EXEC_RATE_LIMITED: 'HTTP 429: the rate limiter refused the request; nothing was applied',
  EXEC_REJECTED: 'HTTP 4xx whose body carries no exchange code; nothing was applied',
  EXEC_BAD_RESPONSE: 'a response body that does not parse or lacks a required field',
});

/** The exchange's error body (nested {"error":{...}}, flat {code,...}, {"msg":...} or 429's {"error":"..."}). */
export interface ExecReject {
  status: number; // HTTP status; 200/201 for a per-item error inside a batch response
  code: string; // exchange code (match by prefix: some are dynamic), or an ExecErrorCode when the body has none
  message: string;
  details: string;
}

/**
 * Which order a create's answer is for: its client order id as text (read off the wire: a FIX
 * ExecutionReport, a batch item), or the handle of the NewOrder the route sent (a positive
 * number: the route answers the request it holds, and no id string is made on the order path).
 */
export type CreateKey = string | number;

/**
 * Which order a cancel's answer is for: its venue order id as text, or the handle of the order a
 * route cancelled by cancelOrder() (a positive number: no id string made on the way).
 */
export type OrderKey = string | number;

/**
 * An order to cancel as a route reads it without making the venue id's string (the OMS's Order
 * satisfies it): the id's bytes written by the order, answered by its handle.
 */
export interface VenueOrderRef {
  /** The OMS's handle (NewOrder.handle); 0 when the order has none: answer by `orderId` then. */
  readonly handle: number;
  readonly subaccount: number;
  /** The venue's id as text (made when read: a route on the order path writes it with writeOrderId). */
  readonly orderId: string;
  /** Writes the id's characters (no quotes; they need no JSON escape) at `at`, returns the offset after them; -1 when the id is only text (write orderId). Room: VENUE_ID_BYTES_MAX. */
  writeOrderId(out: Uint8Array, at: number): number;
  /** Whether the venue's id is `text` (matching an answer's echo without making the id's string). */
  orderIdIs(text: string): boolean;
}

export interface ExecListener {
  onCreateAck(key: CreateKey, orderId: string, fillCount: Count, remainingCount: Count, tsMs: number): void;
  /**
   * onCreateAck with the venue's order id as the bytes bytes[start, end) of the answer (Latin-1),
   * read during the call only: a listener that has it keeps them without making the string. A
   * route calls it when the listener has it, else onCreateAck.
   */
  onCreateAckBytes?(key: CreateKey, bytes: Uint8Array, start: number, end: number, fillCount: Count, remainingCount: Count, tsMs: number): void;
  onCreateReject(key: CreateKey, reject: ExecReject): void; // exchange said no: order not applied
  onCreateUnknown(key: CreateKey, code: ExecErrorCode): void; // fate unknown: OMS must reconcile
  /** `orderId`: the venue id, or the order's handle when it was cancelled by cancelOrder() (OrderKey). */
  onCancelAck(orderId: OrderKey, reducedBy: Count, tsMs: number): void;
  onCancelReject(orderId: OrderKey, reject: ExecReject): void; // 404 not_found = already gone
  onCancelUnknown(orderId: OrderKey, code: ExecErrorCode): void;
  /** fillCount/remainingCount are COUNT_INVALID when the exchange omitted them (the amend did not change them). */
  onAmendAck(orderId: string, fillCount: Count, remainingCount: Count, tsMs: number): void;
  onAmendReject(orderId: string, reject: ExecReject): void;
  onDecreaseAck(orderId: string, remainingCount: Count, tsMs: number): void;
  onDecreaseReject(orderId: string, reject: ExecReject): void;
  /**
   * Added beyond the lead's contract: an amend or decrease whose fate is unknown. When a listener
   * does not implement them, the transport calls onAmendReject/onDecreaseReject with `status: 0`
   * and `code` = the ExecErrorCode instead; status 0 means "not an exchange answer, fate unknown,
   * reconcile", except a message starting "not sent": the request was never written, so nothing
   * was applied (a plain reject).
   */
  onAmendUnknown?(orderId: string, code: ExecErrorCode): void;
  onDecreaseUnknown?(orderId: string, code: ExecErrorCode): void;
  /**
   * Around the answers of one read (one response, one FIX message, one batch): the OMS holds the
   * strategies' order updates until answersEnd and tells them then, in the transport's callback,
   * rather than scheduling a microtask per answer (a promise reaction of garbage each). Optional;
   * a transport that never calls them gets the microtask. answersEnd comes after the transport has
   * freed what the answer held, so a strategy may send from its update.
   */
  answersBegin?(): void;
  answersEnd?(): void;
}

export type OrderStatus = 'resting' | 'canceled' | 'executed';

export interface OrdersQuery {
  ticker?: string;
  status?: OrderStatus;
  subaccount?: number;
  minTs?: number; // unix seconds
}
export interface FillsQuery {
  ticker?: string;
  orderId?: string;
  minTs?: number; // unix seconds
  subaccount?: number;
}
export interface PositionsQuery {
  ticker?: string;
  subaccount?: number;
}

/** GET /portfolio/orders item (spec/rest.md §4) in core units. */
export interface WireOrder {
  orderId: string;
  clientOrderId: string;
  ticker: string;
  side: BookSide; // book_side
  price: Price; // yes_price_dollars
  status: OrderStatus;
  fillCount: Count;
  remainingCount: Count;
  initialCount: Count;
  subaccount: number; // subaccount_number, 0 when absent
  orderGroupId: string | null;
  createdTimeMs: number; // created_time, 0 when absent
}

/** GET /portfolio/fills item (spec/rest.md §4) in core units. */
export interface WireFill {
  fillId: string;
  orderId: string;
  ticker: string;
  side: BookSide; // book_side
  price: Price; // yes_price_dollars
  count: Count; // count_fp
  isTaker: boolean;
  feeCenticents: Centicents; // fee_cost
  tsMs: number; // created_time, else ts * 1000, else 0
  subaccount: number; // subaccount_number, 0 when absent or null
}

/** GET /portfolio/positions market_positions item (spec/rest.md §6) in core units. */
export interface WirePosition {
  ticker: string;
  position: Count; // position_fp, signed: + long YES, - long NO
  subaccount: number; // the query's subaccount (the exchange does not echo it), 0 when not given
}

/** The venue reads the OMS reconciles with (off the hot path). */
export interface OrderReads {
  listOrders(query: OrdersQuery): Promise<WireOrder[]>;
  listFills(query: FillsQuery): Promise<WireFill[]>;
  listPositions(query: PositionsQuery): Promise<WirePosition[]>;
}

/** The order-entry port: one implementation per route (REST today, FIX next). Reads live apart (OrderReads). */
export interface OrderEntry {
  setListener(listener: ExecListener): void;
  create(order: Readonly<NewOrder>): void; // synchronous: encoded, signed and queued on the socket before return (REST: written in the same loop turn, see rest-order-entry.ts)
  cancel(orderId: string, subaccount: number): void;
  /**
   * cancel() of an order the route reads by VenueOrderRef: its id's bytes written into the request,
   * its answers keyed by its handle (OrderKey) when it has one. Optional: without it, cancel().
   */
  cancelOrder?(order: Readonly<VenueOrderRef>): void;
  amend(orderId: string, ticker: string, side: BookSide, price: Price, count: Count, subaccount: number): void;
  decrease(orderId: string, reduceBy: Count, subaccount: number): void;
  cancelAll(subaccount: number | null): Promise<void>; // kill switch, DELETE /portfolio/events/orders
  /** False when a create now would be signed on the event loop (presigned signatures used up): the router holds it for a batch. */
  createReady?(): boolean;
  /** True while every connection is busy and requests already wait for one: the router keeps held intents held (latest wins) rather than queue more. */
  saturated?(): boolean;
  /** False when a cancel of this order now would be signed on the event loop: the router collects it into a batch cancel at the end of the turn. */
  cancelReady?(order: Readonly<VenueOrderRef>): boolean;
  /** V2 batch create, where the venue has it: each order's outcome is reported as for create(). */
  createBatch?(orders: readonly Readonly<NewOrder>[]): void;
  /** V2 batch cancel of one subaccount's orders, where the venue has it: each outcome as for cancel(). */
  cancelBatch?(orderIds: readonly string[], subaccount: number): void;
}

/** A failure of a promise-returning exec call (reads, cancel-all, order groups, connect). */
export class ExecError extends Error {
  readonly code: ExecErrorCode;
  readonly status: number; // HTTP status, 0 when there was no response
  readonly reject: ExecReject | null; // the exchange's error body when it sent one
  constructor(code: ExecErrorCode, message: string, status = 0, reject: ExecReject | null = null) {
    super(message);
    this.name = 'ExecError';
    this.code = code;
    this.status = status;
    this.reject = reject;
  }
}
