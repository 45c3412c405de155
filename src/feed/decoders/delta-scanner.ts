/**
 * Hand scanner for `orderbook_delta` frames: reads type, sid, seq and the msg fields straight out
 * of the frame text in one pass, without JSON.parse and without allocating (tickers of known
 * markets come interned from the TickerTable, numbers are accumulated from digits). Any key
 * order and whitespace is accepted, unknown keys are skipped while their JSON grammar is checked,
 * and optional fields may be absent or null.
 *
 * The reference decoder (orderbook-delta.ts, JSON.parse) stays the authority: whenever this
 * scanner meets something outside its fast path (escaped keys, duplicate keys, numbers written
 * as 4.0 or 4e0, non-canonical unit text, invalid JSON) it returns FALLBACK and never a verdict
 * of its own, so for every frame it accepts it fills exactly the record the reference would.
 * test/feed/decoders/delta-scanner.test.ts checks that on generated and malformed frames.
 *
 * Not reentrant: the cursor lives in module variables (faster than passing it around); the feed
 * decodes one frame at a time on one thread.
 */

import { type Count, type Price } from '../../core/index.ts';
import { HASH_START, hashStep, type TickerTable } from '../ticker-table.ts';
import { DecodeStatus } from './decode-status.ts';
import type { OrderbookDeltaRecord } from './orderbook-delta.ts';

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const BRACE_OPEN = 0x7b;
const BRACE_CLOSE = 0x7d;
const BRACKET_OPEN = 0x5b;
const BRACKET_CLOSE = 0x5d;
const COMMA = 0x2c;
const COLON = 0x3a;
const MINUS = 0x2d;
const PLUS = 0x2b;
const DOT = 0x2e;
const ZERO = 0x30;
const NINE = 0x39;
const LOWER_E = 0x65;
const UPPER_E = 0x45;

// Nesting allowed inside skipped values; deeper frames go to JSON.parse.
const DEPTH_MAX = 32;
// core/units.ts rejects unit text longer than this; the scanner defers such text to it.
const UNIT_TEXT_MAX = 40;
// 15 digits stay below 2^53: longer integers go to JSON.parse.
const INTEGER_DIGITS_MAX = 15;

const OK = DecodeStatus.OK;
const NOT_DELTA = DecodeStatus.NOT_DELTA;
const FALLBACK = DecodeStatus.FALLBACK;

// Top-level keys.
const KEY_OTHER = 0;
const KEY_TYPE = 1;
const KEY_SID = 2;
const KEY_SEQ = 3;
const KEY_MSG = 4;
// msg keys.
const KEY_TICKER = 5;
const KEY_PRICE = 6;
const KEY_DELTA = 7;
const KEY_SIDE = 8;
const KEY_CLIENT_ORDER_ID = 9;
const KEY_SUBACCOUNT = 10;
const KEY_TS_MS = 11;
const KEY_BAD = -1;

const TOP_REQUIRED = (1 << KEY_TYPE) | (1 << KEY_SID) | (1 << KEY_SEQ) | (1 << KEY_MSG);
const MSG_REQUIRED = (1 << KEY_TICKER) | (1 << KEY_PRICE) | (1 << KEY_DELTA) | (1 << KEY_SIDE);

const TYPE_DELTA = 'orderbook_delta';

let src = '';
let pos = 0;
let end = 0;

/** Skips JSON whitespace; returns the code at the cursor, -1 at the end. */
function skipWhitespace(): number {
  while (pos < end) {
    const code = src.charCodeAt(pos);
    if (code !== 0x20 && code !== 0x0a && code !== 0x0d && code !== 0x09) return code;
    pos++;
  }
  return -1;
}

/** True when src[start, start + literal.length) equals `literal`. */
function spells(start: number, length: number, literal: string): boolean {
  if (length !== literal.length) return false;
  for (let i = 0; i < length; i++) if (src.charCodeAt(start + i) !== literal.charCodeAt(i)) return false;
  return true;
}

