// Goal: a perpetual (Margin) OrderBook keeps exactly the bids and asks its snapshots and deltas
// describe on an unbounded tick grid: best bid/ask and their sizes, the size at any price (inside
// the window or in the overflow) and the top-N levels of the window, with levels far outside the
// window kept, the window re-centred as the market drifts or a side of the window empties, and an
// off-tick price breaking the book (OFF_GRID) once. Also TickGrid's arithmetic and BookStore.addPerp.
// Method: seeded random streams (bounded in steps and wall time) of snapshots and deltas around a
// drifting mid, with far levels, jumps, emptied sides and off-tick breaks, applied to the book and to
// a naive Map price -> size per side, compared after every step; targeted cases for each rule.
import { describe, expect, it } from 'vitest';
import { PRICE_INVALID, PriceGrid, TickGrid, type Count, type LevelGrid, type Price } from '../../src/core/index.ts';
import { ApplyStatus, BookStore, OrderBook, PERP_WINDOW_TICKS } from '../../src/book/index.ts';
import { randomInt, rng } from './reference-book.ts';

const p = (n: number) => n as Price;
const c = (n: number) => n as Count;
const TICK = 100; // $0.01
const MID = 1_000_000; // $100.00
const TOP = 10;
const TIME_LIMIT_MS = 20_000;

/** The naive model: price -> size per side, no window. */
class PerpReference {
  readonly sides = [new Map<number, number>(), new Map<number, number>()];
  clear(): void {
    this.sides[0].clear();
    this.sides[1].clear();
  }
  size(side: 0 | 1, price: number): number {
    return this.sides[side].get(price) ?? 0;
  }
  add(side: 0 | 1, price: number, delta: number): void {
    const size = this.size(side, price) + delta;
    if (size === 0) this.sides[side].delete(price);
    else this.sides[side].set(price, size);
  }
  /** Bids best (highest) first, asks best (lowest) first. */
  prices(side: 0 | 1): number[] {
    const prices = [...this.sides[side].keys()];
    return side === 0 ? prices.sort((a, b) => b - a) : prices.sort((a, b) => a - b);
  }
  best(side: 0 | 1): number {
    const prices = this.prices(side);
    return prices.length === 0 ? PRICE_INVALID : prices[0];
  }
}

function perpBook(tick = TICK, window = PERP_WINDOW_TICKS, maxWindow = window * 8): { book: OrderBook; reports: number[] } {
  const reports: number[] = [];
  const book = new OrderBook('KXBTCPERP', TickGrid.around(tick, tick * (window >> 1), window), (_book, reason) => reports.push(reason), maxWindow);
  return { book, reports };
}

function topPrices(book: OrderBook, side: 0 | 1): number[] {
  const out = new Int32Array(TOP);
  const found = side === 0 ? book.topBidLevels(TOP, out) : book.topAskLevels(TOP, out);
  const grid = book.grid;
  return Array.from(out.subarray(0, found), (level) => grid.priceAt(level));
}

function expectSameAsReference(book: OrderBook, reference: PerpReference, probes: readonly number[]): void {
  const grid = book.grid as TickGrid;
  const bid = reference.best(0);
  const ask = reference.best(1);
  expect(book.bestBid()).toBe(bid);
  expect(book.bestAsk()).toBe(ask);
  expect(book.bestBidSize()).toBe(bid === PRICE_INVALID ? 0 : reference.size(0, bid));
  expect(book.bestAskSize()).toBe(ask === PRICE_INVALID ? 0 : reference.size(1, ask));
  for (const side of [0, 1] as const) {
    for (const price of reference.sides[side].keys()) {
      if (book.sizeAtPrice(side, p(price)) !== reference.size(side, price)) {
        expect({ side, price, size: book.sizeAtPrice(side, p(price)) }).toEqual({ side, price, size: reference.size(side, price) });
      }
    }
    for (const price of probes) expect(book.sizeAtPrice(side, p(price))).toBe(reference.size(side, price));
    // top-N: the best levels inside the window, in order.
    const expected = reference.prices(side).filter((price) => grid.contains(p(price))).slice(0, TOP);
    expect(topPrices(book, side)).toEqual(expected);
  }
  // Nothing lost, nothing counted twice: the overflow holds exactly the levels outside the window.
  let outside = 0;
  for (const side of [0, 1] as const) for (const price of reference.sides[side].keys()) if (!grid.contains(p(price))) outside++;
  expect(book.overflowLevelCount()).toBe(outside);
  // The window follows the market: whenever the bests fit in half a window, they are in it, and so
  // is every level within an eighth of the window of its side's best.
  const edge = grid.levelCount >> 3;
  const fits = bid === PRICE_INVALID || ask === PRICE_INVALID || Math.abs(ask - bid) <= (grid.levelCount >> 1) * grid.tick;
  if (fits) {
    if (bid !== PRICE_INVALID) {
      expect(book.bestBidLevel).toBe(grid.levelOf(p(bid)));
      for (const price of reference.sides[0].keys()) if (price >= bid - edge * grid.tick) expect(grid.contains(p(price))).toBe(true);
    }
    if (ask !== PRICE_INVALID) {
      expect(book.bestAskLevel).toBe(grid.levelOf(p(ask)));
      for (const price of reference.sides[1].keys()) if (price <= ask + edge * grid.tick) expect(grid.contains(p(price))).toBe(true);
    }
  }
}

