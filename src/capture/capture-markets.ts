/**
 * Which markets a capture records: a fixed list (--markets), every open market of some series
 * (--series) or every open market (--all-open), read through the budgeted client (paged GET
 * /markets, 1,000 a page), and whether a market the lifecycle channel announces later belongs to
 * the selection. Owns the selection and its reads; the capture subscribes.
 */

import { MarketLookupError, fetchMarkets, marketFacts, type ColdReads, type MarketFacts } from '../runtime/market-directory.ts';

export type MarketSelection =
  | { kind: 'markets'; tickers: readonly string[] }
  | { kind: 'series'; series: readonly string[] }
  | { kind: 'all-open' };

/** GET /markets `limit` maximum (rest.md §8). */
const PAGE_LIMIT = 1000;
/** 200 pages of 1,000: far above any exchange's open markets; the bound stops a cursor loop. */
const PAGES_MAX = 200;

/** Whether a market announced later (lifecycle created / activated) is one this capture follows. */
export function selects(selection: MarketSelection, ticker: string): boolean {
  switch (selection.kind) {
    case 'markets':
      return selection.tickers.includes(ticker);
    case 'series':
      // Market tickers start with their series: KXHIGHNY-26NOV28-T50 is of KXHIGHNY.
      return selection.series.some((series) => ticker.startsWith(`${series}-`));
    case 'all-open':
      return true;
  }
}

/** The selection's markets now, by ticker (only open ones for series and all-open). */
export async function listSelectedMarkets(reads: ColdReads, apiPrefix: string, selection: MarketSelection): Promise<Map<string, MarketFacts>> {
  if (selection.kind === 'markets') {
    const found = await fetchMarkets(reads, apiPrefix, selection.tickers);
    for (const ticker of selection.tickers) {
      if (!found.has(ticker)) throw new MarketLookupError('MARKET_NOT_FOUND', ticker, `the exchange does not list it (GET ${apiPrefix}/markets)`);
    }
    return found;
  }
  const out = new Map<string, MarketFacts>();
  const queries = selection.kind === 'series' ? selection.series.map((series) => ({ series_ticker: series, status: 'open' })) : [{ status: 'open' }];
  for (const query of queries) {
    const list = await reads.pages(`${apiPrefix}/markets`, new URLSearchParams(query), 'markets', PAGE_LIMIT, PAGES_MAX);
    for (const market of list) {
      if (typeof market.ticker !== 'string') continue;
      try {
        out.set(market.ticker, marketFacts(market.ticker, market));
      } catch {
        // A market whose grid this build cannot read is left out rather than failing the capture.
      }
    }
  }
  return out;
}
