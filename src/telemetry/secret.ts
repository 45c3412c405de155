// A secret value (API key material, tokens) that cannot leak by accident: JSON.stringify, String(),
// template literals and util.inspect all print "[Redacted]"; only `reveal()` returns the text.
// This backs up the logger's path-based redaction, which only covers field names it knows and
// depths it lists. Owns nothing else: it never reads files or the environment.

import { inspect } from 'node:util';

export const REDACTED = '[Redacted]';

export class Secret {
  readonly #value: string;

  constructor(value: string) {
    this.#value = value;
  }

  /** The secret text. Call it only where the value is used (signing, a header), never to log. */
  reveal(): string {
    return this.#value;
  }

  get length(): number {
    return this.#value.length;
  }

  toJSON(): string {
    return REDACTED;
  }

  toString(): string {
    return REDACTED;
  }

  [Symbol.toPrimitive](): string {
    return REDACTED;
  }

  [inspect.custom](): string {
    return REDACTED;
  }
}
