/**
 * Byte scanner for the `msg` object of `user_order` frames (channel user_orders,
 * spec/websocket.md §6.5): every field readUserOrder (user-order.ts) reads, straight from the
 * frame's bytes into the reused UserOrderRecord, with readUserOrder's rules (required and optional
 * fields, null as absent, outcome_side before the deprecated side, book_side defaulting from the
 * outcome). Prices, counts, money and integers are read from digits; the market resolves to the
 * TickerTable's interned ticker when known; enumerations (status, sides, the two documented
 * self-trade prevention types) come back as constant strings. Strings made per message: order_id,
 * user_id, a non-empty client_order_id, order_group_id and last_update_reason when present, an
 * undocumented self_trade_prevention_type, and the ticker of a market the feed does not know. Anything outside the fast path returns -1 and the frame takes the JSON
 * path (the authority), exactly as delta-scanner.ts does.
 */

import { CENTICENTS_INVALID, COUNT_INVALID, type Centicents, type Count, type Price } from '../../core/index.ts';
import {
  KEY_SKIP,
  KeyLayout,
  QUOTE,
  beginMember,
  beginObject,
  endMember,
  matchLiteral,
  readFixed,
  readOptionalIndex,
  skipValue,
  stringLiteral,
  type ScanState,
} from './json-bytes.ts';
import {
  ABSENT,
  readDeprecatedSide,
  readOptionalBookSide,
  readOptionalFixed,
  readOptionalOutcome,
  readOptionalText,
  readText,
  readTicker,
  settleSides,
} from './scan-values.ts';
import type { MarketRegistry } from '../../market/index.ts';
import type { UserOrderRecord, UserOrderStatus } from './user-order.ts';

const KEY_ORDER_ID = 1;
const KEY_USER_ID = 2;
const KEY_TICKER = 3;
const KEY_STATUS = 4;
const KEY_OUTCOME_SIDE = 5;
const KEY_BOOK_SIDE = 6;
const KEY_SIDE = 7;
const KEY_YES_PRICE = 8;
const KEY_FILL_COUNT = 9;
const KEY_REMAINING_COUNT = 10;
const KEY_INITIAL_COUNT = 11;
const KEY_TAKER_FILL_COST = 12;
const KEY_MAKER_FILL_COST = 13;
const KEY_TAKER_FEES = 14;
const KEY_MAKER_FEES = 15;
const KEY_CLIENT_ORDER_ID = 16;
const KEY_ORDER_GROUP_ID = 17;
const KEY_SELF_TRADE_PREVENTION = 18;
const KEY_CREATED = 19;
const KEY_LAST_UPDATED = 20;
const KEY_EXPIRATION = 21;
const KEY_SUBACCOUNT = 22;
const KEY_EXCHANGE_INDEX = 23;
const KEY_LAST_UPDATE_REASON = 24;

/** The simulator's order (src/sim/engine/render.ts userOrderToWsMsg); the exchange's is not documented. */
const LAYOUT = new KeyLayout([
  ['order_id', KEY_ORDER_ID],
  ['user_id', KEY_USER_ID],
  ['ticker', KEY_TICKER],
  ['status', KEY_STATUS],
  ['outcome_side', KEY_OUTCOME_SIDE],
  ['book_side', KEY_BOOK_SIDE],
  ['side', KEY_SIDE],
  ['is_yes', KEY_SKIP],
  ['yes_price_dollars', KEY_YES_PRICE],
  ['fill_count_fp', KEY_FILL_COUNT],
  ['remaining_count_fp', KEY_REMAINING_COUNT],
  ['initial_count_fp', KEY_INITIAL_COUNT],
  ['taker_fill_cost_dollars', KEY_TAKER_FILL_COST],
  ['maker_fill_cost_dollars', KEY_MAKER_FILL_COST],
  ['taker_fees_dollars', KEY_TAKER_FEES],
  ['maker_fees_dollars', KEY_MAKER_FEES],
  ['client_order_id', KEY_CLIENT_ORDER_ID],
  ['self_trade_prevention_type', KEY_SELF_TRADE_PREVENTION],
  ['created_ts_ms', KEY_CREATED],
  ['created_time', KEY_SKIP],
  ['last_updated_ts_ms', KEY_LAST_UPDATED],
  ['last_update_time', KEY_SKIP],
  ['subaccount_number', KEY_SUBACCOUNT],
  ['exchange_index', KEY_EXCHANGE_INDEX],
  ['last_update_reason', KEY_LAST_UPDATE_REASON],
  ['order_group_id', KEY_ORDER_GROUP_ID],
  ['expiration_ts_ms', KEY_EXPIRATION],
  ['expiration_time', KEY_SKIP],
]);
const REQUIRED =
  (1 << KEY_ORDER_ID) | (1 << KEY_TICKER) | (1 << KEY_STATUS) | (1 << KEY_YES_PRICE) | (1 << KEY_FILL_COUNT) | (1 << KEY_REMAINING_COUNT);

