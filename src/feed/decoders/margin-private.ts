/**
 * The Margin exchange's `user_order`, `fill` and `trade` messages (spec/websocket.md §7.3) read
 * into the Predictions records (UserOrderRecord, FillRecord, TradeRecord), so the OMS and
 * strategies handle both venues alike. A perpetual has one book of one instrument, so the mapping
 * is the binary book's: a `bid` is "buy YES at price" (bookSide 'bid', outcomeSide 'yes') and an
 * `ask` "sell YES at price" (bookSide 'ask', outcomeSide 'no'); `price` goes to yesPrice (the
 * price of the instrument itself; no complement: noPrice stays PRICE_INVALID), and signed
 * positions are + long, as YES positions are. Readers only: FrameDecoder runs them on the JSON path.
 */

import { COUNT_INVALID, PRICE_INVALID, type BookSide, type Count } from '../../core/index.ts';
import type { FieldReader } from './field-reader.ts';
import type { FillRecord } from './fill.ts';
import type { TradeRecord } from './trade.ts';
import { USER_ORDER_STATUSES, readOrderDetails, type UserOrderRecord } from './user-order.ts';

const MARGIN_SIDES: readonly BookSide[] = ['bid', 'ask'];

/**
 * Margin `user_order` (market named `ticker`). `status` may be absent on Margin (the REST order has
 * none): derived as src/exec/margin/margin-wire.ts does: remaining > 0 resting; else
 * `last_update_reason` Trade -> executed, another reason -> canceled; with no reason either, an
 * order with fills is taken as executed and one without as canceled. initialCount is fill +
 * remaining (a lower bound for a cancelled order).
 */
export function readMarginUserOrder(reader: FieldReader, out: UserOrderRecord): void {
  out.orderId = reader.string('order_id');
  out.userId = reader.optString('user_id', '');
  out.ticker = reader.string('ticker');
  const side = reader.choice('side', MARGIN_SIDES);
  out.bookSide = side;
  out.outcomeSide = side === 'bid' ? 'yes' : 'no';
  out.yesPrice = reader.price('price');
  out.fillCount = reader.count('fill_count');
  out.remainingCount = reader.count('remaining_count');
  out.lastUpdateReason = reader.optString('last_update_reason', '');
  const status = reader.optChoice('status', USER_ORDER_STATUSES, null);
  if (status !== null) out.status = status;
  else if (out.remainingCount > 0) out.status = 'resting';
  else if (out.lastUpdateReason !== '') out.status = out.lastUpdateReason === 'Trade' ? 'executed' : 'canceled';
  else out.status = out.fillCount > 0 ? 'executed' : 'canceled';
  out.initialCount = out.fillCount === COUNT_INVALID || out.remainingCount === COUNT_INVALID ? COUNT_INVALID : ((out.fillCount + out.remainingCount) as Count);
  readOrderDetails(reader, out);
  out.orderSource = reader.optString('order_source', '');
  out.orderReason = reader.optString('order_reason', '');
}

/** Margin `fill`: side bid|ask, price, count, fee_cost (dollars), post_position (signed count), all required. */
export function readMarginFill(reader: FieldReader, out: FillRecord): void {
  out.tradeId = reader.string('trade_id');
  out.orderId = reader.string('order_id');
  out.clientOrderId = reader.optString('client_order_id', '');
  out.marketTicker = reader.string('market_ticker');
  out.exchangeIndex = reader.optIndex('exchange_index', -1);
  out.isTaker = reader.bool('is_taker');
  const side = reader.choice('side', MARGIN_SIDES);
  out.bookSide = side;
  out.outcomeSide = side === 'bid' ? 'yes' : 'no';
  out.action = '';
  out.yesPrice = reader.price('price');
  out.count = reader.count('count');
  out.feeCost = reader.dollars('fee_cost');
  out.postPosition = reader.signedCount('post_position');
  out.subaccount = reader.optIndex('subaccount', -1);
  out.tsMs = reader.index('ts_ms');
}

/** Margin `trade`: price, count, taker_side bid|ask, ts_ms (all required). */
export function readMarginTrade(reader: FieldReader, out: TradeRecord): void {
  out.tradeId = reader.string('trade_id');
  out.marketTicker = reader.string('market_ticker');
  out.yesPrice = reader.price('price');
  out.noPrice = PRICE_INVALID; // a perpetual has no complement
  out.count = reader.count('count');
  const side = reader.choice('taker_side', MARGIN_SIDES);
  out.takerBookSide = side;
  out.takerOutcomeSide = side === 'bid' ? 'yes' : 'no';
  out.isBlockTrade = false;
  out.tsMs = reader.index('ts_ms');
}
