/**
 * Candlesticks off the event loop: the one implementation of the arithmetic (CandleAggregator over
 * columnar CandleBatch rows into CandleTable rows, for the periods a CandlePlan covers), the piscina
 * task that runs it in a worker, and CandlePool. The simulator's candlestick routes and the
 * runtime both import it from here, so the arithmetic is written and tested once.
 */

export { CandleAggregator, meanOf } from './candle-aggregator.ts';
export { CandleBatch, BATCH_ROW_BYTES, PRICE_MAX, ROW_COUNT_MAX, UNCHANGED, type BatchBuffer } from './candle-batch.ts';
export {
  INTERVAL_MINUTES_MAX,
  MAX_AGGREGATE_CANDIDATES,
  PERIOD_INTERVALS,
  isPeriodInterval,
  periodEndOf,
  planCandles,
  type CandlePlan,
  type PeriodInterval,
} from './candle-plan.ts';
export { CANDLE_STRIDE, CandleField, CandleTable, NULL_PRICE, SEED_STRIDE, SeedField, createSeeds, type Candle } from './candle-table.ts';
export { runCandleTask, type CandleTaskInput, type CandleTaskOutput } from './candle-task.ts';
export { CandlePool, CandlePoolError, CANDLE_POOL_DEFAULTS, type CandlePoolErrorCode, type CandlePoolOptions, type CandleRequest, type CandleResult } from './candle-pool.ts';
export { SERIES_INTERVALS_MAX, advanceSeries, createSeries, intervalIndex, readCandle, ringOffset, seriesAsOfMs, seriesGeneration, seriesLength, writeBackfill } from './candle-series.ts';
export { runCandleSeriesTask, type CandleSeriesTaskInput, type CandleSeriesTaskOutput } from './candle-series-task.ts';
export { CandleFeed, CandleFeedStats, LiveCandles, type CandleFeedOptions } from './candle-feed.ts';
