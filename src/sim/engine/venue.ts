/**
 * The venue: what is listed and whether it trades. It owns the exchange indexes' status, the
 * series, events and markets (catalog load and run-time additions), every market's lifecycle
 * (status, settlement, grid change, metadata) with its lifecycle events, the trading gate order
 * entry checks, and each market's public trade tape (trade ids and the ring GET /markets/trades
 * reads). Lifecycle moves that end orders ask the order store to cancel them and accounts to pay
 * settlements. It never matches, never validates an order and never renders wire JSON.
 */

import type { BookSide, Centicents, Count, Price, PriceLevelStructure, PriceRangeText } from '../../core/index.ts';
import { GridError, PriceGrid, assert } from '../../core/index.ts';
import type {
  Catalog, EventSpec, ExchangeIndex, ExchangeIndexStatusView, ExchangeStatusView, MarketSpec, MarketStatus, SeriesSpec,
  SimEngineOptions, SimError,
} from './types.ts';
import { EXCHANGE_INDEXES } from './types.ts';
import { ERR_EXCHANGE_PAUSED, ERR_MARKET_CLOSED, ERR_MARKET_NOT_FOUND, ERR_TRADING_PAUSED, simError } from './errors.ts';
import { MarketState } from './market-state.ts';
import { EventState } from './event-state.ts';
import { TradeRecord as TradeRecordImported } from './records.ts';
import type { TradeRecord } from './records.ts';
import type { IdSource } from './ids.ts';
import { PRICE_ONE } from './money.ts';
import type { Accounts } from './accounts.ts';
import type { OrderStore } from './order-store.ts';
import type { EngineEvents } from './events.ts';

// Module-local alias: under tsx (CommonJS) an imported binding is a getter call per use (trade path).
const TradeRecordClass = TradeRecordImported;

export interface MarketMetadataPatch {
  title?: string;
  subtitle?: string;
  yesSubTitle?: string;
  noSubTitle?: string;
  strikeType?: string | null;
  floorStrike?: number | null;
  capStrike?: number | null;
  customStrike?: Record<string, unknown> | null;
  closeTimeMs?: number;
}

interface ExchangeIndexState {
  exchangeActive: boolean;
  tradingActive: boolean;
  intraExchangeTransfersActive: boolean;
  description: string;
}

const INDEX_DESCRIPTIONS: Record<ExchangeIndex, string> = {
  0: 'primary exchange',
  2: 'commodities shard',
  3: 'basketball shard',
};

export class Venue {
  readonly #now: () => number;
  readonly #tradeHistoryPerMarket: number;
  readonly #tradeIds: IdSource;
  readonly #events: EngineEvents;
  readonly #orders: OrderStore;
  readonly #accounts: Accounts;
  readonly #series = new Map<string, SeriesSpec>();
  readonly #seriesList: SeriesSpec[] = [];
  readonly #eventsByTicker = new Map<string, EventState>();
  readonly #eventList: EventState[] = [];
  readonly #markets = new Map<string, MarketState>();
  readonly #marketList: MarketState[] = [];
  readonly #indexes = new Map<number, ExchangeIndexState>();
  #tradeSeq = 0;

  constructor(now: () => number, options: Readonly<SimEngineOptions>, catalog: Catalog, tradeIds: IdSource, events: EngineEvents, orders: OrderStore, accounts: Accounts) {
    this.#now = now;
    this.#tradeHistoryPerMarket = options.tradeHistoryPerMarket;
    this.#tradeIds = tradeIds;
    this.#events = events;
    this.#orders = orders;
    this.#accounts = accounts;
    for (const index of EXCHANGE_INDEXES) {
      this.#indexes.set(index, { exchangeActive: true, tradingActive: true, intraExchangeTransfersActive: true, description: INDEX_DESCRIPTIONS[index] });
    }
    const nowMs = now();
    for (const series of catalog.series) {
      this.#series.set(series.ticker, series);
      this.#seriesList.push(series);
    }
    for (const spec of catalog.events) this.#addEvent(spec, nowMs);
    for (const spec of catalog.markets) this.#addMarketState(spec, nowMs);
  }

