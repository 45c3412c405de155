/**
 * The markets the gate knows, indexed by a small integer handle so a check finds its market with
 * one array load instead of a Map lookup by ticker. Each entry holds the market's price grid, the
 * local book the gate reads (best bid/ask, synced, last update) and whether trading is open.
 * This file owns registration and those per-market facts; it never checks an intent.
 */

import type { PriceGrid, Price } from '../core/index.ts';

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

export class RiskMarket {
  readonly handle: number;
  readonly ticker: string;
  grid: PriceGrid;
  book: BookView | null;
  open: boolean;
  countIncrement: number;
  /** Unix ms at which the market stops trading (close_ts); Infinity when unknown. New orders at or after it are denied. */
  closeMs: number;
  constructor(handle: number, ticker: string, grid: PriceGrid, book: BookView | null, open: boolean, countIncrement: number) {
    this.handle = handle;
    this.ticker = ticker;
    this.grid = grid;
    this.book = book;
    this.open = open;
    this.countIncrement = countIncrement;
    this.closeMs = Infinity;
  }
}

export class RiskMarkets {
  readonly #byHandle: RiskMarket[] = [];
  readonly #handleByTicker = new Map<string, number>();

  /** Registers a market (start-up or market discovery, never per order); returns its handle. Re-adding a ticker updates it. */
  add(ticker: string, grid: PriceGrid, book: BookView | null, open: boolean, countIncrement: number): number {
    const known = this.#handleByTicker.get(ticker);
    if (known !== undefined) {
      const market = this.#byHandle[known];
      market.grid = grid;
      market.book = book;
      market.open = open;
      market.countIncrement = countIncrement;
      return known;
    }
    const handle = this.#byHandle.length;
    this.#byHandle.push(new RiskMarket(handle, ticker, grid, book, open, countIncrement));
    this.#handleByTicker.set(ticker, handle);
    return handle;
  }

  /** Hot path: the market of a handle, or undefined when the handle is not registered. */
  at(handle: number): RiskMarket | undefined {
    return handle >= 0 && handle < this.#byHandle.length ? this.#byHandle[handle] : undefined;
  }

  /** Off the hot path (OMS on fills and reconciliation): -1 when unknown. */
  handleOf(ticker: string): number {
    const handle = this.#handleByTicker.get(ticker);
    return handle === undefined ? -1 : handle;
  }

  get size(): number {
    return this.#byHandle.length;
  }
}
