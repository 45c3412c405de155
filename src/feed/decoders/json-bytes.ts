/**
 * Byte-level JSON reading for the feed's frame scanners (frame-scanner.ts and the message scanners
 * for orderbook_delta, user_order and fill): primitives that read a frame's UTF-8 bytes in place,
 * in a Buffer between `start` and `end`, without creating strings and without allocating. Each
 * takes the bytes and a position and returns the position after what it read, or -1 when the
 * frame is outside the fast path (the caller then defers the whole frame to the JSON.parse path,
 * frame-decoder.ts, which is the authority). Values go into the one ScanState of a decoder.
 *
 * The UTF-8 rule (RFC 6455 §8.1: a text frame that is not UTF-8 fails the connection): every
 * primitive here that steps over string content accepts printable ASCII only, and numbers,
 * literals and structure are ASCII by grammar; a byte >= 0x80 anywhere gives -1. The one
 * exception is a market ticker equal, byte for byte, to the UTF-8 encoding of a known ticker
 * (ticker-bytes.ts), which is valid UTF-8 by construction. So a frame a scanner accepts is valid
 * UTF-8 without a separate pass; every other frame goes to the JSON path, which checks with
 * `isUtf8` before decoding. That check would cost ~90-130 ns per delta frame (bench/feed's isUtf8
 * row: a subarray view and the native call), a fifth to a quarter of the whole scan, so the hot
 * path does not pay it.
 *
 * Reads are bounded by `end` explicitly, never by the Buffer's length: frames sit in the middle of
 * a socket chunk, and a typed-array read past the array's end would also deoptimise the caller.
 */

import { wordAt } from '../../market/index.ts';
// The ticker hash lives with the registry it indexes; the scanners take it from here with the rest.
export { HASH_PRIME, HASH_SEED, hashBytes, hashFinish, wordAt } from '../../market/index.ts';

export const QUOTE = 0x22;
export const BACKSLASH = 0x5c;
export const BRACE_OPEN = 0x7b;
export const BRACE_CLOSE = 0x7d;
export const BRACKET_OPEN = 0x5b;
export const BRACKET_CLOSE = 0x5d;
export const COMMA = 0x2c;
export const COLON = 0x3a;
export const MINUS = 0x2d;
const PLUS = 0x2b;
const DOT = 0x2e;
const ZERO = 0x30;
const NINE = 0x39;
const LOWER_E = 0x65;
const UPPER_E = 0x45;
const LOWER_N = 0x6e;
const LOWER_T = 0x74;
const LOWER_F = 0x66;
const LOWER_U = 0x75;

/** Nesting allowed inside skipped values; deeper frames go to JSON.parse. */
const DEPTH_MAX = 32;
/** core/units.ts rejects unit text longer than this; so does readFixed. */
const UNIT_TEXT_MAX = 40;
/** 15 digits stay below 2^53: longer integers go to JSON.parse. */
const INTEGER_DIGITS_MAX = 15;
const POW10 = [1, 10, 100, 1_000, 10_000, 100_000, 1_000_000];

/** 1 for a byte that may stand as itself inside a JSON string on the fast path: ASCII 0x20-0x7f except '"' and '\'. */
const PLAIN = new Uint8Array(256);
for (let code = 0x20; code < 0x80; code++) PLAIN[code] = code === QUOTE || code === BACKSLASH ? 0 : 1;

/**
 * Four bytes at a time (SWAR): nonzero when the little-endian word `w` holds a '"', a '\\', a
 * control character (< 0x20) or a byte >= 0x80 - any byte that ends a plain run of string content.
 * Exact, not only likely (the borrow of a byte subtraction only reaches up from a byte that
 * matched); test/feed/decoders/json-bytes.test.ts checks it against every byte value. Skipping a
 * 36-byte market_id a word at a time took ~52 ns against ~60 ns byte by byte (Node 20, this
 * project's 2-vCPU machine).
 */
export function plainStops(w: number): number {
  const quote = w ^ 0x22222222;
  const backslash = w ^ 0x5c5c5c5c;
  return (((w - 0x20202020) & ~w) | ((quote - 0x01010101) & ~quote) | ((backslash - 0x01010101) & ~backslash) | w) & 0x80808080;
}

/** As plainStops, but bytes >= 0x80 do not stop the run (ticker bytes, compared with known tickers). */
export function tickerStops(w: number): number {
  const quote = w ^ 0x22222222;
  const backslash = w ^ 0x5c5c5c5c;
  return (((w - 0x20202020) & ~w) | ((quote - 0x01010101) & ~quote) | ((backslash - 0x01010101) & ~backslash)) & 0x80808080;
}

