/**
 * SimEngine: the simulator's exchange core. It owns markets and their books, users' balances,
 * positions, orders, fills and order groups, and matches V2 orders (one YES-quoted book: bid =
 * buy YES, ask = sell YES = buy NO at 1 - price) with price-time priority. Pure and in-process:
 * no I/O, no timers; time comes from the injected `now`, ids from the seed, so a run is
 * reproducible. Listeners are called synchronously in causal order. It never renders wire JSON
 * (render.ts) and never authenticates (the servers do).
 *
 * Money: a bid reserves price x count, an ask (1 - price) x count while it rests (reduce-only
 * orders reserve nothing); a fill moves cash by the trade price; a YES and a NO held in the same
 * (user, subaccount, market) net out and pay $1 per pair at once.
 */

import type { BookSide, Centicents, Count, Price, PriceLevelStructure, PriceRangeText } from '../../core/index.ts';
import { GridError, PriceGrid, assert } from '../../core/index.ts';
import type {
  AddUserOptions, AmendOrderParams, AmendOrderResult, BalanceView, BatchCancelItem, CancelOrderResult, Catalog,
  CreateOrderGroupParams, CreateOrderParams, CreateOrderResult, DecreaseOrderParams, DecreaseOrderResult,
  EngineListener, EventInfo, EventQuery, EventSpec, ExchangeIndex, ExchangeIndexStatusView, ExchangeStatusView, Fill,
  FillQuery, Market, MarketLifecycleType, MarketQuery, MarketSpec, MarketStatus, Order, OrderbookView, OrderGroup,
  OrderGroupEventType, OrderQuery, Page, Position, PositionQuery, PositionsPage, QueuePositionView,
  RestingOrderValueView, SeriesSpec, SimEngineConfig, SimEngineOptions, SimError, SubaccountBalanceView, Trade,
  TradeQuery, UpdateReason, EventPositionView,
} from './types.ts';
import { EXCHANGE_INDEXES } from './types.ts';
import {
  ERR_BAD_EXCHANGE_INDEX, ERR_BAD_LIMIT, ERR_BAD_SUBACCOUNT, ERR_DUPLICATE_CLIENT_ID, ERR_EXCHANGE_PAUSED,
  ERR_GROUP_NOT_FOUND, ERR_GROUP_TRIGGERED, ERR_INSUFFICIENT_BALANCE, ERR_INVALID_COUNT, ERR_INVALID_PRICE,
  ERR_MARKET_CLOSED, ERR_MARKET_NOT_FOUND, ERR_ORDER_NOT_FOUND, ERR_POST_ONLY_CROSS, ERR_TRADING_PAUSED,
  ERR_USER_NOT_FOUND, simError,
} from './errors.ts';
import { tradeFee as tradeFeeImported } from './fees.ts';
import { EngineOrder as EngineOrderImported } from './engine-order.ts';
import type { EngineOrder } from './engine-order.ts';
import { MarketState } from './market-state.ts';
import { EventState } from './event-state.ts';
import { INDEX_SLOTS as INDEX_SLOTS_IMPORTED, SUBACCOUNT_COUNT as SUBACCOUNT_COUNT_IMPORTED, UserState } from './user-state.ts';
import type { PositionRecord } from './user-state.ts';
import { OrderGroupState } from './order-group-state.ts';
import { FillRecord as FillRecordImported, TradeRecord as TradeRecordImported } from './records.ts';
import type { TradeRecord } from './records.ts';
import { IdSource } from './ids.ts';
import { SeededRandom } from '../../core/index.ts';
import { decodeCursor, encodeCursor, pageLimit } from './pagination.ts';
import { ExpiryHeap } from './expiry-heap.ts';

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

const DEFAULT_OPTIONS: SimEngineOptions = {
  postOnlyCrossReject400: false,
  feeRounding: 'centicent',
  maxOrderGroupsPerUser: 100_000,
  orderGroupWindowMs: 15_000,
  tradeHistoryPerMarket: 1_000,
  maxOrderCount: 10_000_000_000 as Count, // 100 million contracts: price x count stays a safe integer
};

const PRICE_ONE = 10_000;
const NOOP = (): void => {};

// tsx runs TypeScript as CommonJS, where every use of an imported binding is a getter call on the
// module object; the matching path reads these module-local aliases instead (bench/sim-matching:
// the getters cost several percent of an order).
const OrderRecord = EngineOrderImported;
const FillRecord = FillRecordImported;
const TradeRecordClass = TradeRecordImported;
const tradeFee = tradeFeeImported;
const INDEX_SLOTS = INDEX_SLOTS_IMPORTED;
const SUBACCOUNT_COUNT = SUBACCOUNT_COUNT_IMPORTED;

/** ceil(unitPrice x count / 100): what a buyer pays, centicents. */
function costOf(unitPrice: number, count: number): number {
  const product = unitPrice * count;
  const remainder = product % 100;
  return (product - remainder) / 100 + (remainder > 0 ? 1 : 0);
}

/** floor(unitPrice x count / 100): what a seller receives, centicents. */
function proceedsOf(unitPrice: number, count: number): number {
  const product = unitPrice * count;
  return (product - (product % 100)) / 100;
}

/** floor(value x part / whole) for non-negative safe integers, exact. */
function share(value: number, part: number, whole: number): number {
  if (part >= whole) return value;
  const product = value * part;
  if (Number.isSafeInteger(product)) return (product - (product % whole)) / whole;
  return Number((BigInt(value) * BigInt(part)) / BigInt(whole));
}

/** Order group limits: whole contracts from 1 to 1,000,000 (exchange order-groups page). */
function validGroupLimit(limit: number): boolean {
  return Number.isSafeInteger(limit) && limit >= 100 && limit <= 100_000_000 && limit % 100 === 0;
}

const ERR_BAD_GROUP_LIMIT = simError(400, 'bad_request', 'contracts_limit must be a whole number of contracts from 1 to 1,000,000', 'contracts_limit');

