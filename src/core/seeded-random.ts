/**
 * A small seeded PRNG (xorshift128, state seeded by splitmix32) so simulated ids, synthetic market
 * participants, fault decisions and reconnect jitter in tests are reproducible from one integer
 * seed. Never Math.random where replay matters; never for cryptography. It owns random numbers
 * only; what they are used for lives with the caller.
 */

function splitmix32(state: number): number {
  state = (state + 0x9e3779b9) | 0;
  let z = state;
  z = Math.imul(z ^ (z >>> 16), 0x85ebca6b);
  z = Math.imul(z ^ (z >>> 13), 0xc2b2ae35);
  return (z ^ (z >>> 16)) >>> 0;
}

export class SeededRandom {
  #a = 0;
  #b = 0;
  #c = 0;
  #d = 0;

  constructor(seed: number) {
    this.reseed(seed);
  }

  /** Restarts the sequence: the same seed gives the same numbers again. */
  reseed(seed: number): void {
    let s = seed | 0;
    this.#a = splitmix32(s);
    s = (s + 0x9e3779b9) | 0;
    this.#b = splitmix32(s);
    s = (s + 0x9e3779b9) | 0;
    this.#c = splitmix32(s);
    s = (s + 0x9e3779b9) | 0;
    this.#d = splitmix32(s);
    if ((this.#a | this.#b | this.#c | this.#d) === 0) this.#d = 1; // xorshift's one forbidden state
  }

  /** Uniform unsigned 32-bit integer. */
  nextUint32(): number {
    let t = this.#d;
    const s = this.#a;
    this.#d = this.#c;
    this.#c = this.#b;
    this.#b = s;
    t ^= t << 11;
    t ^= t >>> 8;
    this.#a = (t ^ s ^ (s >>> 19)) >>> 0;
    return this.#a;
  }

  /** Uniform integer in [0, bound), bound >= 1 and < 2^32 (modulo bias below 2^-20 for bound < 4096: fine for a simulator). */
  nextInt(bound: number): number {
    return this.nextUint32() % bound;
  }

  /** Uniform float in [0, 1): only for simulated behaviour and jitter, never for prices or money. */
  nextFloat(): number {
    return this.nextUint32() / 4294967296;
  }

  /** True with probability numerator/denominator. */
  chance(numerator: number, denominator: number): boolean {
    return this.nextUint32() % denominator < numerator;
  }

  /** 8 lowercase hex digits. */
  nextHex8(): string {
    const text = this.nextUint32().toString(16);
    return text.length === 8 ? text : '00000000'.slice(text.length) + text;
  }
}

/** A `() => number` in [0, 1) from a seed, for APIs that take a Math.random-like source. */
export function seededRandom(seed: number): () => number {
  const random = new SeededRandom(seed);
  return () => random.nextFloat();
}
