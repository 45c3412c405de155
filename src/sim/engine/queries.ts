/**
 * Queries: the read side REST listings and the WebSocket snapshots use. Orders (one, or a page
 * with filters), fills, positions (with the per-event rollup), queue positions, an order book
 * view by level, markets, events and public trades, with the exchange's page sizes and cursors
 * (pagination.ts). Reads that look at orders first let due expiries run, as every order-entry
 * call does, so a read never shows an order past its expiration_time. It never changes an order,
 * a balance or a book otherwise, and never emits events. Balance views are the accounts' (they
 * read the money layout), group views the order groups' (reading a group ages its window).
 */

import type { Centicents, Count, Price } from '../../core/index.ts';
import type {
  EventInfo, EventPositionView, EventQuery, Fill, FillQuery, Market, MarketQuery, MarketStatus, Order, OrderbookView, OrderQuery,
  Page, Position, PositionQuery, PositionsPage, QueuePositionView, SimError, Trade, TradeQuery,
} from './types.ts';
import { ERR_BAD_LIMIT, ERR_MARKET_NOT_FOUND, ERR_ORDER_NOT_FOUND, ERR_USER_NOT_FOUND, simError } from './errors.ts';
import { EngineOrder as OrderRecord } from './engine-order.ts';
import type { EngineOrder } from './engine-order.ts';
import type { EventState } from './event-state.ts';
import type { MarketState } from './market-state.ts';
import type { PositionRecord } from './user-state.ts';
import type { TradeRecord } from './records.ts';
import { decodeCursor, newestAcross, newestFirst, oldestFirst, oldestFirstSorted, pageLimit } from './pagination.ts';
import { PRICE_ONE } from './money.ts';
import type { Accounts } from './accounts.ts';
import type { OrderStore } from './order-store.ts';
import type { Venue } from './venue.ts';

export class Queries {
  readonly #now: () => number;
  readonly #venue: Venue;
  readonly #accounts: Accounts;
  readonly #orders: OrderStore;

  constructor(now: () => number, venue: Venue, accounts: Accounts, orders: OrderStore) {
    this.#now = now;
    this.#venue = venue;
    this.#accounts = accounts;
    this.#orders = orders;
  }

  // ---------------------------------------------------------------------------------------------
  // Orders, fills, positions (REST §4, §6).

  getOrder(userId: string, orderId: string, subaccount?: number | null): Order | SimError {
    this.#orders.expireDue(this.#now());
    const user = this.#accounts.user(userId);
    if (user === undefined) return ERR_USER_NOT_FOUND;
    const order = this.#orders.find(orderId);
    if (order === undefined || order.user !== user) return ERR_ORDER_NOT_FOUND;
    if (subaccount !== undefined && subaccount !== null && order.subaccount !== subaccount) return ERR_ORDER_NOT_FOUND;
    return order;
  }

  listOrders(userId: string, query: OrderQuery): Page<Order> | SimError {
    this.#orders.expireDue(this.#now());
    const user = this.#accounts.user(userId);
    if (user === undefined) return ERR_USER_NOT_FOUND;
    const limit = pageLimit(query.limit, 100, 1000);
    if (limit === -1) return ERR_BAD_LIMIT;
    const eventTickers = query.eventTickers !== undefined && query.eventTickers !== null && query.eventTickers.length > 0 ? query.eventTickers : null;
    const minMs = query.minTs !== undefined && query.minTs !== null ? query.minTs * 1000 : -Infinity;
    const maxMs = query.maxTs !== undefined && query.maxTs !== null ? query.maxTs * 1000 + 999 : Infinity;
    const match = (o: EngineOrder): boolean =>
      (query.ticker === undefined || query.ticker === null || query.ticker === '' || o.ticker === query.ticker) &&
      (eventTickers === null || eventTickers.includes(o.eventTicker)) &&
      (query.status === undefined || query.status === null || o.status === query.status) &&
      (query.subaccount === undefined || query.subaccount === null || o.subaccount === query.subaccount) &&
      (query.exchangeIndex === undefined || query.exchangeIndex === null || o.exchangeIndex === query.exchangeIndex) &&
      o.createdMs >= minMs && o.createdMs <= maxMs;
    return newestFirst(user.orders, decodeCursor(query.cursor), limit, match);
  }

