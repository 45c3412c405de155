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
 * Why it looks like this (each point measured with bench/feed/suite.ts and V8 CPU profiles):
 * - Every helper takes the text and a position and returns the position after what it read, or
 *   -1 to fall back; values go straight into the record or into fields of one scanner instance.
 *   Writing a module-level `let` costs ~13 ns in V8 against well under 1 ns for an object field.
 * - Reads go through `at`, which bounds-checks: one charCodeAt past the end returns NaN and
 *   deoptimises the caller into a slower float path for good.
 * - Keys are matched against the one expected next in the exchange's own order with one native
 *   startsWith, quotes and colon included; a key out of that order is identified by its length and
 *   first letter and then checked in full. Other builtins (indexOf, a regex prefilter) cost ~15-20
 *   ns of call overhead each and did not pay for themselves.
 * - Result, on V8 11.3 / Node 20: throughput at parity with JSON.parse + conversion (within the
 *   noise of the shared bench machine), but no allocation at all, so no minor GC pauses in the
 *   latency tail. bench/feed/suite.ts has the numbers for this machine.
 */

import type { Count, Price } from '../../core/index.ts';
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
const LOWER_N = 0x6e;

// Nesting allowed inside skipped values; deeper frames go to JSON.parse.
const DEPTH_MAX = 32;
// core/units.ts rejects unit text longer than this; the scanner defers such text to it.
const UNIT_TEXT_MAX = 40;
// 15 digits stay below 2^53: longer integers go to JSON.parse.
const INTEGER_DIGITS_MAX = 15;

const OK = DecodeStatus.OK;
const NOT_DELTA = DecodeStatus.NOT_DELTA;
const FALLBACK = DecodeStatus.FALLBACK;

// Key ids: a bit each in the `seen` masks. 0 = a key we skip.
const KEY_OTHER = 0;
const KEY_TYPE = 1;
const KEY_SID = 2;
const KEY_SEQ = 3;
const KEY_MSG = 4;
const KEY_TICKER = 5;
const KEY_PRICE = 6;
const KEY_DELTA = 7;
const KEY_SIDE = 8;
const KEY_CLIENT_ORDER_ID = 9;
const KEY_SUBACCOUNT = 10;
const KEY_TS_MS = 11;

/** The exchange's key order (spec/websocket.md §6.1, and the simulator), colon included. */
const TOP_KEYS: readonly string[] = ['"type":', '"sid":', '"seq":', '"msg":'];
const TOP_IDS: readonly number[] = [KEY_TYPE, KEY_SID, KEY_SEQ, KEY_MSG];
const MSG_KEYS: readonly string[] = [
  '"market_ticker":', '"market_id":', '"price_dollars":', '"delta_fp":', '"side":',
  '"client_order_id":', '"subaccount":', '"last_update_reason":', '"ts":', '"ts_ms":',
];
const MSG_IDS: readonly number[] = [
  KEY_TICKER, KEY_OTHER, KEY_PRICE, KEY_DELTA, KEY_SIDE,
  KEY_CLIENT_ORDER_ID, KEY_SUBACCOUNT, KEY_OTHER, KEY_OTHER, KEY_TS_MS,
];

const TOP_REQUIRED = (1 << KEY_TYPE) | (1 << KEY_SID) | (1 << KEY_SEQ) | (1 << KEY_MSG);
const MSG_REQUIRED = (1 << KEY_TICKER) | (1 << KEY_PRICE) | (1 << KEY_DELTA) | (1 << KEY_SIDE);

/** The code unit at p, -1 past the end (never NaN: see the file comment). */
function at(s: string, p: number): number {
  return p < s.length ? s.charCodeAt(p) : -1;
}

/**
 * True when s[p, p + literal.length) is `literal`. The native startsWith: for literals of six or
 * more characters (every key with its quotes and colon) one builtin call beat a JavaScript compare
 * loop in the bench, 1.55 against 1.92 us per frame.
 */
function matches(s: string, p: number, literal: string): boolean {
  return s.startsWith(literal, p);
}

function skipWhitespace(s: string, p: number): number {
  for (;;) {
    const code = at(s, p);
    if (code !== 0x20 && code !== 0x0a && code !== 0x0d && code !== 0x09) return p;
    p++;
  }
}

