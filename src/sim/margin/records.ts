/**
 * The Margin engine's records: orders, positions, accounts, fills, public trades, funding rates
 * and funding payments. Plain data with stable shapes; numbers are core units (prices 1/10,000 $,
 * counts 1/100 contract, money centicents, rates ppm). Only margin-engine.ts mutates them.
 */

import type { BookSide, RestingOrder } from './book.ts';
import type { MarginBook } from './book.ts';
import type { MarginMarketSpec } from './catalog.ts';

export type TimeInForce = 'fill_or_kill' | 'good_till_canceled' | 'immediate_or_cancel';
export type SelfTradePrevention = 'taker_at_cross' | 'maker';
export type MarginOrderStatus = 'resting' | 'canceled' | 'executed';
export type LastUpdateReason = '' | 'Decrease' | 'Amend' | 'MarginCancel' | 'SelfTradeCancel' | 'ExpiryCancel' | 'Trade' | 'PostOnlyCrossCancel';
export type OrderSource = 'user' | 'system';
export type OrderReason = 'liquidation' | 'take_profit_stop_loss';

export interface MarginOrderRecord extends RestingOrder {
  readonly seq: number;
  readonly orderId: string;
  readonly userId: string;
  readonly subaccount: number;
  clientOrderId: string;
  readonly ticker: string;
  readonly side: BookSide;
  price: number;
  /** Contracts filled over the order's life. */
  filled: number;
  remaining: number;
  status: MarginOrderStatus;
  lastUpdateReason: LastUpdateReason;
  readonly createdMs: number;
  lastUpdateMs: number;
  readonly selfTradePrevention: SelfTradePrevention;
  readonly cancelOrderOnPause: boolean;
  readonly timeInForce: TimeInForce;
  readonly postOnly: boolean;
  readonly reduceOnly: boolean;
  readonly expirationTs: number | null;
  readonly source: OrderSource;
  readonly reason: OrderReason | null;
}

export interface PositionRecord {
  readonly ticker: string;
  /** Signed contracts (1/100): positive long. */
  count: number;
  /** Signed sum of price x count of the open contracts, in 1/1,000,000 $ (price units x count units). */
  openCost: number;
  /** Fees paid since the position was last flat, centicents. */
  fees: number;
}

export interface AccountRecord {
  readonly userId: string;
  readonly subaccount: number;
  /** Settled cash: deposits + realized pnl - fees + funding, centicents. */
  cash: number;
  readonly positions: Map<string, PositionRecord>;
}

export interface MarginFillRecord {
  readonly seq: number;
  readonly fillId: string;
  readonly tradeId: string;
  readonly orderId: string;
  readonly userId: string;
  readonly subaccount: number;
  readonly ticker: string;
  readonly side: BookSide;
  readonly count: number;
  readonly price: number;
  readonly isTaker: boolean;
  readonly fee: number;
  /** Average entry before this fill (price units, may be fractional → rounded), the fill price when it opened from flat. */
  readonly entryPrice: number;
  readonly realizedPnl: number;
  readonly createdMs: number;
  readonly source: OrderSource;
}

export interface MarginTradeRecord {
  readonly seq: number;
  readonly tradeId: string;
  readonly ticker: string;
  readonly count: number;
  readonly price: number;
  readonly takerSide: BookSide;
  readonly createdMs: number;
}

export interface FundingRateRecord {
  readonly ticker: string;
  readonly fundingMs: number;
  readonly ratePpm: number;
  readonly markPrice: number;
}

export interface FundingPaymentRecord {
  readonly seq: number;
  readonly id: string;
  readonly userId: string;
  readonly subaccount: number;
  readonly ticker: string;
  readonly fundingMs: number;
  readonly ratePpm: number;
  readonly markPrice: number;
  /** Signed position at funding time. */
  readonly count: number;
  /** Signed notional (count x mark), centicents. */
  readonly notional: number;
  /** Signed: positive received, negative paid. */
  readonly amount: number;
}

export interface MarketState {
  readonly spec: MarginMarketSpec;
  readonly book: MarginBook<MarginOrderRecord>;
  lastPrice: number | null;
  mark: number;
  markMs: number;
  reference: number;
  referenceMs: number;
  /** Lifetime one-sided volume (count units) and its notional (centicents). */
  volume: number;
  volumeNotional: number;
  /** One-sided open interest: the sum of long positions. */
  openInterest: number;
  readonly trades: MarginTradeRecord[];
  /** Best bid and ask (null: side empty) from each time they changed, oldest first (candlesticks). */
  readonly tops: Array<{ ms: number; bid: number | null; ask: number | null }>;
  /** Open interest (count units) and the mark at each change, oldest first (candlesticks). */
  readonly openInterestTape: Array<{ ms: number; openInterest: number; mark: number }>;
  readonly fundingRates: FundingRateRecord[];
  /** Time-weighted premium: sum of premium ppm x ms since periodStartMs, accumulated to accumMs. */
  premiumAccum: number;
  accumMs: number;
  periodStartMs: number;
  nextFundingMs: number;
}

export interface MarginError {
  readonly isError: true;
  readonly status: number;
  readonly code: string;
  readonly message: string;
  readonly details?: string;
}

export function marginError(status: number, code: string, message: string, details?: string): MarginError {
  return details === undefined ? { isError: true, status, code, message } : { isError: true, status, code, message, details };
}

export function isMarginError(value: unknown): value is MarginError {
  return typeof value === 'object' && value !== null && (value as { isError?: unknown }).isError === true;
}
