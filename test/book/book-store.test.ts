// Goal: BookStore sequences snapshot/delta messages per sid exactly as websocket.md §5-6.1 describe,
// detects every break (seq gap, repeat, delta before snapshot, negative level, off-grid, wrong sid),
// reports each broken book once via onOutOfSync, applies nothing to it until a new snapshot, and
// stamps changes with the injected clock.
// Method: targeted message sequences on a few markets over two sids, and a seeded random stream
// (bounded) with injected faults checked against Map-based reference books.
import { describe, expect, it } from 'vitest';
import { ManualClock, PRICE_ONE, PriceGrid, type Count, type Price } from '../../src/core/index.ts';
import { ApplyStatus, applyStatusName, BookStore, type OrderBook } from '../../src/book/index.ts';
import { randomGridPrice, randomInt, ReferenceBook, rng } from './reference-book.ts';

const p = (n: number) => n as Price;
const c = (n: number) => n as Count;
const linear = PriceGrid.fromStructure('linear_cent');

function makeStore() {
  const clock = new ManualClock(1_000);
  const reports: Array<[string, string]> = [];
  const store = new BookStore({
    now: () => clock.nowMs(),
    onOutOfSync: (book, reason) => reports.push([book.ticker, applyStatusName(reason)]),
  });
  return { store, clock, reports };
}

function snapshot(store: BookStore, sid: number, seq: number, ticker: string, yes: Array<[number, number]>, no: Array<[number, number]> = []): OrderBook | null {
  const book = store.beginSnapshot(sid, seq, ticker);
  if (book === null) return null;
  for (const [price, size] of yes) store.snapshotLevel(book, 0, p(price), c(size));
  for (const [price, size] of no) store.snapshotLevel(book, 1, p(price), c(size));
  store.endSnapshot(book);
  return book;
}

