/**
 * Child process of the book bench's memory case: builds N books with 20 levels a side through the
 * public API (ours: BookStore snapshots on linear_cent; map: the Map baseline) and prints one JSON
 * line with RSS and heap before and after, measured after forced GCs. Run alone in its own process
 * so nothing else in the bench inflates or hides its footprint. Usage:
 *   node --expose-gc --import tsx bench/book/memory-child.ts <ours|map> <books>
 */

import { formatPrice, PRICE_INVALID, type Count, type Price } from '../../src/core/index.ts';
import { BookStore } from '../../src/book/index.ts';
import { LEVELS_PER_SIDE, makeDeltaStream } from './delta-stream.ts';
import { MapBookStore } from './map-book.ts';

const kind = process.argv[2];
const books = Number(process.argv[3]);
const gc = (globalThis as { gc?: () => void }).gc;
if (gc === undefined) throw new Error('memory-child: run with --expose-gc');
if (kind !== 'ours' && kind !== 'map') throw new Error('memory-child: kind must be ours or map');
if (!Number.isSafeInteger(books) || books <= 0 || books > 1_000_000) throw new Error('memory-child: books must be 1..1e6');

function settle(): NodeJS.MemoryUsage {
  for (let i = 0; i < 4; i++) gc!();
  return process.memoryUsage();
}

// One market's levels, reused for every book (sizes differ by book below so nothing is shared by accident).
const template = makeDeltaStream(1, 1, 7).snapshots[0];
const priceTexts = Array.from(template.prices, (price) => formatPrice(price as Price));
const before = settle();
const started = performance.now();
let keep: unknown;
if (kind === 'ours') {
  const store = new BookStore({ now: () => 0, onOutOfSync: () => {} });
  const grid = makeDeltaStream(1, 1, 7).grid;
  for (let b = 0; b < books; b++) {
    const ticker = `KXBENCH-26DEC31-M${b}`;
    store.add(ticker, grid);
    const book = store.beginSnapshot(1, b + 1, ticker)!;
    for (let i = 0; i < 2 * LEVELS_PER_SIDE; i++) {
      store.snapshotLevel(book, template.sides[i] as 0 | 1, template.prices[i] as Price, (template.sizes[i] + b) as Count);
    }
    store.endSnapshot(book);
    if (!book.synced || book.bestBid() === PRICE_INVALID) throw new Error('memory-child: book not built');
  }
  keep = store;
} else {
  const store = new MapBookStore(() => 0);
  for (let b = 0; b < books; b++) {
    const ticker = `KXBENCH-26DEC31-M${b}`;
    store.add(ticker);
    const yes: Array<[string, number]> = [];
    const no: Array<[string, number]> = [];
    for (let i = 0; i < 2 * LEVELS_PER_SIDE; i++) {
      // Fresh strings per book, as JSON.parse would produce them.
      const price = priceTexts[i].slice(0, 2) + priceTexts[i].slice(2);
      (template.sides[i] === 0 ? yes : no).push([price, template.sizes[i] + b]);
    }
    store.snapshot(ticker, 'yes', yes);
    store.snapshot(ticker, 'no', no);
  }
  keep = store;
}
const buildMs = performance.now() - started;
const after = settle();
process.stdout.write(
  `${JSON.stringify({
    kind,
    books,
    levelsPerSide: LEVELS_PER_SIDE,
    buildMs: Math.round(buildMs),
    rssBefore: before.rss,
    rssAfter: after.rss,
    heapUsedDelta: after.heapUsed - before.heapUsed,
    arrayBuffersDelta: after.arrayBuffers - before.arrayBuffers,
    bytesPerBook: Math.round((after.rss - before.rss) / books),
    kept: keep !== undefined,
  })}\n`,
);
