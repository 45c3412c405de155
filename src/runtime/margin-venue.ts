/**
 * What the runtime reads of the Margin exchange off the hot path: the perpetuals' trading facts
 * (GET /margin/markets, one listing for all: tick, mark price, status, leverage estimates), and, on a
 * timer, the account figures the gate's margin checks compare against (equity per subaccount,
 * notional risk limits). Owns those reads and their parsing; the gate decides.
 */

import { PRICE_INVALID, parsePrice } from '../core/index.ts';
import type { Centicents, Price } from '../core/index.ts';
import type { MarginBalance } from '../exec/index.ts';
import { MarketLookupError, fetchMarketObject, type ColdReads } from './market-directory.ts';

export interface MarginMarketFacts {
  ticker: string;
  status: string;
  open: boolean;
  /** tick_size, 1/10,000 $. */
  tick: number;
  /** settlement_mark_price.price; PRICE_INVALID when absent. */
  markPrice: Price;
  /** Initial margin per unit of notional, parts per million (1 / leverage); 0 when the venue quotes none (the gate's default). */
  initialMarginPpm: number;
}

/** `restUrl` is the API base including its prefix, e.g. http://127.0.0.1:9000/trade-api/v2. */
export async function fetchMarginMarket(restUrl: string, ticker: string, timeoutMs = 5_000): Promise<MarginMarketFacts> {
  return marginMarketFacts(ticker, await fetchMarketObject(`${restUrl.replace(/\/+$/, '')}/margin/markets/${encodeURIComponent(ticker)}`, ticker, timeoutMs));
}

/**
 * The facts of each wanted ticker the Margin exchange lists: one GET /margin/markets through the
 * budgeted client. The route takes no tickers filter and no cursor (margin-api.openapi.yaml: only
 * `status`), and the perpetuals are few, so one listing serves any number of tickers.
 */
export async function fetchMarginMarkets(reads: ColdReads, apiPrefix: string, tickers: readonly string[]): Promise<Map<string, MarginMarketFacts>> {
  const out = new Map<string, MarginMarketFacts>();
  if (tickers.length === 0) return out;
  const wanted = new Set(tickers);
  let body: Record<string, unknown> | null;
  try {
    body = await reads.get(`${apiPrefix}/margin/markets`);
  } catch (error) {
    throw new MarketLookupError('MARKET_LOOKUP_FAILED', tickers[0], `GET ${apiPrefix}/margin/markets failed: ${(error as Error).message}`);
  }
  const markets = Array.isArray(body?.markets) ? (body.markets as unknown[]) : [];
  for (const market of markets) {
    if (typeof market !== 'object' || market === null) continue;
    const ticker = (market as Record<string, unknown>).ticker;
    if (typeof ticker === 'string' && wanted.has(ticker)) out.set(ticker, marginMarketFacts(ticker, market as Record<string, unknown>));
  }
  return out;
}

/** Parses a MarginMarket object's status, tick, mark and leverage. */
export function marginMarketFacts(ticker: string, market: Record<string, unknown>): MarginMarketFacts {
  const tick = typeof market.tick_size === 'string' ? parsePrice(market.tick_size) : PRICE_INVALID;
  if (!(tick > 0)) throw new MarketLookupError('MARKET_GRID_INVALID', ticker, `tick_size ${JSON.stringify(market.tick_size)} is not a positive dollar amount`);
  const mark = market.settlement_mark_price;
  const markText = typeof mark === 'object' && mark !== null ? (mark as Record<string, unknown>).price : undefined;
  const markPrice = typeof markText === 'string' ? parsePrice(markText) : PRICE_INVALID;
  const status = typeof market.status === 'string' ? market.status : '';
  return { ticker, status, open: status === 'active' || status === 'open', tick, markPrice: markPrice > 0 ? markPrice : PRICE_INVALID, initialMarginPpm: initialMarginPpm(market) };
}

/** 1 / the lowest leverage the venue quotes (its largest notional tier): conservative for every size. */
function initialMarginPpm(market: Record<string, unknown>): number {
  const estimates = market.leverage_estimates;
  let lowest = Infinity;
  if (typeof estimates === 'object' && estimates !== null && !Array.isArray(estimates)) {
    for (const value of Object.values(estimates as Record<string, unknown>)) if (typeof value === 'number' && value >= 1 && value < lowest) lowest = value;
  }
  if (lowest === Infinity && typeof market.leverage_estimate === 'number' && market.leverage_estimate >= 1) lowest = market.leverage_estimate;
  return lowest === Infinity ? 0 : Math.ceil(1_000_000 / lowest);
}

/** The Margin route's account reads (MarginOrderEntry). */
export interface MarginAccountReads {
  balances(): Promise<MarginBalance[]>;
  notionalRiskLimits(): Promise<{ defaultCenticents: Centicents; byTicker: Map<string, Centicents> }>;
}

/** Where the figures go (the gate's margin setters). */
export interface MarginAccountSink {
  setMarginBalance(subaccount: number, centicents: number): void;
  setDefaultNotionalRiskLimit(centicents: number): void;
  setNotionalRiskLimit(ticker: string, centicents: number): void;
}

/**
 * Re-reads the equity and notional risk limits every `intervalMs` (and on demand when markets
 * are added): between reads the venue still refuses what it cannot margin.
 * One read at a time; a failed read keeps the last figures and is logged once per failure streak.
 */
export class MarginAccountSync {
  readonly #reads: MarginAccountReads;
  readonly #sink: MarginAccountSink;
  readonly #tickers: () => readonly string[];
  readonly #onError: (error: unknown) => void;
  #timer: NodeJS.Timeout | null = null;
  #inFlight: Promise<void> | null = null;
  #failing = false;
  /** Completed refreshes (tests, status). */
  refreshes = 0;

  constructor(reads: MarginAccountReads, sink: MarginAccountSink, tickers: () => readonly string[], onError: (error: unknown) => void) {
    this.#reads = reads;
    this.#sink = sink;
    this.#tickers = tickers;
    this.#onError = onError;
  }

  start(intervalMs: number): void {
    if (this.#timer !== null) return;
    this.#timer = setInterval(() => void this.refresh(), intervalMs);
    this.#timer.unref();
  }

  stop(): void {
    if (this.#timer !== null) clearInterval(this.#timer);
    this.#timer = null;
  }

  refresh(): Promise<void> {
    if (this.#inFlight !== null) return this.#inFlight;
    this.#inFlight = this.#read().finally(() => {
      this.#inFlight = null;
    });
    return this.#inFlight;
  }

  async #read(): Promise<void> {
    try {
      const [balances, limits] = await Promise.all([this.#reads.balances(), this.#reads.notionalRiskLimits()]);
      // The gate margins the positions, the resting orders and the new order itself, so it compares
      // with the equity; the venue's available balance has those already taken out.
      for (const balance of balances) this.#sink.setMarginBalance(balance.subaccount, balance.equityCenticents);
      this.#sink.setDefaultNotionalRiskLimit(limits.defaultCenticents);
      for (const ticker of this.#tickers()) this.#sink.setNotionalRiskLimit(ticker, limits.byTicker.get(ticker) ?? limits.defaultCenticents);
      this.refreshes++;
      this.#failing = false;
    } catch (error) {
      if (!this.#failing) this.#onError(error);
      this.#failing = true;
    }
  }
}
