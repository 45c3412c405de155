/**
 * Fill and public trade records: one object per execution, fields set in the constructor (stable
 * shapes). The engine fills them in; listeners and queries read them.
 */

import type { BookSide, Centicents, Count, Price } from '../../core/index.ts';
import type { ExchangeIndex, Fill, Trade } from './types.ts';

export class FillRecord implements Fill {
  constructor(
    readonly fillId: string,
    readonly orderId: string,
    readonly clientOrderId: string,
    readonly userId: string,
    readonly ticker: string,
    readonly exchangeIndex: ExchangeIndex,
    readonly subaccount: number,
    readonly side: BookSide,
    readonly price: Price,
    readonly count: Count,
    readonly isTaker: boolean,
    readonly fee: Centicents,
    readonly postPosition: Count,
    readonly tsMs: number,
    readonly seq: number,
  ) {}
}

export class TradeRecord implements Trade {
  constructor(
    readonly tradeId: string,
    readonly ticker: string,
    readonly price: Price,
    readonly count: Count,
    readonly takerSide: BookSide,
    readonly isBlockTrade: boolean,
    readonly tsMs: number,
    readonly seq: number,
  ) {}
}