/** Results of the last primitive, and scratch shared by the scanners of one decoder. */
export class ScanState {
  /** Integer or fixed-point value of the last readIndex / readOptionalIndex / readFixed. */
  value = 0;
  /** Key id of the last nextKey (KEY_SKIP for a key the layout does not read). */
  key = 0;
  /** Layout position after the last key nextKey matched (where the next key is expected). */
  expected = 0;
  /** Closing-quote position of the last string readStringEnd found. */
  stringEnd = 0;
  /** The last readBool. */
  flag = false;
  /** TickerTable index of the last readTicker, -1 for a market the table does not hold. */
  index = -1;
  /** Text of the last readTicker / readText (the interned ticker of a known market). */
  text = '';
  /** Key ids met so far in the object beginMember is reading (a bit per id; KEY_SKIP never set). */
  seen = 0;
  /** True once endMember met the object's closing brace. */
  closed = false;
}

export function skipWhitespace(b: Buffer, p: number, end: number): number {
  while (p < end) {
    const code = b[p];
    if (code !== 0x20 && code !== 0x0a && code !== 0x0d && code !== 0x09) return p;
    p++;
  }
  return p;
}

function isHex(code: number): boolean {
  return (code >= ZERO && code <= NINE) || (code >= 0x41 && code <= 0x46) || (code >= 0x61 && code <= 0x66);
}

/**
 * Skips the string whose opening quote is at p, checking escapes; the position after its closing
 * quote, or -1 for a control character, a bad escape, the end of the frame, or a byte >= 0x80
 * unless `high` (a first pass whose bytes are read again, frame-scanner.ts).
 */
export function skipString(b: Buffer, p: number, end: number, high: boolean): number {
  p++;
  for (;;) {
    while (p + 4 <= end && plainStops(wordAt(b, p)) === 0) p += 4;
    if (p >= end) return -1;
    const code = b[p];
    if (PLAIN[code] === 1) {
      p++;
      continue;
    }
    if (code === QUOTE) return p + 1;
    if (code >= 0x80 && high) {
      p++;
      continue;
    }
    if (code !== BACKSLASH || p + 1 >= end) return -1;
    const escaped = b[p + 1];
    if (escaped === LOWER_U) {
      if (p + 5 >= end || !isHex(b[p + 2]) || !isHex(b[p + 3]) || !isHex(b[p + 4]) || !isHex(b[p + 5])) return -1;
      p += 6;
      continue;
    }
    // " \\ / b f n r t
    if (escaped !== QUOTE && escaped !== BACKSLASH && escaped !== 0x2f && escaped !== 0x62 && escaped !== LOWER_F && escaped !== LOWER_N && escaped !== 0x72 && escaped !== LOWER_T) return -1;
    p += 2;
  }
}

/**
 * The closing quote of the string opening at p when its content is plain (printable ASCII, no
 * escape) into `state.stringEnd`, and the position after it; -1 otherwise (escapes included:
 * callers that accept them use skipString and decode).
 */
export function readPlainString(state: ScanState, b: Buffer, p: number, end: number): number {
  p++;
  while (p + 4 <= end && plainStops(wordAt(b, p)) === 0) p += 4;
  while (p < end) {
    const code = b[p];
    if (PLAIN[code] === 1) {
      p++;
      continue;
    }
    if (code !== QUOTE) return -1;
    state.stringEnd = p;
    return p + 1;
  }
  return -1;
}

function skipDigits(b: Buffer, p: number, end: number): number {
  while (p < end) {
    const code = b[p];
    if (code < ZERO || code > NINE) return p;
    p++;
  }
  return p;
}

/** Skips a number by the JSON grammar; -1 when invalid. */
function skipNumber(b: Buffer, p: number, end: number): number {
  if (p < end && b[p] === MINUS) p++;
  if (p >= end) return -1;
  const first = b[p];
  if (first === ZERO) p++;
  else if (first > ZERO && first <= NINE) p = skipDigits(b, p + 1, end);
  else return -1;
  if (p < end && b[p] === DOT) {
    const start = p + 1;
    p = skipDigits(b, start, end);
    if (p === start) return -1;
  }
  if (p < end && (b[p] === LOWER_E || b[p] === UPPER_E)) {
    p++;
    if (p < end && (b[p] === PLUS || b[p] === MINUS)) p++;
    const start = p;
    p = skipDigits(b, start, end);
    if (p === start) return -1;
  }
  return p;
}

