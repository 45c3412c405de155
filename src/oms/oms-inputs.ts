/**
 * What the feed hands the OMS from the private WebSocket channels (spec/websocket.md §6.4-6.7),
 * already decoded into core units. The shapes are structural subsets of the feed's reused records
 * (src/feed/decoders: FillRecord, UserOrderRecord, MarketPositionRecord, OrderGroupUpdateRecord),
 * so the feed passes its records as they are; the OMS copies what it keeps and holds no reference.
 * Also the logger the OMS needs (a pino Logger satisfies it). This file owns types only.
 */

import type { BookSide, Centicents, Count, Price } from '../core/index.ts';

/** `fill` (§6.4). Absent optional fields use the feed's sentinels ('' / -1 / COUNT_INVALID). */
export interface FillInput {
  readonly tradeId: string;
  readonly orderId: string;
  readonly clientOrderId: string; //   '' when absent
  readonly marketTicker: string;
  readonly isTaker: boolean;
  readonly bookSide: BookSide;
  readonly yesPrice: Price;
  readonly count: Count;
  readonly feeCost: Centicents; //     CENTICENTS_INVALID when absent
  readonly postPosition: Count; //     COUNT_INVALID when absent; signed, + long YES
  readonly subaccount: number; //      -1 when absent
  readonly tsMs: number;
}

/** `user_order` (§6.5). */
export interface UserOrderInput {
  readonly orderId: string;
  readonly clientOrderId: string;
  readonly ticker: string;
  readonly status: 'resting' | 'canceled' | 'executed';
  readonly bookSide: BookSide;
  readonly yesPrice: Price;
  readonly fillCount: Count;
  readonly remainingCount: Count;
  readonly subaccount: number; //      -1 when absent
  readonly lastUpdatedTsMs: number; // -1 when absent
  readonly lastUpdateReason: string; // '' when absent
  /** Margin: who placed it ('system': the exchange, for a liquidation or a fired exit trigger); absent or '' on Predictions. */
  readonly orderSource?: string;
  /** Margin system orders: why ('liquidation', 'take_profit_stop_loss'); '' otherwise. */
  readonly orderReason?: string;
}

/** An order the exchange placed on our account (Margin: a liquidation or a fired exit trigger), as the OMS keeps it. */
export interface SystemOrder {
  readonly orderId: string;
  readonly ticker: string;
  readonly subaccount: number;
  readonly side: BookSide;
  readonly reason: string;
  fillCount: Count;
  remainingCount: Count;
  status: 'resting' | 'canceled' | 'executed';
}

/** `market_position` (§6.6). */
export interface MarketPositionInput {
  readonly marketTicker: string;
  readonly position: Count;
  readonly realizedPnl: Centicents;
  readonly feesPaid: Centicents;
  readonly subaccount: number; //      -1 when absent
}

/** `order_group_updates` (§6.7). */
export interface OrderGroupUpdateInput {
  readonly eventType: 'created' | 'triggered' | 'reset' | 'deleted' | 'limit_updated';
  readonly orderGroupId: string;
  readonly contractsLimit: Count; //   COUNT_INVALID unless created / limit_updated
  readonly tsMs: number;
}

/** The subset of pino the OMS uses; anomalies only, never per normal message. */
export interface OmsLogger {
  info(fields: object, message: string): void;
  warn(fields: object, message: string): void;
  error(fields: object, message: string): void;
}

export const SILENT_LOGGER: OmsLogger = Object.freeze({
  info(): void {},
  warn(): void {},
  error(): void {},
});
