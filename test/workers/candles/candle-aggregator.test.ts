// Goal: the one candlestick implementation (CandleAggregator, CandlePlan) agrees field for field
// with a reference written the plain way (per period: filter the events, BigInt sums), on seeded
// random trades and book tops: every interval the schema lists (1, 60, 1440) plus an odd one (5),
// trades exactly on period boundaries and one millisecond past them, empty periods (gaps of many
// periods), the aggregate-size cap (adjusted_end_ts), seeds, a window that starts after the
// first events and ends before the last, asOf capping future periods, batches split in two ranges
// or chained through seedsOut, and means whose sums leave 2^48 (the BigInt path).
// Method: SeededRandom streams (src/core/seeded-random.ts); loops bounded by fixed counts.

import { describe, expect, it } from 'vitest';
import { SeededRandom } from '../../../src/core/index.ts';
import {
  CandleAggregator,
  CandleBatch,
  CandleTable,
  MAX_AGGREGATE_CANDIDATES,
  NULL_PRICE,
  ROW_COUNT_MAX,
  SEED_STRIDE,
  SeedField,
  createSeeds,
  meanOf,
  periodEndOf,
  planCandles,
  type Candle,
} from '../../../src/workers/index.ts';

const DAY_S = 86_400;
const T0_S = 1_767_225_600; // 2026-01-01T00:00:00Z, a multiple of every period

interface Event {
  market: number;
  tsMs: number;
  price: number;
  count: number; // 0: no trade
  bid: number; // -1: unchanged
  ask: number;
  oi: number;
}

/** Random events on `markets` markets over about `days` days, time ordered. */
/** `periodMs`: boundaries land on multiples of it (exactly, or one millisecond past). */
function randomEvents(random: SeededRandom, markets: number, rows: number, days: number, hugeCounts = false, periodMs = 3_600_000): Event[] {
  const events: Event[] = [];
  let tsMs = T0_S * 1000 + random.nextInt(3_600_000);
  const spanMs = days * DAY_S * 1000;
  const stepMean = Math.max(1, Math.floor(spanMs / rows));
  for (let i = 0; i < rows; i++) {
    const shape = random.nextInt(20);
    const wideMs = Math.min(86_400_000, 60 * periodMs);
    if (shape === 0) tsMs = (Math.floor(tsMs / periodMs) + 1) * periodMs; // exactly on a period boundary
    else if (shape === 1) tsMs = (Math.floor(tsMs / periodMs) + 1) * periodMs + 1; // one millisecond past one
    else if (shape === 2) tsMs += random.nextInt(8) * 3 * periodMs; // a gap of several periods: empty periods
    else if (shape === 3) tsMs = (Math.floor(tsMs / wideMs) + 1) * wideMs; // a wider boundary (midnight UTC for hours and days)
    else if (shape >= 4 && shape <= 6) tsMs += 0; // same millisecond as the previous event
    else tsMs += random.nextInt(2 * stepMean);
    const kind = random.nextInt(4); // 0 trade, 1 top, 2 both, 3 oi only
    const trade = kind === 0 || kind === 2;
    const top = kind === 1 || kind === 2;
    events.push({
      market: random.nextInt(markets),
      tsMs,
      price: trade ? random.nextInt(10_001) : 0,
      count: trade ? (hugeCounts && random.chance(1, 3) ? ROW_COUNT_MAX - random.nextInt(1000) : 1 + random.nextInt(100_000)) : 0,
      bid: top && random.chance(3, 4) ? random.nextInt(10_001) : -1,
      ask: top && random.chance(3, 4) ? random.nextInt(10_001) : -1,
      oi: kind === 3 || random.chance(1, 2) ? random.nextInt(1_000_000) : -1,
    });
  }
  return events;
}

function toBatch(events: readonly Event[]): CandleBatch {
  const batch = CandleBatch.create(Math.max(1, events.length));
  for (const e of events) batch.appendRow(e.market, e.tsMs, e.price, e.count, e.bid, e.ask, e.oi);
  return batch;
}

