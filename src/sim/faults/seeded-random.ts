/**
 * A small seeded PRNG (mulberry32) so fault decisions replay exactly under the same seed and the
 * same sequence of requests. Not for cryptography. This file owns the generator only.
 */

export class SeededRandom {
  #state: number;

  constructor(seed: number) {
    this.#state = seed >>> 0;
  }

  /** Uniform in [0, 1). */
  next(): number {
    this.#state = (this.#state + 0x6d2b79f5) >>> 0;
    let t = this.#state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }

  reseed(seed: number): void {
    this.#state = seed >>> 0;
  }
}
