/**
 * WebSocket protocol constants (spec/websocket.md §2-§4): channel names, which are private, which
 * message types carry `seq`, the error codes with their wire texts, and the session limits. This
 * file owns the tables only; sessions and fan-out read them.
 *
 * Session limits (websocket.md §8; the codes are our choice where the docs say NOT FOUND):
 *   500,000 order book market subscriptions per session -> error 26 "Subscription market limit exceeded"
 *   10,000 commands per second per session             -> error 27 "Too many requests"
 * Bounds the docs are silent on (each constant below says why its value), so that one client
 * cannot make a command cost everyone else: markets per subscription and per command, market
 * subscriptions of the other channels per session, subscriptions per session, subscriptions of a
 * channel covering the same market (all error 26, the documented "limit exceeded" code for
 * subscriptions), ticker length and sids per command (11),
 * queued command text per session (27), and the largest client frame (uWS drops the connection).
 */

export type Channel =
  | 'orderbook_delta'
  | 'ticker'
  | 'trade'
  | 'fill'
  | 'market_positions'
  | 'market_lifecycle_v2'
  | 'multivariate_market_lifecycle'
  | 'communications'
  | 'order_group_updates'
  | 'user_orders'
  | 'vendorA_value'
  | 'vendorB_value'
  | 'vendorB_value_5hz'
  | 'margin_ticker';

export const CHANNELS: readonly Channel[] = [
  'orderbook_delta',
  'ticker',
  'trade',
  'fill',
  'market_positions',
  'market_lifecycle_v2',
  'multivariate_market_lifecycle',
  'communications',
  'order_group_updates',
  'user_orders',
  'vendorA_value',
  'vendorB_value',
  'vendorB_value_5hz',
  'margin_ticker',
];

/**
 * Channels of the Margin endpoint (MARGIN_WS_PATH) the simulator feeds (websocket.md §7):
 * `orderbook_delta`, `trade`, `fill`, `order_group_updates`, `margin_ticker` (also accepted as `ticker`, the name the
 * AsyncAPI-era docs give it, §7.2 / open question 7) and `user_orders` with the Margin fields.
 * Other names there answer 8 (Unknown channel name).
 */
export const MARGIN_CHANNELS: ReadonlySet<Channel> = new Set<Channel>(['orderbook_delta', 'trade', 'fill', 'order_group_updates', 'margin_ticker', 'ticker', 'user_orders']);

export function isChannel(value: unknown): value is Channel {
  return typeof value === 'string' && (CHANNELS as readonly string[]).includes(value);
}

/** Channels checked per subscription for access (websocket.md §1.2): the key needs the read scope. */
export const PRIVATE_CHANNELS: ReadonlySet<Channel> = new Set<Channel>([
  'orderbook_delta',
  'fill',
  'market_positions',
  'communications',
  'order_group_updates',
  'user_orders',
  'vendorA_value',
  'vendorB_value',
  'vendorB_value_5hz',
]);

/** Channels whose data messages carry `seq` (websocket.md §2, Sep-2026 column). */
export const SEQUENCED_CHANNELS: ReadonlySet<Channel> = new Set<Channel>([
  'orderbook_delta',
  'trade',
  'order_group_updates',
  'market_lifecycle_v2',
  'multivariate_market_lifecycle',
  'communications',
  'vendorA_value',
  'vendorB_value',
  'vendorB_value_5hz',
]);

/** Channels a market filter applies to (websocket.md §3.2). */
export const MARKET_FILTERED_CHANNELS: ReadonlySet<Channel> = new Set<Channel>([
  'orderbook_delta',
  'ticker',
  'trade',
  'fill',
  'market_positions',
  'user_orders',
  'margin_ticker',
]);

export const WsError = {
  UNABLE_TO_PROCESS: 1,
  PARAMS_REQUIRED: 2,
  CHANNELS_REQUIRED: 3,
  SIDS_REQUIRED: 4,
  UNKNOWN_COMMAND: 5,
  UNKNOWN_SID: 7,
  UNKNOWN_CHANNEL: 8,
  AUTH_REQUIRED: 9,
  CHANNEL_ERROR: 10,
  INVALID_PARAMETER: 11,
  EXACTLY_ONE_SID: 12,
  UNSUPPORTED_ACTION: 13,
  MARKET_TICKER_REQUIRED: 14,
  ACTION_REQUIRED: 15,
  SHARD_FACTOR_POSITIVE: 19,
  SHARD_FACTOR_REQUIRED: 20,
  SHARD_KEY_RANGE: 21,
  SHARD_FACTOR_MAX: 22,
  MATCH_IDS_REQUIRED: 23,
  INDEX_IDS_REQUIRED: 24,
  BUFFER_OVERFLOW: 25,
  MARKET_LIMIT: 26,
  TOO_MANY_REQUESTS: 27,
  UNDERLYING_TICKERS_REQUIRED: 28,
} as const;
export type WsError = (typeof WsError)[keyof typeof WsError];

