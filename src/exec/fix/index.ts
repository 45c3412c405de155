/**
 * The FIX routes: order entry behind the OMS's order-entry port (fix-order-entry.ts), and quotes
 * behind the quote book's port with the KalshiRFQ session's RFQ feed (fix-quote-route.ts).
 */

export { FIX_ORDER_ENTRY_DEFAULTS, FixOrderEntry, FixOrderEntryConfigError } from './fix-order-entry.ts';
export type { FixOrderEntryOptions, FixOrderEntryStats } from './fix-order-entry.ts';
export { FIX_QUOTE_ROUTE_DEFAULTS, FixQuoteRoute, readQuoteRequest, writeQuoteBody } from './fix-quote-route.ts';
export type { FixQuoteRouteOptions, FixQuoteRouteStats, RfqEventListener } from './fix-quote-route.ts';
