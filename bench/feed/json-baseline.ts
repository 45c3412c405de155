/**
 * The feed bench's baselines for decoding orderbook_delta frames, kept here and no longer in src:
 * JSON.parse plus the reference conversion to a record (what FrameDecoder's JSON path does for
 * every frame the byte scanners defer, and what the feed did for every delta before them), from a
 * string or from the socket's bytes (made a string first), and that decoder's way into the books.
 * Measures nothing itself.
 */

import type { OrderBook } from '../../src/book/index.ts';
import { ApplyStatus } from '../../src/book/index.ts';
import { DecodeStatus, OrderbookDeltaRecord, decodeDeltaObject, type Feed } from '../../src/feed/index.ts';
import type { MarketRegistry } from '../../src/market/index.ts';

/** JSON.parse + conversion: OK, NOT_DELTA or MALFORMED (the former src decodeDeltaJson). */
export function decodeDeltaJson(text: string, out: OrderbookDeltaRecord, tickers: MarketRegistry): number {
  let frame: unknown;
  try {
    frame = JSON.parse(text);
  } catch {
    return DecodeStatus.MALFORMED;
  }
  return decodeDeltaObject(frame, out, tickers);
}

/** The same from bytes: the frame made a UTF-8 string, then JSON.parse + conversion. */
export function decodeDeltaJsonFromBytes(bytes: Buffer, start: number, end: number, out: OrderbookDeltaRecord, tickers: MarketRegistry): number {
  return decodeDeltaJson(bytes.toString('utf8', start, end), out, tickers);
}

/**
 * Frame -> book through the JSON.parse decoder: bytes made a string, JSON.parse + conversion, then
 * the feed's own BookStore apply by book (the same store call Feed.handleBytes makes).
 */
export class JsonDeltaPath {
  readonly record = new OrderbookDeltaRecord();
  readonly #feed: Feed;
  readonly #tickers: MarketRegistry;
  readonly #books: OrderBook[];
  applied = 0;
  refused = 0;

  /** `books[i]` is the feed's book of `tickers.tickerAt(i)`. */
  constructor(feed: Feed, tickers: MarketRegistry, books: OrderBook[]) {
    this.#feed = feed;
    this.#tickers = tickers;
    this.#books = books;
  }

  handle(bytes: Buffer, start: number, end: number): void {
    const delta = this.record;
    if (decodeDeltaJsonFromBytes(bytes, start, end, delta, this.#tickers) !== DecodeStatus.OK || delta.marketIndex === -1) {
      this.refused++;
      return;
    }
    const status = this.#feed.books.applyDeltaToBook(delta.sid, delta.seq, this.#books[delta.marketIndex], delta.side, delta.price, delta.delta);
    if (status === ApplyStatus.OK) this.applied++;
    else this.refused++;
  }
}
