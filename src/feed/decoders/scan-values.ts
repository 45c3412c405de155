/**
 * Values the frame scanners read beyond json-bytes.ts's numbers: market tickers, resolved to the
 * TickerTable's interned string by their bytes (no string made for a known market); the per-order
 * strings of user_order and fill records (order ids, client order ids...), made from the frame's
 * bytes; outcome and book sides; optional fixed-point units. Printable ASCII is made into a string
 * straight from the bytes; a string with escapes is decoded by JSON.parse of its quoted bytes
 * (rare: the exchange writes plain ids); a byte >= 0x80 gives -1 (the JSON path then checks UTF-8
 * and decodes), except inside a known ticker (json-bytes.ts). Each returns the position after the
 * value, or -1 to defer the frame to the JSON path.
 */

import {
  BACKSLASH,
  HASH_PRIME,
  HASH_SEED,
  QUOTE,
  hashFinish,
  matchLiteral,
  readFixed,
  readNull,
  readPlainString,
  skipString,
  skipValue,
  stringLiteral,
  tickerStops,
  wordAt,
  type ScanState,
} from './json-bytes.ts';
import type { BookSide, OutcomeSide } from '../../core/index.ts';
import type { MarketRegistry } from '../../market/index.ts';

/**
 * The ticker string whose opening quote is at p: `state.index` gets its TickerTable index (-1 when
 * unknown) and `state.text` the table's interned string, or for an unknown market a new string.
 * Returns the position after the closing quote, or -1 (empty, broken, or unknown with non-ASCII
 * bytes: the JSON path decides).
 */
export function readTicker(state: ScanState, b: Buffer, p: number, end: number, tickers: MarketRegistry): number {
  const start = p + 1;
  // A word at a time while no byte ends the run, hashing as hashBytes does; then byte by byte.
  let hash = HASH_SEED;
  let high = 0;
  let q = start;
  while (q + 4 <= end) {
    const word = wordAt(b, q);
    if (tickerStops(word) !== 0) break;
    high |= word;
    hash = Math.imul(hash ^ word, HASH_PRIME);
    q += 4;
  }
  while (q < end) {
    const code = b[q];
    if (code === QUOTE) break;
    if (code === BACKSLASH || code < 0x20) return readEscapedTicker(state, b, p, end, tickers);
    high |= code;
    hash = Math.imul(hash ^ code, HASH_PRIME);
    q++;
  }
  if (q >= end || q === start) return -1;
  const index = tickers.find(b, start, q, hashFinish(hash, q - start));
  state.index = index;
  if (index !== -1) {
    state.text = tickers.tickerAt(index);
    return q + 1;
  }
  if ((high & 0x80808080) !== 0) return -1;
  // A market the feed does not know: its string, made once per frame.
  state.text = b.toString('latin1', start, q);
  return q + 1;
}

function readEscapedTicker(state: ScanState, b: Buffer, p: number, end: number, tickers: MarketRegistry): number {
  const close = skipString(b, p, end, false);
  if (close === -1) return -1;
  const text = JSON.parse(b.toString('latin1', p, close)) as string;
  if (text.length === 0) return -1;
  const table = tickers;
  const index = table.indexOf(text);
  state.index = index;
  state.text = index === -1 ? text : table.tickerAt(index);
  return close;
}

/** The string value at p into `state.text` ('' for ""), made from its bytes; -1 when p holds no string or one the JSON path must decode. */
export function readText(state: ScanState, b: Buffer, p: number, end: number): number {
  if (p >= end || b[p] !== QUOTE) return -1;
  const close = readPlainString(state, b, p, end);
  if (close !== -1) {
    state.text = close === p + 2 ? '' : b.toString('latin1', p + 1, state.stringEnd);
    return close;
  }
  const after = skipString(b, p, end, false);
  if (after === -1) return -1;
  state.text = JSON.parse(b.toString('latin1', p, after)) as string;
  return after;
}

