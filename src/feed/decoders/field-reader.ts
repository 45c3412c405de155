/**
 * Reads typed fields out of a JSON.parse'd message body into units, for every decoder except the
 * delta scanner. One reader is reused: `begin(body)`, read fields (each returns a sentinel when
 * the field is bad and records the first bad key), then check `ok`. Optional fields accept absent
 * or null. Never throws, never allocates except the strings JSON.parse already made.
 */

import {
  CENTICENTS_INVALID,
  COUNT_INVALID,
  PRICE_INVALID,
  parseCount,
  parseDollars,
  parsePrice,
  parseSignedCount,
  type Centicents,
  type Count,
  type Price,
} from '../../core/index.ts';

type Json = Record<string, unknown>;

/** A plain JSON object (not null, not an array). */
export function isObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** A non-negative safe integer, as ids, sids, seqs and timestamps must be. */
export function isIndex(value: unknown): value is number {
  return typeof value === 'number' && Number.isSafeInteger(value) && value >= 0;
}

export class FieldReader {
  ok = true;
  /** The first key that failed since `begin`, '' when none. */
  badKey = '';
  #body: Json = {};

  begin(body: Json): void {
    this.ok = true;
    this.badKey = '';
    this.#body = body;
  }

  fail(key: string): void {
    if (this.ok) {
      this.ok = false;
      this.badKey = key;
    }
  }

  has(key: string): boolean {
    const value = this.#body[key];
    return value !== undefined && value !== null;
  }

  raw(key: string): unknown {
    return this.#body[key];
  }

  /** Required non-empty string. */
  string(key: string): string {
    const value = this.#body[key];
    if (typeof value === 'string' && value.length > 0) return value;
    this.fail(key);
    return '';
  }

  /** Optional string (may be empty); `absent` when missing or null. */
  optString(key: string, absent: string): string {
    const value = this.#body[key];
    if (value === undefined || value === null) return absent;
    if (typeof value === 'string') return value;
    this.fail(key);
    return absent;
  }

  /** Required string among `choices`. */
  choice<T extends string>(key: string, choices: readonly T[]): T {
    const value = this.#body[key];
    if (typeof value === 'string' && (choices as readonly string[]).includes(value)) return value as T;
    this.fail(key);
    return choices[0];
  }

  /** Optional string among `choices`, else `absent`. */
  optChoice<T extends string, A>(key: string, choices: readonly T[], absent: A): T | A {
    const value = this.#body[key];
    if (value === undefined || value === null) return absent;
    if (typeof value === 'string' && (choices as readonly string[]).includes(value)) return value as T;
    this.fail(key);
    return absent;
  }

  bool(key: string): boolean {
    const value = this.#body[key];
    if (typeof value === 'boolean') return value;
    this.fail(key);
    return false;
  }

  optBool(key: string, absent: boolean): boolean {
    const value = this.#body[key];
    if (value === undefined || value === null) return absent;
    if (typeof value === 'boolean') return value;
    this.fail(key);
    return absent;
  }

  /** Required non-negative safe integer. */
  index(key: string): number {
    const value = this.#body[key];
    if (isIndex(value)) return value;
    this.fail(key);
    return -1;
  }

  /** Optional non-negative safe integer, else `absent`. */
  optIndex(key: string, absent: number): number {
    const value = this.#body[key];
    if (value === undefined || value === null) return absent;
    if (isIndex(value)) return value;
    this.fail(key);
    return absent;
  }

  price(key: string): Price {
    const value = this.#body[key];
    const price = typeof value === 'string' ? parsePrice(value) : PRICE_INVALID;
    if (price === PRICE_INVALID) this.fail(key);
    return price;
  }

  optPrice(key: string): Price {
    return this.has(key) ? this.price(key) : PRICE_INVALID;
  }

  count(key: string): Count {
    const value = this.#body[key];
    const count = typeof value === 'string' ? parseCount(value) : COUNT_INVALID;
    if (count === COUNT_INVALID) this.fail(key);
    return count;
  }

  optCount(key: string): Count {
    return this.has(key) ? this.count(key) : COUNT_INVALID;
  }

  signedCount(key: string): Count {
    const value = this.#body[key];
    const count = typeof value === 'string' ? parseSignedCount(value) : COUNT_INVALID;
    if (count === COUNT_INVALID) this.fail(key);
    return count;
  }

  optSignedCount(key: string): Count {
    return this.has(key) ? this.signedCount(key) : COUNT_INVALID;
  }

  dollars(key: string): Centicents {
    const value = this.#body[key];
    const money = typeof value === 'string' ? parseDollars(value) : CENTICENTS_INVALID;
    if (money === CENTICENTS_INVALID) this.fail(key);
    return money;
  }

  optDollars(key: string): Centicents {
    return this.has(key) ? this.dollars(key) : CENTICENTS_INVALID;
  }
}
