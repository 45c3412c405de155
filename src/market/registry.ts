/**
 * The one registry of markets: each market gets a dense index once, when it is loaded (REST
 * listing, lifecycle `created`), and keeps it for the process's life; the feed resolves a frame's
 * ticker bytes to it, and the book, the gate, the OMS and strategies index arrays by it. A regrid
 * or a close is written here once (regrid, setOpen, setCloseMs) and every hop reads the same
 * Market; components that keep per-grid arrays (the gate's exposure ledger) hear of a regrid
 * through onRegrid.
 *
 * Lookups: by string (registration, the JSON path, off the hot path) in a Map, and by bytes (find:
 * the byte scanners, which hashed the ticker while reading it) over an open-addressing Int32Array
 * of indexes (load factor <= 1/2), comparing against each ticker's bytes kept in one arena, a word
 * at a time. Indexes are never reused or removed (a
 * market that leaves keeps its slot: a few bytes). A ticker that is not well-formed UTF-16 (a lone
 * surrogate) is registered but never found by bytes: its UTF-8 would not decode back to it.
 */

import type { Price, PriceGrid } from '../core/index.ts';
import { Market } from './market.ts';
import { hashBytes, wordAt } from './ticker-hash.ts';

export type RegridListener = (index: number, grid: PriceGrid) => void;

export class MarketRegistry {
  readonly #markets: Market[] = [];
  readonly #byTicker = new Map<string, number>();
  /** By index: where its bytes start in the arena (words), their length (-1: not findable by bytes), their hash. */
  #offsets = new Int32Array(64);
  #lengths = new Int32Array(64);
  #hashes = new Int32Array(64);
  #slots = new Int32Array(128).fill(-1);
  #mask = 127;
  #arenaWords = new Int32Array(1024);
  #arenaBytes = new Uint8Array(this.#arenaWords.buffer);
  #arenaWordsUsed = 0;
  readonly #regridListeners: RegridListener[] = [];

  get size(): number {
    return this.#markets.length;
  }

  /** The market of `ticker`, registering it when new. */
  add(ticker: string): Market {
    const found = this.indexOf(ticker);
    if (found !== -1) return this.#markets[found];
    const index = this.#markets.length;
    const market = new Market(index, ticker);
    this.#markets.push(market);
    this.#byTicker.set(ticker, index);
    this.#list(index, ticker);
    return market;
  }

  /** Hot path: the market at `index`; undefined when no market has it. */
  at(index: number): Market | undefined {
    return index >= 0 && index < this.#markets.length ? this.#markets[index] : undefined;
  }

  tickerAt(index: number): string {
    return this.#markets[index].ticker;
  }

  /** Index of `ticker`, -1 when not registered. */
  indexOf(ticker: string): number {
    const index = this.#byTicker.get(ticker);
    return index === undefined ? -1 : index;
  }

  /**
   * Index of the ticker spelled b[start, end), whose hashBytes the caller computed while scanning;
   * -1 when not registered. Allocates nothing.
   */
  find(b: Uint8Array, start: number, end: number, hash: number): number {
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

  /** The market moved to a new (finer) grid: written once here, then every listener moves its per-grid state. */
  regrid(index: number, grid: PriceGrid): void {
    const market = this.#markets[index];
    if (market === undefined || market.grid === grid) return;
    market.grid = grid;
    for (const listener of this.#regridListeners) listener(index, grid);
  }

  /** The market trades on the Margin exchange with this tick (1/10,000 $): written once, when it is loaded. */
  setMargin(index: number, tick: number): void {
    const market = this.#markets[index];
    if (market === undefined) return;
    market.exchange = 'margin';
    market.tick = tick;
  }

  /** A Margin market's settlement mark price (the margin ticker channel, a listing). */
  setMark(index: number, price: Price): void {
    const market = this.#markets[index];
    if (market !== undefined) market.markPrice = price;
  }

  setOpen(index: number, open: boolean): void {
    const market = this.#markets[index];
    if (market !== undefined) market.open = open;
  }

  setCloseMs(index: number, closeMs: number): void {
    const market = this.#markets[index];
    if (market !== undefined) market.closeMs = closeMs;
  }

  /** Wiring: `listener` hears of every regrid after the market's grid changed. */
  onRegrid(listener: RegridListener): void {
    this.#regridListeners.push(listener);
  }

  #equals(b: Uint8Array, start: number, length: number, wordOffset: number): boolean {
    const words = this.#arenaWords;
    const wordCount = length >> 2;
    let q = start;
    for (let k = 0; k < wordCount; k++, q += 4) if (wordAt(b, q) !== words[wordOffset + k]) return false;
    const bytes = this.#arenaBytes;
    const byteOffset = wordOffset << 2;
    for (let i = wordCount << 2; i < length; i++) if (b[start + i] !== bytes[byteOffset + i]) return false;
    return true;
  }

  #list(index: number, ticker: string): void {
    if (this.#offsets.length <= index) {
      const capacity = this.#offsets.length * 2;
      this.#offsets = grown(this.#offsets, capacity);
      this.#lengths = grown(this.#lengths, capacity);
      this.#hashes = grown(this.#hashes, capacity);
    }
    const bytes = Buffer.from(ticker, 'utf8'); // a Buffer, as frames are: hashBytes sees one kind of array
    if (bytes.toString('utf8') !== ticker) {
      this.#lengths[index] = -1; // never matches a length
      return;
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
    if ((index + 1) * 2 > this.#slots.length) this.#rehash(this.#slots.length * 2);
    else this.#insert(index);
  }

  #insert(index: number): void {
    const slots = this.#slots;
    let slot = this.#hashes[index] & this.#mask;
    while (slots[slot] !== -1) slot = (slot + 1) & this.#mask;
    slots[slot] = index;
  }

  #rehash(size: number): void {
    this.#slots = new Int32Array(size).fill(-1);
    this.#mask = size - 1;
    for (let index = 0; index < this.#markets.length; index++) if (this.#lengths[index] !== -1) this.#insert(index);
  }
}

function grown(array: Int32Array, capacity: number): Int32Array<ArrayBuffer> {
  const to = new Int32Array(capacity);
  to.set(array);
  return to;
}