const LITERAL_RESTING = stringLiteral('resting');
const LITERAL_CANCELED = stringLiteral('canceled');
const LITERAL_EXECUTED = stringLiteral('executed');
const LITERAL_TAKER_AT_CROSS = stringLiteral('taker_at_cross');
const LITERAL_MAKER = stringLiteral('maker');

function readStatus(out: UserOrderRecord, b: Buffer, p: number, end: number): number {
  let status: UserOrderStatus;
  let length: number;
  if (matchLiteral(b, p, end, LITERAL_RESTING)) {
    status = 'resting';
    length = LITERAL_RESTING.length;
  } else if (matchLiteral(b, p, end, LITERAL_CANCELED)) {
    status = 'canceled';
    length = LITERAL_CANCELED.length;
  } else if (matchLiteral(b, p, end, LITERAL_EXECUTED)) {
    status = 'executed';
    length = LITERAL_EXECUTED.length;
  } else return -1;
  out.status = status;
  return p + length;
}

function readSelfTradePrevention(state: ScanState, out: UserOrderRecord, b: Buffer, p: number, end: number): number {
  if (matchLiteral(b, p, end, LITERAL_TAKER_AT_CROSS)) {
    out.selfTradePreventionType = 'taker_at_cross';
    return p + LITERAL_TAKER_AT_CROSS.length;
  }
  if (matchLiteral(b, p, end, LITERAL_MAKER)) {
    out.selfTradePreventionType = 'maker';
    return p + LITERAL_MAKER.length;
  }
  p = readOptionalText(state, b, p, end);
  out.selfTradePreventionType = state.text;
  return p;
}

/**
 * Reads the user_order msg object whose '{' is at p into `out` (all but sid); the position after
 * its '}', or -1 to defer the frame to the JSON path.
 */
