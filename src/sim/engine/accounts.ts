/**
 * Accounts: the users, their cash per (subaccount, exchange index), the collateral resting
 * orders hold, positions, fees and settlement payouts, and the balance views of REST §6. It owns
 * every change of money and positions: the matching part tells it an execution happened
 * (`applyFill`), a resting order's size changed (`reserve`) or a market settled (`settle`), and
 * it books the consequences, builds the fill record and emits the fill and position events.
 * It never touches a book or an order's status, and never decides whether an order trades.
 *
 * Money (Predictions exchange): a bid reserves price x count, an ask (1 - price) x count while it
 * rests (reduce-only orders reserve nothing); a fill moves cash by the trade price; a YES and a
 * NO held in the same (user, subaccount, market) net out and pay $1 per pair at once. A Margin
 * account model would replace `collateral`, `reserve`, `applyFill` and `settle`.
 */

import type { Centicents, Count, Price } from '../../core/index.ts';
import type {
  AddUserOptions, BalanceView, ExchangeIndex, RestingOrderValueView, SimEngineOptions, SimError, SubaccountBalanceView,
} from './types.ts';
import { EXCHANGE_INDEXES } from './types.ts';
import { ERR_BAD_SUBACCOUNT, ERR_INSUFFICIENT_BALANCE, ERR_USER_NOT_FOUND, simError } from './errors.ts';
import { COMBO_QUOTER_RATE, FeeRole, tradeFee as tradeFeeImported } from './fees.ts';
import type { EngineOrder } from './engine-order.ts';
import type { MarketState } from './market-state.ts';
import { INDEX_SLOTS as INDEX_SLOTS_IMPORTED, SUBACCOUNT_COUNT as SUBACCOUNT_COUNT_IMPORTED, UserState } from './user-state.ts';
import type { PositionRecord } from './user-state.ts';
import { FillRecord as FillRecordImported } from './records.ts';
import type { TradeRecord } from './records.ts';
import { PRICE_ONE as PRICE_ONE_IMPORTED, costOf as costOfImported, proceedsOf as proceedsOfImported, share as shareImported } from './money.ts';
import type { EngineEvents } from './events.ts';

// tsx runs TypeScript as CommonJS, where every use of an imported binding is a getter call on the
// module object; the fill path reads these module-local aliases instead (bench/sim-matching).
const FillRecord = FillRecordImported;
const tradeFee = tradeFeeImported;
const costOf = costOfImported;
const proceedsOf = proceedsOfImported;
const share = shareImported;
const PRICE_ONE = PRICE_ONE_IMPORTED;
const INDEX_SLOTS = INDEX_SLOTS_IMPORTED;
const SUBACCOUNT_COUNT = SUBACCOUNT_COUNT_IMPORTED;

export function validSubaccount(subaccount: number): boolean {
  return Number.isInteger(subaccount) && subaccount >= 0 && subaccount < SUBACCOUNT_COUNT;
}

/** The exchange indexes of the Predictions exchange (0, 2, 3); they are fixed for a run. */
export function isExchangeIndex(index: number): boolean {
  return index === 0 || index === 2 || index === 3;
}

const ERR_UNKNOWN_INDEX = simError(400, 'bad_request', 'unknown exchange_index');

export class Accounts {
  readonly #now: () => number;
  readonly #roundFeesToCent: boolean;
  readonly #events: EngineEvents;
  readonly #users = new Map<string, UserState>();
  #fillSeq = 0;
  /** The fill record of users without history, reused for every one of their fills. */
  readonly #scratchFill = new FillRecord();

  constructor(now: () => number, options: Readonly<SimEngineOptions>, events: EngineEvents) {
    this.#now = now;
    this.#roundFeesToCent = options.feeRounding === 'cent';
    this.#events = events;
  }

  // ---------------------------------------------------------------------------------------------
  // Users and cash.

