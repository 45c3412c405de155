/**
 * Reads markets' trading facts from the exchange's REST API: their status and price grid
 * (price_ranges when present, else price_level_structure). Off the hot path: called when a
 * strategy that trades the markets starts. The runtime reads in batches through the budgeted
 * client (fetchMarkets: GET /markets?tickers=..., MARKET_TICKERS_PER_REQUEST a request, cursor
 * paging), so 5,000 markets cost 50 reads, not 5,000; fetchMarket (one GET per market, unsigned)
 * stays for tools and tests. Owns those reads and their parsing; it never subscribes, trades or
 * caches beyond the caller.
 */

import { request } from 'undici';
import { GridError, PriceGrid, isPriceLevelStructure } from '../core/index.ts';
import type { PriceRangeText } from '../core/index.ts';

export interface MarketFacts {
  ticker: string;
  /** The exchange's status string (active, initialized, closed, ...). */
  status: string;
  /** True when orders may be placed now (status active). */
  open: boolean;
  grid: PriceGrid;
  /** close_time as Unix ms; Infinity when absent or unreadable (orders are then never refused for time). */
  closeMs: number;
  /** event_ticker; '' when absent. */
  eventTicker: string;
}

export type MarketLookupErrorCode = 'MARKET_NOT_FOUND' | 'MARKET_LOOKUP_FAILED' | 'MARKET_GRID_INVALID';

export class MarketLookupError extends Error {
  readonly code: MarketLookupErrorCode;
  readonly ticker: string;
  constructor(code: MarketLookupErrorCode, ticker: string, message: string) {
    super(`market ${ticker}: ${message}`);
    this.name = 'MarketLookupError';
    this.code = code;
    this.ticker = ticker;
  }
}

/**
 * The reads these lookups go through (BudgetedRestClient: paced by the read budget, 429s retried).
 * Paths are full (API prefix, query).
 */
export interface ColdReads {
  get(path: string): Promise<Record<string, unknown> | null>;
  pages(path: string, params: URLSearchParams, listName: string, limit: number, pagesMax: number): Promise<Record<string, unknown>[]>;
}

/**
 * Tickers per GET /markets (and /events, /markets/candlesticks). The docs give no bound for
 * `tickers` on GET /markets; 100 is the largest they state for any ticker list (GET
 * /markets/orderbooks, GET /markets/candlesticks), and the simulator refuses longer lists.
 */
export const MARKET_TICKERS_PER_REQUEST = 100;
/** GET /markets `limit` maximum (rest.md §8): one page holds a whole chunk. */
const MARKETS_PAGE_LIMIT = 1000;
/** Pages per chunk: one is enough (100 tickers < 1,000 a page); the bound stops a cursor loop. */
const PAGES_PER_CHUNK_MAX = 10;

/** `items` in slices of `size`. */
export function chunksOf<T>(items: readonly T[], size: number): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}

/**
 * The facts of every listed ticker, by ticker: one paged GET /markets?tickers=... per 100 tickers,
 * all queued at once (the client's pacer spaces them). A ticker the exchange does not list is
 * absent from the map; the caller decides (a Margin lookup, or MARKET_NOT_FOUND).
 */
export async function fetchMarkets(reads: ColdReads, apiPrefix: string, tickers: readonly string[]): Promise<Map<string, MarketFacts>> {
  const out = new Map<string, MarketFacts>();
  const wanted = new Set(tickers);
  const chunks = chunksOf([...wanted], MARKET_TICKERS_PER_REQUEST);
  const pages = await Promise.all(chunks.map(async (chunk) => {
    try {
      return await reads.pages(`${apiPrefix}/markets`, new URLSearchParams({ tickers: chunk.join(',') }), 'markets', MARKETS_PAGE_LIMIT, PAGES_PER_CHUNK_MAX);
    } catch (error) {
      throw new MarketLookupError('MARKET_LOOKUP_FAILED', chunk[0], `GET ${apiPrefix}/markets?tickers=... (${chunk.length} tickers) failed: ${(error as Error).message}`);
    }
  }));
  for (const list of pages) {
    for (const market of list) {
      const ticker = market.ticker;
      if (typeof ticker !== 'string' || !wanted.has(ticker)) continue;
      out.set(ticker, marketFacts(ticker, market));
    }
  }
  return out;
}

/**
 * Whether each event's markets are mutually exclusive (EventData.mutually_exclusive), by event
 * ticker: GET /events?tickers=... per 100 events. Events the exchange does not return are absent.
 */
