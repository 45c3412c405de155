/**
 * The Margin exchange engine: perpetual markets on exchange_index 0, a price-time matching book per
 * market, orders (create, amend, decrease, cancel, cancel-all), accounts per user and subaccount with
 * signed positions, realized pnl, fees (notional x maker/taker rate), funding on each market's
 * schedule and liquidation of subaccounts whose equity falls below maintenance margin.
 *
 * Time: the engine never starts a timer. Every public call first runs `advance(now)`, which applies
 * in time order every funding time and settlement-cycle roll the clock has passed; so an injected
 * clock drives funding exactly. Mark price: the median of best bid, best ask and last trade when
 * both sides rest, else the last trade (or the catalog's starting mark). Funding rate of a period:
 * the time-weighted average premium (mark - reference) / reference over the period, capped; longs
 * pay shorts when it is positive. Liquidation: after every operation, each subaccount with positions
 * whose equity is below maintenance margin x the liquidation ratio gets one system IOC order per
 * position (order_source system, order_reason liquidation) that closes it against the book, within
 * a 50% price band of the mark. Exit triggers (triggers.ts) are evaluated in the same passes.
 *
 * This file owns state changes; reads for the wire are in margin-views.ts, rendering in render.ts.
 */

import { SeededRandom } from '../../core/index.ts';
import { IdSource } from '../engine/ids.ts';
import { mulDivFloor, mulDivRound, mulDivTrunc, notionalOf, signedNotionalOf, applyRateCeil, clamp, PPM } from './arith.ts';
import { MarginBook, type BookSide } from './book.ts';
import { maintenanceRatePpm, type MarginCatalog, type MarginMarketSpec } from './catalog.ts';
import {
  marginError,
  type AccountRecord,
  type FundingPaymentRecord,
  type MarginError,
  type MarginFillRecord,
  type MarginOrderRecord,
  type MarginTradeRecord,
  type MarketState,
  type OrderReason,
  type OrderSource,
  type PositionRecord,
  type SelfTradePrevention,
  type TimeInForce,
} from './records.ts';
import { ExitTriggers, TERMINAL_TRIGGERS_RETAINED } from './triggers.ts';
import { ExpiryHeap } from '../engine/expiry-heap.ts';

/** One contract in count units: the Margin exchange trades whole contracts. */
export const CONTRACT = 100;
/** Liquidation orders reach at most this far from the mark, ppm. */
const LIQUIDATION_BAND_PPM = 500_000;
/** Bound on catch-up steps in one advance (funding times + cycle rolls); a clock jump beyond it is a bug. */
const ADVANCE_STEPS_MAX = 10_000_000;
/** Bound on liquidation passes after one operation (each pass can move the mark). */
const LIQUIDATION_PASSES_MAX = 64;

export const ERR_MARKET_NOT_FOUND = marginError(404, 'market_not_found', 'market not found');
export const ERR_ORDER_NOT_FOUND = marginError(404, 'not_found', 'order not found');

export interface CreateMarginOrder {
  ticker: string;
  clientOrderId: string;
  side: BookSide;
  count: number;
  price: number;
  timeInForce: TimeInForce;
  selfTradePrevention: SelfTradePrevention;
  postOnly: boolean;
  reduceOnly: boolean;
  cancelOrderOnPause: boolean;
  expirationTs: number | null;
}

/** Fills caused by one request: contracts, their notional (price units x count units) and fees. */
export interface ExecutionSummary {
  filled: number;
  costUnits: number;
  fees: number;
}

export interface CreateResult {
  order: MarginOrderRecord;
  execution: ExecutionSummary;
}

export interface AmendResult {
  order: MarginOrderRecord;
  execution: ExecutionSummary;
  /** The resting size changed or fills happened (the response then carries remaining and fill counts). */
  sizeChanged: boolean;
}

/** Who hears order and trade changes (the WebSocket feed): called synchronously, must not call back in. */
export interface MarginEngineListener {
  onOrder(order: MarginOrderRecord): void;
  onTrade(market: MarketState, trade: MarginTradeRecord): void;
}

export interface MarginEngineOptions {
  catalog: MarginCatalog;
  now: () => number;
  seed: number;
  /** Ended exit triggers kept for client_trigger_id replays (default TERMINAL_TRIGGERS_RETAINED). */
  terminalTriggersRetained?: number;
  /** Entries kept per market in each tape (public trades, tops, open interest), halved when full (default MARGIN_TAPE_ENTRIES_MAX). */
  tapeEntriesMax?: number;
}

export class MarginEngine {
  readonly catalog: MarginCatalog;
  readonly now: () => number;
  readonly markets = new Map<string, MarketState>();
  readonly accounts = new Map<string, AccountRecord>();
  /** Every order by id, less the ended orders of users without history (forgetHistoryOf). */
  readonly orders = new Map<string, MarginOrderRecord>();
  /**
   * Orders by creation seq (listing). An order dropped from `orders` (forgetHistoryOf) stays listed
   * until the dropped entries pass half the list, then one pass removes them all: at most about
   * half of it is stale, and a reader that must skip them checks `orders.get(id) === order`.
   */
  readonly orderList: MarginOrderRecord[] = [];
  /** Every fill, less those of users without history. */
  readonly fills: MarginFillRecord[] = [];
  /** Every funding payment, less those of users without history. */
  readonly fundingPayments: FundingPaymentRecord[] = [];
  /** Clearing cycle: start (ms) and the baselines taken at its start. */
  cycleStartMs: number;
  /** Unrealized pnl per `user|sub|ticker` at the cycle start, centicents. */
  readonly baselineUnrealized = new Map<string, number>();
  /** Maintenance margin per `user|sub|assetClass` at the cycle start, centicents. */
  readonly baselineMaintenance = new Map<string, number>();
  /** Exit triggers (triggers.ts), evaluated against the marks in every settle pass. */
  readonly triggers: ExitTriggers;
  /** The WebSocket feed (server/ws/margin-feed.ts); null when nothing listens. */
  listener: MarginEngineListener | null = null;
  /** Further listeners beside `listener` (the FIX acceptor's Margin sessions); see observe(). */
  readonly #observers = new Set<MarginEngineListener>();
  readonly #ids: IdSource;
  readonly #clientIds = new Map<string, Set<string>>(); // per user
  /** Users that keep no history (forgetHistoryOf): synthetic participants. */
  readonly #forgetful = new Set<string>();
  /** Orders dropped from `orders` still listed in `orderList`: compacted once they pass half of it. */
  #orderListDropped = 0;
  /** Per market tape bound (MarginEngineOptions.tapeEntriesMax). */
  readonly #tapeEntriesMax: number;
  /** Resting GTC orders with an expiration_time, earliest first (expiry.ts). */
  readonly #expiry = new ExpiryHeap<MarginOrderRecord>(); // orders with an expiration_time
  #seq = 0;
  #liquidationSeq = 0;
  #settling = false;

