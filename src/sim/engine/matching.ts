/**
 * Matching: order entry into the books. It validates and accepts V2 orders (create, amend,
 * decrease, cancel, batches, cancel-all; expiry runs first on each), and matches them on one
 * YES-quoted book per market (bid = buy YES, ask = sell YES = buy NO at 1 - price) with
 * price-time priority: post-only, IOC, FOK, reduce-only and self-trade prevention
 * (taker_at_cross, maker) are decided here, and every execution becomes a maker book delta, a
 * public trade, two fills and the order updates, in that order. It builds the order records (ids
 * from the order id source it shares with the order store) and rests a GTC remainder in the book;
 * money and positions of each fill are booked by accounts, trades taped by the venue, group
 * counters fed to order groups, and cancels and shrinks go through the order store. It never
 * reads wire JSON and never authenticates; it is the one part order entry (REST now, the FIX
 * acceptor next) plugs into.
 *
 * Hot path (bench/sim-matching): a create allocates its order record and result; the match loop
 * allocates only what history needs (fill records of history users, trade records until a
 * market's tape ring is full). Parts are called directly, never through closures.
 */

import type { Centicents, Count, Price } from '../../core/index.ts';
import type {
  AmendOrderParams, AmendOrderResult, BatchCancelItem, CancelOrderResult, CreateOrderParams, CreateOrderResult,
  DecreaseOrderParams, DecreaseOrderResult, SimEngineOptions, SimError, UpdateReason,
} from './types.ts';
import {
  ERR_BAD_EXCHANGE_INDEX, ERR_BAD_SUBACCOUNT, ERR_DUPLICATE_CLIENT_ID, ERR_INSUFFICIENT_BALANCE, ERR_INVALID_COUNT,
  ERR_INVALID_PRICE, ERR_MARKET_NOT_FOUND, ERR_ORDER_NOT_FOUND, ERR_POST_ONLY_CROSS, ERR_USER_NOT_FOUND, simError,
} from './errors.ts';
import { EngineOrder as EngineOrderImported } from './engine-order.ts';
import type { EngineOrder } from './engine-order.ts';
import type { MarketState } from './market-state.ts';
import type { UserState } from './user-state.ts';
import type { OrderGroupState } from './order-group-state.ts';
import type { IdSource } from './ids.ts';
import { costOf as costOfImported } from './money.ts';
import { FeeRole } from './fees.ts';
import { validSubaccount as validSubaccountImported, type Accounts } from './accounts.ts';
import type { OrderStore } from './order-store.ts';
import type { OrderGroups } from './order-groups.ts';
import type { Venue } from './venue.ts';
import type { EngineEvents } from './events.ts';

// tsx runs TypeScript as CommonJS, where every use of an imported binding is a getter call on the
// module object; the matching path reads these module-local aliases instead (bench/sim-matching:
// the getters cost several percent of an order).
const OrderRecord = EngineOrderImported;
const costOf = costOfImported;
const validSubaccount = validSubaccountImported;

export class Matching {
  readonly #now: () => number;
  readonly #orderIds: IdSource;
  readonly #postOnlyCrossReject400: boolean;
  readonly #maxOrderCount: number;
  readonly #comboFreshRestMs: number;
  readonly #venue: Venue;
  readonly #accounts: Accounts;
  readonly #orders: OrderStore;
  readonly #groups: OrderGroups;
  readonly #events: EngineEvents;
  // Per-request match totals (one request at a time: the engine is synchronous).
  #matchedCount = 0;
  #matchedPriceCount = 0;
  #matchedFees = 0;
  #selfTradeStop = false;

  constructor(
    now: () => number, options: Readonly<SimEngineOptions>, orderIds: IdSource, venue: Venue, accounts: Accounts, orders: OrderStore, groups: OrderGroups, events: EngineEvents,
  ) {
    this.#now = now;
    this.#orderIds = orderIds;
    this.#postOnlyCrossReject400 = options.postOnlyCrossReject400;
    this.#maxOrderCount = options.maxOrderCount;
    this.#comboFreshRestMs = options.comboFreshRestMs;
    this.#venue = venue;
    this.#accounts = accounts;
    this.#orders = orders;
    this.#groups = groups;
    this.#events = events;
  }

  // ---------------------------------------------------------------------------------------------
  // Create.

