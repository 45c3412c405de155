/**
 * Decoding of the Margin exchange's REST answers (margin-api.openapi.yaml) into the order-entry
 * port's records and core units: the order acks (CreateMarginOrderResponse,
 * AmendMarginOrderResponse, DecreaseMarginOrderResponse; CancelMarginOrderResponse has the
 * Predictions shape and uses wire-parse's reader) and the reads (MarginOrder, MarginFill,
 * MarginPosition) as the port's WireOrder / WireFill / WirePosition, extended with the Margin
 * fields the port does not have (order_source, order_reason, last_update_reason, entry price,
 * realized pnl). Prices are scanned by core's parsePrice, never through floats: "100000.0000" is
 * 1e9 units, a safe integer (prices are not capped at $1 here).
 *
 * What differs from the Predictions wire (why wire-parse.ts's readers are not reused for these):
 * - the acks carry no ts_ms: tsMs is 0 ("not given"), as the Predictions cancel ack already is;
 * - the amend's remaining_count/fill_count are null (not absent) when the amend neither filled nor
 *   changed the size: null reads as COUNT_INVALID ("unchanged, keep yours");
 * - prices are `price`, counts `fill_count`/`remaining_count`/`count`/`position`, fees `fees`;
 * - a MarginOrder has no status and no initial count: status is derived (remaining > 0: resting;
 *   else last_update_reason Trade: executed; else canceled) unless the read asked for one status,
 *   and initialCount is fill + remaining (exact while resting or executed, a lower bound for a
 *   cancelled order: the venue does not report what was cancelled);
 * - fills carry no subaccount: the query's subaccount (0 when not given) is reported.
 *
 * Owns decoding only: no I/O. Acks return false for a body lacking a required field; reads throw
 * ExecError EXEC_BAD_RESPONSE.
 */

import {
  CENTICENTS_INVALID,
  COUNT_INVALID,
  PRICE_INVALID,
  parseCount,
  parseDollars,
  parsePrice,
  parseSignedCount,
  type BookSide,
  type Centicents,
  type Count,
  type Price,
} from '../../core/index.ts';
import type { OrderStatus, WireFill, WireOrder, WirePosition } from '../../oms/index.ts';
import { bad, countField, requireCountField, requireString, timeMs, type AckRecord } from '../rest/wire-parse.ts';

type JsonObject = Record<string, unknown>;

/** A MarginOrder: the port's WireOrder plus the Margin fields. */
export interface MarginWireOrder extends WireOrder {
  orderSource: string | null; // order_source: 'user' | 'system' (null when absent)
  orderReason: string | null; // order_reason, system orders only: 'liquidation' | 'take_profit_stop_loss'
  lastUpdateReason: string; // last_update_reason ('' when absent)
}

/** A MarginFill: the port's WireFill plus the Margin fields. */
export interface MarginWireFill extends WireFill {
  orderSource: string | null;
  entryPrice: Price; // entry_price, PRICE_INVALID when absent
  realizedPnlCenticents: Centicents; // realized_pnl, CENTICENTS_INVALID when absent
}

/** A MarginPosition: the port's WirePosition plus the Margin fields. */
export interface MarginWirePosition extends WirePosition {
  entryPrice: Price; // entry_price, PRICE_INVALID when absent
  isPortfolio: boolean;
}

function stringField(object: JsonObject, name: string): string {
  const value = object[name];
  return typeof value === 'string' ? value : '';
}

function optionalTsMs(object: JsonObject): number {
  const value = object['ts_ms'];
  return typeof value === 'number' && Number.isSafeInteger(value) && value >= 0 ? value : 0;
}

// ---- acks (hot path: fill the reused AckRecord, allocate nothing) ----

/** CreateMarginOrderResponse: order_id, fill_count, remaining_count required; ts_ms 0 (not sent). */
export function readMarginCreateAck(object: JsonObject, out: AckRecord): boolean {
  out.orderId = stringField(object, 'order_id');
  out.clientOrderId = stringField(object, 'client_order_id');
  out.fillCount = countField(object, 'fill_count');
  out.remainingCount = countField(object, 'remaining_count');
  out.tsMs = optionalTsMs(object);
  return out.orderId !== '' && out.fillCount !== COUNT_INVALID && out.remainingCount !== COUNT_INVALID;
}

/**
 * AmendMarginOrderResponse: order_id required. remaining_count (after immediate fills) and
 * fill_count are null or absent when the amend neither filled nor changed the size: COUNT_INVALID,
 * so the OMS keeps its own counts. A value present but not a count is a bad response.
 */
export function readMarginAmendAck(object: JsonObject, out: AckRecord): boolean {
  out.orderId = stringField(object, 'order_id');
  const fill = object['fill_count'];
  const remaining = object['remaining_count'];
  out.fillCount = fill === undefined || fill === null ? COUNT_INVALID : countField(object, 'fill_count');
  out.remainingCount = remaining === undefined || remaining === null ? COUNT_INVALID : countField(object, 'remaining_count');
  out.tsMs = optionalTsMs(object);
  const fillOk = fill === undefined || fill === null || out.fillCount !== COUNT_INVALID;
  const remainingOk = remaining === undefined || remaining === null || out.remainingCount !== COUNT_INVALID;
  return out.orderId !== '' && fillOk && remainingOk;
}