  constructor(options: MarginEngineOptions) {
    this.catalog = options.catalog;
    this.now = options.now;
    this.triggers = new ExitTriggers(this, options.terminalTriggersRetained ?? TERMINAL_TRIGGERS_RETAINED);
    this.#tapeEntriesMax = options.tapeEntriesMax ?? MARGIN_TAPE_ENTRIES_MAX;
    this.#ids = new IdSource(new SeededRandom(options.seed * 7919 + 17));
    const nowMs = this.now();
    for (const spec of options.catalog.markets) {
      this.markets.set(spec.ticker, {
        spec,
        book: new MarginBook<MarginOrderRecord>(),
        lastPrice: null,
        mark: spec.markPrice,
        markMs: nowMs,
        reference: spec.referencePrice,
        referenceMs: nowMs,
        volume: 0,
        volumeNotional: 0,
        openInterest: 0,
        trades: [],
        tops: [],
        openInterestTape: [],
        fundingRates: [],
        premiumAccum: 0,
        accumMs: nowMs,
        periodStartMs: nowMs,
        nextFundingMs: (Math.floor(nowMs / spec.fundingIntervalMs) + 1) * spec.fundingIntervalMs,
      });
    }
    this.cycleStartMs = Math.floor(nowMs / options.catalog.settlementCycleMs) * options.catalog.settlementCycleMs;
  }

  // ---- accounts ---------------------------------------------------------------------------

  hasAccount(userId: string, subaccount: number): boolean {
    return this.accounts.has(accountKey(userId, subaccount));
  }

  /** Creates the account with `deposit` centicents the first time; no-op after. */
  ensureAccount(userId: string, subaccount: number, deposit: number): AccountRecord {
    const key = accountKey(userId, subaccount);
    let account = this.accounts.get(key);
    if (account === undefined) {
      account = { userId, subaccount, cash: deposit, positions: new Map() };
      this.accounts.set(key, account);
    }
    return account;
  }

  account(userId: string, subaccount: number): AccountRecord | null {
    return this.accounts.get(accountKey(userId, subaccount)) ?? null;
  }

  /** Accounts of a user, by subaccount. */
  accountsOf(userId: string): AccountRecord[] {
    const out: AccountRecord[] = [];
    for (const account of this.accounts.values()) if (account.userId === userId) out.push(account);
    return out.sort((a, b) => a.subaccount - b.subaccount);
  }

