/**
 * Fill and public trade records: fields set in the constructor (stable shapes), filled in by the
 * engine, read by listeners and queries. Ids are derived on demand from the sequence number (the
 * id source formats them), so executions nobody looks at never build id strings. Records of users
 * without history and trades in a full ring are reused in place: listeners copy what they keep.
 */

import type { BookSide, Centicents, Count, Price } from '../../core/index.ts';
import type { ExchangeIndex, Fill, Trade } from './types.ts';
import type { IdSource } from './ids.ts';

export class TradeRecord implements Trade {
  declare ids: IdSource;
  declare ticker: string;
  declare price: Price;
  declare count: Count;
  declare takerSide: BookSide;
  declare isBlockTrade: boolean;
  declare tsMs: number;
  declare seq: number;

  constructor(ids: IdSource, ticker: string, price: Price, count: Count, takerSide: BookSide, tsMs: number, seq: number) {
    this.ids = ids;
    this.ticker = ticker;
    this.price = price;
    this.count = count;
    this.takerSide = takerSide;
    this.isBlockTrade = false;
    this.tsMs = tsMs;
    this.seq = seq;
  }

  get tradeId(): string {
    return this.ids.format(this.seq);
  }
}

export class FillRecord implements Fill {
  /** Fixed id (history records), or '' to derive it from the trade (scratch records). */
  declare fixedId: string;
  declare trade: TradeRecord | null;
  /** The order's id source and sequence number: orderId is formatted on read. */
  declare orderIds: IdSource | null;
  declare orderSeq: number;
  declare clientOrderId: string;
  declare userId: string;
  declare ticker: string;
  declare exchangeIndex: ExchangeIndex;
  declare subaccount: number;
  declare side: BookSide;
  declare price: Price;
  declare count: Count;
  declare isTaker: boolean;
  declare fee: Centicents;
  declare postPosition: Count;
  declare tsMs: number;
  declare seq: number;

  constructor() {
    this.fixedId = '';
    this.trade = null;
    this.orderIds = null;
    this.orderSeq = 0;
    this.clientOrderId = '';
    this.userId = '';
    this.ticker = '';
    this.exchangeIndex = 0;
    this.subaccount = 0;
    this.side = 'bid';
    this.price = 0 as Price;
    this.count = 0 as Count;
    this.isTaker = false;
    this.fee = 0 as Centicents;
    this.postPosition = 0 as Count;
    this.tsMs = 0;
    this.seq = 0;
  }

  get orderId(): string {
    return this.orderIds === null ? '' : this.orderIds.format(this.orderSeq);
  }

  get fillId(): string {
    if (this.fixedId !== '') return this.fixedId;
    return this.trade === null ? '' : this.trade.tradeId;
  }
}