function isHex(code: number): boolean {
  return (code >= ZERO && code <= NINE) || (code >= 0x41 && code <= 0x46) || (code >= 0x61 && code <= 0x66);
}

/** Skips a string whose opening quote is at p, checking escapes and control characters; -1 when invalid. */
function skipString(s: string, p: number): number {
  for (p++; ; ) {
    const code = at(s, p);
    if (code === QUOTE) return p + 1;
    if (code === BACKSLASH) {
      const escaped = at(s, p + 1);
      if (escaped === 0x75) {
        // \uXXXX
        if (!isHex(at(s, p + 2)) || !isHex(at(s, p + 3)) || !isHex(at(s, p + 4)) || !isHex(at(s, p + 5))) return -1;
        p += 6;
        continue;
      }
      // " \ / b f n r t
      if (escaped !== QUOTE && escaped !== BACKSLASH && escaped !== 0x2f && escaped !== 0x62 && escaped !== 0x66 && escaped !== 0x6e && escaped !== 0x72 && escaped !== 0x74) return -1;
      p += 2;
      continue;
    }
    if (code < 0x20) return -1; // raw control character, or -1 past the end
    p++;
  }
}

function skipDigits(s: string, p: number): number {
  for (;;) {
    const code = at(s, p);
    if (!(code >= ZERO && code <= NINE)) return p;
    p++;
  }
}

/** Skips a number by the JSON grammar; -1 when invalid. */
function skipNumber(s: string, p: number): number {
  if (at(s, p) === MINUS) p++;
  const first = at(s, p);
  if (first === ZERO) p++;
  else if (first > ZERO && first <= NINE) p = skipDigits(s, p + 1);
  else return -1;
  if (at(s, p) === DOT) {
    const start = p + 1;
    p = skipDigits(s, start);
    if (p === start) return -1;
  }
  const exponent = at(s, p);
  if (exponent === LOWER_E || exponent === UPPER_E) {
    p++;
    const sign = at(s, p);
    if (sign === PLUS || sign === MINUS) p++;
    const start = p;
    p = skipDigits(s, start);
    if (p === start) return -1;
  }
  return p;
}

/** Skips any JSON value at p, checking its grammar; -1 when invalid or too deep. */
function skipValue(s: string, p: number, depth: number): number {
  const code = at(s, p);
  switch (code) {
    case QUOTE:
      return skipString(s, p);
    case BRACE_OPEN: {
      if (depth >= DEPTH_MAX) return -1;
      p = skipWhitespace(s, p + 1);
      if (at(s, p) === BRACE_CLOSE) return p + 1;
      for (;;) {
        if (at(s, p) !== QUOTE) return -1;
        p = skipString(s, p);
        if (p === -1) return -1;
        p = skipWhitespace(s, p);
        if (at(s, p) !== COLON) return -1;
        p = skipValue(s, skipWhitespace(s, p + 1), depth + 1);
        if (p === -1) return -1;
        p = skipWhitespace(s, p);
        const next = at(s, p);
        if (next === BRACE_CLOSE) return p + 1;
        if (next !== COMMA) return -1;
        p = skipWhitespace(s, p + 1);
      }
    }
    case BRACKET_OPEN: {
      if (depth >= DEPTH_MAX) return -1;
      p = skipWhitespace(s, p + 1);
      if (at(s, p) === BRACKET_CLOSE) return p + 1;
      for (;;) {
        p = skipValue(s, p, depth + 1);
        if (p === -1) return -1;
        p = skipWhitespace(s, p);
        const next = at(s, p);
        if (next === BRACKET_CLOSE) return p + 1;
        if (next !== COMMA) return -1;
        p = skipWhitespace(s, p + 1);
      }
    }
    case 0x74:
      return matches(s, p, 'true') ? p + 4 : -1;
    case 0x66:
      return matches(s, p, 'false') ? p + 5 : -1;
    case LOWER_N:
      return matches(s, p, 'null') ? p + 4 : -1;
    default:
      if (code === MINUS || (code >= ZERO && code <= NINE)) return skipNumber(s, p);
      return -1;
  }
}