  /**
   * Marks a user as keeping no history, the Margin twin of the Predictions engine's
   * addUser(userId, { keepHistory: false }): for synthetic participants (activity/margin-activity.ts)
   * that trade thousands of times a second, whose records would otherwise grow without bound. From
   * the call on (and for its orders already ended), an order of the user leaves `orders` and
   * `orderList` once it has ended (canceled or executed, so off the book) and its event has gone to
   * the listeners; its client order id is released then (unique among the user's live orders only);
   * its fills and funding payments are not appended to `fills` / `fundingPayments`. Everything
   * else is as for any user: matching, fees, positions, cash, public trades, listener events, and
   * the counterparty's own records. Ids and seqs are drawn as before, so other users' records are
   * the same either way. An ended order with an expiration_time stays referenced by the expiry heap
   * until its time comes (the heap skips it). There is no way back: history dropped is gone.
   */
  forgetHistoryOf(userId: string): void {
    if (this.#forgetful.has(userId)) return;
    this.#forgetful.add(userId);
    const ended: MarginOrderRecord[] = [];
    for (const order of this.orderList) if (order.userId === userId && order.status !== 'resting') ended.push(order);
    for (const order of ended) this.#forget(order);
    if (this.#orderListDropped > 0) this.#compactOrderList(); // a rare call: leave the list exact
  }

  /** False for a user marked by forgetHistoryOf. */
  keepsHistory(userId: string): boolean {
    return !this.#forgetful.has(userId);
  }

  // ---- time ---------------------------------------------------------------------------------

  /** Applies every funding time and cycle roll up to `nowMs`, in time order, then liquidations. */
  advance(nowMs: number = this.now()): void {
    for (let steps = 0; ; steps++) {
      if (steps === ADVANCE_STEPS_MAX) throw new Error('margin engine: advance did not converge');
      let next: MarketState | null = null;
      for (const market of this.markets.values()) if (next === null || market.nextFundingMs < next.nextFundingMs) next = market;
      const cycleEndMs = this.cycleStartMs + this.catalog.settlementCycleMs;
      const fundingMs = next === null ? Infinity : next.nextFundingMs;
      const expiryMs = this.#expiry.peekMs();
      // Expiries in time order with funding and cycle rolls: an expired order leaves the book (and the mark) first.
      if (expiryMs <= nowMs && expiryMs <= fundingMs && expiryMs <= cycleEndMs) {
        this.#expireDue(expiryMs);
        continue;
      }
      if (cycleEndMs <= nowMs && cycleEndMs <= fundingMs) {
        this.#rollCycle(cycleEndMs);
        continue;
      }
      if (next === null || fundingMs > nowMs) break;
      this.#applyFunding(next, fundingMs);
      this.#settle();
    }
    this.#settle();
  }

  /** Adds a listener beside `listener` (called after it, in insertion order); returns its removal. */
  observe(observer: MarginEngineListener): () => void {
    this.#observers.add(observer);
    return () => this.#observers.delete(observer);
  }

  #emitOrder(order: MarginOrderRecord): void {
    this.listener?.onOrder(order);
    for (const observer of this.#observers) observer.onOrder(order);
    // Every path that ends an order emits it last (after it left the book): the one place to forget it.
    if (order.status !== 'resting' && this.#forgetful.size !== 0 && this.#forgetful.has(order.userId)) this.#forget(order);
  }

  /** Drops an ended order of a user without history: from `orders`, its client order id, and (in bulk) `orderList`. */
  #forget(order: MarginOrderRecord): void {
    if (this.orders.get(order.orderId) !== order) return; // already dropped (an order is emitted more than once)
    this.orders.delete(order.orderId);
    this.#clientIds.get(order.userId)?.delete(order.clientOrderId);
    // Removing from the middle of the array per order would cost O(n) each; one pass past half is O(1) amortized.
    if (++this.#orderListDropped > this.orderList.length >> 1) this.#compactOrderList();
  }

  /** Keeps in `orderList` (in place, same order) exactly the orders still in `orders`. */
  #compactOrderList(): void {
    const list = this.orderList;
    let kept = 0;
    for (let i = 0; i < list.length; i++) {
      const order = list[i];
      if (this.orders.get(order.orderId) === order) list[kept++] = order;
    }
    list.length = kept;
    this.#orderListDropped = 0;
  }

  #emitTrade(market: MarketState, trade: MarginTradeRecord): void {
    this.listener?.onTrade(market, trade);
    for (const observer of this.#observers) observer.onTrade(market, trade);
  }

  // ---- orders -------------------------------------------------------------------------------

  create(userId: string, subaccount: number, request: CreateMarginOrder, source: OrderSource = 'user', reason: OrderReason | null = null): CreateResult | MarginError {
    this.advance();
    const market = this.markets.get(request.ticker);
    if (market === undefined) return ERR_MARKET_NOT_FOUND;
    const check = this.#checkOrderShape(market.spec, request.price, request.count);
    if (check !== null) return check;
    let clientIds = this.#clientIds.get(userId);
    if (clientIds === undefined) this.#clientIds.set(userId, (clientIds = new Set()));
    if (clientIds.has(request.clientOrderId)) return marginError(409, 'order_already_exists', 'order with this client_order_id already exists');
    const account = this.accounts.get(accountKey(userId, subaccount));
    if (account === undefined) return marginError(404, 'user_not_found', 'margin account not found');
    const count = this.#admit(account, market, request, source, null);
    if (typeof count !== 'number') return count;
    clientIds.add(request.clientOrderId);
    const nowMs = this.now();
    const order: MarginOrderRecord = {
      seq: ++this.#seq,
      orderId: this.#ids.next(),
      userId,
      subaccount,
      clientOrderId: request.clientOrderId,
      ticker: request.ticker,
      side: request.side,
      price: request.price,
      filled: 0,
      remaining: count,
      status: 'resting',
      lastUpdateReason: '',
      createdMs: nowMs,
      lastUpdateMs: nowMs,
      selfTradePrevention: request.selfTradePrevention,
      cancelOrderOnPause: request.cancelOrderOnPause,
      timeInForce: request.timeInForce,
      postOnly: request.postOnly,
      reduceOnly: request.reduceOnly,
      expirationTs: request.expirationTs,
      source,
      reason,
    };
    this.orders.set(order.orderId, order);
    this.orderList.push(order);
    const execution = this.#execute(market, order);
    if (order.status === 'resting') {
      if (request.timeInForce === 'good_till_canceled') {
        market.book.add(order);
        if (order.expirationTs !== null) this.#expiry.push(order);
      } else this.#finish(order, order.lastUpdateReason === '' ? 'MarginCancel' : order.lastUpdateReason, 'canceled');
    }
    this.#emitOrder(order);
    this.#settle();
    return { order, execution };
  }

  /**
   * Amend price and/or the order's total fillable count (`count` = filled + new remaining). The new
   * state passes the same checks as a create (#admit), net of what the order reserves now, before
   * anything changes: an amend is refused whole or applied whole.
   */
  amend(userId: string, subaccount: number, orderId: string, ticker: string, side: BookSide, price: number, count: number, updatedClientOrderId: string | null): AmendResult | MarginError {
    this.advance();
    const order = this.#ownOrder(userId, subaccount, orderId);
    if (order === null) return ERR_ORDER_NOT_FOUND;
    if (order.ticker !== ticker) return marginError(400, 'bad_request', 'ticker does not match the order', 'ticker');
    if (order.side !== side) return marginError(400, 'bad_request', 'side does not match the order', 'side');
    const market = this.markets.get(ticker)!;
    const check = this.#checkOrderShape(market.spec, price, count);
    if (check !== null) return check;
    if (count <= order.filled) return marginError(400, 'invalid_order_size', 'count must exceed the contracts already filled', 'count');
    const renamed = updatedClientOrderId !== null && updatedClientOrderId !== order.clientOrderId;
    const clientIds = this.#clientIds.get(userId)!;
    if (renamed && clientIds.has(updatedClientOrderId)) return marginError(409, 'order_already_exists', 'order with this client_order_id already exists');
    const account = this.accounts.get(accountKey(userId, order.subaccount))!;
    const admitted = this.#admit(account, market, amendedRequest(order, price, count - order.filled), order.source, order);
    if (typeof admitted !== 'number') return admitted;
    if (renamed) {
      if (this.#forgetful.has(userId)) clientIds.delete(order.clientOrderId); // only live orders' ids are held
      clientIds.add(updatedClientOrderId);
      order.clientOrderId = updatedClientOrderId;
    }
    const newRemaining = admitted;
    const keepsPriority = price === order.price && newRemaining <= order.remaining;
    const sizeChanged = newRemaining !== order.remaining;
    const execution: ExecutionSummary = { filled: 0, costUnits: 0, fees: 0 };
    order.lastUpdateReason = 'Amend';
    order.lastUpdateMs = this.now();
    if (keepsPriority) {
      order.remaining = newRemaining;
    } else {
      market.book.remove(order);
      order.price = price;
      order.remaining = newRemaining;
      const result = this.#execute(market, order);
      execution.filled = result.filled;
      execution.costUnits = result.costUnits;
      execution.fees = result.fees;
      if (order.status === 'resting') market.book.add(order);
    }
    this.#emitOrder(order);
    this.#settle();
    return { order, execution, sizeChanged: sizeChanged || execution.filled > 0 };
  }

  /** Exactly one of reduceBy / reduceTo (count units); to zero cancels. */
  decrease(userId: string, subaccount: number, orderId: string, reduceBy: number | null, reduceTo: number | null): MarginOrderRecord | MarginError {
    this.advance();
    const order = this.#ownOrder(userId, subaccount, orderId);
    if (order === null) return ERR_ORDER_NOT_FOUND;
    const target = reduceTo !== null ? reduceTo : order.remaining - (reduceBy as number);
    if (target % CONTRACT !== 0) return marginError(400, 'invalid_order_size', 'margin orders take whole contracts', reduceTo !== null ? 'reduce_to' : 'reduce_by');
    if (target >= order.remaining || target < 0) {
      if (reduceBy !== null && reduceBy >= order.remaining) return this.#cancelOrder(order, 'Decrease');
      return marginError(400, 'invalid_order_size', 'a decrease must leave fewer contracts than remain', reduceTo !== null ? 'reduce_to' : 'reduce_by');
    }
    if (target === 0) return this.#cancelOrder(order, 'Decrease');
    order.remaining = target;
    order.lastUpdateReason = 'Decrease';
    order.lastUpdateMs = this.now();
    this.#emitOrder(order);
    this.#settle();
    return order;
  }

  /** Cancels a resting order; the remaining count before the cancel is returned. */
  cancel(userId: string, subaccount: number | null, orderId: string): { order: MarginOrderRecord; reducedBy: number } | MarginError {
    this.advance();
    const order = this.#ownOrder(userId, subaccount, orderId);
    if (order === null) return ERR_ORDER_NOT_FOUND;
    const reducedBy = order.remaining;
    this.#cancelOrder(order, 'MarginCancel');
    return { order, reducedBy };
  }

  /** Cancels every resting order of the user (one subaccount, or all when null); returns how many. */
  cancelAll(userId: string, subaccount: number | null): number {
    this.advance();
    // Victims first: a cancel can drop orders of users without history and so compact orderList under a live loop.
    const victims: MarginOrderRecord[] = [];
    for (const order of this.orderList) {
      if (order.status !== 'resting' || order.userId !== userId) continue;
      if (subaccount !== null && order.subaccount !== subaccount) continue;
      victims.push(order);
    }
    let cancelled = 0;
    for (const order of victims) {
      if (order.status !== 'resting') continue; // a liquidation's self-trade cancel got there first
      this.#cancelOrder(order, 'MarginCancel');
      cancelled++;
    }
    return cancelled;
  }

  /** Sets a market's reference (index) price, as the underlying feed would; liquidations may follow. */
  setReferencePrice(ticker: string, price: number): void {
    const market = this.markets.get(ticker);
    if (market === undefined) throw new Error(`no margin market ${ticker}`);
    this.advance();
    this.#accumulatePremium(market, this.now());
    market.reference = price;
    market.referenceMs = this.now();
    this.#settle();
  }

  // ---- reads the views share -----------------------------------------------------------

  /** Equity = cash + unrealized pnl at marks, centicents. */
  equityOf(account: AccountRecord): number {
    let equity = account.cash;
    for (const position of account.positions.values()) equity += this.unrealizedOf(position);
    return equity;
  }

  /** (count x mark - openCost) / 100, rounded down. */
  unrealizedOf(position: PositionRecord): number {
    const mark = this.markets.get(position.ticker)!.mark;
    return mulDivFloor(position.count * mark - position.openCost, 1, 100);
  }

  /** Maintenance margin of one position on its own (gross). */
  positionMaintenance(position: PositionRecord): number {
    if (position.count === 0) return 0;
    const market = this.markets.get(position.ticker)!;
    const notional = notionalOf(market.mark as never, position.count as never);
    return applyRateCeil(notional, maintenanceRatePpm(market.spec, notional));
  }

  /** Joint margin group of a position: its asset class when the market is portfolio-margined, else null. */
  portfolioGroupOf(position: PositionRecord): string | null {
    const spec = this.markets.get(position.ticker)!.spec;
    return spec.portfolioMargin && spec.assetClass !== null ? spec.assetClass : null;
  }

  /**
   * The seed's is_portfolio: a portfolio-margin position sharing its asset class with another open
   * portfolio-margin position of the same subaccount (margined jointly, so not attributable).
   */
  isPortfolio(account: AccountRecord, position: PositionRecord): boolean {
    const group = this.portfolioGroupOf(position);
    if (group === null || position.count === 0) return false;
    for (const other of account.positions.values()) {
      if (other !== position && other.count !== 0 && this.portfolioGroupOf(other) === group) return true;
    }
    return false;
  }

  /**
   * Maintenance margin of a subaccount, optionally of one asset class only (clearing). Gross
   * positions add up; a portfolio group of two or more positions needs the larger of its long
   * and short sides (offsetting exposure is hedged).
   */
  maintenanceOf(account: AccountRecord, assetClass: string | null | undefined = undefined): number {
    let total = 0;
    const groups = new Map<string, { long: number; short: number; members: number }>();
    for (const position of account.positions.values()) {
      if (position.count === 0) continue;
      const spec = this.markets.get(position.ticker)!.spec;
      if (assetClass !== undefined && spec.assetClass !== assetClass) continue;
      const margin = this.positionMaintenance(position);
      const group = this.portfolioGroupOf(position);
      if (group === null) {
        total += margin;
        continue;
      }
      let sides = groups.get(group);
      if (sides === undefined) groups.set(group, (sides = { long: 0, short: 0, members: 0 }));
      if (position.count > 0) sides.long += margin;
      else sides.short += margin;
      sides.members++;
    }
    for (const sides of groups.values()) total += sides.members === 1 ? sides.long + sides.short : Math.max(sides.long, sides.short);
    return total;
  }

  /** Initial margin: each position's maintenance x its market's multiplier (gross; conservative). */
  initialOf(account: AccountRecord): number {
    let total = 0;
    for (const position of account.positions.values()) {
      if (position.count === 0) continue;
      const spec = this.markets.get(position.ticker)!.spec;
      total += applyRateCeil(this.positionMaintenance(position), spec.initialMarginMultiplierPpm);
    }
    return total;
  }

  /**
   * Margin of resting orders: initial margin of the worse side of each market's resting exposure
   * beyond the position; `excluding` (an order being amended) is left out.
   */
  restingOrdersMarginOf(account: AccountRecord, excluding: MarginOrderRecord | null = null): number {
    let total = 0;
    for (const market of this.markets.values()) {
      let bids = 0;
      let asks = 0;
      for (const side of ['bid', 'ask'] as const) {
        for (const level of market.book.levels(side)) {
          for (const order of level.orders) {
            if (order.userId !== account.userId || order.subaccount !== account.subaccount || order === excluding) continue;
            if (side === 'bid') bids += order.remaining;
            else asks += order.remaining;
          }
        }
      }
      const exposure = Math.max(bids, asks);
      if (exposure === 0) continue;
      const notional = notionalOf(market.mark as never, exposure as never);
      total += applyRateCeil(applyRateCeil(notional, maintenanceRatePpm(market.spec, notional)), market.spec.initialMarginMultiplierPpm);
    }
    return total;
  }

  /**
   * The mark at which this position's subaccount would reach maintenance margin, other marks held:
   * p = [1e8 (MMother - E) + 1e6 c m] / (1e6 c - |c| r), rounded to a price unit; null when not positive.
   */
  estimatedLiquidationPrice(account: AccountRecord, position: PositionRecord): number | null {
    if (position.count === 0) return null;
    const market = this.markets.get(position.ticker)!;
    const own = this.positionMaintenance(position);
    const others = this.maintenanceOf(account) - own;
    const equity = this.equityOf(account);
    const notional = notionalOf(market.mark as never, position.count as never);
    const rate = maintenanceRatePpm(market.spec, notional);
    const c = BigInt(position.count);
    const numerator = 100_000_000n * BigInt(others - equity) + 1_000_000n * c * BigInt(market.mark);
    const denominator = 1_000_000n * c - (c < 0n ? -c : c) * BigInt(rate);
    if (denominator === 0n) return null;
    const quotient = Number(numerator * 2n / denominator);
    const price = quotient >= 0 ? Math.floor((quotient + 1) / 2) : -Math.floor((-quotient + 1) / 2);
    return price > 0 ? price : null;
  }

  /** Funding rate estimate of the in-progress period, ppm (time-weighted premium so far, capped). */
  fundingEstimatePpm(market: MarketState, nowMs: number = this.now()): number {
    const elapsed = nowMs - market.periodStartMs;
    const accum = market.premiumAccum + premiumPpm(market) * (nowMs - market.accumMs);
    const average = elapsed <= 0 ? premiumPpm(market) : mulDivRound(accum, 1, elapsed);
    return clamp(average, -market.spec.fundingCapPpm, market.spec.fundingCapPpm);
  }

  /** Funding a position would get at `ratePpm` and the current mark: positive received. */
  fundingAmountOf(count: number, mark: number, ratePpm: number): { notional: number; amount: number } {
    const notional = signedNotionalOf(mark as never, count as never);
    return { notional, amount: -mulDivTrunc(notional, ratePpm, PPM) };
  }

  // ---- internals ----------------------------------------------------------------------------

  #checkOrderShape(spec: MarginMarketSpec, price: number, count: number): MarginError | null {
    if (price <= 0 || price % spec.tickSize !== 0) return marginError(400, 'invalid_price', `price must be a positive multiple of the tick size`, 'price');
    if (count <= 0 || count % CONTRACT !== 0) return marginError(400, 'invalid_order_size', 'margin orders take a positive whole number of contracts', 'count');
    return null;
  }

  #ownOrder(userId: string, subaccount: number | null, orderId: string): MarginOrderRecord | null {
    const order = this.orders.get(orderId);
    if (order === undefined || order.userId !== userId || order.status !== 'resting') return null;
    if (subaccount !== null && order.subaccount !== subaccount) return null;
    return order;
  }

  #cancelOrder(order: MarginOrderRecord, reason: 'MarginCancel' | 'Decrease' | 'SelfTradeCancel'): MarginOrderRecord {
    this.markets.get(order.ticker)!.book.remove(order);
    this.#finish(order, reason, 'canceled');
    order.remaining = 0;
    this.#emitOrder(order);
    this.#settle();
    return order;
  }

