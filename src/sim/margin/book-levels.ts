/**
 * The aggregated levels of the Margin books someone watches, kept so each engine event can be
 * turned into the level changes it made: the Margin book has no per-level event of its own, so a
 * watcher compares the engine's depth with what it last saw. Used by the market-data feeds of the
 * Margin endpoints (the WebSocket orderbook_delta, the FIX KalshiMD), each with its own instance.
 */

import type { BookSide } from '../../core/index.ts';
import type { MarginEngine } from './margin-engine.ts';

/** One level that changed: its size now and before (0: absent). */
export interface LevelChange {
  side: BookSide;
  price: number;
  size: number;
  previous: number;
}

interface Watched {
  bid: Map<number, number>;
  ask: Map<number, number>;
  watchers: number;
}

const SIDES: readonly BookSide[] = ['bid', 'ask'];

export class MarginBookLevels {
  readonly #engine: MarginEngine;
  readonly #books = new Map<string, Watched>();

  constructor(engine: MarginEngine) {
    this.#engine = engine;
  }

  /** Starts (or counts one more) watch of a market's levels; false when the market is unknown. */
  watch(ticker: string): boolean {
    const market = this.#engine.markets.get(ticker);
    if (market === undefined) return false;
    const known = this.#books.get(ticker);
    if (known !== undefined) {
      known.watchers++;
      return true;
    }
    this.#books.set(ticker, { bid: new Map(market.book.depth('bid', 0)), ask: new Map(market.book.depth('ask', 0)), watchers: 1 });
    return true;
  }

  unwatch(ticker: string): void {
    const known = this.#books.get(ticker);
    if (known === undefined) return;
    if (--known.watchers === 0) this.#books.delete(ticker);
  }

  watched(ticker: string): boolean {
    return this.#books.has(ticker);
  }

  /** The levels as last seen, best first per the engine's depth order ([price, size] pairs). */
  levels(ticker: string, side: BookSide): ReadonlyMap<number, number> {
    return this.#books.get(ticker)?.[side] ?? new Map();
  }

  /** The levels of a watched market that changed since the last call, applied to what it knows. */
  diff(ticker: string): LevelChange[] {
    const book = this.#books.get(ticker);
    const market = this.#engine.markets.get(ticker);
    const changes: LevelChange[] = [];
    if (book === undefined || market === undefined) return changes;
    for (const side of SIDES) {
      const known = book[side];
      const now = new Map(market.book.depth(side, 0));
      for (const [price, size] of now) {
        const previous = known.get(price) ?? 0;
        if (previous !== size) changes.push({ side, price, size, previous });
      }
      for (const [price, size] of known) if (!now.has(price)) changes.push({ side, price, size: 0, previous: size });
      for (const change of changes) {
        if (change.side !== side) continue;
        if (change.size === 0) known.delete(change.price);
        else known.set(change.price, change.size);
      }
    }
    return changes;
  }
}
