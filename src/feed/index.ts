/**
 * The feed folder's public surface: the Feed facade and its listener, the records listeners
 * receive, connection states and codes. Other folders import the feed only through this file.
 * The decoders, session and managers are exported for benches and tests that drive them directly.
 */

export { Feed, FeedError, type FeedOptions } from './feed.ts';
export { FeedErrorCode, NoopFeedListener, type FeedListener } from './feed-listener.ts';
export type { FeedLogger } from './feed-logger.ts';
export { silentLogger } from './feed-logger.ts';
export type { FeedAuth } from './handshake-signer.ts';
export { handshakeSigner } from './handshake-signer.ts';
export { HopRecord } from './hop-record.ts';
export { FeedCounters } from './feed-counters.ts';
export { Channel, TERMINAL_ERROR_CODES } from './channels.ts';
export { ConnectionState, WsSession, type WsSessionOptions, type WsSessionHandler, type HandshakeSigner, type FeedSession } from './ws-session.ts';
export { SubscriptionManager, Subscription, SubscriptionState, LostReason, CommandKind, SubscriptionCommandError, type CommandSink } from './subscriptions.ts';
export { ResyncManager } from './resync.ts';
export { MarketState, ResyncState } from './market-state.ts';
export { Backoff } from './backoff.ts';
export { FrameDecoder, type FeedVenue } from './decoders/frame-decoder.ts';
export { DecodeStatus, MessageKind } from './decoders/decode-status.ts';
export { MARGIN_DELTA_KEYS, OrderbookDeltaRecord, PREDICTIONS_DELTA_KEYS, decodeDeltaObject } from './decoders/orderbook-delta.ts';
export { MARGIN_SNAPSHOT_KEYS, OrderbookSnapshotRecord, PREDICTIONS_SNAPSHOT_KEYS } from './decoders/orderbook-snapshot.ts';
export { MarginTickerRecord } from './decoders/margin-ticker.ts';
export { TradeRecord } from './decoders/trade.ts';
export { FillRecord } from './decoders/fill.ts';
export { UserOrderRecord, type UserOrderStatus } from './decoders/user-order.ts';
export { MarketPositionRecord } from './decoders/market-position.ts';
export { OrderGroupUpdateRecord, type OrderGroupEventType } from './decoders/order-group-update.ts';
export {
  MarketLifecycleRecord,
  EventLifecycleRecord,
  EventFeeUpdateRecord,
  type LifecycleRecord,
  type MarketLifecycleEventType,
} from './decoders/lifecycle.ts';
export { RfqRecord, QuoteMessageRecord, type RfqEventType, type QuoteEventType } from './decoders/communications.ts';
export { ControlRecord, type SubscriptionListing } from './decoders/control.ts';
export { FixMarketData, FIX_SID_BASE, type FixMarketDataListener, type FixMarketDataOptions, type FixMarketDataStats } from './fix/index.ts';
