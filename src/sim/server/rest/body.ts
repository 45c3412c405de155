/**
 * Typed reads of a decoded JSON request body. The exchange decodes bodies into typed structs, so a
 * field of the wrong JSON type (a number where a fixed-point string is required, rest.md §3 and
 * §10) fails decoding: 400 in the flat bad_request shape. A field with the right type but an
 * unusable value (bad enum, malformed price text, an id or ticker outside its bounds in bounds.ts)
 * is a nested 400 naming the field. Prices and counts are scanned with core's parsers, never
 * through floats. Error messages never echo more than 64 characters of what was sent. This file
 * never looks at routes.
 */

import { COUNT_INVALID, PRICE_INVALID, parseCount, parsePrice, type Count, type Price } from '../../../core/index.ts';
import { CLIENT_ORDER_ID_CHARS_MAX, ID_CHARS_MAX, isPrintableId, shown, TICKER_CHARS_MAX } from './bounds.ts';
import { flatError, invalidField, nestedError, RestError, undecodableField } from './reply.ts';

export class BodyReader {
  readonly #object: Record<string, unknown>;
  /** Prefix for field names in messages (batch items: `orders[3].`). */
  readonly #prefix: string;

  constructor(value: unknown, prefix = '') {
    if (typeof value !== 'object' || value === null || Array.isArray(value)) {
      throw new RestError(flatError(400, 'bad_request', `json: cannot decode ${prefix === '' ? 'request body' : prefix} into an object`));
    }
    this.#object = value as Record<string, unknown>;
    this.#prefix = prefix;
  }

  has(name: string): boolean {
    const value = this.#object[name];
    return value !== undefined && value !== null;
  }

  string(name: string, required: true): string;
  string(name: string, required: false): string | null;
  string(name: string, required: boolean): string | null {
    const value = this.#object[name];
    if (value === undefined || value === null) {
      if (required) throw this.#missing(name);
      return null;
    }
    if (typeof value !== 'string') throw undecodableField(this.#prefix + name, 'string');
    return value;
  }

  boolean(name: string): boolean | null {
    const value = this.#object[name];
    if (value === undefined || value === null) return null;
    if (typeof value !== 'boolean') throw undecodableField(this.#prefix + name, 'boolean');
    return value;
  }

  /** A JSON integer (no fraction); null when absent. */
  integer(name: string): number | null {
    const value = this.#object[name];
    if (value === undefined || value === null) return null;
    if (typeof value !== 'number' || !Number.isSafeInteger(value)) throw undecodableField(this.#prefix + name, 'integer');
    return value;
  }

  array(name: string, required: boolean): unknown[] | null {
    const value = this.#object[name];
    if (value === undefined || value === null) {
      if (required) throw this.#missing(name);
      return null;
    }
    if (!Array.isArray(value)) throw undecodableField(this.#prefix + name, 'array');
    return value;
  }

  oneOf<T extends string>(name: string, allowed: readonly T[], required: true): T;
  oneOf<T extends string>(name: string, allowed: readonly T[], required: false): T | null;
  oneOf<T extends string>(name: string, allowed: readonly T[], required: boolean): T | null {
    const value = required ? this.string(name, true) : this.string(name, false);
    if (value === null) return null;
    if (!(allowed as readonly string[]).includes(value)) {
      throw invalidField(this.#prefix + name, `invalid ${name} ${shown(value)}; allowed: ${allowed.join(', ')}`);
    }
    return value as T;
  }

  /**
   * A client order id (client_order_id, updated_client_order_id): 1-64 printable ASCII characters
   * without space (bounds.ts); null when absent or empty (empty means "none", as before).
   */
  clientOrderId(name: string): string | null {
    const value = this.string(name, false);
    if (value === null || value === '') return null;
    if (!isPrintableId(value, CLIENT_ORDER_ID_CHARS_MAX)) {
      throw invalidField(this.#prefix + name, `${name} must be 1-${CLIENT_ORDER_ID_CHARS_MAX} printable ASCII characters without spaces, got ${shown(value)}`);
    }
    return value;
  }

  /** An id the exchange made (order_id, order_group_id): at most 64 printable ASCII characters (bounds.ts). */
  id(name: string, required: true): string;
  id(name: string, required: false): string | null;
  id(name: string, required: boolean): string | null {
    const value = required ? this.string(name, true) : this.string(name, false);
    if (value === null || (value === '' && !required)) return value;
    if (!isPrintableId(value, ID_CHARS_MAX)) {
      throw invalidField(this.#prefix + name, `${name} must be 1-${ID_CHARS_MAX} printable ASCII characters without spaces, got ${shown(value)}`);
    }
    return value;
  }

  /** A market ticker: at most 200 characters (bounds.ts). Emptiness is the caller's rule. */
  ticker(name: string, required: true): string;
  ticker(name: string, required: false): string | null;
  ticker(name: string, required: boolean): string | null {
    const value = required ? this.string(name, true) : this.string(name, false);
    if (value !== null && value.length > TICKER_CHARS_MAX) {
      throw invalidField(this.#prefix + name, `${name} must be at most ${TICKER_CHARS_MAX} characters, got ${value.length}`);
    }
    return value;
  }

  /** A dollar price string ("0.56", "0.5600"); grid checks are the engine's. */
  price(name: string, required: true): Price;
  price(name: string, required: false): Price | null;
  price(name: string, required: boolean): Price | null {
    const text = required ? this.string(name, true) : this.string(name, false);
    if (text === null) return null;
    const price = parsePrice(text);
    if (price === PRICE_INVALID) {
      throw new RestError(nestedError(400, 'invalid_price', `${name} must be a dollar string with at most 4 decimals, got ${shown(text)}`, this.#prefix + name));
    }
    return price;
  }

  /** A fixed-point contract count string ("10", "10.00"); at most 2 decimals. */
  count(name: string, required: true): Count;
  count(name: string, required: false): Count | null;
  count(name: string, required: boolean): Count | null {
    const text = required ? this.string(name, true) : this.string(name, false);
    if (text === null) return null;
    const count = parseCount(text);
    if (count === COUNT_INVALID) {
      throw new RestError(nestedError(400, 'invalid_order_size', `${name} must be a contract count with at most 2 decimals, got ${shown(text)}`, this.#prefix + name));
    }
    return count;
  }

  /** A subaccount number 0-63; null when absent. */
  subaccount(name = 'subaccount'): number | null {
    const value = this.integer(name);
    if (value === null) return null;
    if (value < 0 || value > 63) throw invalidField(this.#prefix + name, `${name} must be 0-63, got ${value}`);
    return value;
  }

  #missing(name: string): RestError {
    return new RestError(nestedError(400, 'bad_request', `missing required field ${this.#prefix + name}`, this.#prefix + name));
  }
}

/**
 * Decodes request bytes as a JSON value. Empty or non-JSON text is a flat 400 bad_request
 * (rest.md §2); the caller handles the missing-body case (invalid_content_type) before this.
 */
export function decodeJsonBody(bytes: Buffer): unknown {
  const text = bytes.toString('utf8');
  try {
    return JSON.parse(text) as unknown;
  } catch (error) {
    throw new RestError(flatError(400, 'bad_request', `invalid JSON body: ${(error as Error).message}`));
  }
}
