/**
 * A map from string keys that allocates nothing per entry: open addressing with linear probing
 * over preallocated arrays, deletion by backward shift (no tombstones, so a table that sees
 * millions of keys come and go never degrades or rebuilds), doubling when half full and never
 * shrinking. The OMS keeps its orders by venue order id in one: a Map there rebuilt its table as
 * entries came and went, the largest garbage left per order in the hot-path bench's heap profile
 * (issue 29). The price is hashing the key's characters on each call, where a Map reuses the
 * string's cached hash.
 */

const START = 1024;

export class StringTable<V> {
  #keys: (string | undefined)[];
  #values: (V | undefined)[];
  #mask: number;
  #size = 0;

  constructor(capacity = START) {
    let cells = 16;
    while (cells < capacity * 2) cells *= 2;
    this.#keys = new Array<string | undefined>(cells).fill(undefined);
    this.#values = new Array<V | undefined>(cells).fill(undefined);
    this.#mask = cells - 1;
  }

  get size(): number {
    return this.#size;
  }

  get(key: string): V | undefined {
    const keys = this.#keys;
    const mask = this.#mask;
    for (let cell = hash(key) & mask; ; cell = (cell + 1) & mask) {
      const held = keys[cell];
      if (held === undefined) return undefined;
      if (held === key) return this.#values[cell];
    }
  }

  has(key: string): boolean {
    return this.get(key) !== undefined;
  }

  set(key: string, value: V): void {
    const keys = this.#keys;
    const mask = this.#mask;
    let cell = hash(key) & mask;
    for (;;) {
      const held = keys[cell];
      if (held === undefined) break;
      if (held === key) {
        this.#values[cell] = value;
        return;
      }
      cell = (cell + 1) & mask;
    }
    keys[cell] = key;
    this.#values[cell] = value;
    this.#size++;
    if (this.#size * 2 > keys.length) this.#grow();
  }

  delete(key: string): boolean {
    const keys = this.#keys;
    const values = this.#values;
    const mask = this.#mask;
    let cell = hash(key) & mask;
    for (;;) {
      const held = keys[cell];
      if (held === undefined) return false;
      if (held === key) break;
      cell = (cell + 1) & mask;
    }
    // Backward shift: move up each later entry of the run whose home is not between the hole and it.
    let hole = cell;
    for (let next = (hole + 1) & mask; ; next = (next + 1) & mask) {
      const moving = keys[next];
      if (moving === undefined) break;
      const home = hash(moving) & mask;
      const stays = hole <= next ? home > hole && home <= next : home > hole || home <= next;
      if (stays) continue;
      keys[hole] = moving;
      values[hole] = values[next];
      hole = next;
    }
    keys[hole] = undefined;
    values[hole] = undefined;
    this.#size--;
    return true;
  }

  /** Every value (off the hot path: allocates). */
  values(): V[] {
    const out: V[] = [];
    for (let cell = 0; cell < this.#keys.length; cell++) if (this.#keys[cell] !== undefined) out.push(this.#values[cell] as V);
    return out;
  }

  #grow(): void {
    const keys = this.#keys;
    const values = this.#values;
    const cells = keys.length * 2;
    this.#keys = new Array<string | undefined>(cells).fill(undefined);
    this.#values = new Array<V | undefined>(cells).fill(undefined);
    this.#mask = cells - 1;
    this.#size = 0;
    for (let cell = 0; cell < keys.length; cell++) {
      const key = keys[cell];
      if (key !== undefined) this.set(key, values[cell] as V);
    }
  }
}

/**
 * FNV-1a over the UTF-16 code units, kept to 30 bits: a small integer, which V8 returns unboxed
 * (a full 32-bit result came back as a heap number, garbage on every call that was not inlined).
 */
function hash(key: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < key.length; i++) h = Math.imul(h ^ key.charCodeAt(i), 0x01000193);
  return h & 0x3fffffff;
}
