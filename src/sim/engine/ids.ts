/**
 * Deterministic, uuid-shaped ids for orders, fills/trades and order groups: a per-engine prefix
 * drawn from the seed plus a hex counter, so ids are unique within a run, reproducible across runs
 * with the same seed, and cost one string build each.
 */

import type { SeededRandom } from '../../core/index.ts';

export class IdSource {
  readonly #prefix: string;
  #counter: number;

  constructor(random: SeededRandom) {
    const a = random.nextHex8();
    const b = random.nextHex8();
    const c = random.nextHex8();
    // xxxxxxxx-xxxx-4xxx-8xxx-<12 hex counter>: version 4, variant 10 like a random uuid.
    this.#prefix = `${a}-${b.slice(0, 4)}-4${b.slice(5, 8)}-8${c.slice(1, 4)}-`;
    this.#counter = 0;
  }

  next(): string {
    this.#counter++;
    return this.format(this.#counter);
  }

  /** The sequence number of an id this source made, or -1 (another source, or not an id). */
  parse(id: string): number {
    const prefix = this.#prefix;
    if (id.length !== prefix.length + 12 || !id.startsWith(prefix)) return -1;
    let value = 0;
    for (let i = prefix.length; i < id.length; i++) {
      const code = id.charCodeAt(i);
      const digit = code >= 0x30 && code <= 0x39 ? code - 0x30 : code >= 0x61 && code <= 0x66 ? code - 0x57 : -1;
      if (digit === -1) return -1;
      value = value * 16 + digit;
    }
    return value;
  }

  /** The id of sequence number `n` (ids are a pure function of the prefix and n). */
  format(n: number): string {
    const hex = n.toString(16);
    return this.#prefix + (hex.length >= 12 ? hex : '000000000000'.slice(hex.length) + hex);
  }
}