/** Reads a key at the cursor ('"'), leaves the cursor after its closing quote. */
function readKey(inMsg: boolean): number {
  const start = ++pos;
  while (pos < end) {
    const code = src.charCodeAt(pos);
    if (code === QUOTE) break;
    if (code === BACKSLASH || code < 0x20) return KEY_BAD; // escaped keys: JSON.parse decodes them
    pos++;
  }
  if (pos >= end) return KEY_BAD;
  const length = pos - start;
  pos++;
  if (!inMsg) {
    if (spells(start, length, 'type')) return KEY_TYPE;
    if (spells(start, length, 'sid')) return KEY_SID;
    if (spells(start, length, 'seq')) return KEY_SEQ;
    if (spells(start, length, 'msg')) return KEY_MSG;
    return KEY_OTHER;
  }
  switch (length) {
    case 13:
      if (spells(start, length, 'market_ticker')) return KEY_TICKER;
      if (spells(start, length, 'price_dollars')) return KEY_PRICE;
      return KEY_OTHER;
    case 8:
      return spells(start, length, 'delta_fp') ? KEY_DELTA : KEY_OTHER;
    case 4:
      return spells(start, length, 'side') ? KEY_SIDE : KEY_OTHER;
    case 15:
      return spells(start, length, 'client_order_id') ? KEY_CLIENT_ORDER_ID : KEY_OTHER;
    case 10:
      return spells(start, length, 'subaccount') ? KEY_SUBACCOUNT : KEY_OTHER;
    case 5:
      return spells(start, length, 'ts_ms') ? KEY_TS_MS : KEY_OTHER;
    default:
      return KEY_OTHER;
  }
}

function isHex(code: number): boolean {
  return (code >= ZERO && code <= NINE) || (code >= 0x41 && code <= 0x46) || (code >= 0x61 && code <= 0x66);
}

/** Skips a string at the cursor ('"') checking escapes; false when invalid. */
function skipString(): boolean {
  pos++;
  while (pos < end) {
    const code = src.charCodeAt(pos);
    if (code === QUOTE) {
      pos++;
      return true;
    }
    if (code < 0x20) return false;
    if (code === BACKSLASH) {
      const escaped = src.charCodeAt(pos + 1);
      if (escaped === 0x75) {
        // \uXXXX
        if (pos + 5 >= end) return false;
        if (!isHex(src.charCodeAt(pos + 2)) || !isHex(src.charCodeAt(pos + 3)) || !isHex(src.charCodeAt(pos + 4)) || !isHex(src.charCodeAt(pos + 5))) return false;
        pos += 6;
        continue;
      }
      // " \ / b f n r t
      if (escaped !== QUOTE && escaped !== BACKSLASH && escaped !== 0x2f && escaped !== 0x62 && escaped !== 0x66 && escaped !== 0x6e && escaped !== 0x72 && escaped !== 0x74) return false;
      pos += 2;
      continue;
    }
    pos++;
  }
  return false;
}

function skipDigits(): number {
  const start = pos;
  while (pos < end) {
    const code = src.charCodeAt(pos);
    if (code < ZERO || code > NINE) break;
    pos++;
  }
  return pos - start;
}

/** Skips a number by the JSON grammar; false when invalid. */
function skipNumber(): boolean {
  if (src.charCodeAt(pos) === MINUS) pos++;
  const first = src.charCodeAt(pos);
  if (first === ZERO) pos++;
  else if (first > ZERO && first <= NINE) skipDigits();
  else return false;
  if (src.charCodeAt(pos) === DOT) {
    pos++;
    if (skipDigits() === 0) return false;
  }
  const exponent = src.charCodeAt(pos);
  if (exponent === LOWER_E || exponent === UPPER_E) {
    pos++;
    const sign = src.charCodeAt(pos);
    if (sign === PLUS || sign === MINUS) pos++;
    if (skipDigits() === 0) return false;
  }
  return true;
}

function skipLiteral(literal: string): boolean {
  if (!spells(pos, Math.min(literal.length, end - pos), literal)) return false;
  pos += literal.length;
  return true;
}