/** A stream's generator: a mid on the tick that drifts and jumps; levels near it, some far. */
class Flow {
  mid: number;
  constructor(readonly random: () => number, readonly window: number, start = MID) {
    this.mid = start;
  }
  drift(): void {
    const r = this.random();
    // Mostly small steps; sometimes a jump of several windows (forces a re-centre).
    const ticks = r < 0.02 ? (randomInt(this.random, 6 * this.window) - 3 * this.window) : randomInt(this.random, 9) - 4;
    this.mid = Math.max(50 * TICK + 3 * this.window * TICK, this.mid + ticks * TICK);
  }
  /** A price for `side`: near the mid on its side, or (10%) far away, up to 5 windows out. */
  price(side: 0 | 1): number {
    const far = this.random() < 0.1;
    const ticks = 1 + (far ? randomInt(this.random, 5 * this.window) : randomInt(this.random, Math.max(4, this.window >> 3)));
    const price = side === 0 ? this.mid - ticks * TICK : this.mid + ticks * TICK;
    return price > 0 ? price : TICK;
  }
}

function snapshot(book: OrderBook, reference: PerpReference, flow: Flow, levels: number): void {
  book.beginSnapshot();
  reference.clear();
  for (let i = 0; i < levels; i++) {
    const side = randomInt(flow.random, 2) as 0 | 1;
    const price = flow.price(side);
    const size = 100 * (1 + randomInt(flow.random, 50));
    expect(book.setLevel(side, p(price), c(size))).toBe(ApplyStatus.OK);
    reference.sides[side].set(price, size); // a repeated price replaces, as in the book
  }
  book.endSnapshot();
  expect(book.synced).toBe(true);
}

function runStream(seed: number, window: number, steps: number): { recentres: number; breaks: number } {
  const random = rng(seed);
  const { book, reports } = perpBook(TICK, window);
  const reference = new PerpReference();
  const flow = new Flow(random, window);
  const deadline = Date.now() + TIME_LIMIT_MS;
  snapshot(book, reference, flow, 40);
  expectSameAsReference(book, reference, [flow.mid]);
  let breaks = 0;
  for (let step = 0; step < steps && Date.now() < deadline; step++) {
    flow.drift();
    const r = random();
    if (r < 0.01) {
      // Off the tick: the book breaks once (OFF_GRID) and is rebuilt by a snapshot of the reference.
      const offTick = flow.mid + 1 + randomInt(random, TICK - 1);
      expect(book.applyDelta(randomInt(random, 2) as 0 | 1, p(offTick), c(100))).toBe(ApplyStatus.OFF_GRID);
      expect(book.synced).toBe(false);
      expect(reports.at(-1)).toBe(ApplyStatus.OFF_GRID);
      breaks++;
      book.beginSnapshot();
      for (const side of [0, 1] as const) for (const [price, size] of reference.sides[side]) book.setLevel(side, p(price), c(size));
      book.endSnapshot();
      expect(book.synced).toBe(true);
    } else if (r < 0.02) {
      snapshot(book, reference, flow, randomInt(random, 60));
    } else if (r < 0.04) {
      // Empty one side by deltas (the window's and the overflow's levels alike).
      const side = randomInt(random, 2) as 0 | 1;
      for (const [price, size] of [...reference.sides[side]]) {
        expect(book.applyDelta(side, p(price), c(-size))).toBe(ApplyStatus.OK);
        reference.add(side, price, -size);
        expectSameAsReference(book, reference, []);
      }
    } else {
      const side = randomInt(random, 2) as 0 | 1;
      const existing = reference.prices(side);
      let price: number;
      let delta: number;
      if (existing.length > 0 && random() < 0.4) {
        // Shrink or remove an existing level, often the best (forces rescans and re-centres).
        price = random() < 0.5 ? existing[0] : existing[randomInt(random, existing.length)];
        const size = reference.size(side, price);
        delta = random() < 0.6 ? -size : -100 * (1 + randomInt(random, Math.max(1, size / 100 - 1)));
        if (-delta > size) delta = -size;
      } else {
        price = flow.price(side);
        delta = 100 * (1 + randomInt(random, 20));
      }
      expect(book.applyDelta(side, p(price), c(delta))).toBe(ApplyStatus.OK);
      reference.add(side, price, delta);
    }
    expectSameAsReference(book, reference, [flow.mid, flow.price(0), flow.price(1)]);
  }
  return { recentres: book.recentres, breaks };
}

