/**
 * The public `trade` message (spec/websocket.md §6.3) as one reused record. Listeners copy what
 * they keep: the record is overwritten by the next trade.
 */

import { BOOK_SIDES, COUNT_INVALID, OUTCOME_SIDES, PRICE_INVALID, type BookSide, type Count, type OutcomeSide, type Price } from '../../core/index.ts';
import type { FieldReader } from './field-reader.ts';

export class TradeRecord {
  readonly type = 'trade';
  sid = 0;
  /** -1 when the frame carries no seq (Aug-2026 wire). */
  seq = -1;
  tradeId = '';
  marketTicker = '';
  yesPrice: Price = PRICE_INVALID;
  noPrice: Price = PRICE_INVALID;
  count: Count = COUNT_INVALID;
  takerOutcomeSide: OutcomeSide = 'yes';
  takerBookSide: BookSide = 'bid';
  isBlockTrade = false;
  tsMs = -1;
}

/** Reads the msg body (reader began on it) into `out`; check reader.ok. */
export function readTrade(reader: FieldReader, out: TradeRecord): void {
  out.tradeId = reader.string('trade_id');
  out.marketTicker = reader.string('market_ticker');
  out.yesPrice = reader.price('yes_price_dollars');
  out.noPrice = reader.optPrice('no_price_dollars');
  out.count = reader.count('count_fp');
  // taker_outcome_side is canonical; the deprecated taker_side carries the same value.
  const outcome = reader.has('taker_outcome_side')
    ? reader.choice('taker_outcome_side', OUTCOME_SIDES)
    : reader.choice('taker_side', OUTCOME_SIDES);
  out.takerOutcomeSide = outcome;
  out.takerBookSide = reader.optChoice('taker_book_side', BOOK_SIDES, outcome === 'yes' ? 'bid' : 'ask');
  out.isBlockTrade = reader.optBool('is_block_trade', false);
  out.tsMs = reader.optIndex('ts_ms', -1);
}
