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
  userId: string;
  subaccount: number;
  ticker: string;
  eventTicker: string;
  exchangeIndex: ExchangeIndex;
  position: Count;
  positionCost: Centicents;
  positionFeeCost: Centicents;
  realizedPnl: Centicents;
  feesPaid: Centicents;
  totalTraded: Centicents;
  volume: Count;
  lastUpdatedMs: number;
  market: MarketState;
  /** Creation order among the user's positions (pagination key). */
  seq: number;

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
  /** Resting orders (all users): for cancel-all without scanning history. */
  readonly resting: Set<EngineOrder>;
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
    this.resting = new Set();
    this.updatedMs = nowMs;
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
