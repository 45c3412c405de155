/**
 * The venue's order ids as bytes. A create's answer carries the id the venue gave the order; the
 * OMS keeps it in the order's record (order.ts: a byte store per pooled record) and finds orders
 * by it in VenueIdIndex, keyed by those bytes, so the id's string is made only when something reads
 * it (a log, a route that needs text). Before this, each acknowledged order left a string of ~40
 * bytes behind, the largest part of the hot-path bench's garbage (issue 29).
 *
 * An id is kept as bytes when it is at most VENUE_ID_BYTES_MAX characters of printable ASCII
 * without '"' or '\\' (written into JSON as they are: UUIDs, counters); any other is kept as text
 * only, found by the same hash. Both forms hash alike: the length and the last HASHED characters.
 *
 * Owns: the storable test, the hash and the index. Never: decides which order an answer is for.
 */

/** Room per record for an id's bytes (the venue's UUIDs are 36). */
export const VENUE_ID_BYTES_MAX = 64;
/** Characters hashed from the end of an id (UUIDs end in 12 random hex digits). */
const HASHED = 8;
const START_CELLS = 2048;

/** Whether `text` can be kept as bytes (and written into JSON without escapes). */
export function storableText(text: string): boolean {
  const n = text.length;
  if (n === 0 || n > VENUE_ID_BYTES_MAX) return false;
  for (let i = 0; i < n; i++) {
    const c = text.charCodeAt(i);
    if (c < 0x20 || c > 0x7e || c === 0x22 || c === 0x5c) return false;
  }
  return true;
}

/** Whether bytes[start, end) can be kept as bytes. */
export function storableBytes(bytes: Uint8Array, start: number, end: number): boolean {
  const n = end - start;
  if (n <= 0 || n > VENUE_ID_BYTES_MAX) return false;
  for (let i = start; i < end; i++) {
    const c = bytes[i]!;
    if (c < 0x20 || c > 0x7e || c === 0x22 || c === 0x5c) return false;
  }
  return true;
}

/** FNV-1a over the length and the last HASHED characters, mixed, 30 bits (a small integer). */
export function hashIdText(text: string): number {
  const end = text.length;
  let h = Math.imul(0x811c9dc5 ^ end, 0x01000193);
  for (let i = end > HASHED ? end - HASHED : 0; i < end; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193);
  return finish(h);
}

/** The same hash over bytes[start, end) (equal to hashIdText of their Latin-1 text). */
export function hashIdBytes(bytes: Uint8Array, start: number, end: number): number {
  let h = Math.imul(0x811c9dc5 ^ (end - start), 0x01000193);
  for (let i = end - start > HASHED ? end - HASHED : start; i < end; i++) h = Math.imul(h ^ bytes[i]!, 0x01000193);
  return finish(h);
}

function finish(h: number): number {
  h ^= h >>> 15;
  h = Math.imul(h, 0x2c1b3c6d);
  h ^= h >>> 12;
  return h & 0x3fffffff;
}

/** What VenueIdIndex needs of a record: its id's hash and equality with a text or bytes key. */
export interface VenueIdHolder {
  venueIdHash(): number;
  orderIdIs(text: string): boolean;
  orderIdIsBytes(bytes: Uint8Array, start: number, end: number): boolean;
}

/**
 * Records by their venue id, the key read from the record itself (no key strings kept): open
 * addressing with linear probing, each cell's hash kept beside it, deletion by backward shift (no
 * tombstones: millions of ids coming and going never degrade it), doubling when half full.
 */
export class VenueIdIndex<V extends VenueIdHolder> {
  #values: (V | undefined)[];
  #hashes: Int32Array;
  #mask: number;
  #size = 0;

  constructor(capacity = START_CELLS / 2) {
    let cells = 16;
    while (cells < capacity * 2) cells *= 2;
    this.#values = new Array<V | undefined>(cells).fill(undefined);
    this.#hashes = new Int32Array(cells);
    this.#mask = cells - 1;
  }

  get size(): number {
    return this.#size;
  }

  get(text: string): V | undefined {
    const h = hashIdText(text);
    const values = this.#values;
    const hashes = this.#hashes;
    const mask = this.#mask;
    for (let cell = h & mask; ; cell = (cell + 1) & mask) {
      const held = values[cell];
      if (held === undefined) return undefined;
      if (hashes[cell] === h && held.orderIdIs(text)) return held;
    }
  }

  getBytes(bytes: Uint8Array, start: number, end: number): V | undefined {
    const h = hashIdBytes(bytes, start, end);
    const values = this.#values;
    const hashes = this.#hashes;
    const mask = this.#mask;
    for (let cell = h & mask; ; cell = (cell + 1) & mask) {
      const held = values[cell];
      if (held === undefined) return undefined;
      if (hashes[cell] === h && held.orderIdIsBytes(bytes, start, end)) return held;
    }
  }

  /** Adds `value` under its id; the caller made sure no other record holds that id. */
  add(value: V): void {
    const h = value.venueIdHash();
    const values = this.#values;
    const mask = this.#mask;
    let cell = h & mask;
    while (values[cell] !== undefined) cell = (cell + 1) & mask;
    values[cell] = value;
    this.#hashes[cell] = h;
    this.#size++;
    if (this.#size * 2 > values.length) this.#grow();
  }

  /** Removes `value` (the record itself, found by its id's hash); false when it is not here. */
  remove(value: V): boolean {
    const h = value.venueIdHash();
    const values = this.#values;
    const hashes = this.#hashes;
    const mask = this.#mask;
    let cell = h & mask;
    for (;;) {
      const held = values[cell];
      if (held === undefined) return false;
      if (held === value) break;
      cell = (cell + 1) & mask;
    }
    // Backward shift: move up each later entry of the run whose home is not between the hole and it.
    let hole = cell;
    for (let next = (hole + 1) & mask; ; next = (next + 1) & mask) {
      const moving = values[next];
      if (moving === undefined) break;
      const home = hashes[next]! & mask;
      const stays = hole <= next ? home > hole && home <= next : home > hole || home <= next;
      if (stays) continue;
      values[hole] = moving;
      hashes[hole] = hashes[next]!;
      hole = next;
    }
    values[hole] = undefined;
    this.#size--;
    return true;
  }

  /** Every record (off the hot path: allocates). */
  values(): V[] {
    const out: V[] = [];
    for (const value of this.#values) if (value !== undefined) out.push(value);
    return out;
  }

  #grow(): void {
    const values = this.#values;
    const hashes = this.#hashes;
    const cells = values.length * 2;
    const mask = cells - 1;
    const newValues = new Array<V | undefined>(cells).fill(undefined);
    const newHashes = new Int32Array(cells);
    for (let from = 0; from < values.length; from++) {
      const value = values[from];
      if (value === undefined) continue;
      let cell = hashes[from]! & mask;
      while (newValues[cell] !== undefined) cell = (cell + 1) & mask;
      newValues[cell] = value;
      newHashes[cell] = hashes[from]!;
    }
    this.#values = newValues;
    this.#hashes = newHashes;
    this.#mask = mask;
  }
}
