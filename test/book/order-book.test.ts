// Goal: OrderBook keeps exactly the levels, best prices and top-N views the exchange's snapshots and
// deltas describe, breaks (once) on anything it cannot apply, and keeps every level when regridded.
// Method: seeded random snapshot + delta streams (bounded: a few thousand steps per grid) applied to
// both OrderBook and a naive Map-based ReferenceBook, compared after every step; targeted cases for
// each break (no snapshot, negative level, off-grid incl. $0/$1), best-level rescans, top-N bounds
// and regrid to finer and coarser grids; after every random delta, topMoved against the reference's
// best prices before and after.
import { describe, expect, it } from 'vitest';
import { PRICE_INVALID, PRICE_ONE, PriceGrid, type Count, type Price, type PriceLevelStructure } from '../../src/core/index.ts';
import { ApplyStatus, OrderBook } from '../../src/book/index.ts';
import { randomGridPrice, randomInt, ReferenceBook, rng } from './reference-book.ts';

const p = (n: number) => n as Price;
const c = (n: number) => n as Count;

function recordingBook(grid: PriceGrid): { book: OrderBook; reports: number[] } {
  const reports: number[] = [];
  const book = new OrderBook('KXTEST', grid, (_book, reason) => reports.push(reason));
  return { book, reports };
}

function expectSameAsReference(book: OrderBook, reference: ReferenceBook): void {
  const grid = book.grid;
  expect(book.bestBid()).toBe(reference.bestBid());
  expect(book.bestAsk()).toBe(reference.bestAsk());
  expect(book.bestBidSize()).toBe(reference.bestBid() === PRICE_INVALID ? 0 : reference.size(0, reference.bestBid()));
  expect(book.bestAskSize()).toBe(reference.bestAsk() === PRICE_INVALID ? 0 : reference.size(1, PRICE_ONE - reference.bestAsk()));
  for (let level = 0; level < grid.levelCount; level++) {
    const price = grid.priceAt(level);
    if (book.bidSizeAtLevel(level) !== reference.size(0, price)) {
      expect({ side: 'bid', price, size: book.bidSizeAtLevel(level) }).toEqual({ side: 'bid', price, size: reference.size(0, price) });
    }
    if (book.askSizeAtLevel(level) !== reference.size(1, PRICE_ONE - price)) {
      expect({ side: 'ask', price, size: book.askSizeAtLevel(level) }).toEqual({ side: 'ask', price, size: reference.size(1, PRICE_ONE - price) });
    }
  }
  const out = new Int32Array(10);
  const bids = book.topBidLevels(10, out);
  expect(Array.from(out.subarray(0, bids), (level) => grid.priceAt(level))).toEqual(reference.bidPrices().slice(0, 10));
  const asks = book.topAskLevels(10, out);
  expect(Array.from(out.subarray(0, asks), (level) => grid.priceAt(level))).toEqual(reference.askPrices().slice(0, 10));
}

function randomSnapshot(random: () => number, book: OrderBook, reference: ReferenceBook): void {
  book.beginSnapshot();
  reference.clear();
  const levels = randomInt(random, 30);
  for (let i = 0; i < levels; i++) {
    const side = randomInt(random, 2) as 0 | 1;
    const price = randomGridPrice(random, book.grid, side);
    const size = 1 + randomInt(random, 100_000);
    expect(book.setLevel(side, price, c(size))).toBe(ApplyStatus.OK);
    reference.set(side, price, size);
  }
  book.endSnapshot();
  expect(book.synced).toBe(true);
}

