/**
 * The private `user_order` message (spec/websocket.md §6.5) as one reused record, for the OMS.
 * Note the wire names the market `ticker` here, not `market_ticker`. Listeners copy what they keep.
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

export const USER_ORDER_STATUSES = ['resting', 'canceled', 'executed'] as const;
export type UserOrderStatus = (typeof USER_ORDER_STATUSES)[number];

export class UserOrderRecord {
  readonly type = 'user_order';
  sid = 0;
  orderId = '';
  userId = '';
  ticker = '';
  status: UserOrderStatus = 'resting';
  outcomeSide: OutcomeSide = 'yes';
  bookSide: BookSide = 'bid';
  yesPrice: Price = PRICE_INVALID;
  fillCount: Count = COUNT_INVALID;
  remainingCount: Count = COUNT_INVALID;
  /** COUNT_INVALID when absent. */
  initialCount: Count = COUNT_INVALID;
  /** CENTICENTS_INVALID when absent. */
  takerFillCost: Centicents = CENTICENTS_INVALID;
  makerFillCost: Centicents = CENTICENTS_INVALID;
  takerFees: Centicents = CENTICENTS_INVALID;
  makerFees: Centicents = CENTICENTS_INVALID;
  clientOrderId = '';
  /** '' when absent. */
  orderGroupId = '';
  /** '' when absent. */
  selfTradePreventionType = '';
  createdTsMs = -1;
  lastUpdatedTsMs = -1;
  expirationTsMs = -1;
  subaccount = -1;
  exchangeIndex = -1;
  /** '' when absent. */
  lastUpdateReason = '';
  /** Margin `order_source` ('user', 'system', ...); '' when absent and on Predictions. */
  orderSource = '';
  /** Margin `order_reason` on system orders ('liquidation', ...); '' when absent and on Predictions. */
  orderReason = '';
}

export function readUserOrder(reader: FieldReader, out: UserOrderRecord): void {
  out.orderId = reader.string('order_id');
  out.userId = reader.optString('user_id', '');
  out.ticker = reader.string('ticker');
  out.status = reader.choice('status', USER_ORDER_STATUSES);
  const outcome = reader.has('outcome_side') ? reader.choice('outcome_side', OUTCOME_SIDES) : reader.choice('side', OUTCOME_SIDES);
  out.outcomeSide = outcome;
  out.bookSide = reader.optChoice('book_side', BOOK_SIDES, outcome === 'yes' ? 'bid' : 'ask');
  out.yesPrice = reader.price('yes_price_dollars');
  out.fillCount = reader.count('fill_count_fp');
  out.remainingCount = reader.count('remaining_count_fp');
  out.initialCount = reader.optCount('initial_count_fp');
  readOrderDetails(reader, out);
  out.lastUpdateReason = reader.optString('last_update_reason', '');
  out.orderSource = '';
  out.orderReason = '';
}

/** The optional fields both exchanges' user_order share (costs, fees, ids, times, subaccount). */
export function readOrderDetails(reader: FieldReader, out: UserOrderRecord): void {
  out.takerFillCost = reader.optDollars('taker_fill_cost_dollars');
  out.makerFillCost = reader.optDollars('maker_fill_cost_dollars');
  out.takerFees = reader.optDollars('taker_fees_dollars');
  out.makerFees = reader.optDollars('maker_fees_dollars');
  out.clientOrderId = reader.optString('client_order_id', '');
  out.orderGroupId = reader.optString('order_group_id', '');
  out.selfTradePreventionType = reader.optString('self_trade_prevention_type', '');
  out.createdTsMs = reader.optIndex('created_ts_ms', -1);
  out.lastUpdatedTsMs = reader.optIndex('last_updated_ts_ms', -1);
  out.expirationTsMs = reader.optIndex('expiration_ts_ms', -1);
  out.subaccount = reader.optIndex('subaccount_number', -1);
  out.exchangeIndex = reader.optIndex('exchange_index', -1);
}
