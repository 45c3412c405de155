/**
 * The engine's order record: the public Order fields plus the intrusive links that place it in a
 * price level's FIFO queue, its owner, market and group. One object per order, every field set in
 * the constructor (one hidden class); the matching path mutates it in place and allocates nothing.
 * Fields are `declare`d so the compiler emits no field initialisers before the constructor's own
 * assignments (ES2022 class fields would define each one twice; bench/sim-matching).
 */

import type { BookSide, Centicents, Count, Price } from '../../core/index.ts';
import type { ExchangeIndex, Order, OrderStatus, SelfTradePrevention, TimeInForce, UpdateReason } from './types.ts';
import type { MarketState } from './market-state.ts';
import type { UserState } from './user-state.ts';
import type { OrderGroupState } from './order-group-state.ts';
import type { IdSource } from './ids.ts';

export class EngineOrder implements Order {
  declare userId: string;
  declare clientOrderId: string;
  declare ticker: string;
  declare eventTicker: string;
  declare exchangeIndex: ExchangeIndex;
  declare subaccount: number;
  declare side: BookSide;
  declare price: Price;
  declare initialCount: Count;
  declare fillCount: Count;
  declare remainingCount: Count;
  declare status: OrderStatus;
  declare timeInForce: TimeInForce;
  declare postOnly: boolean;
  declare reduceOnly: boolean;
  declare selfTradePrevention: SelfTradePrevention;
  declare orderGroupId: string | null;
  declare cancelOrderOnPause: boolean;
  declare expirationTs: number;
  declare createdMs: number;
  declare lastUpdateMs: number;
  declare lastUpdateReason: UpdateReason;
  declare takerFillCost: Centicents;
  declare makerFillCost: Centicents;
  declare takerFees: Centicents;
  declare makerFees: Centicents;
  declare seq: number;

  // ---- engine-internal ----
  /** Formats the id from `seq` on first read (orders nobody renders never build a string). */
  declare ids: IdSource;
  declare idText: string;
  declare user: UserState;
  declare market: MarketState;
  declare group: OrderGroupState | null;
  /** 0 = bid (YES bids), 1 = ask (NO bids at YES-price level). */
  declare sideCode: number;
  /** Grid level of `price` in the market's current grid (updated on regrid). */
  declare level: number;
  declare prev: EngineOrder | null;
  declare next: EngineOrder | null;
  declare inBook: boolean;
  /** Collateral held now for the resting remainder (centicents), released as it fills or is cancelled. */
  declare reserved: number;
  /** Index in the expiry heap, -1 when not there. */
  declare heapIndex: number;
  /** Links in the owner's list of resting orders. */
  declare userPrev: EngineOrder | null;
  declare userNext: EngineOrder | null;
  declare onUserList: boolean;
  /** A quoter's RFQ execution order (the combo fee rule, matching.ts). */
  declare quoteExecution: boolean;

  constructor(ids: IdSource, user: UserState, market: MarketState) {
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
    this.ids = ids;
    this.idText = '';
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
    this.userPrev = null;
    this.userNext = null;
    this.onUserList = false;
    this.quoteExecution = false;
  }

  get orderId(): string {
    if (this.idText === '') this.idText = this.ids.format(this.seq);
    return this.idText;
  }
}
