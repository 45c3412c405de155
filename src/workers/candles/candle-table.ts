/**
 * CandleTable: aggregated candlesticks as fixed-stride rows of one Float64Array (transferable back
 * from a worker in one move), and CandleSeeds: what a market looked like before a batch's first
 * row. Every value is an integer in the unit the exchange uses internally: prices in 1/10,000
 * dollar, counts in 1/100 contract, times in Unix seconds. NULL_PRICE marks "no trade".
 *
 * Row layout (CANDLE_STRIDE values):
 *
 *   market endTs | open high low close mean previous | volume sumHi sumLo trades |
 *   bidOpen bidHigh bidLow bidClose | askOpen askHigh askLow askClose | openInterest
 *
 * sumHi x 2^48 + sumLo is the exact sum of price x count of the period's trades (mean's numerator,
 * kept so a consumer can combine two partial candles). This file owns the layout and plain reads;
 * aggregation lives in candle-aggregator.ts, wire JSON with whoever serves it.
 */

import { assert } from '../../core/index.ts';

export const CandleField = {
  MARKET: 0,
  END_TS: 1,
  OPEN: 2,
  HIGH: 3,
  LOW: 4,
  CLOSE: 5,
  MEAN: 6,
  PREVIOUS: 7,
  VOLUME: 8,
  SUM_HI: 9,
  SUM_LO: 10,
  TRADES: 11,
  BID_OPEN: 12,
  BID_HIGH: 13,
  BID_LOW: 14,
  BID_CLOSE: 15,
  ASK_OPEN: 16,
  ASK_HIGH: 17,
  ASK_LOW: 18,
  ASK_CLOSE: 19,
  OPEN_INTEREST: 20,
} as const satisfies Record<string, number>;
export const CANDLE_STRIDE = 21;

/** A price field with no value: no trade in the period (or, for PREVIOUS, none before it). */
export const NULL_PRICE = -1;

/** One candle as a plain record (tests, rendering); the table itself stays flat. */
export interface Candle {
  market: number;
  endTs: number;
  /** NULL_PRICE when the period had no trade. */
  open: number;
  high: number;
  low: number;
  close: number;
  mean: number;
  /** Last trade price before the period; NULL_PRICE when none. */
  previous: number;
  volume: number;
  trades: number;
  yesBid: { open: number; high: number; low: number; close: number };
  yesAsk: { open: number; high: number; low: number; close: number };
  openInterest: number;
}

export class CandleTable {
  readonly values: Float64Array;
  readonly capacity: number;
  /** Rows written. */
  length: number;

  constructor(values: Float64Array, length = 0) {
    assert(values.length % CANDLE_STRIDE === 0, 'CandleTable: values not a whole number of rows');
    this.values = values;
    this.capacity = values.length / CANDLE_STRIDE;
    assert(Number.isSafeInteger(length) && length >= 0 && length <= this.capacity, 'CandleTable: length out of range');
    this.length = length;
  }

  static create(capacity: number): CandleTable {
    assert(Number.isSafeInteger(capacity) && capacity >= 0, 'CandleTable.create: bad capacity');
    return new CandleTable(new Float64Array(capacity * CANDLE_STRIDE));
  }

  /** A value of row `row`: `table.get(i, CandleField.CLOSE)`. */
  get(row: number, field: number): number {
    return this.values[row * CANDLE_STRIDE + field];
  }

  /** Row `row` as a Candle record (allocates: for rendering and tests, not per trade). */
  candle(row: number): Candle {
    assert(row >= 0 && row < this.length, 'CandleTable.candle: row out of range');
    const v = this.values;
    const at = row * CANDLE_STRIDE;
    return {
      market: v[at + CandleField.MARKET],
      endTs: v[at + CandleField.END_TS],
      open: v[at + CandleField.OPEN],
      high: v[at + CandleField.HIGH],
      low: v[at + CandleField.LOW],
      close: v[at + CandleField.CLOSE],
      mean: v[at + CandleField.MEAN],
      previous: v[at + CandleField.PREVIOUS],
      volume: v[at + CandleField.VOLUME],
      trades: v[at + CandleField.TRADES],
      yesBid: { open: v[at + CandleField.BID_OPEN], high: v[at + CandleField.BID_HIGH], low: v[at + CandleField.BID_LOW], close: v[at + CandleField.BID_CLOSE] },
      yesAsk: { open: v[at + CandleField.ASK_OPEN], high: v[at + CandleField.ASK_HIGH], low: v[at + CandleField.ASK_LOW], close: v[at + CandleField.ASK_CLOSE] },
      openInterest: v[at + CandleField.OPEN_INTEREST],
    };
  }

  /** Every row as records, in table order. */
  candles(): Candle[] {
    const out: Candle[] = [];
    for (let row = 0; row < this.length; row++) out.push(this.candle(row));
    return out;
  }
}

/**
 * A market's state before (or after) a batch, SEED_STRIDE values per market in one Float64Array:
 * lastPrice (NULL_PRICE when it never traded), yesBid, yesAsk, openInterest, known (1 when the
 * market had any event before: periods before its first event are not candles, see
 * candle-aggregator.ts). A fresh market is NULL_PRICE, 0, 0, 0, 0: empty book, nothing open.
 */
export const SeedField = { LAST_PRICE: 0, YES_BID: 1, YES_ASK: 2, OPEN_INTEREST: 3, KNOWN: 4 } as const satisfies Record<string, number>;
export const SEED_STRIDE = 5;

export function createSeeds(marketCount: number): Float64Array {
  const seeds = new Float64Array(marketCount * SEED_STRIDE);
  for (let m = 0; m < marketCount; m++) seeds[m * SEED_STRIDE + SeedField.LAST_PRICE] = NULL_PRICE;
  return seeds;
}
