/**
 * The simulator's history: per-market tapes of trades, book tops and open interest recorded from
 * the engine, candlesticks computed from them by the shared arithmetic of src/workers/candles,
 * and their JSON. The servers import history only through this file.
 */

export { SimHistory, HISTORY_DEFAULTS, type CandleAnswer, type SimHistoryOptions, type TradeWalkQuery } from './sim-history.ts';
export { MarketTape } from './market-tape.ts';
export { candleToJson, candleToHistoricalJson, candlesToJson, candlesToHistoricalJson } from './candle-json.ts';