/** Skips any JSON value at the cursor, checking its grammar; false when invalid or too deep. */
function skipValue(depth: number): boolean {
  const code = src.charCodeAt(pos);
  switch (code) {
    case QUOTE:
      return skipString();
    case BRACE_OPEN: {
      if (depth >= DEPTH_MAX) return false;
      pos++;
      let next = skipWhitespace();
      if (next === BRACE_CLOSE) {
        pos++;
        return true;
      }
      for (;;) {
        if (next !== QUOTE || !skipString()) return false;
        if (skipWhitespace() !== COLON) return false;
        pos++;
        skipWhitespace();
        if (!skipValue(depth + 1)) return false;
        next = skipWhitespace();
        if (next === COMMA) {
          pos++;
          next = skipWhitespace();
          continue;
        }
        if (next !== BRACE_CLOSE) return false;
        pos++;
        return true;
      }
    }
    case BRACKET_OPEN: {
      if (depth >= DEPTH_MAX) return false;
      pos++;
      let next = skipWhitespace();
      if (next === BRACKET_CLOSE) {
        pos++;
        return true;
      }
      for (;;) {
        if (next === -1 || !skipValue(depth + 1)) return false;
        next = skipWhitespace();
        if (next === COMMA) {
          pos++;
          next = skipWhitespace();
          continue;
        }
        if (next !== BRACKET_CLOSE) return false;
        pos++;
        return true;
      }
    }
    case 0x74:
      return skipLiteral('true');
    case 0x66:
      return skipLiteral('false');
    case 0x6e:
      return skipLiteral('null');
    default:
      if (code === MINUS || (code >= ZERO && code <= NINE)) return skipNumber();
      return false;
  }
}

/** A plain non-negative integer ("0", "17"); -1 for anything JSON.parse should judge (4.0, 1e3, -1, 007). */
function readIndex(): number {
  const start = pos;
  const first = src.charCodeAt(pos);
  if (first < ZERO || first > NINE) return -1;
  let value = 0;
  while (pos < end) {
    const code = src.charCodeAt(pos);
    if (code < ZERO || code > NINE) break;
    value = value * 10 + (code - ZERO);
    pos++;
  }
  const digits = pos - start;
  if (digits > INTEGER_DIGITS_MAX || (first === ZERO && digits > 1)) return -1;
  const next = src.charCodeAt(pos);
  if (next === DOT || next === LOWER_E || next === UPPER_E) return -1;
  return value;
}

/** True when the cursor is at the literal null (consumed). */
function readNull(): boolean {
  if (src.charCodeAt(pos) !== 0x6e) return false;
  return skipLiteral('null');
}

/**
 * Fixed-point unit text inside quotes at the cursor: digits, then optionally '.' and 1..scale
 * digits, with a leading '-' when signed. The same value core's parsePrice / parseSignedCount
 * give for such text; NaN for anything else (the caller falls back).
 */
function readFixed(scale: number, signed: boolean): number {
  const open = pos;
  pos++;
  let negative = false;
  if (signed && src.charCodeAt(pos) === MINUS) {
    negative = true;
    pos++;
  }
  let value = 0;
  let integerDigits = 0;
  let code = src.charCodeAt(pos);
  while (code >= ZERO && code <= NINE) {
    value = value * 10 + (code - ZERO);
    integerDigits++;
    code = src.charCodeAt(++pos);
  }
  if (integerDigits === 0) return NaN;
  let decimals = 0;
  if (code === DOT) {
    code = src.charCodeAt(++pos);
    while (code >= ZERO && code <= NINE) {
      if (decimals === scale) return NaN;
      value = value * 10 + (code - ZERO);
      decimals++;
      code = src.charCodeAt(++pos);
    }
    if (decimals === 0) return NaN;
  }
  if (code !== QUOTE) return NaN;
  if (pos - open - 1 > UNIT_TEXT_MAX) return NaN;
  pos++;
  for (; decimals < scale; decimals++) value *= 10;
  if (!Number.isSafeInteger(value)) return NaN;
  return negative && value !== 0 ? -value : value;
}

