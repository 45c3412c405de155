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
 * Owns: the storable test, the hash, the ids' store and the index. Never: decides which order an
 * answer is for.
 */

/** Room per record for an id's bytes (the venue's UUIDs are 36). */
export const VENUE_ID_BYTES_MAX = 64;
/** Characters hashed from the end of an id (UUIDs end in 12 random hex digits). */
const HASHED = 8;
const START_CELLS = 2048;
/** A store length of an id kept as text only (too long, or characters JSON would escape). */
export const TEXT_ONLY = -1;

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

/**
 * The venue ids of a pool's records, by slot, in one flat byte array (VENUE_ID_BYTES_MAX a slot)
 * beside their lengths (0: none; TEXT_ONLY: kept as text only) and the texts made so far: an
 * index probe compares against contiguous bytes, not through each record's own buffer object
 * (three pointer hops and cache misses per compare: a first version with a Buffer per record
 * ran the index at 0.66x a Map's speed). Grows by doubling as the pool makes records.
 */
export class VenueIdStore {
  #bytes: Uint8Array;
  #lengths: Int32Array;
  #texts: string[];

  constructor(slots = 64) {
    this.#bytes = new Uint8Array(slots * VENUE_ID_BYTES_MAX);
    this.#lengths = new Int32Array(slots);
    this.#texts = new Array<string>(slots).fill('');
  }

