/**
 * One market as every hop sees it: its dense index (assigned once, when the market is loaded), its
 * ticker, its price grid and whether it trades now. The feed writes the lifecycle facts (open,
 * close time, regrid) through the registry, in one place; the book, the gate and strategies read
 * them here. Owns no behaviour.
 */

import { PRICE_INVALID, type Exchange, type Price, type PriceGrid } from '../core/index.ts';

export type { Exchange };

export class Market {
  readonly index: number;
  readonly ticker: string;
  /** Set once, when the market is loaded; a ticker names one market across both exchanges. */
  exchange: Exchange = 'predictions';
  /** Margin: the price tick in 1/10,000 $ (tick_size); 0 on Predictions, whose grid decides. */
  tick = 0;
  /** Margin: the settlement mark price (margin ticker channel, market listing); PRICE_INVALID until known. */
  markPrice: Price = PRICE_INVALID;
  /** The price grid (price_ranges / price_level_structure); null until the market's facts are loaded (always null on Margin). */
  grid: PriceGrid | null = null;
  /** Trading open per lifecycle (false while paused, determined, settled); assumed open until told. */
  open = true;
  /** Unix ms at which the market stops trading (close_ts); Infinity when unknown. */
  closeMs = Infinity;

  constructor(index: number, ticker: string) {
    this.index = index;
    this.ticker = ticker;
  }
}
