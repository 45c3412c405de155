/**
 * Hand-written JSON encoders for the V2 order bodies (spec/rest.md §3), prices and counts as
 * fixed-point strings (as the exchange requires: numeric JSON is a 400), enums checked against
 * their closed sets, free text (tickers, ids) quoted as JSON strings. The hot path's bodies
 * (create, amend, a single cancel) are written as bytes straight into the request buffer (the
 * *BodyWriter classes, core/ascii-bytes.ts): no string per order. Their string forms come from
 * the same writers; the rarer bodies are templates. The field order is fixed.
 * test/exec/order-body.test.ts checks every encoder against JSON.parse, and the bytes against the
 * strings.
 *
 * Owns encoding only. Never validates against a market (grid, limits: the risk gate does) and never
 * sends anything. An impossible field (price outside (0, 1), count <= 0, unknown enum, subaccount
 * outside 0..63) is a caller bug past the risk gate: it throws InvariantError (STYLE §4.3).
 */

import { asciiConst, assert, formatCount, formatPrice, jsonStringBytesMax, writeAscii, writeBytes, writeFixed, writeInteger, writeJsonString, type BookSide, type Count, type Price } from '../../core/index.ts';
import type { BodyWriter } from '../../net/index.ts';
import { CLIENT_ORDER_ID_BYTES_MAX, VENUE_ID_BYTES_MAX } from '../../oms/index.ts';
import type { NewOrder, SelfTradePrevention, TimeInForce, VenueOrderRef } from '../../oms/index.ts';

const SUBACCOUNT_MAX = 63;

/**
 * JSON string literal of `text`. Printable ASCII without '"' or '\' (every real ticker and UUID)
 * is wrapped as is; anything else goes through JSON.stringify, which escapes quotes, controls
 * and lone surrogates correctly.
 */
export function jsonString(text: string): string {
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code < 0x20 || code > 0x7e || code === 0x22 || code === 0x5c) return JSON.stringify(text);
  }
  return `"${text}"`;
}

function checkSide(side: BookSide): void {
  assert(side === 'bid' || side === 'ask', 'order body: side must be bid or ask');
}

function checkPrice(price: Price): void {
  assert(Number.isSafeInteger(price), 'order body: price must be an integer');
  assert(price > 0 && price < 10_000, 'order body: price must lie strictly between $0 and $1');
}

function checkCount(count: Count): void {
  assert(Number.isSafeInteger(count), 'order body: count must be an integer');
  assert(count > 0, 'order body: count must be positive');
}

function checkSubaccount(subaccount: number): void {
  assert(Number.isInteger(subaccount), 'order body: subaccount must be an integer');
  assert(subaccount >= 0 && subaccount <= SUBACCOUNT_MAX, 'order body: subaccount must be in 0..63');
}

function checkTimeInForce(timeInForce: TimeInForce): void {
  assert(
    timeInForce === 'good_till_canceled' || timeInForce === 'immediate_or_cancel' || timeInForce === 'fill_or_kill',
    'order body: unknown time_in_force',
  );
}

function checkSelfTradePrevention(value: SelfTradePrevention): void {
  assert(value === 'taker_at_cross' || value === 'maker', 'order body: unknown self_trade_prevention_type');
}

/**
 * The Predictions exchange's rules for a create body, as asserts (the gate has checked them: a
 * breach is a caller bug). Runs before anything is sent, so a body writer never throws mid-request.
 */
export function checkCreateOrder(order: Readonly<NewOrder>): void {
  checkSide(order.side);
  checkPrice(order.price);
  checkCount(order.count);
  checkTimeInForce(order.timeInForce);
  checkSelfTradePrevention(order.selfTradePrevention);
  checkSubaccount(order.subaccount);
  assert(Number.isSafeInteger(order.expirationTs) && order.expirationTs >= 0, 'order body: expirationTs must be unix seconds or 0');
  assert(order.expirationTs === 0 || order.timeInForce === 'good_till_canceled', 'order body: expiration only with good_till_canceled');
}

/**
 * CreateOrderV2Request. Optional fields are sent only when they say something: post_only and
 * reduce_only when true, subaccount when not 0 (a restricted key must omit it or send its own),
 * order_group_id when set, expiration_time (unix seconds) when > 0 and the order is GTC.
 */
export function encodeCreateOrder(order: Readonly<NewOrder>): string {
  checkCreateOrder(order);
  return writeCreateBody(order);
}