  createOrder(userId: string, params: CreateOrderParams): CreateOrderResult | SimError {
    const nowMs = this.#now();
    const orders = this.#orders;
    orders.expireDue(nowMs);
    const user = this.#accounts.user(userId);
    if (user === undefined) return ERR_USER_NOT_FOUND;
    const market = this.#venue.market(params.ticker);
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
    if (postOnly && crosses && this.#postOnlyCrossReject400) return ERR_POST_ONLY_CROSS;
    if (!reduceOnly) {
      const accounts = this.#accounts;
      let need = accounts.collateral(sideCode, params.price, count);
      if (crosses && !postOnly) need += accounts.takerFee(market, params.price, count as Count);
      if (need > accounts.available(user, subaccount, market.exchangeIndex)) return ERR_INSUFFICIENT_BALANCE;
    }
    const order = this.#newOrder(user, market, params, count, level, group, nowMs);
    this.#resetMatchTotals();
    if (postOnly && crosses) {
      orders.finish(order, 'canceled', 'PostOnlyCrossCancel', nowMs);
    } else if (params.timeInForce === 'fill_or_kill' && !this.#canFill(order)) {
      orders.finish(order, 'canceled', 'FillOrKillCancel', nowMs);
    } else {
      if (crosses) this.#match(order, nowMs);
      this.#settleTaker(order, '', nowMs);
    }
    this.#events.userOrder(order);
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
    if (!Number.isSafeInteger(count) || count <= 0 || count > this.#maxOrderCount) return ERR_INVALID_COUNT;
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
    const gate = this.#venue.tradingGate(market);
    if (gate !== null) return gate;
    const groupId = params.orderGroupId ?? '';
    if (groupId !== '') return this.#groups.checkOrder(user, groupId, subaccount);
    return null;
  }

  /** Builds and registers an accepted order (collateral reserved, id and sequence assigned). */
  #newOrder(user: UserState, market: MarketState, params: CreateOrderParams, count: number, level: number, group: OrderGroupState | null, nowMs: number): EngineOrder {
    const order = new OrderRecord(this.#orderIds, user, market);
    order.clientOrderId = params.clientOrderId ?? '';
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
    order.quoteExecution = params.quoteExecution === true;
    order.createdMs = nowMs;
    order.lastUpdateMs = nowMs;
    this.#orders.register(order);
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

  // ---------------------------------------------------------------------------------------------
  // Matching.

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
        this.#orders.cancelResting(maker, 'SelfTradeCancel', nowMs);
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
    const accounts = this.#accounts;
    const events = this.#events;
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
      this.#orders.detach(maker);
    }
    accounts.reserve(maker);
    events.bookDelta(maker, -quantity, 'Trade', nowMs);

    const trade = this.#venue.recordTrade(market, tradePrice, quantity, taker.side, nowMs);
    events.trade(market, trade);

    // Combo fee rule (fees.ts): a quoter's execution order hitting an order that rested under five
    // seconds on a combo market pays the combo maker fee; the resting party pays the taker fee.
    const comboQuote = taker.quoteExecution && market.mveCollectionTicker !== null && nowMs - maker.createdMs < this.#comboFreshRestMs;
    accounts.applyFill(maker, trade, tradePrice, quantity, false, nowMs, comboQuote ? FeeRole.TAKER : FeeRole.BOOK);
    events.userOrder(maker);

    taker.remainingCount = (taker.remainingCount - quantity) as Count;
    taker.fillCount = (taker.fillCount + quantity) as Count;
    taker.lastUpdateMs = nowMs;
    taker.lastUpdateReason = 'Trade';
    accounts.reserve(taker);
    const takerFee = accounts.applyFill(taker, trade, tradePrice, quantity, true, nowMs, comboQuote ? FeeRole.COMBO_QUOTER : FeeRole.BOOK);
    this.#matchedCount += quantity;
    this.#matchedPriceCount += tradePrice * quantity;
    this.#matchedFees += takerFee;

    if (maker.group !== null) this.#groups.matched(maker.group, quantity, nowMs);
    if (taker.group !== null) this.#groups.matched(taker.group, quantity, nowMs);
    this.#orders.forgetIfDone(maker);
  }

  /**
   * After matching: the taker's remainder rests (GTC), or is cancelled (IOC, FOK remainder,
   * self-trade stop, triggered group); status executed when nothing remains.
   */
  #settleTaker(order: EngineOrder, restReason: UpdateReason, nowMs: number): void {
    const orders = this.#orders;
    if (this.#selfTradeStop) {
      orders.finish(order, 'canceled', 'SelfTradeCancel', nowMs);
    } else if (order.group !== null && order.group.triggered && order.remainingCount > 0) {
      orders.finish(order, 'canceled', 'OrderGroupCancel', nowMs);
    } else if (order.remainingCount === 0) {
      orders.finish(order, 'executed', order.lastUpdateReason, nowMs);
    } else if (order.timeInForce !== 'good_till_canceled') {
      orders.finish(order, 'canceled', order.timeInForce === 'fill_or_kill' ? 'FillOrKillCancel' : 'ImmediateOrCancel', nowMs);
    } else {
      // The remainder rests: book, owner's resting list, group, expiry heap. Inline on purpose: as
      // an order-store method this branch made #settleTaker small enough for V8 to inline into
      // createOrder, which then ran out of inlining budget for the order constructor (about 4 %
      // more CPU per order in bench/sim-matching's mix).
      order.market.book.add(order);
      order.user.addResting(order);
      if (order.group !== null) order.group.orders.add(order);
      if (order.expirationTs !== 0) orders.trackExpiry(order);
      if (restReason !== '') order.lastUpdateReason = restReason;
      this.#events.bookDelta(order, order.remainingCount, restReason, nowMs);
    }
  }

  // ---------------------------------------------------------------------------------------------
  // Cancel, amend, decrease, batches.

