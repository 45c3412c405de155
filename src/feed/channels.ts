/**
 * The exchange's WebSocket channel names the feed subscribes to (spec/websocket.md §3.2) and which
 * of them take a market filter. Owns names only.
 */

export const Channel = {
  ORDERBOOK: 'orderbook_delta',
  TRADE: 'trade',
  FILL: 'fill',
  USER_ORDERS: 'user_orders',
  MARKET_POSITIONS: 'market_positions',
  ORDER_GROUP_UPDATES: 'order_group_updates',
  MARKET_LIFECYCLE: 'market_lifecycle_v2',
  /** RFQs (public) and quotes (the two parties only); market filter ignored (websocket.md §6.11). */
  COMMUNICATIONS: 'communications',
  /** Margin endpoint only: last price, bid/ask and marks per market (websocket.md §7.2; also called margin_ticker). */
  TICKER: 'ticker',
} as const;
export type Channel = (typeof Channel)[keyof typeof Channel];

/** Channels that accept market_ticker(s); orderbook_delta requires one, the others treat none as "all". */
export function isMarketFiltered(channel: string): boolean {
  return (
    channel === Channel.ORDERBOOK ||
    channel === Channel.TRADE ||
    channel === Channel.FILL ||
    channel === Channel.USER_ORDERS ||
    channel === Channel.MARKET_POSITIONS ||
    channel === 'ticker'
  );
}

/** Terminal subscription errors (spec/websocket.md §4): the subscription is dead and must be re-created. */
export const TERMINAL_ERROR_CODES: readonly number[] = [10, 17, 25];
export const ERROR_UNKNOWN_SID = 7;
export const ERROR_CHANNEL = 10;
export const ERROR_COMMAND_TIMEOUT = 18;
export const ERROR_BUFFER_OVERFLOW = 25;
export const ERROR_TOO_MANY_REQUESTS = 27;

/** Errors worth retrying the same command for after a pause (not the client's fault). */
export function isTransientError(code: number): boolean {
  return code === ERROR_CHANNEL || code === 17 || code === ERROR_COMMAND_TIMEOUT || code === ERROR_TOO_MANY_REQUESTS;
}
