/**
 * The simulator's FIX acceptor (fix.md): listeners for KalshiNR, KalshiRT and KalshiDC on free
 * ports, order entry mapped onto the engine, execution reports, drop-copy replay.
 */

export { FixAcceptor, FIX_ACCEPTOR_DEFAULTS, FIX_SESSIONS_SERVED } from './fix-acceptor.ts';
export type { FixAcceptorOptions, FixSessionKindServed } from './fix-acceptor.ts';
export { ReportHub } from './report-hub.ts';
export { parseExecId } from './execution-report.ts';
export { easternDate, easternEndOfDayMs } from './eastern-time.ts';
