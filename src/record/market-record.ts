/**
 * The MARKET record's body: what replay needs to add a market exactly as the live run did (its
 * grid, open flag, close time, event). JSON: written once per market, off the hot path.
 */

import type { PriceGrid } from '../core/index.ts';

export function marketRecordText(ticker: string, grid: PriceGrid, open: boolean, closeMs: number, eventTicker: string): string {
  return JSON.stringify({
    ticker,
    priceLevelStructure: grid.structure,
    priceRanges: grid.structure === null ? grid.toPriceRanges() : null,
    open,
    closeMs: Number.isFinite(closeMs) ? closeMs : null,
    eventTicker,
  });
}
