/**
 * Hand-written JSON encoders for the V2 order bodies (spec/rest.md §3): one template string per
 * body, prices and counts through core's formatPrice/formatCount (strings, as the exchange
 * requires: numeric JSON is a 400), enums checked against their closed sets, free text (tickers,
 * ids) quoted by jsonString. Cheaper than building an object and JSON.stringify-ing it, and the
 * field order is fixed. test/exec/order-body.test.ts checks every encoder against JSON.parse.
 *
 * Owns encoding only. Never validates against a market (grid, limits: the risk gate does) and never
 * sends anything. An impossible field (price outside (0, 1), count <= 0, unknown enum, subaccount
 * outside 0..63) is a caller bug past the risk gate: it throws InvariantError (STYLE §4.3).
 */

import { assert, formatCount, formatPrice, type BookSide, type Count, type Price } from '../../core/index.ts';
import type { NewOrder, SelfTradePrevention, TimeInForce } from '../../oms/index.ts';

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
 * CreateOrderV2Request. Optional fields are sent only when they say something: post_only and
 * reduce_only when true, subaccount when not 0 (a restricted key must omit it or send its own),
 * order_group_id when set, expiration_time (unix seconds) when > 0 and the order is GTC.
 */
export function encodeCreateOrder(order: Readonly<NewOrder>): string {
  checkSide(order.side);
  checkPrice(order.price);
  checkCount(order.count);
  checkTimeInForce(order.timeInForce);
  checkSelfTradePrevention(order.selfTradePrevention);
  checkSubaccount(order.subaccount);
  assert(Number.isSafeInteger(order.expirationTs) && order.expirationTs >= 0, 'order body: expirationTs must be unix seconds or 0');
  assert(order.expirationTs === 0 || order.timeInForce === 'good_till_canceled', 'order body: expiration only with good_till_canceled');
  return writeCreateBody(order);
}

/**
 * The create body both exchanges take (Predictions CreateOrderV2Request, Margin
 * CreateMarginOrderRequest), after the caller's own checks: the optional fields only when they say
 * something.
 */
export function writeCreateBody(order: Readonly<NewOrder>): string {
  let body =
    `{"ticker":${jsonString(order.ticker)},"client_order_id":${jsonString(order.clientOrderId)},` +
    `"side":"${order.side}","count":"${formatCount(order.count)}","price":"${formatPrice(order.price)}",` +
    `"time_in_force":"${order.timeInForce}","self_trade_prevention_type":"${order.selfTradePrevention}"`;
  if (order.postOnly) body += ',"post_only":true';
  if (order.reduceOnly) body += ',"reduce_only":true';
  if (order.subaccount !== 0) body += `,"subaccount":${order.subaccount}`;
  if (order.orderGroupId !== null) body += `,"order_group_id":${jsonString(order.orderGroupId)}`;
  if (order.expirationTs !== 0) body += `,"expiration_time":${order.expirationTs}`;
  return `${body}}`;
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

/** AmendOrderV2Request; `count` is the new total (filled + desired resting). */
export function encodeAmend(ticker: string, side: BookSide, price: Price, count: Count): string {
  checkSide(side);
  checkPrice(price);
  checkCount(count);
  return `{"ticker":${jsonString(ticker)},"side":"${side}","price":"${formatPrice(price)}","count":"${formatCount(count)}"}`;
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