export function scanUserOrderMsg(state: ScanState, b: Buffer, p: number, end: number, out: UserOrderRecord, tickers: MarketRegistry): number {
  out.userId = '';
  out.initialCount = COUNT_INVALID;
  out.takerFillCost = CENTICENTS_INVALID;
  out.makerFillCost = CENTICENTS_INVALID;
  out.takerFees = CENTICENTS_INVALID;
  out.makerFees = CENTICENTS_INVALID;
  out.clientOrderId = '';
  out.orderGroupId = '';
  out.selfTradePreventionType = '';
  out.createdTsMs = -1;
  out.lastUpdatedTsMs = -1;
  out.expirationTsMs = -1;
  out.subaccount = -1;
  out.exchangeIndex = -1;
  out.lastUpdateReason = '';
  out.orderSource = '';
  out.orderReason = '';
  let outcome = ABSENT;
  let side = ABSENT;
  let bookSide = ABSENT;
  p = beginObject(state, b, p, end);
  for (;;) {
    p = beginMember(state, b, p, end, LAYOUT); // an empty msg defers too: required fields missing
    if (p === -1) return -1;
    switch (state.key) {
      case KEY_ORDER_ID:
        p = readText(state, b, p, end);
        if (state.text === '') return -1;
        out.orderId = state.text;
        break;
      case KEY_USER_ID:
        p = readOptionalText(state, b, p, end);
        out.userId = state.text;
        break;
      case KEY_TICKER:
        p = b[p] === QUOTE ? readTicker(state, b, p, end, tickers) : -1;
        out.ticker = state.text;
        break;
      case KEY_STATUS:
        p = readStatus(out, b, p, end);
        break;
      case KEY_OUTCOME_SIDE:
        p = readOptionalOutcome(state, b, p, end);
        outcome = state.value;
        break;
      case KEY_BOOK_SIDE:
        p = readOptionalBookSide(state, b, p, end);
        bookSide = state.value;
        break;
      case KEY_SIDE:
        p = readDeprecatedSide(state, b, p, end);
        side = state.value;
        break;
      case KEY_YES_PRICE:
        p = b[p] === QUOTE ? readFixed(state, b, p, end, 4, 4, false) : -1;
        out.yesPrice = state.value as Price;
        break;
      case KEY_FILL_COUNT:
        p = b[p] === QUOTE ? readFixed(state, b, p, end, 2, 2, false) : -1;
        out.fillCount = state.value as Count;
        break;
      case KEY_REMAINING_COUNT:
        p = b[p] === QUOTE ? readFixed(state, b, p, end, 2, 2, false) : -1;
        out.remainingCount = state.value as Count;
        break;
      case KEY_INITIAL_COUNT:
        p = readOptionalFixed(state, b, p, end, 2, 2, false, COUNT_INVALID);
        out.initialCount = state.value as Count;
        break;
      case KEY_TAKER_FILL_COST:
        p = readOptionalFixed(state, b, p, end, 4, 6, true, CENTICENTS_INVALID);
        out.takerFillCost = state.value as Centicents;
        break;
      case KEY_MAKER_FILL_COST:
        p = readOptionalFixed(state, b, p, end, 4, 6, true, CENTICENTS_INVALID);
        out.makerFillCost = state.value as Centicents;
        break;
      case KEY_TAKER_FEES:
        p = readOptionalFixed(state, b, p, end, 4, 6, true, CENTICENTS_INVALID);
        out.takerFees = state.value as Centicents;
        break;
      case KEY_MAKER_FEES:
        p = readOptionalFixed(state, b, p, end, 4, 6, true, CENTICENTS_INVALID);
        out.makerFees = state.value as Centicents;
        break;
      case KEY_CLIENT_ORDER_ID:
        p = readOptionalText(state, b, p, end);
        out.clientOrderId = state.text;
        break;
      case KEY_ORDER_GROUP_ID:
        p = readOptionalText(state, b, p, end);
        out.orderGroupId = state.text;
        break;
      case KEY_SELF_TRADE_PREVENTION:
        p = readSelfTradePrevention(state, out, b, p, end);
        break;
      case KEY_CREATED:
        p = readOptionalIndex(state, b, p, end);
        out.createdTsMs = state.value;
        break;
      case KEY_LAST_UPDATED:
        p = readOptionalIndex(state, b, p, end);
        out.lastUpdatedTsMs = state.value;
        break;
      case KEY_EXPIRATION:
        p = readOptionalIndex(state, b, p, end);
        out.expirationTsMs = state.value;
        break;
      case KEY_SUBACCOUNT:
        p = readOptionalIndex(state, b, p, end);
        out.subaccount = state.value;
        break;
      case KEY_EXCHANGE_INDEX:
        p = readOptionalIndex(state, b, p, end);
        out.exchangeIndex = state.value;
        break;
      case KEY_LAST_UPDATE_REASON:
        p = readOptionalText(state, b, p, end);
        out.lastUpdateReason = state.text;
        break;
      default:
        p = skipValue(b, p, end, 1, false);
    }
    p = endMember(state, b, p, end);
    if (p === -1) return -1;
    if (state.closed) return (state.seen & REQUIRED) === REQUIRED && settleSides(outcome, side, bookSide, out) ? p : -1;
  }
}
