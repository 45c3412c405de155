/**
 * The market-data side of the simulator's FIX acceptor (KalshiMD, fix.md §8): one engine listener
 * for every KalshiMD connection. It keeps the aggregated levels of each market that has at least
 * one book subscriber (seeded from the engine's book when the first subscriber comes, then moved by
 * the engine's book deltas, so a level's new total is known without asking the engine per delta),
 * and fans out to the subscribers: MarketDataIncrementalRefresh entries for level changes and
 * trades, and SecurityStatus for lifecycle changes. It never writes FIX itself: the connections
 * (market-data-connection.ts) encode.
 *
 * Prices: the engine's NO side is kept at NO prices, as the engine reports it; the wire shows Offer
 * (269=1) entries at the YES price of the ask, 1 - NO price (fix.md §12 item 8, our reading of §4:
 * the FIX instrument is the YES contract and Price(44) is YES-scale on both sides).
 */

import { PRICE_ONE, type Count, type Price } from '../../../core/index.ts';
import { isSimError, type Market, type MarketLifecycleEvent, type Order, type SimEngine, type Trade } from '../../engine/index.ts';

/** SecurityTradingStatus(326) values of fix.md §8. */
export const SecurityTradingStatus = {
  RESUME: 3,
  HALT: 2,
  DETERMINED: 100,
  SETTLED: 101,
} as const;

/** The order whose change moved a level (its owner sees 11 and 79 on the entry). */
export interface LevelCause {
  readonly userId: string;
  readonly clientOrderId: string;
  readonly subaccount: number;
}

/** What a trade entry needs (a Predictions Trade, or the Margin hub's record). */
export type TradeEntry = Pick<Trade, 'price' | 'count' | 'takerSide' | 'isBlockTrade' | 'tsMs'>;

/** What a KalshiMD connection implements to receive the hub's fan-out. */
export interface MarketDataSink {
  /** A level changed: entryType 0 bid / 1 offer, price YES-scale, size the new total (0: deleted). */
  onLevel(ticker: string, entryType: 0 | 1, price: Price, size: Count, previous: Count, order: LevelCause, tsMs: number): void;
  onTrade(ticker: string, trade: TradeEntry): void;
  onStatus(ticker: string, status: number): void;
  /** The market settled: its book and status subscriptions are dropped (fix.md §8, 326=101). */
  onDropped(ticker: string): void;
}

/** The books a KalshiMD connection reads and subscribes to: the Predictions hub, or the Margin one. */
export interface MarketDataSource {
  known(ticker: string): boolean;
  levels(ticker: string): { bids: Array<[number, number]>; offers: Array<[number, number]> };
  subscribeBook(sink: MarketDataSink, ticker: string): void;
  unsubscribeBook(sink: MarketDataSink, ticker: string): void;
  subscribeStatus(sink: MarketDataSink, ticker: string): void;
  unsubscribeStatus(sink: MarketDataSink, ticker: string): void;
}

class HubBook {
  /** YES bids by YES price. */
  readonly yes = new Map<number, number>();
  /** NO bids by NO price. */
  readonly no = new Map<number, number>();
  readonly subscribers = new Set<MarketDataSink>();
}

export class MarketDataHub implements MarketDataSource {
  readonly #engine: SimEngine;
  readonly #books = new Map<string, HubBook>();
  readonly #status = new Map<string, Set<MarketDataSink>>();

  constructor(engine: SimEngine) {
    this.#engine = engine;
  }

