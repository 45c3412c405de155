/**
 * The `orderbook_snapshot` message (spec/websocket.md §6.1) as one reused record: the levels of
 * both sides in typed arrays that grow to the widest snapshot seen and are then reused. Decoded
 * from a JSON.parse'd frame (snapshots are rare next to deltas and carry whole arrays). Every level
 * is checked before the record is handed on, so a bad level never leaves a half-applied book.
 *
 * Prices are as on the wire: YES prices for `yes_dollars_fp`, NO prices for `no_dollars_fp`
 * unless the subscription used `use_yes_price`.
 *
 * Margin (perpetual) snapshots fill the same record (MARGIN_SNAPSHOT_KEYS): side 0, the
 * "yes" arrays, holds the `bid` levels and side 1, the "no" arrays, the `ask` levels, each at its
 * own price (no complement). Prices are Float64 because a perpetual's price passes 2^31 units
 * ($214,748.36).
 */

import { COUNT_INVALID, PRICE_INVALID, parseCount, parsePrice, type Count, type Price } from '../../core/index.ts';
import type { MarketRegistry } from '../../market/index.ts';
import { DecodeStatus } from './decode-status.ts';
import { isIndex, isObject } from './field-reader.ts';

const INITIAL_LEVELS = 128;

export class OrderbookSnapshotRecord {
  sid = 0;
  seq = 0;
  marketTicker = '';
  marketIndex = -1;
  yesLevelCount = 0;
  noLevelCount = 0;
  /** Prices (Price) of side 0 (Margin: bids), in wire order. */
  yesPrices = new Float64Array(INITIAL_LEVELS);
  /** Sizes (Count) of side 0; Float64 because a size may pass 2^31 hundredths of a contract. */
  yesSizes = new Float64Array(INITIAL_LEVELS);
  /** Prices (Price) of side 1 (Margin: asks), in wire order. */
  noPrices = new Float64Array(INITIAL_LEVELS);
  noSizes = new Float64Array(INITIAL_LEVELS);

  yesPrice(i: number): Price {
    return this.yesPrices[i] as Price;
  }
  yesSize(i: number): Count {
    return this.yesSizes[i] as Count;
  }
  noPrice(i: number): Price {
    return this.noPrices[i] as Price;
  }
  noSize(i: number): Count {
    return this.noSizes[i] as Count;
  }
}

export let snapshotRejectReason = '';

function reject(reason: string): number {
  snapshotRejectReason = reason;
  return DecodeStatus.MALFORMED;
}

function capacityFor(length: number): number {
  let capacity = INITIAL_LEVELS;
  while (capacity < length) capacity *= 2;
  return capacity;
}

/** Reads `[[price, size], ...]` into the side's arrays; the level count, or -1 when a level is bad. Absent or null: 0. */
export function readLevels(levels: unknown, out: OrderbookSnapshotRecord, side: 0 | 1): number {
  if (levels === undefined || levels === null) return 0; // absent when the side is empty
  if (!Array.isArray(levels)) return -1;
  const length = levels.length;
  if (side === 0 && out.yesPrices.length < length) {
    out.yesPrices = new Float64Array(capacityFor(length));
    out.yesSizes = new Float64Array(capacityFor(length));
  } else if (side === 1 && out.noPrices.length < length) {
    out.noPrices = new Float64Array(capacityFor(length));
    out.noSizes = new Float64Array(capacityFor(length));
  }
  const prices = side === 0 ? out.yesPrices : out.noPrices;
  const sizes = side === 0 ? out.yesSizes : out.noSizes;
  for (let i = 0; i < length; i++) {
    const level: unknown = levels[i];
    if (!Array.isArray(level) || level.length !== 2) return -1;
    const priceText: unknown = level[0];
    const sizeText: unknown = level[1];
    const price = typeof priceText === 'string' ? parsePrice(priceText) : PRICE_INVALID;
    const size = typeof sizeText === 'string' ? parseCount(sizeText) : COUNT_INVALID;
    if (price === PRICE_INVALID || size === COUNT_INVALID) return -1;
    prices[i] = price;
    sizes[i] = size;
  }
  return length;
}

/** The names a venue gives a snapshot's level arrays: side 0 (yes / bid) and side 1 (no / ask). */
export interface SnapshotKeys {
  readonly side0: string;
  readonly side1: string;
}

export const PREDICTIONS_SNAPSHOT_KEYS: SnapshotKeys = Object.freeze({ side0: 'yes_dollars_fp', side1: 'no_dollars_fp' });
export const MARGIN_SNAPSHOT_KEYS: SnapshotKeys = Object.freeze({ side0: 'bid', side1: 'ask' });

/** Fills `out` from a parsed `orderbook_snapshot` frame: OK or MALFORMED. */
export function decodeSnapshotObject(frame: Record<string, unknown>, out: OrderbookSnapshotRecord, tickers: MarketRegistry, keys: SnapshotKeys = PREDICTIONS_SNAPSHOT_KEYS): number {
  const sid = frame.sid;
  const seq = frame.seq;
  const msg = frame.msg;
  if (!isIndex(sid)) return reject('sid');
  if (!isIndex(seq)) return reject('seq');
  if (!isObject(msg)) return reject('msg');
  const ticker = msg.market_ticker;
  if (typeof ticker !== 'string' || ticker.length === 0) return reject('market_ticker');
  const yesCount = readLevels(msg[keys.side0], out, 0);
  if (yesCount === -1) return reject(keys.side0);
  const noCount = readLevels(msg[keys.side1], out, 1);
  if (noCount === -1) return reject(keys.side1);
  const index = tickers.indexOf(ticker);
  out.sid = sid;
  out.seq = seq;
  out.marketIndex = index;
  out.marketTicker = index === -1 ? ticker : tickers.tickerAt(index);
  out.yesLevelCount = yesCount;
  out.noLevelCount = noCount;
  return DecodeStatus.OK;
}
