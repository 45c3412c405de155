/**
 * Text written as bytes straight into a caller's buffer, for the writers on the order path (request
 * bodies, client order ids, the journal's lines), so they build no strings: ASCII as bytes,
 * integers and fixed-point numbers as decimal digits (the text units.ts's format functions give),
 * and JSON string literals. Each function writes at `at` and returns the offset after what it
 * wrote; the caller has made sure of the room (`jsonStringBytesMax` bounds a JSON string). Owns
 * byte encoding only; never grows a buffer or does I/O.
 */

const QUOTE = 0x22;
const MINUS = 0x2d;
const DOT = 0x2e;
const ZERO = 0x30;

/** Decimal digits of a non-negative safe integer (1 for 0). */
export function decimalDigits(value: number): number {
  // Comparisons for what fits in 32 bits (prices, counts, counters, lengths): the division loop
  // costs a floating-point division per digit.
  if (value < 1e9) {
    if (value < 1e4) return value < 10 ? 1 : value < 100 ? 2 : value < 1e3 ? 3 : 4;
    return value < 1e5 ? 5 : value < 1e6 ? 6 : value < 1e7 ? 7 : value < 1e8 ? 8 : 9;
  }
  let digits = 1;
  for (let rest = value; rest >= 10; rest = Math.floor(rest / 10)) digits++;
  return digits;
}

/** A non-negative safe integer's decimal digits, exactly `digits` of them (leading zeros as needed). */
function writeDigits(out: Buffer, at: number, value: number, digits: number): number {
  if (value <= 0x7fffffff) {
    // 32-bit integer division by the constant 10, which the JIT makes a multiply and a shift
    // (measured: the body writer's numbers ~2x faster than through floating-point division).
    let small = value | 0;
    for (let i = at + digits - 1; i >= at; i--) {
      const tenth = (small / 10) | 0;
      out[i] = ZERO + small - tenth * 10;
      small = tenth;
    }
    return at + digits;
  }
  let rest = value;
  for (let i = at + digits - 1; i >= at; i--) {
    out[i] = ZERO + (rest % 10);
    rest = Math.floor(rest / 10);
  }
  return at + digits;
}

/** ASCII text (constant keys and punctuation: the caller knows every character is below 0x80), byte per character. */
export function writeAscii(out: Buffer, at: number, text: string): number {
  for (let i = 0; i < text.length; i++) out[at++] = text.charCodeAt(i);
  return at;
}

/**
 * Constant ASCII text as bytes, made once (module load): writeBytes copies them with one
 * TypedArray set, about half the time of writeAscii's character loop for the JSON keys of an order
 * body (bench/hot-path's exec hop).
 */
export function asciiConst(text: string): Uint8Array {
  for (let i = 0; i < text.length; i++) if (text.charCodeAt(i) > 0x7f) throw new RangeError(`asciiConst: not ASCII: ${JSON.stringify(text)}`);
  return new Uint8Array(Buffer.from(text, 'latin1'));
}

/** `bytes` (an asciiConst) at `at`: the offset after them. The caller has the room. */
export function writeBytes(out: Buffer, at: number, bytes: Uint8Array): number {
  out.set(bytes, at);
  return at + bytes.length;
}

/** A safe integer in decimal, '-' when negative: the text `${value}` gives (17 bytes at most). */
export function writeInteger(out: Buffer, at: number, value: number): number {
  if (value < 0) {
    out[at++] = MINUS;
    value = -value;
  }
  return writeDigits(out, at, value, decimalDigits(value));
}

/** 10^k for the decimals the writers use (counts 2, prices 4, dollars up to 6). */
const POW10 = new Int32Array([1, 10, 100, 1_000, 10_000, 100_000, 1_000_000, 10_000_000, 100_000_000]);

/**
 * A safe integer in units of 10^-decimals as fixed point, always `decimals` decimals, '-' when
 * negative: formatPrice (4) and formatCount (2) as bytes, e.g. 5600, 4 -> "0.5600".
 */
export function writeFixed(out: Buffer, at: number, value: number, decimals: number): number {
  if (value < 0) {
    out[at++] = MINUS;
    value = -value;
  }
  // A table and 32-bit division for what fits (every price and order count): `10 ** decimals`
  // and a floating-point division cost ~4x as much (two numbers in each order body).
  const unitsPerOne = decimals < POW10.length ? POW10[decimals]! : 10 ** decimals;
  const whole = value <= 0x7fffffff && decimals < POW10.length ? ((value | 0) / unitsPerOne) | 0 : Math.floor(value / unitsPerOne);
  at = writeDigits(out, at, whole, decimalDigits(whole));
  out[at++] = DOT;
  return writeDigits(out, at, value - whole * unitsPerOne, decimals);
}

/** Bytes a JSON string literal of `text` takes at most: quotes, and six per UTF-16 unit (\uXXXX; UTF-8 takes at most three). */
export function jsonStringBytesMax(text: string): number {
  return text.length * 6 + 2;
}

/**
 * A JSON string literal of `text`: printable ASCII without '"' or '\' (every real ticker, id and
 * UUID) as bytes between quotes; anything else through JSON.stringify, which escapes quotes,
 * controls and lone surrogates (rare: it allocates).
 */
export function writeJsonString(out: Buffer, at: number, text: string): number {
  // One pass: each character checked and written; at the first that needs escaping, the whole
  // literal is written again from the start by JSON.stringify.
  const start = at;
  out[at++] = QUOTE;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code < 0x20 || code > 0x7e || code === QUOTE || code === 0x5c) return start + out.write(JSON.stringify(text), start, 'utf8');
    out[at++] = code;
  }
  out[at++] = QUOTE;
  return at;
}