  /** Registers a user (idempotent). */
  addUser(userId: string, options?: AddUserOptions): void {
    if (this.#users.has(userId)) return;
    this.#users.set(userId, new UserState(userId, options?.keepHistory ?? true, this.#now()));
  }

  hasUser(userId: string): boolean {
    return this.#users.has(userId);
  }

  /** The user's account state, undefined when never added. */
  user(userId: string): UserState | undefined {
    return this.#users.get(userId);
  }

  /** Adds (or with a negative amount removes) cash on (subaccount, exchange index). */
  deposit(userId: string, subaccount: number, exchangeIndex: number, amount: Centicents): SimError | null {
    const user = this.#users.get(userId);
    if (user === undefined) return ERR_USER_NOT_FOUND;
    if (!validSubaccount(subaccount)) return ERR_BAD_SUBACCOUNT;
    if (!isExchangeIndex(exchangeIndex)) return ERR_UNKNOWN_INDEX;
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
    if (!isExchangeIndex(exchangeIndex)) return ERR_UNKNOWN_INDEX;
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

  // ---------------------------------------------------------------------------------------------
  // Collateral and fees (the order-entry checks of the matching part ask these).

  /** Cash free for new orders on (subaccount, exchange index): cash minus collateral held, centicents. */
  available(user: UserState, subaccount: number, exchangeIndex: number): number {
    const slot = subaccount * INDEX_SLOTS + exchangeIndex;
    return user.cash[slot] - user.reserved[slot];
  }

  /** Collateral a resting order of `count` at `price` holds (sideCode 0 bid, 1 ask), centicents. */
  collateral(sideCode: number, price: number, count: number): number {
    return costOf(sideCode === 0 ? price : PRICE_ONE - price, count);
  }

  /** The taker fee of `count` trading at `price` in `market`, centicents. */
  takerFee(market: MarketState, price: Price, count: Count): number {
    const event = market.event;
    return tradeFee(event.takerRate, event.feeMultiplier, price, count, this.#roundFeesToCent);
  }

  /** Sets the collateral an order holds for its remaining count (none unless resting); adjusts the account. */
  reserve(order: EngineOrder): void {
    const unit = order.sideCode === 0 ? order.price : PRICE_ONE - order.price;
    const next = order.reduceOnly || order.status !== 'resting' ? 0 : costOf(unit, order.remainingCount);
    if (next !== order.reserved) {
      order.user.reserved[order.subaccount * INDEX_SLOTS + order.exchangeIndex] += next - order.reserved;
      order.reserved = next;
    }
  }

  // ---------------------------------------------------------------------------------------------
  // Executions and settlement.

  /**
   * Books one side of an execution on its owner: cash, position (netting YES against NO), fees,
   * the order's cost fields, the fill record and its events. Returns the fee charged. `feeRole`
   * overrides which fee applies (the combo quote rule, fees.ts); is_taker stays the book role.
   */
  applyFill(order: EngineOrder, trade: TradeRecord, tradePrice: number, quantity: number, isTaker: boolean, nowMs: number, feeRole: FeeRole = FeeRole.BOOK): number {
    const market = order.market;
    const user = order.user;
    const event = market.event;
    const bid = order.sideCode === 0;
    const unit = bid ? tradePrice : PRICE_ONE - tradePrice; // what this side pays per contract
    const rate = feeRole === FeeRole.BOOK ? (isTaker ? event.takerRate : event.makerRate) : feeRole === FeeRole.TAKER ? event.takerRate : COMBO_QUOTER_RATE;
    const fee = rate === 0 ? 0 : tradeFee(rate, event.feeMultiplier, tradePrice as Price, quantity as Count, this.#roundFeesToCent);
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
    // History users keep their fills (fixed id); others get the scratch record.
    const fill = user.keepHistory ? new FillRecord() : this.#scratchFill;
    fill.fixedId = user.keepHistory ? trade.tradeId : '';
    fill.trade = user.keepHistory ? null : trade;
    fill.orderIds = order.ids;
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
    this.#events.fillAndPosition(user.userId, fill, order, position);
    return fee;
  }

  /**
   * Pays every position of a determined market: $1 per winning contract, cost basis closed into
   * realized PnL, one position event each. Resting orders must already be cancelled.
   */
  settle(market: MarketState, result: 'yes' | 'no', nowMs: number): void {
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
      this.#events.position(p.userId, p);
    }
    market.openInterest = 0 as Count;
  }

  // ---------------------------------------------------------------------------------------------
  // Balance views (REST §6).

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
    if (index !== null && index !== -1 && !isExchangeIndex(index)) return ERR_UNKNOWN_INDEX;
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
      portfolio += markValue(p);
    }
    return { balance: total as Centicents, portfolioValue: portfolio as Centicents, updatedMs, breakdown };
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
}

/** Value of a position at the price it could be sold now: best bid of its outcome, else last trade, else its cost. */
function markValue(p: PositionRecord): number {
  const market = p.market;
  const long = p.position > 0;
  const size = long ? p.position : -p.position;
  let price = 0;
  if (long) price = market.book.bestBid !== -1 ? market.bestBid() : market.lastPrice;
  else price = market.book.bestAsk !== -1 ? PRICE_ONE - market.bestAsk() : market.lastPrice !== 0 ? PRICE_ONE - market.lastPrice : 0;
  if (price === 0) return p.positionCost;
  return proceedsOf(price, size);
}
