/**
 * What a quote action asks of the gate: one reused record per caller, like OrderIntent, so a
 * check allocates nothing. A quote answers an RFQ: the RFQ creator later takes one side, buying
 * YES at 1 - noBid from our NO bid (we buy NO: `accepted_side` yes) or NO at 1 - yesBid from our
 * YES bid (we buy YES). Either way we buy up to `count` contracts of one side, so the gate checks
 * each side as a bid of its own: YES at yesBid, NO at noBid (a YES ask at 1 - noBid).
 * Owns the record, its kinds and their token costs (rest.md §9); never decides anything.
 */

import { COUNT_INVALID, PRICE_INVALID } from '../core/index.ts';
import type { Count, Price } from '../core/index.ts';

export const QuoteAction = {
  /** POST /communications/quotes. */
  NEW: 0,
  /** DELETE .../quotes/{quote_id}. */
  CANCEL: 1,
  /** PUT .../quotes/{quote_id}/confirm: the last check before the venue executes. */
  CONFIRM: 2,
  /** Taker lifecycle, never offered to a restricted key: POST /communications/rfqs. */
  RFQ_CREATE: 3,
  /** Taker lifecycle: PUT .../accept. */
  ACCEPT: 4,
} as const;
export type QuoteAction = (typeof QuoteAction)[keyof typeof QuoteAction];

/**
 * Write tokens by action (rest.md §9: quote create and delete 2; confirm, RFQ create and accept
 * are not listed and cost the default 10).
 */
export const QUOTE_TOKEN_COST: readonly number[] = Object.freeze([2, 2, 10, 10, 10]);

export class QuoteIntent {
  action: QuoteAction = QuoteAction.NEW;
  /** CONFIRM / CANCEL: the quote book's handle (its booking is already in the ledger); -1 for a new quote. */
  handle = -1;
  /** Gate market handle of the RFQ's market. */
  market = -1;
  /** Our YES bid (0: we decline to buy YES, the creator may not take NO). */
  yesBid: Price = PRICE_INVALID;
  /** Our NO bid (0: we decline to buy NO). */
  noBid: Price = PRICE_INVALID;
  /** Contracts we may have to buy on one side (the RFQ's size, or what its target cost buys). */
  count: Count = COUNT_INVALID;
  /** CONFIRM: the side the creator took ('yes': we buy NO at noBid); '' otherwise. */
  acceptedSide: 'yes' | 'no' | '' = '';
  postOnly = false;
  subaccount = 0;
  strategyId = 0;
}
