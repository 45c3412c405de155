/**
 * How the engine's expected failures (SimError, REST codes) read on FIX (fix.md §5): an
 * ExecutionReport reject carries Text(58) and OrdRejReason(103); a failed cancel or replace is an
 * OrderCancelReject with Text(58) and CxlRejReason(102); the Text values are the venue's. The
 * tables are the one place this mapping lives. Unmapped codes fall back to INTERNAL_ERROR (103/102
 * = 99): "a healthy exchange reject with no specific mapping; not applied".
 */

import type { SimError } from '../../engine/index.ts';

/** OrdRejReason(103), fix.md §5. */
export const OrdRejReason = {
  UNKNOWN_SYMBOL: 1,
  EXCHANGE_CLOSED: 2,
  ORDER_EXCEEDS_LIMIT: 3,
  DUPLICATE_ORDER: 6,
  UNSUPPORTED_ORDER_CHARACTERISTIC: 11,
  INCORRECT_QUANTITY: 13,
  UNKNOWN_ACCOUNT: 15,
  OTHER: 99,
} as const;

/** CxlRejReason(102), fix.md §5. */
export const CxlRejReason = {
  TOO_LATE_TO_CANCEL: 0,
  UNKNOWN_ORDER: 1,
  BROKER: 2,
  DUPLICATE_CL_ORD_ID: 6,
  INVALID_PRICE_INCREMENT: 18,
  OTHER: 99,
} as const;

export interface FixRejectText {
  readonly text: string;
  readonly reason: number;
}

function entry(text: string, reason: number): FixRejectText {
  return Object.freeze({ text, reason });
}

export const EXCHANGE_UNAVAILABLE = entry('EXCHANGE_UNAVAILABLE', OrdRejReason.OTHER);
export const INTERNAL_ERROR = entry('INTERNAL_ERROR', OrdRejReason.OTHER);
export const INVALID_ORDER = entry('INVALID_ORDER', OrdRejReason.UNSUPPORTED_ORDER_CHARACTERISTIC);
export const PERMISSION_DENIED = entry('PERMISSION_DENIED_FOR_CUSTOMER_ACCOUNT', OrdRejReason.UNKNOWN_ACCOUNT);
export const INVALID_PRICE_ORDER = entry('INVALID_PRICE', OrdRejReason.OTHER);

/** The ExecutionReport reject (150=8) for a refused NewOrderSingle. */
export function orderRejectOf(error: SimError): FixRejectText {
  switch (error.code) {
    case 'order_already_exists': return entry('ORDER_ALREADY_EXISTS', OrdRejReason.DUPLICATE_ORDER);
    case 'market_not_found': return entry('MARKET_NOT_FOUND', OrdRejReason.UNKNOWN_SYMBOL);
    case 'market_closed': return entry('MARKET_ALREADY_CLOSED', OrdRejReason.EXCHANGE_CLOSED);
    case 'exchange_paused': return entry('EXCHANGE_PAUSED', OrdRejReason.EXCHANGE_CLOSED);
    case 'trading_paused': return entry('TRADING_PAUSED', OrdRejReason.EXCHANGE_CLOSED);
    case 'insufficient_balance': return entry('INSUFFICIENT_BALANCE', OrdRejReason.ORDER_EXCEEDS_LIMIT);
    case 'order_group_triggered':
    case 'order_group_limit_reached': return entry('EXCEEDED_ORDER_GROUP_RISK_LIMIT', OrdRejReason.ORDER_EXCEEDS_LIMIT);
    case 'not_found': return entry('ORDER_GROUP_NOT_FOUND', OrdRejReason.UNSUPPORTED_ORDER_CHARACTERISTIC); // the only lookup a create makes
    case 'invalid_price': return INVALID_PRICE_ORDER; // not in the 58 table for 35=8; the 35=9 text, 103=99 (fix.md §12)
    case 'invalid_order_size': return entry('INVALID_ORDER', OrdRejReason.INCORRECT_QUANTITY);
    case 'invalid_order':
      // postOnlyCrossReject400: the engine refuses instead of cancelling; the venue's text is POST_ONLY_CROSS.
      if (error.details === 'post only cross') return entry('POST_ONLY_CROSS', OrdRejReason.UNSUPPORTED_ORDER_CHARACTERISTIC);
      return INVALID_ORDER;
    case 'bad_request': return INVALID_ORDER;
    case 'forbidden': return PERMISSION_DENIED;
    default: return INTERNAL_ERROR;
  }
}

/** The OrderCancelReject (35=9) for a refused cancel or replace. */
export function cancelRejectOf(error: SimError): FixRejectText {
  switch (error.code) {
    case 'not_found': return entry('UNKNOWN_ORDER', CxlRejReason.UNKNOWN_ORDER);
    case 'invalid_price': return entry('INVALID_PRICE', CxlRejReason.OTHER);
    case 'market_not_found': return entry('MARKET_NOT_FOUND', CxlRejReason.OTHER);
    case 'order_already_exists': return entry('ORDER_ALREADY_EXISTS', CxlRejReason.DUPLICATE_CL_ORD_ID);
    case 'invalid_order':
      if (error.details === 'count') return entry('INVALID_AMEND_QTY_FOR_ORDER', CxlRejReason.BROKER);
      if (error.details === 'post only cross') return entry('POST_ONLY_CROSS', CxlRejReason.OTHER);
      if (error.details === 'ticker' || error.details === 'side' || error.details === 'client_order_id') {
        return entry('UNKNOWN_ORDER', CxlRejReason.UNKNOWN_ORDER); // fix.md §5: an ID/side/ticker mismatch is "unknown order"
      }
      return entry('INVALID_ORDER', CxlRejReason.OTHER);
    case 'invalid_order_size': return entry('INVALID_AMEND_QTY_FOR_ORDER', CxlRejReason.BROKER);
    case 'insufficient_balance': return entry('INSUFFICIENT_BALANCE', CxlRejReason.OTHER);
    case 'market_closed': return entry('MARKET_ALREADY_CLOSED', CxlRejReason.OTHER);
    case 'exchange_paused': return entry('EXCHANGE_PAUSED', CxlRejReason.OTHER);
    case 'trading_paused': return entry('TRADING_PAUSED', CxlRejReason.OTHER);
    case 'forbidden': return entry('PERMISSION_DENIED_FOR_CUSTOMER_ACCOUNT', CxlRejReason.UNKNOWN_ORDER);
    default: return entry('INTERNAL_ERROR', CxlRejReason.OTHER);
  }
}

/** Canceled reports (150=4): Text(58) for the engine's reason an order ended (fix.md §5 table). */
export function cancelTextOf(reason: string): string {
  switch (reason) {
    case 'PostOnlyCrossCancel': return 'POST_ONLY_CROSS';
    case 'ImmediateOrCancel': return 'IMMEDIATE_OR_CANCELLED';
    case 'FillOrKillCancel': return 'FOK_INSUFFICIENT_VOLUME';
    case 'SelfTradeCancel': return 'TAKER_CANCEL_FOR_SELF_TRADE_PREVENTION';
    case 'OrderGroupCancel': return 'ORDER_GROUP_CANCEL';
    case 'MarketCloseCancel': return 'MARKET_ALREADY_CLOSED';
    case 'PauseCancel': return 'TRADING_PAUSED';
    case 'ExpiryCancel': return 'EXPIRED';
    default: return '';
  }
}
