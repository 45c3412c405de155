/**
 * Decoding of the exchange's REST responses into exec records and core units: error bodies in
 * every shape the exchange sends (spec/rest.md §2), V2 order acks (§3), and the Order, Fill and
 * MarketPosition objects of the reconciliation reads (§4, §6). Counts and prices are scanned by
 * core's parsers, never through floats.
 *
 * Owns decoding only; never performs I/O or decides outcomes (rest-order-entry.ts maps a status
 * and a decoded body to a listener callback). A body that does not parse or lacks a required field
 * yields `null` (acks) or throws ExecError EXEC_BAD_RESPONSE (reads).
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
  type Count,
} from '../../core/index.ts';
import {
  ExecError,
  type ExecReject,
  type OrderStatus,
  type WireFill,
  type WireOrder,
  type WirePosition,
} from '../../oms/index.ts';

type JsonObject = Record<string, unknown>;

const TEXT_IN_MESSAGE_MAX = 200; // of an unparsable body quoted in a reject message

/** JSON.parse that returns null instead of throwing, and only objects. */
export function parseJsonObject(text: string): JsonObject | null {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return null;
  }
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as JsonObject) : null;
}

function stringField(object: JsonObject, name: string): string {
  const value = object[name];
  return typeof value === 'string' ? value : '';
}

/**
 * The exchange's error body as an ExecReject. Shapes: nested {"error":{code,message,details}},
 * flat {code,message,details}, bare {"msg":...}, 429's {"error":"too many requests"}, or no JSON.
 * `code` falls back to an ExecErrorCode when the body names none: EXEC_RATE_LIMITED for 429,
 * EXEC_BAD_RESPONSE for a body that is not JSON, EXEC_REJECTED otherwise.
 */
export function parseErrorBody(status: number, text: string): ExecReject {
  const fallbackCode = status === 429 ? 'EXEC_RATE_LIMITED' : 'EXEC_REJECTED';
  const body = parseJsonObject(text);
  if (body === null) {
    return {
      status,
      code: status === 429 ? 'EXEC_RATE_LIMITED' : 'EXEC_BAD_RESPONSE',
      message: text.length > TEXT_IN_MESSAGE_MAX ? text.slice(0, TEXT_IN_MESSAGE_MAX) : text,
      details: '',
    };
  }
  const nested = body['error'];
  if (typeof nested === 'object' && nested !== null && !Array.isArray(nested)) {
    return errorFields(status, nested as JsonObject, fallbackCode);
  }
  if (typeof nested === 'string') {
    return { status, code: fallbackCode, message: nested, details: '' };
  }
  if (typeof body['code'] === 'string' || typeof body['message'] === 'string') {
    return errorFields(status, body, fallbackCode);
  }
  return { status, code: fallbackCode, message: stringField(body, 'msg'), details: '' };
}

/** A batch item's `error` object (flat ErrorResponse) as an ExecReject, or null when absent. */
export function parseItemError(status: number, item: JsonObject): ExecReject | null {
  const error = item['error'];
  if (error === undefined || error === null) return null;
  if (typeof error === 'object' && !Array.isArray(error)) return errorFields(status, error as JsonObject, 'EXEC_REJECTED');
  return { status, code: 'EXEC_REJECTED', message: String(error), details: '' };
}

function errorFields(status: number, object: JsonObject, fallbackCode: string): ExecReject {
  const code = stringField(object, 'code');
  return {
    status,
    code: code === '' ? fallbackCode : code,
    message: stringField(object, 'message'),
    details: stringField(object, 'details'),
  };
}

/** Reused record the ack decoders fill: one per RestOrderEntry. */
export interface AckRecord {
  orderId: string;
  clientOrderId: string;
  fillCount: Count;
  remainingCount: Count;
  reducedBy: Count;
  tsMs: number;
}

export function newAckRecord(): AckRecord {
  return { orderId: '', clientOrderId: '', fillCount: 0 as Count, remainingCount: 0 as Count, reducedBy: 0 as Count, tsMs: 0 };
}

function integerField(object: JsonObject, name: string): number {
  const value = object[name];
  return typeof value === 'number' && Number.isSafeInteger(value) ? value : -1;
}

/** A count that must be a string; COUNT_INVALID otherwise (the Margin wire reads it too). */
export function countField(object: JsonObject, name: string): Count {
  const value = object[name];
  return typeof value === 'string' ? parseCount(value) : COUNT_INVALID;
}