  /** Cancels (ExpiryCancel) every resting order whose expiration_time is `dueMs`, the heap's earliest. */
  #expireDue(dueMs: number): void {
    for (let guard = 0; this.#expiry.peekMs() <= dueMs; guard++) {
      if (guard > 10_000_000) throw new Error('margin engine: expiry did not terminate');
      const order = this.#expiry.pop();
      if (order.status !== 'resting') continue; // filled or cancelled before it expired
      const market = this.markets.get(order.ticker)!;
      market.book.remove(order);
      this.#finish(order, 'ExpiryCancel', 'canceled');
      order.lastUpdateMs = dueMs; // the time it expired, though applied by a later call
      const lastTop = market.tops.length === 0 ? dueMs : market.tops[market.tops.length - 1].ms;
      this.#updateMark(market, Math.max(dueMs, lastTop)); // the tapes stay in time order
      this.#emitOrder(order);
    }
  }

  #finish(order: MarginOrderRecord, reason: MarginOrderRecord['lastUpdateReason'], status: 'canceled' | 'executed'): void {
    order.status = status;
    order.lastUpdateReason = reason;
    order.lastUpdateMs = this.now();
    if (status === 'canceled') order.remaining = 0;
  }

  /**
   * The checks an order's new state must pass, shared by create and amend so they cannot drift:
   * reduce-only, post-only crossing, expiration, fill-or-kill volume, and initial margin (the
   * leverage the maintenance tiers allow). `own` is the resting order an amend changes (null on a
   * create): its current reservation is not counted twice, and an amend that does not raise the
   * margin it needs (smaller, or priced away) passes even on an account short of margin, as a
   * cancel would. Returns the count to place (reduce-only clips it to the position), or the refusal.
   */
  #admit(account: AccountRecord, market: MarketState, request: CreateMarginOrder, source: OrderSource, own: MarginOrderRecord | null): number | MarginError {
    let count = request.count;
    if (request.reduceOnly) {
      if (request.timeInForce === 'good_till_canceled') return marginError(400, 'invalid_order', 'reduce_only orders must be immediate_or_cancel or fill_or_kill', 'reduce_only');
      const held = account.positions.get(request.ticker)?.count ?? 0;
      const reducible = request.side === 'ask' ? Math.max(held, 0) : Math.max(-held, 0);
      if (reducible === 0) return marginError(400, 'invalid_order', 'reduce_only order would not reduce the position', 'reduce_only');
      count = Math.min(count, reducible);
    }
    // The order's own resting size sits on its own side, so it never counts toward its crossing volume.
    const crossing = request.side === 'bid' ? market.book.crossingCount('ask', request.price) : market.book.crossingCount('bid', request.price);
    if (request.postOnly && crossing > 0) return marginError(400, 'invalid_order', 'invalid order', 'post only cross');
    if (request.expirationTs !== null) {
      // As the Predictions engine (matching.ts): GTC only, and in the future.
      if (request.timeInForce !== 'good_till_canceled') return marginError(400, 'invalid_order', 'expiration_time is only allowed with good_till_canceled', 'expiration_time');
      if (!Number.isSafeInteger(request.expirationTs) || request.expirationTs * 1000 <= this.now()) return marginError(400, 'invalid_order', 'expiration_time must be in the future', 'expiration_time');
    }
    if (request.timeInForce === 'fill_or_kill' && crossing < count) return marginError(400, 'fill_or_kill_insufficient_resting_volume', 'fill or kill order cannot be filled in full');
    if (source === 'user' && !request.reduceOnly) {
      const shortfall = this.#initialMarginShortfall(account, market, request.side, count, request.price, own);
      if (shortfall > 0) return marginError(400, 'insufficient_balance', 'insufficient margin for this order', `initial margin short by ${shortfall} centicents`);
    }
    return count;
  }

  /**
   * Initial margin the account lacks to also carry this order fully filled (0 when enough). With
   * `own` (an amend), that order's current size is left out of the resting-order margin, and 0 is
   * returned when the new state needs no more than the current one.
   */
  #initialMarginShortfall(account: AccountRecord, market: MarketState, side: BookSide, count: number, price: number, own: MarginOrderRecord | null): number {
    const held = account.positions.get(market.spec.ticker)?.count ?? 0;
    const after = held + (side === 'bid' ? count : -count);
    if (Math.abs(after) <= Math.abs(held) && Math.sign(after) !== -Math.sign(held)) return 0; // reducing
    const required = this.#initialMarginWith(account, market, after, price, own);
    if (own !== null) {
      const heldAfterNow = held + (own.side === 'bid' ? own.remaining : -own.remaining);
      if (required <= this.#initialMarginWith(account, market, heldAfterNow, own.price, own)) return 0;
    }
    const shortfall = required - this.equityOf(account);
    return shortfall > 0 ? shortfall : 0;
  }

  /** Initial margin of the account with this market's position at `after` (priced at the worse of mark and `price`), other orders resting. */
  #initialMarginWith(account: AccountRecord, market: MarketState, after: number, price: number, excluding: MarginOrderRecord | null): number {
    let required = this.restingOrdersMarginOf(account, excluding);
    for (const position of account.positions.values()) {
      if (position.ticker === market.spec.ticker || position.count === 0) continue;
      const spec = this.markets.get(position.ticker)!.spec;
      required += applyRateCeil(this.positionMaintenance(position), spec.initialMarginMultiplierPpm);
    }
    const notional = notionalOf(Math.max(market.mark, price) as never, after as never);
    return required + applyRateCeil(applyRateCeil(notional, maintenanceRatePpm(market.spec, notional)), market.spec.initialMarginMultiplierPpm);
  }

  /** Matches `taker` against the opposite side until it is done, stops crossing, or self-trade stops it. */
  #execute(market: MarketState, taker: MarginOrderRecord): ExecutionSummary {
    const summary: ExecutionSummary = { filled: 0, costUnits: 0, fees: 0 };
    const opposite: BookSide = taker.side === 'bid' ? 'ask' : 'bid';
    const levels = market.book.levels(opposite);
    for (let guard = 0; taker.remaining > 0; guard++) {
      if (guard > 1_000_000) throw new Error('margin engine: matching did not terminate');
      if (levels.length === 0) break;
      const level = levels[0];
      if (taker.side === 'bid' ? level.price > taker.price : level.price < taker.price) break;
      const maker = level.orders[0];
      if (maker.userId === taker.userId) {
        if (taker.selfTradePrevention === 'taker_at_cross') {
          this.#finish(taker, 'SelfTradeCancel', 'canceled');
          break;
        }
        this.#cancelOrder(maker, 'SelfTradeCancel');
        continue;
      }
      const quantity = Math.min(taker.remaining, maker.remaining);
      const fee = this.#trade(market, taker, maker, quantity, level.price);
      summary.filled += quantity;
      summary.costUnits += quantity * level.price;
      summary.fees += fee;
    }
    return summary;
  }

  /** One match of `quantity` at `price`; returns the taker's fee. */
  #trade(market: MarketState, taker: MarginOrderRecord, maker: MarginOrderRecord, quantity: number, price: number): number {
    const nowMs = this.now();
    const tradeId = this.#ids.next();
    const notional = notionalOf(price as never, quantity as never);
    const takerFee = applyRateCeil(notional, market.spec.takerFeePpm);
    const makerFee = applyRateCeil(notional, market.spec.makerFeePpm);
    for (const [order, fee, isTaker] of [[maker, makerFee, false], [taker, takerFee, true]] as const) {
      order.remaining -= quantity;
      order.filled += quantity;
      order.lastUpdateMs = nowMs;
      order.lastUpdateReason = 'Trade';
      if (order.remaining === 0) {
        if (!isTaker) market.book.remove(order);
        order.status = 'executed';
      }
      if (!isTaker) this.#emitOrder(order);
      const account = this.accounts.get(accountKey(order.userId, order.subaccount))!;
      const applied = this.#applyFill(market, account, order.side === 'bid' ? quantity : -quantity, price, fee);
      // Drawn for every fill, kept or not, so the ids of the fills that are kept do not depend on who forgets.
      const seq = ++this.#seq;
      const fillId = this.#ids.next();
      if (this.#forgetful.has(order.userId)) continue;
      this.fills.push({
        seq,
        fillId,
        tradeId,
        orderId: order.orderId,
        userId: order.userId,
        subaccount: order.subaccount,
        ticker: order.ticker,
        side: order.side,
        count: quantity,
        price,
        isTaker,
        fee,
        entryPrice: applied.entryPrice,
        realizedPnl: applied.realized,
        createdMs: nowMs,
        source: order.source,
      });
    }
    const trade: MarginTradeRecord = { seq: ++this.#seq, tradeId, ticker: market.spec.ticker, count: quantity, price, takerSide: taker.side, createdMs: nowMs };
    market.trades.push(trade);
    // Synthetic activity trades without end: the oldest half goes when full, as the other tapes'.
    if (market.trades.length > this.#tapeEntriesMax) market.trades.splice(0, market.trades.length >> 1);
    market.lastPrice = price;
    market.volume += quantity;
    market.volumeNotional += notional;
    this.#emitTrade(market, trade);
    return takerFee;
  }

  /** Moves a position by signed `delta` at `price`: realized pnl on the closed part, fees, cash. */
  #applyFill(market: MarketState, account: AccountRecord, delta: number, price: number, fee: number): { entryPrice: number; realized: number } {
    let position = account.positions.get(market.spec.ticker);
    if (position === undefined) {
      position = { ticker: market.spec.ticker, count: 0, openCost: 0, fees: 0 };
      account.positions.set(market.spec.ticker, position);
    }
    const longBefore = Math.max(position.count, 0);
    let entryPrice = price;
    let realizedUnits = 0;
    let rest = delta;
    if (position.count !== 0 && Math.sign(position.count) !== Math.sign(delta)) {
      entryPrice = mulDivRound(Math.abs(position.openCost), 1, Math.abs(position.count));
      const closing = Math.sign(delta) * Math.min(Math.abs(delta), Math.abs(position.count));
      const removedCost = mulDivRound(position.openCost, Math.abs(closing), Math.abs(position.count));
      realizedUnits = -(price * closing) - removedCost;
      position.count += closing;
      position.openCost -= removedCost;
      rest -= closing;
      if (position.count === 0) position.openCost = 0;
    } else if (position.count !== 0) {
      entryPrice = mulDivRound(Math.abs(position.openCost), 1, Math.abs(position.count));
    }
    if (rest !== 0) {
      position.count += rest;
      position.openCost += price * rest;
    }
    const realized = mulDivFloor(realizedUnits, 1, 100);
    position.fees = position.count === 0 ? 0 : position.fees + fee;
    account.cash += realized - fee;
    market.openInterest += Math.max(position.count, 0) - longBefore;
    return { entryPrice, realized };
  }

  #applyFunding(market: MarketState, fundingMs: number): void {
    this.#accumulatePremium(market, fundingMs);
    const elapsed = fundingMs - market.periodStartMs;
    const average = elapsed <= 0 ? premiumPpm(market) : mulDivRound(market.premiumAccum, 1, elapsed);
    const ratePpm = clamp(average, -market.spec.fundingCapPpm, market.spec.fundingCapPpm);
    market.fundingRates.push({ ticker: market.spec.ticker, fundingMs, ratePpm, markPrice: market.mark });
    for (const account of this.accounts.values()) {
      const position = account.positions.get(market.spec.ticker);
      if (position === undefined || position.count === 0) continue;
      const { notional, amount } = this.fundingAmountOf(position.count, market.mark, ratePpm);
      account.cash += amount;
      const seq = ++this.#seq;
      const id = this.#ids.next();
      if (this.#forgetful.has(account.userId)) continue;
      this.fundingPayments.push({
        seq,
        id,
        userId: account.userId,
        subaccount: account.subaccount,
        ticker: market.spec.ticker,
        fundingMs,
        ratePpm,
        markPrice: market.mark,
        count: position.count,
        notional,
        amount,
      });
    }
    market.premiumAccum = 0;
    market.accumMs = fundingMs;
    market.periodStartMs = fundingMs;
    market.nextFundingMs = fundingMs + market.spec.fundingIntervalMs;
  }

  #accumulatePremium(market: MarketState, atMs: number): void {
    if (atMs > market.accumMs) {
      market.premiumAccum += premiumPpm(market) * (atMs - market.accumMs);
      market.accumMs = atMs;
    }
  }

  #rollCycle(cycleEndMs: number): void {
    this.baselineUnrealized.clear();
    this.baselineMaintenance.clear();
    for (const account of this.accounts.values()) {
      for (const position of account.positions.values()) {
        if (position.count !== 0) this.baselineUnrealized.set(`${account.userId}|${account.subaccount}|${position.ticker}`, this.unrealizedOf(position));
      }
      const classes = new Set<string>();
      for (const position of account.positions.values()) {
        const assetClass = this.markets.get(position.ticker)!.spec.assetClass;
        if (assetClass !== null && position.count !== 0) classes.add(assetClass);
      }
      for (const assetClass of classes) this.baselineMaintenance.set(`${account.userId}|${account.subaccount}|${assetClass}`, this.maintenanceOf(account, assetClass));
    }
    this.cycleStartMs = cycleEndMs;
  }

  /** Marks from books and trades, then liquidations; re-entrant calls (from liquidation orders) return at once. */
  #settle(): void {
    if (this.#settling) return;
    this.#settling = true;
    try {
      for (let pass = 0; pass < LIQUIDATION_PASSES_MAX; pass++) {
        const nowMs = this.now();
        for (const market of this.markets.values()) this.#updateMark(market, nowMs);
        const liquidated = this.#liquidateOnce();
        const fired = this.triggers.evaluate();
        if (!liquidated && !fired) break;
      }
    } finally {
      this.#settling = false;
    }
  }

  #updateMark(market: MarketState, nowMs: number): void {
    const bid = market.book.best('bid');
    const ask = market.book.best('ask');
    recordTop(market, nowMs, bid, ask, this.#tapeEntriesMax);
    const last = market.lastPrice ?? market.mark;
    const mark = bid !== null && ask !== null ? median(bid, ask, last) : last;
    if (mark === market.mark) return;
    this.#accumulatePremium(market, nowMs);
    market.mark = mark;
    market.markMs = nowMs;
  }

  /** One pass: closes every position of each subaccount under maintenance; true when an order traded. */
  #liquidateOnce(): boolean {
    let traded = false;
    for (const account of this.accounts.values()) {
      const maintenance = this.maintenanceOf(account);
      if (maintenance === 0) continue;
      const threshold = mulDivFloor(maintenance, this.catalog.liquidationMarginRatioPpm, PPM);
      if (this.equityOf(account) >= threshold) continue;
      for (const position of [...account.positions.values()]) {
        if (position.count === 0) continue;
        const market = this.markets.get(position.ticker)!;
        const side: BookSide = position.count > 0 ? 'ask' : 'bid';
        const band = mulDivFloor(market.mark, LIQUIDATION_BAND_PPM, PPM);
        const tick = market.spec.tickSize;
        const rawPrice = side === 'ask' ? Math.max(tick, market.mark - band) : market.mark + band;
        const price = side === 'ask' ? Math.ceil(rawPrice / tick) * tick : Math.floor(rawPrice / tick) * tick;
        const result = this.create(account.userId, account.subaccount, {
          ticker: position.ticker,
          clientOrderId: `liquidation-${++this.#liquidationSeq}`,
          side,
          count: Math.abs(position.count),
          price,
          timeInForce: 'immediate_or_cancel',
          selfTradePrevention: 'maker',
          postOnly: false,
          reduceOnly: true,
          cancelOrderOnPause: false,
          expirationTs: null,
        }, 'system', 'liquidation');
        if (!('isError' in result) && result.execution.filled > 0) traded = true;
      }
    }
    return traded;
  }
}

