/**
 * The risk folder's public surface: the gate, its intent record and deny codes, its limits and the
 * state it reads (markets, exposure ledgers of both exchanges, order groups, rate budget). Other
 * folders import risk only through this file. Risk never does I/O and never awaits.
 */

export { Deny, DENY_NAMES, DENY_CODE_COUNT, CHECK_ORDER, MARGIN_CHECK_ORDER, TRIGGER_CHECK_ORDER, OMS_DENIES, QUOTE_CHECK_ORDER, QUOTE_BOOK_DENIES, denyName } from './deny.ts';
export { QuoteAction, QuoteIntent, QUOTE_TOKEN_COST } from './quote-intent.ts';
export { DEFAULT_RISK_LIMITS, TIER_WRITE_BUDGETS, RiskLimitsError, riskLimits, riskLimitsFromConfig, validateRiskLimits, budgetOf, defaultInitialMarginPpm } from './limits.ts';
export type { RiskConfigSection, RiskLimits, RiskRateTier, TierWriteBudget } from './limits.ts';
export { TradingState, tradingStateOf } from './trading-state.ts';
export type { TradingStateName } from './trading-state.ts';
export { RateBudget } from './rate-budget.ts';
export { RiskMarket, RiskMarkets } from './risk-markets.ts';
export type { BookView, RiskMarketOptions } from './risk-markets.ts';
export { ExposureLedger, ExposureSlot, SUBACCOUNT_COUNT, costMicro, worstOf } from './exposure-ledger.ts';
export { MarginExposure, MarginSlot, marginNotional } from './margin-exposure.ts';
export { OrderGroup, OrderGroups } from './order-groups.ts';
export { CROSS_BRACKETS_MAX, DenyDetail, RiskGate, TRIGGER_TOKEN_COST } from './risk-gate.ts';
export type { OrderGroupUpdate, RiskGateOptions, VerdictProbe } from './risk-gate.ts';
export { OrderBookings } from './order-bookings.ts';
export type { BookedOrder } from './order-bookings.ts';
export { QuoteBookings, QUOTE_SIDE_NO, QUOTE_SIDE_YES } from './quote-bookings.ts';
export type { BookedQuote } from './quote-bookings.ts';
export { PortfolioField, PortfolioView, portfolioSnapshotLength } from './portfolio-view.ts';
