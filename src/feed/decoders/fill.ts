/**
 * The private `fill` message (spec/websocket.md §6.4) as one reused record, for the OMS. Listeners
 * copy what they keep.
 */

import {
  CENTICENTS_INVALID,
  COUNT_INVALID,
  PRICE_INVALID,
  type BookSide,
  type Centicents,
  type Count,
  type OutcomeSide,
  type Price,
  BOOK_SIDES,
  OUTCOME_SIDES,
} from '../../core/index.ts';
import type { FieldReader } from './field-reader.ts';


export class FillRecord {
  readonly type = 'fill';
  sid = 0;
  tradeId = '';
  orderId = '';
  /** '' when absent. */
  clientOrderId = '';
  marketTicker = '';
  /** -1 when absent. */
  exchangeIndex = -1;
  isTaker = false;
  outcomeSide: OutcomeSide = 'yes';
  bookSide: BookSide = 'bid';
  /** Deprecated `action` ('buy', 'sell', ...); '' when absent. */
  action = '';
  yesPrice: Price = PRICE_INVALID;
  count: Count = COUNT_INVALID;
  feeCost: Centicents = CENTICENTS_INVALID;
  /** Signed position after the fill; COUNT_INVALID when absent. */
  postPosition: Count = COUNT_INVALID;
  subaccount = -1;
  tsMs = -1;
}

export function readFill(reader: FieldReader, out: FillRecord): void {
  out.tradeId = reader.string('trade_id');
  out.orderId = reader.string('order_id');
  out.clientOrderId = reader.optString('client_order_id', '');
  out.marketTicker = reader.string('market_ticker');
  out.exchangeIndex = reader.optIndex('exchange_index', -1);
  out.isTaker = reader.bool('is_taker');
  // outcome_side / book_side are canonical; fall back on the deprecated `side` (same vocabulary as outcome_side).
  const outcome = reader.has('outcome_side') ? reader.choice('outcome_side', OUTCOME_SIDES) : reader.choice('side', OUTCOME_SIDES);
  out.outcomeSide = outcome;
  out.bookSide = reader.optChoice('book_side', BOOK_SIDES, outcome === 'yes' ? 'bid' : 'ask');
  out.action = reader.optString('action', '');
  out.yesPrice = reader.price('yes_price_dollars');
  out.count = reader.count('count_fp');
  out.feeCost = reader.optDollars('fee_cost');
  out.postPosition = reader.optSignedCount('post_position_fp');
  out.subaccount = reader.optIndex('subaccount', -1);
  out.tsMs = reader.optIndex('ts_ms', -1);
}