export async function fetchEventsExclusive(reads: ColdReads, apiPrefix: string, eventTickers: readonly string[]): Promise<Map<string, boolean>> {
  const out = new Map<string, boolean>();
  const chunks = chunksOf([...new Set(eventTickers)], MARKET_TICKERS_PER_REQUEST);
  // GET /events `limit` maximum is 200 (rest.md §8): one page per chunk of 100.
  const lists = await Promise.all(chunks.map((chunk) => reads.pages(`${apiPrefix}/events`, new URLSearchParams({ tickers: chunk.join(',') }), 'events', 200, PAGES_PER_CHUNK_MAX)));
  for (const list of lists) {
    for (const event of list) if (typeof event.event_ticker === 'string') out.set(event.event_ticker, event.mutually_exclusive === true);
  }
  return out;
}

/** One unsigned GET of a public market-data path: its status and body text; rejects on a transport failure. */
export async function getPublic(url: string, timeoutMs: number): Promise<{ status: number; text: string }> {
  const response = await request(url, { method: 'GET', headersTimeout: timeoutMs, bodyTimeout: timeoutMs });
  return { status: response.statusCode, text: await response.body.text() };
}

/** `restUrl` is the API base including its prefix, e.g. http://127.0.0.1:9000/trade-api/v2. */
export async function fetchMarket(restUrl: string, ticker: string, timeoutMs = 5_000): Promise<MarketFacts> {
  return marketFacts(ticker, await fetchMarketObject(`${restUrl.replace(/\/+$/, '')}/markets/${encodeURIComponent(ticker)}`, ticker, timeoutMs));
}

/** GET a market listing (`/markets/{ticker}` or `/margin/markets/{ticker}`): its "market" object, or a coded MarketLookupError. */
export async function fetchMarketObject(url: string, ticker: string, timeoutMs: number): Promise<Record<string, unknown>> {
  let status: number;
  let text: string;
  try {
    ({ status, text } = await getPublic(url, timeoutMs));
  } catch (error) {
    throw new MarketLookupError('MARKET_LOOKUP_FAILED', ticker, `GET ${url} failed: ${(error as Error).message}`);
  }
  if (status === 404) throw new MarketLookupError('MARKET_NOT_FOUND', ticker, `the exchange does not list it (GET ${url})`);
  if (status !== 200) throw new MarketLookupError('MARKET_LOOKUP_FAILED', ticker, `GET ${url} answered ${status}`);
  let market: Record<string, unknown>;
  try {
    const body = JSON.parse(text) as { market?: Record<string, unknown> };
    if (typeof body.market !== 'object' || body.market === null) throw new Error('no "market" object');
    market = body.market;
  } catch (error) {
    throw new MarketLookupError('MARKET_LOOKUP_FAILED', ticker, `unreadable body: ${(error as Error).message}`);
  }
  return market;
}

/** Parses the Market object's status and grid. */
export function marketFacts(ticker: string, market: Record<string, unknown>): MarketFacts {
  const structure = market.price_level_structure;
  const ranges = Array.isArray(market.price_ranges) ? (market.price_ranges as PriceRangeText[]) : null;
  let grid: PriceGrid;
  try {
    if (ranges !== null && ranges.length > 0) grid = PriceGrid.fromPriceRanges(ranges);
    else if (isPriceLevelStructure(structure)) grid = PriceGrid.fromStructure(structure);
    else throw new GridError(`unknown price_level_structure ${JSON.stringify(structure)} and no price_ranges`);
  } catch (error) {
    throw new MarketLookupError('MARKET_GRID_INVALID', ticker, (error as Error).message);
  }
  const status = typeof market.status === 'string' ? market.status : '';
  const closeMs = typeof market.close_time === 'string' ? Date.parse(market.close_time) : NaN;
  const eventTicker = typeof market.event_ticker === 'string' ? market.event_ticker : '';
  return { ticker, status, open: status === 'active' || status === 'open', grid, closeMs: Number.isFinite(closeMs) ? closeMs : Infinity, eventTicker };
}

/**
 * GET /events/{event_ticker} (public): whether the event's markets are mutually exclusive outcomes
 * (EventData.mutually_exclusive). Off the hot path, for portfolio risk. The caller treats a failed
 * read as "not exclusive": markets settling each on its own is never a smaller worst case than
 * mutually exclusive outcomes (workers/portfolio/portfolio-risk.ts), so the error is conservative.
 */
export async function fetchEventExclusive(restUrl: string, eventTicker: string, timeoutMs = 5_000): Promise<boolean> {
  const url = `${restUrl.replace(/\/+$/, '')}/events/${encodeURIComponent(eventTicker)}`;
  const response = await request(url, { method: 'GET', headersTimeout: timeoutMs, bodyTimeout: timeoutMs });
  const text = await response.body.text();
  if (response.statusCode !== 200) throw new MarketLookupError('MARKET_LOOKUP_FAILED', eventTicker, `GET ${url} answered ${response.statusCode}`);
  const body = JSON.parse(text) as { event?: { mutually_exclusive?: unknown } };
  return body.event?.mutually_exclusive === true;
}
