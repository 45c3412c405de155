/**
 * What the feed knows about one market besides its book: whether it is subscribed, open for
 * trading (lifecycle), when data last came, and where its resync stands. One object per market,
 * created when the market is added and indexed by its registry index, so the delta path reaches it
 * by array index. Open and close time are the registry's shared Market (`info`). Owns no behaviour.
 */

import type { OrderBook } from '../book/index.ts';
import type { Market } from '../market/index.ts';

export const ResyncState = {
  NONE: 0,
  /** Out of sync; a fresh snapshot has been (or will be) asked for. */
  PENDING: 1,
} as const;
export type ResyncState = (typeof ResyncState)[keyof typeof ResyncState];

export class MarketState {
  readonly ticker: string;
  readonly index: number;
  /** The registry's record: open per lifecycle, close time. */
  readonly info: Market;
  book: OrderBook;
  /** Wanted on the orderbook_delta channel. */
  subscribed = false;
  /** Coarse time of the last snapshot or delta for this market, Unix ms. */
  lastMessageMs = 0;
  resync: ResyncState = ResyncState.NONE;
  /** ApplyStatus that started the current resync. */
  resyncReason = 0;
  /** When the current snapshot request was made, Unix ms. */
  resyncSinceMs = 0;
  resyncAttempts = 0;
  /** The pending snapshot is the first one since subscribing (not a resync: no onBookResynced). */
  initial = false;
  /** In the resync manager's queue for get_snapshot. */
  queued = false;

  constructor(info: Market, book: OrderBook) {
    this.ticker = info.ticker;
    this.index = info.index;
    this.info = info;
    this.book = book;
  }
}