describe('OrderBook against a Map-based reference on random streams', () => {
  const structures: PriceLevelStructure[] = ['linear_cent', 'tapered_deci_cent', 'center_deci_edge_centi_cent', 'center_half_edge_quint_cent'];
  it.each(structures.map((s, i) => [s, 1000 + i]))('%s (seed %i)', (structure, seed) => {
    const random = rng(seed);
    const { book, reports } = recordingBook(PriceGrid.fromStructure(structure));
    const reference = new ReferenceBook();
    randomSnapshot(random, book, reference);
    expectSameAsReference(book, reference);
    for (let step = 0; step < 1500; step++) {
      const roll = random();
      const side = randomInt(random, 2) as 0 | 1;
      const bestBefore = [reference.bestBid(), reference.bestAsk()];
      if (roll < 0.01) {
        randomSnapshot(random, book, reference); // a fresh snapshot replaces everything
      } else if (roll < 0.5) {
        // Remove part or all of an existing level (often the best, to exercise rescans).
        const best = side === 0 ? reference.bestBid() : reference.bestAsk();
        const chosen = random() < 0.5 && best !== PRICE_INVALID ? (side === 0 ? best : PRICE_ONE - best) : reference.pick(random, side);
        if (chosen === null) continue;
        const size = reference.size(side, chosen);
        const delta = random() < 0.5 ? -size : -(1 + randomInt(random, size));
        expect(book.applyDelta(side, p(chosen), c(delta))).toBe(ApplyStatus.OK);
        expect(reference.add(side, chosen, delta)).toBe(true);
      } else {
        const price = randomGridPrice(random, book.grid, side);
        const delta = randomInt(random, 50_000); // 0 is a legal no-op change
        expect(book.applyDelta(side, price, c(delta))).toBe(ApplyStatus.OK);
        reference.add(side, price, delta);
      }
      // topMoved says whether this delta moved a best price (strategies with bookUpdates 'bestPrice').
      expect(book.topMoved).toBe(roll < 0.01 || reference.bestBid() !== bestBefore[0] || reference.bestAsk() !== bestBefore[1]);
      expectSameAsReference(book, reference);
    }
    expect(book.synced).toBe(true);
    expect(reports).toEqual([]);
  });
});

