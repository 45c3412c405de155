/**
 * Reads the venue's recent candlesticks for the runtime's live candles (workers/candles
 * CandleFeed.backfill): GET /markets/candlesticks?market_tickers=...&start_ts&end_ts&period_interval
 * (public, the batch route), parsed from the `_dollars` / `_fp` strings into integer units by
 * scanning (never floats). Off the hot path: at start and when a strategy brings a new market.
 * Owns that one read and its parsing.
 */

import { getPublic } from './market-directory.ts';
import { COUNT_INVALID, PRICE_INVALID, parseCount, parsePrice } from '../core/index.ts';
import { NULL_PRICE, type Candle } from '../workers/index.ts';

type Json = Record<string, unknown>;

export class CandleBackfillError extends Error {
  readonly code = 'CANDLE_BACKFILL_FAILED' as const;
  constructor(message: string) {
    super(message);
    this.name = 'CandleBackfillError';
  }
}

/** The last `periods` candles (oldest first) of each ticker at `intervalMinutes`, up to `nowMs`. */
export async function fetchCandles(restUrl: string, tickers: readonly string[], intervalMinutes: number, periods: number, nowMs: number, timeoutMs = 5_000): Promise<Map<string, Candle[]>> {
  // The period in progress ends after now: ask up to its end, so it is included (candles whose
  // end_period_ts lies in [start_ts, end_ts]).
  const periodSeconds = intervalMinutes * 60;
  const endTs = Math.ceil(nowMs / 1000 / periodSeconds) * periodSeconds;
  const startTs = Math.max(0, endTs - (periods - 1) * periodSeconds);
  const query = `market_tickers=${tickers.map(encodeURIComponent).join(',')}&start_ts=${startTs}&end_ts=${endTs}&period_interval=${intervalMinutes}`;
  const url = `${restUrl.replace(/\/+$/, '')}/markets/candlesticks?${query}`;
  let status: number;
  let text: string;
  try {
    ({ status, text } = await getPublic(url, timeoutMs));
  } catch (error) {
    throw new CandleBackfillError(`GET ${url} failed: ${(error as Error).message}`);
  }
  if (status !== 200) throw new CandleBackfillError(`GET ${url} answered ${status}: ${text.slice(0, 200)}`);
  const body = JSON.parse(text) as { markets?: Array<{ market_ticker?: string; candlesticks?: Json[] }> };
  const out = new Map<string, Candle[]>();
  for (const market of body.markets ?? []) {
    if (typeof market.market_ticker !== 'string') continue;
    out.set(market.market_ticker, (market.candlesticks ?? []).map(candleFromJson));
  }
  return out;
}

function price(node: unknown, name: string): number {
  const text = (node as Json | undefined)?.[`${name}_dollars`];
  if (typeof text !== 'string') return NULL_PRICE;
  const value = parsePrice(text);
  return value === PRICE_INVALID ? NULL_PRICE : value;
}

function count(body: Json, name: string): number {
  const text = body[`${name}_fp`];
  if (typeof text !== 'string') return 0;
  const value = parseCount(text);
  return value === COUNT_INVALID ? 0 : value;
}

function top(node: unknown): Candle['yesBid'] {
  const at = (name: string): number => {
    const value = price(node, name);
    return value === NULL_PRICE ? 0 : value;
  };
  return { open: at('open'), high: at('high'), low: at('low'), close: at('close') };
}

/** One MarketCandlestick (live shape) in integer units. */
export function candleFromJson(body: Json): Candle {
  const p = body.price;
  const volume = count(body, 'volume');
  const open = price(p, 'open');
  return {
    market: -1,
    endTs: Number(body.end_period_ts),
    open,
    high: price(p, 'high'),
    low: price(p, 'low'),
    close: price(p, 'close'),
    mean: price(p, 'mean'),
    previous: price(p, 'previous'),
    volume,
    trades: open === NULL_PRICE ? 0 : 1,
    yesBid: top(body.yes_bid),
    yesAsk: top(body.yes_ask),
    openInterest: count(body, 'open_interest'),
  };
}
