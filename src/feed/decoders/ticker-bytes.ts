/**
 * The TickerTable's tickers by their UTF-8 bytes: a scanner that hashed a ticker's bytes while
 * reading a frame finds the market's TickerTable index here by comparing bytes, so a frame for a
 * known market yields the table's one interned string and its index without making a string.
 *
 * It follows the TickerTable it was made for and never changes it: the table only ever appends
 * (indexes are never reused or removed), so a lookup first takes in the tickers added since the
 * last one (an integer compare when nothing changed). Open addressing over Int32Arrays (load
 * factor <= 1/2), json-bytes.ts's hashBytes, the bytes of every ticker in one growing arena. A ticker that is not well-formed UTF-16 (a lone surrogate) is not listed:
 * its UTF-8 encoding would not decode back to it, so frames naming it take the JSON path.
 */

import type { TickerTable } from '../ticker-table.ts';
import { hashBytes, wordAt } from './json-bytes.ts';

export class TickerBytes {
  readonly tickers: TickerTable;
  /** Tickers of the table taken in so far (a prefix of its indexes). */
  #synced = 0;
  // Every listed ticker's bytes, each from a 4-byte boundary (compared a word at a time).
  #arenaWords = new Int32Array(1024);
  #arenaBytes = new Uint8Array(this.#arenaWords.buffer);
  #arenaWordsUsed = 0;
  /** By TickerTable index: the word where the ticker's bytes start in the arena, their length (-1: not listed), their hash. */
  #offsets = new Int32Array(64);
  #lengths = new Int32Array(64);
  #hashes = new Int32Array(64);
  /** Open-addressing slots holding TickerTable indexes, -1 empty. */
  #slots = new Int32Array(128).fill(-1);
  #mask = 127;
  #listed = 0;

  constructor(tickers: TickerTable) {
    this.tickers = tickers;
  }

  /**
   * TickerTable index of the ticker spelled b[start, end), whose hashBytes the caller computed
   * while scanning; -1 when the table does not hold it. Allocates only to take in new tickers.
   */
  find(b: Buffer, start: number, end: number, hash: number): number {
    if (this.tickers.size !== this.#synced) this.#sync();
    const slots = this.#slots;
    const mask = this.#mask;
    const length = end - start;
    for (let slot = hash & mask; ; slot = (slot + 1) & mask) {
      const index = slots[slot];
      if (index === -1) return -1;
      if (this.#hashes[index] !== hash || this.#lengths[index] !== length) continue;
      if (this.#equals(b, start, length, this.#offsets[index])) return index;
    }
  }

  #equals(b: Buffer, start: number, length: number, wordOffset: number): boolean {
    const words = this.#arenaWords;
    const wordCount = length >> 2;
    let q = start;
    for (let k = 0; k < wordCount; k++, q += 4) if (wordAt(b, q) !== words[wordOffset + k]) return false;
    const bytes = this.#arenaBytes;
    const byteOffset = wordOffset << 2;
    for (let i = wordCount << 2; i < length; i++) if (b[start + i] !== bytes[byteOffset + i]) return false;
    return true;
  }

  #sync(): void {
    const tickers = this.tickers;
    const size = tickers.size;
    if (this.#offsets.length < size) {
      let capacity = this.#offsets.length;
      while (capacity < size) capacity *= 2;
      this.#offsets = grow(this.#offsets, capacity);
      this.#lengths = grow(this.#lengths, capacity);
      this.#hashes = grow(this.#hashes, capacity);
    }
    for (let index = this.#synced; index < size; index++) {
      const ticker = tickers.tickerAt(index);
      const bytes = Buffer.from(ticker, 'utf8'); // a Buffer, as frames are: hashBytes sees one kind of array
      if (bytes.toString('utf8') !== ticker) {
        this.#lengths[index] = -1; // never matches a length
        continue;
      }
      const wordCount = (bytes.length + 3) >> 2;
      if (this.#arenaWordsUsed + wordCount > this.#arenaWords.length) {
        let capacity = this.#arenaWords.length * 2;
        while (capacity < this.#arenaWordsUsed + wordCount) capacity *= 2;
        const words = new Int32Array(capacity);
        words.set(this.#arenaWords.subarray(0, this.#arenaWordsUsed));
        this.#arenaWords = words;
        this.#arenaBytes = new Uint8Array(words.buffer);
      }
      this.#arenaBytes.set(bytes, this.#arenaWordsUsed << 2);
      this.#offsets[index] = this.#arenaWordsUsed;
      this.#lengths[index] = bytes.length;
      this.#hashes[index] = hashBytes(bytes, 0, bytes.length);
      this.#arenaWordsUsed += wordCount;
      if ((this.#listed + 1) * 2 > this.#slots.length) this.#rehash(this.#slots.length * 2);
      this.#insert(index);
      this.#listed++;
    }
    this.#synced = size;
  }

  #insert(index: number): void {
    const slots = this.#slots;
    let slot = this.#hashes[index] & this.#mask;
    while (slots[slot] !== -1) slot = (slot + 1) & this.#mask;
    slots[slot] = index;
  }

  #rehash(size: number): void {
    const old = this.#slots;
    this.#slots = new Int32Array(size).fill(-1);
    this.#mask = size - 1;
    for (let slot = 0; slot < old.length; slot++) if (old[slot] !== -1) this.#insert(old[slot]);
  }
}

function grow(array: Int32Array, capacity: number): Int32Array<ArrayBuffer> {
  const grown = new Int32Array(capacity);
  grown.set(array);
  return grown;
}
