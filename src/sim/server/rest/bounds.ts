/**
 * Size and character bounds of client-chosen strings on the REST API, so that no request can make
 * the simulator keep, scan or echo unbounded text (a client order id is kept for the account's
 * lifetime, rest.md §2). Each bound gives its source, or says the docs are silent and why the value.
 * Violations answer 400: nested `bad_request` naming the field for bodies and path parameters,
 * the bare {"msg"} shape for query parameters (rest.md §2). This file owns the numbers and the
 * checks; the body and query readers call them.
 */

/**
 * client_order_id and updated_client_order_id: at most 64 characters, the exchange's ClOrdID bound
 * (fix.md §5, NewOrderSingle tag 11: "at most 64 characters, UUID preferred"; REST and FIX share
 * the order id space). Characters: docs silent; printable ASCII without space (0x21-0x7E) admits
 * UUIDs and every id scheme we know (the runtime's "mm1-mhc0x2ps-1042") while keeping control
 * bytes, spaces and non-ASCII text out of logs, FIX tag values and JSON echoes.
 */
export const CLIENT_ORDER_ID_CHARS_MAX = 64;

/**
 * Ids the exchange makes (order_id, order_group_id), sent back by clients: uuid-shaped, 36
 * characters. Docs silent on a bound; the same 64 printable ASCII characters as client order ids.
 */
export const ID_CHARS_MAX = 64;

/**
 * Market, event and series tickers and other path parameters: the OpenAPI document's maxLength 200
 * on GET /markets/orderbooks `tickers` items, the only bound it states for a ticker.
 */
export const TICKER_CHARS_MAX = 200;

/** Path parameters other than ids (`*_id`, ID_CHARS_MAX): tickers. */
export const PATH_PARAM_CHARS_MAX = TICKER_CHARS_MAX;

/**
 * One query parameter value (or one item of a list parameter): docs silent; every documented
 * string parameter is a ticker, an id, an enum value or a cursor the server made, so the ticker
 * bound.
 */
export const QUERY_VALUE_CHARS_MAX = TICKER_CHARS_MAX;

/**
 * Items of a list query parameter where the docs give no number: the largest documented one,
 * GET /markets/orderbooks `tickers` (OpenAPI maxItems 100). `event_ticker` on GET /portfolio/orders
 * has its own 10 (rest.md §4, "comma-separated, up to 10").
 */
export const QUERY_LIST_ITEMS_MAX = 100;
export const ORDERS_EVENT_TICKERS_MAX = 10;

/**
 * The raw query string, bytes: docs silent; 32 KiB holds the largest documented query
 * (100 tickers of 200 characters, repeated keys and separators included, about 21 KiB).
 */
export const QUERY_BYTES_MAX = 32 * 1024;

/** True for 1-`max` characters of printable ASCII without space (0x21-0x7E). */
export function isPrintableId(value: string, max: number): boolean {
  if (value.length === 0 || value.length > max) return false;
  for (let i = 0; i < value.length; i++) {
    const code = value.charCodeAt(i);
    if (code < 0x21 || code > 0x7e) return false;
  }
  return true;
}

/** A value for an error message: short values verbatim (as JSON), long ones by their length only. */
export function shown(value: string): string {
  return value.length <= 64 ? JSON.stringify(value) : `a string of ${value.length} characters`;
}