/**
 * A string at the cursor with its escapes decoded: the rare path (tickers and client order ids
 * are plain ASCII in practice). Allocates; null when the string is invalid.
 */
function readEscapedString(open: number): string | null {
  pos = open;
  if (!skipString()) return null;
  return JSON.parse(src.slice(open, pos)) as string;
}

function readTicker(out: OrderbookDeltaRecord, tickers: TickerTable): boolean {
  const open = pos;
  const start = ++pos;
  let hash = HASH_START;
  while (pos < end) {
    const code = src.charCodeAt(pos);
    if (code === QUOTE) break;
    if (code === BACKSLASH) {
      const ticker = readEscapedString(open);
      if (ticker === null || ticker.length === 0) return false;
      const index = tickers.indexOf(ticker);
      out.marketIndex = index;
      out.marketTicker = index === -1 ? ticker : tickers.tickerAt(index);
      return true;
    }
    if (code < 0x20) return false;
    hash = hashStep(hash, code);
    pos++;
  }
  if (pos >= end || pos === start) return false;
  const index = tickers.indexOfRange(src, start, pos, hash);
  out.marketIndex = index;
  // An unknown market costs a substring; its delta is dropped by the book store anyway.
  out.marketTicker = index === -1 ? src.slice(start, pos) : tickers.tickerAt(index);
  pos++;
  return true;
}

/** Optional string: null or a string; sets clientOrderId. */
function readClientOrderId(out: OrderbookDeltaRecord): boolean {
  if (readNull()) {
    out.clientOrderId = '';
    return true;
  }
  if (src.charCodeAt(pos) !== QUOTE) return false;
  const open = pos;
  const start = ++pos;
  while (pos < end) {
    const code = src.charCodeAt(pos);
    if (code === QUOTE) break;
    if (code === BACKSLASH) {
      const text = readEscapedString(open);
      if (text === null) return false;
      out.clientOrderId = text;
      return true;
    }
    if (code < 0x20) return false;
    pos++;
  }
  if (pos >= end) return false;
  // Own-order deltas only: one substring each (the OMS needs the id as a string anyway).
  out.clientOrderId = src.slice(start, pos);
  pos++;
  return true;
}

function readSide(out: OrderbookDeltaRecord): boolean {
  if (src.charCodeAt(pos) !== QUOTE) return false;
  if (spells(pos, 5, '"yes"')) {
    out.side = 0;
    pos += 5;
    return true;
  }
  if (spells(pos, 4, '"no"')) {
    out.side = 1;
    pos += 4;
    return true;
  }
  return false;
}

/** Optional index: null or a plain integer. */
function readOptionalIndex(): number {
  if (readNull()) return -1;
  const value = readIndex();
  return value === -1 ? -2 : value;
}