/** DecreaseMarginOrderResponse: remaining_count required; ts_ms 0 (not sent). */
export function readMarginDecreaseAck(object: JsonObject, out: AckRecord): boolean {
  out.orderId = stringField(object, 'order_id');
  out.remainingCount = countField(object, 'remaining_count');
  out.tsMs = optionalTsMs(object);
  return out.remainingCount !== COUNT_INVALID;
}

// ---- reads (off the hot path: allocate freely, throw on malformed data) ----

function requirePrice(object: JsonObject, name: string, what: string): Price {
  const price = parsePrice(requireString(object, name, what));
  if (price === PRICE_INVALID) throw bad(`${what}.${name} is not a dollars price (4 decimals at most, safe integer units)`);
  return price;
}

function optionalPrice(object: JsonObject, name: string): Price {
  const value = object[name];
  return typeof value === 'string' ? parsePrice(value) : PRICE_INVALID;
}

function optionalDollars(object: JsonObject, name: string): Centicents {
  const value = object[name];
  return typeof value === 'string' ? parseDollars(value) : CENTICENTS_INVALID;
}

function optionalText(object: JsonObject, name: string): string | null {
  const value = object[name];
  return typeof value === 'string' && value !== '' ? value : null;
}

function bookSide(object: JsonObject, what: string): BookSide {
  const side = object['side'];
  if (side === 'bid' || side === 'ask') return side;
  throw bad(`${what}.side must be bid or ask`);
}

function subaccountOf(object: JsonObject, fallback: number): number {
  for (const name of ['subaccount', 'subaccount_number']) {
    const value = object[name];
    if (typeof value === 'number' && Number.isInteger(value)) return value;
  }
  return fallback;
}

const ORDER_STATUSES: readonly string[] = ['resting', 'canceled', 'executed'];

/**
 * MarginOrder -> MarginWireOrder. `status`: the order's own field when the venue sends one, else
 * `statusAsked` (the read filtered by it), else derived from remaining_count and last_update_reason.
 */
export function parseMarginOrder(object: JsonObject, subaccount: number, statusAsked: OrderStatus | null): MarginWireOrder {
  const fillCount = requireCountField(object, 'fill_count', 'margin_order');
  const remainingCount = requireCountField(object, 'remaining_count', 'margin_order');
  const lastUpdateReason = stringField(object, 'last_update_reason');
  const own = object['status'];
  let status: OrderStatus;
  if (typeof own === 'string' && ORDER_STATUSES.includes(own)) status = own as OrderStatus;
  else if (statusAsked !== null) status = statusAsked;
  else if (remainingCount > 0) status = 'resting';
  else status = lastUpdateReason === 'Trade' ? 'executed' : 'canceled';
  return {
    orderId: requireString(object, 'order_id', 'margin_order'),
    clientOrderId: stringField(object, 'client_order_id'),
    ticker: requireString(object, 'ticker', 'margin_order'),
    side: bookSide(object, 'margin_order'),
    price: requirePrice(object, 'price', 'margin_order'),
    status,
    fillCount,
    remainingCount,
    initialCount: (fillCount + remainingCount) as Count,
    subaccount: subaccountOf(object, subaccount),
    orderGroupId: optionalText(object, 'order_group_id'),
    createdTimeMs: timeMs(object['created_time']),
    orderSource: optionalText(object, 'order_source'),
    orderReason: optionalText(object, 'order_reason'),
    lastUpdateReason,
  };
}

/** MarginFill -> MarginWireFill; `subaccount` is the read's (fills are not tagged with one). */
export function parseMarginFill(object: JsonObject, subaccount: number): MarginWireFill {
  const fee = parseDollars(requireString(object, 'fees', 'margin_fill'));
  if (fee === CENTICENTS_INVALID) throw bad('margin_fill.fees is not a dollars amount');
  const isTaker = object['is_taker'];
  if (typeof isTaker !== 'boolean') throw bad('margin_fill.is_taker must be a boolean');
  return {
    fillId: requireString(object, 'fill_id', 'margin_fill'),
    orderId: requireString(object, 'order_id', 'margin_fill'),
    ticker: requireString(object, 'ticker', 'margin_fill'),
    side: bookSide(object, 'margin_fill'),
    price: requirePrice(object, 'price', 'margin_fill'),
    count: requireCountField(object, 'count', 'margin_fill'),
    isTaker,
    feeCenticents: fee,
    tsMs: timeMs(object['created_time']),
    subaccount: subaccountOf(object, subaccount),
    orderSource: optionalText(object, 'order_source'),
    entryPrice: optionalPrice(object, 'entry_price'),
    realizedPnlCenticents: optionalDollars(object, 'realized_pnl'),
  };
}

/** MarginPosition -> MarginWirePosition: position signed (+ long, - short), whole contracts in count units. */
export function parseMarginPosition(object: JsonObject, subaccount: number): MarginWirePosition {
  const position = parseSignedCount(requireString(object, 'position', 'margin_position'));
  if (position === COUNT_INVALID) throw bad('margin_position.position is not a signed fp count');
  return {
    ticker: requireString(object, 'market_ticker', 'margin_position'),
    position,
    subaccount: subaccountOf(object, subaccount),
    entryPrice: optionalPrice(object, 'entry_price'),
    isPortfolio: object['is_portfolio'] === true,
  };
}
