/**
 * The oms folder's public surface: the OMS (order state machine driver, ExecListener, feed sink,
 * kill switch, reconciliation), its state/event codes and transition table, the journal and
 * recover(), client order ids, positions. Other folders import oms only through this file.
 * The OMS never chooses prices.
 */

export { Oms, OmsResult } from './oms.ts';
export type { OmsOptions, OmsStats } from './oms.ts';
export { OrderState, OrderEvent, ORDER_STATE_NAMES, ORDER_EVENT_NAMES, ORDER_STATE_COUNT, ORDER_EVENT_COUNT, isLive, isTerminal } from './order-state.ts';
export { TRANSITIONS, NO_TRANSITION, nextState } from './transitions.ts';
export type { TransitionRow } from './transitions.ts';
export { Order } from './order.ts';
export { OrderPool } from './order-pool.ts';
export { VENUE_ID_BYTES_MAX, VenueIdIndex, VenueIdStore, hashIdBytes, hashIdText, storableBytes, storableText } from './venue-order-ids.ts';
export type { VenueIdHolder } from './venue-order-ids.ts';
export { ClientOrderIds, ClientOrderIdError, CLIENT_ORDER_ID_BYTES_MAX, parseClientOrderId, nextSessionEpoch } from './client-order-ids.ts';
export type { ParsedClientOrderId } from './client-order-ids.ts';
export { Journal, JournalKind, recover } from './journal.ts';
export type { JournalOptions, RecoveredJournal, RecoveredKill, RecoveredOrder, RecoveredFill, RecoveredQuote, JournaledQuote } from './journal.ts';
export { QuoteBook, Quote, Rfq, QuoteResult, QuoteBookStats, CONFIRM_WINDOW_MS } from './quote-book.ts';
export type { QuoteBookOptions, QuoteUpdateSink, RfqInput, QuoteMessageInput } from './quote-book.ts';
export { QuoteState, QuoteEvent, QUOTE_STATE_NAMES, QUOTE_EVENT_NAMES, QUOTE_TRANSITIONS, nextQuoteState, isQuoteTerminal } from './quote-state.ts';
export type { QuoteStatusName, QuoteTransitionRow } from './quote-state.ts';
export type { QuoteEntry, QuoteListener, QuoteRequest, WireQuote } from './quote-route.ts';
export { Position, PositionBook, POSITION_UNKNOWN } from './positions.ts';
export { FillDedup } from './fill-dedup.ts';
export { reconcileRound } from './reconciler.ts';
export type { ReconcileHost, ReconcileRoundResult } from './reconciler.ts';
export { SILENT_LOGGER } from './oms-inputs.ts';
export type { FillInput, UserOrderInput, MarketPositionInput, OrderGroupUpdateInput, OmsLogger, SystemOrder } from './oms-inputs.ts';
export { EXEC_ERROR_CODES, ExecError } from './order-route.ts';
export type {
  CreateKey,
  ExecErrorCode,
  ExecListener,
  ExecReject,
  FillsQuery,
  NewOrder,
  OrderEntry,
  OrderKey,
  OrderStatus,
  OrdersQuery,
  PositionsQuery,
  SelfTradePrevention,
  TimeInForce,
  VenueOrderRef,
  WireFill,
  WireOrder,
  WirePosition,
} from './order-route.ts';
export type { OrderReads } from './order-route.ts';
export { NO_LISTENER, NO_SENDER } from './oms-ports.ts';
export type { OmsListener, OmsSender, OrderUpdateSink } from './oms-ports.ts';
export {
  EXIT_TRIGGER_TABLE_DEFAULTS, EXIT_TRIGGER_VENUE_CODES, ExitTriggerError, ExitTriggerTable, TRIGGER_STATE_NAMES, TrackedTrigger, TriggerState,
} from './exit-triggers.ts';
export type {
  ExitTriggerLeg, ExitTriggerOutcome, ExitTriggerStatus, ExitTriggerTableOptions, ExitTriggerTableStats, ExitTriggerVenue, TriggerGate, TriggerMarkets,
  TriggerSubmitResult, WireExitTrigger,
} from './exit-triggers.ts';