/** The create body's fixed keys and punctuation, and the digits its numbers can take, at most (bytes). */
const CREATE_BODY_FIXED_MAX = 400;

// The bodies' constant pieces as bytes, made once.
const K_TICKER = asciiConst('{"ticker":');
const K_CLIENT_ORDER_ID = asciiConst(',"client_order_id":');
const K_SIDE_BID_COUNT = asciiConst(',"side":"bid","count":"');
const K_SIDE_ASK_COUNT = asciiConst(',"side":"ask","count":"');
const K_PRICE = asciiConst('","price":"');
const K_SIDE_BID_PRICE = asciiConst(',"side":"bid","price":"');
const K_SIDE_ASK_PRICE = asciiConst(',"side":"ask","price":"');
const K_COUNT = asciiConst('","count":"');
const K_END_STRING_OBJECT = asciiConst('"}');
const K_ORDERS_ORDER_ID = asciiConst('{"orders":[{"order_id":');
const K_ORDERS_END = asciiConst('}]}');

/**
 * A create body's tail after the price, for every known time in force, self-trade prevention and
 * post-only / reduce-only flags: one copy instead of up to six (each TypedArray set is ~40 ns on
 * this project's machine, measured; a byte loop was no faster). Index: createTailIndex.
 */
const CREATE_TIFS = ['good_till_canceled', 'immediate_or_cancel', 'fill_or_kill'] as const;
const CREATE_STPS = ['taker_at_cross', 'maker'] as const;
const CREATE_TAILS: readonly Uint8Array[] = CREATE_TIFS.flatMap((tif) => CREATE_STPS.flatMap((stp) => [0, 1, 2, 3].map((flags) =>
  asciiConst(`","time_in_force":"${tif}","self_trade_prevention_type":"${stp}"${(flags & 2) !== 0 ? ',"post_only":true' : ''}${(flags & 1) !== 0 ? ',"reduce_only":true' : ''}`))));

/** The order's tail in CREATE_TAILS; -1 for a time in force or self-trade prevention outside the types (the checks refuse them before any body is written). */
function createTailIndex(order: Readonly<NewOrder>): number {
  const tif = order.timeInForce;
  const tifIndex = tif === 'good_till_canceled' ? 0 : tif === 'immediate_or_cancel' ? 1 : tif === 'fill_or_kill' ? 2 : -1;
  const stp = order.selfTradePrevention;
  const stpIndex = stp === 'taker_at_cross' ? 0 : stp === 'maker' ? 1 : -1;
  if (tifIndex < 0 || stpIndex < 0) return -1;
  return (tifIndex * 2 + stpIndex) * 4 + (order.postOnly ? 2 : 0) + (order.reduceOnly ? 1 : 0);
}

/**
 * The create body both exchanges take (Predictions CreateOrderV2Request, Margin
 * CreateMarginOrderRequest), after the caller's own checks, as UTF-8 bytes at `at`: the offset
 * after them, or -1 when `out` has not the room. The optional fields only when they say something.
 */
export function writeCreateBodyInto(out: Buffer, at: number, order: Readonly<NewOrder>): number {
  const groupId = order.orderGroupId;
  // An OMS order writes its id's bytes itself (no id string made); any other NewOrder gives the text.
  const ownBytes = (order.handle ?? 0) > 0 && order.writeClientOrderId !== undefined;
  const room = CREATE_BODY_FIXED_MAX + jsonStringBytesMax(order.ticker) + (ownBytes ? CLIENT_ORDER_ID_BYTES_MAX + 2 : jsonStringBytesMax(order.clientOrderId)) + (groupId === null ? 0 : jsonStringBytesMax(groupId));
  if (at + room > out.length) return -1;
  at = writeBytes(out, at, K_TICKER);
  at = writeJsonString(out, at, order.ticker);
  at = writeBytes(out, at, K_CLIENT_ORDER_ID);
  at = ownBytes ? writeOwnClientOrderId(out, at, order) : writeJsonString(out, at, order.clientOrderId);
  at = writeBytes(out, at, order.side === 'bid' ? K_SIDE_BID_COUNT : K_SIDE_ASK_COUNT);
  at = writeFixed(out, at, order.count, 2);
  at = writeBytes(out, at, K_PRICE);
  at = writeFixed(out, at, order.price, 4);
  const tail = createTailIndex(order);
  assert(tail >= 0, 'order body: unknown time_in_force or self_trade_prevention_type (the checks refuse them first)');
  at = writeBytes(out, at, CREATE_TAILS[tail]!);
  if (order.subaccount !== 0) {
    at = writeAscii(out, at, ',"subaccount":');
    at = writeInteger(out, at, order.subaccount);
  }
  if (groupId !== null) {
    at = writeAscii(out, at, ',"order_group_id":');
    at = writeJsonString(out, at, groupId);
  }
  if (order.expirationTs !== 0) {
    at = writeAscii(out, at, ',"expiration_time":');
    at = writeInteger(out, at, order.expirationTs);
  }
  out[at++] = 0x7d; // }
  return at;
}