/**
 * A fixed run of bytes a scanner expects (a key with its quotes and colon, a JSON string value,
 * a stretch of the exchange's layout), kept as little-endian 32-bit words as well: comparing a
 * 32-byte stretch a word at a time took ~25 ns against ~44 ns byte by byte (Node 20, this
 * project's 2-vCPU machine). Fixed stretches are about half of a delta frame's bytes.
 */
export class Literal {
  readonly bytes: Uint8Array;
  readonly length: number;
  readonly words: Int32Array;
  /** The last 4 bytes as a word (overlapping the last of `words` when length is not a multiple of 4); 0 if shorter. */
  readonly lastWord: number;

  constructor(text: string) {
    const bytes = Buffer.from(text, 'latin1');
    this.bytes = new Uint8Array(bytes);
    this.length = bytes.length;
    this.words = new Int32Array(bytes.length >> 2);
    for (let k = 0; k < this.words.length; k++) this.words[k] = bytes.readInt32LE(4 * k);
    this.lastWord = bytes.length >= 4 ? bytes.readInt32LE(bytes.length - 4) : 0;
  }
}

/** The JSON string literal "text" (quotes included). */
export function stringLiteral(text: string): Literal {
  return new Literal(`"${text}"`);
}

/**
 * True when b[p, p + literal.length) holds `literal` (and lies before `end`): its whole words, then
 * its last 4 bytes as one more (overlapping) word instead of a byte loop for the remainder.
 */
export function matchLiteral(b: Buffer, p: number, end: number, literal: Literal): boolean {
  const length = literal.length;
  if (p + length > end) return false;
  const words = literal.words;
  const wordCount = words.length;
  let q = p;
  for (let k = 0; k < wordCount; k++, q += 4) if (wordAt(b, q) !== words[k]) return false;
  if ((length & 3) === 0) return true;
  if (length > 4) return wordAt(b, p + length - 4) === literal.lastWord;
  const bytes = literal.bytes;
  for (let i = 0; i < length; i++) if (b[p + i] !== bytes[i]) return false;
  return true;
}

/** The position after `literal` when b[p...] holds it, else -1. */
export function skipLiteral(b: Buffer, p: number, end: number, literal: Literal): number {
  return matchLiteral(b, p, end, literal) ? p + literal.length : -1;
}

/** `null` at p: the position after it, else -1. */
export function readNull(b: Buffer, p: number, end: number): number {
  return p + 3 < end && b[p] === LOWER_N && b[p + 1] === LOWER_U && b[p + 2] === 0x6c && b[p + 3] === 0x6c ? p + 4 : -1;
}

/** `true` / `false` at p into `state.flag`; the position after it, else -1. */
export function readBool(state: ScanState, b: Buffer, p: number, end: number): number {
  if (p + 3 < end && b[p] === LOWER_T && b[p + 1] === 0x72 && b[p + 2] === LOWER_U && b[p + 3] === LOWER_E) {
    state.flag = true;
    return p + 4;
  }
  if (p + 4 < end && b[p] === LOWER_F && b[p + 1] === 0x61 && b[p + 2] === 0x6c && b[p + 3] === 0x73 && b[p + 4] === LOWER_E) {
    state.flag = false;
    return p + 5;
  }
  return -1;
}

/**
 * Skips any JSON value at p, checking its grammar; -1 when invalid, too deep, or holding a byte
 * >= 0x80 unless `high` (see skipString).
 */
export function skipValue(b: Buffer, p: number, end: number, depth: number, high: boolean): number {
  if (p >= end) return -1;
  const code = b[p];
  if (code === QUOTE) return skipString(b, p, end, high);
  if (code === BRACE_OPEN) {
    if (depth >= DEPTH_MAX) return -1;
    p = skipWhitespace(b, p + 1, end);
    if (p < end && b[p] === BRACE_CLOSE) return p + 1;
    for (;;) {
      if (p >= end || b[p] !== QUOTE) return -1;
      p = skipString(b, p, end, high);
      if (p === -1) return -1;
      p = skipWhitespace(b, p, end);
      if (p >= end || b[p] !== COLON) return -1;
      p = skipValue(b, skipWhitespace(b, p + 1, end), end, depth + 1, high);
      if (p === -1) return -1;
      p = skipWhitespace(b, p, end);
      if (p >= end) return -1;
      const next = b[p];
      if (next === BRACE_CLOSE) return p + 1;
      if (next !== COMMA) return -1;
      p = skipWhitespace(b, p + 1, end);
    }
  }
  if (code === BRACKET_OPEN) {
    if (depth >= DEPTH_MAX) return -1;
    p = skipWhitespace(b, p + 1, end);
    if (p < end && b[p] === BRACKET_CLOSE) return p + 1;
    for (;;) {
      p = skipValue(b, p, end, depth + 1, high);
      if (p === -1) return -1;
      p = skipWhitespace(b, p, end);
      if (p >= end) return -1;
      const next = b[p];
      if (next === BRACKET_CLOSE) return p + 1;
      if (next !== COMMA) return -1;
      p = skipWhitespace(b, p + 1, end);
    }
  }
  if (code === LOWER_T || code === LOWER_F) {
    return readBool(SKIP_STATE, b, p, end);
  }
  if (code === LOWER_N) return readNull(b, p, end);
  if (code === MINUS || (code >= ZERO && code <= NINE)) return skipNumber(b, p, end);
  return -1;
}

