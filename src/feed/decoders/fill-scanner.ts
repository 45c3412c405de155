/**
 * Byte scanner for the `msg` object of `fill` frames (spec/websocket.md §6.4): every field
 * readFill (fill.ts) reads, straight from the frame's bytes into the reused FillRecord, with
 * readFill's rules (outcome_side before the deprecated side, book_side defaulting from the
 * outcome, null as absent). Strings made per message: trade_id, order_id, a non-empty
 * client_order_id, `action` unless it is "buy", "sell" or "", and the ticker of a market the feed
 * does not know. Anything outside the fast path returns -1 and the frame takes the JSON path (the
 * authority), exactly as delta-scanner.ts does.
 */

import { CENTICENTS_INVALID, COUNT_INVALID, type Centicents, type Count, type Price } from '../../core/index.ts';
import type { FillRecord } from './fill.ts';
import {
  KEY_SKIP,
  KeyLayout,
  QUOTE,
  beginMember,
  beginObject,
  endMember,
  matchLiteral,
  readBool,
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

const KEY_TRADE_ID = 1;
const KEY_ORDER_ID = 2;
const KEY_CLIENT_ORDER_ID = 3;
const KEY_TICKER = 4;
const KEY_EXCHANGE_INDEX = 5;
const KEY_IS_TAKER = 6;
const KEY_OUTCOME_SIDE = 7;
const KEY_BOOK_SIDE = 8;
const KEY_SIDE = 9;
const KEY_ACTION = 10;
const KEY_YES_PRICE = 11;
const KEY_COUNT = 12;
const KEY_FEE_COST = 13;
const KEY_POST_POSITION = 14;
const KEY_SUBACCOUNT = 15;
const KEY_TS_MS = 16;

/** The simulator's order (src/sim/engine/render.ts fillToWsMsg); the exchange's is not documented. */
const LAYOUT = new KeyLayout([
  ['trade_id', KEY_TRADE_ID],
  ['order_id', KEY_ORDER_ID],
  ['market_ticker', KEY_TICKER],
  ['exchange_index', KEY_EXCHANGE_INDEX],
  ['is_taker', KEY_IS_TAKER],
  ['outcome_side', KEY_OUTCOME_SIDE],
  ['book_side', KEY_BOOK_SIDE],
  ['side', KEY_SIDE],
  ['action', KEY_ACTION],
  ['purchased_side', KEY_SKIP],
  ['yes_price_dollars', KEY_YES_PRICE],
  ['count_fp', KEY_COUNT],
  ['fee_cost', KEY_FEE_COST],
  ['post_position_fp', KEY_POST_POSITION],
  ['subaccount', KEY_SUBACCOUNT],
  ['ts_ms', KEY_TS_MS],
  ['ts', KEY_SKIP],
  ['client_order_id', KEY_CLIENT_ORDER_ID],
]);
const REQUIRED = (1 << KEY_TRADE_ID) | (1 << KEY_ORDER_ID) | (1 << KEY_TICKER) | (1 << KEY_IS_TAKER) | (1 << KEY_YES_PRICE) | (1 << KEY_COUNT);

const LITERAL_BUY = stringLiteral('buy');
const LITERAL_SELL = stringLiteral('sell');

function readAction(state: ScanState, out: FillRecord, b: Buffer, p: number, end: number): number {
  if (matchLiteral(b, p, end, LITERAL_BUY)) {
    out.action = 'buy';
    return p + LITERAL_BUY.length;
  }
  if (matchLiteral(b, p, end, LITERAL_SELL)) {
    out.action = 'sell';
    return p + LITERAL_SELL.length;
  }
  p = readOptionalText(state, b, p, end);
  out.action = state.text;
  return p;
}

/**
 * Reads the fill msg object whose '{' is at p into `out` (all but sid); the position after its
 * '}', or -1 to defer the frame to the JSON path.
 */
export function scanFillMsg(state: ScanState, b: Buffer, p: number, end: number, out: FillRecord, tickers: MarketRegistry): number {
  out.clientOrderId = '';
  out.exchangeIndex = -1;
  out.action = '';
  out.feeCost = CENTICENTS_INVALID;
  out.postPosition = COUNT_INVALID;
  out.subaccount = -1;
  out.tsMs = -1;
  let outcome = ABSENT;
  let side = ABSENT;
  let bookSide = ABSENT;
  p = beginObject(state, b, p, end);
  for (;;) {
    p = beginMember(state, b, p, end, LAYOUT); // an empty msg defers too: required fields missing
    if (p === -1) return -1;
    switch (state.key) {
      case KEY_TRADE_ID:
        p = readText(state, b, p, end);
        if (state.text === '') return -1;
        out.tradeId = state.text;
        break;
      case KEY_ORDER_ID:
        p = readText(state, b, p, end);
        if (state.text === '') return -1;
        out.orderId = state.text;
        break;
      case KEY_CLIENT_ORDER_ID:
        p = readOptionalText(state, b, p, end);
        out.clientOrderId = state.text;
        break;
      case KEY_TICKER:
        p = b[p] === QUOTE ? readTicker(state, b, p, end, tickers) : -1;
        out.marketTicker = state.text;
        break;
      case KEY_EXCHANGE_INDEX:
        p = readOptionalIndex(state, b, p, end);
        out.exchangeIndex = state.value;
        break;
      case KEY_IS_TAKER:
        p = readBool(state, b, p, end);
        out.isTaker = state.flag;
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
      case KEY_ACTION:
        p = readAction(state, out, b, p, end);
        break;
      case KEY_YES_PRICE:
        p = b[p] === QUOTE ? readFixed(state, b, p, end, 4, 4, false) : -1;
        out.yesPrice = state.value as Price;
        break;
      case KEY_COUNT:
        p = b[p] === QUOTE ? readFixed(state, b, p, end, 2, 2, false) : -1;
        out.count = state.value as Count;
        break;
      case KEY_FEE_COST:
        p = readOptionalFixed(state, b, p, end, 4, 6, true, CENTICENTS_INVALID);
        out.feeCost = state.value as Centicents;
        break;
      case KEY_POST_POSITION:
        p = readOptionalFixed(state, b, p, end, 2, 2, true, COUNT_INVALID);
        out.postPosition = state.value as Count;
        break;
      case KEY_SUBACCOUNT:
        p = readOptionalIndex(state, b, p, end);
        out.subaccount = state.value;
        break;
      case KEY_TS_MS:
        p = readOptionalIndex(state, b, p, end);
        out.tsMs = state.value;
        break;
      default:
        p = skipValue(b, p, end, 1, false);
    }
    p = endMember(state, b, p, end);
    if (p === -1) return -1;
    if (state.closed) return (state.seen & REQUIRED) === REQUIRED && settleSides(outcome, side, bookSide, out) ? p : -1;
  }
}