  /** The user's resting orders (any market), oldest first: for tests, activity and reconciliation. */
  restingOrders(userId: string): Order[] {
    const user = this.#accounts.user(userId);
    if (user === undefined) return [];
    return user.restingOrders().sort((a, b) => a.seq - b.seq);
  }

  listFills(userId: string, query: FillQuery): Page<Fill> | SimError {
    const user = this.#accounts.user(userId);
    if (user === undefined) return ERR_USER_NOT_FOUND;
    const limit = pageLimit(query.limit, 100, 1000);
    if (limit === -1) return ERR_BAD_LIMIT;
    const minMs = query.minTs !== undefined && query.minTs !== null ? query.minTs * 1000 : -Infinity;
    const maxMs = query.maxTs !== undefined && query.maxTs !== null ? query.maxTs * 1000 + 999 : Infinity;
    const match = (f: Fill): boolean =>
      (query.ticker === undefined || query.ticker === null || query.ticker === '' || f.ticker === query.ticker) &&
      (query.orderId === undefined || query.orderId === null || query.orderId === '' || f.orderId === query.orderId) &&
      (query.subaccount === undefined || query.subaccount === null || f.subaccount === query.subaccount) &&
      (query.exchangeIndex === undefined || query.exchangeIndex === null || f.exchangeIndex === query.exchangeIndex) &&
      f.tsMs >= minMs && f.tsMs <= maxMs;
    return newestFirst(user.fills, decodeCursor(query.cursor), limit, match);
  }

  /** One position record (live) or undefined when never opened. */
  getPosition(userId: string, ticker: string, subaccount = 0): Position | undefined {
    const user = this.#accounts.user(userId);
    const market = this.#venue.market(ticker);
    if (user === undefined || market === undefined) return undefined;
    return user.positionIfAny(market, subaccount);
  }

