/**
 * `catalog backfill --series S --days N`: the exchange's past trades and hourly candlesticks of a
 * series' markets into the catalog, every read through the budgeted client (paced by the read
 * budget, 429s retried). Trades: GET /historical/trades (before the historical cutoff) and GET
 * /markets/trades (after it), each paged by cursor from N days ago, de-duplicated by trade id.
 * Candles: the runtime's batch reader (GET /markets/candlesticks, 100 markets a read). Text
 * becomes integers through core/units.ts's scanners, never floats. Owns these reads' mapping to rows.
 */

import { COUNT_INVALID, PRICE_INVALID, parseCount, parsePrice } from '../core/index.ts';
import { fetchCandles } from '../runtime/candle-backfill.ts';
import type { ColdReads } from '../runtime/market-directory.ts';
import { NULL_PRICE } from '../workers/index.ts';
import { utcDate } from './catalog-tables.ts';
import type { RowSink } from './recording-rows.ts';

/** GET .../trades `limit` maximum (rest.md §8). */
const TRADES_PAGE_LIMIT = 1000;
/** 1,000 pages of 1,000 trades per market and route: the bound stops a cursor loop. */
const TRADES_PAGES_MAX = 1000;
const MARKETS_PAGES_MAX = 100;
const CANDLE_MINUTES = 60;

export interface BackfillCounts {
  markets: number;
  trades: number;
  candles: number;
}

export async function backfillSeries(reads: ColdReads, apiPrefix: string, series: string, days: number, nowMs: number, sink: RowSink): Promise<BackfillCounts> {
  const listed = await reads.pages(`${apiPrefix}/markets`, new URLSearchParams({ series_ticker: series }), 'markets', 1000, MARKETS_PAGES_MAX);
  const tickers = listed.map((market) => market.ticker).filter((ticker): ticker is string => typeof ticker === 'string');
  const minTs = Math.floor(nowMs / 1000) - days * 86_400;
  const source = `backfill:${series}`;
  let trades = 0;
  for (const ticker of tickers) {
    const seen = new Set<string>();
    for (const route of ['/historical/trades', '/markets/trades']) {
      const params = new URLSearchParams({ ticker, min_ts: String(minTs) });
      const list = await reads.pages(`${apiPrefix}${route}`, params, 'trades', TRADES_PAGE_LIMIT, TRADES_PAGES_MAX);
      for (const trade of list) if (tradeRow(trade, ticker, seen, source, sink)) trades++;
    }
  }
  const periods = Math.max(1, Math.ceil((days * 1440) / CANDLE_MINUTES));
  const candles = tickers.length === 0 ? new Map() : await fetchCandles(reads, apiPrefix, tickers, CANDLE_MINUTES, periods, nowMs);
  let candleRows = 0;
  for (const [ticker, list] of candles) {
    for (const c of list) {
      const nullable = (price: number): number | null => (price === NULL_PRICE ? null : price);
      sink.add('candles', [
        c.endTs, CANDLE_MINUTES, nullable(c.open), nullable(c.high), nullable(c.low), nullable(c.close), c.volume, c.openInterest,
        c.yesBid.close, c.yesAsk.close, source, utcDate(c.endTs * 1000), ticker,
      ]);
      candleRows++;
    }
  }
  return { markets: tickers.length, trades, candles: candleRows };
}

/** One REST Trade as a `trades` row; false when it was seen already or does not read. */
function tradeRow(trade: Record<string, unknown>, ticker: string, seen: Set<string>, source: string, sink: RowSink): boolean {
  const id = trade.trade_id;
  if (typeof id !== 'string' || seen.has(id)) return false;
  const yes = typeof trade.yes_price_dollars === 'string' ? parsePrice(trade.yes_price_dollars) : PRICE_INVALID;
  const no = typeof trade.no_price_dollars === 'string' ? parsePrice(trade.no_price_dollars) : PRICE_INVALID;
  const count = typeof trade.count_fp === 'string' ? parseCount(trade.count_fp) : COUNT_INVALID;
  const createdMs = typeof trade.created_time === 'string' ? Date.parse(trade.created_time) : NaN;
  if (yes === PRICE_INVALID || count === COUNT_INVALID || !Number.isSafeInteger(createdMs)) return false;
  seen.add(id);
  const outcome = trade.taker_outcome_side ?? trade.taker_side;
  const bookSide = trade.taker_book_side ?? (outcome === 'no' ? 'ask' : 'bid');
  sink.add('trades', [
    createdMs * 1000, createdMs, id, yes, no === PRICE_INVALID ? null : no, count, outcome === 'no' ? 'no' : 'yes', bookSide === 'ask' ? 'ask' : 'bid',
    trade.is_block_trade === true, source, utcDate(createdMs), ticker,
  ]);
  return true;
}