/** CreateOrderV2Response (or a batch create item): order_id, fill_count, remaining_count, ts_ms required. */
export function readCreateAck(object: JsonObject, out: AckRecord): boolean {
  out.orderId = stringField(object, 'order_id');
  out.clientOrderId = stringField(object, 'client_order_id');
  out.fillCount = countField(object, 'fill_count');
  out.remainingCount = countField(object, 'remaining_count');
  out.tsMs = integerField(object, 'ts_ms');
  return out.orderId !== '' && out.fillCount !== COUNT_INVALID && out.remainingCount !== COUNT_INVALID && out.tsMs >= 0;
}

/** CancelOrderV2Response (or a batch cancel item): order_id, reduced_by required; ts_ms 0 when absent. */
export function readCancelAck(object: JsonObject, out: AckRecord): boolean {
  out.orderId = stringField(object, 'order_id');
  out.reducedBy = countField(object, 'reduced_by');
  const tsMs = integerField(object, 'ts_ms');
  out.tsMs = tsMs < 0 ? 0 : tsMs;
  return out.orderId !== '' && out.reducedBy !== COUNT_INVALID;
}

/**
 * AmendOrderV2Response. remaining_count and fill_count appear only when the amend changed them
 * (spec/rest.md §3): absent fields come back as COUNT_INVALID so the OMS keeps its own values.
 */
export function readAmendAck(object: JsonObject, out: AckRecord): boolean {
  out.orderId = stringField(object, 'order_id');
  out.fillCount = object['fill_count'] === undefined ? COUNT_INVALID : countField(object, 'fill_count');
  out.remainingCount = object['remaining_count'] === undefined ? COUNT_INVALID : countField(object, 'remaining_count');
  out.tsMs = integerField(object, 'ts_ms');
  const fillOk = object['fill_count'] === undefined || out.fillCount !== COUNT_INVALID;
  const remainingOk = object['remaining_count'] === undefined || out.remainingCount !== COUNT_INVALID;
  return out.orderId !== '' && out.tsMs >= 0 && fillOk && remainingOk;
}

/** DecreaseOrderV2Response: remaining_count, ts_ms required. */
export function readDecreaseAck(object: JsonObject, out: AckRecord): boolean {
  out.orderId = stringField(object, 'order_id');
  out.remainingCount = countField(object, 'remaining_count');
  out.tsMs = integerField(object, 'ts_ms');
  return out.remainingCount !== COUNT_INVALID && out.tsMs >= 0;
}

// ---- reads (off the hot path: allocate freely, throw ExecError on malformed data) ----

export function bad(what: string): ExecError {
  return new ExecError('EXEC_BAD_RESPONSE', `bad response: ${what}`);
}

export function requireString(object: JsonObject, name: string, what: string): string {
  const value = object[name];
  if (typeof value !== 'string') throw bad(`${what}.${name} must be a string`);
  return value;
}

export function requireCountField(object: JsonObject, name: string, what: string): Count {
  const count = parseCount(requireString(object, name, what));
  if (count === COUNT_INVALID) throw bad(`${what}.${name} is not an fp count`);
  return count;
}

function optionalSubaccount(object: JsonObject): number {
  const value = object['subaccount_number'];
  return typeof value === 'number' && Number.isInteger(value) ? value : 0;
}

export function timeMs(text: unknown): number {
  if (typeof text !== 'string' || text === '') return 0;
  const ms = Date.parse(text); // RFC 3339 time, not a price: Date.parse is exact to the millisecond
  return Number.isNaN(ms) ? 0 : ms;
}

/**
 * book_side, else derived from the deprecated side/action pair (buy yes and sell no are bids on the
 * YES book; buy no and sell yes are asks).
 */
function bookSideOf(object: JsonObject, what: string): BookSide {
  const bookSide = object['book_side'];
  if (bookSide === 'bid' || bookSide === 'ask') return bookSide;
  const side = object['side'];
  const action = object['action'];
  if ((side === 'yes' || side === 'no') && (action === 'buy' || action === 'sell')) {
    return (side === 'yes') === (action === 'buy') ? 'bid' : 'ask';
  }
  throw bad(`${what}.book_side must be bid or ask`);
}

function yesPrice(object: JsonObject, what: string) {
  const price = parsePrice(requireString(object, 'yes_price_dollars', what));
  if (price === PRICE_INVALID) throw bad(`${what}.yes_price_dollars is not a dollars price`);
  return price;
}