describe('TickGrid', () => {
  const grid = new TickGrid(100, 999_900, 5); // $99.99 .. $100.03

  it('maps levels and prices inside the window only, on the tick only', () => {
    expect([grid.minPrice, grid.maxPrice, grid.levelCount]).toEqual([999_900, 1_000_300, 5]);
    expect(grid.priceAt(0)).toBe(999_900);
    expect(grid.priceAt(4)).toBe(1_000_300);
    expect([grid.priceAt(-1), grid.priceAt(5), grid.priceAt(1.5)]).toEqual([PRICE_INVALID, PRICE_INVALID, PRICE_INVALID]);
    expect(grid.levelOf(p(1_000_100))).toBe(2);
    for (const price of [999_800, 1_000_400, 1_000_150, 1_000_100.5, Number.NaN, -100, 0]) expect(grid.levelOf(p(price))).toBe(-1);
    expect(grid.contains(p(1_000_000))).toBe(true);
    expect(grid.onTick(p(5_000_000_000_000))).toBe(true);
    expect(grid.onTick(p(1_000_150))).toBe(false);
    expect(grid.onTick(p(0))).toBe(false);
    expect(grid.key).toBe('tick:100:999900:5');
  });

  it('snaps down, up and nearest inside the window like PriceGrid', () => {
    expect(grid.snap(p(1_000_150), 'down')).toBe(1_000_100);
    expect(grid.snap(p(1_000_150), 'up')).toBe(1_000_200);
    expect(grid.snap(p(1_000_150), 'nearest')).toBe(1_000_100); // ties go down
    expect(grid.snap(p(1_000_151), 'nearest')).toBe(1_000_200);
    expect(grid.snap(p(1_000_100), 'up')).toBe(1_000_100);
    expect(grid.snap(p(999_000), 'down')).toBe(PRICE_INVALID);
    expect(grid.snap(p(999_000), 'up')).toBe(999_900);
    expect(grid.snap(p(2_000_000), 'down')).toBe(1_000_300);
    expect(grid.snap(p(2_000_000), 'up')).toBe(PRICE_INVALID);
    expect(grid.snap(p(Number.NaN), 'nearest')).toBe(PRICE_INVALID);
  });

  it('centres a window, never below the first tick, and refuses bad shapes', () => {
    const around = TickGrid.around(100, 1_000_050, 4);
    expect([around.minPrice, around.maxPrice]).toEqual([999_800, 1_000_100]);
    expect(TickGrid.around(100, 300, 16).minPrice).toBe(100);
    expect(around.recentred(around.base)).toBe(around);
    expect(around.recentred(500).minPrice).toBe(500);
    expect(() => new TickGrid(0, 100, 4)).toThrow(RangeError);
    expect(() => new TickGrid(100, 150, 4)).toThrow(RangeError);
    expect(() => new TickGrid(100, 100, 0)).toThrow(RangeError);
  });

  it('PriceGrid and TickGrid are both LevelGrids', () => {
    const grids: LevelGrid[] = [PriceGrid.fromStructure('linear_cent'), grid];
    expect(grids.map((g) => g.priceAt(0))).toEqual([100, 999_900]);
  });
});

