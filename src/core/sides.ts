/**
 * Sides of a binary market and how they convert (spec/interface-spec.md, Order: outcome_side,
 * book_side). There is one YES book: a bid buys YES, an ask sells YES, which is the same as buying
 * NO at 1 - p. This file owns those conversions only; it never looks at a book or an order.
 */

import { PRICE_ONE, type Price } from './units.ts';

/** V2 order side: bid = buy YES, ask = sell YES (= buy NO at 1 - p). */
export type BookSide = 'bid' | 'ask';
export type OutcomeSide = 'yes' | 'no';
/** The closed sets, for decoders that check a wire value against them. */
export const OUTCOME_SIDES: readonly OutcomeSide[] = ['yes', 'no'];
export const BOOK_SIDES: readonly BookSide[] = ['bid', 'ask'];
export type Action = 'buy' | 'sell';

/** Which outcome an order is long after it fills: buy-yes and sell-no give yes; buy-no and sell-yes give no. */
export function outcomeSideOf(action: Action, side: OutcomeSide): OutcomeSide {
  if (action === 'buy') return side;
  return side === 'yes' ? 'no' : 'yes';
}

/** yes -> bid, no -> ask (spec: book_side bid is equivalent to yes, ask to no). */
export function bookSideOfOutcome(outcome: OutcomeSide): BookSide {
  return outcome === 'yes' ? 'bid' : 'ask';
}

/** bid -> yes, ask -> no. */
export function outcomeOfBookSide(side: BookSide): OutcomeSide {
  return side === 'bid' ? 'yes' : 'no';
}

/** The NO price of a YES price and vice versa: 10_000 - price. */
export function complementPrice(price: Price): Price {
  return (PRICE_ONE - price) as Price;
}

/** The exchange an order, a market or a route belongs to: its routes, subaccount numbers, balances and rules are its own. */
export type Exchange = 'predictions' | 'margin';
