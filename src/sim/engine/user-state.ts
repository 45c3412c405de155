/**
 * A user's account state: cash and resting-order collateral per (subaccount 0-63, exchange index),
 * positions per (market, subaccount), the orders, fills and order groups the user owns, and the
 * client order ids already used. It owns the records and their indexes; the engine decides when
 * they change. Money is integer centicents, counts integer Count.
 */

import type { Centicents, Count } from '../../core/index.ts';
import type { ExchangeIndex, Fill, Position } from './types.ts';
import type { EngineOrder } from './engine-order.ts';
import type { MarketState } from './market-state.ts';
import type { OrderGroupState } from './order-group-state.ts';

export const SUBACCOUNT_COUNT = 64;
/** Money slots per subaccount, indexed by exchange index 0..3 (1 is unused by the Predictions exchange). */
export const INDEX_SLOTS = 4;

export class PositionRecord implements Position {
  declare userId: string;
  declare subaccount: number;
  declare ticker: string;
  declare eventTicker: string;
  declare exchangeIndex: ExchangeIndex;
  declare position: Count;
  declare positionCost: Centicents;
  declare positionFeeCost: Centicents;
  declare realizedPnl: Centicents;
  declare feesPaid: Centicents;
  declare totalTraded: Centicents;
  declare volume: Count;
  declare lastUpdatedMs: number;
  declare market: MarketState;
  /** Creation order among the user's positions (pagination key). */
  declare seq: number;

  constructor(userId: string, subaccount: number, market: MarketState, seq: number, nowMs: number) {
    this.userId = userId;
    this.subaccount = subaccount;
    this.ticker = market.ticker;
    this.eventTicker = market.eventTicker;
    this.exchangeIndex = market.exchangeIndex;
    this.position = 0 as Count;
    this.positionCost = 0 as Centicents;
    this.positionFeeCost = 0 as Centicents;
    this.realizedPnl = 0 as Centicents;
    this.feesPaid = 0 as Centicents;
    this.totalTraded = 0 as Centicents;
    this.volume = 0 as Count;
    this.lastUpdatedMs = nowMs;
    this.market = market;
    this.seq = seq;
  }
}

export class UserState {
  readonly userId: string;
  readonly keepHistory: boolean;
  /** Cash per slot (subaccount * INDEX_SLOTS + exchangeIndex), centicents. */
  readonly cash: Float64Array;
  /** Collateral held by resting orders per slot, centicents. */
  readonly reserved: Float64Array;
  readonly slotUpdatedMs: Float64Array;
  /** Every order (history users) in creation order; resting orders of others live only in books. */
  readonly orders: EngineOrder[];
  readonly fills: Fill[];
  readonly positions: PositionRecord[];
  readonly positionsByMarket: Map<MarketState, Array<PositionRecord | undefined>>;
  readonly clientOrderIds: Set<string>;
  readonly groups: Map<string, OrderGroupState>;
  /** Resting orders, oldest first: an intrusive list through EngineOrder.userPrev/userNext. */
  restingHead: EngineOrder | null;
  restingTail: EngineOrder | null;
  restingCount: number;
  updatedMs: number;

  constructor(userId: string, keepHistory: boolean, nowMs: number) {
    this.userId = userId;
    this.keepHistory = keepHistory;
    this.cash = new Float64Array(SUBACCOUNT_COUNT * INDEX_SLOTS);
    this.reserved = new Float64Array(SUBACCOUNT_COUNT * INDEX_SLOTS);
    this.slotUpdatedMs = new Float64Array(SUBACCOUNT_COUNT * INDEX_SLOTS).fill(nowMs);
    this.orders = [];
    this.fills = [];
    this.positions = [];
    this.positionsByMarket = new Map();
    this.clientOrderIds = new Set();
    this.groups = new Map();
    this.restingHead = null;
    this.restingTail = null;
    this.restingCount = 0;
    this.updatedMs = nowMs;
  }

  addResting(order: EngineOrder): void {
    if (order.onUserList) return;
    order.userPrev = this.restingTail;
    order.userNext = null;
    if (this.restingTail === null) this.restingHead = order;
    else this.restingTail.userNext = order;
    this.restingTail = order;
    order.onUserList = true;
    this.restingCount++;
  }

  removeResting(order: EngineOrder): void {
    if (!order.onUserList) return;
    const prev = order.userPrev;
    const next = order.userNext;
    if (prev === null) this.restingHead = next;
    else prev.userNext = next;
    if (next === null) this.restingTail = prev;
    else next.userPrev = prev;
    order.userPrev = null;
    order.userNext = null;
    order.onUserList = false;
    this.restingCount--;
  }

  /** A snapshot array of the resting orders in list order (when they last entered the book). */
  restingOrders(): EngineOrder[] {
    const out: EngineOrder[] = [];
    for (let order = this.restingHead; order !== null; order = order.userNext) out.push(order);
    return out;
  }

  position(market: MarketState, subaccount: number, nowMs: number): PositionRecord {
    let bySubaccount = this.positionsByMarket.get(market);
    if (bySubaccount === undefined) {
      bySubaccount = [];
      this.positionsByMarket.set(market, bySubaccount);
    }
    let record = bySubaccount[subaccount];
    if (record === undefined) {
      record = new PositionRecord(this.userId, subaccount, market, this.positions.length, nowMs);
      bySubaccount[subaccount] = record;
      this.positions.push(record);
      market.positions.push(record);
    }
    return record;
  }

  positionIfAny(market: MarketState, subaccount: number): PositionRecord | undefined {
    const bySubaccount = this.positionsByMarket.get(market);
    return bySubaccount === undefined ? undefined : bySubaccount[subaccount];
  }
}