describe('BookStore', () => {
  it('applies a snapshot then deltas on one sid and stamps times from the injected clock', () => {
    const { store, clock, reports } = makeStore();
    store.add('A', linear);
    expect(store.size).toBe(1);
    const book = snapshot(store, 4, 1, 'A', [[4100, 25_000], [4200, 4000]], [[5500, 7500], [5600, 1000]])!;
    expect(book.synced).toBe(true);
    expect(book.sid).toBe(4);
    expect(book.updatedAtMs).toBe(1_000);
    clock.advance(7);
    expect(store.applyDelta(4, 2, 'A', 0, p(4200), c(-4000))).toBe(ApplyStatus.OK);
    expect(book.bestBid()).toBe(4100);
    expect(book.updatedAtMs).toBe(1_007);
    expect(store.applyDelta(4, 3, 'A', 1, p(5700), c(300))).toBe(ApplyStatus.OK);
    expect(book.bestAsk()).toBe(PRICE_ONE - 5700);
    expect(store.seqLast(4)).toBe(3);
    expect(reports).toEqual([]);
  });

  it('a seq gap marks every book of that sid out of sync, each reported once, and leaves other sids alone', () => {
    const { store, reports } = makeStore();
    for (const ticker of ['A', 'B', 'C']) store.add(ticker, linear);
    snapshot(store, 1, 1, 'A', [[5000, 100]]);
    snapshot(store, 1, 2, 'B', [[5000, 100]]);
    snapshot(store, 2, 1, 'C', [[5000, 100]]);
    expect(store.applyDelta(1, 4, 'A', 0, p(5000), c(1))).toBe(ApplyStatus.SEQ_GAP); // 3 missing
    expect(store.get('A')!.synced).toBe(false);
    expect(store.get('B')!.synced).toBe(false);
    expect(store.get('C')!.synced).toBe(true);
    expect(store.get('A')!.bidSizeAtLevel(linear.levelOf(p(5000)))).toBe(100); // the gap delta was not applied
    // Later deltas continue the seq but are refused by the broken books, silently.
    expect(store.applyDelta(1, 5, 'B', 0, p(5000), c(1))).toBe(ApplyStatus.OUT_OF_SYNC);
    expect(store.applyDelta(1, 7, 'B', 0, p(5000), c(1))).toBe(ApplyStatus.SEQ_GAP);
    expect(store.applyDelta(2, 2, 'C', 0, p(5000), c(1))).toBe(ApplyStatus.OK);
    expect(reports).toEqual([['A', 'SEQ_GAP'], ['B', 'SEQ_GAP']]);
    // The second gap broke no book (both already waited for a snapshot) but is counted all the same.
    expect(store.sequenceBreaks).toBe(2);
    // A new snapshot (get_snapshot on the same sid) resyncs.
    const a = snapshot(store, 1, 8, 'A', [[6000, 5]])!;
    expect(a.synced).toBe(true);
    expect(a.bestBid()).toBe(6000);
    expect(store.applyDelta(1, 9, 'A', 0, p(6000), c(-5))).toBe(ApplyStatus.OK);
    expect(store.get('B')!.synced).toBe(false);
  });

  it('a repeated or backward seq is a break too', () => {
    const { store, reports } = makeStore();
    store.add('A', linear);
    snapshot(store, 1, 10, 'A', [[5000, 100]]);
    expect(store.applyDelta(1, 11, 'A', 0, p(5000), c(1))).toBe(ApplyStatus.OK);
    expect(store.applyDelta(1, 11, 'A', 0, p(5000), c(1))).toBe(ApplyStatus.SEQ_GAP);
    snapshot(store, 1, 12, 'A', [[5000, 100]]);
    expect(store.applyDelta(1, 3, 'A', 0, p(5000), c(1))).toBe(ApplyStatus.SEQ_GAP);
    expect(reports).toEqual([['A', 'SEQ_GAP'], ['A', 'SEQ_GAP']]);
    expect(store.sequenceBreaks).toBe(2);
  });

  it('a snapshot arriving after a gap is refused (null) and its book reported', () => {
    const { store, reports } = makeStore();
    store.add('A', linear);
    store.add('B', linear);
    snapshot(store, 1, 1, 'A', [[5000, 100]]);
    expect(store.beginSnapshot(1, 3, 'B')).toBeNull();
    expect(store.get('A')!.synced).toBe(false);
    expect(store.get('B')!.synced).toBe(false);
    expect(reports).toEqual([['A', 'SEQ_GAP'], ['B', 'SEQ_GAP']]);
  });

  it('a delta before the snapshot, and a delta from another sid, break the book', () => {
    const { store, reports } = makeStore();
    store.add('A', linear);
    store.add('B', linear);
    expect(store.applyDelta(1, 1, 'A', 0, p(5000), c(100))).toBe(ApplyStatus.NO_SNAPSHOT);
    expect(store.applyDelta(1, 2, 'A', 0, p(5000), c(100))).toBe(ApplyStatus.OUT_OF_SYNC);
    snapshot(store, 1, 3, 'B', [[5000, 100]]);
    expect(store.applyDelta(2, 1, 'B', 0, p(5000), c(1))).toBe(ApplyStatus.NO_SNAPSHOT);
    expect(reports).toEqual([['A', 'NO_SNAPSHOT'], ['B', 'NO_SNAPSHOT']]);
  });

  it('unknown markets return UNKNOWN_MARKET / null but still consume their seq', () => {
    const { store, reports } = makeStore();
    store.add('A', linear);
    snapshot(store, 1, 1, 'A', [[5000, 100]]);
    expect(store.beginSnapshot(1, 2, 'ZZZ')).toBeNull();
    expect(store.applyDelta(1, 3, 'ZZZ', 0, p(5000), c(1))).toBe(ApplyStatus.UNKNOWN_MARKET);
    expect(store.applyDelta(1, 4, 'A', 0, p(5000), c(1))).toBe(ApplyStatus.OK);
    expect(store.advanceSeq(1, 5)).toBe(ApplyStatus.OK); // e.g. an `ok` reply on the same counter
    expect(store.applyDelta(1, 6, 'A', 0, p(5000), c(1))).toBe(ApplyStatus.OK);
    expect(store.regrid('ZZZ', linear)).toBe(ApplyStatus.UNKNOWN_MARKET);
    expect(reports).toEqual([]);
  });

  it('negative levels and off-grid prices break only their book and are reported once', () => {
    const { store, reports } = makeStore();
    store.add('A', linear);
    store.add('B', linear);
    snapshot(store, 1, 1, 'A', [[5000, 100]]);
    snapshot(store, 1, 2, 'B', [[5000, 100]]);
    expect(store.applyDelta(1, 3, 'A', 0, p(5000), c(-101))).toBe(ApplyStatus.NEGATIVE_LEVEL);
    expect(store.applyDelta(1, 4, 'B', 1, p(4250), c(1))).toBe(ApplyStatus.OFF_GRID);
    expect(store.applyDelta(1, 5, 'B', 1, p(4300), c(1))).toBe(ApplyStatus.OUT_OF_SYNC);
    expect(reports).toEqual([['A', 'NEGATIVE_LEVEL'], ['B', 'OFF_GRID']]);
    const b = store.get('B')!;
    expect(b.outOfSyncReason).toBe(ApplyStatus.OFF_GRID);
    expect(b.bestAsk()).toBe(-1);
  });

  it('markOutOfSync (STALE) and resetSubscription (RESYNC) report once; a reset sid starts a new baseline', () => {
    const { store, reports } = makeStore();
    store.add('A', linear);
    store.add('B', linear);
    snapshot(store, 1, 1, 'A', [[5000, 100]]);
    snapshot(store, 1, 2, 'B', [[5000, 100]]);
    store.markOutOfSync('A', ApplyStatus.STALE);
    store.markOutOfSync('A', ApplyStatus.STALE);
    store.markOutOfSync('nobody', ApplyStatus.STALE);
    store.resetSubscription(1);
    store.resetSubscription(99); // unknown sid: nothing
    expect(reports).toEqual([['A', 'STALE'], ['B', 'RESYNC']]);
    expect(store.seqLast(1)).toBe(-1);
    expect(store.get('B')!.sid).toBe(-1);
    // New connection: sid 1 again, seq restarts.
    const b = snapshot(store, 1, 1, 'B', [[4000, 1]])!;
    expect(b.synced).toBe(true);
    expect(store.applyDelta(1, 2, 'B', 0, p(4000), c(1))).toBe(ApplyStatus.OK);
  });

  it('moves a book between sids on a new snapshot and forgets removed markets', () => {
    const { store, reports } = makeStore();
    store.add('A', linear);
    snapshot(store, 1, 1, 'A', [[5000, 100]]);
    snapshot(store, 2, 1, 'A', [[5100, 100]]);
    expect(store.get('A')!.sid).toBe(2);
    expect(store.applyDelta(1, 2, 'A', 0, p(5000), c(1))).toBe(ApplyStatus.NO_SNAPSHOT);
    snapshot(store, 2, 2, 'A', [[5100, 100]]);
    expect(store.applyDelta(1, 4, 'X', 0, p(5000), c(1))).toBe(ApplyStatus.SEQ_GAP); // A is no longer on sid 1
    expect(store.get('A')!.synced).toBe(true);
    expect(store.remove('A')).toBe(true);
    expect(store.remove('A')).toBe(false);
    expect(store.get('A')).toBeUndefined();
    expect(store.size).toBe(0);
    expect(reports).toEqual([['A', 'NO_SNAPSHOT']]);
  });

  it('regrids a live book through add() or regrid() keeping its levels', () => {
    const { store, reports } = makeStore();
    store.add('A', linear);
    const book = snapshot(store, 1, 1, 'A', [[4200, 100]], [[5500, 30]])!;
    const fine = PriceGrid.fromStructure('deci_cent');
    expect(store.add('A', fine)).toBe(book);
    expect(book.grid).toBe(fine);
    expect(book.bestBid()).toBe(4200);
    expect(book.bestAsk()).toBe(4500);
    expect(store.applyDelta(1, 2, 'A', 0, p(4210), c(5))).toBe(ApplyStatus.OK);
    expect(store.regrid('A', PriceGrid.fromStructure('center_deci_edge_centi_cent'))).toBe(ApplyStatus.OK);
    expect(book.bestBid()).toBe(4210);
    expect(reports).toEqual([]);
  });

  it('applyDeltaToBook applies like applyDelta, with the same seq and sid checks', () => {
    const { store, reports } = makeStore();
    store.add('A', linear);
    const a = snapshot(store, 1, 1, 'A', [[5000, 100]])!;
    const other = store.add('B', linear); // never snapshotted
    expect(store.applyDeltaToBook(1, 2, a, 0, p(5100), c(7))).toBe(ApplyStatus.OK);
    expect(a.bestBid()).toBe(5100);
    expect(store.applyDelta(1, 3, 'A', 0, p(5100), c(-7))).toBe(ApplyStatus.OK); // one seq counter for both entry points
    expect(a.bestBid()).toBe(5000);
    expect(store.applyDeltaToBook(1, 4, other, 0, p(5000), c(1))).toBe(ApplyStatus.NO_SNAPSHOT);
    expect(store.applyDeltaToBook(1, 6, a, 0, p(5000), c(1))).toBe(ApplyStatus.SEQ_GAP);
    expect(store.applyDeltaToBook(1, 7, a, 0, p(5000), c(1))).toBe(ApplyStatus.OUT_OF_SYNC);
    expect(reports).toEqual([['B', 'NO_SNAPSHOT'], ['A', 'SEQ_GAP']]);
  });

  it('keeps seq per sid when deltas of several sids interleave', () => {
    const { store, reports } = makeStore();
    store.add('A', linear);
    store.add('B', linear);
    snapshot(store, 1, 1, 'A', [[5000, 100]]);
    snapshot(store, 2, 50, 'B', [[5000, 100]]);
    for (let k = 0; k < 20; k++) {
      expect(store.applyDelta(1, 2 + k, 'A', 0, p(5000), c(1))).toBe(ApplyStatus.OK);
      expect(store.applyDelta(2, 51 + k, 'B', 0, p(5000), c(1))).toBe(ApplyStatus.OK);
    }
    expect(store.seqLast(1)).toBe(21);
    expect(store.seqLast(2)).toBe(70);
    store.resetSubscription(2); // also drops the remembered last sid
    expect(store.applyDelta(2, 500, 'B', 0, p(5000), c(1))).toBe(ApplyStatus.OUT_OF_SYNC); // B broke on the reset
    expect(store.seqLast(2)).toBe(500); // any seq starts a reset sid
    expect(store.applyDelta(1, 22, 'A', 0, p(5000), c(1))).toBe(ApplyStatus.OK);
    expect(reports).toEqual([['B', 'RESYNC']]);
  });

  it('keeps the count of synced books through snapshots, a bad snapshot level, a gap, a re-snapshot, a removal and a replaced book', () => {
    const { store } = makeStore();
    for (const ticker of ['A', 'B', 'C']) store.add(ticker, linear);
    expect(store.syncedCount).toBe(0);
    snapshot(store, 1, 1, 'A', [[5000, 100]]);
    snapshot(store, 1, 2, 'B', [[5000, 100]]);
    expect(store.syncedCount).toBe(2);
    expect(snapshot(store, 1, 3, 'C', [[5001, 100]])!.synced).toBe(false); // off the cent grid: broken while snapshotting
    expect(store.syncedCount).toBe(2);
    snapshot(store, 1, 4, 'A', [[4000, 5]]); // a synced book snapshotted again stays counted once
    expect(store.syncedCount).toBe(2);
    expect(store.applyDelta(1, 9, 'A', 0, p(4000), c(1))).toBe(ApplyStatus.SEQ_GAP);
    expect(store.syncedCount).toBe(0);
    snapshot(store, 1, 10, 'A', [[4000, 5]]);
    snapshot(store, 1, 11, 'C', [[4000, 5]]);
    expect(store.syncedCount).toBe(2);
    expect(store.remove('A')).toBe(true);
    expect(store.syncedCount).toBe(1);
    store.addPerp('P', 100);
    snapshot(store, 2, 1, 'P', [[50_000, 3]], [[50_100, 4]]);
    expect(store.syncedCount).toBe(2);
    store.addPerp('P', 200); // another tick: the synced book is replaced by one that waits for a snapshot
    expect(store.syncedCount).toBe(1);
    expect(store.size).toBe(3);
    expect(store.slotCount).toBeGreaterThanOrEqual(4); // A's slot stays, empty
    expect(store.at(0)).toBeUndefined();
  });

  it('matches reference books on a random multi-market stream with injected faults', () => {
    const random = rng(2024);
    const { store, reports } = makeStore();
    const tickers = ['M0', 'M1', 'M2', 'M3'];
    const grids = [linear, PriceGrid.fromStructure('tapered_deci_cent'), PriceGrid.fromStructure('deci_cent'), linear];
    const references = tickers.map(() => new ReferenceBook());
    tickers.forEach((ticker, i) => store.add(ticker, grids[i]));
    const sid = 3;
    let seq = 0;
    const expectedReports: Array<[string, string]> = [];
    const synced = tickers.map(() => false);
    for (let step = 0; step < 4000; step++) {
      const m = randomInt(random, tickers.length);
      const ticker = tickers[m];
      const book = store.get(ticker)!;
      const reference = references[m];
      if (!synced[m] || random() < 0.005) {
        // (re)snapshot
        seq++;
        const begun = store.beginSnapshot(sid, seq, ticker)!;
        reference.clear();
        for (let i = randomInt(random, 15); i > 0; i--) {
          const side = randomInt(random, 2) as 0 | 1;
          const price = randomGridPrice(random, book.grid, side);
          const size = 1 + randomInt(random, 1000);
          store.snapshotLevel(begun, side, price, c(size));
          reference.set(side, price, size);
        }
        store.endSnapshot(begun);
        synced[m] = true;
      } else if (random() < 0.003) {
        // Fault: skip a seq. Every synced book on the sid breaks.
        seq += 2;
        expect(store.applyDelta(sid, seq, ticker, 0, book.grid.priceAt(0), c(1))).toBe(ApplyStatus.SEQ_GAP);
        tickers.forEach((t, i) => {
          if (synced[i]) expectedReports.push([t, 'SEQ_GAP']);
          synced[i] = false;
        });
      } else if (random() < 0.003) {
        // Fault: remove more than rests at a level.
        seq++;
        const side = randomInt(random, 2) as 0 | 1;
        const price = randomGridPrice(random, book.grid, side);
        expect(store.applyDelta(sid, seq, ticker, side, price, c(-(reference.size(side, price) + 1)))).toBe(ApplyStatus.NEGATIVE_LEVEL);
        expectedReports.push([ticker, 'NEGATIVE_LEVEL']);
        synced[m] = false;
      } else {
        seq++;
        const side = randomInt(random, 2) as 0 | 1;
        const existing = random() < 0.5 ? reference.pick(random, side) : null;
        const price = existing !== null ? p(existing) : randomGridPrice(random, book.grid, side);
        const delta = existing !== null ? -randomInt(random, reference.size(side, existing) + 1) : 1 + randomInt(random, 500);
        expect(store.applyDelta(sid, seq, ticker, side, price, c(delta))).toBe(ApplyStatus.OK);
        reference.add(side, price, delta);
      }
      expect(book.synced).toBe(synced[m]);
      expect(store.syncedCount).toBe(synced.filter(Boolean).length);
      if (synced[m]) {
        expect(book.bestBid()).toBe(reference.bestBid());
        expect(book.bestAsk()).toBe(reference.bestAsk());
      }
    }
    for (let m = 0; m < tickers.length; m++) {
      if (!synced[m]) continue;
      const book = store.get(tickers[m])!;
      for (let level = 0; level < book.grid.levelCount; level++) {
        const price = book.grid.priceAt(level);
        expect(book.bidSizeAtLevel(level)).toBe(references[m].size(0, price));
        expect(book.askSizeAtLevel(level)).toBe(references[m].size(1, PRICE_ONE - price));
      }
    }
    // Within one gap the store reports books in its own order; compare as multisets.
    const byText = (a: [string, string], b: [string, string]) => (a.join() < b.join() ? -1 : a.join() > b.join() ? 1 : 0);
    expect([...reports].sort(byText)).toEqual([...expectedReports].sort(byText));
    expect(expectedReports.length).toBeGreaterThan(3); // the faults did fire
  });
});