interface Seed {
  lastPrice: number;
  bid: number;
  ask: number;
  oi: number;
  known: boolean;
}

const FRESH: Seed = { lastPrice: NULL_PRICE, bid: 0, ask: 0, oi: 0, known: false };

/**
 * The reference: for each period end E in the window (capped at asOf's period), for each market
 * known by E, everything recomputed from the event list with plain filters and BigInt.
 */
function reference(events: readonly Event[], markets: number, intervalMinutes: number, startTs: number, endTs: number, asOfMs: number, cap: number, seeds: readonly Seed[]): Candle[] {
  const P = intervalMinutes * 60;
  const firstEnd = Math.ceil(startTs / P) * P;
  let lastEnd = Math.floor(endTs / P) * P;
  const perMarket = Math.max(1, Math.floor(cap / markets));
  if ((lastEnd - firstEnd) / P + 1 > perMarket) lastEnd = firstEnd + (perMarket - 1) * P;
  lastEnd = Math.min(lastEnd, Math.ceil(asOfMs / (P * 1000)) * P);
  const out: Candle[] = [];
  for (let m = 0; m < markets; m++) {
    const mine = events.filter((e) => e.market === m);
    const seed = seeds[m];
    const last = (upToMs: number, pick: (e: Event) => number, initial: number): number => {
      let value = initial;
      for (const e of mine) if (e.tsMs <= upToMs && pick(e) !== -1) value = pick(e);
      return value;
    };
    for (let end = firstEnd; end <= lastEnd; end += P) {
      const endMs = end * 1000;
      const startMs = endMs - P * 1000;
      if (!seed.known && !mine.some((e) => e.tsMs <= endMs)) continue;
      const inPeriod = mine.filter((e) => e.tsMs > startMs && e.tsMs <= endMs);
      const trades = inPeriod.filter((e) => e.count > 0);
      const bidOpen = last(startMs, (e) => e.bid, seed.bid);
      const askOpen = last(startMs, (e) => e.ask, seed.ask);
      const bids = [bidOpen, ...inPeriod.filter((e) => e.bid !== -1).map((e) => e.bid)];
      const asks = [askOpen, ...inPeriod.filter((e) => e.ask !== -1).map((e) => e.ask)];
      let volume = 0n;
      let sum = 0n;
      for (const t of trades) {
        volume += BigInt(t.count);
        sum += BigInt(t.price) * BigInt(t.count);
      }
      const prices = trades.map((t) => t.price);
      out.push({
        market: m,
        endTs: end,
        open: trades.length > 0 ? prices[0] : NULL_PRICE,
        high: trades.length > 0 ? Math.max(...prices) : NULL_PRICE,
        low: trades.length > 0 ? Math.min(...prices) : NULL_PRICE,
        close: trades.length > 0 ? prices[prices.length - 1] : NULL_PRICE,
        mean: trades.length > 0 ? Number(sum / volume) : NULL_PRICE,
        previous: last(startMs, (e) => (e.count > 0 ? e.price : -1), seed.lastPrice),
        volume: Number(volume),
        trades: trades.length,
        yesBid: { open: bidOpen, high: Math.max(...bids), low: Math.min(...bids), close: bids[bids.length - 1] },
        yesAsk: { open: askOpen, high: Math.max(...asks), low: Math.min(...asks), close: asks[asks.length - 1] },
        openInterest: last(endMs, (e) => e.oi, seed.oi),
      });
    }
  }
  return out;
}

function seedArray(seeds: readonly Seed[]): Float64Array {
  const array = createSeeds(seeds.length);
  seeds.forEach((s, m) => {
    array[m * SEED_STRIDE + SeedField.LAST_PRICE] = s.lastPrice;
    array[m * SEED_STRIDE + SeedField.YES_BID] = s.bid;
    array[m * SEED_STRIDE + SeedField.YES_ASK] = s.ask;
    array[m * SEED_STRIDE + SeedField.OPEN_INTEREST] = s.oi;
    array[m * SEED_STRIDE + SeedField.KNOWN] = s.known ? 1 : 0;
  });
  return array;
}