function validSubaccount(subaccount: number): boolean {
  return Number.isInteger(subaccount) && subaccount >= 0 && subaccount < SUBACCOUNT_COUNT;
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

export class SimEngine {
  readonly options: Readonly<SimEngineOptions>;
  readonly #now: () => number;
  readonly #random: SeededRandom;
  readonly #orderIds: IdSource;
  readonly #tradeIds: IdSource;
  readonly #groupIds: IdSource;
  readonly #listeners: EngineListener[] = [];
  readonly #series = new Map<string, SeriesSpec>();
  readonly #seriesList: SeriesSpec[] = [];
  readonly #events = new Map<string, EventState>();
  readonly #eventList: EventState[] = [];
  readonly #markets = new Map<string, MarketState>();
  readonly #marketList: MarketState[] = [];
  readonly #users = new Map<string, UserState>();
  /** Live orders (and every order of history users) by sequence number. */
  readonly #orders = new Map<number, EngineOrder>();
  readonly #expiry = new ExpiryHeap();
  readonly #indexes = new Map<number, ExchangeIndexState>();
  #orderSeq = 0;
  #fillSeq = 0;
  #tradeSeq = 0;
  #bookUpdates = 0;
  // Per-request match totals (one request at a time: the engine is synchronous).
  #matchedCount = 0;
  #matchedPriceCount = 0;
  #matchedFees = 0;
  #selfTradeStop = false;
  readonly #scratchFill = new FillRecord();

  constructor(config: SimEngineConfig) {
    this.options = Object.freeze({ ...DEFAULT_OPTIONS, ...(config.options ?? {}) });
    this.#now = config.now;
    this.#random = new SeededRandom(config.seed);
    this.#orderIds = new IdSource(this.#random);
    this.#tradeIds = new IdSource(this.#random);
    this.#groupIds = new IdSource(this.#random);
    for (const index of EXCHANGE_INDEXES) {
      this.#indexes.set(index, { exchangeActive: true, tradingActive: true, intraExchangeTransfersActive: true, description: INDEX_DESCRIPTIONS[index] });
    }
    this.#loadCatalog(config.catalog);
  }

  #loadCatalog(catalog: Catalog): void {
    const nowMs = this.#now();
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
    this.#events.set(spec.eventTicker, event);
    this.#eventList.push(event);
    return event;
  }

  #addMarketState(spec: MarketSpec, nowMs: number): MarketState {
    const event = this.#events.get(spec.eventTicker);
    assert(event !== undefined, 'SimEngine: market event missing from the catalog');
    const market = new MarketState(spec, event, this.#marketList.length, nowMs);
    this.#markets.set(spec.ticker, market);
    this.#marketList.push(market);
    event.markets.push(market);
    return market;
  }

  /** Book deltas emitted so far (the activity generator bounds a step with it). */
  get bookUpdateCount(): number {
    return this.#bookUpdates;
  }

  /** Adds a listener (missing methods are no-ops); returns its unsubscribe function. */
  subscribe(listener: Partial<EngineListener>): () => void {
    const full: EngineListener = {
      onBookDelta: listener.onBookDelta?.bind(listener) ?? NOOP,
      onTrade: listener.onTrade?.bind(listener) ?? NOOP,
      onFill: listener.onFill?.bind(listener) ?? NOOP,
      onUserOrder: listener.onUserOrder?.bind(listener) ?? NOOP,
      onPosition: listener.onPosition?.bind(listener) ?? NOOP,
      onOrderGroup: listener.onOrderGroup?.bind(listener) ?? NOOP,
      onMarketLifecycle: listener.onMarketLifecycle?.bind(listener) ?? NOOP,
      onEventLifecycle: listener.onEventLifecycle?.bind(listener) ?? NOOP,
    };
    this.#listeners.push(full);
    return () => {
      const at = this.#listeners.indexOf(full);
      if (at !== -1) this.#listeners.splice(at, 1);
    };
  }

  // ---------------------------------------------------------------------------------------------
  // Users and money.

  /** Registers a user (idempotent). */
  addUser(userId: string, options?: AddUserOptions): void {
    if (this.#users.has(userId)) return;
    this.#users.set(userId, new UserState(userId, options?.keepHistory ?? true, this.#now()));
  }

  hasUser(userId: string): boolean {
    return this.#users.has(userId);
  }

  /** Adds (or with a negative amount removes) cash on (subaccount, exchange index). */
  deposit(userId: string, subaccount: number, exchangeIndex: number, amount: Centicents): SimError | null {
    const user = this.#users.get(userId);
    if (user === undefined) return ERR_USER_NOT_FOUND;
    if (!validSubaccount(subaccount)) return ERR_BAD_SUBACCOUNT;
    if (!this.#indexes.has(exchangeIndex)) return simError(400, 'bad_request', 'unknown exchange_index');
    if (!Number.isSafeInteger(amount)) return simError(400, 'bad_request', 'amount must be integer centicents');
    const slot = subaccount * INDEX_SLOTS + exchangeIndex;
    if (amount < 0 && user.cash[slot] - user.reserved[slot] + amount < 0) return ERR_INSUFFICIENT_BALANCE;
    user.cash[slot] += amount;
    const nowMs = this.#now();
    user.slotUpdatedMs[slot] = nowMs;
    user.updatedMs = nowMs;
    return null;
  }

  /** Moves cash between two subaccounts of one user on one exchange index. */
  transfer(userId: string, fromSubaccount: number, toSubaccount: number, exchangeIndex: number, amount: Centicents): SimError | null {
    const user = this.#users.get(userId);
    if (user === undefined) return ERR_USER_NOT_FOUND;
    if (!validSubaccount(fromSubaccount) || !validSubaccount(toSubaccount)) return ERR_BAD_SUBACCOUNT;
    if (!this.#indexes.has(exchangeIndex)) return simError(400, 'bad_request', 'unknown exchange_index');
    if (!Number.isSafeInteger(amount) || amount <= 0) return simError(400, 'bad_request', 'amount must be positive integer centicents');
    const from = fromSubaccount * INDEX_SLOTS + exchangeIndex;
    const to = toSubaccount * INDEX_SLOTS + exchangeIndex;
    if (user.cash[from] - user.reserved[from] < amount) return ERR_INSUFFICIENT_BALANCE;
    user.cash[from] -= amount;
    user.cash[to] += amount;
    const nowMs = this.#now();
    user.slotUpdatedMs[from] = nowMs;
    user.slotUpdatedMs[to] = nowMs;
    return null;
  }

  #available(user: UserState, slot: number): number {
    return user.cash[slot] - user.reserved[slot];
  }

  /** Sets the collateral an order holds for its remaining count; adjusts the account. */
  #reserve(order: EngineOrder): void {
    const unit = order.sideCode === 0 ? order.price : PRICE_ONE - order.price;
    const next = order.reduceOnly || order.status !== 'resting' ? 0 : costOf(unit, order.remainingCount);
    if (next !== order.reserved) {
      order.user.reserved[order.subaccount * INDEX_SLOTS + order.exchangeIndex] += next - order.reserved;
      order.reserved = next;
    }
  }

  // ---------------------------------------------------------------------------------------------
  // Emission helpers.

  #emitDelta(order: EngineOrder, delta: number, reason: UpdateReason, tsMs: number): void {
    this.#bookUpdates++;
    const listeners = this.#listeners;
    if (listeners.length === 0) return;
    const market = order.market;
    const isYes = order.sideCode === 0;
    const price = (isYes ? order.price : PRICE_ONE - order.price) as Price;
    for (let i = 0; i < listeners.length; i++) listeners[i].onBookDelta(market, isYes ? 'yes' : 'no', price, delta as Count, order, reason, tsMs);
  }

  #emitUserOrder(order: EngineOrder): void {
    const listeners = this.#listeners;
    for (let i = 0; i < listeners.length; i++) listeners[i].onUserOrder(order.userId, order);
  }

  #emitGroup(group: OrderGroupState, eventType: OrderGroupEventType, tsMs: number): void {
    if (this.#listeners.length === 0) return;
    const event = { eventType, orderGroupId: group.orderGroupId, subaccount: group.subaccount, contractsLimit: group.contractsLimit, tsMs };
    for (const listener of this.#listeners) listener.onOrderGroup(group.userId, event);
  }

  #emitLifecycle(market: MarketState, eventType: MarketLifecycleType, tsMs: number): void {
    if (this.#listeners.length === 0) return;
    const event = { eventType, market, tsMs };
    for (const listener of this.#listeners) listener.onMarketLifecycle(event);
  }

  // ---------------------------------------------------------------------------------------------
  // Orders: create.

  createOrder(userId: string, params: CreateOrderParams): CreateOrderResult | SimError {
    const nowMs = this.#now();
    this.#expireDue(nowMs);
    const user = this.#users.get(userId);
    if (user === undefined) return ERR_USER_NOT_FOUND;
    const market = this.#markets.get(params.ticker);
    if (market === undefined) return ERR_MARKET_NOT_FOUND;
    const invalid = this.#checkCreate(user, market, params, nowMs);
    if (invalid !== null) return invalid;
    const subaccount = params.subaccount ?? 0;
    const sideCode = params.side === 'bid' ? 0 : 1;
    const level = market.book.levelOf(params.price);
    const groupId = params.orderGroupId ?? '';
    const group = groupId === '' ? null : (user.groups.get(groupId) as OrderGroupState);
    let count = params.count as number;
    const reduceOnly = params.reduceOnly === true;
    if (reduceOnly) {
      const held = user.positionIfAny(market, subaccount)?.position ?? 0;
      const reducible = sideCode === 0 ? (held < 0 ? -held : 0) : held > 0 ? held : 0;
      if (reducible === 0) return simError(400, 'invalid_order', 'reduce_only order would not reduce a position', 'reduce_only');
      if (count > reducible) count = reducible;
    }
    const postOnly = params.postOnly === true;
    const crosses = this.#crosses(market, sideCode, level);
    if (postOnly && crosses && this.options.postOnlyCrossReject400) return ERR_POST_ONLY_CROSS;
    if (!reduceOnly) {
      const unit = sideCode === 0 ? params.price : PRICE_ONE - params.price;
      let need = costOf(unit, count);
      if (crosses && !postOnly) need += tradeFee(market.event.takerRate, market.event.feeMultiplier, params.price, count as Count, this.options.feeRounding === 'cent');
      if (need > this.#available(user, subaccount * INDEX_SLOTS + market.exchangeIndex)) return ERR_INSUFFICIENT_BALANCE;
    }
    const order = this.#newOrder(user, market, params, count, level, group, nowMs);
    this.#resetMatchTotals();
    if (postOnly && crosses) {
      this.#finish(order, 'canceled', 'PostOnlyCrossCancel', nowMs);
    } else if (params.timeInForce === 'fill_or_kill' && !this.#canFill(order)) {
      this.#finish(order, 'canceled', 'FillOrKillCancel', nowMs);
    } else {
      if (crosses) this.#match(order, nowMs);
      this.#settleTaker(order, '', nowMs);
    }
    this.#emitUserOrder(order);
    return this.#createResult(order, nowMs);
  }

  /** The request-shape checks of a create, in the order the exchange would report them. */
  #checkCreate(user: UserState, market: MarketState, params: CreateOrderParams, nowMs: number): SimError | null {
    const subaccount = params.subaccount ?? 0;
    if (!validSubaccount(subaccount)) return ERR_BAD_SUBACCOUNT;
    const routed = params.exchangeIndex;
    if (routed !== undefined && routed !== null && routed !== -1 && routed !== market.exchangeIndex) return ERR_BAD_EXCHANGE_INDEX;
    const side = params.side;
    if (side !== 'bid' && side !== 'ask') return simError(400, 'bad_request', 'side must be bid or ask');
    const clientOrderId = params.clientOrderId ?? '';
    if (clientOrderId !== '' && user.keepHistory && user.clientOrderIds.has(clientOrderId)) return ERR_DUPLICATE_CLIENT_ID;
    const count = params.count as number;
    if (!Number.isSafeInteger(count) || count <= 0 || count > this.options.maxOrderCount) return ERR_INVALID_COUNT;
    if (market.book.levelOf(params.price) === -1) return ERR_INVALID_PRICE;
    const timeInForce = params.timeInForce;
    if (timeInForce !== 'good_till_canceled' && timeInForce !== 'immediate_or_cancel' && timeInForce !== 'fill_or_kill') {
      return simError(400, 'bad_request', 'time_in_force must be good_till_canceled, immediate_or_cancel or fill_or_kill');
    }
    const stp = params.selfTradePrevention;
    if (stp !== 'taker_at_cross' && stp !== 'maker') return simError(400, 'bad_request', 'self_trade_prevention_type must be taker_at_cross or maker');
    const expirationTs = params.expirationTs ?? 0;
    if (expirationTs !== 0) {
      if (timeInForce !== 'good_till_canceled') return simError(400, 'invalid_order', 'expiration_time is only allowed with good_till_canceled', 'expiration_time');
      if (!Number.isSafeInteger(expirationTs) || expirationTs * 1000 <= nowMs) return simError(400, 'invalid_order', 'expiration_time must be in the future', 'expiration_time');
    }
    if (params.postOnly === true && timeInForce !== 'good_till_canceled') return simError(400, 'invalid_order', 'post_only requires good_till_canceled', 'post_only');
    const gate = this.#tradingGate(market);
    if (gate !== null) return gate;
    const groupId = params.orderGroupId ?? '';
    if (groupId !== '') {
      const group = user.groups.get(groupId);
      if (group === undefined) return ERR_GROUP_NOT_FOUND;
      if (group.subaccount !== subaccount) return simError(400, 'invalid_order', 'order group belongs to another subaccount', 'order_group_id');
      if (group.triggered) return ERR_GROUP_TRIGGERED;
    }
    return null;
  }

  /** Builds and registers an accepted order (collateral reserved, id and sequence assigned). */
  #newOrder(user: UserState, market: MarketState, params: CreateOrderParams, count: number, level: number, group: OrderGroupState | null, nowMs: number): EngineOrder {
    const order = new OrderRecord(this.#orderIds, user, market);
    const clientOrderId = params.clientOrderId ?? '';
    order.clientOrderId = clientOrderId;
    order.subaccount = params.subaccount ?? 0;
    order.side = params.side;
    order.sideCode = params.side === 'bid' ? 0 : 1;
    order.price = params.price;
    order.level = level;
    order.initialCount = count as Count;
    order.remainingCount = count as Count;
    order.timeInForce = params.timeInForce;
    order.postOnly = params.postOnly === true;
    order.reduceOnly = params.reduceOnly === true;
    order.selfTradePrevention = params.selfTradePrevention;
    order.orderGroupId = group === null ? null : group.orderGroupId;
    order.group = group;
    order.cancelOrderOnPause = params.cancelOrderOnPause === true;
    order.expirationTs = params.expirationTs ?? 0;
    order.createdMs = nowMs;
    order.lastUpdateMs = nowMs;
    order.seq = ++this.#orderSeq;
    this.#orders.set(order.seq, order);
    if (user.keepHistory) {
      user.orders.push(order);
      if (clientOrderId !== '') user.clientOrderIds.add(clientOrderId);
    }
    this.#reserve(order);
    return order;
  }

  #createResult(order: EngineOrder, nowMs: number): CreateOrderResult {
    return {
      isError: false,
      order,
      fillCount: this.#matchedCount as Count,
      remainingCount: order.remainingCount,
      fillNotional: costOf(this.#matchedPriceCount, 1) as Centicents,
      fees: this.#matchedFees as Centicents,
      averageFillPrice: this.#averagePrice(),
      averageFeePaid: this.#averageFee(),
      tsMs: nowMs,
    };
  }

  #resetMatchTotals(): void {
    this.#matchedCount = 0;
    this.#matchedPriceCount = 0;
    this.#matchedFees = 0;
    this.#selfTradeStop = false;
  }

  #averagePrice(): Price {
    if (this.#matchedCount === 0) return 0 as Price;
    return Math.round(this.#matchedPriceCount / this.#matchedCount) as Price;
  }

  /** Fee per whole contract, centicents (fees x 100 / count), rounded half up. */
  #averageFee(): Centicents {
    if (this.#matchedCount === 0) return 0 as Centicents;
    return Math.round((this.#matchedFees * 100) / this.#matchedCount) as Centicents;
  }

  #tradingGate(market: MarketState): SimError | null {
    const index = this.#indexes.get(market.exchangeIndex);
    if (index !== undefined) {
      if (!index.exchangeActive) return ERR_EXCHANGE_PAUSED;
      if (!index.tradingActive) return ERR_TRADING_PAUSED;
    }
    if (market.status !== 'active') return ERR_MARKET_CLOSED;
    return null;
  }

  /** True when an order at `level` on `sideCode` would trade against the book now. */
  #crosses(market: MarketState, sideCode: number, level: number): boolean {
    const book = market.book;
    if (sideCode === 0) return book.bestAsk !== -1 && book.bestAsk <= level;
    return book.bestBid !== -1 && book.bestBid >= level;
  }

  /** Fill-or-kill check: contracts reachable before the limit, as matching would take them. */
  #canFill(order: EngineOrder): boolean {
    const book = order.market.book;
    let needed = order.remainingCount as number;
    const bid = order.sideCode === 0;
    const from = bid ? book.bestAsk : book.bestBid;
    if (from === -1) return false;
    const step = bid ? 1 : -1;
    for (let level = from; bid ? level <= order.level : level >= order.level; level += step) {
      let maker = bid ? book.askHead[level] : book.bidHead[level];
      for (; maker !== null; maker = maker.next) {
        if (maker.user === order.user) {
          if (order.selfTradePrevention === 'taker_at_cross') return false;
          continue; // 'maker' STP cancels it and goes on
        }
        needed -= maker.remainingCount;
        if (needed <= 0) return true;
      }
    }
    return false;
  }

  /**
   * Matches `taker` (not in the book) against the opposite side while it crosses. Always takes
   * the head of the best level again after each step, so cancellations during the loop (self-trade,
   * an order group triggering) can never leave a stale pointer.
   */
  #match(taker: EngineOrder, nowMs: number): void {
    const book = taker.market.book;
    const bid = taker.sideCode === 0;
    while (taker.remainingCount > 0) {
      const level = bid ? book.bestAsk : book.bestBid;
      if (level === -1 || (bid ? level > taker.level : level < taker.level)) break;
      const maker = (bid ? book.askHead[level] : book.bidHead[level]) as EngineOrder;
      if (maker.user === taker.user) {
        if (taker.selfTradePrevention === 'taker_at_cross') {
          this.#selfTradeStop = true;
          break;
        }
        this.#cancelResting(maker, 'SelfTradeCancel', nowMs);
        continue;
      }
      const quantity = taker.remainingCount < maker.remainingCount ? taker.remainingCount : maker.remainingCount;
      this.#execute(taker, maker, level, quantity, nowMs);
      if (taker.group !== null && taker.group.triggered) break;
    }
  }

  #execute(taker: EngineOrder, maker: EngineOrder, level: number, quantity: number, nowMs: number): void {
    const market = maker.market;
    const book = market.book;
    const tradePrice = market.grid.priceAt(level);
    // The maker's resting size leaves the book first (the delta the book feed shows).
    book.shrink(maker, quantity as Count);
    maker.remainingCount = (maker.remainingCount - quantity) as Count;
    maker.fillCount = (maker.fillCount + quantity) as Count;
    maker.lastUpdateMs = nowMs;
    maker.lastUpdateReason = 'Trade';
    if (maker.remainingCount === 0) {
      book.remove(maker);
      maker.status = 'executed';
      this.#detach(maker);
    }
    this.#reserve(maker);
    this.#emitDelta(maker, -quantity, 'Trade', nowMs);

    market.recordTrade(tradePrice, quantity as Count, nowMs);
    const trade = this.#recordTrade(market, tradePrice, quantity, taker.side, nowMs);
    for (let i = 0; i < this.#listeners.length; i++) this.#listeners[i].onTrade(market, trade);

    this.#applyFill(maker, trade, tradePrice, quantity, false, nowMs);
    this.#emitUserOrder(maker);

    taker.remainingCount = (taker.remainingCount - quantity) as Count;
    taker.fillCount = (taker.fillCount + quantity) as Count;
    taker.lastUpdateMs = nowMs;
    taker.lastUpdateReason = 'Trade';
    this.#reserve(taker);
    const takerFee = this.#applyFill(taker, trade, tradePrice, quantity, true, nowMs);
    this.#matchedCount += quantity;
    this.#matchedPriceCount += tradePrice * quantity;
    this.#matchedFees += takerFee;

    if (maker.group !== null) this.#groupMatched(maker.group, quantity, nowMs);
    if (taker.group !== null) this.#groupMatched(taker.group, quantity, nowMs);
    if (!maker.user.keepHistory && maker.status !== 'resting') this.#orders.delete(maker.seq);
  }

  #recordTrade(market: MarketState, price: Price, count: number, takerSide: BookSide, nowMs: number): TradeRecord {
    const seq = ++this.#tradeSeq;
    const capacity = this.options.tradeHistoryPerMarket;
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

  /**
   * Books one side of an execution on its owner: cash, position (netting YES against NO), fees,
   * the order's cost fields, the fill record and its events. Returns the fee charged.
   */
  #applyFill(order: EngineOrder, trade: TradeRecord, tradePrice: number, quantity: number, isTaker: boolean, nowMs: number): number {
    const market = order.market;
    const user = order.user;
    const event = market.event;
    const bid = order.sideCode === 0;
    const unit = bid ? tradePrice : PRICE_ONE - tradePrice; // what this side pays per contract
    const rate = isTaker ? event.takerRate : event.makerRate;
    const fee = rate === 0 ? 0 : tradeFee(rate, event.feeMultiplier, tradePrice as Price, quantity as Count, this.options.feeRounding === 'cent');
    const position = user.position(market, order.subaccount, nowMs);
    const held = position.position as number;
    const opposite = bid ? (held < 0 ? -held : 0) : held > 0 ? held : 0;
    const closing = quantity < opposite ? quantity : opposite;
    const opening = quantity - closing;
    const slot = order.subaccount * INDEX_SLOTS + order.exchangeIndex;
    let cash = -fee;
    if (closing > 0) {
      // Buying the other outcome of contracts held: each pair pays $1 at once.
      const heldAbs = held < 0 ? -held : held;
      const removedCost = share(position.positionCost, closing, heldAbs);
      const removedFees = share(position.positionFeeCost, closing, heldAbs);
      const proceeds = proceedsOf(PRICE_ONE - unit, closing);
      cash += proceeds;
      position.positionCost = (position.positionCost - removedCost) as Centicents;
      position.positionFeeCost = (position.positionFeeCost - removedFees) as Centicents;
      position.realizedPnl = (position.realizedPnl + proceeds - removedCost) as Centicents;
    }
    if (opening > 0) {
      const cost = costOf(unit, opening);
      cash -= cost;
      position.positionCost = (position.positionCost + cost) as Centicents;
      position.positionFeeCost = (position.positionFeeCost + (closing === 0 ? fee : share(fee, opening, quantity))) as Centicents;
    }
    user.cash[slot] += cash;
    user.slotUpdatedMs[slot] = nowMs;
    user.updatedMs = nowMs;
    const next = held + (bid ? quantity : -quantity);
    market.openInterest = (market.openInterest + (next > 0 ? next : 0) - (held > 0 ? held : 0)) as Count;
    position.position = next as Count;
    position.feesPaid = (position.feesPaid + fee) as Centicents;
    const notional = costOf(unit, quantity);
    position.totalTraded = (position.totalTraded + notional) as Centicents;
    position.volume = (position.volume + quantity) as Count;
    position.lastUpdatedMs = nowMs;
    if (isTaker) {
      order.takerFillCost = (order.takerFillCost + notional) as Centicents;
      order.takerFees = (order.takerFees + fee) as Centicents;
    } else {
      order.makerFillCost = (order.makerFillCost + notional) as Centicents;
      order.makerFees = (order.makerFees + fee) as Centicents;
    }
    // History users keep their fills (fixed id); others get the engine's scratch record.
    const fill = user.keepHistory ? new FillRecord() : this.#scratchFill;
    fill.fixedId = user.keepHistory ? trade.tradeId : '';
    fill.trade = user.keepHistory ? null : trade;
    fill.orderIds = this.#orderIds;
    fill.orderSeq = order.seq;
    fill.clientOrderId = order.clientOrderId;
    fill.userId = user.userId;
    fill.ticker = market.ticker;
    fill.exchangeIndex = market.exchangeIndex;
    fill.subaccount = order.subaccount;
    fill.side = order.side;
    fill.price = tradePrice as Price;
    fill.count = quantity as Count;
    fill.isTaker = isTaker;
    fill.fee = fee as Centicents;
    fill.postPosition = next as Count;
    fill.tsMs = nowMs;
    fill.seq = ++this.#fillSeq;
    if (user.keepHistory) user.fills.push(fill);
    const listeners = this.#listeners;
    for (let i = 0; i < listeners.length; i++) listeners[i].onFill(user.userId, fill, order);
    for (let i = 0; i < listeners.length; i++) listeners[i].onPosition(user.userId, position);
    return fee;
  }

  /**
   * After matching: the taker's remainder rests (GTC), or is cancelled (IOC, FOK remainder,
   * self-trade stop, triggered group); status executed when nothing remains.
   */
  #settleTaker(order: EngineOrder, restReason: UpdateReason, nowMs: number): void {
    if (this.#selfTradeStop) {
      this.#finish(order, 'canceled', 'SelfTradeCancel', nowMs);
    } else if (order.group !== null && order.group.triggered && order.remainingCount > 0) {
      this.#finish(order, 'canceled', 'OrderGroupCancel', nowMs);
    } else if (order.remainingCount === 0) {
      this.#finish(order, 'executed', order.lastUpdateReason, nowMs);
    } else if (order.timeInForce !== 'good_till_canceled') {
      this.#finish(order, 'canceled', order.timeInForce === 'fill_or_kill' ? 'FillOrKillCancel' : 'ImmediateOrCancel', nowMs);
    } else {
      order.market.book.add(order);
      order.user.addResting(order);
      if (order.group !== null) order.group.orders.add(order);
      if (order.expirationTs !== 0) this.#expiry.push(order);
      if (restReason !== '') order.lastUpdateReason = restReason;
      this.#emitDelta(order, order.remainingCount, restReason, nowMs);
    }
  }

  /** Ends an order that is not in the book: canceled (remaining dropped) or executed. */
  #finish(order: EngineOrder, status: 'canceled' | 'executed', reason: UpdateReason, nowMs: number): void {
    order.status = status;
    order.remainingCount = 0 as Count;
    order.lastUpdateReason = reason;
    order.lastUpdateMs = nowMs;
    this.#reserve(order);
    this.#detach(order);
    if (!order.user.keepHistory) this.#orders.delete(order.seq);
  }

  #detach(order: EngineOrder): void {
    order.user.removeResting(order);
    if (order.group !== null) order.group.orders.delete(order);
  }

  /** Cancels a resting order: leaves the book (delta), releases collateral, emits the update. */
  #cancelResting(order: EngineOrder, reason: UpdateReason, nowMs: number): number {
    const reducedBy = order.remainingCount as number;
    order.market.book.remove(order);
    order.status = 'canceled';
    order.lastUpdateReason = reason;
    order.lastUpdateMs = nowMs;
    this.#reserve(order);
    this.#emitDelta(order, -reducedBy, reason, nowMs);
    order.remainingCount = 0 as Count;
    this.#detach(order);
    if (!order.user.keepHistory) this.#orders.delete(order.seq);
    this.#emitUserOrder(order);
    return reducedBy;
  }

  // ---------------------------------------------------------------------------------------------
  // Orders: cancel, amend, decrease, batches.

  /** The user's resting order, or the 404 the exchange gives for unknown, foreign or finished orders. */
  #ownedResting(user: UserState, orderId: string, subaccount: number | null | undefined): EngineOrder | SimError {
    const order = this.#orders.get(this.#orderIds.parse(orderId));
    if (order === undefined || order.user !== user) return ERR_ORDER_NOT_FOUND;
    if (subaccount !== undefined && subaccount !== null && order.subaccount !== subaccount) return ERR_ORDER_NOT_FOUND;
    if (order.status !== 'resting' || !order.inBook) return ERR_ORDER_NOT_FOUND;
    return order;
  }

  cancelOrder(userId: string, orderId: string, subaccount?: number | null): CancelOrderResult | SimError {
    const nowMs = this.#now();
    this.#expireDue(nowMs);
    const user = this.#users.get(userId);
    if (user === undefined) return ERR_USER_NOT_FOUND;
    const order = this.#ownedResting(user, orderId, subaccount);
    if (!(order instanceof OrderRecord)) return order;
    const reducedBy = this.#cancelResting(order, 'Cancel', nowMs);
    return { isError: false, order, reducedBy: reducedBy as Count, tsMs: nowMs };
  }

  amendOrder(userId: string, orderId: string, params: AmendOrderParams): AmendOrderResult | SimError {
    const nowMs = this.#now();
    this.#expireDue(nowMs);
    const user = this.#users.get(userId);
    if (user === undefined) return ERR_USER_NOT_FOUND;
    const found = this.#ownedResting(user, orderId, params.subaccount);
    if (!(found instanceof OrderRecord)) return found;
    const order = found;
    const market = order.market;
    if (params.ticker !== order.ticker) return simError(400, 'invalid_order', 'ticker does not match the order', 'ticker');
    if (params.side !== order.side) return simError(400, 'invalid_order', 'side does not match the order', 'side');
    if (params.clientOrderId !== undefined && params.clientOrderId !== null && params.clientOrderId !== '' && params.clientOrderId !== order.clientOrderId) {
      return simError(400, 'invalid_order', 'client_order_id does not match the order', 'client_order_id');
    }
    const routed = params.exchangeIndex;
    if (routed !== undefined && routed !== null && routed !== -1 && routed !== market.exchangeIndex) return ERR_BAD_EXCHANGE_INDEX;
    const level = market.book.levelOf(params.price);
    if (level === -1) return ERR_INVALID_PRICE;
    const total = params.count as number;
    if (!Number.isSafeInteger(total) || total <= 0 || total > this.options.maxOrderCount) return ERR_INVALID_COUNT;
    const remaining = total - order.fillCount;
    if (remaining <= 0) return simError(400, 'invalid_order', 'count must exceed the filled count', 'count');
    const updatedId = params.updatedClientOrderId ?? '';
    if (updatedId !== '' && updatedId !== order.clientOrderId && user.keepHistory && user.clientOrderIds.has(updatedId)) return ERR_DUPLICATE_CLIENT_ID;
    const gate = this.#tradingGate(market);
    if (gate !== null) return gate;
    const priceChanged = params.price !== order.price;
    const grows = remaining > order.remainingCount;
    const crosses = priceChanged && this.#crosses(market, order.sideCode, level);
    if (order.postOnly && crosses && this.options.postOnlyCrossReject400) return ERR_POST_ONLY_CROSS;
    if (!order.reduceOnly) {
      const unit = order.sideCode === 0 ? params.price : PRICE_ONE - params.price;
      let need = costOf(unit, remaining) - order.reserved;
      if (crosses && !order.postOnly) need += tradeFee(market.event.takerRate, market.event.feeMultiplier, params.price, remaining as Count, this.options.feeRounding === 'cent');
      if (need > 0 && need > this.#available(user, order.subaccount * INDEX_SLOTS + order.exchangeIndex)) return ERR_INSUFFICIENT_BALANCE;
    }
    if (updatedId !== '' && updatedId !== order.clientOrderId) {
      order.clientOrderId = updatedId;
      if (user.keepHistory) user.clientOrderIds.add(updatedId);
    }
    this.#resetMatchTotals();
    let sizeChangedOrFilled = false;
    if (!priceChanged && !grows) {
      if (remaining < order.remainingCount) {
        this.#shrinkResting(order, order.remainingCount - remaining, 'Amend', nowMs);
        sizeChangedOrFilled = true;
      }
      order.initialCount = total as Count;
    } else {
      // Loses time priority: out of the book, re-enters as a new taker at the new terms.
      const before = order.remainingCount as number;
      order.market.book.remove(order);
      this.#emitDelta(order, -before, 'Amend', nowMs);
      order.price = params.price;
      order.level = level;
      order.initialCount = total as Count;
      order.remainingCount = remaining as Count;
      order.lastUpdateMs = nowMs;
      order.lastUpdateReason = 'Amend';
      this.#reserve(order);
      if (order.postOnly && crosses) {
        this.#finish(order, 'canceled', 'PostOnlyCrossCancel', nowMs);
      } else {
        this.#detach(order); // re-attached when it rests again
        if (crosses) this.#match(order, nowMs);
        this.#settleTaker(order, 'Amend', nowMs);
      }
      sizeChangedOrFilled = this.#matchedCount > 0 || order.remainingCount !== before;
    }
    this.#emitUserOrder(order);
    return {
      isError: false,
      order,
      sizeChangedOrFilled,
      fillCount: this.#matchedCount as Count,
      remainingCount: order.remainingCount,
      fillNotional: costOf(this.#matchedPriceCount, 1) as Centicents,
      fees: this.#matchedFees as Centicents,
      averageFillPrice: this.#averagePrice(),
      averageFeePaid: this.#averageFee(),
      tsMs: nowMs,
    };
  }

  /** Reduces a resting order in place (keeps its queue position). */
  #shrinkResting(order: EngineOrder, by: number, reason: UpdateReason, nowMs: number): void {
    order.market.book.shrink(order, by as Count);
    order.remainingCount = (order.remainingCount - by) as Count;
    order.lastUpdateMs = nowMs;
    order.lastUpdateReason = reason;
    this.#reserve(order);
    this.#emitDelta(order, -by, reason, nowMs);
  }

  decreaseOrder(userId: string, orderId: string, params: DecreaseOrderParams): DecreaseOrderResult | SimError {
    const nowMs = this.#now();
    this.#expireDue(nowMs);
    const user = this.#users.get(userId);
    if (user === undefined) return ERR_USER_NOT_FOUND;
    const hasBy = params.reduceBy !== undefined && params.reduceBy !== null;
    const hasTo = params.reduceTo !== undefined && params.reduceTo !== null;
    if (hasBy === hasTo) return simError(400, 'bad_request', 'exactly one of reduce_by and reduce_to is required');
    const found = this.#ownedResting(user, orderId, params.subaccount);
    if (!(found instanceof OrderRecord)) return found;
    const order = found;
    if (params.ticker !== undefined && params.ticker !== null && params.ticker !== '' && params.ticker !== order.ticker) {
      return simError(400, 'invalid_order', 'market_ticker does not match the order', 'market_ticker');
    }
    const routed = params.exchangeIndex;
    if (routed !== undefined && routed !== null && routed !== -1 && routed !== order.exchangeIndex) return ERR_BAD_EXCHANGE_INDEX;
    let target: number;
    if (hasBy) {
      const by = params.reduceBy as number;
      if (!Number.isSafeInteger(by) || by <= 0) return simError(400, 'invalid_order', 'reduce_by must be a positive count', 'reduce_by');
      target = order.remainingCount - by;
      if (target < 0) target = 0;
    } else {
      target = params.reduceTo as number;
      if (!Number.isSafeInteger(target) || target < 0) return simError(400, 'invalid_order', 'reduce_to must be a non-negative count', 'reduce_to');
      if (target >= order.remainingCount) return simError(400, 'invalid_order', 'reduce_to must be below the remaining count', 'reduce_to');
    }
    if (target === 0) {
      this.#cancelResting(order, 'Decrease', nowMs);
    } else {
      this.#shrinkResting(order, order.remainingCount - target, 'Decrease', nowMs);
      this.#emitUserOrder(order);
    }
    return { isError: false, order, remainingCount: order.remainingCount, tsMs: nowMs };
  }

  batchCreateOrders(userId: string, params: readonly CreateOrderParams[]): Array<CreateOrderResult | SimError> {
    const out: Array<CreateOrderResult | SimError> = [];
    for (const item of params) out.push(this.createOrder(userId, item));
    return out;
  }

  batchCancelOrders(userId: string, items: readonly BatchCancelItem[]): Array<CancelOrderResult | SimError> {
    const out: Array<CancelOrderResult | SimError> = [];
    for (const item of items) {
      const order = this.#orders.get(this.#orderIds.parse(item.orderId));
      if (order !== undefined && item.ticker !== undefined && item.ticker !== null && item.ticker !== '' && item.ticker !== order.ticker) {
        out.push(ERR_ORDER_NOT_FOUND);
        continue;
      }
      if (order !== undefined && item.exchangeIndex !== undefined && item.exchangeIndex !== null && item.exchangeIndex !== -1 && item.exchangeIndex !== order.exchangeIndex) {
        out.push(ERR_BAD_EXCHANGE_INDEX);
        continue;
      }
      out.push(this.cancelOrder(userId, item.orderId, item.subaccount));
    }
    return out;
  }

  /** Cancels every resting order of the user (one subaccount, or all when null). Returns how many. */
  cancelAllOrders(userId: string, subaccount: number | null): number {
    const nowMs = this.#now();
    this.#expireDue(nowMs);
    const user = this.#users.get(userId);
    if (user === undefined) return 0;
    const victims: EngineOrder[] = [];
    for (let order = user.restingHead; order !== null; order = order.userNext) if (subaccount === null || order.subaccount === subaccount) victims.push(order);
    victims.sort((a, b) => a.seq - b.seq);
    for (const order of victims) this.#cancelResting(order, 'Cancel', nowMs);
    return victims.length;
  }

  /** Cancels every GTC order whose expiration_time has passed; also runs before each call. */
  expireOrders(): number {
    return this.#expireDue(this.#now());
  }

  #expireDue(nowMs: number): number {
    const heap = this.#expiry;
    if (heap.size === 0 || heap.peekMs() > nowMs) return 0;
    let expired = 0;
    while (heap.size > 0 && heap.peekMs() <= nowMs) {
      const order = heap.pop();
      if (order.status === 'resting' && order.inBook) {
        this.#cancelResting(order, 'ExpiryCancel', nowMs);
        expired++;
      }
    }
    return expired;
  }

  // ---------------------------------------------------------------------------------------------
  // Order groups.

  #groupMatched(group: OrderGroupState, quantity: number, nowMs: number): void {
    if (group.addMatched(quantity as Count, nowMs, this.options.orderGroupWindowMs) && !group.triggered) this.#triggerGroup(group, nowMs);
  }

  #triggerGroup(group: OrderGroupState, nowMs: number): void {
    group.triggered = true;
    this.#cancelGroupOrders(group, nowMs);
    this.#emitGroup(group, 'triggered', nowMs);
  }

  #cancelGroupOrders(group: OrderGroupState, nowMs: number): void {
    const victims = [...group.orders].filter((o) => o.inBook).sort((a, b) => a.seq - b.seq);
    for (const order of victims) this.#cancelResting(order, 'OrderGroupCancel', nowMs);
  }

  #ownedGroup(userId: string, orderGroupId: string, subaccount: number | null | undefined): OrderGroupState | SimError {
    const user = this.#users.get(userId);
    if (user === undefined) return ERR_USER_NOT_FOUND;
    const group = user.groups.get(orderGroupId);
    if (group === undefined) return ERR_GROUP_NOT_FOUND;
    if (subaccount !== undefined && subaccount !== null && group.subaccount !== subaccount) return ERR_GROUP_NOT_FOUND;
    return group;
  }

  createOrderGroup(userId: string, params: CreateOrderGroupParams): OrderGroup | SimError {
    const nowMs = this.#now();
    const user = this.#users.get(userId);
    if (user === undefined) return ERR_USER_NOT_FOUND;
    const subaccount = params.subaccount ?? 0;
    if (!validSubaccount(subaccount)) return ERR_BAD_SUBACCOUNT;
    const limit = params.contractsLimit ?? null;
    if (limit !== null && !validGroupLimit(limit)) return ERR_BAD_GROUP_LIMIT;
    const index = params.exchangeIndex ?? 0;
    if (index !== 0 && index !== 2 && index !== 3) return simError(400, 'bad_request', 'unknown exchange_index');
    if (user.groups.size >= this.options.maxOrderGroupsPerUser) {
      return simError(400, 'order_group_limit_reached', `order group limit of ${this.options.maxOrderGroupsPerUser} per user reached`);
    }
    const group = new OrderGroupState(this.#groupIds.next(), userId, subaccount, index, limit, nowMs);
    user.groups.set(group.orderGroupId, group);
    this.#emitGroup(group, 'created', nowMs);
    return group;
  }

  getOrderGroup(userId: string, orderGroupId: string, subaccount?: number | null): { group: OrderGroup; orderIds: string[] } | SimError {
    const group = this.#ownedGroup(userId, orderGroupId, subaccount);
    if (!(group instanceof OrderGroupState)) return group;
    group.expire(this.#now(), this.options.orderGroupWindowMs);
    const orderIds = [...group.orders].sort((a, b) => a.seq - b.seq).map((o) => o.orderId);
    return { group, orderIds };
  }

  listOrderGroups(userId: string, subaccount?: number | null): OrderGroup[] | SimError {
    const user = this.#users.get(userId);
    if (user === undefined) return ERR_USER_NOT_FOUND;
    const nowMs = this.#now();
    const out: OrderGroup[] = [];
    for (const group of user.groups.values()) {
      if (subaccount !== undefined && subaccount !== null && group.subaccount !== subaccount) continue;
      group.expire(nowMs, this.options.orderGroupWindowMs);
      out.push(group);
    }
    return out;
  }

  deleteOrderGroup(userId: string, orderGroupId: string, subaccount?: number | null): SimError | null {
    const group = this.#ownedGroup(userId, orderGroupId, subaccount);
    if (!(group instanceof OrderGroupState)) return group;
    const nowMs = this.#now();
    this.#cancelGroupOrders(group, nowMs);
    this.#users.get(userId)?.groups.delete(orderGroupId);
    this.#emitGroup(group, 'deleted', nowMs);
    return null;
  }

  resetOrderGroup(userId: string, orderGroupId: string, subaccount?: number | null): SimError | null {
    const group = this.#ownedGroup(userId, orderGroupId, subaccount);
    if (!(group instanceof OrderGroupState)) return group;
    group.clearWindow();
    group.triggered = false;
    this.#emitGroup(group, 'reset', this.#now());
    return null;
  }

  triggerOrderGroup(userId: string, orderGroupId: string, subaccount?: number | null): SimError | null {
    const group = this.#ownedGroup(userId, orderGroupId, subaccount);
    if (!(group instanceof OrderGroupState)) return group;
    this.#triggerGroup(group, this.#now());
    return null;
  }

  setOrderGroupLimit(userId: string, orderGroupId: string, contractsLimit: Count | null, subaccount?: number | null): SimError | null {
    const group = this.#ownedGroup(userId, orderGroupId, subaccount);
    if (!(group instanceof OrderGroupState)) return group;
    if (contractsLimit !== null && !validGroupLimit(contractsLimit)) return ERR_BAD_GROUP_LIMIT;
    const nowMs = this.#now();
    group.contractsLimit = contractsLimit;
    this.#emitGroup(group, 'limit_updated', nowMs);
    group.expire(nowMs, this.options.orderGroupWindowMs);
    if (!group.triggered && group.limitReached()) this.#triggerGroup(group, nowMs);
    return null;
  }

  // ---------------------------------------------------------------------------------------------
  // Reads.

  getOrder(userId: string, orderId: string, subaccount?: number | null): Order | SimError {
    this.#expireDue(this.#now());
    const user = this.#users.get(userId);
    if (user === undefined) return ERR_USER_NOT_FOUND;
    const order = this.#orders.get(this.#orderIds.parse(orderId));
    if (order === undefined || order.user !== user) return ERR_ORDER_NOT_FOUND;
    if (subaccount !== undefined && subaccount !== null && order.subaccount !== subaccount) return ERR_ORDER_NOT_FOUND;
    return order;
  }

  listOrders(userId: string, query: OrderQuery): Page<Order> | SimError {
    this.#expireDue(this.#now());
    const user = this.#users.get(userId);
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

  listFills(userId: string, query: FillQuery): Page<Fill> | SimError {
    const user = this.#users.get(userId);
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

  listPositions(userId: string, query: PositionQuery): PositionsPage | SimError {
    const user = this.#users.get(userId);
    if (user === undefined) return ERR_USER_NOT_FOUND;
    const limit = pageLimit(query.limit, 100, 1000);
    if (limit === -1) return ERR_BAD_LIMIT;
    const match = (p: PositionRecord): boolean =>
      (query.ticker === undefined || query.ticker === null || query.ticker === '' || p.ticker === query.ticker) &&
      (query.eventTicker === undefined || query.eventTicker === null || query.eventTicker === '' || p.eventTicker === query.eventTicker) &&
      (query.subaccount === undefined || query.subaccount === null || p.subaccount === query.subaccount) &&
      (query.exchangeIndex === undefined || query.exchangeIndex === null || p.exchangeIndex === query.exchangeIndex) &&
      (query.countFilter === 'position' ? p.position !== 0 : query.countFilter === 'total_traded' ? p.volume !== 0 : p.position !== 0 || p.volume !== 0);
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

  /**
   * Balance: available cash (cash minus resting-order collateral). subaccount given: that
   * subaccount only; omitted: all subaccounts. exchangeIndex given: that index only; omitted: all.
   */
  getBalance(userId: string, query: { subaccount?: number | null; exchangeIndex?: number | null }): BalanceView | SimError {
    const user = this.#users.get(userId);
    if (user === undefined) return ERR_USER_NOT_FOUND;
    const subaccount = query.subaccount ?? null;
    if (subaccount !== null && !validSubaccount(subaccount)) return ERR_BAD_SUBACCOUNT;
    const index = query.exchangeIndex ?? null;
    if (index !== null && index !== -1 && !this.#indexes.has(index)) return simError(400, 'bad_request', 'unknown exchange_index');
    const breakdown: Array<{ exchangeIndex: ExchangeIndex; balance: Centicents }> = [];
    let total = 0;
    let updatedMs = 0;
    for (const exchangeIndex of EXCHANGE_INDEXES) {
      if (index !== null && index !== -1 && exchangeIndex !== index) continue;
      let sum = 0;
      for (let s = 0; s < SUBACCOUNT_COUNT; s++) {
        if (subaccount !== null && s !== subaccount) continue;
        const slot = s * INDEX_SLOTS + exchangeIndex;
        sum += user.cash[slot] - user.reserved[slot];
        if (user.slotUpdatedMs[slot] > updatedMs) updatedMs = user.slotUpdatedMs[slot];
      }
      breakdown.push({ exchangeIndex, balance: sum as Centicents });
      total += sum;
    }
    let portfolio = 0;
    for (const p of user.positions) {
      if (p.position === 0) continue;
      if (subaccount !== null && p.subaccount !== subaccount) continue;
      if (index !== null && index !== -1 && p.exchangeIndex !== index) continue;
      portfolio += this.#markValue(p);
    }
    return { balance: total as Centicents, portfolioValue: portfolio as Centicents, updatedMs, breakdown };
  }

  /** Value of a position at the price it could be sold now: best bid of its outcome, else last trade, else its cost. */
  #markValue(p: PositionRecord): number {
    const market = p.market;
    const long = p.position > 0;
    const size = long ? p.position : -p.position;
    let price = 0;
    if (long) price = market.book.bestBid !== -1 ? market.bestBid() : market.lastPrice;
    else price = market.book.bestAsk !== -1 ? PRICE_ONE - market.bestAsk() : market.lastPrice !== 0 ? PRICE_ONE - market.lastPrice : 0;
    if (price === 0) return p.positionCost;
    return proceedsOf(price, size);
  }

  listSubaccountBalances(userId: string): SubaccountBalanceView[] | SimError {
    const user = this.#users.get(userId);
    if (user === undefined) return ERR_USER_NOT_FOUND;
    const out: SubaccountBalanceView[] = [];
    for (let s = 0; s < SUBACCOUNT_COUNT; s++) {
      let used = s === 0;
      for (const index of EXCHANGE_INDEXES) {
        const slot = s * INDEX_SLOTS + index;
        if (user.cash[slot] !== 0 || user.reserved[slot] !== 0) used = true;
      }
      if (!used) continue;
      for (const index of EXCHANGE_INDEXES) {
        const slot = s * INDEX_SLOTS + index;
        out.push({ subaccount: s, exchangeIndex: index, balance: (user.cash[slot] - user.reserved[slot]) as Centicents, updatedMs: user.slotUpdatedMs[slot] });
      }
    }
    return out;
  }

  restingOrderValue(userId: string): RestingOrderValueView | SimError {
    const user = this.#users.get(userId);
    if (user === undefined) return ERR_USER_NOT_FOUND;
    const breakdown: Array<{ exchangeIndex: ExchangeIndex; value: Centicents }> = [];
    let total = 0;
    for (const index of EXCHANGE_INDEXES) {
      let sum = 0;
      for (let s = 0; s < SUBACCOUNT_COUNT; s++) sum += user.reserved[s * INDEX_SLOTS + index];
      breakdown.push({ exchangeIndex: index, value: sum as Centicents });
      total += sum;
    }
    return { total: total as Centicents, breakdown };
  }

  queuePosition(userId: string, orderId: string, subaccount?: number | null): QueuePositionView | SimError {
    this.#expireDue(this.#now());
    const user = this.#users.get(userId);
    if (user === undefined) return ERR_USER_NOT_FOUND;
    const order = this.#ownedResting(user, orderId, subaccount);
    if (!(order instanceof OrderRecord)) return order;
    return { orderId: order.orderId, ticker: order.ticker, queuePosition: order.market.book.queueAhead(order) as Count };
  }

  queuePositions(userId: string, query: { tickers?: string[] | null; eventTicker?: string | null; subaccount?: number | null }): QueuePositionView[] | SimError {
    this.#expireDue(this.#now());
    const user = this.#users.get(userId);
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
    this.#expireDue(this.#now());
    const market = this.#markets.get(ticker);
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

  exchangeStatus(): ExchangeStatusView {
    const statuses: ExchangeIndexStatusView[] = [];
    for (const index of EXCHANGE_INDEXES) {
      const s = this.#indexes.get(index) as ExchangeIndexState;
      statuses.push({ exchangeIndex: index, description: s.description, exchangeActive: s.exchangeActive, tradingActive: s.tradingActive, intraExchangeTransfersActive: s.intraExchangeTransfersActive });
    }
    const main = statuses[0];
    return { exchangeActive: main.exchangeActive, tradingActive: main.tradingActive, intraExchangeTransfersActive: main.intraExchangeTransfersActive, exchangeIndexStatuses: statuses };
  }

  getMarket(ticker: string): Market | undefined {
    return this.#markets.get(ticker);
  }

  markets(): readonly Market[] {
    return this.#marketList;
  }

  listMarkets(query: MarketQuery): Page<Market> | SimError {
    const limit = pageLimit(query.limit, 100, 1000);
    if (limit === -1) return ERR_BAD_LIMIT;
    const tickers = query.tickers !== undefined && query.tickers !== null && query.tickers.length > 0 ? query.tickers : null;
    const match = (m: MarketState): boolean =>
      (query.eventTicker === undefined || query.eventTicker === null || query.eventTicker === '' || m.eventTicker === query.eventTicker) &&
      (query.seriesTicker === undefined || query.seriesTicker === null || query.seriesTicker === '' || m.event.spec.seriesTicker === query.seriesTicker) &&
      (tickers === null || tickers.includes(m.ticker)) &&
      (query.status === undefined || query.status === null || marketFilterStatus(m.status) === query.status);
    return oldestFirst(this.#marketList, decodeCursor(query.cursor), limit, match, (m) => m.index);
  }

  getEvent(eventTicker: string): EventInfo | undefined {
    return this.#events.get(eventTicker);
  }

  listEvents(query: EventQuery): Page<EventInfo> | SimError {
    const limit = pageLimit(query.limit, 200, 200);
    if (limit === -1) return ERR_BAD_LIMIT;
    const tickers = query.eventTickers !== undefined && query.eventTickers !== null && query.eventTickers.length > 0 ? query.eventTickers : null;
    const match = (e: EventState): boolean =>
      (query.seriesTicker === undefined || query.seriesTicker === null || query.seriesTicker === '' || e.spec.seriesTicker === query.seriesTicker) &&
      (tickers === null || tickers.includes(e.eventTicker)) &&
      (query.status === undefined || query.status === null || eventFilterStatus(e) === query.status);
    return oldestFirst(this.#eventList, decodeCursor(query.cursor), limit, match, (e) => e.index);
  }

  getSeries(ticker: string): SeriesSpec | undefined {
    return this.#series.get(ticker);
  }

  listSeries(): readonly SeriesSpec[] {
    return this.#seriesList;
  }

  listTrades(query: TradeQuery): Page<Trade> | SimError {
    const limit = pageLimit(query.limit, 100, 1000);
    if (limit === -1) return ERR_BAD_LIMIT;
    let all: TradeRecord[];
    if (query.ticker !== undefined && query.ticker !== null && query.ticker !== '') {
      const market = this.#markets.get(query.ticker);
      if (market === undefined) return { items: [], cursor: '' };
      all = market.trades.slice();
    } else {
      all = this.#marketList.flatMap((m) => m.trades);
    }
    all.sort((a, b) => a.seq - b.seq);
    const minMs = query.minTs !== undefined && query.minTs !== null ? query.minTs * 1000 : -Infinity;
    const maxMs = query.maxTs !== undefined && query.maxTs !== null ? query.maxTs * 1000 + 999 : Infinity;
    return newestFirst(all, decodeCursor(query.cursor), limit, (t) => t.tsMs >= minMs && t.tsMs <= maxMs);
  }

  /** The user's resting orders (any market), oldest first: for tests, activity and reconciliation. */
  restingOrders(userId: string): Order[] {
    const user = this.#users.get(userId);
    if (user === undefined) return [];
    return user.restingOrders().sort((a, b) => a.seq - b.seq);
  }

  /** One position record (live) or undefined when never opened. */
  getPosition(userId: string, ticker: string, subaccount = 0): Position | undefined {
    const user = this.#users.get(userId);
    const market = this.#markets.get(ticker);
    if (user === undefined || market === undefined) return undefined;
    return user.positionIfAny(market, subaccount);
  }

  // ---------------------------------------------------------------------------------------------
  // Market operations (tests, faults, scenario scripts).

  /** Adds a market at run time (and its event when new); emits event_lifecycle and market created. */
  addMarket(spec: MarketSpec, eventSpec?: EventSpec): SimError | null {
    if (this.#markets.has(spec.ticker)) return simError(409, 'order_already_exists', 'market already exists');
    const nowMs = this.#now();
    let event = this.#events.get(spec.eventTicker);
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
    if (newEvent) for (const listener of this.#listeners) listener.onEventLifecycle({ event, tsMs: nowMs });
    this.#emitLifecycle(market, 'created', nowMs);
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
        this.#emitLifecycle(market, 'activated', nowMs);
        break;
      case 'inactive':
        this.#cancelMarketOrders(market, 'PauseCancel', nowMs, true);
        this.#emitLifecycle(market, 'deactivated', nowMs);
        break;
      case 'closed':
        market.closeTimeMs = nowMs;
        this.#cancelMarketOrders(market, 'MarketCloseCancel', nowMs, false);
        this.#emitLifecycle(market, 'close_date_updated', nowMs);
        break;
      case 'determined':
      case 'disputed':
      case 'amended':
      case 'finalized':
      case 'initialized':
        this.#cancelMarketOrders(market, 'MarketCloseCancel', nowMs, false);
        if (status === 'determined') {
          market.determinationMs = nowMs;
          this.#emitLifecycle(market, 'determined', nowMs);
        } else if (status === 'finalized') {
          market.settledMs = nowMs;
          this.#emitLifecycle(market, 'settled', nowMs);
        } else {
          this.#emitLifecycle(market, 'deactivated', nowMs);
        }
        break;
    }
    return null;
  }

  #cancelMarketOrders(market: MarketState, reason: UpdateReason, nowMs: number, onlyOnPause: boolean): void {
    const victims: EngineOrder[] = [];
    const book = market.book;
    for (let level = 0; level < book.levelCount; level++) {
      for (let o = book.bidHead[level]; o !== null; o = o.next) if (!onlyOnPause || o.cancelOrderOnPause) victims.push(o);
      for (let o = book.askHead[level]; o !== null; o = o.next) if (!onlyOnPause || o.cancelOrderOnPause) victims.push(o);
    }
    victims.sort((a, b) => a.seq - b.seq);
    for (const order of victims) this.#cancelResting(order, reason, nowMs);
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
    this.#cancelMarketOrders(market, 'MarketCloseCancel', nowMs, false);
    market.result = result;
    market.settlementValue = (result === 'yes' ? PRICE_ONE : 0) as Centicents;
    market.status = 'determined';
    market.determinationMs = nowMs;
    market.updatedMs = nowMs;
    this.#emitLifecycle(market, 'determined', nowMs);
    for (const p of market.positions) {
      if (p.position === 0) continue;
      const wins = (p.position > 0) === (result === 'yes');
      const size = p.position > 0 ? p.position : -p.position;
      const payout = wins ? proceedsOf(PRICE_ONE, size) : 0;
      const user = this.#users.get(p.userId) as UserState;
      const slot = p.subaccount * INDEX_SLOTS + p.exchangeIndex;
      user.cash[slot] += payout;
      user.slotUpdatedMs[slot] = nowMs;
      p.realizedPnl = (p.realizedPnl + payout - p.positionCost) as Centicents;
      p.positionCost = 0 as Centicents;
      p.positionFeeCost = 0 as Centicents;
      p.position = 0 as Count;
      p.lastUpdatedMs = nowMs;
      for (const listener of this.#listeners) listener.onPosition(p.userId, p);
    }
    market.openInterest = 0 as Count;
    market.status = 'finalized';
    market.settledMs = nowMs;
    this.#emitLifecycle(market, 'settled', nowMs);
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
    this.#emitLifecycle(market, 'price_level_structure_updated', nowMs);
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
    if (metadata) this.#emitLifecycle(market, 'metadata_updated', nowMs);
    if (patch.closeTimeMs !== undefined) {
      market.closeTimeMs = patch.closeTimeMs;
      this.#emitLifecycle(market, 'close_date_updated', nowMs);
    }
    return null;
  }

  setExchangeIndexStatus(exchangeIndex: number, status: { exchangeActive?: boolean; tradingActive?: boolean; intraExchangeTransfersActive?: boolean }): SimError | null {
    const state = this.#indexes.get(exchangeIndex);
    if (state === undefined) return simError(400, 'bad_request', 'unknown exchange_index');
    if (status.exchangeActive !== undefined) state.exchangeActive = status.exchangeActive;
    if (status.tradingActive !== undefined) state.tradingActive = status.tradingActive;
    if (status.intraExchangeTransfersActive !== undefined) state.intraExchangeTransfersActive = status.intraExchangeTransfersActive;
    return null;
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

/** Page newest first over an array sorted by ascending `seq`; the cursor is the last seq returned. */
function newestFirst<T extends { seq: number }>(items: readonly T[], afterSeq: number, limit: number, match: (item: T) => boolean): Page<T> {
  let start = items.length - 1;
  if (afterSeq !== -1) {
    // Binary search: last index with seq < afterSeq.
    let lo = 0;
    let hi = items.length - 1;
    start = -1;
    while (lo <= hi) {
      const mid = (lo + hi) >> 1;
      if (items[mid].seq < afterSeq) {
        start = mid;
        lo = mid + 1;
      } else {
        hi = mid - 1;
      }
    }
  }
  const out: T[] = [];
  for (let i = start; i >= 0; i--) {
    if (!match(items[i])) continue;
    if (out.length === limit) return { items: out, cursor: encodeCursor(out[out.length - 1].seq) };
    out.push(items[i]);
  }
  return { items: out, cursor: '' };
}

/** Page in listing order; the cursor is the key of the last item returned. */
function oldestFirst<T>(items: readonly T[], afterKey: number, limit: number, match: (item: T) => boolean, key: (item: T) => number): Page<T> {
  const out: T[] = [];
  for (let i = afterKey === -1 ? 0 : afterKey + 1; i < items.length; i++) {
    if (!match(items[i])) continue;
    if (out.length === limit) return { items: out, cursor: encodeCursor(key(out[out.length - 1])) };
    out.push(items[i]);
  }
  return { items: out, cursor: '' };
}
