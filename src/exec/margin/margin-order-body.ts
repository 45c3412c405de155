/**
 * Hand-written JSON encoders for the Margin exchange's order bodies (margin-api.openapi.yaml:
 * CreateMarginOrderRequest, AmendMarginOrderRequest, DecreaseMarginOrderRequest), in the style of
 * src/exec/rest/order-body.ts, whose create and amend writers it shares (the two exchanges' bodies
 * have one shape): only the Margin rules differ.
 *
 * The Margin rules live here as pure checks (marginOrderProblem, marginCountProblem,
 * marginPriceProblem) that margin-order-entry.ts runs before anything is sent and the risk gate
 * can run too: whole contracts only (a count that is not a multiple of 100 count units), a price
 * that is a positive safe integer of 1/10,000 dollar (perpetual prices are not capped at $1; a
 * $100,000 contract is 1e9 units, far inside 2^53). The market's tick is the venue's (and later
 * the gate's) check: this file does not know the market. The encoders themselves assert (a caller
 * that skipped the checks is a bug: InvariantError, STYLE §4.3).
 */

import { assert, formatCount, type BookSide, type Count, type Price } from '../../core/index.ts';
import type { NewOrder } from '../../oms/index.ts';
import { writeAmendBody, writeCreateBody } from '../rest/order-body.ts';

/** One contract in count units (1/100 contract): the Margin exchange trades whole contracts. */
export const MARGIN_CONTRACT: Count = 100 as Count;

/** Why a Margin order cannot be sent; each is an ExecReject code (margin-order-entry.ts). */
export const MarginRefusal = {
  COUNT_NOT_WHOLE: 'margin_count_not_whole', // count (or reduce_by) is not a whole number of contracts
  COUNT_NOT_POSITIVE: 'margin_count_not_positive',
  PRICE_INVALID: 'margin_price_invalid', // not a positive safe integer of 1/10,000 dollar
  SUBACCOUNT_INVALID: 'margin_subaccount_invalid', // outside 0..63
} as const;
export type MarginRefusal = (typeof MarginRefusal)[keyof typeof MarginRefusal];

const SUBACCOUNT_MAX = 63;

/** null when `count` is a positive whole number of contracts, else the refusal. */
export function marginCountProblem(count: Count): MarginRefusal | null {
  if (!Number.isSafeInteger(count) || count <= 0) return MarginRefusal.COUNT_NOT_POSITIVE;
  if (count % MARGIN_CONTRACT !== 0) return MarginRefusal.COUNT_NOT_WHOLE;
  return null;
}

/** null when `price` is a positive safe integer (dollars x 10,000), else the refusal. */
export function marginPriceProblem(price: Price): MarginRefusal | null {
  return Number.isSafeInteger(price) && price > 0 ? null : MarginRefusal.PRICE_INVALID;
}

function subaccountProblem(subaccount: number): MarginRefusal | null {
  return Number.isInteger(subaccount) && subaccount >= 0 && subaccount <= SUBACCOUNT_MAX ? null : MarginRefusal.SUBACCOUNT_INVALID;
}

/** The first Margin rule a create breaks, or null. Enums and the expiration are the encoder's asserts. */
export function marginOrderProblem(order: Readonly<NewOrder>): MarginRefusal | null {
  return marginCountProblem(order.count) ?? marginPriceProblem(order.price) ?? subaccountProblem(order.subaccount);
}

/** The first Margin rule an amend breaks, or null. */
export function marginAmendProblem(price: Price, count: Count, subaccount: number): MarginRefusal | null {
  return marginCountProblem(count) ?? marginPriceProblem(price) ?? subaccountProblem(subaccount);
}

function checkSide(side: BookSide): void {
  assert(side === 'bid' || side === 'ask', 'margin order body: side must be bid or ask');
}

function checkShape(price: Price, count: Count): void {
  assert(marginPriceProblem(price) === null, 'margin order body: price must be a positive safe integer');
  assert(marginCountProblem(count) === null, 'margin order body: count must be a positive whole number of contracts');
}

/**
 * CreateMarginOrderRequest. post_only and reduce_only only when true (the exchange refuses a
 * reduce_only good_till_canceled order: that is its answer to give, 400 invalid_order), subaccount
 * when not 0, order_group_id when set, expiration_time (unix seconds) when > 0 and GTC.
 */
export function encodeMarginCreate(order: Readonly<NewOrder>): string {
  checkMarginCreate(order);
  return writeCreateBody(order);
}

/** The Margin exchange's rules for a create body, as asserts (a caller that skipped marginOrderProblem is a bug); before anything is sent. */
export function checkMarginCreate(order: Readonly<NewOrder>): void {
  checkSide(order.side);
  checkShape(order.price, order.count);
  assert(
    order.timeInForce === 'good_till_canceled' || order.timeInForce === 'immediate_or_cancel' || order.timeInForce === 'fill_or_kill',
    'margin order body: unknown time_in_force',
  );
  assert(order.selfTradePrevention === 'taker_at_cross' || order.selfTradePrevention === 'maker', 'margin order body: unknown self_trade_prevention_type');
  assert(subaccountProblem(order.subaccount) === null, 'margin order body: subaccount must be in 0..63');
  assert(Number.isSafeInteger(order.expirationTs) && order.expirationTs >= 0, 'margin order body: expirationTs must be unix seconds or 0');
  assert(order.expirationTs === 0 || order.timeInForce === 'good_till_canceled', 'margin order body: expiration only with good_till_canceled');
}

/** AmendMarginOrderRequest; `count` is the new total (filled + desired resting), whole contracts. */
export function encodeMarginAmend(ticker: string, side: BookSide, price: Price, count: Count): string {
  checkMarginAmend(side, price, count);
  return writeAmendBody(ticker, side, price, count);
}

/** The Margin exchange's rules for an amend body, as asserts. */
export function checkMarginAmend(side: BookSide, price: Price, count: Count): void {
  checkSide(side);
  checkShape(price, count);
}

/** DecreaseMarginOrderRequest with reduce_by (exactly one of reduce_by, reduce_to), whole contracts. */
export function encodeMarginDecrease(reduceBy: Count): string {
  assert(marginCountProblem(reduceBy) === null, 'margin order body: reduce_by must be a positive whole number of contracts');
  return `{"reduce_by":"${formatCount(reduceBy)}"}`;
}