  listPositions(userId: string, query: PositionQuery): PositionsPage | SimError {
    const user = this.#accounts.user(userId);
    if (user === undefined) return ERR_USER_NOT_FOUND;
    const limit = pageLimit(query.limit, 100, 1000);
    if (limit === -1) return ERR_BAD_LIMIT;
    const match = (p: PositionRecord): boolean =>
      (query.ticker === undefined || query.ticker === null || query.ticker === '' || p.ticker === query.ticker) &&
      (query.eventTicker === undefined || query.eventTicker === null || query.eventTicker === '' || p.eventTicker === query.eventTicker) &&
      (query.subaccount === undefined || query.subaccount === null || p.subaccount === query.subaccount) &&
      (query.exchangeIndex === undefined || query.exchangeIndex === null || p.exchangeIndex === query.exchangeIndex) &&
      (query.countFilter === 'position' ? p.position !== 0 : query.countFilter === 'total_traded' ? p.volume !== 0 : p.position !== 0 || p.volume !== 0) &&
      (query.archivedBeforeMs === undefined || query.archivedBeforeMs === null || this.#eventArchived(p.eventTicker, query.archivedBeforeMs));
    // Positions list oldest first (stable order as new ones are appended); seq = index in user.positions.
    const page = oldestFirst<PositionRecord>(user.positions, decodeCursor(query.cursor), limit, match, (p) => p.seq);
    const byEvent = new Map<string, EventPositionView>();
    for (const p of user.positions) {
      if (!match(p)) continue;
      let view = byEvent.get(p.eventTicker);
      if (view === undefined) {
        view = { eventTicker: p.eventTicker, totalCost: 0 as Centicents, totalCostShares: 0 as Count, eventExposure: 0 as Centicents, realizedPnl: 0 as Centicents, feesPaid: 0 as Centicents };
        byEvent.set(p.eventTicker, view);
      }
      view.totalCost = (view.totalCost + p.positionCost) as Centicents;
      view.totalCostShares = (view.totalCostShares + Math.abs(p.position)) as Count;
      view.eventExposure = (view.eventExposure + p.positionCost) as Centicents;
      view.realizedPnl = (view.realizedPnl + p.realizedPnl) as Centicents;
      view.feesPaid = (view.feesPaid + p.feesPaid) as Centicents;
    }
    return { marketPositions: page.items, eventPositions: [...byEvent.values()], cursor: page.cursor };
  }

  // ---------------------------------------------------------------------------------------------
  // Queue positions and books (REST §5, §6; WebSocket snapshots).

  queuePosition(userId: string, orderId: string, subaccount?: number | null): QueuePositionView | SimError {
    this.#orders.expireDue(this.#now());
    const user = this.#accounts.user(userId);
    if (user === undefined) return ERR_USER_NOT_FOUND;
    const order = this.#orders.ownedResting(user, orderId, subaccount);
    if (!(order instanceof OrderRecord)) return order;
    return { orderId: order.orderId, ticker: order.ticker, queuePosition: order.market.book.queueAhead(order) as Count };
  }

  queuePositions(userId: string, query: { tickers?: string[] | null; eventTicker?: string | null; subaccount?: number | null }): QueuePositionView[] | SimError {
    this.#orders.expireDue(this.#now());
    const user = this.#accounts.user(userId);
    if (user === undefined) return ERR_USER_NOT_FOUND;
    const tickers = query.tickers !== undefined && query.tickers !== null && query.tickers.length > 0 ? query.tickers : null;
    const out: EngineOrder[] = [];
    for (const order of user.restingOrders()) {
      if (tickers !== null && !tickers.includes(order.ticker)) continue;
      if (query.eventTicker !== undefined && query.eventTicker !== null && query.eventTicker !== '' && order.eventTicker !== query.eventTicker) continue;
      if (query.subaccount !== undefined && query.subaccount !== null && order.subaccount !== query.subaccount) continue;
      out.push(order);
    }
    out.sort((a, b) => a.seq - b.seq);
    return out.map((order) => ({ orderId: order.orderId, ticker: order.ticker, queuePosition: order.market.book.queueAhead(order) as Count }));
  }

  /** Levels ascending by their own side's price; depth 0/null = all, else the best `depth` levels per side. */
  orderbook(ticker: string, depth?: number | null): OrderbookView | SimError {
    this.#orders.expireDue(this.#now());
    const market = this.#venue.market(ticker);
    if (market === undefined) return ERR_MARKET_NOT_FOUND;
    const limit = depth === undefined || depth === null || depth === 0 ? Infinity : depth;
    if (!(limit >= 1)) return simError(400, 'bad_request', 'depth must be 0 to 100');
    const book = market.book;
    const grid = market.grid;
    const yes: Array<[Price, Count]> = [];
    for (let level = book.bestBid; level >= 0 && yes.length < limit; level--) {
      if (book.bidHead[level] !== null) yes.push([grid.priceAt(level), book.bidSize[level] as Count]);
    }
    yes.reverse();
    const no: Array<[Price, Count]> = [];
    if (book.bestAsk !== -1) {
      for (let level = book.bestAsk; level < book.levelCount && no.length < limit; level++) {
        if (book.askHead[level] !== null) no.push([(PRICE_ONE - grid.priceAt(level)) as Price, book.askSize[level] as Count]);
      }
    }
    no.reverse();
    return { ticker, yes, no };
  }

  /** True when every market of the event settled before `beforeMs` (its positions are archived together). */
  #eventArchived(eventTicker: string, beforeMs: number): boolean {
    const event = this.#venue.event(eventTicker);
    if (event === undefined || event.markets.length === 0) return false;
    for (const market of event.markets) if (market.settledMs === 0 || market.settledMs >= beforeMs) return false;
    return true;
  }

  // ---------------------------------------------------------------------------------------------
  // Markets, events, trades (REST §3).