/** The bodies made as strings (batches, queued requests, rehearsal) are written here first: one encoder for both forms. */
let scratch = Buffer.allocUnsafe(4096);

/** What `write` writes at the start of the scratch buffer (grown until it fits), as a string. */
function scratchText(write: (out: Buffer) => number): string {
  let end = write(scratch);
  while (end < 0) {
    scratch = Buffer.allocUnsafe(scratch.length * 2);
    end = write(scratch);
  }
  return scratch.toString('utf8', 0, end);
}

/** As writeCreateBodyInto, as a string (a batch's element, a request that waits in a queue). */
export function writeCreateBody(order: Readonly<NewOrder>): string {
  return scratchText((out) => writeCreateBodyInto(out, 0, order));
}

/**
 * A create's body as a BodyWriter (src/net/request-bytes.ts): the route sets `order` for the one
 * request it sends, and the pool writes the bytes straight into the connection's buffer.
 */
export class CreateBodyWriter implements BodyWriter {
  order: Readonly<NewOrder> | null = null;

  writeInto(out: Buffer, at: number): number {
    return writeCreateBodyInto(out, at, this.order!);
  }

  text(): string {
    return writeCreateBody(this.order!);
  }
}

/** POST /portfolio/events/orders/batched body: {"orders":[CreateOrderV2Request...]}. */
export function encodeBatchCreate(orders: readonly Readonly<NewOrder>[]): string {
  assert(orders.length > 0, 'order body: a batch needs at least one order');
  let body = '{"orders":[';
  for (let i = 0; i < orders.length; i++) {
    if (i > 0) body += ',';
    body += encodeCreateOrder(orders[i]!);
  }
  return `${body}]}`;
}

/** AmendOrderV2Request's rules, as asserts (see checkCreateOrder). */
export function checkAmend(side: BookSide, price: Price, count: Count): void {
  checkSide(side);
  checkPrice(price);
  checkCount(count);
}

/** AmendOrderV2Request; `count` is the new total (filled + desired resting). */
export function encodeAmend(ticker: string, side: BookSide, price: Price, count: Count): string {
  checkAmend(side, price, count);
  return writeAmendBody(ticker, side, price, count);
}

/** The amend body both exchanges take (AmendOrderV2Request, AmendMarginOrderRequest) as bytes at `at`, after the caller's checks; -1 without the room. */
export function writeAmendBodyInto(out: Buffer, at: number, ticker: string, side: BookSide, price: Price, count: Count): number {
  if (at + 100 + jsonStringBytesMax(ticker) > out.length) return -1;
  at = writeBytes(out, at, K_TICKER);
  at = writeJsonString(out, at, ticker);
  at = writeBytes(out, at, side === 'bid' ? K_SIDE_BID_PRICE : K_SIDE_ASK_PRICE);
  at = writeFixed(out, at, price, 4);
  at = writeBytes(out, at, K_COUNT);
  at = writeFixed(out, at, count, 2);
  return writeBytes(out, at, K_END_STRING_OBJECT);
}

/** As writeAmendBodyInto, as a string. */
export function writeAmendBody(ticker: string, side: BookSide, price: Price, count: Count): string {
  return scratchText((out) => writeAmendBodyInto(out, 0, ticker, side, price, count));
}

/** An amend's body as a BodyWriter (see CreateBodyWriter). */
export class AmendBodyWriter implements BodyWriter {
  ticker = '';
  side: BookSide = 'bid';
  price = 0 as Price;
  count = 0 as Count;

  writeInto(out: Buffer, at: number): number {
    return writeAmendBodyInto(out, at, this.ticker, this.side, this.price, this.count);
  }

  text(): string {
    return writeAmendBody(this.ticker, this.side, this.price, this.count);
  }
}

