/**
 * Reads the venue's recent candlesticks for the runtime's live candles (workers/candles
 * CandleFeed.backfill): GET /markets/candlesticks?market_tickers=...&start_ts&end_ts&period_interval
 * (public, the batch route), parsed from the `_dollars` / `_fp` strings into integer units by
 * scanning (never floats). Off the hot path: at start and when a strategy brings a new market.
 * Through the budgeted client, 100 tickers a request (the route's documented maximum), so 5,000
 * markets cost 50 paced reads an interval. Owns those reads and their parsing.
 */

import { ExecError } from '../oms/index.ts';
import { MARKET_TICKERS_PER_REQUEST, chunksOf, type ColdReads } from './market-directory.ts';
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

/** The last `periods` candles (oldest first) of each ticker at `intervalMinutes`, up to `nowMs`; `apiPrefix` e.g. /trade-api/v2. */
export async function fetchCandles(reads: ColdReads, apiPrefix: string, tickers: readonly string[], intervalMinutes: number, periods: number, nowMs: number): Promise<Map<string, Candle[]>> {
  // The period in progress ends after now: ask up to its end, so it is included (candles whose
  // end_period_ts lies in [start_ts, end_ts]).
  const periodSeconds = intervalMinutes * 60;
  const endTs = Math.ceil(nowMs / 1000 / periodSeconds) * periodSeconds;
  const startTs = Math.max(0, endTs - (periods - 1) * periodSeconds);
  const out = new Map<string, Candle[]>();
  const bodies = await Promise.all(chunksOf(tickers, MARKET_TICKERS_PER_REQUEST).map(async (chunk) => {
    const query = `market_tickers=${chunk.map(encodeURIComponent).join(',')}&start_ts=${startTs}&end_ts=${endTs}&period_interval=${intervalMinutes}`;
    const path = `${apiPrefix}/markets/candlesticks?${query}`;
    try {
      return await reads.get(path);
    } catch (error) {
      const status = error instanceof ExecError ? ` (HTTP ${error.status})` : '';
      throw new CandleBackfillError(`GET ${apiPrefix}/markets/candlesticks (${chunk.length} tickers) failed${status}: ${(error as Error).message}`);
    }
  }));
  for (const body of bodies) {
    const markets = (body as { markets?: Array<{ market_ticker?: string; candlesticks?: Json[] }> } | null)?.markets ?? [];
    for (const market of markets) {
      if (typeof market.market_ticker !== 'string') continue;
      out.set(market.market_ticker, (market.candlesticks ?? []).map(candleFromJson));
    }
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
