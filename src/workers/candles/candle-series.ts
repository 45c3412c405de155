/**
 * Live candle series: the last `kept` candlesticks of every tracked market at every configured
 * interval, in one Float64Array over a SharedArrayBuffer (a "series snapshot"), advanced by a
 * worker from CandleBatch rows and read by strategies on the main thread.
 *
 * The runtime keeps two snapshots. The worker reads the published one (`source`, which nobody
 * writes while it is published) and writes the other (`target`): a copy of the source, advanced by
 * the batch. When the task answers, the main thread publishes the target with one assignment and
 * the old source becomes the next target. So a reader never sees a half-written candle and the
 * main thread never copies a candle.
 *
 * Layout (Float64 values; C = CANDLE_STRIDE, K = kept):
 *
 *   HEADER  0 generation | 1 asOfMs (rows up to here are in) | 2 marketCount | 3 intervalCount
 *           4 kept | 8..15 interval minutes
 *   SEEDS   marketCount x SEED_STRIDE: each market's state after the last row (candle-table.ts)
 *   RINGS   for market m, interval i: [length, K rows of C values], oldest first, newest last
 *
 * A ring's last candle is the period in progress (or the last one with data). Advancing runs the
 * one aggregation (CandleAggregator) over the periods from the one holding the previous asOf to
 * the one holding the new asOf, starting from the seeds, and merges each candle into its ring: the
 * same period is combined (open from the older part, close from the newer, extremes, summed volume
 * and the exact price x count sum, hence the mean), a later one is appended (the oldest dropped
 * when full). This file owns the layout, the advance and the reads; it never touches a clock.
 */

import { assert } from '../../core/index.ts';
import { CandleAggregator, meanOf } from './candle-aggregator.ts';
import type { CandleBatch } from './candle-batch.ts';
import { INTERVAL_MINUTES_MAX, periodEndOf, planCandles } from './candle-plan.ts';
import { CANDLE_STRIDE, CandleField as F, CandleTable, NULL_PRICE, SEED_STRIDE, SeedField, type Candle } from './candle-table.ts';

const GENERATION = 0;
const AS_OF_MS = 1;
const MARKET_COUNT = 2;
const INTERVAL_COUNT = 3;
const KEPT = 4;
const INTERVALS = 8;
export const SERIES_INTERVALS_MAX = 8;
const SEEDS = 16;
const LIMB = 2 ** 48;

/** Floats of a series snapshot. */
export function seriesLength(marketCount: number, intervalCount: number, kept: number): number {
  return SEEDS + marketCount * SEED_STRIDE + marketCount * intervalCount * (1 + kept * CANDLE_STRIDE);
}

/** A fresh snapshot over a new SharedArrayBuffer: every market unknown, every ring empty. */
export function createSeries(marketCount: number, intervals: readonly number[], kept: number): Float64Array {
  assert(Number.isSafeInteger(marketCount) && marketCount >= 1, 'createSeries: marketCount must be >= 1');
  assert(intervals.length >= 1 && intervals.length <= SERIES_INTERVALS_MAX, 'createSeries: 1 to 8 intervals');
  assert(Number.isSafeInteger(kept) && kept >= 1, 'createSeries: kept must be >= 1');
  const length = seriesLength(marketCount, intervals.length, kept);
  const values = new Float64Array(new SharedArrayBuffer(length * 8));
  values[MARKET_COUNT] = marketCount;
  values[INTERVAL_COUNT] = intervals.length;
  values[KEPT] = kept;
  for (let i = 0; i < intervals.length; i++) {
    const minutes = intervals[i];
    assert(Number.isSafeInteger(minutes) && minutes >= 1 && minutes <= INTERVAL_MINUTES_MAX, 'createSeries: interval out of range');
    values[INTERVALS + i] = minutes;
  }
  for (let m = 0; m < marketCount; m++) values[SEEDS + m * SEED_STRIDE + SeedField.LAST_PRICE] = NULL_PRICE;
  return values;
}

export function seriesGeneration(values: Float64Array): number {
  return values[GENERATION];
}

export function seriesAsOfMs(values: Float64Array): number {
  return values[AS_OF_MS];
}

/** Offset of ring (market, interval index): its length, then its rows. */
export function ringOffset(values: Float64Array, market: number, interval: number): number {
  const marketCount = values[MARKET_COUNT];
  const intervalCount = values[INTERVAL_COUNT];
  const kept = values[KEPT];
  assert(market >= 0 && market < marketCount && interval >= 0 && interval < intervalCount, 'ringOffset: out of range');
  return SEEDS + marketCount * SEED_STRIDE + (market * intervalCount + interval) * (1 + kept * CANDLE_STRIDE);
}

/** Index of `minutes` among the snapshot's intervals, -1 when not kept. */
export function intervalIndex(values: Float64Array, minutes: number): number {
  const count = values[INTERVAL_COUNT];
  for (let i = 0; i < count; i++) if (values[INTERVALS + i] === minutes) return i;
  return -1;
}

