/**
 * Fixed-point units: prices in 1/10,000 dollar, counts in 1/100 contract, money in cents and
 * centicents (1/10,000 dollar), all plain integers behind brands that stop them being mixed up at
 * no runtime cost. Text becomes a number by scanning characters, never through a float, so
 * "0.5600" is 5600 exactly. This file owns parsing, formatting and checked casts; it never knows
 * about grids (a parsed price may still be off a market's grid) or markets.
 *
 * Accepted text, for every parser here (decided, tested in test/core/units.test.ts):
 *   one or more digits, optionally '.' and one or more digits ("1", "0.5", "0.5600", leading zeros
 *   allowed). Rejected: "" "." ".5" "1." " 1" "1 " "+1" "1e3" "0x1" "0.5.6" and too many decimals.
 *   A leading '-' only where the parser says signed. The value must be a safe integer in its unit.
 * Parsers return a sentinel on bad input (hot path: no throw, no allocation); the require* variants
 * throw a UnitError naming the field, for configuration and REST.
 */

declare const unit: unique symbol;
export type Price = number & { readonly [unit]: 'Price' }; // 1/10,000 dollar
export type Count = number & { readonly [unit]: 'Count' }; // 1/100 contract; signed for deltas and positions
export type Cents = number & { readonly [unit]: 'Cents' };
export type Centicents = number & { readonly [unit]: 'Centicents' }; // 1/10,000 dollar

export const PRICE_ONE = 10_000 as Price;
export const PRICE_INVALID = -1 as Price;
/** Counts may be negative, so the sentinel is the most negative safe integer. */
export const COUNT_INVALID = Number.MIN_SAFE_INTEGER as Count;
export const CENTICENTS_INVALID = Number.MIN_SAFE_INTEGER as Centicents;

/** A failure a caller may branch on: bad unit text or a number that is not a safe integer. */
export class UnitError extends Error {
  readonly code: 'UNIT_INVALID' = 'UNIT_INVALID';
  /** The field (or function) whose value was bad. */
  readonly field: string;
  constructor(field: string, message: string) {
    super(`${field}: ${message}`);
    this.name = 'UnitError';
    this.field = field;
  }
}

// The longest text worth scanning: 16 significant digits already exceed a safe integer.
const TEXT_LENGTH_MAX = 40;
const POW10 = [1, 10, 100, 1_000, 10_000, 100_000, 1_000_000];
const CODE_ZERO = 0x30;
const CODE_DOT = 0x2e;
const CODE_MINUS = 0x2d;

/**
 * Scans fixed-point text into an integer of `scale` decimals. Up to `decimalsMax` decimals are
 * accepted; decimals beyond `scale` must be '0' (money strings carry 6 decimals, 2 of them zero).
 * Returns NaN when the text is malformed or the result is not a safe integer.
 */
function scanFixed(text: string, scale: number, decimalsMax: number, signed: boolean): number {
  const length = text.length;
  if (length === 0 || length > TEXT_LENGTH_MAX) return NaN;
  let i = 0;
  let negative = false;
  if (signed && text.charCodeAt(0) === CODE_MINUS) {
    negative = true;
    i = 1;
  }
  let value = 0;
  let integerDigits = 0;
  for (; i < length; i++) {
    const code = text.charCodeAt(i);
    if (code === CODE_DOT) break;
    const digit = code - CODE_ZERO;
    if (digit < 0 || digit > 9) return NaN;
    value = value * 10 + digit;
    integerDigits++;
  }
  if (integerDigits === 0) return NaN;
  let decimals = 0;
  if (i < length) {
    i++; // past '.'
    if (i === length) return NaN; // "1." has no decimal digit
    for (; i < length; i++) {
      const digit = text.charCodeAt(i) - CODE_ZERO;
      if (digit < 0 || digit > 9) return NaN; // also a second '.'
      decimals++;
      if (decimals > decimalsMax) return NaN;
      if (decimals > scale) {
        if (digit !== 0) return NaN;
      } else {
        value = value * 10 + digit;
      }
    }
  }
  const scaled = value * POW10[scale - (decimals > scale ? scale : decimals)];
  if (!Number.isSafeInteger(scaled)) return NaN;
  if (!negative || scaled === 0) return scaled; // "-0.00" is 0, never -0
  return -scaled;
}

/** "0.56" | "0.5600" | "1" | "0" -> 5600 ...; at most 4 decimals, no sign or exponent; else PRICE_INVALID. */
export function parsePrice(text: string): Price {
  const value = scanFixed(text, 4, 4, false);
  return (value === value ? value : PRICE_INVALID) as Price;
}

/** Unsigned "10" | "10.0" | "10.00" -> 1000; at most 2 decimals; else COUNT_INVALID. */
export function parseCount(text: string): Count {
  const value = scanFixed(text, 2, 2, false);
  return (value === value ? value : COUNT_INVALID) as Count;
}

/** Like parseCount with an optional leading '-': "-40.00" -> -4000 (book deltas, positions). */
export function parseSignedCount(text: string): Count {
  const value = scanFixed(text, 2, 2, true);
  return (value === value ? value : COUNT_INVALID) as Count;
}

/**
 * Signed dollar money into centicents: "0.0175" -> 175, "-12.5" -> -125000. Up to 6 decimals are
 * accepted only when digits 5-6 are 0 ("0.017500" -> 175): a sub-centicent amount cannot be held
 * exactly, so it is rejected rather than rounded. Else CENTICENTS_INVALID.
 */