// readBool's result is not wanted when skipping.
const SKIP_STATE = new ScanState();

/** A plain non-negative integer ("0", "17") into `state.value`; -1 for anything JSON.parse should judge (4.0, 1e3, -1, 007, 16+ digits). */
export function readIndex(state: ScanState, b: Buffer, p: number, end: number): number {
  const start = p;
  let value = 0;
  while (p < end) {
    const digit = b[p] - ZERO;
    if (digit < 0 || digit > 9) break;
    value = value * 10 + digit;
    p++;
  }
  const digits = p - start;
  if (digits === 0 || digits > INTEGER_DIGITS_MAX || (digits > 1 && b[start] === ZERO)) return -1;
  if (p < end) {
    const next = b[p];
    if (next === DOT || next === LOWER_E || next === UPPER_E) return -1;
  }
  state.value = value;
  return p;
}

/** `null` (value -1) or a plain non-negative integer. */
export function readOptionalIndex(state: ScanState, b: Buffer, p: number, end: number): number {
  if (p < end && b[p] === LOWER_N) {
    state.value = -1;
    return readNull(b, p, end);
  }
  return readIndex(state, b, p, end);
}

/**
 * Fixed-point unit text in quotes at p (its opening quote) into `state.value`, exactly as core's
 * scanFixed reads the same text (parsePrice: scale 4, decimalsMax 4; parseCount and
 * parseSignedCount: 2, 2; parseDollars: 4, 6, signed): digits, optionally '.' and 1..decimalsMax
 * digits (those past `scale` must be 0), a leading '-' when signed, at most 40 characters, a safe
 * integer once scaled; "-0" is 0. Returns the position after the closing quote, or -1 for any
 * other text, escapes included (the JSON path then judges: it gives the reference's verdict).
 */
export function readFixed(state: ScanState, b: Buffer, p: number, end: number, scale: number, decimalsMax: number, signed: boolean): number {
  const open = p;
  p++;
  let negative = false;
  if (signed && p < end && b[p] === MINUS) {
    negative = true;
    p++;
  }
  let value = 0;
  const integerStart = p;
  while (p < end) {
    const digit = b[p] - ZERO;
    if (digit < 0 || digit > 9) break;
    value = value * 10 + digit;
    p++;
  }
  if (p === integerStart) return -1;
  let decimals = 0;
  if (p < end && b[p] === DOT) {
    p++;
    const fractionStart = p;
    while (p < end) {
      const digit = b[p] - ZERO;
      if (digit < 0 || digit > 9) break;
      decimals++;
      if (decimals > decimalsMax) return -1;
      if (decimals > scale) {
        if (digit !== 0) return -1;
      } else {
        value = value * 10 + digit;
      }
      p++;
    }
    if (p === fractionStart) return -1;
  }
  if (p >= end || b[p] !== QUOTE || p - open - 1 > UNIT_TEXT_MAX) return -1;
  const scaled = value * POW10[scale - (decimals > scale ? scale : decimals)];
  if (scaled > Number.MAX_SAFE_INTEGER) return -1; // digits only: an integer >= 0, safe unless above this
  state.value = negative && scaled !== 0 ? -scaled : scaled;
  return p + 1;
}

/** Key id for a key the layout skips (unknown, or known and unused). */
export const KEY_SKIP = 0;

/**
 * The keys of one JSON object layout, in the order the exchange (and the simulator) writes them,
 * with the id each is read under (KEY_SKIP: skipped, listed only to match it fast). Ids are small
 * positive integers, one bit each in a scanner's `seen` mask (so at most 30).
 */