describe('perpetual OrderBook against a Map reference on random streams', () => {
  it.each([
    [11, 64, 3_000],
    [12, 64, 3_000],
    [13, 256, 2_000],
    [14, PERP_WINDOW_TICKS, 600],
  ])('seed %i, window %i ticks, %i steps', (seed, window, steps) => {
    const { recentres, breaks } = runStream(seed, window, steps);
    expect(recentres).toBeGreaterThan(0);
    expect(breaks).toBeGreaterThan(0);
  }, 60_000);
});

describe('perpetual OrderBook rules', () => {
  it('bids and asks are at their own prices, no complement', () => {
    const { book } = perpBook();
    book.beginSnapshot();
    book.setLevel(0, p(999_900), c(300));
    book.setLevel(1, p(1_000_100), c(500));
    book.endSnapshot();
    expect([book.bestBid(), book.bestBidSize(), book.bestAsk(), book.bestAskSize()]).toEqual([999_900, 300, 1_000_100, 500]);
    expect(book.sizeAtPrice(1, p(1_000_100))).toBe(500);
    expect(book.grid.priceAt(book.bestAskLevel)).toBe(1_000_100);
    expect(book.applyDelta(1, p(1_000_000), c(200))).toBe(ApplyStatus.OK);
    expect(book.bestAsk()).toBe(1_000_000);
  });

  it('the first snapshot centres the window on its levels, far from the placeholder', () => {
    const { book } = perpBook(TICK, 64);
    book.beginSnapshot();
    book.setLevel(0, p(1_000_000_000), c(100)); // $100,000.00
    book.setLevel(1, p(1_000_000_000 + 10 * TICK), c(100));
    book.endSnapshot();
    expect(book.grid.contains(p(1_000_000_000))).toBe(true);
    expect(book.bestBidLevel).not.toBe(-1);
    expect(book.overflowLevelCount()).toBe(0);
  });

  it('keeps a level far outside the window and brings it in when the near side empties', () => {
    const { book } = perpBook(TICK, 64, 4_096);
    book.beginSnapshot();
    book.setLevel(0, p(MID), c(100));
    book.setLevel(0, p(MID - 1_000 * TICK), c(700)); // 1,000 ticks below: overflow
    book.setLevel(1, p(MID + TICK), c(100));
    book.endSnapshot();
    expect(book.overflowLevelCount()).toBe(1);
    expect(book.sizeAtPrice(0, p(MID - 1_000 * TICK))).toBe(700);
    const before = book.recentres;
    expect(book.applyDelta(0, p(MID), c(-100))).toBe(ApplyStatus.OK);
    expect([book.bestBid(), book.bestBidSize()]).toEqual([MID - 1_000 * TICK, 700]);
    expect(book.recentres).toBe(before + 1);
    // The spread (1,001 ticks) is wider than half the window: it doubled to hold both bests.
    expect(book.grid.levelCount).toBe(2_048);
    expect(book.bestBidLevel).not.toBe(-1);
    expect(book.bestAskLevel).not.toBe(-1);
    expect(book.overflowLevelCount()).toBe(0);
  });

  it('a spread wider than the largest window keeps exact bests through the overflow', () => {
    const { book } = perpBook(TICK, 16, 32);
    book.beginSnapshot();
    book.setLevel(0, p(MID), c(100));
    book.setLevel(1, p(MID + 100 * TICK), c(200));
    book.endSnapshot();
    expect(book.grid.levelCount).toBe(32);
    expect([book.bestBid(), book.bestBidSize(), book.bestAsk(), book.bestAskSize()]).toEqual([MID, 100, MID + 100 * TICK, 200]);
    expect([book.bestBidLevel, book.bestAskLevel]).toEqual([-1, -1]);
    expect(book.applyDelta(1, p(MID + 90 * TICK), c(300))).toBe(ApplyStatus.OK);
    expect([book.bestAsk(), book.bestAskSize()]).toEqual([MID + 90 * TICK, 300]);
  });

  it('an off-tick price breaks the book OFF_GRID once, in snapshots and deltas, in the window or not', () => {
    const { book, reports } = perpBook();
    book.beginSnapshot();
    expect(book.setLevel(0, p(MID + 50), c(100))).toBe(ApplyStatus.OFF_GRID);
    book.endSnapshot();
    expect(book.synced).toBe(false);
    expect(reports).toEqual([ApplyStatus.OFF_GRID]);
    book.beginSnapshot();
    book.setLevel(0, p(MID), c(100));
    book.endSnapshot();
    expect(book.applyDelta(1, p(MID * 50 + 1), c(100))).toBe(ApplyStatus.OFF_GRID); // far and off tick
    expect(book.applyDelta(1, p(MID + TICK), c(100))).toBe(ApplyStatus.OUT_OF_SYNC);
    expect(reports).toEqual([ApplyStatus.OFF_GRID, ApplyStatus.OFF_GRID]);
  });

  it('a negative result breaks NEGATIVE_LEVEL, in the window and in the overflow', () => {
    const { book } = perpBook(TICK, 64);
    book.beginSnapshot();
    book.setLevel(0, p(MID), c(100));
    book.endSnapshot();
    expect(book.applyDelta(0, p(MID - 5_000 * TICK), c(-100))).toBe(ApplyStatus.NEGATIVE_LEVEL);
    book.beginSnapshot();
    book.endSnapshot();
    expect(book.applyDelta(1, p(MID), c(-100))).toBe(ApplyStatus.NEGATIVE_LEVEL);
  });

  it('regrid is a no-op on a perpetual book', () => {
    const { book } = perpBook();
    const grid = book.grid;
    expect(book.regrid(PriceGrid.fromStructure('linear_cent'))).toBe(ApplyStatus.OK);
    expect(book.grid).toBe(grid);
  });
});