  cancelOrder(userId: string, orderId: string, subaccount?: number | null): CancelOrderResult | SimError {
    const nowMs = this.#now();
    this.#orders.expireDue(nowMs);
    const user = this.#accounts.user(userId);
    if (user === undefined) return ERR_USER_NOT_FOUND;
    const order = this.#orders.ownedResting(user, orderId, subaccount);
    if (!(order instanceof OrderRecord)) return order;
    const reducedBy = this.#orders.cancelResting(order, 'Cancel', nowMs);
    return { isError: false, order, reducedBy: reducedBy as Count, tsMs: nowMs };
  }

  amendOrder(userId: string, orderId: string, params: AmendOrderParams): AmendOrderResult | SimError {
    const nowMs = this.#now();
    const orders = this.#orders;
    orders.expireDue(nowMs);
    const user = this.#accounts.user(userId);
    if (user === undefined) return ERR_USER_NOT_FOUND;
    const found = orders.ownedResting(user, orderId, params.subaccount);
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
    if (!Number.isSafeInteger(total) || total <= 0 || total > this.#maxOrderCount) return ERR_INVALID_COUNT;
    const remaining = total - order.fillCount;
    if (remaining <= 0) return simError(400, 'invalid_order', 'count must exceed the filled count', 'count');
    const updatedId = params.updatedClientOrderId ?? '';
    if (updatedId !== '' && updatedId !== order.clientOrderId && user.keepHistory && user.clientOrderIds.has(updatedId)) return ERR_DUPLICATE_CLIENT_ID;
    const gate = this.#venue.tradingGate(market);
    if (gate !== null) return gate;
    const priceChanged = params.price !== order.price;
    const grows = remaining > order.remainingCount;
    const crosses = priceChanged && this.#crosses(market, order.sideCode, level);
    if (order.postOnly && crosses && this.#postOnlyCrossReject400) return ERR_POST_ONLY_CROSS;
    if (!order.reduceOnly) {
      const accounts = this.#accounts;
      let need = accounts.collateral(order.sideCode, params.price, remaining) - order.reserved;
      if (crosses && !order.postOnly) need += accounts.takerFee(market, params.price, remaining as Count);
      if (need > 0 && need > accounts.available(user, order.subaccount, order.exchangeIndex)) return ERR_INSUFFICIENT_BALANCE;
    }
    if (updatedId !== '' && updatedId !== order.clientOrderId) {
      order.clientOrderId = updatedId;
      if (user.keepHistory) user.clientOrderIds.add(updatedId);
    }
    this.#resetMatchTotals();
    let sizeChangedOrFilled = false;
    if (!priceChanged && !grows) {
      if (remaining < order.remainingCount) {
        orders.shrinkResting(order, order.remainingCount - remaining, 'Amend', nowMs);
        sizeChangedOrFilled = true;
      }
      order.initialCount = total as Count;
    } else {
      // Loses time priority: out of the book, re-enters as a new taker at the new terms.
      const before = order.remainingCount as number;
      order.market.book.remove(order);
      this.#events.bookDelta(order, -before, 'Amend', nowMs);
      order.price = params.price;
      order.level = level;
      order.initialCount = total as Count;
      order.remainingCount = remaining as Count;
      order.lastUpdateMs = nowMs;
      order.lastUpdateReason = 'Amend';
      this.#accounts.reserve(order);
      if (order.postOnly && crosses) {
        orders.finish(order, 'canceled', 'PostOnlyCrossCancel', nowMs);
      } else {
        orders.detach(order); // re-attached when it rests again
        if (crosses) this.#match(order, nowMs);
        this.#settleTaker(order, 'Amend', nowMs);
      }
      sizeChangedOrFilled = this.#matchedCount > 0 || order.remainingCount !== before;
    }
    this.#events.userOrder(order);
    return { ...this.#createResult(order, nowMs), sizeChangedOrFilled };
  }

  decreaseOrder(userId: string, orderId: string, params: DecreaseOrderParams): DecreaseOrderResult | SimError {
    const nowMs = this.#now();
    const orders = this.#orders;
    orders.expireDue(nowMs);
    const user = this.#accounts.user(userId);
    if (user === undefined) return ERR_USER_NOT_FOUND;
    const hasBy = params.reduceBy !== undefined && params.reduceBy !== null;
    const hasTo = params.reduceTo !== undefined && params.reduceTo !== null;
    if (hasBy === hasTo) return simError(400, 'bad_request', 'exactly one of reduce_by and reduce_to is required');
    const found = orders.ownedResting(user, orderId, params.subaccount);
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
      orders.cancelResting(order, 'Decrease', nowMs);
    } else {
      orders.shrinkResting(order, order.remainingCount - target, 'Decrease', nowMs);
      this.#events.userOrder(order);
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
      const order = this.#orders.find(item.orderId);
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
    this.#orders.expireDue(nowMs);
    const user = this.#accounts.user(userId);
    if (user === undefined) return 0;
    return this.#orders.cancelUserOrders(user, subaccount, 'Cancel', nowMs);
  }

  /** Cancels every GTC order whose expiration_time has passed; also runs before each call. */
  expireOrders(): number {
    return this.#orders.expireDue(this.#now());
  }
}