export const WS_ERROR_TEXT: Readonly<Record<WsError, string>> = {
  1: 'Unable to process message',
  2: 'Params required',
  3: 'Channels required',
  4: 'Subscription IDs required',
  5: 'Unknown command',
  7: 'Unknown subscription ID',
  8: 'Unknown channel name',
  9: 'Authentication required',
  10: 'Channel error',
  11: 'Invalid parameter',
  12: 'Exactly one subscription ID is required',
  13: 'Unsupported action',
  14: 'Market Ticker required',
  15: 'Action required',
  19: 'shard_factor must be > 0',
  20: 'shard_factor is required when shard_key is set',
  21: 'shard_key must be >= 0 and < shard_factor',
  22: 'shard_factor must be <= 100',
  23: 'Match IDs required',
  24: 'Index IDs required',
  25: 'Subscription buffer overflow',
  26: 'Subscription market limit exceeded',
  27: 'Too many requests',
  28: 'Underlying tickers required',
};

/**
 * Margin endpoint actions on channels outside its public surface (websocket.md §4: codes 23, 24
 * and 28 only there): each needs its id list, else its code; with the list present the action is
 * still not valid for a public subscription (13).
 */
export const MARGIN_ID_ACTIONS: Readonly<Record<string, { field: string; code: WsError }>> = {
  subscribe_matches: { field: 'match_ids', code: WsError.MATCH_IDS_REQUIRED },
  unsubscribe_matches: { field: 'match_ids', code: WsError.MATCH_IDS_REQUIRED },
  subscribe_indices: { field: 'index_ids', code: WsError.INDEX_IDS_REQUIRED },
  unsubscribe_indices: { field: 'index_ids', code: WsError.INDEX_IDS_REQUIRED },
  subscribe_underlyings: { field: 'underlying_tickers', code: WsError.UNDERLYING_TICKERS_REQUIRED },
  unsubscribe_underlyings: { field: 'underlying_tickers', code: WsError.UNDERLYING_TICKERS_REQUIRED },
};

export const WS_PATH = '/trade-api/ws/v2';
/** The Margin endpoint: the only evidence is third-party (websocket.md §8 open question 6). */
export const MARGIN_WS_PATH = '/trade-api/ws/v2/margin';
/** Order book markets across a session's subscriptions (websocket.md §8, interface-spec Limits). */
export const SESSION_MARKET_LIMIT = 500_000;
/**
 * Markets of the other market-filtered channels (ticker, trade, fill, market_positions,
 * user_orders) across a session: docs silent (§8 counts order book markets only); the same 500,000,
 * so a session's market filters cannot grow memory without bound either.
 */
export const SESSION_OTHER_MARKET_LIMIT = 500_000;
export const SESSION_COMMANDS_PER_SECOND = 10_000;
/**
 * Markets one subscription may hold: a limit exists (error 26, websocket.md §4 and §8), its value
 * is NOT FOUND. 10,000: five times the runtime's own 2,000 per subscription, and small enough that
 * the `ok` reply (which lists every market of the subscription, §3.4, kept rendered until the
 * list changes) and an unsubscribe stay near a millisecond. The session's 500,000 then takes at
 * least 50 subscriptions.
 */
export const SUBSCRIPTION_MARKET_LIMIT = 10_000;
/**
 * Entries of `market_tickers` in one command, duplicates included: docs silent. A command is one
 * unit of work that cannot be sliced, and hashing fresh ticker strings into its sets dominates it:
 * 10,000 took 3-6 ms on the 2-core development box, so 2,500 (about 1 ms), five times the
 * runtime's own 500 per command. A subscription grows past it with add_markets.
 */
export const COMMAND_MARKET_LIMIT = 2_500;
/**
 * Subscriptions open at once in a session: docs silent. Every subscription covering a market adds
 * one frame to each of its deltas, so this bounds what one session can make a delta cost. 1,000:
 * the 500,000-market session limit at the runtime's 2,000 markets per subscription needs 250.
 */
export const SESSION_SUBSCRIPTION_LIMIT = 1_000;
/**
 * Subscriptions of one channel in a session that may cover the same market (one without a market
 * filter covers every market): docs silent (code 6 "Already subscribed" is retired and what the
 * server now does on a duplicate is NOT FOUND, websocket.md §3.2). Every such subscription adds a
 * copy of each of that market's messages, and that fan-out cannot be sliced (deltas go out as the
 * engine makes them), so this is what bounds how much one session can multiply it. 4: room for a
 * client that re-subscribes before its old subscription is gone (a retried subscribe whose first
 * attempt also landed), not for a flood.
 */
export const CHANNEL_MARKET_COVERAGE_LIMIT = 4;
/** Characters of one market ticker: the OpenAPI's maxLength 200 for GET /markets/orderbooks `tickers`. */
export const TICKER_CHARS_MAX = 200;
/**
 * Largest client frame, bytes: docs silent ("max frame size NOT FOUND", §8). uWS refuses a larger
 * frame before any JavaScript sees it and drops the connection (its close handler gets 1006
 * "Received too big message"; no 1009 close frame is sent). 1 MiB holds a full 2,500-ticker
 * command with tickers of the longest allowed length (200) and decodes in a few ms.
 */
export const CLIENT_FRAME_BYTES_MAX = 1024 * 1024;
/**
 * Command text (characters) a session may have waiting for its turn (commands run in time slices,
 * work-queue.ts); beyond it a command is refused unread with error 27. Docs silent; 16 Mi, the
 * simulator's default outbound buffer per connection (error 25 beyond it): a session's queued input
 * may hold as much memory as its queued output. Sixteen of the largest frames; a second's worth of
 * ordinary commands (10,000) fits many times over.
 */
export const SESSION_QUEUED_COMMAND_CHARS_MAX = 16 * 1024 * 1024;
export const HEARTBEAT_PAYLOAD = 'heartbeat';
