/**
 * CandleAggregator: THE candlestick arithmetic, used by the worker task (candle-task.ts) and by
 * the simulator's candlestick routes alike. It streams CandleBatch rows (one or several ranges,
 * e.g. the two halves of a ring) into CandleTable rows for the periods a CandlePlan covers, with
 * per-market state in one preallocated Float64Array: no allocation per row, integers only.
 *
 * Per period, per market (all values integers; prices 1/10,000 dollar, counts 1/100 contract):
 *   price.open/close      first/last trade price in the period; high/low the extremes
 *   price.mean            volume-weighted: floor(sum(price x count) / sum(count)), exact (the sum
 *                         is kept in two limbs, hi x 2^48 + lo, so it never leaves safe integers)
 *   price.previous        last trade price before the period (any earlier period), else null
 *   price.* when the period has no trade: null (NULL_PRICE), as the schema's nullable fields say
 *   yes_bid / yes_ask     open = the top in force when the period starts, close = at its end,
 *                         high/low over open and every change inside; 0 = that side was empty
 *   volume                sum of trade counts; open_interest: contracts open at the period's end
 *
 * Empty periods (reading of the OpenAPI, see src/workers/candles/README.md): BidAskDistribution
 * fields are required and not nullable, PriceDistribution fields are nullable "if no trades
 * occurred", so a period without events is still a candlestick: price fields null (previous
 * carried), yes_bid / yes_ask flat at the top in force, volume 0, open interest carried. Candles
 * run densely from the market's first known event to the plan's last period, capped at the period
 * holding `asOfMs` (no candles for the future). Periods before a market's first event are not
 * candles: there is no top to state.
 *
 * It never allocates per row, never awaits, and never reads a clock: asOfMs is given.
 */

import { assert } from '../../core/index.ts';
import type { CandleBatch } from './candle-batch.ts';
import { periodEndOf, type CandlePlan } from './candle-plan.ts';
import { CANDLE_STRIDE, CandleField as F, NULL_PRICE, SEED_STRIDE, SeedField, type CandleTable } from './candle-table.ts';

const LIMB = 2 ** 48;

// Per-market state, STATE_STRIDE values each.
const S_OPEN_ROW = 0; // table row of the open candle, -1 none
const S_END = 1; // its period end (s), 0 none
const S_LAST_PRICE = 2;
const S_BID = 3;
const S_ASK = 4;
const S_OI = 5;
const S_KNOWN = 6;
const S_LAST_TS = 7;
const STATE_STRIDE = 8;

export class CandleAggregator {
  readonly plan: CandlePlan;
  readonly #out: CandleTable;
  readonly #state: Float64Array;
  readonly #marketCount: number;
  readonly #periodSeconds: number;
  readonly #firstEnd: number;
  /** Last period end emitted: the plan's, capped at the period holding asOfMs. */
  readonly #lastEnd: number;
  #finished = false;

  /**
   * `seeds` (SEED_STRIDE per market, candle-table.ts) is each market's state before the first
   * row; null means every market starts fresh. `out` needs room for plan.periods x marketCount rows.
   */
  constructor(plan: CandlePlan, marketCount: number, asOfMs: number, out: CandleTable, seeds: Float64Array | null = null) {
    assert(Number.isSafeInteger(marketCount) && marketCount >= 1, 'CandleAggregator: marketCount must be >= 1');
    assert(Number.isSafeInteger(asOfMs) && asOfMs >= 0, 'CandleAggregator: asOfMs must be a safe integer >= 0');
    assert(seeds === null || seeds.length === marketCount * SEED_STRIDE, 'CandleAggregator: seeds length is not marketCount x SEED_STRIDE');
    this.plan = plan;
    this.#out = out;
    this.#marketCount = marketCount;
    this.#periodSeconds = plan.periodSeconds;
    this.#firstEnd = plan.firstEndTs;
    const asOfEnd = periodEndOf(asOfMs, plan.periodSeconds);
    this.#lastEnd = plan.periods === 0 ? plan.firstEndTs - plan.periodSeconds : Math.min(plan.lastEndTs, asOfEnd);
    const state = new Float64Array(marketCount * STATE_STRIDE);
    for (let m = 0; m < marketCount; m++) {
      const at = m * STATE_STRIDE;
      state[at + S_OPEN_ROW] = -1;
      if (seeds === null) {
        state[at + S_LAST_PRICE] = NULL_PRICE;
      } else {
        const s = m * SEED_STRIDE;
        state[at + S_LAST_PRICE] = seeds[s + SeedField.LAST_PRICE];
        state[at + S_BID] = seeds[s + SeedField.YES_BID];
        state[at + S_ASK] = seeds[s + SeedField.YES_ASK];
        state[at + S_OI] = seeds[s + SeedField.OPEN_INTEREST];
        state[at + S_KNOWN] = seeds[s + SeedField.KNOWN];
      }
    }
    this.#state = state;
  }