/** The type value at p: OK for "orderbook_delta", NOT_DELTA for another plain string, else FALLBACK. */
function readType(s: string, p: number): number {
  if (matches(s, p, '"orderbook_delta"')) return OK;
  if (at(s, p) !== QUOTE) return FALLBACK;
  for (p++; ; p++) {
    const code = at(s, p);
    if (code === QUOTE) return NOT_DELTA;
    if (code === BACKSLASH || code < 0x20) return FALLBACK;
  }
}

class DeltaScanner {
  /** Key id of the last readKey. */
  key = KEY_OTHER;
  /** Value of the last readIndex / readOptionalIndex / readFixed. */
  value = 0;
  /** End of the last string decoded by decodeEscaped. */
  escapedEnd = 0;

  /**
   * The general path for a key out of the exchange's order: reads the key whose opening quote is
   * at p into `key` (KEY_OTHER for one we skip) and returns the position after its closing quote,
   * or -1 for an escaped or broken key (JSON.parse decodes escapes). Found by length and first
   * letter, then checked in full.
   */
  readKey(s: string, p: number, inMsg: boolean): number {
    const start = p + 1;
    for (p = start; ; p++) {
      const code = at(s, p);
      if (code === QUOTE) break;
      if (code === BACKSLASH || code < 0x20) return -1; // -1 also past the end
    }
    let key = KEY_OTHER;
    const first = s.charCodeAt(start);
    switch (p - start) {
      case 3:
        if (!inMsg) {
          if (first === 0x73) key = matches(s, start, 'sid') ? KEY_SID : matches(s, start, 'seq') ? KEY_SEQ : KEY_OTHER;
          else if (first === 0x6d && matches(s, start, 'msg')) key = KEY_MSG;
        }
        break;
      case 4:
        if (!inMsg) {
          if (first === 0x74 && matches(s, start, 'type')) key = KEY_TYPE;
        } else if (first === 0x73 && matches(s, start, 'side')) key = KEY_SIDE;
        break;
      case 5:
        if (inMsg && first === 0x74 && matches(s, start, 'ts_ms')) key = KEY_TS_MS;
        break;
      case 8:
        if (inMsg && first === 0x64 && matches(s, start, 'delta_fp')) key = KEY_DELTA;
        break;
      case 10:
        if (inMsg && first === 0x73 && matches(s, start, 'subaccount')) key = KEY_SUBACCOUNT;
        break;
      case 13:
        if (inMsg) {
          if (first === 0x6d) key = matches(s, start, 'market_ticker') ? KEY_TICKER : KEY_OTHER;
          else if (first === 0x70 && matches(s, start, 'price_dollars')) key = KEY_PRICE;
        }
        break;
      case 15:
        if (inMsg && first === 0x63 && matches(s, start, 'client_order_id')) key = KEY_CLIENT_ORDER_ID;
        break;
    }
    this.key = key;
    return p + 1;
  }

  /**
   * The next member's key at p (its opening quote) into `key`: the expected one from `keys` (at
   * index `expected` or later) when it matches, else the general path; returns the position after
   * the colon, or -1. `this.value` gets the index after the matched expected key (or `expected`).
   */
  nextKey(s: string, p: number, keys: readonly string[], ids: readonly number[], expected: number, inMsg: boolean): number {
    for (let k = expected; k < keys.length; k++) {
      const literal = keys[k];
      if (matches(s, p, literal)) {
        this.key = ids[k];
        this.value = k + 1;
        return p + literal.length;
      }
    }
    this.value = expected;
    p = this.readKey(s, p, inMsg);
    if (p === -1) return -1;
    p = skipWhitespace(s, p);
    return at(s, p) === COLON ? p + 1 : -1;
  }

  /** A plain non-negative integer ("0", "17") into `value`; -1 for anything JSON.parse should judge (4.0, 1e3, -1, 007). */
  readIndex(s: string, p: number): number {
    const start = p;
    const first = at(s, p);
    if (!(first >= ZERO && first <= NINE)) return -1;
    let value = 0;
    for (;;) {
      const code = at(s, p);
      if (!(code >= ZERO && code <= NINE)) break;
      value = value * 10 + (code - ZERO);
      p++;
    }
    const digits = p - start;
    if (digits > INTEGER_DIGITS_MAX || (first === ZERO && digits > 1)) return -1;
    const next = at(s, p);
    if (next === DOT || next === LOWER_E || next === UPPER_E) return -1;
    this.value = value;
    return p;
  }

