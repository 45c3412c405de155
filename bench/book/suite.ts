/**
 * Book bench: our BookStore / OrderBook beside a naive Map book keyed by price string, same recorded
 * traffic, same run. Cases: delta apply (throughput and per-call latency, through BookStore and
 * straight on OrderBook), best-price read, parse of an orderbook_delta frame (JSON.parse + field
 * conversion), frame -> book end to end, and the memory of 100k books with 20 levels a side (each
 * kind built in a child process of its own). Targets: delta apply >= 5M/s and >= 5x the Map
 * baseline; 100k books within 1 GiB RSS. Every loop is bounded in count and time.
 */

import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { CoarseClock, parsePrice, parseSignedCount, PRICE_INVALID, type Count, type Price } from '../../src/core/index.ts';
import { ApplyStatus, BookStore, type OrderBook } from '../../src/book/index.ts';
import {
  consume, latencyRow, measureLatency, measureThroughput, measureThroughputInterleaved, throughputRow, type BenchRow, type BenchSuite, type ThroughputResult,
} from '../harness.ts';
import { deltaFrame, LEVELS_PER_SIDE, makeDeltaStream, type DeltaStream } from './delta-stream.ts';
import { MapBookStore, type MapBook } from './map-book.ts';

const SUITE = 'book';
const SID = 1;
const HERE = path.dirname(fileURLToPath(import.meta.url));
const REPO = path.resolve(HERE, '..', '..');

interface Settings {
  markets: number;
  half: number; // stream length = 2 * half
  frameHalf: number;
  roundMs: number;
  rounds: number;
  warmupMs: number;
  samples: number;
  latencyBudgetMs: number;
  memoryBooks: number;
}

const FULL: Settings = { markets: 1000, half: 250_000, frameHalf: 25_000, roundMs: 1000, rounds: 5, warmupMs: 500, samples: 1_000_000, latencyBudgetMs: 2000, memoryBooks: 100_000 };
const QUICK: Settings = { markets: 200, half: 20_000, frameHalf: 5_000, roundMs: 150, rounds: 3, warmupMs: 100, samples: 100_000, latencyBudgetMs: 300, memoryBooks: 100_000 };

function buildOurs(stream: DeltaStream, now: () => number): { store: BookStore; books: OrderBook[]; seq: { value: number } } {
  let breaks = 0;
  const store = new BookStore({ now, onOutOfSync: () => breaks++ });
  const seq = { value: 0 };
  const books: OrderBook[] = [];
  for (let m = 0; m < stream.tickers.length; m++) {
    store.add(stream.tickers[m], stream.grid);
    const book = store.beginSnapshot(SID, ++seq.value, stream.tickers[m])!;
    const snapshot = stream.snapshots[m];
    for (let i = 0; i < snapshot.prices.length; i++) {
      store.snapshotLevel(book, snapshot.sides[i] as 0 | 1, snapshot.prices[i] as Price, snapshot.sizes[i] as Count);
    }
    store.endSnapshot(book);
    books.push(book);
  }
  if (breaks !== 0) throw new Error('book bench: snapshot broke a book');
  return { store, books, seq };
}

function buildMap(stream: DeltaStream, now: () => number): { store: MapBookStore; books: MapBook[]; seq: { value: number } } {
  const store = new MapBookStore(now);
  const seq = { value: 0 };
  const books: MapBook[] = [];
  for (let m = 0; m < stream.tickers.length; m++) {
    const ticker = stream.tickers[m];
    books.push(store.add(ticker));
    const snapshot = stream.snapshots[m];
    const yes: Array<[string, number]> = [];
    const no: Array<[string, number]> = [];
    for (let i = 0; i < snapshot.prices.length; i++) {
      const text = (snapshot.prices[i] / 10_000).toFixed(4);
      (snapshot.sides[i] === 0 ? yes : no).push([text, snapshot.sizes[i]]);
    }
    store.snapshot(ticker, 'yes', yes);
    store.snapshot(ticker, 'no', no);
    seq.value++;
    store.seqs.set(SID, seq.value);
  }
  return { store, books, seq };
}

