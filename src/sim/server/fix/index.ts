/**
 * The simulator's FIX acceptor (fix.md): listeners for KalshiNR, KalshiRT, KalshiDC, KalshiPT, KalshiRFQ
 * and KalshiMD on free ports, order entry mapped onto the engine, execution reports, drop-copy replay,
 * market data (V/W/X/Y, e/f) and settlement reports (UMS).
 */

export { FixAcceptor, FIX_ACCEPTOR_DEFAULTS, FIX_SESSIONS_SERVED, MARGIN_FIX_SESSIONS_SERVED } from './fix-acceptor.ts';
export type { FixAcceptorOptions, FixSessionKindServed, MarginFixSessionServed } from './fix-acceptor.ts';
export { MarginFixHub } from './margin-fix-hub.ts';
export { MARGIN_ORD_REJ_STALE, STALE_ORDER_MS } from './margin-order-entry-connection.ts';
export { MARGIN_HEARTBEAT } from './fix-acceptor.ts';
export { ReportHub } from './report-hub.ts';
export { parseExecId } from './execution-report.ts';
export { easternDate, easternEndOfDayMs } from './eastern-time.ts';
export { MarketDataHub, SecurityTradingStatus } from './market-data-hub.ts';
export { QuoteStatus } from './rfq-hub.ts';
export { MDReqRejReason } from './market-data-connection.ts';
export { writeSettlementReport, type SettlementPage } from './settlement-reports.ts';