/** null ('') or a string, into `state.text`. */
export function readOptionalText(state: ScanState, b: Buffer, p: number, end: number): number {
  if (p < end && b[p] === 0x6e) {
    state.text = '';
    return readNull(b, p, end);
  }
  return readText(state, b, p, end);
}

export const LITERAL_YES = stringLiteral('yes');
export const LITERAL_NO = stringLiteral('no');
export const LITERAL_BID = stringLiteral('bid');
export const LITERAL_ASK = stringLiteral('ask');

/** Side codes of the scan: -1 absent (or null), 0 yes / bid, 1 no / ask, 2 present but not yes/no. */
export const ABSENT = -1;
const INVALID = 2;

/** "yes" (0) / "no" (1) at p into `state.value`; the position after it, or -1. */
export function readOutcome(state: ScanState, b: Buffer, p: number, end: number): number {
  if (matchLiteral(b, p, end, LITERAL_YES)) {
    state.value = 0;
    return p + 5;
  }
  if (matchLiteral(b, p, end, LITERAL_NO)) {
    state.value = 1;
    return p + 4;
  }
  return -1;
}

/** "bid" (0) / "ask" (1) at p into `state.value`; the position after it, or -1. */
export function readBookSide(state: ScanState, b: Buffer, p: number, end: number): number {
  if (matchLiteral(b, p, end, LITERAL_BID)) {
    state.value = 0;
    return p + 5;
  }
  if (matchLiteral(b, p, end, LITERAL_ASK)) {
    state.value = 1;
    return p + 5;
  }
  return -1;
}

/** null, or an outcome side: `state.value` ABSENT, 0 or 1. */
export function readOptionalOutcome(state: ScanState, b: Buffer, p: number, end: number): number {
  if (b[p] !== QUOTE) {
    state.value = ABSENT;
    return readNull(b, p, end);
  }
  return readOutcome(state, b, p, end);
}

/** null, or a book side: `state.value` ABSENT, 0 or 1. */
export function readOptionalBookSide(state: ScanState, b: Buffer, p: number, end: number): number {
  if (b[p] !== QUOTE) {
    state.value = ABSENT;
    return readNull(b, p, end);
  }
  return readBookSide(state, b, p, end);
}

/**
 * The deprecated `side`, read only when outcome_side is absent (so any value is allowed here):
 * `state.value` 0 / 1 for "yes" / "no", ABSENT for null, INVALID for anything else.
 */
export function readDeprecatedSide(state: ScanState, b: Buffer, p: number, end: number): number {
  const after = readOutcome(state, b, p, end);
  if (after !== -1) return after;
  state.value = b[p] === 0x6e && readNull(b, p, end) !== -1 ? ABSENT : INVALID;
  return skipValue(b, p, end, 1, false);
}

/** null (`absent`) or fixed-point text into `state.value`. */
export function readOptionalFixed(state: ScanState, b: Buffer, p: number, end: number, scale: number, decimalsMax: number, signed: boolean, absent: number): number {
  if (b[p] !== QUOTE) {
    state.value = absent;
    return readNull(b, p, end);
  }
  return readFixed(state, b, p, end, scale, decimalsMax, signed);
}

/**
 * Sets the record's outcome and book side from what the scan read (outcome_side, the deprecated
 * side, book_side; ABSENT where missing) as readUserOrder / readFill settle them; false when the
 * frame must take the JSON path.
 */
export function settleSides(outcome: number, side: number, bookSide: number, out: { outcomeSide: OutcomeSide; bookSide: BookSide }): boolean {
  const settled = outcome !== ABSENT ? outcome : side === 0 || side === 1 ? side : -1;
  if (settled === -1) return false;
  out.outcomeSide = settled === 0 ? 'yes' : 'no';
  out.bookSide = (bookSide === ABSENT ? settled : bookSide) === 0 ? 'bid' : 'ask';
  return true;
}