  listMarkets(query: MarketQuery): Page<Market> | SimError {
    const limit = pageLimit(query.limit, 100, 1000);
    if (limit === -1) return ERR_BAD_LIMIT;
    const tickers = query.tickers !== undefined && query.tickers !== null && query.tickers.length > 0 ? query.tickers : null;
    const eventTicker = query.eventTicker === undefined || query.eventTicker === null || query.eventTicker === '' ? null : query.eventTicker;
    const match = (m: MarketState): boolean =>
      (eventTicker === null || m.eventTicker === eventTicker) &&
      (query.seriesTicker === undefined || query.seriesTicker === null || query.seriesTicker === '' || m.event.spec.seriesTicker === query.seriesTicker) &&
      (query.status === undefined || query.status === null || marketFilterStatus(m.status) === query.status) &&
      (query.mveFilter === undefined || query.mveFilter === null || (query.mveFilter === 'only') === (m.mveCollectionTicker !== null));
    const afterKey = decodeCursor(query.cursor);
    const key = (m: MarketState): number => m.index;
    // tickers and event_ticker narrow by lookup, so a page never scans every market (5,000+ in a synthetic catalog).
    if (tickers !== null) return oldestFirstSorted(this.#marketsOf(tickers), afterKey, limit, match, key);
    if (eventTicker !== null) return oldestFirstSorted(this.#venue.event(eventTicker)?.markets ?? [], afterKey, limit, match, key);
    return oldestFirst(this.#venue.marketList(), afterKey, limit, match, key);
  }

  /** The listed markets among `tickers`, each once, in listing order; unknown tickers are left out. */
  #marketsOf(tickers: readonly string[]): MarketState[] {
    const found = new Set<MarketState>();
    for (const ticker of tickers) {
      const market = this.#venue.market(ticker);
      if (market !== undefined) found.add(market);
    }
    return [...found].sort((a, b) => a.index - b.index);
  }

  listEvents(query: EventQuery): Page<EventInfo> | SimError {
    const limit = pageLimit(query.limit, 200, 200);
    if (limit === -1) return ERR_BAD_LIMIT;
    const tickers = query.eventTickers !== undefined && query.eventTickers !== null && query.eventTickers.length > 0 ? new Set(query.eventTickers) : null;
    // GET /events leaves combo events out; GET /events/multivariate lists only them.
    const combos = query.multivariate === true;
    const collection = query.collectionTicker ?? null;
    const match = (e: EventState): boolean =>
      ((e.spec.mveCollectionTicker ?? null) !== null) === combos &&
      (collection === null || e.spec.mveCollectionTicker === collection) &&
      (query.seriesTicker === undefined || query.seriesTicker === null || query.seriesTicker === '' || e.spec.seriesTicker === query.seriesTicker) &&
      (tickers === null || tickers.has(e.eventTicker)) &&
      (query.status === undefined || query.status === null || eventFilterStatus(e) === query.status);
    return oldestFirst(this.#venue.eventList(), decodeCursor(query.cursor), limit, match, (e) => e.index);
  }

  listTrades(query: TradeQuery): Page<Trade> | SimError {
    const limit = pageLimit(query.limit, 100, 1000);
    if (limit === -1) return ERR_BAD_LIMIT;
    const minMs = query.minTs !== undefined && query.minTs !== null ? query.minTs * 1000 : -Infinity;
    const maxMs = query.maxTs !== undefined && query.maxTs !== null ? query.maxTs * 1000 + 999 : Infinity;
    let all: TradeRecord[];
    if (query.ticker !== undefined && query.ticker !== null && query.ticker !== '') {
      const market = this.#venue.market(query.ticker);
      if (market === undefined) return { items: [], cursor: '' };
      all = market.trades.slice();
    } else {
      // Every market's ring at once: select the page, never copy and sort every trade (5,000+ markets).
      return newestAcross(this.#venue.marketList().map((m) => m.trades), decodeCursor(query.cursor), limit, (t) => t.tsMs >= minMs && t.tsMs <= maxMs);
    }
    all.sort((a, b) => a.seq - b.seq);
    return newestFirst(all, decodeCursor(query.cursor), limit, (t) => t.tsMs >= minMs && t.tsMs <= maxMs);
  }
}

function marketFilterStatus(status: MarketStatus): 'unopened' | 'open' | 'paused' | 'closed' | 'settled' {
  switch (status) {
    case 'initialized':
      return 'unopened';
    case 'active':
      return 'open';
    case 'inactive':
      return 'paused';
    case 'closed':
      return 'closed';
    default:
      return 'settled';
  }
}

function eventFilterStatus(event: EventState): 'unopened' | 'open' | 'closed' | 'settled' {
  const statuses = event.markets.map((m) => marketFilterStatus(m.status));
  if (statuses.includes('open') || statuses.includes('paused')) return 'open';
  if (statuses.length > 0 && statuses.every((s) => s === 'unopened')) return 'unopened';
  if (statuses.length > 0 && statuses.every((s) => s === 'settled')) return 'settled';
  return 'closed';
}
