/**
 * Query-string decoding. Array parameters arrive as repeated keys (the TS client:
 * `tickers=A&tickers=B`) or comma lists (the docs: `tickers=A,B`); both are accepted
 * (spec/rest.md §10). Integers are scanned, never parsed through floats; bad values are a 400
 * with the bare {"msg"} shape the exchange uses for query validation (rest.md §2). Sizes are
 * bounded (bounds.ts): the raw query string, each value and list item, and the items of a list.
 * This file never sees bodies.
 */

import { QUERY_BYTES_MAX, QUERY_LIST_ITEMS_MAX, QUERY_VALUE_CHARS_MAX, shown } from './bounds.ts';
import { msgError, RestError } from './reply.ts';

export class Query {
  readonly #values = new Map<string, string[]>();

  constructor(raw: string) {
    if (raw === '') return;
    if (raw.length > QUERY_BYTES_MAX) throw new RestError(msgError(`query string exceeds ${QUERY_BYTES_MAX} bytes`));
    for (const part of raw.split('&')) {
      if (part === '') continue;
      const eq = part.indexOf('=');
      const name = decodeComponent(eq < 0 ? part : part.slice(0, eq));
      const value = eq < 0 ? '' : decodeComponent(part.slice(eq + 1));
      const list = this.#values.get(name);
      if (list === undefined) this.#values.set(name, [value]);
      else list.push(value);
    }
  }

  has(name: string): boolean {
    return this.#values.has(name);
  }

  /** The last value of a parameter, or null when absent or empty; 400 above 200 characters. */
  string(name: string): string | null {
    const list = this.#values.get(name);
    if (list === undefined) return null;
    const value = list[list.length - 1];
    if (value.length > QUERY_VALUE_CHARS_MAX) throw new RestError(msgError(`${name} must be at most ${QUERY_VALUE_CHARS_MAX} characters, got ${value.length}`));
    return value === '' ? null : value;
  }

  /**
   * The page cursor. A garbage cursor is a silent 200 (rest.md §8; the engine reads it as the
   * first page), and so is an over-long one: it is dropped here rather than refused.
   */
  cursor(): string | null {
    const list = this.#values.get('cursor');
    if (list === undefined) return null;
    const value = list[list.length - 1];
    return value === '' || value.length > QUERY_VALUE_CHARS_MAX ? null : value;
  }

  /**
   * Every value, repeated keys and comma lists flattened, empties dropped; null when absent.
   * 400 above `maxItems` items or an item above 200 characters.
   */
  list(name: string, maxItems = QUERY_LIST_ITEMS_MAX): string[] | null {
    const list = this.#values.get(name);
    if (list === undefined) return null;
    const out: string[] = [];
    for (const value of list) {
      for (const item of value.split(',')) {
        if (item === '') continue;
        if (item.length > QUERY_VALUE_CHARS_MAX) throw new RestError(msgError(`${name} items must be at most ${QUERY_VALUE_CHARS_MAX} characters, got ${item.length}`));
        if (out.length === maxItems) throw new RestError(msgError(`${name} takes at most ${maxItems} items`));
        out.push(item);
      }
    }
    return out.length === 0 ? null : out;
  }

  /** A non-negative integer parameter (or signed when `allowNegative`); null when absent. */
  integer(name: string, allowNegative = false): number | null {
    const text = this.string(name);
    if (text === null) return null;
    const value = scanInteger(text, allowNegative);
    if (value === null) throw new RestError(msgError(`invalid value for ${name}: ${shown(text)}`));
    return value;
  }

  boolean(name: string): boolean | null {
    const text = this.string(name);
    if (text === null) return null;
    if (text === 'true') return true;
    if (text === 'false') return false;
    throw new RestError(msgError(`invalid value for ${name}: ${shown(text)}`));
  }

  /** One of `allowed`, or null when absent. */
  oneOf<T extends string>(name: string, allowed: readonly T[]): T | null {
    const text = this.string(name);
    if (text === null) return null;
    if (!(allowed as readonly string[]).includes(text)) {
      throw new RestError(msgError(`invalid value for ${name}: ${shown(text)}; allowed: ${allowed.join(', ')}`));
    }
    return text as T;
  }

  /** The page limit: default when absent, 400 {"msg"} outside 1..max (never clamped, rest.md §8). */
  limit(defaultLimit: number, max: number, min = 1): number {
    const value = this.integer('limit');
    if (value === null) return defaultLimit;
    if (value < min || value > max) throw new RestError(msgError(`limit must be between ${min} and ${max}, got ${value}`));
    return value;
  }
}

function decodeComponent(text: string): string {
  const plain = text.indexOf('+') < 0 ? text : text.replace(/\+/g, ' ');
  if (plain.indexOf('%') < 0) return plain;
  try {
    return decodeURIComponent(plain);
  } catch {
    throw new RestError(msgError(`malformed percent-encoding in query: ${shown(text)}`));
  }
}

/** Decimal digits (optional '-'), at most 15 of them; null otherwise. */
export function scanInteger(text: string, allowNegative: boolean): number | null {
  let i = 0;
  let negative = false;
  if (allowNegative && text.charCodeAt(0) === 0x2d) {
    negative = true;
    i = 1;
  }
  if (i >= text.length || text.length - i > 15) return null;
  let value = 0;
  for (; i < text.length; i++) {
    const digit = text.charCodeAt(i) - 0x30;
    if (digit < 0 || digit > 9) return null;
    value = value * 10 + digit;
  }
  return negative ? -value : value;
}