describe('OrderBook sync breaks', () => {
  const grid = PriceGrid.fromStructure('linear_cent');

  function syncedBook() {
    const made = recordingBook(grid);
    made.book.beginSnapshot();
    made.book.setLevel(0, p(4100), c(25_000));
    made.book.setLevel(0, p(4200), c(4000));
    made.book.setLevel(1, p(5500), c(7500)); // NO bid 0.55 = YES ask 0.45
    made.book.setLevel(1, p(5600), c(1000)); // NO bid 0.56 = YES ask 0.44
    made.book.endSnapshot();
    return made;
  }

  it('a snapshot sets levels and best prices (example of websocket.md §6.1)', () => {
    const { book } = syncedBook();
    expect(book.synced).toBe(true);
    expect(book.outOfSyncReason).toBe(ApplyStatus.OK);
    expect(book.bestBid()).toBe(4200);
    expect(book.bestBidSize()).toBe(4000);
    expect(book.bestAsk()).toBe(4400);
    expect(book.bestAskSize()).toBe(1000);
    expect(book.sizeAtPrice(1, p(5500))).toBe(7500);
    expect(book.sizeAtPrice(0, p(4100))).toBe(25_000);
    // The documented delta: -40.00 at 0.42 on yes empties the best bid; the next one takes over.
    expect(book.applyDelta(0, p(4200), c(-4000))).toBe(ApplyStatus.OK);
    expect(book.bestBid()).toBe(4100);
    expect(book.bestBidLevel).toBe(grid.levelOf(p(4100)));
  });

  it('a delta before any snapshot breaks the book once, then refuses', () => {
    const { book, reports } = recordingBook(grid);
    expect(book.synced).toBe(false);
    expect(book.outOfSyncReason).toBe(ApplyStatus.NO_SNAPSHOT);
    expect(book.applyDelta(0, p(5000), c(100))).toBe(ApplyStatus.NO_SNAPSHOT);
    expect(book.applyDelta(0, p(5000), c(100))).toBe(ApplyStatus.OUT_OF_SYNC);
    expect(reports).toEqual([ApplyStatus.NO_SNAPSHOT]);
    expect(book.bidSizeAtLevel(grid.levelOf(p(5000)))).toBe(0);
  });

  it('a delta during a snapshot breaks it', () => {
    const { book, reports } = recordingBook(grid);
    book.beginSnapshot();
    expect(book.applyDelta(0, p(5000), c(100))).toBe(ApplyStatus.NO_SNAPSHOT);
    book.endSnapshot();
    expect(book.synced).toBe(false);
    expect(reports).toEqual([ApplyStatus.NO_SNAPSHOT]);
  });

  it('a level going negative breaks the book and is not applied', () => {
    const { book, reports } = syncedBook();
    expect(book.applyDelta(0, p(4200), c(-4001))).toBe(ApplyStatus.NEGATIVE_LEVEL);
    expect(book.synced).toBe(false);
    expect(book.outOfSyncReason).toBe(ApplyStatus.NEGATIVE_LEVEL);
    expect(book.bidSizeAtLevel(grid.levelOf(p(4200)))).toBe(4000);
    expect(book.applyDelta(1, p(5000), c(-1))).toBe(ApplyStatus.OUT_OF_SYNC); // already broken: silent
    expect(reports).toEqual([ApplyStatus.NEGATIVE_LEVEL]);
  });

  it('a delta on an empty level going negative (NO side) breaks', () => {
    const { book, reports } = syncedBook();
    expect(book.applyDelta(1, p(3000), c(-1))).toBe(ApplyStatus.NEGATIVE_LEVEL);
    expect(reports).toEqual([ApplyStatus.NEGATIVE_LEVEL]);
  });

  it.each([
    ['off tick', 0, 4250], ['$0', 0, 0], ['$1', 0, PRICE_ONE], ['above $1', 0, 12_000], ['negative', 0, -100],
    ['NO off tick', 1, 4250], ['NO $0', 1, 0], ['NO $1', 1, PRICE_ONE], ['PRICE_INVALID', 1, PRICE_INVALID],
  ])('an off-grid price (%s) breaks the book', (_name, side, price) => {
    const { book, reports } = syncedBook();
    expect(book.applyDelta(side as 0 | 1, p(price), c(100))).toBe(ApplyStatus.OFF_GRID);
    expect(book.synced).toBe(false);
    expect(reports).toEqual([ApplyStatus.OFF_GRID]);
  });

  it('bad snapshot levels break the snapshot and endSnapshot leaves it broken', () => {
    const { book, reports } = recordingBook(grid);
    book.beginSnapshot();
    expect(book.setLevel(0, p(4250), c(100))).toBe(ApplyStatus.OFF_GRID);
    expect(book.setLevel(0, p(4200), c(100))).toBe(ApplyStatus.OUT_OF_SYNC);
    book.endSnapshot();
    expect(book.synced).toBe(false);
    const second = recordingBook(grid);
    second.book.beginSnapshot();
    expect(second.book.setLevel(1, p(4200), c(-5))).toBe(ApplyStatus.NEGATIVE_LEVEL);
    expect(reports).toEqual([ApplyStatus.OFF_GRID]);
    expect(second.reports).toEqual([ApplyStatus.NEGATIVE_LEVEL]);
  });

  it('a new snapshot heals a broken book and it may break (and be reported) again', () => {
    const { book, reports } = syncedBook();
    book.breakSync(ApplyStatus.STALE);
    expect(book.breakSync(ApplyStatus.STALE)).toBe(false);
    book.beginSnapshot();
    book.setLevel(0, p(100), c(1));
    book.endSnapshot();
    expect(book.synced).toBe(true);
    expect(book.bestBid()).toBe(100);
    expect(book.bestAsk()).toBe(PRICE_INVALID); // old levels were cleared
    expect(book.breakSync(ApplyStatus.RESYNC)).toBe(true);
    expect(reports).toEqual([ApplyStatus.STALE, ApplyStatus.RESYNC]);
  });
});