/** DecreaseOrderV2Request with reduce_by (the exchange takes exactly one of reduce_by, reduce_to). */
export function encodeDecrease(reduceBy: Count): string {
  checkCount(reduceBy);
  return `{"reduce_by":"${formatCount(reduceBy)}"}`;
}

/** DELETE /portfolio/events/orders/batched body: {"orders":[{"order_id":..,"subaccount"?:..}]}. */
export function encodeBatchCancel(orderIds: readonly string[], subaccount: number): string {
  assert(orderIds.length > 0, 'order body: a batch needs at least one order id');
  checkSubaccount(subaccount);
  const tail = subaccount === 0 ? '}' : `,"subaccount":${subaccount}}`;
  let body = '{"orders":[';
  for (let i = 0; i < orderIds.length; i++) {
    if (i > 0) body += ',';
    body += `{"order_id":${jsonString(orderIds[i]!)}${tail}`;
  }
  return `${body}]}`;
}

/**
 * The batched DELETE's body for one order (what a single cancel sends there) as bytes at `at`; -1
 * without the room. The id is `order`'s bytes when given and it has them (its string never made),
 * else the text `orderId` (or `order.orderId`).
 */
export function writeOneCancelBodyInto(out: Buffer, at: number, orderId: string, subaccount: number, order: Readonly<VenueOrderRef> | null = null): number {
  if (at + 60 + (order !== null ? VENUE_ID_BYTES_MAX : jsonStringBytesMax(orderId)) > out.length) return -1;
  at = writeBytes(out, at, K_ORDERS_ORDER_ID);
  const idEnd = order === null ? -1 : order.writeOrderId(out, at + 1);
  if (idEnd > 0) {
    out[at] = 0x22;
    out[idEnd] = 0x22;
    at = idEnd + 1;
  } else {
    const text = order === null ? orderId : order.orderId;
    if (at + 60 + jsonStringBytesMax(text) > out.length) return -1;
    at = writeJsonString(out, at, text);
  }
  if (subaccount !== 0) {
    at = writeAscii(out, at, ',"subaccount":');
    at = writeInteger(out, at, subaccount);
  }
  return writeBytes(out, at, K_ORDERS_END);
}

/** A single cancel's batched-DELETE body as a BodyWriter (see CreateBodyWriter); the route checked the subaccount. */
export class OneCancelBodyWriter implements BodyWriter {
  orderId = '';
  /** The order whose id's bytes are written instead of `orderId` (cancelOrder), or null. */
  order: Readonly<VenueOrderRef> | null = null;
  subaccount = 0;

  writeInto(out: Buffer, at: number): number {
    return writeOneCancelBodyInto(out, at, this.orderId, this.subaccount, this.order);
  }

  text(): string {
    return scratchText((out) => writeOneCancelBodyInto(out, 0, this.orderId, this.subaccount, this.order));
  }
}

/** POST /portfolio/order_groups/create body; the limit as an fp count string. */
export function encodeOrderGroupCreate(contractsLimit: Count, subaccount: number): string {
  checkCount(contractsLimit);
  checkSubaccount(subaccount);
  const limit = contractsLimitFields(contractsLimit);
  return subaccount === 0 ? `{${limit}}` : `{${limit},"subaccount":${subaccount}}`;
}

/** PUT /portfolio/order_groups/{id}/limit body. */
export function encodeOrderGroupLimit(contractsLimit: Count): string {
  checkCount(contractsLimit);
  return `{${contractsLimitFields(contractsLimit)}}`;
}

// Whole contracts: both the integer and the fp form (they must agree, spec/rest.md §7), so servers
// that know only one of them read it; fractional limits exist only as contracts_limit_fp.
function contractsLimitFields(contractsLimit: Count): string {
  const fp = `"contracts_limit_fp":"${formatCount(contractsLimit)}"`;
  return contractsLimit % 100 === 0 ? `"contracts_limit":${contractsLimit / 100},${fp}` : fp;
}

/** An OMS order's client_order_id as a JSON string at `at`, from its own bytes (its characters need no escape). */
function writeOwnClientOrderId(out: Buffer, at: number, order: Readonly<NewOrder>): number {
  out[at] = 0x22;
  const end = order.writeClientOrderId!(out, at + 1);
  if (end < 0) return writeJsonString(out, at, order.clientOrderId); // not one of this session's after all: its text
  out[end] = 0x22;
  return end + 1;
}
