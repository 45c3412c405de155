/**
 * One market as every hop sees it: its dense index (assigned once, when the market is loaded), its
 * ticker, its price grid and whether it trades now. The feed writes the lifecycle facts (open,
 * close time, regrid) through the registry, in one place; the book, the gate and strategies read
 * them here. Owns no behaviour.
 */

import type { PriceGrid } from '../core/index.ts';

export class Market {
  readonly index: number;
  readonly ticker: string;
  /** The price grid (price_ranges / price_level_structure); null until the market's facts are loaded. */
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