describe('BookStore.addPerp', () => {
  it('adds a perpetual book beside binary ones, sequenced like them', () => {
    const reports: string[] = [];
    const store = new BookStore({ now: () => 1, onOutOfSync: (book, reason) => reports.push(`${book.ticker} ${reason}`) });
    const binary = store.add('KXBIN', PriceGrid.fromStructure('linear_cent'));
    const perp = store.addPerp('KXBTCPERP', TICK);
    expect([binary.perp, perp.perp, store.size]).toEqual([false, true, 2]);
    expect(perp.grid.levelCount).toBe(PERP_WINDOW_TICKS);
    expect(store.addPerp('KXBTCPERP', TICK)).toBe(perp);
    const book = store.beginSnapshot(1, 1, 'KXBTCPERP')!;
    store.snapshotLevel(book, 0, p(MID), c(100));
    store.snapshotLevel(book, 1, p(MID + TICK), c(200));
    store.endSnapshot(book);
    expect(store.applyDelta(1, 2, 'KXBTCPERP', 1, p(MID + 2 * TICK), c(300))).toBe(ApplyStatus.OK);
    expect(perp.sizeAtPrice(1, p(MID + 2 * TICK))).toBe(300);
    expect(store.applyDelta(1, 4, 'KXBTCPERP', 0, p(MID), c(100))).toBe(ApplyStatus.SEQ_GAP);
    expect(reports).toEqual([`KXBTCPERP ${ApplyStatus.SEQ_GAP}`]);
    const replaced = store.addPerp('KXBTCPERP', 1_000);
    expect(replaced).not.toBe(perp);
    expect((replaced.grid as TickGrid).tick).toBe(1_000);
    expect(store.size).toBe(2);
  });
});

describe('OrderBook.levels', () => {
  it('lists window and overflow levels best first, in the exchange terms of each kind', () => {
    const { book } = perpBook(TICK, 64);
    book.beginSnapshot();
    book.setLevel(0, p(MID), c(100));
    book.setLevel(0, p(MID - 5_000 * TICK), c(200)); // overflow
    book.setLevel(1, p(MID + TICK), c(300));
    book.setLevel(1, p(MID + 9 * TICK), c(400));
    book.endSnapshot();
    expect(book.levels(0)).toEqual([[MID, 100], [MID - 5_000 * TICK, 200]]);
    expect(book.levels(1)).toEqual([[MID + TICK, 300], [MID + 9 * TICK, 400]]);
    const binary = new OrderBook('KXBIN', PriceGrid.fromStructure('linear_cent'));
    binary.beginSnapshot();
    binary.setLevel(0, p(4_000), c(100));
    binary.setLevel(1, p(5_500), c(200));
    binary.setLevel(1, p(5_000), c(300));
    binary.endSnapshot();
    expect(binary.levels(0)).toEqual([[4_000, 100]]);
    expect(binary.levels(1)).toEqual([[5_500, 200], [5_000, 300]]);
  });
});