/** An amend's new state of `order` in the shape #admit checks: the order's own terms, new price and remaining size. */
function amendedRequest(order: MarginOrderRecord, price: number, remaining: number): CreateMarginOrder {
  return {
    ticker: order.ticker,
    clientOrderId: order.clientOrderId,
    side: order.side,
    count: remaining,
    price,
    timeInForce: order.timeInForce,
    selfTradePrevention: order.selfTradePrevention,
    postOnly: order.postOnly,
    reduceOnly: order.reduceOnly,
    cancelOrderOnPause: order.cancelOrderOnPause,
    expirationTs: order.expirationTs,
  };
}

export function accountKey(userId: string, subaccount: number): string {
  return `${userId}|${subaccount}`;
}

/** (mark - reference) / reference in ppm, rounded toward zero. */
function premiumPpm(market: MarketState): number {
  return mulDivTrunc(market.mark - market.reference, PPM, market.reference);
}

function median(a: number, b: number, c: number): number {
  return Math.max(Math.min(a, b), Math.min(Math.max(a, b), c));
}

/** Public trades, book tops and open interest kept per market (trade lists, candlesticks): a memory bound. */
export const MARGIN_TAPE_ENTRIES_MAX = 200_000;

/** Appends the market's top (and open interest) when either changed; halves the tape when full. */
function recordTop(market: MarketState, nowMs: number, bid: number | null, ask: number | null, entriesMax: number): void {
  const tops = market.tops;
  const last = tops.length === 0 ? null : tops[tops.length - 1];
  if (last === null || last.bid !== bid || last.ask !== ask) {
    tops.push({ ms: nowMs, bid, ask });
    if (tops.length > entriesMax) tops.splice(0, tops.length >> 1);
  }
  const interest = market.openInterestTape;
  const lastInterest = interest.length === 0 ? null : interest[interest.length - 1];
  if (lastInterest === null || lastInterest.openInterest !== market.openInterest) {
    interest.push({ ms: nowMs, openInterest: market.openInterest, mark: market.mark });
    if (interest.length > entriesMax) interest.splice(0, interest.length >> 1);
  }
}
