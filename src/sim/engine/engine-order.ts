/**
 * The engine's order record: the public Order fields plus the intrusive links that place it in a
 * price level's FIFO queue, its owner, market and group. One object per order, every field set in
 * the constructor (one hidden class); the matching path mutates it in place and allocates nothing.
 */

import type { BookSide, Centicents, Count, Price } from '../../core/index.ts';
import type { ExchangeIndex, Order, OrderStatus, SelfTradePrevention, TimeInForce, UpdateReason } from './types.ts';
import type { MarketState } from './market-state.ts';
import type { UserState } from './user-state.ts';
import type { OrderGroupState } from './order-group-state.ts';

export class EngineOrder implements Order {
  orderId: string;
  userId: string;
  clientOrderId: string;
  ticker: string;
  eventTicker: string;
  exchangeIndex: ExchangeIndex;
  subaccount: number;
  side: BookSide;
  price: Price;
  initialCount: Count;
  fillCount: Count;
  remainingCount: Count;
  status: OrderStatus;
  timeInForce: TimeInForce;
  postOnly: boolean;
  reduceOnly: boolean;
  selfTradePrevention: SelfTradePrevention;
  orderGroupId: string | null;
  cancelOrderOnPause: boolean;
  expirationTs: number;
  createdMs: number;
  lastUpdateMs: number;
  lastUpdateReason: UpdateReason;
  takerFillCost: Centicents;
  makerFillCost: Centicents;
  takerFees: Centicents;
  makerFees: Centicents;
  seq: number;

  // ---- engine-internal ----
  user: UserState;
  market: MarketState;
  group: OrderGroupState | null;
  /** 0 = bid (YES bids), 1 = ask (NO bids at YES-price level). */
  sideCode: number;
  /** Grid level of `price` in the market's current grid (updated on regrid). */
  level: number;
  prev: EngineOrder | null;
  next: EngineOrder | null;
  inBook: boolean;
  /** Collateral held now for the resting remainder (centicents), released as it fills or is cancelled. */
  reserved: number;
  /** Index in the expiry heap, -1 when not there. */
  heapIndex: number;

  constructor(user: UserState, market: MarketState) {
    this.orderId = '';
    this.userId = user.userId;
    this.clientOrderId = '';
    this.ticker = market.ticker;
    this.eventTicker = market.eventTicker;
    this.exchangeIndex = market.exchangeIndex;
    this.subaccount = 0;
    this.side = 'bid';
    this.price = 0 as Price;
    this.initialCount = 0 as Count;
    this.fillCount = 0 as Count;
    this.remainingCount = 0 as Count;
    this.status = 'resting';
    this.timeInForce = 'good_till_canceled';
    this.postOnly = false;
    this.reduceOnly = false;
    this.selfTradePrevention = 'taker_at_cross';
    this.orderGroupId = null;
    this.cancelOrderOnPause = false;
    this.expirationTs = 0;
    this.createdMs = 0;
    this.lastUpdateMs = 0;
    this.lastUpdateReason = '';
    this.takerFillCost = 0 as Centicents;
    this.makerFillCost = 0 as Centicents;
    this.takerFees = 0 as Centicents;
    this.makerFees = 0 as Centicents;
    this.seq = 0;
    this.user = user;
    this.market = market;
    this.group = null;
    this.sideCode = 0;
    this.level = -1;
    this.prev = null;
    this.next = null;
    this.inBook = false;
    this.reserved = 0;
    this.heapIndex = -1;
  }
}