  /** Streams rows [rowStart, rowEnd) of `batch`. Rows of one market must be in time order. */
  apply(batch: CandleBatch, rowStart = 0, rowEnd = batch.length): void {
    assert(!this.#finished, 'CandleAggregator.apply after finish');
    assert(rowStart >= 0 && rowStart <= rowEnd && rowEnd <= batch.length, 'CandleAggregator.apply: row range out of bounds');
    const state = this.#state;
    const period = this.#periodSeconds;
    const firstEnd = this.#firstEnd;
    const lastEnd = this.#lastEnd;
    const marketCount = this.#marketCount;
    const tsColumn = batch.tsMs;
    const marketColumn = batch.market;
    for (let row = rowStart; row < rowEnd; row++) {
      const m = marketColumn[row];
      assert(m >= 0 && m < marketCount, 'CandleAggregator: market index out of range');
      const at = m * STATE_STRIDE;
      const tsMs = tsColumn[row];
      assert(tsMs >= state[at + S_LAST_TS], 'CandleAggregator: rows of a market out of time order');
      state[at + S_LAST_TS] = tsMs;
      const end = periodEndOf(tsMs, period);
      if (end < firstEnd) {
        this.#carry(batch, row, at); // before the window: only the state moves
        continue;
      }
      // After the window (or in the future): not shown, and not folded into the state either, so the
      // trailing empty periods finish() writes carry the top in force at the window's end.
      if (end > lastEnd) continue;
      if (state[at + S_END] !== end) {
        const openEnd = state[at + S_END];
        if (openEnd !== 0) {
          this.#close(at);
          this.#fill(m, at, openEnd + period, end - period);
        } else if (state[at + S_KNOWN] === 1) {
          this.#fill(m, at, firstEnd, end - period);
        }
        this.#open(m, at, end);
      }
      this.#applyRow(batch, row, at);
    }
  }

  /** Closes open candles and writes the empty periods up to the last one. Call once, at the end. */
  finish(): void {
    assert(!this.#finished, 'CandleAggregator.finish called twice');
    this.#finished = true;
    const state = this.#state;
    for (let m = 0; m < this.#marketCount; m++) {
      const at = m * STATE_STRIDE;
      const openEnd = state[at + S_END];
      if (openEnd !== 0) {
        this.#close(at);
        this.#fill(m, at, openEnd + this.#periodSeconds, this.#lastEnd);
      } else if (state[at + S_KNOWN] === 1) {
        this.#fill(m, at, this.#firstEnd, this.#lastEnd);
      }
    }
  }

  /** Each market's state after the rows applied so far, as seeds for a following batch. */
  seedsOut(into: Float64Array = new Float64Array(this.#marketCount * SEED_STRIDE)): Float64Array {
    assert(into.length === this.#marketCount * SEED_STRIDE, 'CandleAggregator.seedsOut: wrong length');
    const state = this.#state;
    for (let m = 0; m < this.#marketCount; m++) {
      const at = m * STATE_STRIDE;
      const s = m * SEED_STRIDE;
      into[s + SeedField.LAST_PRICE] = state[at + S_LAST_PRICE];
      into[s + SeedField.YES_BID] = state[at + S_BID];
      into[s + SeedField.YES_ASK] = state[at + S_ASK];
      into[s + SeedField.OPEN_INTEREST] = state[at + S_OI];
      into[s + SeedField.KNOWN] = state[at + S_KNOWN];
    }
    return into;
  }

  // ---------------------------------------------------------------------------------------------

  /** Folds a row into the carried state only (no candle: the row is before the window). */
  #carry(batch: CandleBatch, row: number, at: number): void {
    const state = this.#state;
    if (batch.count[row] > 0) state[at + S_LAST_PRICE] = batch.price[row];
    const bid = batch.yesBid[row];
    if (bid !== -1) state[at + S_BID] = bid;
    const ask = batch.yesAsk[row];
    if (ask !== -1) state[at + S_ASK] = ask;
    const oi = batch.openInterest[row];
    if (oi !== -1) state[at + S_OI] = oi;
    state[at + S_KNOWN] = 1;
  }

  /** Writes a new candle for period `end` from the carried state and makes it the open one. */
  #open(m: number, at: number, end: number): void {
    const out = this.#out;
    const row = out.length;
    assert(row < out.capacity, 'CandleAggregator: output table full');
    const state = this.#state;
    const v = out.values;
    const o = row * CANDLE_STRIDE;
    const bid = state[at + S_BID];
    const ask = state[at + S_ASK];
    v[o + F.MARKET] = m;
    v[o + F.END_TS] = end;
    v[o + F.OPEN] = NULL_PRICE;
    v[o + F.HIGH] = NULL_PRICE;
    v[o + F.LOW] = NULL_PRICE;
    v[o + F.CLOSE] = NULL_PRICE;
    v[o + F.MEAN] = NULL_PRICE;
    v[o + F.PREVIOUS] = state[at + S_LAST_PRICE];
    v[o + F.VOLUME] = 0;
    v[o + F.SUM_HI] = 0;
    v[o + F.SUM_LO] = 0;
    v[o + F.TRADES] = 0;
    v[o + F.BID_OPEN] = bid;
    v[o + F.BID_HIGH] = bid;
    v[o + F.BID_LOW] = bid;
    v[o + F.BID_CLOSE] = bid;
    v[o + F.ASK_OPEN] = ask;
    v[o + F.ASK_HIGH] = ask;
    v[o + F.ASK_LOW] = ask;
    v[o + F.ASK_CLOSE] = ask;
    v[o + F.OPEN_INTEREST] = state[at + S_OI];
    out.length = row + 1;
    state[at + S_OPEN_ROW] = row;
    state[at + S_END] = end;
  }

  /** Empty candles for the period ends from..to (inclusive); none when from > to. */
  #fill(m: number, at: number, from: number, to: number): void {
    for (let end = from; end <= to; end += this.#periodSeconds) {
      this.#open(m, at, end);
      this.#close(at);
    }
  }

  #applyRow(batch: CandleBatch, row: number, at: number): void {
    const state = this.#state;
    const v = this.#out.values;
    const o = state[at + S_OPEN_ROW] * CANDLE_STRIDE;
    const count = batch.count[row];
    if (count > 0) {
      const price = batch.price[row];
      if (v[o + F.TRADES] === 0) {
        v[o + F.OPEN] = price;
        v[o + F.HIGH] = price;
        v[o + F.LOW] = price;
      } else {
        if (price > v[o + F.HIGH]) v[o + F.HIGH] = price;
        if (price < v[o + F.LOW]) v[o + F.LOW] = price;
      }
      v[o + F.CLOSE] = price;
      v[o + F.TRADES] += 1;
      v[o + F.VOLUME] += count;
      // price < 2^14 and count <= 2^38, so lo + price x count < 2^53: exact; carry whole 2^48s up.
      let lo = v[o + F.SUM_LO] + price * count;
      if (lo >= LIMB) {
        const carry = Math.floor(lo / LIMB);
        v[o + F.SUM_HI] += carry;
        lo -= carry * LIMB;
      }
      v[o + F.SUM_LO] = lo;
      state[at + S_LAST_PRICE] = price;
    }
    const bid = batch.yesBid[row];
    if (bid !== -1) {
      v[o + F.BID_CLOSE] = bid;
      if (bid > v[o + F.BID_HIGH]) v[o + F.BID_HIGH] = bid;
      if (bid < v[o + F.BID_LOW]) v[o + F.BID_LOW] = bid;
      state[at + S_BID] = bid;
    }
    const ask = batch.yesAsk[row];
    if (ask !== -1) {
      v[o + F.ASK_CLOSE] = ask;
      if (ask > v[o + F.ASK_HIGH]) v[o + F.ASK_HIGH] = ask;
      if (ask < v[o + F.ASK_LOW]) v[o + F.ASK_LOW] = ask;
      state[at + S_ASK] = ask;
    }
    const oi = batch.openInterest[row];
    if (oi !== -1) {
      v[o + F.OPEN_INTEREST] = oi;
      state[at + S_OI] = oi;
    }
    state[at + S_KNOWN] = 1;
  }

