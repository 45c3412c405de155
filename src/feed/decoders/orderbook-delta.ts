/**
 * The `orderbook_delta` message (spec/websocket.md §6.1) as one reused record, and its reference
 * conversion from a JSON.parse'd frame. This conversion is the authority on what a valid delta
 * is; the byte scanner (delta-scanner.ts) must give the same record for every frame it accepts
 * and defer to this one (through FrameDecoder's JSON path) for anything else. Never allocates
 * beyond what JSON.parse made. (JSON.parse plus this conversion, as a decoder of its own, is the
 * baseline of bench/feed.)
 *
 * `price` is the level's price as on the wire: a YES price for side 0 and, unless the subscription
 * used `use_yes_price`, a NO price for side 1.
 *
 * `clientOrderId` is made on demand: the scanner records where the id lies in the frame's bytes
 * and the string is created only when someone reads it (no string per delta on the book path).
 * Like every field of the reused record, read it while the frame is being handled.
 */

import { COUNT_INVALID, PRICE_INVALID, parsePrice, parseSignedCount, type Count, type Price } from '../../core/index.ts';
import type { MarketRegistry } from '../../market/index.ts';
import { DecodeStatus } from './decode-status.ts';
import { isIndex, isObject } from './field-reader.ts';

export class OrderbookDeltaRecord {
  sid = 0;
  seq = 0;
  /** Interned when the market is known (marketIndex >= 0). */
  marketTicker = '';
  /** Index in the feed's TickerTable, -1 for a market the feed does not know. */
  marketIndex = -1;
  price: Price = PRICE_INVALID;
  /** Signed change of the level's size. */
  delta: Count = COUNT_INVALID;
  /** 0 = yes, 1 = no (BookSideCode); Margin: 0 = bid, 1 = ask, `price` the level's own price. */
  side: 0 | 1 = 0;
  /** -1 when absent. */
  subaccount = -1;
  /** Exchange time, Unix ms; -1 when absent. */
  tsMs = -1;
  // client_order_id: text already made (JSON path, escapes, or read once), or a byte range of the
  // frame being decoded (plain ASCII, no escapes) made into text on the first read.
  #clientOrderIdText = '';
  #clientOrderIdBytes: Buffer | null = null;
  #clientOrderIdStart = 0;
  #clientOrderIdEnd = 0;

  /** '' when absent: only deltas caused by our own orders carry it. */
  get clientOrderId(): string {
    const bytes = this.#clientOrderIdBytes;
    if (bytes !== null) {
      this.#clientOrderIdText = bytes.toString('latin1', this.#clientOrderIdStart, this.#clientOrderIdEnd);
      this.#clientOrderIdBytes = null;
    }
    return this.#clientOrderIdText;
  }

  /** Sets the id as text ('' when absent). */
  setClientOrderId(text: string): void {
    this.#clientOrderIdText = text;
    this.#clientOrderIdBytes = null;
  }

  /** Sets the id as printable-ASCII bytes[start, end) of the frame being decoded (read while it is handled). */
  setClientOrderIdBytes(bytes: Buffer, start: number, end: number): void {
    if (start === end) {
      this.setClientOrderId('');
      return;
    }
    this.#clientOrderIdBytes = bytes;
    this.#clientOrderIdStart = start;
    this.#clientOrderIdEnd = end;
  }
}

/**
 * The names a venue gives a delta's fields (websocket.md §6.1, §7.1): one reference decoder reads
 * both exchanges' deltas into the one record. Side 0 is `side0` (yes / bid), side 1 `side1` (no / ask).
 */
export interface DeltaKeys {
  readonly price: string;
  readonly delta: string;
  readonly side0: string;
  readonly side1: string;
  /** Margin lists `last_update_reason` (a string when present); Predictions' schema does not. */
  readonly checkReason: boolean;
}

export const PREDICTIONS_DELTA_KEYS: DeltaKeys = Object.freeze({ price: 'price_dollars', delta: 'delta_fp', side0: 'yes', side1: 'no', checkReason: false });
export const MARGIN_DELTA_KEYS: DeltaKeys = Object.freeze({ price: 'price', delta: 'delta', side0: 'bid', side1: 'ask', checkReason: true });

/** Why the last delta failed the reference decoder (constant strings, for logs). */
export let deltaRejectReason = '';

function reject(reason: string): number {
  deltaRejectReason = reason;
  return DecodeStatus.MALFORMED;
}

/** Fills `out` from a parsed frame. OK, NOT_DELTA (another type) or MALFORMED. */
export function decodeDeltaObject(frame: unknown, out: OrderbookDeltaRecord, tickers: MarketRegistry, keys: DeltaKeys = PREDICTIONS_DELTA_KEYS): number {
  if (!isObject(frame)) return reject('frame is not an object');
  const type = frame.type;
  if (typeof type !== 'string') return reject('type missing');
  if (type !== 'orderbook_delta') return DecodeStatus.NOT_DELTA;
  const sid = frame.sid;
  const seq = frame.seq;
  const msg = frame.msg;
  if (!isIndex(sid)) return reject('sid');
  if (!isIndex(seq)) return reject('seq');
  if (!isObject(msg)) return reject('msg');
  const ticker = msg.market_ticker;
  if (typeof ticker !== 'string' || ticker.length === 0) return reject('market_ticker');
  const priceText = msg[keys.price];
  const price = typeof priceText === 'string' ? parsePrice(priceText) : PRICE_INVALID;
  if (price === PRICE_INVALID) return reject(keys.price);
  const deltaText = msg[keys.delta];
  const delta = typeof deltaText === 'string' ? parseSignedCount(deltaText) : COUNT_INVALID;
  if (delta === COUNT_INVALID) return reject(keys.delta);
  const side = msg.side;
  if (side !== keys.side0 && side !== keys.side1) return reject('side');
  const clientOrderId = msg.client_order_id;
  if (clientOrderId !== undefined && clientOrderId !== null && typeof clientOrderId !== 'string') return reject('client_order_id');
  const subaccount = msg.subaccount;
  if (subaccount !== undefined && subaccount !== null && !isIndex(subaccount)) return reject('subaccount');
  const tsMs = msg.ts_ms;
  if (tsMs !== undefined && tsMs !== null && !isIndex(tsMs)) return reject('ts_ms');
  if (keys.checkReason) {
    const reason = msg.last_update_reason;
    if (reason !== undefined && reason !== null && typeof reason !== 'string') return reject('last_update_reason');
  }

  const index = tickers.indexOf(ticker);
  out.sid = sid;
  out.seq = seq;
  out.marketIndex = index;
  out.marketTicker = index === -1 ? ticker : tickers.tickerAt(index);
  out.price = price;
  out.delta = delta;
  out.side = side === keys.side0 ? 0 : 1;
  out.setClientOrderId(typeof clientOrderId === 'string' ? clientOrderId : '');
  out.subaccount = typeof subaccount === 'number' ? subaccount : -1;
  out.tsMs = typeof tsMs === 'number' ? tsMs : -1;
  return DecodeStatus.OK;
}