  /** Room for `slot` (the pool calls it as it makes records). */
  ensure(slot: number): void {
    if (slot < this.#lengths.length) return;
    let slots = this.#lengths.length * 2;
    while (slots <= slot) slots *= 2;
    const bytes = new Uint8Array(slots * VENUE_ID_BYTES_MAX);
    bytes.set(this.#bytes);
    const lengths = new Int32Array(slots);
    lengths.set(this.#lengths);
    const texts = this.#texts.concat(new Array<string>(slots - this.#texts.length).fill(''));
    this.#bytes = bytes;
    this.#lengths = lengths;
    this.#texts = texts;
  }

  /** 0 when the slot has no id, TEXT_ONLY when it is kept as text only, else its byte count. */
  length(slot: number): number {
    return this.#lengths[slot]!;
  }

  clear(slot: number): void {
    this.#lengths[slot] = 0;
    this.#texts[slot] = '';
  }

  setText(slot: number, text: string): void {
    this.#texts[slot] = text;
    if (text === '') {
      this.#lengths[slot] = 0;
      return;
    }
    if (!storableText(text)) {
      this.#lengths[slot] = TEXT_ONLY;
      return;
    }
    const bytes = this.#bytes;
    const at = slot * VENUE_ID_BYTES_MAX;
    for (let i = 0; i < text.length; i++) bytes[at + i] = text.charCodeAt(i);
    this.#lengths[slot] = text.length;
  }

  /** False (nothing set) when the bytes cannot be kept as bytes. */
  setBytes(slot: number, source: Uint8Array, start: number, end: number): boolean {
    if (!storableBytes(source, start, end)) return false;
    const bytes = this.#bytes;
    const at = slot * VENUE_ID_BYTES_MAX - start;
    for (let i = start; i < end; i++) bytes[at + i] = source[i]!;
    this.#lengths[slot] = end - start;
    this.#texts[slot] = '';
    return true;
  }

  /** The id as text, made from the bytes the first time it is asked for ('' when none). */
  text(slot: number): string {
    const text = this.#texts[slot]!;
    const n = this.#lengths[slot]!;
    if (text !== '' || n <= 0) return text;
    const at = slot * VENUE_ID_BYTES_MAX;
    const made = Buffer.from(this.#bytes.buffer, this.#bytes.byteOffset + at, n).toString('latin1');
    this.#texts[slot] = made;
    return made;
  }

  /** The id's bytes at `at` in `out`, the offset after them; -1 when it is text only or none. */
  write(slot: number, out: Uint8Array, at: number): number {
    const n = this.#lengths[slot]!;
    if (n <= 0) return -1;
    const bytes = this.#bytes;
    const from = slot * VENUE_ID_BYTES_MAX;
    for (let i = 0; i < n; i++) out[at + i] = bytes[from + i]!;
    return at + n;
  }

  is(slot: number, text: string): boolean {
    const n = this.#lengths[slot]!;
    if (n === TEXT_ONLY) return this.#texts[slot] === text;
    if (n !== text.length || n === 0) return false;
    const bytes = this.#bytes;
    const at = slot * VENUE_ID_BYTES_MAX;
    for (let i = 0; i < n; i++) if (bytes[at + i] !== text.charCodeAt(i)) return false;
    return true;
  }

  isBytes(slot: number, source: Uint8Array, start: number, end: number): boolean {
    const n = this.#lengths[slot]!;
    if (n === TEXT_ONLY) {
      const text = this.#texts[slot]!;
      if (text.length !== end - start) return false;
      for (let i = 0; i < text.length; i++) if (text.charCodeAt(i) !== source[start + i]) return false;
      return true;
    }
    if (n !== end - start || n === 0) return false;
    const bytes = this.#bytes;
    const at = slot * VENUE_ID_BYTES_MAX;
    for (let i = 0; i < n; i++) if (bytes[at + i] !== source[start + i]) return false;
    return true;
  }

  /** The hash of the slot's id (it must have one). */
  hash(slot: number): number {
    const n = this.#lengths[slot]!;
    if (n === TEXT_ONLY) return hashIdText(this.#texts[slot]!);
    const at = slot * VENUE_ID_BYTES_MAX;
    return hashIdBytes(this.#bytes, at, at + n);
  }
}

/** What VenueIdIndex needs of a record: where its id is in the index's store. */
export interface VenueIdHolder {
  readonly venueIdSlot: number;
}

/**
 * Records by their venue id, the key read from the store the records keep their ids in (no key
 * strings kept): open addressing with linear probing, each cell's slot and hash kept beside it (a
 * probe touches the record only when it matches), deletion by backward shift (no tombstones:
 * millions of ids coming and going never degrade it), doubling when half full.
 */
export class VenueIdIndex<V extends VenueIdHolder> {
  readonly #store: VenueIdStore;
  #values: (V | undefined)[];
  /** Slot + 1 of each cell's record; 0 when the cell is empty. */
  #slots: Int32Array;
  #hashes: Int32Array;
  #mask: number;
  #size = 0;

  constructor(store: VenueIdStore, capacity = START_CELLS / 2) {
    this.#store = store;
    let cells = 16;
    while (cells < capacity * 2) cells *= 2;
    this.#values = new Array<V | undefined>(cells).fill(undefined);
    this.#slots = new Int32Array(cells);
    this.#hashes = new Int32Array(cells);
    this.#mask = cells - 1;
  }

  get size(): number {
    return this.#size;
  }

  get(text: string): V | undefined {
    const h = hashIdText(text);
    const slots = this.#slots;
    const hashes = this.#hashes;
    const mask = this.#mask;
    for (let cell = h & mask; ; cell = (cell + 1) & mask) {
      const held = slots[cell]!;
      if (held === 0) return undefined;
      if (hashes[cell] === h && this.#store.is(held - 1, text)) return this.#values[cell];
    }
  }

  getBytes(bytes: Uint8Array, start: number, end: number): V | undefined {
    const h = hashIdBytes(bytes, start, end);
    const slots = this.#slots;
    const hashes = this.#hashes;
    const mask = this.#mask;
    for (let cell = h & mask; ; cell = (cell + 1) & mask) {
      const held = slots[cell]!;
      if (held === 0) return undefined;
      if (hashes[cell] === h && this.#store.isBytes(held - 1, bytes, start, end)) return this.#values[cell];
    }
  }

  /** Adds `value` under its id (in the store, at its slot); the caller made sure no other record holds that id. */
  add(value: V): void {
    const slot = value.venueIdSlot;
    const h = this.#store.hash(slot);
    const slots = this.#slots;
    const mask = this.#mask;
    let cell = h & mask;
    while (slots[cell] !== 0) cell = (cell + 1) & mask;
    slots[cell] = slot + 1;
    this.#values[cell] = value;
    this.#hashes[cell] = h;
    this.#size++;
    if (this.#size * 2 > slots.length) this.#grow();
  }

  /** Removes `value` (found by its id's hash, while its id is still in the store); false when it is not here. */
  remove(value: V): boolean {
    const h = this.#store.hash(value.venueIdSlot);
    const values = this.#values;
    const slots = this.#slots;
    const hashes = this.#hashes;
    const mask = this.#mask;
    let cell = h & mask;
    for (;;) {
      if (slots[cell] === 0) return false;
      if (values[cell] === value) break;
      cell = (cell + 1) & mask;
    }
    // Backward shift: move up each later entry of the run whose home is not between the hole and it.
    let hole = cell;
    for (let next = (hole + 1) & mask; ; next = (next + 1) & mask) {
      const moving = slots[next]!;
      if (moving === 0) break;
      const home = hashes[next]! & mask;
      const stays = hole <= next ? home > hole && home <= next : home > hole || home <= next;
      if (stays) continue;
      slots[hole] = moving;
      values[hole] = values[next];
      hashes[hole] = hashes[next]!;
      hole = next;
    }
    slots[hole] = 0;
    values[hole] = undefined;
    this.#size--;
    return true;
  }

  /** Every record (off the hot path: allocates). */
  values(): V[] {
    const out: V[] = [];
    for (let cell = 0; cell < this.#slots.length; cell++) if (this.#slots[cell] !== 0) out.push(this.#values[cell] as V);
    return out;
  }

  #grow(): void {
    const values = this.#values;
    const slots = this.#slots;
    const hashes = this.#hashes;
    const cells = slots.length * 2;
    const mask = cells - 1;
    const newValues = new Array<V | undefined>(cells).fill(undefined);
    const newSlots = new Int32Array(cells);
    const newHashes = new Int32Array(cells);
    for (let from = 0; from < slots.length; from++) {
      if (slots[from] === 0) continue;
      let cell = hashes[from]! & mask;
      while (newSlots[cell] !== 0) cell = (cell + 1) & mask;
      newSlots[cell] = slots[from]!;
      newValues[cell] = values[from];
      newHashes[cell] = hashes[from]!;
    }
    this.#values = newValues;
    this.#slots = newSlots;
    this.#hashes = newHashes;
    this.#mask = mask;
  }
}
