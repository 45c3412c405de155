/**
 * A map from string keys that allocates nothing per entry: open addressing with linear probing
 * over preallocated arrays, deletion by backward shift (no tombstones, so a table that sees
 * millions of keys come and go never degrades or rebuilds), doubling when half full and never
 * shrinking. The OMS keeps its orders by venue order id in one: a Map there rebuilt its table as
 * entries came and went (an ordered hash table: a deleted entry holds its place until the table
 * is copied), 55 bytes per order in the hot-path bench's heap profile, the largest left (issue 29).
 *
 * A Map reuses the string's cached hash; this table cannot read it, so it hashes the key itself on
 * each call. To keep that cheap it hashes the length and at most the last HASHED characters: venue
 * order ids are UUIDs, whose last 12 hex digits are random, and counters' digits vary at the end.
 * Keys that share those characters only probe longer (found by comparing stored hashes, then the
 * strings), never collide in meaning. Each cell keeps its hash, so a delete's shift and a growth
 * never hash again, and a probe compares strings only where the hashes agree.
 */

const START = 1024;
/** Characters hashed from the end of a key. */
const HASHED = 8;

export class StringTable<V> {
  #keys: (string | undefined)[];
  #values: (V | undefined)[];
  #hashes: Int32Array;
  #mask: number;
  #size = 0;

  constructor(capacity = START) {
    let cells = 16;
    while (cells < capacity * 2) cells *= 2;
    this.#keys = new Array<string | undefined>(cells).fill(undefined);
    this.#values = new Array<V | undefined>(cells).fill(undefined);
    this.#hashes = new Int32Array(cells);
    this.#mask = cells - 1;
  }

  get size(): number {
    return this.#size;
  }

  get(key: string): V | undefined {
    const cell = this.#find(key, hashKey(key));
    return cell < 0 ? undefined : this.#values[cell];
  }

  has(key: string): boolean {
    return this.#find(key, hashKey(key)) >= 0;
  }

  set(key: string, value: V): void {
    const h = hashKey(key);
    const keys = this.#keys;
    const hashes = this.#hashes;
    const mask = this.#mask;
    let cell = h & mask;
    for (;;) {
      const held = keys[cell];
      if (held === undefined) break;
      if (hashes[cell] === h && held === key) {
        this.#values[cell] = value;
        return;
      }
      cell = (cell + 1) & mask;
    }
    keys[cell] = key;
    this.#values[cell] = value;
    hashes[cell] = h;
    this.#size++;
    if (this.#size * 2 > keys.length) this.#grow();
  }

  delete(key: string): boolean {
    const cell = this.#find(key, hashKey(key));
    if (cell < 0) return false;
    const keys = this.#keys;
    const values = this.#values;
    const hashes = this.#hashes;
    const mask = this.#mask;
    // Backward shift: move up each later entry of the run whose home is not between the hole and it.
    let hole = cell;
    for (let next = (hole + 1) & mask; ; next = (next + 1) & mask) {
      const moving = keys[next];
      if (moving === undefined) break;
      const home = hashes[next]! & mask;
      const stays = hole <= next ? home > hole && home <= next : home > hole || home <= next;
      if (stays) continue;
      keys[hole] = moving;
      values[hole] = values[next];
      hashes[hole] = hashes[next]!;
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

  /** The key's cell, or -1. */
  #find(key: string, h: number): number {
    const keys = this.#keys;
    const hashes = this.#hashes;
    const mask = this.#mask;
    for (let cell = h & mask; ; cell = (cell + 1) & mask) {
      const held = keys[cell];
      if (held === undefined) return -1;
      if (hashes[cell] === h && held === key) return cell;
    }
  }

  #grow(): void {
    const keys = this.#keys;
    const values = this.#values;
    const hashes = this.#hashes;
    const cells = keys.length * 2;
    const mask = cells - 1;
    const newKeys = new Array<string | undefined>(cells).fill(undefined);
    const newValues = new Array<V | undefined>(cells).fill(undefined);
    const newHashes = new Int32Array(cells);
    for (let from = 0; from < keys.length; from++) {
      const key = keys[from];
      if (key === undefined) continue;
      let cell = hashes[from]! & mask;
      while (newKeys[cell] !== undefined) cell = (cell + 1) & mask;
      newKeys[cell] = key;
      newValues[cell] = values[from];
      newHashes[cell] = hashes[from]!;
    }
    this.#keys = newKeys;
    this.#values = newValues;
    this.#hashes = newHashes;
    this.#mask = mask;
  }
}

/**
 * FNV-1a over the length and the last HASHED UTF-16 code units, finished with a multiply-shift
 * mix (so the low bits a cell is picked by depend on every character hashed) and kept to 30 bits:
 * a small integer, which V8 returns unboxed.
 */
export function hashKey(key: string): number {
  const end = key.length;
  let h = Math.imul(0x811c9dc5 ^ end, 0x01000193);
  for (let i = end > HASHED ? end - HASHED : 0; i < end; i++) h = Math.imul(h ^ key.charCodeAt(i), 0x01000193);
  h ^= h >>> 15;
  h = Math.imul(h, 0x2c1b3c6d);
  h ^= h >>> 12;
  return h & 0x3fffffff;
}