function scanMsg(out: OrderbookDeltaRecord, tickers: TickerTable): number {
  pos++; // '{'
  out.clientOrderId = '';
  out.subaccount = -1;
  out.tsMs = -1;
  let seen = 0;
  let code = skipWhitespace();
  if (code === BRACE_CLOSE) return FALLBACK; // required fields missing
  for (;;) {
    if (code !== QUOTE) return FALLBACK;
    const key = readKey(true);
    if (key === KEY_BAD) return FALLBACK;
    if (skipWhitespace() !== COLON) return FALLBACK;
    pos++;
    code = skipWhitespace();
    if (key !== KEY_OTHER) {
      const bit = 1 << key;
      if ((seen & bit) !== 0) return FALLBACK; // duplicate key: JSON.parse keeps the last one
      seen |= bit;
    }
    switch (key) {
      case KEY_TICKER:
        if (code !== QUOTE || !readTicker(out, tickers)) return FALLBACK;
        break;
      case KEY_PRICE: {
        if (code !== QUOTE) return FALLBACK;
        const price = readFixed(4, false);
        if (price !== price) return FALLBACK;
        out.price = price as Price;
        break;
      }
      case KEY_DELTA: {
        if (code !== QUOTE) return FALLBACK;
        const delta = readFixed(2, true);
        if (delta !== delta) return FALLBACK;
        out.delta = delta as Count;
        break;
      }
      case KEY_SIDE:
        if (!readSide(out)) return FALLBACK;
        break;
      case KEY_CLIENT_ORDER_ID:
        if (!readClientOrderId(out)) return FALLBACK;
        break;
      case KEY_SUBACCOUNT: {
        const value = readOptionalIndex();
        if (value === -2) return FALLBACK;
        out.subaccount = value;
        break;
      }
      case KEY_TS_MS: {
        const value = readOptionalIndex();
        if (value === -2) return FALLBACK;
        out.tsMs = value;
        break;
      }
      default:
        if (!skipValue(1)) return FALLBACK;
    }
    code = skipWhitespace();
    if (code === COMMA) {
      pos++;
      code = skipWhitespace();
      continue;
    }
    if (code !== BRACE_CLOSE) return FALLBACK;
    pos++;
    return (seen & MSG_REQUIRED) === MSG_REQUIRED ? OK : FALLBACK;
  }
}

/** The type value at the cursor: OK when "orderbook_delta", NOT_DELTA for another plain string. */
function readType(): number {
  if (src.charCodeAt(pos) !== QUOTE) return FALLBACK;
  const start = ++pos;
  while (pos < end) {
    const code = src.charCodeAt(pos);
    if (code === QUOTE) break;
    if (code === BACKSLASH || code < 0x20) return FALLBACK;
    pos++;
  }
  if (pos >= end) return FALLBACK;
  const isDelta = spells(start, pos - start, TYPE_DELTA);
  pos++;
  return isDelta ? OK : NOT_DELTA;
}

/**
 * Decodes an orderbook_delta frame into `out`. OK: `out` holds the delta. NOT_DELTA: the frame's
 * type is a plain string other than orderbook_delta (the frame itself was not fully checked).
 * FALLBACK: let the reference decoder judge the frame. `out` is meaningful only on OK.
 */
export function scanDelta(text: string, out: OrderbookDeltaRecord, tickers: TickerTable): number {
  src = text;
  pos = 0;
  end = text.length;
  let code = skipWhitespace();
  if (code !== BRACE_OPEN) return FALLBACK;
  pos++;
  let seen = 0;
  code = skipWhitespace();
  if (code === BRACE_CLOSE) return FALLBACK;
  for (;;) {
    if (code !== QUOTE) return FALLBACK;
    const key = readKey(false);
    if (key === KEY_BAD) return FALLBACK;
    if (skipWhitespace() !== COLON) return FALLBACK;
    pos++;
    code = skipWhitespace();
    if (key !== KEY_OTHER) {
      const bit = 1 << key;
      if ((seen & bit) !== 0) return FALLBACK;
      seen |= bit;
    }
    switch (key) {
      case KEY_TYPE: {
        const status = readType();
        if (status !== OK) return status;
        break;
      }
      case KEY_SID: {
        const sid = readIndex();
        if (sid === -1) return FALLBACK;
        out.sid = sid;
        break;
      }
      case KEY_SEQ: {
        const seq = readIndex();
        if (seq === -1) return FALLBACK;
        out.seq = seq;
        break;
      }
      case KEY_MSG: {
        if (code !== BRACE_OPEN) return FALLBACK;
        const status = scanMsg(out, tickers);
        if (status !== OK) return status;
        break;
      }
      default:
        if (!skipValue(1)) return FALLBACK;
    }
    code = skipWhitespace();
    if (code === COMMA) {
      pos++;
      code = skipWhitespace();
      continue;
    }
    if (code !== BRACE_CLOSE) return FALLBACK;
    pos++;
    break;
  }
  if (skipWhitespace() !== -1) return FALLBACK; // trailing bytes
  src = ''; // do not pin the frame
  return seen === TOP_REQUIRED ? OK : FALLBACK;
}
