/**
 * Reads a market's trading facts from the exchange's REST API (GET /markets/{ticker}, public):
 * its status and its price grid (price_ranges when present, else price_level_structure). Off the
 * hot path: called when a strategy that trades the market starts. Owns that one read and its
 * parsing; it never subscribes, trades or caches beyond the caller.
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