describe('OrderBook views', () => {
  it('top-N returns at most n and at most out.length levels, best first, skipping empties', () => {
    const grid = PriceGrid.fromStructure('linear_cent');
    const book = new OrderBook('KXTOP', grid);
    book.beginSnapshot();
    for (const cents of [10, 20, 30, 40, 50]) book.setLevel(0, p(cents * 100), c(cents));
    for (const cents of [60, 70, 80]) book.setLevel(1, p(PRICE_ONE - cents * 100), c(cents)); // YES asks 60, 70, 80
    book.endSnapshot();
    const out = new Int32Array(4);
    expect(book.topBidLevels(3, out)).toBe(3);
    expect(Array.from(out.subarray(0, 3), (l) => grid.priceAt(l))).toEqual([5000, 4000, 3000]);
    expect(book.topBidLevels(10, out)).toBe(4); // bounded by out.length
    expect(book.topBidLevels(0, out)).toBe(0);
    expect(book.topAskLevels(10, out)).toBe(3);
    expect(Array.from(out.subarray(0, 3), (l) => grid.priceAt(l))).toEqual([6000, 7000, 8000]);
    book.applyDelta(0, p(4000), c(-40)); // hole in the middle
    expect(book.topBidLevels(3, out)).toBe(3);
    expect(Array.from(out.subarray(0, 3), (l) => grid.priceAt(l))).toEqual([5000, 3000, 2000]);
    const empty = new OrderBook('KXEMPTY', grid);
    expect(empty.topBidLevels(5, out)).toBe(0);
    expect(empty.topAskLevels(5, out)).toBe(0);
    expect(empty.bestBid()).toBe(PRICE_INVALID);
    expect(empty.bestAskSize()).toBe(0);
    expect(empty.bidSizeAtLevel(-1)).toBe(0);
    expect(empty.askSizeAtLevel(grid.levelCount)).toBe(0);
  });

  it('reports its memory: two Float64 sides per grid level plus overhead', () => {
    const book = new OrderBook('KXMEM', PriceGrid.fromStructure('linear_cent'));
    expect(book.estimatedBytes()).toBeGreaterThanOrEqual(2 * 99 * 8);
    expect(book.estimatedBytes()).toBeLessThan(2 * 99 * 8 + 1024);
  });
});

describe('OrderBook.regrid', () => {
  it('moves every level to a finer grid at the same price (random books)', () => {
    const random = rng(77);
    const coarse = PriceGrid.fromStructure('linear_cent');
    for (const structure of ['deci_cent', 'tapered_deci_cent', 'center_deci_edge_centi_cent', 'center_whole_edge_half_cent'] as const) {
      for (let round = 0; round < 10; round++) {
        const { book, reports } = recordingBook(coarse);
        const reference = new ReferenceBook();
        randomSnapshot(random, book, reference);
        const fine = PriceGrid.fromStructure(structure);
        expect(book.regrid(fine)).toBe(ApplyStatus.OK);
        expect(book.grid).toBe(fine);
        expect(book.synced).toBe(true);
        expectSameAsReference(book, reference);
        // And the book keeps working on the new grid, at the new ticks.
        const fineOnly = fine.priceAt(0);
        expect(book.applyDelta(0, fineOnly, c(5))).toBe(ApplyStatus.OK);
        reference.add(0, fineOnly, 5);
        expectSameAsReference(book, reference);
        expect(reports).toEqual([]);
      }
    }
  });

  it('regrid to a coarser grid works when every level exists and breaks when one is missing', () => {
    const tapered = PriceGrid.fromStructure('tapered_deci_cent');
    const linear = PriceGrid.fromStructure('linear_cent');
    const { book, reports } = recordingBook(tapered);
    book.beginSnapshot();
    book.setLevel(0, p(5000), c(100));
    book.endSnapshot();
    expect(book.regrid(linear)).toBe(ApplyStatus.OK);
    expect(book.regrid(tapered)).toBe(ApplyStatus.OK);
    book.applyDelta(0, p(50), c(100)); // $0.005: tapered only
    expect(book.regrid(linear)).toBe(ApplyStatus.OFF_GRID);
    expect(book.grid).toBe(linear);
    expect(book.synced).toBe(false);
    expect(book.bestBid()).toBe(5000);
    expect(reports).toEqual([ApplyStatus.OFF_GRID]);
    expect(book.regrid(linear)).toBe(ApplyStatus.OK); // same grid: nothing to do
  });
});
