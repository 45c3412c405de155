/**
 * What the feed knows about one market besides its book: whether it is subscribed, open for
 * trading (lifecycle), when data last came, and where its resync stands. One object per market,
 * created when the market is added and indexed by its TickerTable index, so the delta path reaches
 * it by array index. Owns no behaviour.
 */

import type { OrderBook } from '../book/index.ts';

export const ResyncState = {
  NONE: 0,
  /** Out of sync; a fresh snapshot has been (or will be) asked for. */
  PENDING: 1,
} as const;
export type ResyncState = (typeof ResyncState)[keyof typeof ResyncState];

export class MarketState {
  readonly ticker: string;
  readonly index: number;
  book: OrderBook;
  /** Wanted on the orderbook_delta channel. */
  subscribed = false;
  /** Trading open per lifecycle (false while paused, determined, settled). Assumed open until told. */
  open = true;
  /** Close time from lifecycle, Unix ms; -1 when unknown. */
  closeTsMs = -1;
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

  constructor(ticker: string, index: number, book: OrderBook) {
    this.ticker = ticker;
    this.index = index;
    this.book = book;
  }
}