const ORDER_STATUSES: readonly string[] = ['resting', 'canceled', 'executed'];

export function parseWireOrder(object: JsonObject): WireOrder {
  const status = requireString(object, 'status', 'order');
  if (!ORDER_STATUSES.includes(status)) throw bad(`order.status "${status}" is not resting|canceled|executed`);
  const groupId = object['order_group_id'];
  return {
    orderId: requireString(object, 'order_id', 'order'),
    clientOrderId: typeof object['client_order_id'] === 'string' ? object['client_order_id'] : '',
    ticker: requireString(object, 'ticker', 'order'),
    side: bookSideOf(object, 'order'),
    price: yesPrice(object, 'order'),
    status: status as OrderStatus,
    fillCount: requireCountField(object, 'fill_count_fp', 'order'),
    remainingCount: requireCountField(object, 'remaining_count_fp', 'order'),
    initialCount: requireCountField(object, 'initial_count_fp', 'order'),
    subaccount: optionalSubaccount(object),
    orderGroupId: typeof groupId === 'string' && groupId !== '' ? groupId : null,
    createdTimeMs: timeMs(object['created_time']),
  };
}

export function parseWireFill(object: JsonObject): WireFill {
  const fee = parseDollars(requireString(object, 'fee_cost', 'fill'));
  if (fee === CENTICENTS_INVALID) throw bad('fill.fee_cost is not a dollars amount');
  const isTaker = object['is_taker'];
  if (typeof isTaker !== 'boolean') throw bad('fill.is_taker must be a boolean');
  let tsMs = timeMs(object['created_time']);
  const tsSeconds = object['ts'];
  if (tsMs === 0 && typeof tsSeconds === 'number' && Number.isSafeInteger(tsSeconds)) tsMs = tsSeconds * 1000;
  const ticker = typeof object['ticker'] === 'string' ? object['ticker'] : requireString(object, 'market_ticker', 'fill');
  return {
    fillId: typeof object['fill_id'] === 'string' ? object['fill_id'] : requireString(object, 'trade_id', 'fill'),
    orderId: requireString(object, 'order_id', 'fill'),
    ticker,
    side: bookSideOf(object, 'fill'),
    price: yesPrice(object, 'fill'),
    count: requireCountField(object, 'count_fp', 'fill'),
    isTaker,
    feeCenticents: fee,
    tsMs,
    subaccount: optionalSubaccount(object),
  };
}

export function parseWirePosition(object: JsonObject, subaccount: number): WirePosition {
  const position = parseSignedCount(requireString(object, 'position_fp', 'market_position'));
  if (position === COUNT_INVALID) throw bad('market_position.position_fp is not a signed fp count');
  return { ticker: requireString(object, 'ticker', 'market_position'), position, subaccount };
}

/** A page of a list read: its items and the next cursor ('' on the last page). */
export function readPage(body: JsonObject, listName: string): { items: JsonObject[]; cursor: string } {
  const list = body[listName];
  if (list === undefined || list === null) return { items: [], cursor: stringField(body, 'cursor') };
  if (!Array.isArray(list)) throw bad(`${listName} must be an array`);
  for (const item of list) {
    if (typeof item !== 'object' || item === null || Array.isArray(item)) throw bad(`${listName} items must be objects`);
  }
  return { items: list as JsonObject[], cursor: stringField(body, 'cursor') };
}

/**
 * Follows `cursor` until it is empty (or repeats), at most pagesMax pages of `limit` items, each
 * page one `get` (the signed client's, or the budgeted client's paced one).
 */
export async function readAllPages(
  get: (target: string) => Promise<JsonObject | null>, path: string, params: URLSearchParams, listName: string, limit: number, pagesMax: number,
): Promise<JsonObject[]> {
  const all: JsonObject[] = [];
  const seen = new Set<string>();
  params.set('limit', String(limit));
  for (let page = 0; page < pagesMax; page++) {
    const body = await get(`${path}?${params.toString()}`);
    if (body === null) throw new ExecError('EXEC_BAD_RESPONSE', `bad response: ${path} returned no body`);
    const { items, cursor } = readPage(body, listName);
    for (const item of items) all.push(item);
    if (cursor === '' || seen.has(cursor)) return all;
    seen.add(cursor);
    params.set('cursor', cursor);
  }
  throw new ExecError('EXEC_BAD_RESPONSE', `bad response: ${path} still paging after ${pagesMax} pages`);
}
