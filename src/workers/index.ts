/**
 * Work that runs beside the hot path, in piscina worker threads: candlesticks (candles/, the
 * venue's arithmetic and the runtime's live series) and portfolio risk (portfolio/). One pool
 * (CandlePool) runs every task. Other folders import workers only through this file.
 */

export * from './candles/index.ts';
export * from './portfolio/index.ts';
