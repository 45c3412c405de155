/**
 * Deterministic, uuid-shaped ids for orders, fills/trades and order groups: a per-engine prefix
 * drawn from the seed plus a hex counter, so ids are unique within a run, reproducible across runs
 * with the same seed, and cost one string build each.
 */

import type { SeededRandom } from './seeded-random.ts';

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
    const hex = this.#counter.toString(16);
    return this.#prefix + (hex.length >= 12 ? hex : '000000000000'.slice(hex.length) + hex);
  }
}
