/**
 * Recorded order-book traffic for the book bench: per-market snapshots (20 levels a side) and a
 * delta stream that returns every book to its snapshot state at the end of each pass (the second
 * half replays the first half backwards with negated deltas), so a pass can be applied again and
 * again without a level ever going negative. Streams are typed arrays built once from a seeded PRNG;
 * the text forms feed the Map baseline and the frame parser. This file never measures anything.
 */

import { formatCount, formatPrice, PRICE_ONE, PriceGrid, seededRandom, type Count, type Price } from '../../src/core/index.ts';

export const LEVELS_PER_SIDE = 20;

/** Reproducible random cases: core's seeded PRNG. */
export const rng = seededRandom;

export interface SnapshotLevels {
  /** Exchange prices: YES price on side 0, NO price on side 1. */
  sides: Uint8Array;
  prices: Int32Array;
  sizes: Float64Array;
}

export interface DeltaStream {
  grid: PriceGrid;
  tickers: string[];
  snapshots: SnapshotLevels[];
  length: number;
  market: Int32Array;
  side: Uint8Array; // 0 yes, 1 no
  price: Int32Array; // exchange price of that side
  delta: Float64Array; // signed Count
  priceText: string[]; // "0.4200"
  deltaText: string[]; // "-40.00"
}

/**
 * `markets` books on linear_cent: YES bids at $0.31-$0.50 and YES asks at $0.51-$0.70 (NO bids at
 * $0.30-$0.49), 20 levels a side. `half` random deltas (adds, partial and full removals, often at
 * the best level) then the same deltas reversed and negated.
 */
export function makeDeltaStream(markets: number, half: number, seed: number): DeltaStream {
  const grid = PriceGrid.fromStructure('linear_cent');
  const random = rng(seed);
  const n = grid.levelCount;
  const tickers: string[] = [];
  const snapshots: SnapshotLevels[] = [];
  // Current sizes per market, [yes levels | no levels by YES-ask level], to keep deltas valid.
  const state: Float64Array[] = [];
  const bidLow = grid.levelOf(3100 as Price);
  const askLow = grid.levelOf(5100 as Price);
  for (let m = 0; m < markets; m++) {
    tickers.push(`KXBENCH-26DEC31-M${m}`);
    const sizes = new Float64Array(2 * n);
    const snapshot: SnapshotLevels = { sides: new Uint8Array(2 * LEVELS_PER_SIDE), prices: new Int32Array(2 * LEVELS_PER_SIDE), sizes: new Float64Array(2 * LEVELS_PER_SIDE) };
    for (let i = 0; i < LEVELS_PER_SIDE; i++) {
      const bidLevel = bidLow + i;
      const askLevel = askLow + i;
      const bidSize = 100 * (1 + Math.floor(random() * 500));
      const askSize = 100 * (1 + Math.floor(random() * 500));
      sizes[bidLevel] = bidSize;
      sizes[n + askLevel] = askSize;
      snapshot.sides[i] = 0;
      snapshot.prices[i] = grid.priceAt(bidLevel);
      snapshot.sizes[i] = bidSize;
      snapshot.sides[LEVELS_PER_SIDE + i] = 1;
      snapshot.prices[LEVELS_PER_SIDE + i] = PRICE_ONE - grid.priceAt(askLevel);
      snapshot.sizes[LEVELS_PER_SIDE + i] = askSize;
    }
    state.push(sizes);
    snapshots.push(snapshot);
  }
  const length = 2 * half;
  const market = new Int32Array(length);
  const side = new Uint8Array(length);
  const level = new Int32Array(length); // YES level (ask level for side 1)
  const delta = new Float64Array(length);
  for (let i = 0; i < half; i++) {
    const m = Math.floor(random() * markets);
    const s = random() < 0.5 ? 0 : 1;
    const sizes = state[m];
    const offset = s === 0 ? 0 : n;
    // Levels within 5 of the 20-level band, so books drift a little but stay realistic.
    const low = s === 0 ? bidLow - 5 : askLow;
    const l = low + Math.floor(random() * (LEVELS_PER_SIDE + 5));
    const size = sizes[offset + l];
    let d: number;
    const roll = random();
    if (size > 0 && roll < 0.2) d = -size; // level empties (a best-level rescan when it was the best)
    else if (size > 0 && roll < 0.5) d = -100 * (1 + Math.floor(random() * Math.max(1, size / 100 - 1)));
    else d = 100 * (1 + Math.floor(random() * 50));
    if (size + d < 0) d = -size;
    sizes[offset + l] = size + d;
    market[i] = m;
    side[i] = s;
    level[i] = l;
    delta[i] = d;
  }
  for (let i = 0; i < half; i++) {
    const j = length - 1 - i;
    market[j] = market[i];
    side[j] = side[i];
    level[j] = level[i];
    delta[j] = -delta[i] || 0;
  }
  const price = new Int32Array(length);
  const priceText: string[] = [];
  const deltaText: string[] = [];
  for (let i = 0; i < length; i++) {
    const yes = grid.priceAt(level[i]);
    price[i] = side[i] === 0 ? yes : PRICE_ONE - yes;
    priceText.push(formatPrice(price[i] as Price));
    deltaText.push(formatCount(delta[i] as Count));
  }
  return { grid, tickers, snapshots, length, market, side, price, delta, priceText, deltaText };
}

/** The exchange's orderbook_delta frame for stream entry i (websocket.md §6.1). */
export function deltaFrame(stream: DeltaStream, i: number, sid: number, seq: number): string {
  return JSON.stringify({
    type: 'orderbook_delta',
    sid,
    seq,
    msg: {
      market_ticker: stream.tickers[stream.market[i]],
      market_id: '3f1c2d4e-0a1b-4c5d-8e9f-102132435465',
      price_dollars: stream.priceText[i],
      delta_fp: stream.deltaText[i],
      side: stream.side[i] === 0 ? 'yes' : 'no',
      ts_ms: 1798761600123 + i,
    },
  });
}
