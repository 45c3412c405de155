/**
 * The risk bench's baseline: the same checks as src/risk/risk-gate.ts written the way a first
 * version often is - markets and exposure in Maps keyed by strings built per check, a list of check
 * closures returning object literals, own resting orders scanned with Math.max/Math.min over arrays,
 * limits read through a config object per check. It answers the same verdicts for the bench's
 * intents (the suite asserts it), so the comparison is of style, not of semantics.
 */

import { Deny } from '../../src/risk/index.ts';
import type { OrderIntent, Price, PriceGrid } from '../../src/core/index.ts';
import { IntentKind } from '../../src/core/index.ts';

interface NaiveBook {
  synced: boolean;
  updatedAtMs: number;
  bestBid(): Price;
  bestAsk(): Price;
}

interface NaiveMarket {
  ticker: string;
  grid: PriceGrid;
  book: NaiveBook;
  open: boolean;
}

interface NaiveExposure {
  position: number;
  bids: { price: number; count: number }[];
  asks: { price: number; count: number }[];
}

interface Verdict {
  code: number;
  detail: { subject: string; limit: number; actual: number };
}

type Check = (intent: Readonly<OrderIntent>, ctx: { market: NaiveMarket; exposure: NaiveExposure; now: number }) => Verdict | null;

export interface NaiveLimits {
  orderCountMax: number;
  orderNotionalMax: number;
  marketPositionMax: number;
  bookStaleMs: number;
}

export class NaiveGate {
  readonly markets = new Map<string, NaiveMarket>();
  readonly tickers: string[] = [];
  readonly exposure = new Map<string, NaiveExposure>();
  lastVerdict: Verdict | null = null;
  readonly #checks: Check[];
  readonly #config: { limits: NaiveLimits; state: string; killed: boolean };
  readonly #now: () => number;

  constructor(limits: NaiveLimits, now: () => number) {
    this.#now = now;
    this.#config = { limits, state: 'active', killed: false };
    const config = this.#config;
    this.#checks = [
      () => (config.killed ? { code: Deny.KILL_SWITCH, detail: { subject: 'killed', limit: 0, actual: 0 } } : null),
      () => (config.state === 'halted' ? { code: Deny.TRADING_HALTED, detail: { subject: 'state', limit: 0, actual: 0 } } : null),
      (i) => (i.subaccount < 0 || i.subaccount > 63 ? { code: Deny.SUBACCOUNT_INVALID, detail: { subject: 'subaccount', limit: 63, actual: i.subaccount } } : null),
      (_, { market }) => (!market.open ? { code: Deny.MARKET_NOT_OPEN, detail: { subject: 'open', limit: 0, actual: 0 } } : null),
      (_, { market }) => (!market.book.synced ? { code: Deny.BOOK_NOT_SYNCED, detail: { subject: 'synced', limit: 0, actual: 0 } } : null),
      (_, { market, now }) =>
        config.limits.bookStaleMs > 0 && now - market.book.updatedAtMs > config.limits.bookStaleMs
          ? { code: Deny.BOOK_STALE, detail: { subject: 'stale', limit: config.limits.bookStaleMs, actual: now - market.book.updatedAtMs } }
          : null,
      (i) => (i.price <= 0 || i.price >= 10_000 ? { code: Deny.PRICE_OUT_OF_RANGE, detail: { subject: 'price', limit: 10_000, actual: i.price } } : null),
      (i, { market }) =>
        i.price < market.grid.minPrice || i.price > market.grid.maxPrice ? { code: Deny.PRICE_OUT_OF_BAND, detail: { subject: 'band', limit: 0, actual: i.price } } : null,
      (i, { market }) => (!market.grid.contains(i.price) ? { code: Deny.PRICE_OFF_GRID, detail: { subject: 'grid', limit: -1, actual: i.price } } : null),
      (i) => (!(i.count > 0) ? { code: Deny.COUNT_NOT_POSITIVE, detail: { subject: 'count', limit: 0, actual: i.count } } : null),
      (i) => (i.count > config.limits.orderCountMax ? { code: Deny.COUNT_ABOVE_MAX, detail: { subject: 'countMax', limit: config.limits.orderCountMax, actual: i.count } } : null),
      (i) => {
        const cost = (i.side === 'bid' ? i.price : 10_000 - i.price) * i.count;
        return cost > config.limits.orderNotionalMax * 100 ? { code: Deny.NOTIONAL_ABOVE_MAX, detail: { subject: 'notional', limit: config.limits.orderNotionalMax, actual: cost } } : null;
      },
      (i, { exposure }) => {
        const bid = exposure.bids.reduce((sum, o) => sum + o.count, 0) + (i.side === 'bid' ? i.count : 0);
        const ask = exposure.asks.reduce((sum, o) => sum + o.count, 0) + (i.side === 'ask' ? i.count : 0);
        const worst = Math.max(Math.abs(exposure.position + bid), Math.abs(exposure.position - ask));
        return worst > config.limits.marketPositionMax ? { code: Deny.MARKET_POSITION_LIMIT, detail: { subject: 'position', limit: config.limits.marketPositionMax, actual: worst } } : null;
      },
      (i, { market }) => {
        if (!i.postOnly) return null;
        const cross = i.side === 'bid' ? market.book.bestAsk() : market.book.bestBid();
        if (cross < 0) return null;
        const crosses = i.side === 'bid' ? i.price >= cross : i.price <= cross;
        return crosses ? { code: Deny.POST_ONLY_CROSS, detail: { subject: 'book', limit: cross, actual: i.price } } : null;
      },
      (i, { exposure }) => {
        if (i.side === 'bid') {
          if (exposure.asks.length === 0) return null;
          const ownAsk = Math.min(...exposure.asks.map((o) => o.price));
          return i.price >= ownAsk ? { code: Deny.SELF_CROSS, detail: { subject: 'own', limit: ownAsk, actual: i.price } } : null;
        }
        if (exposure.bids.length === 0) return null;
        const ownBid = Math.max(...exposure.bids.map((o) => o.price));
        return i.price <= ownBid ? { code: Deny.SELF_CROSS, detail: { subject: 'own', limit: ownBid, actual: i.price } } : null;
      },
    ];
  }

  addMarket(ticker: string, grid: PriceGrid, book: NaiveBook): void {
    this.markets.set(ticker, { ticker, grid, book, open: true });
    this.tickers.push(ticker);
  }

  addResting(ticker: string, subaccount: number, side: 'bid' | 'ask', price: number, count: number): void {
    const exposure = this.#exposureFor(`${subaccount}:${ticker}`);
    (side === 'bid' ? exposure.bids : exposure.asks).push({ price, count });
  }

  check(intent: Readonly<OrderIntent>): number {
    if (intent.kind !== IntentKind.NEW) return Deny.INTENT_INVALID;
    const ticker = this.tickers[intent.market];
    const market = this.markets.get(ticker);
    if (market === undefined) return Deny.MARKET_UNKNOWN;
    const exposure = this.exposure.get(`${intent.subaccount}:${ticker}`) ?? { position: 0, bids: [], asks: [] };
    const ctx = { market, exposure, now: this.#now() };
    for (const check of this.#checks) {
      const verdict = check(intent, ctx);
      if (verdict !== null) {
        this.lastVerdict = verdict;
        return verdict.code;
      }
    }
    return Deny.NONE;
  }

  #exposureFor(key: string): NaiveExposure {
    let exposure = this.exposure.get(key);
    if (exposure === undefined) this.exposure.set(key, (exposure = { position: 0, bids: [], asks: [] }));
    return exposure;
  }
}