function aggregate(batch: CandleBatch, markets: number, intervalMinutes: number, startTs: number, endTs: number, asOfMs: number, cap: number, seeds: Float64Array | null, split = -1): CandleTable {
  const plan = planCandles(intervalMinutes, startTs, endTs, markets, cap);
  const table = CandleTable.create(plan.periods * markets);
  const aggregator = new CandleAggregator(plan, markets, asOfMs, table, seeds);
  if (split < 0) aggregator.apply(batch);
  else {
    aggregator.apply(batch, 0, split);
    aggregator.apply(batch, split, batch.length);
  }
  aggregator.finish();
  return table;
}

/** Table order is per market in time order, markets interleaved: compare sorted by (market, end). */
function sorted(candles: Candle[]): Candle[] {
  return [...candles].sort((a, b) => a.market - b.market || a.endTs - b.endTs);
}

describe('planCandles', () => {
  it('counts the periods ending in [start, end] and adjusts the end above the cap', () => {
    const random = new SeededRandom(11);
    for (let i = 0; i < 2000; i++) {
      const interval = [1, 60, 1440, 5][random.nextInt(4)];
      const P = interval * 60;
      const start = T0_S + random.nextInt(10 * DAY_S) - (random.chance(1, 4) ? (T0_S % P) : 0);
      const end = start + random.nextInt(40 * DAY_S);
      const markets = 1 + random.nextInt(120);
      const cap = random.chance(1, 2) ? MAX_AGGREGATE_CANDIDATES : 1 + random.nextInt(500);
      const plan = planCandles(interval, start, end, markets, cap);
      // Plainly: every multiple of P in [start, end].
      const ends: number[] = [];
      for (let e = Math.ceil(start / P) * P; e <= end && ends.length <= cap + 1; e += P) ends.push(e);
      const periodsMax = Math.max(1, Math.floor(cap / markets));
      const expectedPeriods = Math.min(ends.length, periodsMax);
      expect(plan.periods).toBe(expectedPeriods);
      expect(plan.adjusted).toBe(ends.length > periodsMax);
      if (expectedPeriods > 0) {
        expect(plan.firstEndTs).toBe(ends[0]);
        expect(plan.lastEndTs).toBe(ends[expectedPeriods - 1]);
      }
      expect(plan.adjustedEndTs).toBe(plan.adjusted ? ends[periodsMax - 1] : end);
      expect(plan.adjusted ? plan.adjustedEndTs < end : true).toBe(true);
    }
  });

  it('an exact boundary is the end of its own period; one millisecond later starts the next', () => {
    expect(periodEndOf(T0_S * 1000, 60)).toBe(T0_S);
    expect(periodEndOf(T0_S * 1000 + 1, 60)).toBe(T0_S + 60);
    expect(periodEndOf(T0_S * 1000 - 1, 60)).toBe(T0_S);
    expect(periodEndOf(T0_S * 1000 + 1, 86_400)).toBe(T0_S + 86_400);
    const plan = planCandles(60, T0_S, T0_S, 1);
    expect([plan.firstEndTs, plan.lastEndTs, plan.periods]).toEqual([T0_S, T0_S, 1]);
    const none = planCandles(60, T0_S + 1, T0_S + 3599, 1);
    expect(none.periods).toBe(0);
  });
});

