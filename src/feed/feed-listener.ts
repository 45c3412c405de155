/**
 * What the feed tells the rest of the runtime: book changes and sync state for the strategy layer,
 * private order and fill messages for the OMS, lifecycle for market state, errors and connection
 * state for operations. Records passed in are REUSED for the next message: copy what you keep,
 * and never hold a record past the call. Listeners run on the hot path synchronously; an exception
 * is caught, counted and logged by the feed (it never reaches the socket layer).
 */

import type { OrderBook } from '../book/index.ts';
import type { QuoteMessageRecord, RfqRecord } from './decoders/communications.ts';
import type { FillRecord } from './decoders/fill.ts';
import type { LifecycleRecord } from './decoders/lifecycle.ts';
import type { MarginTickerRecord } from './decoders/margin-ticker.ts';
import type { MarketPositionRecord } from './decoders/market-position.ts';
import type { OrderGroupUpdateRecord } from './decoders/order-group-update.ts';
import type { TradeRecord } from './decoders/trade.ts';
import type { UserOrderRecord } from './decoders/user-order.ts';
import type { ConnectionState } from './ws-session.ts';

/** Codes of the feed's own errors (onError also passes the exchange's integer error codes). */
export const FeedErrorCode = {
  /** A subscribe the exchange refused with a client error: not retried. */
  SUBSCRIBE_FAILED: 'FEED_SUBSCRIBE_FAILED',
  /** A terminal error killed a subscription; it is being re-created. */
  SUBSCRIPTION_LOST: 'FEED_SUBSCRIPTION_LOST',
  /** A lifecycle message carried a grid the feed could not build. */
  GRID_INVALID: 'FEED_GRID_INVALID',
} as const;
export type FeedErrorCode = (typeof FeedErrorCode)[keyof typeof FeedErrorCode];

export interface FeedListener {
  /** A delta or snapshot changed a synced book. `feed.hop` holds the frame's timestamps. */
  onBookUpdate(book: OrderBook): void;
  /** The book must not be traded: reason is an ApplyStatus (SEQ_GAP, STALE, RESYNC, ...). */
  onBookOutOfSync(book: OrderBook, reason: number): void;
  /** A fresh snapshot made an out-of-sync book whole again. */
  onBookResynced(book: OrderBook): void;
  onTrade(record: TradeRecord): void;
  onFill(record: FillRecord): void;
  onUserOrder(record: UserOrderRecord): void;
  onMarketPosition(record: MarketPositionRecord): void;
  onOrderGroupUpdate(record: OrderGroupUpdateRecord): void;
  onLifecycle(record: LifecycleRecord): void;
  /** `communications`: an RFQ was created or deleted (public). */
  onRfq(record: RfqRecord): void;
  /** `communications`: one of our quotes (or a quote on our RFQ) was created, accepted or executed. */
  onQuote(record: QuoteMessageRecord): void;
  /** An exchange `error` (integer code, spec/websocket.md §4) or a FeedErrorCode. */
  onError(code: number | FeedErrorCode, message: string): void;
  onConnectionState(state: ConnectionState): void;
  /** Margin feed: a market's `ticker` (last price, bid/ask, mark). The mark is already in the market registry. */
  onMarginTicker?(record: MarginTickerRecord): void;
}

/** A listener that ignores everything: extend it and override what you need. */
export class NoopFeedListener implements FeedListener {
  onBookUpdate(_book: OrderBook): void {}
  onBookOutOfSync(_book: OrderBook, _reason: number): void {}
  onBookResynced(_book: OrderBook): void {}
  onTrade(_record: TradeRecord): void {}
  onFill(_record: FillRecord): void {}
  onUserOrder(_record: UserOrderRecord): void {}
  onMarketPosition(_record: MarketPositionRecord): void {}
  onOrderGroupUpdate(_record: OrderGroupUpdateRecord): void {}
  onLifecycle(_record: LifecycleRecord): void {}
  onRfq(_record: RfqRecord): void {}
  onQuote(_record: QuoteMessageRecord): void {}
  onError(_code: number | FeedErrorCode, _message: string): void {}
  onConnectionState(_state: ConnectionState): void {}
  onMarginTicker(_record: MarginTickerRecord): void {}
}