  #addEvent(spec: EventSpec, nowMs: number): EventState {
    const series = this.#series.get(spec.seriesTicker);
    assert(series !== undefined, 'SimEngine: event series missing from the catalog');
    const event = new EventState(spec, series, this.#eventList.length, nowMs);
    this.#eventsByTicker.set(spec.eventTicker, event);
    this.#eventList.push(event);
    return event;
  }

  #addMarketState(spec: MarketSpec, nowMs: number): MarketState {
    const event = this.#eventsByTicker.get(spec.eventTicker);
    assert(event !== undefined, 'SimEngine: market event missing from the catalog');
    const market = new MarketState(spec, event, this.#marketList.length, nowMs);
    this.#markets.set(spec.ticker, market);
    this.#marketList.push(market);
    event.markets.push(market);
    return market;
  }

  // ---------------------------------------------------------------------------------------------
  // Lookups (listing order = catalog order, the pagination key).

  market(ticker: string): MarketState | undefined {
    return this.#markets.get(ticker);
  }

  marketList(): readonly MarketState[] {
    return this.#marketList;
  }

  event(eventTicker: string): EventState | undefined {
    return this.#eventsByTicker.get(eventTicker);
  }

  eventList(): readonly EventState[] {
    return this.#eventList;
  }

  getSeries(ticker: string): SeriesSpec | undefined {
    return this.#series.get(ticker);
  }

  listSeries(): readonly SeriesSpec[] {
    return this.#seriesList;
  }

  // ---------------------------------------------------------------------------------------------
  // Trading gate and trade tape (order entry and matching).

  /** Why `market` takes no orders now (exchange index paused, trading paused, market not active), or null. */
  tradingGate(market: MarketState): SimError | null {
    const index = this.#indexes.get(market.exchangeIndex);
    if (index !== undefined) {
      if (!index.exchangeActive) return ERR_EXCHANGE_PAUSED;
      if (!index.tradingActive) return ERR_TRADING_PAUSED;
    }
    if (market.status !== 'active') return ERR_MARKET_CLOSED;
    return null;
  }

  /** The trade id of trade sequence number `seq` (ids are a pure function of it): for tapes kept outside the engine. */
  tradeId(seq: number): string {
    return this.#tradeIds.format(seq);
  }