export class KeyLayout {
  /** `"name":` per layout position: the fast match, quotes and colon included. */
  readonly literals: Literal[];
  /** The bare name bytes per position: the general lookup for a key out of order. */
  readonly names: Uint8Array[];
  readonly ids: Int32Array;

  constructor(layout: ReadonlyArray<readonly [name: string, id: number]>) {
    this.literals = layout.map(([name]) => new Literal(`"${name}":`));
    this.names = layout.map(([name]) => new Uint8Array(Buffer.from(name, 'latin1')));
    this.ids = Int32Array.from(layout.map(([, id]) => id));
    for (const [, id] of layout) if (id < 0 || id > 30) throw new RangeError(`KeyLayout: id ${id} outside 0..30`);
  }

  /** Layout position of the key spelled b[start, end), -1 when the layout does not list it. */
  find(b: Buffer, start: number, end: number): number {
    const names = this.names;
    const length = end - start;
    for (let position = 0; position < names.length; position++) {
      const name = names[position];
      if (name.length !== length) continue;
      let i = 0;
      while (i < length && b[start + i] === name[i]) i++;
      if (i === length) return position;
    }
    return -1;
  }
}

/**
 * The member key whose opening quote is at p: first the layout's keys from position `expected`
 * on (the exchange's order, optional keys possibly left out), else the key is read and looked up. Sets `state.key` (an id,
 * KEY_SKIP for an unlisted key) and `state.expected` (the position after the key found; unchanged
 * for an unlisted key); returns the position after the colon, or -1 (an escaped, non-ASCII or
 * broken key: JSON.parse decodes those).
 */
export function nextKey(state: ScanState, b: Buffer, p: number, end: number, layout: KeyLayout, expected: number): number {
  const literals = layout.literals;
  // The expected key, or a later one (optional keys the message left out); the first letter
  // tells most misses apart in one compare.
  const first = p + 1 < end ? b[p + 1] : -1;
  for (let position = expected; position < literals.length; position++) {
    const literal = literals[position];
    if (literal.bytes[1] === first && matchLiteral(b, p, end, literal)) {
      state.key = layout.ids[position];
      state.expected = position + 1;
      return p + literal.length;
    }
  }
  const start = p + 1;
  p = readPlainString(state, b, p, end);
  if (p === -1) return -1;
  const position = layout.find(b, start, state.stringEnd);
  if (position === -1) {
    state.key = KEY_SKIP;
    state.expected = expected;
  } else {
    state.key = layout.ids[position];
    state.expected = position + 1;
  }
  p = skipWhitespace(b, p, end);
  return p < end && b[p] === COLON ? p + 1 : -1;
}

/**
 * The member loop every object scanner shares, first half: resets the state for an object whose
 * '{' is at p and returns where its first member starts (or its '}' is).
 */
export function beginObject(state: ScanState, b: Buffer, p: number, end: number): number {
  state.seen = 0;
  state.expected = 0;
  state.closed = false;
  return skipWhitespace(b, p + 1, end);
}

/**
 * Reads the member key at p (a quote is required: an empty object defers too) and the whitespace
 * after its colon; sets `state.key` and records it in `state.seen`. Returns the value's position,
 * or -1 to defer the frame (a broken key, or a key met twice: JSON.parse keeps the last one).
 */
export function beginMember(state: ScanState, b: Buffer, p: number, end: number, layout: KeyLayout): number {
  if (p >= end || b[p] !== QUOTE) return -1;
  p = nextKey(state, b, p, end, layout, state.expected);
  if (p === -1) return -1;
  p = skipWhitespace(b, p, end);
  if (p >= end) return -1;
  const key = state.key;
  if (key !== KEY_SKIP) {
    const bit = 1 << key;
    if ((state.seen & bit) !== 0) return -1;
    state.seen |= bit;
  }
  return p;
}

/**
 * Second half: after a member's value (p from its reader, -1 passes through), either the next
 * member's key position, or, with `state.closed` set, the position after the object's '}'; -1
 * when neither a comma nor the brace follows.
 */
export function endMember(state: ScanState, b: Buffer, p: number, end: number): number {
  if (p === -1) return -1;
  p = skipWhitespace(b, p, end);
  if (p >= end) return -1;
  const next = b[p];
  if (next === BRACE_CLOSE) {
    state.closed = true;
    return p + 1;
  }
  return next === COMMA ? skipWhitespace(b, p + 1, end) : -1;
}
