/**
 * A Map bounded to `capacity` entries that drops its oldest key to make room, in O(1) per call.
 *
 * Why not `map.delete(map.keys().next().value)`: V8 leaves a deleted entry's slot in its table
 * until the table is rebuilt, so in a map used as a FIFO the first live key sits behind every key
 * evicted since the last rebuild and each eviction walks them: an insert into a full map costs
 * O(capacity), tens of microseconds at 100,000 entries, on the FIX route's report path among others.
 *
 * Insertion order is kept in a ring of keys beside the map. Keys deleted from the middle stay in the
 * ring until they reach its head and are skipped there; the ring holds 2 x capacity keys, so when
 * it is full its head is evicted even below capacity: an entry lives until `capacity` newer entries
 * exist or 2 x capacity keys were inserted after it. A key deleted and set again keeps its first
 * place in the ring (the callers' keys are unique ids).
 */

export class FifoMap<K, V> {
  readonly capacity: number;
  readonly #map = new Map<K, V>();
  readonly #ring: (K | undefined)[];
  #head = 0;
  #length = 0;

  constructor(capacity: number) {
    if (!Number.isSafeInteger(capacity) || capacity < 1) throw new RangeError(`FifoMap: capacity must be a positive integer, got ${capacity}`);
    this.capacity = capacity;
    this.#ring = new Array<K | undefined>(capacity * 2).fill(undefined);
  }

  get size(): number {
    return this.#map.size;
  }

  get(key: K): V | undefined {
    return this.#map.get(key);
  }

  has(key: K): boolean {
    return this.#map.has(key);
  }

  /**
   * Sets `key`. A new key beyond capacity first evicts the oldest entry, handed to `onEvict` when
   * given (to recycle it).
   */
  set(key: K, value: V, onEvict?: (key: K, value: V) => void): this {
    const map = this.#map;
    if (map.has(key)) {
      map.set(key, value);
      return this;
    }
    if (map.size >= this.capacity || this.#length === this.#ring.length) this.#evictOldest(onEvict);
    map.set(key, value);
    const ring = this.#ring;
    let tail = this.#head + this.#length;
    if (tail >= ring.length) tail -= ring.length;
    ring[tail] = key;
    this.#length++;
    return this;
  }

  delete(key: K): boolean {
    return this.#map.delete(key); // its ring slot is skipped when it reaches the head
  }

  clear(): void {
    this.#map.clear();
    this.#ring.fill(undefined);
    this.#head = 0;
    this.#length = 0;
  }

  values(): MapIterator<V> {
    return this.#map.values();
  }

  keys(): MapIterator<K> {
    return this.#map.keys();
  }

  entries(): MapIterator<[K, V]> {
    return this.#map.entries();
  }

  [Symbol.iterator](): MapIterator<[K, V]> {
    return this.#map.entries();
  }

  /** Drops stale ring keys at the head; evicts the oldest live entry while the map or the ring is full. */
  #evictOldest(onEvict: ((key: K, value: V) => void) | undefined): void {
    const ring = this.#ring;
    const map = this.#map;
    while (this.#length > 0) {
      const key = ring[this.#head] as K;
      const live = map.has(key);
      if (live && map.size < this.capacity && this.#length < ring.length) return; // room made by stale keys alone
      ring[this.#head] = undefined;
      this.#head = this.#head + 1 === ring.length ? 0 : this.#head + 1;
      this.#length--;
      if (!live) continue; // deleted earlier
      const value = map.get(key) as V;
      map.delete(key);
      onEvict?.(key, value);
      return;
    }
  }
}