  /** null (value -1) or a plain integer. */
  readOptionalIndex(s: string, p: number): number {
    if (at(s, p) === LOWER_N) {
      if (!matches(s, p, 'null')) return -1;
      this.value = -1;
      return p + 4;
    }
    return this.readIndex(s, p);
  }

  /**
   * Fixed-point unit text in quotes at p: digits, then optionally '.' and 1..scale digits, with a
   * leading '-' when signed. Gives the same value core's parsePrice / parseSignedCount give for
   * such text (into `value`, may be negative); -1 for anything else (the caller falls back).
   */
  readFixed(s: string, p: number, scale: number, signed: boolean): number {
    const open = p;
    p++;
    let negative = false;
    if (signed && at(s, p) === MINUS) {
      negative = true;
      p++;
    }
    let value = 0;
    const integerStart = p;
    let code = at(s, p);
    while (code >= ZERO && code <= NINE) {
      value = value * 10 + (code - ZERO);
      code = at(s, ++p);
    }
    if (p === integerStart) return -1;
    let decimals = 0;
    if (code === DOT) {
      code = at(s, ++p);
      while (code >= ZERO && code <= NINE) {
        if (decimals === scale) return -1;
        value = value * 10 + (code - ZERO);
        decimals++;
        code = at(s, ++p);
      }
      if (decimals === 0) return -1;
    }
    if (code !== QUOTE || p - open - 1 > UNIT_TEXT_MAX) return -1;
    for (; decimals < scale; decimals++) value *= 10;
    if (!Number.isSafeInteger(value)) return -1;
    this.value = negative && value !== 0 ? -value : value; // "-0.00" is 0, never -0
    return p + 1;
  }

  /** The rare path: a string with escapes, decoded by JSON.parse (allocates). null when invalid. */
  decodeEscaped(s: string, open: number): string | null {
    const end = skipString(s, open);
    if (end === -1) return null;
    this.escapedEnd = end;
    return JSON.parse(s.slice(open, end)) as string;
  }

  readTicker(s: string, p: number, out: OrderbookDeltaRecord, tickers: TickerTable): number {
    const open = p;
    const start = p + 1;
    let hash = HASH_START;
    for (p = start; ; p++) {
      const code = at(s, p);
      if (code === QUOTE) break;
      if (code === BACKSLASH) {
        const ticker = this.decodeEscaped(s, open);
        if (ticker === null || ticker.length === 0) return -1;
        const index = tickers.indexOf(ticker);
        out.marketIndex = index;
        out.marketTicker = index === -1 ? ticker : tickers.tickerAt(index);
        return this.escapedEnd;
      }
      if (code < 0x20) return -1; // also -1 at the end
      hash = hashStep(hash, code);
    }
    if (p === start) return -1;
    const index = tickers.indexOfRange(s, start, p, hash);
    out.marketIndex = index;
    // An unknown market costs a substring; its delta is dropped by the book store anyway.
    out.marketTicker = index === -1 ? s.slice(start, p) : tickers.tickerAt(index);
    return p + 1;
  }

  /** null or a string; sets clientOrderId. */
  readClientOrderId(s: string, p: number, out: OrderbookDeltaRecord): number {
    const open = p;
    const first = at(s, p);
    if (first === LOWER_N) {
      if (!matches(s, p, 'null')) return -1;
      out.clientOrderId = '';
      return p + 4;
    }
    if (first !== QUOTE) return -1;
    for (p++; ; p++) {
      const code = at(s, p);
      if (code === QUOTE) break;
      if (code === BACKSLASH) {
        const text = this.decodeEscaped(s, open);
        if (text === null) return -1;
        out.clientOrderId = text;
        return this.escapedEnd;
      }
      if (code < 0x20) return -1;
    }
    // Own-order deltas only: one substring each (the OMS needs the id as a string anyway).
    out.clientOrderId = s.slice(open + 1, p);
    return p + 1;
  }

