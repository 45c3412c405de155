/**
 * WebSocket protocol constants (spec/websocket.md §2-§4): channel names, which are private, which
 * message types carry `seq`, the error codes with their wire texts, and the session limits. This
 * file owns the tables only; sessions and fan-out read them.
 *
 * Session limits (websocket.md §8; the codes are our choice where the docs say NOT FOUND):
 *   500,000 order book market subscriptions per session -> error 26 "Subscription market limit exceeded"
 *   10,000 commands per second per session             -> error 27 "Too many requests"
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
  | 'vendorB_value_5hz';

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
];

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
  BUFFER_OVERFLOW: 25,
  MARKET_LIMIT: 26,
  TOO_MANY_REQUESTS: 27,
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
  25: 'Subscription buffer overflow',
  26: 'Subscription market limit exceeded',
  27: 'Too many requests',
};

export const WS_PATH = '/trade-api/ws/v2';
export const SESSION_MARKET_LIMIT = 500_000;
export const SESSION_COMMANDS_PER_SECOND = 10_000;
export const HEARTBEAT_PAYLOAD = 'heartbeat';
