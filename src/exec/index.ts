/**
 * The exec folder's public surface: the REST V2 route behind the OMS's order-entry port
 * (src/oms/order-route.ts) (RestOrderEntry, with worker-thread presigning, over src/net's raw HTTP/1.1 client),
 * and the Margin exchange's route on the same transport (MarginOrderEntry).
 * Other folders import exec only through this file. Exec encodes and transports orders; it never bypasses the risk gate and never
 * keeps order state.
 */

export {
  REST_ORDER_ENTRY_DEFAULTS,
  RestOrderEntry,
  RestOrderEntryConfigError,
} from './rest/rest-order-entry.ts';
export type {
  CancelRoute,
  PresignSettings,
  RestOrderEntryOptions,
  RestOrderEntryStats,
  SigningMode,
} from './rest/rest-order-entry.ts';
export { ACCOUNT_CLIENT_DEFAULTS, AccountClient } from './rest/account-client.ts';
export { REST_QUOTE_ROUTE_DEFAULTS, RestQuoteRoute, encodeCreateQuote, parseWireQuote } from './rest/quote-route.ts';
export type { RestQuoteRouteOptions } from './rest/quote-route.ts';
export type { AccountBalance, AccountClientOptions } from './rest/account-client.ts';
export { BudgetedRestClient, READ_RETRY_DEFAULTS, retryAfterMs } from './rest/budgeted-rest-client.ts';
export type { BudgetedRestClientOptions, ReadRetryOptions, SignedTransport } from './rest/budgeted-rest-client.ts';
export { ReadPacer, ReadPacerClosedError, SYSTEM_TIMERS } from './rest/read-pacer.ts';
export type { PacerTimers } from './rest/read-pacer.ts';
export { DEFAULT_ENDPOINT_COST, EndpointCosts } from './rest/endpoint-costs.ts';
export { PRESIGN_MAX_AGE_LIMIT_MS, Presigner, PresignerError, signatureText } from './rest/presigner.ts';
export type { PresignEndpoint, PresignedSignature, PresignerErrorCode, PresignerOptions, PresignerStats } from './rest/presigner.ts';
export { AmendBodyWriter, CreateBodyWriter, OneCancelBodyWriter, encodeCreateOrder, jsonString, writeCreateBody } from './rest/order-body.ts';
export type { OrderPathSignaturesStats } from './rest/order-path-signatures.ts';
export {
  MARGIN_CONTRACT, MARGIN_ORDER_ENTRY_DEFAULTS, MARGIN_ORDER_VENUE, MarginOrderEntry, MarginRefusal,
  marginAmendProblem, marginCountProblem, marginOrderProblem, marginPriceProblem, ExitTriggerClient, encodeMarginCreate,
} from './margin/index.ts';
export type { MarginBalance, MarginOrderEntryOptions, MarginReadSettings, MarginWireFill, MarginWireOrder, MarginWirePosition } from './margin/index.ts';
export { PREDICTIONS_ORDER_VENUE } from './rest/rest-order-entry.ts';
export type { RestOrderVenue } from './rest/rest-order-entry.ts';
export { FIX_ORDER_ENTRY_DEFAULTS, FixOrderEntry, FixOrderEntryConfigError, FIX_QUOTE_ROUTE_DEFAULTS, FixQuoteRoute, readQuoteRequest, writeQuoteBody } from './fix/index.ts';
export type { FixOrderEntryOptions, FixOrderEntryStats, FixQuoteRouteOptions, FixQuoteRouteStats, RfqEventListener } from './fix/index.ts';