export function parseDollars(text: string): Centicents {
  const value = scanFixed(text, 4, 6, true);
  return (value === value ? value : CENTICENTS_INVALID) as Centicents;
}

function pad(value: number, width: number): string {
  const text = String(value);
  return text.length >= width ? text : '0000'.slice(0, width - text.length) + text;
}

/** Integer part and `width` decimals of a non-negative safe integer in units of 10^-width. */
function formatFixed(value: number, width: number): string {
  const unitsPerOne = POW10[width];
  const whole = Math.floor(value / unitsPerOne);
  return `${whole}.${pad(value - whole * unitsPerOne, width)}`;
}

/** Always 4 decimals: 5600 -> "0.5600", 10_000 -> "1.0000". Throws UnitError for a negative or unsafe price. */
export function formatPrice(price: Price): string {
  if (!Number.isSafeInteger(price) || price < 0) throw new UnitError('formatPrice', `not a price: ${price}`);
  return formatFixed(price, 4);
}

/** Always 2 decimals, '-' when negative: 5400 -> "54.00", -4000 -> "-40.00". */
export function formatCount(count: Count): string {
  if (!Number.isSafeInteger(count)) throw new UnitError('formatCount', `not a count: ${count}`);
  return count < 0 ? `-${formatFixed(-count, 2)}` : formatFixed(count, 2);
}

/** Centicents as dollars: 175 -> "0.0175" (or "0.017500" with decimals 6), '-' when negative. */
export function formatDollars(value: Centicents, decimals: 4 | 6 = 4): string {
  if (!Number.isSafeInteger(value)) throw new UnitError('formatDollars', `not centicents: ${value}`);
  const text = value < 0 ? `-${formatFixed(-value, 4)}` : formatFixed(value, 4);
  return decimals === 6 ? `${text}00` : text;
}

/** Legacy integer cents (1..99 on the wire) -> price: 56 -> 5600. Throws UnitError for an unsafe or negative number. */
export function priceFromCents(cents: number): Price {
  if (!Number.isSafeInteger(cents) || cents < 0) throw new UnitError('priceFromCents', `not integer cents: ${cents}`);
  const price = cents * 100;
  if (!Number.isSafeInteger(price)) throw new UnitError('priceFromCents', `out of range: ${cents}`);
  return price as Price;
}

function checkSafe(n: number, what: string): void {
  if (!Number.isSafeInteger(n)) throw new UnitError(what, `not a safe integer: ${n}`);
}

/** Checked casts: throw UnitError when `n` is not a safe integer (an int64 that lost precision, NaN, a fraction). */
export function asPrice(n: number): Price {
  checkSafe(n, 'asPrice');
  return n as Price;
}
export function asCount(n: number): Count {
  checkSafe(n, 'asCount');
  return n as Count;
}
export function asCents(n: number): Cents {
  checkSafe(n, 'asCents');
  return n as Cents;
}
export function asCenticents(n: number): Centicents {
  checkSafe(n, 'asCenticents');
  return n as Centicents;
}

function quote(text: unknown): string {
  return typeof text === 'string' ? JSON.stringify(text) : String(text);
}

/** Throwing parsePrice for config and REST: the UnitError names `field` and the bad text. */
export function requirePrice(text: string, field: string): Price {
  const price = typeof text === 'string' ? parsePrice(text) : PRICE_INVALID;
  if (price === PRICE_INVALID) throw new UnitError(field, `expected a dollar price with at most 4 decimals, got ${quote(text)}`);
  return price;
}

/** Throwing parseCount (unsigned). */
export function requireCount(text: string, field: string): Count {
  const count = typeof text === 'string' ? parseCount(text) : COUNT_INVALID;
  if (count === COUNT_INVALID) throw new UnitError(field, `expected a contract count with at most 2 decimals, got ${quote(text)}`);
  return count;
}

/** Throwing parseSignedCount. */
export function requireSignedCount(text: string, field: string): Count {
  const count = typeof text === 'string' ? parseSignedCount(text) : COUNT_INVALID;
  if (count === COUNT_INVALID) throw new UnitError(field, `expected a signed contract count with at most 2 decimals, got ${quote(text)}`);
  return count;
}

/** Throwing parseDollars. */
export function requireDollars(text: string, field: string): Centicents {
  const value = typeof text === 'string' ? parseDollars(text) : CENTICENTS_INVALID;
  if (value === CENTICENTS_INVALID) throw new UnitError(field, `expected dollars with at most 4 significant decimals, got ${quote(text)}`);
  return value;
}

/**
 * Money of `count` contracts at `price`: price (1/10,000 $) x count (1/100 contract) is in
 * 1/1,000,000 $, so centicents = price * count / 100. Exact when divisible; otherwise rounded up
 * (toward +infinity) because callers use it for costs and limits, where over-estimating is the safe
 * side. Throws UnitError when the product is not a safe integer.
 */
export function notionalCenticents(price: Price, count: Count): Centicents {
  const product = price * count;
  if (!Number.isSafeInteger(product)) throw new UnitError('notionalCenticents', `product not a safe integer: ${price} x ${count}`);
  // Integer arithmetic, not Math.ceil(product / 100): `%` is exact on safe integers, a float quotient is not.
  const remainder = product % 100; // same sign as product
  const value = (product - remainder) / 100 + (remainder > 0 ? 1 : 0);
  return (value === 0 ? 0 : value) as Centicents; // never -0
}
