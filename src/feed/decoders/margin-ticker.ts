/**
 * The Margin `ticker` message (spec/websocket.md §7.2; the changelog calls the channel
 * `margin_ticker`) as one reused record: last price, best bid/ask and the settlement mark. The
 * feed writes the mark into the market registry and hands the record to onMarginTicker.
 * Listeners copy what they keep.
 */

import { COUNT_INVALID, PRICE_INVALID, parsePrice, type Count, type Price } from '../../core/index.ts';
import { isIndex, isObject, type FieldReader } from './field-reader.ts';

export class MarginTickerRecord {
  readonly type = 'ticker';
  sid = 0;
  /** -1 when the frame carries no seq. */
  seq = -1;
  marketTicker = '';
  /** Registry index, -1 for a market the feed does not know. */
  marketIndex = -1;
  /** Last traded price (`price`). */
  lastPrice: Price = PRICE_INVALID;
  /** Best bid / ask; the venue sends "0.0000" for an empty side, kept as 0. */
  bid: Price = PRICE_INVALID;
  ask: Price = PRICE_INVALID;
  /** COUNT_INVALID when absent. */
  bidSize: Count = COUNT_INVALID;
  askSize: Count = COUNT_INVALID;
  /** settlement_mark_price.price; PRICE_INVALID when absent. */
  markPrice: Price = PRICE_INVALID;
  /** settlement_mark_price.ts_ms; -1 when absent. */
  markTsMs = -1;
  tsMs = -1;
}

/** Reads the msg body (reader began on it) into `out`; check reader.ok. marketIndex is the caller's. */
export function readMarginTicker(reader: FieldReader, out: MarginTickerRecord): void {
  out.marketTicker = reader.string('market_ticker');
  out.lastPrice = reader.price('price');
  out.bid = reader.price('bid');
  out.ask = reader.price('ask');
  out.bidSize = reader.optCount('bid_size_fp');
  out.askSize = reader.optCount('ask_size_fp');
  out.tsMs = reader.index('ts_ms');
  out.markPrice = PRICE_INVALID;
  out.markTsMs = -1;
  const mark = reader.raw('settlement_mark_price');
  if (mark === undefined || mark === null) return;
  const text = isObject(mark) ? mark.price : undefined;
  const price = typeof text === 'string' ? parsePrice(text) : PRICE_INVALID;
  const tsMs = isObject(mark) ? mark.ts_ms : undefined;
  if (price === PRICE_INVALID || (tsMs !== undefined && tsMs !== null && !isIndex(tsMs))) {
    reader.fail('settlement_mark_price');
    return;
  }
  out.markPrice = price;
  out.markTsMs = typeof tsMs === 'number' ? tsMs : -1;
}