/**
 * The worker's step: `target` becomes `source` advanced by `batch` rows up to `asOfMs`. Rows of a
 * market must be in time order, none after asOfMs, none in a period before the one holding the
 * source's asOf (the main thread clamps them so).
 */
export function advanceSeries(source: Float64Array, target: Float64Array, batch: CandleBatch, asOfMs: number): void {
  assert(source.length === target.length, 'advanceSeries: snapshots of different layouts');
  assert(asOfMs >= source[AS_OF_MS], 'advanceSeries: asOf went backwards');
  target.set(source);
  const marketCount = source[MARKET_COUNT];
  const intervalCount = source[INTERVAL_COUNT];
  const kept = source[KEPT];
  const seedsIn = source.subarray(SEEDS, SEEDS + marketCount * SEED_STRIDE);
  let firstRowMs = asOfMs;
  for (let row = 0; row < batch.length; row++) if (batch.tsMs[row] < firstRowMs) firstRowMs = batch.tsMs[row];
  const previousAsOfMs = source[AS_OF_MS];
  for (let i = 0; i < intervalCount; i++) {
    const minutes = source[INTERVALS + i];
    const periodSeconds = minutes * 60;
    const lastEnd = periodEndOf(asOfMs, periodSeconds);
    let firstEnd = periodEndOf(previousAsOfMs > 0 ? Math.min(previousAsOfMs, firstRowMs) : firstRowMs, periodSeconds);
    // Never more periods than a ring keeps: older ones would fall out at once.
    const earliest = lastEnd - (kept - 1) * periodSeconds;
    if (firstEnd < earliest) firstEnd = earliest;
    const plan = planCandles(minutes, firstEnd, lastEnd, marketCount, Number.MAX_SAFE_INTEGER);
    const table = CandleTable.create(plan.periods * marketCount);
    const aggregator = new CandleAggregator(plan, marketCount, asOfMs, table, seedsIn);
    aggregator.apply(batch);
    aggregator.finish();
    for (let row = 0; row < table.length; row++) mergeCandle(target, ringOffset(target, table.get(row, F.MARKET), i), kept, table.values, row * CANDLE_STRIDE);
    if (i === intervalCount - 1) aggregator.seedsOut(target.subarray(SEEDS, SEEDS + marketCount * SEED_STRIDE));
  }
  target[AS_OF_MS] = asOfMs;
  target[GENERATION] = source[GENERATION] + 1;
}

/** Merges one candle (values v at `at`) into the ring at `ring`: combine, append, or ignore when older. */
function mergeCandle(values: Float64Array, ring: number, kept: number, v: Float64Array, at: number): void {
  const length = values[ring];
  const endTs = v[at + F.END_TS];
  if (length > 0) {
    const last = ring + 1 + (length - 1) * CANDLE_STRIDE;
    const lastEnd = values[last + F.END_TS];
    if (endTs < lastEnd) return;
    if (endTs === lastEnd) {
      combine(values, last, v, at);
      return;
    }
  }
  let slot = length;
  if (length === kept) {
    values.copyWithin(ring + 1, ring + 1 + CANDLE_STRIDE, ring + 1 + kept * CANDLE_STRIDE);
    slot = kept - 1;
  } else {
    values[ring] = length + 1;
  }
  const to = ring + 1 + slot * CANDLE_STRIDE;
  for (let f = 0; f < CANDLE_STRIDE; f++) values[to + f] = v[at + f];
}

/** The older part at `o` of `values` and the newer part at `at` of `v`, same period: into `o`. */
function combine(values: Float64Array, o: number, v: Float64Array, at: number): void {
  const tradesNew = v[at + F.TRADES];
  if (tradesNew > 0) {
    if (values[o + F.TRADES] === 0) {
      values[o + F.OPEN] = v[at + F.OPEN];
      values[o + F.HIGH] = v[at + F.HIGH];
      values[o + F.LOW] = v[at + F.LOW];
    } else {
      if (v[at + F.HIGH] > values[o + F.HIGH]) values[o + F.HIGH] = v[at + F.HIGH];
      if (v[at + F.LOW] < values[o + F.LOW]) values[o + F.LOW] = v[at + F.LOW];
    }
    values[o + F.CLOSE] = v[at + F.CLOSE];
    values[o + F.TRADES] += tradesNew;
    values[o + F.VOLUME] += v[at + F.VOLUME];
    let hi = values[o + F.SUM_HI] + v[at + F.SUM_HI];
    let lo = values[o + F.SUM_LO] + v[at + F.SUM_LO]; // two values below 2^48: exact
    if (lo >= LIMB) {
      hi += 1;
      lo -= LIMB;
    }
    values[o + F.SUM_HI] = hi;
    values[o + F.SUM_LO] = lo;
    values[o + F.MEAN] = meanOf(hi, lo, values[o + F.VOLUME]);
  }
  for (const [high, low, close] of TOPS) {
    if (v[at + high] > values[o + high]) values[o + high] = v[at + high];
    if (v[at + low] < values[o + low]) values[o + low] = v[at + low];
    values[o + close] = v[at + close];
  }
  values[o + F.OPEN_INTEREST] = v[at + F.OPEN_INTEREST];
}

