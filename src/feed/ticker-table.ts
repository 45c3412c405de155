/**
 * Interned market tickers with dense indexes, looked up by string (the JSON path, market
 * registration). The byte scanners find the same indexes from a frame's bytes through
 * decoders/ticker-bytes.ts, which follows this table (one registry of markets is issue 3's next
 * step). Open addressing over an Int32Array (load factor <= 1/2, FNV-1a over UTF-16 code units).
 * Owns the ticker -> index mapping only; indexes are never reused or removed (markets that leave
 * keep their slot: a few bytes each).
 */

const FNV_OFFSET = 0x811c9dc5;
const FNV_PRIME = 0x01000193;

/**
 * FNV-1a step over one UTF-16 code unit. Kept a signed int32 (`| 0`, not `>>> 0`): an unsigned
 * result above 2^31 is a double in V8, several times slower in the hash loop and the hash array.
 */
function hashStep(hash: number, code: number): number {
  return Math.imul(hash ^ code, FNV_PRIME) | 0;
}
const HASH_START = FNV_OFFSET | 0;

function hashString(text: string): number {
  let hash = HASH_START;
  for (let i = 0; i < text.length; i++) hash = hashStep(hash, text.charCodeAt(i));
  return hash;
}

export class TickerTable {
  readonly #tickers: string[] = [];
  /** Hash of each ticker by index (int32). */
  #hashes: Int32Array;
  #slots: Int32Array;
  #mask: number;

  constructor(capacity = 1024) {
    let size = 16;
    while (size < capacity * 2) size *= 2;
    this.#slots = new Int32Array(size).fill(-1);
    this.#mask = size - 1;
    this.#hashes = new Int32Array(size);
  }

  get size(): number {
    return this.#tickers.length;
  }

  tickerAt(index: number): string {
    return this.#tickers[index];
  }

  /** Index of `ticker`, adding it when new. */
  add(ticker: string): number {
    const found = this.indexOf(ticker);
    if (found !== -1) return found;
    if ((this.#tickers.length + 1) * 2 > this.#slots.length) this.#grow();
    const index = this.#tickers.length;
    const hash = hashString(ticker);
    this.#tickers.push(ticker);
    this.#hashes[index] = hash;
    this.#insert(hash, index);
    return index;
  }

  /** Index of `ticker`, -1 when not interned. */
  indexOf(ticker: string): number {
    const hash = hashString(ticker);
    const slots = this.#slots;
    for (let slot = hash & this.#mask; ; slot = (slot + 1) & this.#mask) {
      const index = slots[slot];
      if (index === -1) return -1;
      if (this.#hashes[index] === hash && this.#tickers[index] === ticker) return index;
    }
  }

  #insert(hash: number, index: number): void {
    const slots = this.#slots;
    let slot = hash & this.#mask;
    while (slots[slot] !== -1) slot = (slot + 1) & this.#mask;
    slots[slot] = index;
  }

  #grow(): void {
    this.#slots = new Int32Array(this.#slots.length * 2).fill(-1);
    this.#mask = this.#slots.length - 1;
    const hashes = new Int32Array(this.#slots.length);
    hashes.set(this.#hashes);
    this.#hashes = hashes;
    for (let index = 0; index < this.#tickers.length; index++) this.#insert(this.#hashes[index], index);
  }
}
