/**
 * Values by a non-negative integer key that rises as requests are made (a request counter, an
 * order handle, a message sequence number), stored without an allocation per entry: a ring of
 * 2^k cells picked by the key's low bits, each keeping its key, and a Map only for a key whose
 * cell an earlier key still holds (more entries alive at once than the ring spans). A Map keyed by
 * such numbers rebuilds its table as entries come and go (an ordered hash table keeps a deleted
 * entry's place until it is copied): garbage on every request of the order path (issue 29).
 * Owns the cells and the overflow; never decides what a key means.
 */

const EMPTY = -1;

export class CounterRing<T> {
  readonly #keys: Float64Array;
  readonly #values: (T | undefined)[];
  readonly #mask: number;
  readonly #overflow = new Map<number, T>();
  #size = 0;

  /** `cells` is rounded up to a power of two (at least 16). */
  constructor(cells = 4096) {
    let size = 16;
    while (size < cells) size *= 2;
    this.#keys = new Float64Array(size).fill(EMPTY);
    this.#values = new Array<T | undefined>(size).fill(undefined);
    this.#mask = size - 1;
  }

  /** Entries held, ring and overflow. */
  get size(): number {
    return this.#size + this.#overflow.size;
  }

  /** Entries held in the overflow Map (tests: the ring was outrun). */
  get overflowSize(): number {
    return this.#overflow.size;
  }

  get(key: number): T | undefined {
    const cell = key & this.#mask;
    if (this.#keys[cell] === key) return this.#values[cell];
    return this.#overflow.size === 0 ? undefined : this.#overflow.get(key);
  }

  /** Sets `key` (a non-negative safe integer) to `value`, replacing what the key held. */
  set(key: number, value: T): void {
    const cell = key & this.#mask;
    const held = this.#keys[cell]!;
    if (held === key) {
      this.#values[cell] = value;
      return;
    }
    // A key already in the overflow stays there though its cell may have come free since.
    if (held === EMPTY && (this.#overflow.size === 0 || !this.#overflow.has(key))) {
      this.#keys[cell] = key;
      this.#values[cell] = value;
      this.#size++;
      return;
    }
    this.#overflow.set(key, value);
  }

  /** Removes `key`; false when it was not held. */
  delete(key: number): boolean {
    const cell = key & this.#mask;
    if (this.#keys[cell] === key) {
      this.#keys[cell] = EMPTY;
      this.#values[cell] = undefined;
      this.#size--;
      return true;
    }
    return this.#overflow.size !== 0 && this.#overflow.delete(key);
  }

  /** Every value held (off the hot path: allocates), in no particular order. */
  values(): T[] {
    const out: T[] = [];
    if (this.#size > 0) {
      const keys = this.#keys;
      for (let cell = 0; cell < keys.length; cell++) if (keys[cell] !== EMPTY) out.push(this.#values[cell] as T);
    }
    for (const value of this.#overflow.values()) out.push(value);
    return out;
  }
}
