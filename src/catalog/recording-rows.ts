/**
 * A recording as catalog rows, through the one decode path: every FRAME record goes through a
 * Feed's handleBytes exactly as live and in replay (the feed's decoder, its BookStore of
 * book/OrderBook, sequence checks), with no socket behind it. After each frame the decoder's
 * record of it gives the row (a delta, a trade, a lifecycle message), and the feed's books give
 * top-of-book and depth-N rows every `snapshotMs` of receive time for each synced book. MARKET
 * records add the markets (with their grids) where they appear in the file. Nothing here parses
 * JSON of its own. Owns the walk and the rows; the writer owns the files.
 */

import { PRICE_INVALID, PriceGrid, type PriceLevelStructure } from '../core/index.ts';
import { ConnectionState, Feed, MessageKind, type FeedSession, type FrameDecoder } from '../feed/index.ts';
import type { OrderBook } from '../book/index.ts';
import { RecordKind } from '../record/format.ts';
import { parseMarketRecord, type RecordedMarket, type Recording } from '../record/recording-reader.ts';
import { utcDate, type Row, type TableName } from './catalog-tables.ts';

export interface RowSink {
  add(table: TableName, row: Row): void;
}

export interface RecordingRowsOptions {
  /** Top-of-book and depth cadence, ms of receive time; 0: none. */
  snapshotMs: number;
  /** Levels per side in book_depth; 0: no depth rows. */
  depth: number;
  /** The `source` column. */
  source: string;
}

/** A session that never connects: the feed's commands (resync) go nowhere; the recording answers. */
const IDLE_SESSION: FeedSession = {
  state: ConnectionState.IDLE,
  isOpen: false,
  start: () => undefined,
  stop: () => undefined,
  send: () => false,
  reconnect: () => undefined,
  onTick: () => undefined,
};

function gridOf(market: RecordedMarket): PriceGrid {
  return PriceGrid.forMarket((market.priceLevelStructure ?? 'linear_cent') as PriceLevelStructure, market.priceRanges);
}

function orNull(value: number): number | null {
  return value < 0 ? null : value;
}

/** Walks the recording into `sink`; returns the frames handled. */
export function recordingRows(recording: Recording, sink: RowSink, options: RecordingRowsOptions): number {
  const feed = new Feed({ url: 'ws://recording.invalid', auth: null, createSession: () => IDLE_SESSION, staleBookMs: 0 });
  feed.hop.enabled = false;
  const books: OrderBook[] = [];
  const cadenceUs = options.snapshotMs * 1000;
  const startUs = recording.startMs * 1000;
  let nextSnapshotUs = cadenceUs > 0 ? (Math.floor(startUs / cadenceUs) + 1) * cadenceUs : Infinity;
  let frames = 0;
  const levels = new Int32Array(Math.max(1, options.depth));
  for (let i = 0; i < recording.count; i++) {
    const kind = recording.kinds[i];
    if (kind === RecordKind.MARKET) {
      const market = parseMarketRecord(recording, i);
      if (feed.market(market.ticker) === undefined) books.push(feed.addMarket(market.ticker, gridOf(market)));
      continue;
    }
    if (kind !== RecordKind.FRAME) continue;
    const recvUs = startUs + Math.floor(recording.timesNs[i] / 1000);
    if (recvUs >= nextSnapshotUs) {
      // The books as they stood at the tick (before this frame); a long silence gives one tick, not thousands.
      snapshotRows(books, nextSnapshotUs, sink, options, levels);
      nextSnapshotUs = (Math.floor(recvUs / cadenceUs) + 1) * cadenceUs;
    }
    const start = recording.bodyStarts[i];
    feed.handleBytes(recording.bytes, start, start + recording.bodyLengths[i]);
    frames++;
    if (feed.hop.kind === MessageKind.OK) noteSeqOk(feed);
    else frameRow(feed.hop.kind, feed.decoder, recvUs, sink, options.source);
  }
  feed.stop();
  return frames;
}

/**
 * A get_snapshot reply (`ok` with sid and seq) takes a number from its book stream. Live, the feed
 * counts it because its subscription manager knows the sid; here no subscription was made, so a
 * sid the book store already sequences stands for it (the feed's own rule, #noteControlSeq).
 */
function noteSeqOk(feed: Feed): void {
  const ok = feed.decoder.ok;
  if (ok.sid === -1 || ok.seq === -1) return;
  const last = feed.books.seqLast(ok.sid);
  if (last !== -1 && ok.seq > last) feed.books.advanceSeq(ok.sid, ok.seq);
}

function frameRow(kind: number, decoder: FrameDecoder, recvUs: number, sink: RowSink, source: string): void {
  const date = utcDate(recvUs / 1000);
  switch (kind) {
    case MessageKind.ORDERBOOK_DELTA: {
      const d = decoder.delta;
      sink.add('book_deltas', [recvUs, orNull(d.tsMs), d.sid, d.seq, d.side === 0 ? 'yes' : 'no', d.price, d.delta, source, date, d.marketTicker]);
      return;
    }
    case MessageKind.TRADE: {
      const t = decoder.trade;
      sink.add('trades', [recvUs, orNull(t.tsMs), t.tradeId, t.yesPrice, t.noPrice === PRICE_INVALID ? null : t.noPrice, t.count, t.takerOutcomeSide, t.takerBookSide, t.isBlockTrade, source, date, t.marketTicker]);
      return;
    }
    case MessageKind.MARKET_LIFECYCLE: {
      const m = decoder.marketLifecycle;
      const settlement = Number.isSafeInteger(m.settlementValue) && m.settlementValue >= 0 ? m.settlementValue : null;
      sink.add('lifecycle', [recvUs, 'market', m.eventType, '', orNull(m.openTs), orNull(m.closeTs), m.result, settlement, m.priceLevelStructure, source, date, m.marketTicker]);
      return;
    }
    case MessageKind.EVENT_LIFECYCLE: {
      const e = decoder.eventLifecycle;
      sink.add('lifecycle', [recvUs, 'event', 'event', e.eventTicker, null, null, '', null, null, source, date, e.eventTicker]);
      return;
    }
  }
}

function snapshotRows(books: readonly OrderBook[], atUs: number, sink: RowSink, options: RecordingRowsOptions, levels: Int32Array): void {
  const date = utcDate(atUs / 1000);
  const source = options.source;
  for (const book of books) {
    if (!book.synced) continue;
    const bid = book.bestBid();
    const ask = book.bestAsk();
    sink.add('book_top', [
      atUs, bid === PRICE_INVALID ? null : bid, bid === PRICE_INVALID ? 0 : book.bestBidSize(),
      ask === PRICE_INVALID ? null : ask, ask === PRICE_INVALID ? 0 : book.bestAskSize(), source, date, book.ticker,
    ]);
    if (options.depth === 0) continue;
    const bids = book.topBidLevels(options.depth, levels);
    for (let i = 0; i < bids; i++) sink.add('book_depth', [atUs, 'bid', i, book.grid.priceAt(levels[i]), book.bidSizeAtLevel(levels[i]), source, date, book.ticker]);
    const asks = book.topAskLevels(options.depth, levels);
    for (let i = 0; i < asks; i++) sink.add('book_depth', [atUs, 'ask', i, book.grid.priceAt(levels[i]), book.askSizeAtLevel(levels[i]), source, date, book.ticker]);
  }
}