function runMemoryChild(kind: 'ours' | 'map', books: number): { rssAfter: number; rssBefore: number; bytesPerBook: number; buildMs: number; heapUsedDelta: number; arrayBuffersDelta: number } {
  const child = spawnSync(process.execPath, ['--expose-gc', '--import', 'tsx', path.join(HERE, 'memory-child.ts'), kind, String(books)], {
    cwd: REPO,
    encoding: 'utf8',
    timeout: 120_000,
  });
  if (child.status !== 0) throw new Error(`memory child (${kind}) failed: ${child.stderr || child.error?.message}`);
  return JSON.parse(child.stdout.trim().split('\n').pop()!);
}

const suite: BenchSuite = {
  name: SUITE,
  async run({ quick }): Promise<BenchRow[]> {
    const s = quick ? QUICK : FULL;
    const rows: BenchRow[] = [];
    const stream = makeDeltaStream(s.markets, s.half, 42);
    const n = stream.length;
    const { market, side, price, delta, priceText, tickers } = stream;
    const sideText = Array.from(side, (code) => (code === 0 ? 'yes' : 'no'));
    // Both implementations stamp each change from the same injected clock: a CoarseClock, as the
    // runtime should wire it (a Date.now() per delta is measured separately below).
    const clock = new CoarseClock();
    const now = (): number => clock.nowMs();
    const ours = buildOurs(stream, now);
    const naive = buildMap(stream, now);
    const store = ours.store;
    const books = ours.books;
    const mapStore = naive.store;
    const mapBooks = naive.books;
    const throughput = { opsPerCall: n, roundMs: s.roundMs, rounds: s.rounds, warmupMs: s.warmupMs, maxCallsPerRound: 100_000 };
    const latency = { samples: s.samples, timeBudgetMs: s.latencyBudgetMs };
    const streamNote = `${s.markets} markets, linear_cent, ${LEVELS_PER_SIDE} levels a side, ${n} recorded deltas per pass`;
    // Targets are judged on CPU-time rates: on this shared machine the wall rate mostly measures the neighbours.
    const target = (ours: ThroughputResult, base: ThroughputResult): Partial<BenchRow> => ({
      target: '>= 5M/s and >= 5x Map (cpu-time)',
      pass: ours.opsPerCpuSec >= 5e6 && ours.opsPerCpuSec >= 5 * base.opsPerCpuSec,
    });

    // ---- delta apply, by ticker: seq check + ticker lookup + level update + time stamp ----------
    const storePass = (): void => {
      let bad = 0;
      let seq = ours.seq.value;
      for (let i = 0; i < n; i++) {
        bad |= store.applyDelta(SID, ++seq, tickers[market[i]], side[i] as 0 | 1, price[i] as Price, delta[i] as Count);
      }
      ours.seq.value = seq;
      if (bad !== ApplyStatus.OK) throw new Error('book bench: BookStore refused a delta');
    };
    const mapPass = (): void => {
      let ok = true;
      let seq = naive.seq.value;
      for (let i = 0; i < n; i++) {
        ok = mapStore.applyDelta(SID, ++seq, tickers[market[i]], sideText[i], priceText[i], delta[i]) && ok;
      }
      naive.seq.value = seq;
      if (!ok) throw new Error('book bench: Map baseline refused a delta');
    };
    // ---- delta apply, book in hand (the feed resolved the ticker through its interned table) ---
    const storeBookPass = (): void => {
      let bad = 0;
      let seq = ours.seq.value;
      for (let i = 0; i < n; i++) {
        bad |= store.applyDeltaToBook(SID, ++seq, books[market[i]], side[i] as 0 | 1, price[i] as Price, delta[i] as Count);
      }
      ours.seq.value = seq;
      if (bad !== ApplyStatus.OK) throw new Error('book bench: BookStore refused a delta');
    };
    const mapBookPass = (): void => {
      let ok = true;
      let seq = naive.seq.value;
      for (let i = 0; i < n; i++) {
        ok = mapStore.applyDeltaToBook(SID, ++seq, mapBooks[market[i]], sideText[i], priceText[i], delta[i]) && ok;
      }
      naive.seq.value = seq;
      if (!ok) throw new Error('book bench: Map baseline refused a delta');
    };
    // ---- delta apply, book only: the representation itself ------------------------------------
    const bookPass = (): void => {
      let bad = 0;
      for (let i = 0; i < n; i++) bad |= books[market[i]].applyDelta(side[i] as 0 | 1, price[i] as Price, delta[i] as Count);
      if (bad !== ApplyStatus.OK) throw new Error('book bench: OrderBook refused a delta');
    };
    const mapOnlyPass = (): void => {
      let ok = true;
      for (let i = 0; i < n; i++) ok = mapBooks[market[i]].apply(sideText[i], priceText[i], delta[i]) && ok;
      if (!ok) throw new Error('book bench: MapBook refused a delta');
    };
    // The same BookStore path with Date.now() per delta instead of the coarse clock.
    const slowClock = buildOurs(stream, Date.now);
    const slowClockPass = (): void => {
      let bad = 0;
      let seq = slowClock.seq.value;
      for (let i = 0; i < n; i++) {
        bad |= slowClock.store.applyDelta(SID, ++seq, tickers[market[i]], side[i] as 0 | 1, price[i] as Price, delta[i] as Count);
      }
      slowClock.seq.value = seq;
      if (bad !== ApplyStatus.OK) throw new Error('book bench: BookStore refused a delta');
    };
    // Each pair runs interleaved round by round (see measureThroughputInterleaved).
    const [storeRate, mapRate, slowClockRate] = measureThroughputInterleaved(
      [{ run: storePass, opsPerCall: n }, { run: mapPass, opsPerCall: n }, { run: slowClockPass, opsPerCall: n }],
      throughput,
    );
    const [storeBookRate, mapBookRate] = measureThroughputInterleaved([{ run: storeBookPass, opsPerCall: n }, { run: mapBookPass, opsPerCall: n }], throughput);
    const [bookRate, mapOnlyRate] = measureThroughputInterleaved([{ run: bookPass, opsPerCall: n }, { run: mapOnlyPass, opsPerCall: n }], throughput);
    rows.push(
      throughputRow(SUITE, 'delta apply by ticker: BookStore.applyDelta', false, storeRate, {
        compareTo: 'delta apply by ticker: Map store', ...target(storeRate, mapRate),
        note: `${streamNote}; seq + ticker Map lookup + level + CoarseClock stamp`,
      }),
      throughputRow(SUITE, 'delta apply by ticker: Map store', true, mapRate),
      throughputRow(SUITE, 'delta apply, book in hand: BookStore.applyDeltaToBook', false, storeBookRate, {
        compareTo: 'delta apply, book in hand: Map store', ...target(storeBookRate, mapBookRate),
        note: 'seq + level + CoarseClock stamp',
      }),
      throughputRow(SUITE, 'delta apply, book in hand: Map store', true, mapBookRate),
      throughputRow(SUITE, 'delta apply, book only: OrderBook.applyDelta', false, bookRate, {
        compareTo: 'delta apply, book only: MapBook.apply', ...target(bookRate, mapOnlyRate),
        note: 'grid level lookup + typed-array update + best level upkeep',
      }),
      throughputRow(SUITE, 'delta apply, book only: MapBook.apply', true, mapOnlyRate),
      throughputRow(SUITE, 'delta apply by ticker: BookStore with Date.now() clock', false, slowClockRate, { note: 'same as the first row with Date.now() per delta (interleaved with it)' }),
    );

    // ---- per-call latency of one delta (cursor walks the stream; a full pass restores the books)
    let cursor = 0;
    const storeStep = (): void => {
      const i = cursor;
      cursor = i + 1 === n ? 0 : i + 1;
      consume(store.applyDelta(SID, ++ours.seq.value, tickers[market[i]], side[i] as 0 | 1, price[i] as Price, delta[i] as Count));
    };
    const storeLatency = measureLatency(storeStep, latency);
    while (cursor !== 0) storeStep();
    let mapCursor = 0;
    const mapStep = (): void => {
      const i = mapCursor;
      mapCursor = i + 1 === n ? 0 : i + 1;
      consume(mapStore.applyDelta(SID, ++naive.seq.value, tickers[market[i]], sideText[i], priceText[i], delta[i]));
    };
    const mapLatency = measureLatency(mapStep, latency);
    while (mapCursor !== 0) mapStep();
    const floor = measureLatency(() => consume(0), latency);
    rows.push(
      latencyRow(SUITE, 'delta apply latency: BookStore.applyDelta', false, storeLatency, { compareTo: 'delta apply latency: Map store', note: 'per call, timer included' }),
      latencyRow(SUITE, 'delta apply latency: Map store', true, mapLatency, { note: 'per call, timer included' }),
      latencyRow(SUITE, 'timer floor (empty call)', true, floor, { note: 'cost of two performance.now() reads' }),
    );
    if (!books.every((book) => book.synced)) throw new Error('book bench: a book broke during the run');

    // ---- best-price read ----------------------------------------------------------------------
    const markets = s.markets;
    const bestPass = (): void => {
      let sum = 0;
      for (let m = 0; m < markets; m++) {
        const book = books[m];
        sum += book.bestBid() + book.bestAsk();
      }
      consume(sum);
    };
    const mapBestPass = (): void => {
      let sum = 0;
      for (let m = 0; m < markets; m++) {
        const book = mapBooks[m];
        sum += book.bestBid() + book.bestAsk();
      }
      consume(sum);
    };
    const bestThroughput = { ...throughput, opsPerCall: markets };
    const [bestRate, mapBestRate] = measureThroughputInterleaved([{ run: bestPass, opsPerCall: markets }, { run: mapBestPass, opsPerCall: markets }], bestThroughput);
    let bestCursor = 0;
    const bestLatency = measureLatency(() => {
      const book = books[bestCursor];
      bestCursor = bestCursor + 1 === markets ? 0 : bestCursor + 1;
      consume(book.bestBid() + book.bestAsk());
    }, latency);
    rows.push(
      throughputRow(SUITE, 'best bid+ask read: OrderBook', false, bestRate, { compareTo: 'best bid+ask read: MapBook key scan' }),
      throughputRow(SUITE, 'best bid+ask read: MapBook key scan', true, mapBestRate, { note: 'scans ~20 keys a side per read' }),
      latencyRow(SUITE, 'best bid+ask read latency: OrderBook', false, bestLatency, { note: 'per call, timer included' }),
    );

    // ---- parse of a delta frame ---------------------------------------------------------------
    const frameStream = makeDeltaStream(s.markets, s.frameHalf, 43);
    const frames: string[] = [];
    for (let i = 0; i < frameStream.length; i++) frames.push(deltaFrame(frameStream, i, SID, i + 1));
    // The decoded record is reused: the decoder allocates nothing beyond what JSON.parse does.
    const decoded = { sid: 0, seq: 0, ticker: '', side: 0 as 0 | 1, price: PRICE_INVALID as Price, delta: 0 as Count };
    const decode = (frame: string): void => {
      const message = JSON.parse(frame);
      const msg = message.msg;
      decoded.sid = message.sid;
      decoded.seq = message.seq;
      decoded.ticker = msg.market_ticker;
      decoded.side = msg.side === 'yes' ? 0 : 1;
      decoded.price = parsePrice(msg.price_dollars);
      decoded.delta = parseSignedCount(msg.delta_fp);
    };
    const naiveDecoded = { sid: 0, seq: 0, ticker: '', side: '', price: '', delta: 0 };
    const naiveDecode = (frame: string): void => {
      const message = JSON.parse(frame);
      const msg = message.msg;
      naiveDecoded.sid = message.sid;
      naiveDecoded.seq = message.seq;
      naiveDecoded.ticker = msg.market_ticker;
      naiveDecoded.side = msg.side;
      naiveDecoded.price = msg.price_dollars;
      naiveDecoded.delta = parseFloat(msg.delta_fp);
    };
    const frameCount = frames.length;
    const parseThroughput = { ...throughput, opsPerCall: frameCount };
    const [parseRate, naiveParseRate, jsonOnlyRate] = measureThroughputInterleaved(
      [
        { run: () => { for (let i = 0; i < frameCount; i++) decode(frames[i]); consume(decoded.price); }, opsPerCall: frameCount },
        { run: () => { for (let i = 0; i < frameCount; i++) naiveDecode(frames[i]); consume(naiveDecoded.delta); }, opsPerCall: frameCount },
        { run: () => { for (let i = 0; i < frameCount; i++) consume(JSON.parse(frames[i])); }, opsPerCall: frameCount },
      ],
      parseThroughput,
    );
    let frameCursor = 0;
    const parseLatency = measureLatency(() => {
      decode(frames[frameCursor]);
      frameCursor = frameCursor + 1 === frameCount ? 0 : frameCursor + 1;
    }, latency);
    rows.push(
      throughputRow(SUITE, 'delta frame parse: JSON.parse + scan to units', false, parseRate, { compareTo: 'delta frame parse: JSON.parse + parseFloat' }),
      throughputRow(SUITE, 'delta frame parse: JSON.parse + parseFloat', true, naiveParseRate, { note: 'price kept as string (Map key), delta via parseFloat' }),
      throughputRow(SUITE, 'delta frame parse: JSON.parse only (floor)', true, jsonOnlyRate),
      latencyRow(SUITE, 'delta frame parse latency', false, parseLatency, { note: 'per call, timer included' }),
    );

    // ---- frame -> book, end to end -----------------------------------------------------------
    const e2eOurs = buildOurs(frameStream, now);
    const e2eMap = buildMap(frameStream, now);
    // Frames carry seq 1..n; each pass maps them onto the store's running counter.
    const e2ePass = (): void => {
      let bad = 0;
      const base = e2eOurs.seq.value;
      for (let i = 0; i < frameCount; i++) {
        decode(frames[i]);
        bad |= e2eOurs.store.applyDelta(decoded.sid, base + decoded.seq, decoded.ticker, decoded.side, decoded.price, decoded.delta);
      }
      e2eOurs.seq.value = base + frameCount;
      if (bad !== ApplyStatus.OK) throw new Error('book bench: end-to-end delta refused');
    };
    const e2eMapPass = (): void => {
      let ok = true;
      const base = e2eMap.seq.value;
      for (let i = 0; i < frameCount; i++) {
        naiveDecode(frames[i]);
        ok = e2eMap.store.applyDelta(naiveDecoded.sid, base + naiveDecoded.seq, naiveDecoded.ticker, naiveDecoded.side, naiveDecoded.price, naiveDecoded.delta) && ok;
      }
      e2eMap.seq.value = base + frameCount;
      if (!ok) throw new Error('book bench: end-to-end Map delta refused');
    };
    const [e2eRate, e2eMapRate] = measureThroughputInterleaved([{ run: e2ePass, opsPerCall: frameCount }, { run: e2eMapPass, opsPerCall: frameCount }], parseThroughput);
    rows.push(
      throughputRow(SUITE, 'frame -> book: BookStore', false, e2eRate, { compareTo: 'frame -> book: Map store' }),
      throughputRow(SUITE, 'frame -> book: Map store', true, e2eMapRate),
    );

    // ---- memory of 100k books, 20 levels a side, each kind in its own process ------------------
    const oursMemory = runMemoryChild('ours', s.memoryBooks);
    const mapMemory = runMemoryChild('map', s.memoryBooks);
    const memoryNote = (m: typeof oursMemory): string =>
      `RSS ${(m.rssBefore / 2 ** 20).toFixed(0)} -> ${(m.rssAfter / 2 ** 20).toFixed(0)} MiB; heap +${(m.heapUsedDelta / 2 ** 20).toFixed(0)} MiB, arrayBuffers +${(m.arrayBuffersDelta / 2 ** 20).toFixed(0)} MiB; built in ${m.buildMs} ms`;
    rows.push(
      {
        suite: SUITE, case: `memory: ${s.memoryBooks} books x ${LEVELS_PER_SIDE} levels/side, ours (RSS delta)`, baseline: false, count: s.memoryBooks,
        value: oursMemory.rssAfter - oursMemory.rssBefore, unit: 'bytes', compareTo: `memory: ${s.memoryBooks} books, Map store (RSS delta)`,
        target: 'process RSS <= 1 GiB', pass: oursMemory.rssAfter <= 2 ** 30, note: `${oursMemory.bytesPerBook} B/book; ${memoryNote(oursMemory)}`,
      },
      {
        suite: SUITE, case: `memory: ${s.memoryBooks} books, Map store (RSS delta)`, baseline: true, count: s.memoryBooks,
        value: mapMemory.rssAfter - mapMemory.rssBefore, unit: 'bytes', note: `${mapMemory.bytesPerBook} B/book; ${memoryNote(mapMemory)}`,
      },
    );
    return rows;
  },
};

export default suite;