describe('CandleAggregator against the reference', () => {
  for (const interval of [1, 60, 1440, 5]) {
    it(`period_interval ${interval}: every field on seeded random trades and tops`, () => {
      for (let round = 0; round < 12; round++) {
        const random = new SeededRandom(1000 * interval + round);
        const markets = 1 + random.nextInt(4);
        const days = interval === 1440 ? 6 : interval === 60 ? 3 : 0.2;
        const events = randomEvents(random, markets, 50 + random.nextInt(600), days, round % 4 === 3, interval * 60_000);
        const batch = toBatch(events);
        const firstMs = events[0].tsMs;
        const lastMs = events[events.length - 1].tsMs;
        // Windows: everything; a middle slice; one starting before any event; one ending in the past.
        const windows: Array<[number, number, number]> = [
          [Math.floor(firstMs / 1000) - 3600, Math.ceil(lastMs / 1000) + 7200, lastMs + 1],
          [Math.floor((firstMs + (lastMs - firstMs) / 3) / 1000), Math.floor((firstMs + (2 * (lastMs - firstMs)) / 3) / 1000), lastMs],
          [T0_S - 10 * interval * 60, T0_S + 10 * DAY_S, Math.floor((firstMs + lastMs) / 2)],
        ];
        const seeds = Array.from({ length: markets }, (_, m) =>
          m % 2 === 1 ? { lastPrice: random.nextInt(10_001), bid: random.nextInt(5000), ask: 5000 + random.nextInt(5000), oi: random.nextInt(10_000), known: true } : FRESH,
        );
        for (const [start, end, asOf] of windows) {
          for (const cap of [MAX_AGGREGATE_CANDIDATES, 7 + random.nextInt(40)]) {
            const expected = reference(events, markets, interval, start, end, asOf, cap, seeds);
            const table = aggregate(batch, markets, interval, start, end, asOf, cap, seedArray(seeds));
            expect(sorted(table.candles())).toEqual(expected);
            // The same rows in two ranges (a ring's two halves) give the same candles.
            const split = aggregate(batch, markets, interval, start, end, asOf, cap, seedArray(seeds), random.nextInt(batch.length + 1));
            expect(split.candles()).toEqual(table.candles());
          }
        }
      }
    }, 60_000); // 1-minute candles over ten days: ~4 s alone, 21 s once on a CI machine busy with other jobs (the default 20 s bound)
  }

  it('empty periods: price fields null with previous carried, tops flat, volume 0, open interest carried', () => {
    const batch = CandleBatch.create(8);
    batch.appendTop(0, T0_S * 1000 + 5_000, 4200, 4600, 300);
    batch.appendTrade(0, T0_S * 1000 + 10_000, 4400, 250, 550);
    batch.appendTrade(0, T0_S * 1000 + 3 * 60_000, 4500, 100); // exactly the end of the third minute
    const table = aggregate(batch, 1, 1, T0_S - 120, T0_S + 300, T0_S * 1000 + 5 * 60_000, MAX_AGGREGATE_CANDIDATES, null);
    const candles = table.candles();
    // Nothing before the first event; then every minute up to asOf's minute.
    expect(candles.map((c) => c.endTs)).toEqual([T0_S + 60, T0_S + 120, T0_S + 180, T0_S + 240, T0_S + 300]);
    expect(candles[0]).toMatchObject({ open: 4400, close: 4400, mean: 4400, previous: NULL_PRICE, volume: 250, openInterest: 550 });
    expect(candles[0].yesBid).toEqual({ open: 0, high: 4200, low: 0, close: 4200 });
    expect(candles[1]).toMatchObject({ open: NULL_PRICE, high: NULL_PRICE, low: NULL_PRICE, close: NULL_PRICE, mean: NULL_PRICE, previous: 4400, volume: 0, trades: 0, openInterest: 550 });
    expect(candles[1].yesBid).toEqual({ open: 4200, high: 4200, low: 4200, close: 4200 });
    expect(candles[1].yesAsk).toEqual({ open: 4600, high: 4600, low: 4600, close: 4600 });
    expect(candles[2]).toMatchObject({ open: 4500, previous: 4400, volume: 100 });
    expect(candles[3]).toMatchObject({ open: NULL_PRICE, previous: 4500, volume: 0 });
  });

  it('a market with no event before or in the window has no candles', () => {
    const batch = CandleBatch.create(4);
    batch.appendTrade(1, T0_S * 1000 + 1, 5000, 100);
    const table = aggregate(batch, 2, 1, T0_S, T0_S + 600, T0_S * 1000 + 600_000, MAX_AGGREGATE_CANDIDATES, null);
    expect(new Set(table.candles().map((c) => c.market))).toEqual(new Set([1]));
  });

  it('chaining batches through seedsOut gives the candles of one batch', () => {
    const random = new SeededRandom(77);
    for (let round = 0; round < 10; round++) {
      const events = randomEvents(random, 3, 400, 0.5);
      const cut = 1 + random.nextInt(events.length - 1);
      // Cut on a period boundary so that no period spans both batches.
      const boundaryMs = Math.ceil(events[cut].tsMs / 3_600_000) * 3_600_000;
      const before = events.filter((e) => e.tsMs <= boundaryMs);
      const after = events.filter((e) => e.tsMs > boundaryMs);
      const start = T0_S - 3600;
      const asOf = events[events.length - 1].tsMs;
      const end = Math.ceil(asOf / 1000) + 3600;
      const whole = aggregate(toBatch(events), 3, 60, start, end, asOf, MAX_AGGREGATE_CANDIDATES, null);
      const plan1 = planCandles(60, start, boundaryMs / 1000, 3);
      const first = CandleTable.create(plan1.periods * 3);
      const a1 = new CandleAggregator(plan1, 3, boundaryMs, first, null);
      a1.apply(toBatch(before));
      a1.finish();
      const seeds = a1.seedsOut();
      const second = aggregate(toBatch(after), 3, 60, boundaryMs / 1000 + 1, end, asOf, MAX_AGGREGATE_CANDIDATES, seeds);
      expect(sorted([...first.candles(), ...second.candles()])).toEqual(sorted(whole.candles()));
    }
  });

  it('rows of a market out of time order are a broken invariant', () => {
    const batch = CandleBatch.create(4);
    batch.appendTrade(0, 2000, 5000, 100);
    batch.appendTrade(0, 1000, 5000, 100);
    expect(() => aggregate(batch, 1, 1, 0, 600, 600_000, MAX_AGGREGATE_CANDIDATES, null)).toThrow(/out of time order/);
  });

  it('the output never exceeds the plan: periods x markets, capped', () => {
    const random = new SeededRandom(5);
    const events = randomEvents(random, 4, 2000, 9);
    const plan = planCandles(1, T0_S, T0_S + 9 * DAY_S, 4);
    expect(plan.adjusted).toBe(true);
    expect(plan.periods).toBe(MAX_AGGREGATE_CANDIDATES / 4);
    const table = aggregate(toBatch(events), 4, 1, T0_S, T0_S + 9 * DAY_S, T0_S * 1000 + 9 * DAY_S * 1000, MAX_AGGREGATE_CANDIDATES, null);
    expect(table.length).toBeLessThanOrEqual(MAX_AGGREGATE_CANDIDATES);
    expect(Math.max(...table.candles().map((c) => c.endTs))).toBeLessThanOrEqual(plan.adjustedEndTs);
  });
});

describe('meanOf', () => {
  it('is floor(sum / volume) exactly, including sums past 2^48 and 2^53', () => {
    const random = new SeededRandom(3);
    for (let i = 0; i < 5000; i++) {
      const volume = 1 + random.nextInt(2 ** 31) * (random.chance(1, 2) ? 2 ** 7 : 1);
      const mean = random.nextInt(10_001);
      const remainder = random.nextInt(Math.min(volume, 2 ** 31));
      const total = BigInt(mean) * BigInt(volume) + BigInt(remainder);
      const hi = Number(total / 2n ** 48n);
      const lo = Number(total % 2n ** 48n);
      expect(meanOf(hi, lo, volume)).toBe(mean);
    }
  });
});