const TOPS: ReadonlyArray<readonly [number, number, number]> = [
  [F.BID_HIGH, F.BID_LOW, F.BID_CLOSE],
  [F.ASK_HIGH, F.ASK_LOW, F.ASK_CLOSE],
];

/**
 * Backfill (the main thread, while no task runs): the venue's candles of one market at one
 * interval, oldest first, replace the ring's candles up to the last one's period (the venue's
 * figures win where both exist: they include trades from before this process). Live candles of
 * later periods stay. When the market had no live row yet, its seeds come from the last candle.
 * The candles' mean times volume stands in for the exact sum (the venue sends no sum): a later
 * merge into that period then has a mean within one 1/10,000 dollar of the exact one.
 */
export function writeBackfill(values: Float64Array, market: number, interval: number, candles: readonly Candle[]): void {
  if (candles.length === 0) return;
  const kept = values[KEPT];
  const ring = ringOffset(values, market, interval);
  const lastEnd = candles[candles.length - 1].endTs;
  // Live candles after the backfill's last period, kept in order.
  const live: number[] = [];
  for (let r = 0; r < values[ring]; r++) {
    const at = ring + 1 + r * CANDLE_STRIDE;
    if (values[at + F.END_TS] > lastEnd) live.push(at);
  }
  const liveRows = live.map((at) => values.slice(at, at + CANDLE_STRIDE));
  const keepBackfill = Math.max(0, Math.min(candles.length, kept - liveRows.length));
  let n = 0;
  for (let c = candles.length - keepBackfill; c < candles.length; c++) writeCandle(values, ring + 1 + n++ * CANDLE_STRIDE, market, candles[c]);
  for (const row of liveRows.slice(Math.max(0, liveRows.length - kept))) values.set(row, ring + 1 + n++ * CANDLE_STRIDE);
  values[ring] = n;
  const seed = SEEDS + market * SEED_STRIDE;
  if (values[seed + SeedField.KNOWN] === 0) {
    const last = candles[candles.length - 1];
    values[seed + SeedField.LAST_PRICE] = last.close !== NULL_PRICE ? last.close : last.previous;
    values[seed + SeedField.YES_BID] = last.yesBid.close;
    values[seed + SeedField.YES_ASK] = last.yesAsk.close;
    values[seed + SeedField.OPEN_INTEREST] = last.openInterest;
    values[seed + SeedField.KNOWN] = 1;
  }
}

function writeCandle(values: Float64Array, o: number, market: number, c: Candle): void {
  values[o + F.MARKET] = market;
  values[o + F.END_TS] = c.endTs;
  values[o + F.OPEN] = c.open;
  values[o + F.HIGH] = c.high;
  values[o + F.LOW] = c.low;
  values[o + F.CLOSE] = c.close;
  values[o + F.MEAN] = c.mean;
  values[o + F.PREVIOUS] = c.previous;
  values[o + F.VOLUME] = c.volume;
  const sum = c.mean === NULL_PRICE ? 0 : c.mean * c.volume;
  const hi = Math.floor(sum / LIMB);
  values[o + F.SUM_HI] = hi;
  values[o + F.SUM_LO] = sum - hi * LIMB;
  values[o + F.TRADES] = c.trades > 0 ? c.trades : c.volume > 0 ? 1 : 0;
  values[o + F.BID_OPEN] = c.yesBid.open;
  values[o + F.BID_HIGH] = c.yesBid.high;
  values[o + F.BID_LOW] = c.yesBid.low;
  values[o + F.BID_CLOSE] = c.yesBid.close;
  values[o + F.ASK_OPEN] = c.yesAsk.open;
  values[o + F.ASK_HIGH] = c.yesAsk.high;
  values[o + F.ASK_LOW] = c.yesAsk.low;
  values[o + F.ASK_CLOSE] = c.yesAsk.close;
  values[o + F.OPEN_INTEREST] = c.openInterest;
}

/** A candle of a snapshot as a record (allocates: for strategies that want one, tests, logs). */
export function readCandle(values: Float64Array, at: number): Candle {
  return {
    market: values[at + F.MARKET],
    endTs: values[at + F.END_TS],
    open: values[at + F.OPEN],
    high: values[at + F.HIGH],
    low: values[at + F.LOW],
    close: values[at + F.CLOSE],
    mean: values[at + F.MEAN],
    previous: values[at + F.PREVIOUS],
    volume: values[at + F.VOLUME],
    trades: values[at + F.TRADES],
    yesBid: { open: values[at + F.BID_OPEN], high: values[at + F.BID_HIGH], low: values[at + F.BID_LOW], close: values[at + F.BID_CLOSE] },
    yesAsk: { open: values[at + F.ASK_OPEN], high: values[at + F.ASK_HIGH], low: values[at + F.ASK_LOW], close: values[at + F.ASK_CLOSE] },
    openInterest: values[at + F.OPEN_INTEREST],
  };
}