  /** Reads the msg object at p (its '{'); returns the position after it, or -1. */
  scanMsg(s: string, p: number, out: OrderbookDeltaRecord, tickers: TickerTable): number {
    out.clientOrderId = '';
    out.subaccount = -1;
    out.tsMs = -1;
    let seen = 0;
    let expected = 0;
    p = skipWhitespace(s, p + 1);
    for (;;) {
      if (at(s, p) !== QUOTE) return -1; // also an empty msg: required fields missing
      p = this.nextKey(s, p, MSG_KEYS, MSG_IDS, expected, true);
      if (p === -1) return -1;
      const key = this.key;
      expected = this.value;
      p = skipWhitespace(s, p);
      if (key !== KEY_OTHER) {
        const bit = 1 << key;
        if ((seen & bit) !== 0) return -1; // duplicate key: JSON.parse keeps the last one
        seen |= bit;
      }
      switch (key) {
        case KEY_TICKER:
          p = at(s, p) === QUOTE ? this.readTicker(s, p, out, tickers) : -1;
          break;
        case KEY_PRICE:
          p = at(s, p) === QUOTE ? this.readFixed(s, p, 4, false) : -1;
          out.price = this.value as Price;
          break;
        case KEY_DELTA:
          p = at(s, p) === QUOTE ? this.readFixed(s, p, 2, true) : -1;
          out.delta = this.value as Count;
          break;
        case KEY_SIDE:
          if (matches(s, p, '"yes"')) {
            out.side = 0;
            p += 5;
          } else if (matches(s, p, '"no"')) {
            out.side = 1;
            p += 4;
          } else p = -1;
          break;
        case KEY_CLIENT_ORDER_ID:
          p = this.readClientOrderId(s, p, out);
          break;
        case KEY_SUBACCOUNT:
          p = this.readOptionalIndex(s, p);
          out.subaccount = this.value;
          break;
        case KEY_TS_MS:
          p = this.readOptionalIndex(s, p);
          out.tsMs = this.value;
          break;
        default:
          p = skipValue(s, p, 1);
      }
      if (p === -1) return -1;
      p = skipWhitespace(s, p);
      const next = at(s, p);
      if (next === BRACE_CLOSE) return (seen & MSG_REQUIRED) === MSG_REQUIRED ? p + 1 : -1;
      if (next !== COMMA) return -1;
      p = skipWhitespace(s, p + 1);
    }
  }

  scan(s: string, out: OrderbookDeltaRecord, tickers: TickerTable): number {
    let p = skipWhitespace(s, 0);
    if (at(s, p) !== BRACE_OPEN) return FALLBACK;
    p = skipWhitespace(s, p + 1);
    let seen = 0;
    let expected = 0;
    for (;;) {
      if (at(s, p) !== QUOTE) return FALLBACK;
      p = this.nextKey(s, p, TOP_KEYS, TOP_IDS, expected, false);
      if (p === -1) return FALLBACK;
      const key = this.key;
      expected = this.value;
      p = skipWhitespace(s, p);
      if (key !== KEY_OTHER) {
        const bit = 1 << key;
        if ((seen & bit) !== 0) return FALLBACK;
        seen |= bit;
      }
      switch (key) {
        case KEY_TYPE: {
          const status = readType(s, p);
          if (status !== OK) return status;
          p += 17; // "orderbook_delta"
          break;
        }
        case KEY_SID:
          p = this.readIndex(s, p);
          out.sid = this.value;
          break;
        case KEY_SEQ:
          p = this.readIndex(s, p);
          out.seq = this.value;
          break;
        case KEY_MSG:
          p = at(s, p) === BRACE_OPEN ? this.scanMsg(s, p, out, tickers) : -1;
          break;
        default:
          p = skipValue(s, p, 1);
      }
      if (p === -1) return FALLBACK;
      p = skipWhitespace(s, p);
      const next = at(s, p);
      if (next === BRACE_CLOSE) break;
      if (next !== COMMA) return FALLBACK;
      p = skipWhitespace(s, p + 1);
    }
    if (skipWhitespace(s, p + 1) !== s.length) return FALLBACK; // trailing bytes
    return seen === TOP_REQUIRED ? OK : FALLBACK;
  }
}

const scanner = new DeltaScanner();

/**
 * Decodes an orderbook_delta frame into `out`. OK: `out` holds the delta. NOT_DELTA: the frame's
 * type is a plain string other than orderbook_delta (the frame itself was not fully checked).
 * FALLBACK: let the reference decoder judge the frame. `out` is meaningful only on OK.
 */
export function scanDelta(s: string, out: OrderbookDeltaRecord, tickers: TickerTable): number {
  return scanner.scan(s, out, tickers);
}
