/**
 * Work that runs beside the hot path, in piscina worker threads: candlesticks (candles/). Other
 * folders import workers only through this file.
 */

export * from './candles/index.ts';
