/**
 * The markets the gate knows, indexed by the market registry's dense index (the handle) so a check
 * finds its market with one array load. Each entry holds the local book the gate reads (best
 * bid/ask, synced, last update) and the count increment, and reads grid (Predictions), exchange,
 * tick and mark (Margin), open and close time from the registry's shared Market. This file owns
 * the gate's registration; it never checks an intent.
 */

import { assert } from '../core/index.ts';
import type { PriceGrid, Price } from '../core/index.ts';
import { MarketRegistry } from '../market/index.ts';
import type { Market } from '../market/index.ts';

/**
 * What the gate reads from a local book; src/book's OrderBook satisfies it structurally
 * (contracts.md). `updatedAtMs` is the injected-clock time of the last applied message.
 */
export interface BookView {
  readonly synced: boolean;
  readonly updatedAtMs: number;
  bestBid(): Price;
  bestAsk(): Price;
}

export interface RiskMarketOptions {
  /** Open for trading (default true); the runtime flips it from market lifecycle messages. */
  open?: boolean;
  /** Count increment in 1/100 contract: 1 = 0.01 contract, 100 = whole contracts. Default from limits.wholeContractsOnly. */
  countIncrement?: number;
}

/**
 * What the gate keeps of a market beside the registry's shared facts: the local book it reads and
 * the count increment. Grid, open and close time are the registry's Market (one record every hop
 * reads; a lifecycle message or a regrid is written there once).
 */
export class RiskMarket {
  readonly handle: number;
  readonly info: Market;
  book: BookView | null;
  countIncrement: number;
  constructor(info: Market, book: BookView | null, countIncrement: number) {
    this.handle = info.index;
    this.info = info;
    this.book = book;
    this.countIncrement = countIncrement;
  }

  get ticker(): string {
    return this.info.ticker;
  }

  get grid(): PriceGrid {
    return this.info.grid!; // set before the gate registers the market
  }

  /** A Margin market (perpetual: tick, mark, margin checks); read once per check to pick the branch. */
  get isMargin(): boolean {
    return this.info.exchange === 'margin';
  }

  get open(): boolean {
    return this.info.open;
  }

  /** Unix ms at which the market stops trading (close_ts); Infinity when unknown. New orders at or after it are denied. */
  get closeMs(): number {
    return this.info.closeMs;
  }
}

/** The markets the gate trades, by the registry's index (the handle intents carry). */
export class RiskMarkets {
  readonly registry: MarketRegistry;
  readonly #byHandle: (RiskMarket | undefined)[] = [];
  #size = 0;

  constructor(registry: MarketRegistry = new MarketRegistry()) {
    this.registry = registry;
  }

  /** Registers a market (start-up or market discovery, never per order); returns its handle. Re-adding a ticker updates it. */
  add(ticker: string, grid: PriceGrid, book: BookView | null, open: boolean, countIncrement: number): number {
    const registry = this.registry;
    const info = registry.add(ticker);
    const handle = info.index;
    assert(info.exchange !== 'margin', 'RiskMarkets.add: a Margin market of that ticker is registered');
    if (info.grid === null) info.grid = grid;
    else registry.regrid(handle, grid);
    registry.setOpen(handle, open);
    return this.#keep(info, book, countIncrement);
  }

  /**
   * Registers a Margin market: the registry's Market names its exchange and tick (setMargin), never
   * a grid. Re-adding a ticker updates the book, the tick and the increment.
   */
  addMargin(ticker: string, tick: number, book: BookView | null, open: boolean, countIncrement: number): number {
    const registry = this.registry;
    const info = registry.add(ticker);
    const handle = info.index;
    assert(info.grid === null, 'RiskMarkets.addMargin: a Predictions market of that ticker is registered');
    registry.setMargin(handle, tick);
    registry.setOpen(handle, open);
    return this.#keep(info, book, countIncrement);
  }

  /** The gate's entry of a registered market: made once, its book and increment updated on re-adding. */
  #keep(info: Market, book: BookView | null, countIncrement: number): number {
    const handle = info.index;
    const known = this.#byHandle[handle];
    if (known !== undefined) {
      known.book = book;
      known.countIncrement = countIncrement;
      return handle;
    }
    while (this.#byHandle.length < handle) this.#byHandle.push(undefined);
    this.#byHandle[handle] = new RiskMarket(info, book, countIncrement);
    this.#size++;
    return handle;
  }

  /** Hot path: the market of a handle, or undefined when the gate does not trade it. */
  at(handle: number): RiskMarket | undefined {
    return handle >= 0 && handle < this.#byHandle.length ? this.#byHandle[handle] : undefined;
  }

  /** Off the hot path (fills of orders not ours, positions): -1 when unknown. */
  handleOf(ticker: string): number {
    const handle = this.registry.indexOf(ticker);
    return handle >= 0 && this.at(handle) !== undefined ? handle : -1;
  }

  get size(): number {
    return this.#size;
  }

  /** One past the highest handle (handles are the registry's indexes: below it, at() may be undefined). */
  get handleLimit(): number {
    return this.#byHandle.length;
  }
}
