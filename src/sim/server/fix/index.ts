/**
 * The simulator's FIX acceptor (fix.md): listeners for KalshiNR, KalshiRT, KalshiDC, KalshiPT, KalshiRFQ
 * and KalshiMD on free ports, order entry mapped onto the engine, execution reports, drop-copy replay,
 * market data (V/W/X/Y, e/f) and settlement reports (UMS).
 */

export { FixAcceptor, FIX_ACCEPTOR_DEFAULTS, FIX_SESSIONS_SERVED } from './fix-acceptor.ts';
export type { FixAcceptorOptions, FixSessionKindServed } from './fix-acceptor.ts';
export { ReportHub } from './report-hub.ts';
export { parseExecId } from './execution-report.ts';
export { easternDate, easternEndOfDayMs } from './eastern-time.ts';
export { MarketDataHub, SecurityTradingStatus } from './market-data-hub.ts';
export { QuoteStatus } from './rfq-hub.ts';
export { MDReqRejReason } from './market-data-connection.ts';
export { writeSettlementReport, type SettlementPage } from './settlement-reports.ts';
