/**
 * The Margin exchange's book messages (spec/websocket.md §7.1) decoded into the Predictions records
 * (OrderbookSnapshotRecord, OrderbookDeltaRecord), so the feed and the book store handle both
 * venues alike. Margin names: snapshot `{market_ticker, bid: [[price, count]...], ask: [...]}`,
 * delta `{market_ticker, price, delta, side: bid|ask, client_order_id?, subaccount?, ts_ms?,
 * last_update_reason?}`. Side 0 (the "yes" arrays) is bid, side 1 (the "no" arrays) is ask, each at
 * its own price. Prices are dollar strings with up to 4 decimals and counts fixed-point strings
 * ("12.00"), parsed by core's string parsers, never through a float. Never throws.
 */

import { COUNT_INVALID, PRICE_INVALID, parsePrice, parseSignedCount } from '../../core/index.ts';
import type { MarketRegistry } from '../../market/index.ts';
import { DecodeStatus } from './decode-status.ts';
import { isIndex, isObject } from './field-reader.ts';
import type { OrderbookDeltaRecord } from './orderbook-delta.ts';
import { readLevels, type OrderbookSnapshotRecord } from './orderbook-snapshot.ts';

/** Why the last Margin book frame failed (constant strings, for logs). */
export let marginBookRejectReason = '';

function reject(reason: string): number {
  marginBookRejectReason = reason;
  return DecodeStatus.MALFORMED;
}

/** Fills `out` from a parsed Margin `orderbook_snapshot` frame: OK or MALFORMED. */
export function decodeMarginSnapshotObject(frame: Record<string, unknown>, out: OrderbookSnapshotRecord, tickers: MarketRegistry): number {
  const sid = frame.sid;
  const seq = frame.seq;
  const msg = frame.msg;
  if (!isIndex(sid)) return reject('sid');
  if (!isIndex(seq)) return reject('seq');
  if (!isObject(msg)) return reject('msg');
  const ticker = msg.market_ticker;
  if (typeof ticker !== 'string' || ticker.length === 0) return reject('market_ticker');
  const bidCount = readLevels(msg.bid, out, 0);
  if (bidCount === -1) return reject('bid');
  const askCount = readLevels(msg.ask, out, 1);
  if (askCount === -1) return reject('ask');
  const index = tickers.indexOf(ticker);
  out.sid = sid;
  out.seq = seq;
  out.marketIndex = index;
  out.marketTicker = index === -1 ? ticker : tickers.tickerAt(index);
  out.yesLevelCount = bidCount;
  out.noLevelCount = askCount;
  return DecodeStatus.OK;
}

/** Fills `out` from a parsed Margin `orderbook_delta` frame: OK or MALFORMED. */
export function decodeMarginDeltaObject(frame: Record<string, unknown>, out: OrderbookDeltaRecord, tickers: MarketRegistry): number {
  const sid = frame.sid;
  const seq = frame.seq;
  const msg = frame.msg;
  if (!isIndex(sid)) return reject('sid');
  if (!isIndex(seq)) return reject('seq');
  if (!isObject(msg)) return reject('msg');
  const ticker = msg.market_ticker;
  if (typeof ticker !== 'string' || ticker.length === 0) return reject('market_ticker');
  const priceText = msg.price;
  const price = typeof priceText === 'string' ? parsePrice(priceText) : PRICE_INVALID;
  if (price === PRICE_INVALID) return reject('price');
  const deltaText = msg.delta;
  const delta = typeof deltaText === 'string' ? parseSignedCount(deltaText) : COUNT_INVALID;
  if (delta === COUNT_INVALID) return reject('delta');
  const side = msg.side;
  if (side !== 'bid' && side !== 'ask') return reject('side');
  const clientOrderId = msg.client_order_id;
  if (clientOrderId !== undefined && clientOrderId !== null && typeof clientOrderId !== 'string') return reject('client_order_id');
  const subaccount = msg.subaccount;
  if (subaccount !== undefined && subaccount !== null && !isIndex(subaccount)) return reject('subaccount');
  const tsMs = msg.ts_ms;
  if (tsMs !== undefined && tsMs !== null && !isIndex(tsMs)) return reject('ts_ms');
  const reason = msg.last_update_reason;
  if (reason !== undefined && reason !== null && typeof reason !== 'string') return reject('last_update_reason');

  const index = tickers.indexOf(ticker);
  out.sid = sid;
  out.seq = seq;
  out.marketIndex = index;
  out.marketTicker = index === -1 ? ticker : tickers.tickerAt(index);
  out.price = price;
  out.delta = delta;
  out.side = side === 'bid' ? 0 : 1;
  out.setClientOrderId(typeof clientOrderId === 'string' ? clientOrderId : '');
  out.subaccount = typeof subaccount === 'number' ? subaccount : -1;
  out.tsMs = typeof tsMs === 'number' ? tsMs : -1;
  return DecodeStatus.OK;
}