  /** Finishes the open candle (its mean) and clears the open slot. */
  #close(at: number): void {
    const state = this.#state;
    const v = this.#out.values;
    const o = state[at + S_OPEN_ROW] * CANDLE_STRIDE;
    if (v[o + F.TRADES] > 0) v[o + F.MEAN] = meanOf(v[o + F.SUM_HI], v[o + F.SUM_LO], v[o + F.VOLUME]);
    state[at + S_OPEN_ROW] = -1;
    state[at + S_END] = 0;
  }
}

/**
 * floor((hi x 2^48 + lo) / volume), exactly. The float quotient can land on the wrong side of an
 * integer when the operands are large, so it is corrected with exact products (q x volume is at
 * most the sum plus one volume, below 2^53 when hi is 0). A sum beyond 2^48 (hi > 0: more than
 * 2.8e10 contracts at $1 in one period) takes the BigInt path.
 */
export function meanOf(hi: number, lo: number, volume: number): number {
  assert(volume > 0, 'meanOf: volume must be > 0');
  if (hi === 0) {
    let q = Math.floor(lo / volume);
    if (q * volume > lo) q--;
    else if ((q + 1) * volume <= lo) q++;
    return q;
  }
  return Number((BigInt(hi) * BigInt(LIMB) + BigInt(lo)) / BigInt(volume));
}