  /** Records a public trade on `market`'s tape (a ring of tradeHistoryPerMarket) and returns its record. */
  recordTrade(market: MarketState, price: Price, count: number, takerSide: BookSide, nowMs: number): TradeRecord {
    market.recordTrade(price, count as Count, nowMs);
    const seq = ++this.#tradeSeq;
    const capacity = this.#tradeHistoryPerMarket;
    const trades = market.trades;
    if (capacity > 0 && trades.length === capacity) {
      // Full ring: the oldest record is reused in place (no promotion churn for the GC).
      const trade = trades[market.tradeNext];
      trade.ticker = market.ticker;
      trade.price = price;
      trade.count = count as Count;
      trade.takerSide = takerSide;
      trade.tsMs = nowMs;
      trade.seq = seq;
      market.tradeNext = (market.tradeNext + 1) % capacity;
      return trade;
    }
    const trade = new TradeRecordClass(this.#tradeIds, market.ticker, price, count as Count, takerSide, nowMs, seq);
    if (capacity > 0) {
      trades.push(trade);
      market.tradeNext = (market.tradeNext + 1) % capacity;
    }
    return trade;
  }

  // ---------------------------------------------------------------------------------------------
  // Market operations (tests, faults, scenario scripts).

  /** Adds a market at run time (and its event when new); emits event_lifecycle and market created. */
  addMarket(spec: MarketSpec, eventSpec?: EventSpec): SimError | null {
    if (this.#markets.has(spec.ticker)) return simError(409, 'order_already_exists', 'market already exists');
    const nowMs = this.#now();
    let event = this.#eventsByTicker.get(spec.eventTicker);
    let newEvent = false;
    if (event === undefined) {
      if (eventSpec === undefined || eventSpec.eventTicker !== spec.eventTicker) return simError(400, 'bad_request', 'unknown event; pass its EventSpec');
      if (!this.#series.has(eventSpec.seriesTicker)) return simError(400, 'bad_request', 'unknown series');
      event = this.#addEvent(eventSpec, nowMs);
      newEvent = true;
    }
    try {
      PriceGrid.forMarket(spec.priceLevelStructure, spec.priceRanges);
    } catch (error) {
      if (error instanceof GridError) return simError(400, 'bad_request', error.message);
      throw error;
    }
    const market = this.#addMarketState(spec, nowMs);
    if (newEvent) this.#events.eventLifecycle(event, nowMs);
    this.#events.marketLifecycle(market, 'created', nowMs);
    return null;
  }

  /**
   * Moves a market to `status`. active -> 'activated'; inactive -> 'deactivated' (cancels orders
   * flagged cancel_order_on_pause); closed -> 'close_date_updated' and every resting order
   * cancelled; determined/finalized via settleMarket.
   */
  setMarketStatus(ticker: string, status: MarketStatus): SimError | null {
    const market = this.#markets.get(ticker);
    if (market === undefined) return ERR_MARKET_NOT_FOUND;
    const nowMs = this.#now();
    const previous = market.status;
    if (previous === status) return null;
    market.status = status;
    market.updatedMs = nowMs;
    switch (status) {
      case 'active':
        this.#events.marketLifecycle(market, 'activated', nowMs);
        break;
      case 'inactive':
        this.#orders.cancelMarketOrders(market, 'PauseCancel', nowMs, true);
        this.#events.marketLifecycle(market, 'deactivated', nowMs);
        break;
      case 'closed':
        market.closeTimeMs = nowMs;
        this.#orders.cancelMarketOrders(market, 'MarketCloseCancel', nowMs, false);
        this.#events.marketLifecycle(market, 'close_date_updated', nowMs);
        break;
      case 'determined':
      case 'disputed':
      case 'amended':
      case 'finalized':
      case 'initialized':
        this.#orders.cancelMarketOrders(market, 'MarketCloseCancel', nowMs, false);
        if (status === 'determined') {
          market.determinationMs = nowMs;
          this.#events.marketLifecycle(market, 'determined', nowMs);
        } else if (status === 'finalized') {
          market.settledMs = nowMs;
          this.#events.marketLifecycle(market, 'settled', nowMs);
        } else {
          this.#events.marketLifecycle(market, 'deactivated', nowMs);
        }
        break;
    }
    return null;
  }

  /**
   * Determines and settles a market: orders cancelled, every position paid $1 per winning
   * contract, status determined then finalized (lifecycle 'determined' then 'settled').
   */
  settleMarket(ticker: string, result: 'yes' | 'no'): SimError | null {
    const market = this.#markets.get(ticker);
    if (market === undefined) return ERR_MARKET_NOT_FOUND;
    if (market.status === 'finalized') return simError(400, 'market_closed', 'market already settled');
    const nowMs = this.#now();
    this.#orders.cancelMarketOrders(market, 'MarketCloseCancel', nowMs, false);
    market.result = result;
    market.settlementValue = (result === 'yes' ? PRICE_ONE : 0) as Centicents;
    market.status = 'determined';
    market.determinationMs = nowMs;
    market.updatedMs = nowMs;
    this.#events.marketLifecycle(market, 'determined', nowMs);
    this.#accounts.settle(market, result, nowMs);
    market.status = 'finalized';
    market.settledMs = nowMs;
    this.#events.marketLifecycle(market, 'settled', nowMs);
    return null;
  }

  /** Moves a market to a finer (or equal) grid keeping every resting order; emits price_level_structure_updated. */
  setPriceLevelStructure(ticker: string, structure: PriceLevelStructure, priceRanges?: readonly PriceRangeText[] | null): SimError | null {
    const market = this.#markets.get(ticker);
    if (market === undefined) return ERR_MARKET_NOT_FOUND;
    let grid: PriceGrid;
    try {
      grid = PriceGrid.forMarket(structure, priceRanges ?? null);
    } catch (error) {
      if (error instanceof GridError) return simError(400, 'bad_request', error.message);
      throw error;
    }
    if (!grid.includesGrid(market.grid)) return simError(400, 'bad_request', 'the new grid must contain every price of the current grid (finer or equal)');
    const nowMs = this.#now();
    market.book.regrid(grid);
    market.grid = grid;
    market.priceLevelStructure = structure;
    market.priceRanges = priceRanges !== undefined && priceRanges !== null && priceRanges.length > 0 ? priceRanges.map((r) => ({ ...r })) : null;
    market.updatedMs = nowMs;
    this.#events.marketLifecycle(market, 'price_level_structure_updated', nowMs);
    return null;
  }

  updateMarketMetadata(ticker: string, patch: MarketMetadataPatch): SimError | null {
    const market = this.#markets.get(ticker);
    if (market === undefined) return ERR_MARKET_NOT_FOUND;
    const nowMs = this.#now();
    let metadata = false;
    if (patch.title !== undefined) { market.title = patch.title; metadata = true; }
    if (patch.subtitle !== undefined) { market.subtitle = patch.subtitle; metadata = true; }
    if (patch.yesSubTitle !== undefined) { market.yesSubTitle = patch.yesSubTitle; metadata = true; }
    if (patch.noSubTitle !== undefined) { market.noSubTitle = patch.noSubTitle; metadata = true; }
    if (patch.strikeType !== undefined) { market.strikeType = patch.strikeType; metadata = true; }
    if (patch.floorStrike !== undefined) { market.floorStrike = patch.floorStrike; metadata = true; }
    if (patch.capStrike !== undefined) { market.capStrike = patch.capStrike; metadata = true; }
    if (patch.customStrike !== undefined) { market.customStrike = patch.customStrike; metadata = true; }
    market.updatedMs = nowMs;
    if (metadata) this.#events.marketLifecycle(market, 'metadata_updated', nowMs);
    if (patch.closeTimeMs !== undefined) {
      market.closeTimeMs = patch.closeTimeMs;
      this.#events.marketLifecycle(market, 'close_date_updated', nowMs);
    }
    return null;
  }

  // ---------------------------------------------------------------------------------------------
  // Exchange indexes.

  setExchangeIndexStatus(exchangeIndex: number, status: { exchangeActive?: boolean; tradingActive?: boolean; intraExchangeTransfersActive?: boolean }): SimError | null {
    const state = this.#indexes.get(exchangeIndex);
    if (state === undefined) return simError(400, 'bad_request', 'unknown exchange_index');
    if (status.exchangeActive !== undefined) state.exchangeActive = status.exchangeActive;
    if (status.tradingActive !== undefined) state.tradingActive = status.tradingActive;
    if (status.intraExchangeTransfersActive !== undefined) state.intraExchangeTransfersActive = status.intraExchangeTransfersActive;
    return null;
  }

  exchangeStatus(): ExchangeStatusView {
    const statuses: ExchangeIndexStatusView[] = [];
    for (const index of EXCHANGE_INDEXES) {
      const s = this.#indexes.get(index) as ExchangeIndexState;
      statuses.push({ exchangeIndex: index, description: s.description, exchangeActive: s.exchangeActive, tradingActive: s.tradingActive, intraExchangeTransfersActive: s.intraExchangeTransfersActive });
    }
    const main = statuses[0];
    return { exchangeActive: main.exchangeActive, tradingActive: main.tradingActive, intraExchangeTransfersActive: main.intraExchangeTransfersActive, exchangeIndexStatuses: statuses };
  }
}