  /** Starts listening to the engine; returns the detach function. */
  attach(): () => void {
    return this.#engine.subscribe({
      onBookDelta: (market, side, price, delta, order, _reason, tsMs) => this.#onBookDelta(market, side, price, delta, order, tsMs),
      onTrade: (market, trade) => this.#onTrade(market, trade),
      onMarketLifecycle: (event) => this.#onLifecycle(event),
    });
  }

  /** True when the engine knows the market. */
  known(ticker: string): boolean {
    return this.#engine.getMarket(ticker) !== undefined;
  }

  /**
   * The current levels of a market: bids [YES price, size] best first, offers [YES price, size]
   * best first; empty for an unknown market (fix.md §8: an empty snapshot, not a reject).
   */
  levels(ticker: string): { bids: Array<[number, number]>; offers: Array<[number, number]> } {
    const book = this.#books.get(ticker);
    if (book !== undefined) {
      const bids = [...book.yes.entries()].sort((a, b) => b[0] - a[0]);
      const offers = [...book.no.entries()].map(([no, size]): [number, number] => [PRICE_ONE - no, size]).sort((a, b) => a[0] - b[0]);
      return { bids, offers };
    }
    const view = this.#engine.orderbook(ticker, null);
    if (isSimError(view)) return { bids: [], offers: [] };
    const bids = view.yes.map(([price, size]): [number, number] => [price, size]).sort((a, b) => b[0] - a[0]);
    const offers = view.no.map(([no, size]): [number, number] => [PRICE_ONE - no, size]).sort((a, b) => a[0] - b[0]);
    return { bids, offers };
  }

  /** Adds a book subscriber of a known market (call levels() right after, in the same turn, for its snapshot). */
  subscribeBook(sink: MarketDataSink, ticker: string): void {
    let book = this.#books.get(ticker);
    if (book === undefined) {
      const view = this.#engine.orderbook(ticker, null);
      if (isSimError(view)) return;
      book = new HubBook();
      for (const [price, size] of view.yes) book.yes.set(price, size);
      for (const [price, size] of view.no) book.no.set(price, size);
      this.#books.set(ticker, book);
    }
    book.subscribers.add(sink);
  }

  unsubscribeBook(sink: MarketDataSink, ticker: string): void {
    const book = this.#books.get(ticker);
    if (book === undefined) return;
    book.subscribers.delete(sink);
    if (book.subscribers.size === 0) this.#books.delete(ticker);
  }

  subscribeStatus(sink: MarketDataSink, ticker: string): void {
    let sinks = this.#status.get(ticker);
    if (sinks === undefined) {
      sinks = new Set();
      this.#status.set(ticker, sinks);
    }
    sinks.add(sink);
  }

  unsubscribeStatus(sink: MarketDataSink, ticker: string): void {
    const sinks = this.#status.get(ticker);
    if (sinks === undefined) return;
    sinks.delete(sink);
    if (sinks.size === 0) this.#status.delete(ticker);
  }

  #onBookDelta(market: Market, side: 'yes' | 'no', price: Price, delta: Count, order: Order, tsMs: number): void {
    const book = this.#books.get(market.ticker);
    if (book === undefined) return;
    const levels = side === 'yes' ? book.yes : book.no;
    const previous = levels.get(price) ?? 0;
    const size = previous + delta;
    if (size <= 0) levels.delete(price);
    else levels.set(price, size);
    const entryType: 0 | 1 = side === 'yes' ? 0 : 1;
    const wirePrice = (side === 'yes' ? price : PRICE_ONE - price) as Price;
    for (const sink of book.subscribers) sink.onLevel(market.ticker, entryType, wirePrice, Math.max(0, size) as Count, previous as Count, order, tsMs);
  }

  #onTrade(market: Market, trade: Trade): void {
    const book = this.#books.get(market.ticker);
    if (book === undefined) return;
    for (const sink of book.subscribers) sink.onTrade(market.ticker, trade);
  }

  #onLifecycle(event: MarketLifecycleEvent): void {
    const ticker = event.market.ticker;
    let status: number;
    switch (event.eventType) {
      case 'activated': status = SecurityTradingStatus.RESUME; break;
      case 'deactivated': status = SecurityTradingStatus.HALT; break;
      case 'determined': status = SecurityTradingStatus.DETERMINED; break;
      case 'settled': status = SecurityTradingStatus.SETTLED; break;
      default: return; // created, close time, grid and metadata changes: not security status (§8)
    }
    const sinks = this.#status.get(ticker);
    if (sinks !== undefined) for (const sink of [...sinks]) sink.onStatus(ticker, status);
    if (status !== SecurityTradingStatus.SETTLED) return;
    // §8: after 326=101 the subscription for that symbol is dropped.
    const dropped = new Set<MarketDataSink>([...(sinks ?? []), ...(this.#books.get(ticker)?.subscribers ?? [])]);
    this.#status.delete(ticker);
    this.#books.delete(ticker);
    for (const sink of dropped) sink.onDropped(ticker);
  }
}
