// Goal: a simulator started with 5,000 synthetic markets lists them correctly at scale: GET /markets
// cursor paging (limit 1000, the spec's maximum) returns every market exactly once, `tickers=` for
// 100 of them returns exactly those 100, event and series listings cover the synthetic events and
// series, a WebSocket session covers all 5,000 order books within the per-command bound of 2,500
// tickers (error 26 above it), and the generator is deterministic from the seed with valid
// tickers, grids and statuses.
// Method: the generator checked directly; then one in-process simulator (syntheticMarkets: 5000,
// no activity) queried over a real socket on 127.0.0.1 with the demo key (prime tier, so paging never meets a 429), every page
// walk bounded by a page count.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PriceGrid, SeededRandom } from '../../src/core/index.ts';
import { loadCatalog, parseCatalog, syntheticCatalogJson, withSyntheticMarkets, CatalogError } from '../../src/sim/engine/index.ts';
import { RestClient, WsClient } from './helpers/clients.ts';
import { startTestSim } from './helpers/test-sim.ts';

const SYNTHETIC = 5_000;
const MARKET_TICKER = /^KXSYN\d{2}-\d{2}(JAN|FEB|MAR|APR|MAY|JUN|JUL|AUG|SEP|OCT|NOV|DEC)\d{2}-T\d+$/;

describe('synthetic catalog generator', () => {
  it('is deterministic from the seed and differs across seeds', () => {
    expect(JSON.stringify(syntheticCatalogJson(500, 7))).toBe(JSON.stringify(syntheticCatalogJson(500, 7)));
    expect(JSON.stringify(syntheticCatalogJson(500, 7))).not.toBe(JSON.stringify(syntheticCatalogJson(500, 8)));
  });

  it('spreads N markets over 50 series and 10-strike events, all active, tickers and fair prices valid', () => {
    const catalog = parseCatalog(syntheticCatalogJson(SYNTHETIC, 1), 'synthetic');
    expect(catalog.markets).toHaveLength(SYNTHETIC);
    expect(catalog.series).toHaveLength(50);
    expect(catalog.events).toHaveLength(SYNTHETIC / 10);
    expect(new Set(catalog.markets.map((m) => m.ticker)).size).toBe(SYNTHETIC);
    for (const market of catalog.markets) {
      expect(market.ticker).toMatch(MARKET_TICKER);
      expect(market.ticker.startsWith(`${market.eventTicker}-T`)).toBe(true);
      expect(market.status).toBe('active');
      expect(PriceGrid.forMarket(market.priceLevelStructure, market.priceRanges).levelOf(market.initialFairPrice)).toBeGreaterThanOrEqual(0);
    }
    // An odd count leaves a short last event rather than a missing market.
    expect(parseCatalog(syntheticCatalogJson(23, 1)).markets).toHaveLength(23);
  });

  it('rejects a count outside 1..100,000 with a coded error', () => {
    expect(() => syntheticCatalogJson(0, 1)).toThrow(CatalogError);
    expect(() => syntheticCatalogJson(100_001, 1)).toThrow(CatalogError);
  });

  it('appends to the file catalog, keeping its markets first', () => {
    const base = loadCatalog('config/markets.json');
    const merged = withSyntheticMarkets(base, 30, 1);
    expect(merged.markets.slice(0, base.markets.length).map((m) => m.ticker)).toEqual(base.markets.map((m) => m.ticker));
    expect(merged.markets).toHaveLength(base.markets.length + 30);
    expect(() => withSyntheticMarkets(merged, 30, 1)).toThrow(CatalogError); // KXSYN01 twice
  });
});

describe('listing 5,000 synthetic markets over REST', () => {
  let sim: Awaited<ReturnType<typeof startTestSim>>;
  let client: RestClient;
  let baseCount = 0;

  beforeAll(async () => {
    baseCount = loadCatalog('config/markets.json').markets.length;
    sim = await startTestSim({ syntheticMarkets: SYNTHETIC });
    // The demo key (prime tier): a page walk must never meet the Basic read bucket of unsigned callers.
    client = new RestClient(sim.httpUrl, sim.demoKey);
  }, 60_000);
  afterAll(async () => {
    await sim?.close();
  });

  /** Every ticker of a paged listing, following cursors; at most `pagesMax` pages. */
  async function walk(path: string, field: 'markets' | 'events', key: 'ticker' | 'event_ticker', pagesMax: number): Promise<string[]> {
    const tickers: string[] = [];
    let cursor = '';
    for (let page = 0; page < pagesMax; page++) {
      const separator = path.includes('?') ? '&' : '?';
      const result = await client.get(`${path}${cursor === '' ? '' : `${separator}cursor=${encodeURIComponent(cursor)}`}`);
      expect(result.status).toBe(200);
      const body = result.body as Record<string, Array<Record<string, string>>> & { cursor: string };
      for (const item of body[field]) tickers.push(item[key]);
      cursor = body.cursor;
      if (cursor === '') return tickers;
    }
    throw new Error(`${path}: still paging after ${pagesMax} pages`);
  }

  it('GET /markets paging at limit 1000 returns every market exactly once', async () => {
    const tickers = await walk('/markets?limit=1000', 'markets', 'ticker', 10);
    expect(tickers).toHaveLength(baseCount + SYNTHETIC);
    expect(new Set(tickers).size).toBe(tickers.length);
    expect(tickers.filter((t) => t.startsWith('KXSYN'))).toHaveLength(SYNTHETIC);
  }, 60_000);

  it('GET /markets paging at a limit that does not divide the count also returns each once', async () => {
    const tickers = await walk('/markets?limit=997&status=open', 'markets', 'ticker', 10);
    expect(new Set(tickers).size).toBe(tickers.length);
    expect(tickers.filter((t) => t.startsWith('KXSYN'))).toHaveLength(SYNTHETIC);
  }, 60_000);

  it('tickers= for 100 of them returns exactly those 100; 101 is a 400', async () => {
    const all = (await walk('/markets?limit=1000', 'markets', 'ticker', 10)).filter((t) => t.startsWith('KXSYN'));
    const random = new SeededRandom(42);
    const chosen = new Set<string>();
    for (let i = 0; i < 10_000 && chosen.size < 100; i++) chosen.add(all[random.nextInt(all.length)]);
    expect(chosen.size).toBe(100);
    const list = [...chosen];
    const result = await client.get(`/markets?tickers=${list.join(',')}`);
    expect(result.status).toBe(200);
    const body = result.body as { markets: Array<{ ticker: string }>; cursor: string };
    expect(new Set(body.markets.map((m) => m.ticker))).toEqual(chosen);
    expect(body.markets).toHaveLength(100);
    expect(body.cursor).toBe('');
    // Paged at 30: the same 100, each once, across four pages.
    const paged = await walk(`/markets?limit=30&tickers=${list.join(',')}`, 'markets', 'ticker', 5);
    expect(paged.sort()).toEqual(list.sort());
    const tooMany = await client.get(`/markets?tickers=${[...list, all[0] === list[0] ? all[1] : all[0]].join(',')}`);
    expect(tooMany.status).toBe(400);
  }, 60_000);

  it('event_ticker narrows to that event\'s 10 strikes', async () => {
    const result = await client.get('/markets?event_ticker=KXSYN07-27JAN01');
    expect(result.status).toBe(200);
    const markets = (result.body as { markets: Array<{ ticker: string; event_ticker: string }> }).markets;
    expect(markets).toHaveLength(10);
    for (const market of markets) expect(market.event_ticker).toBe('KXSYN07-27JAN01');
  });

  it('WebSocket: orderbook_delta over all 5,000 in two commands of 2,500 (the per-command bound), a snapshot each', async () => {
    const all = (await walk('/markets?limit=1000', 'markets', 'ticker', 10)).filter((t) => t.startsWith('KXSYN'));
    const ws = await WsClient.open(sim.wsUrl, sim.demoKey);
    try {
      const tooMany = ws.send('subscribe', { channels: ['orderbook_delta'], market_tickers: all.slice(0, 2_501) });
      expect((await ws.waitFor((m) => m.id === tooMany)).msg.code).toBe(26);
      const [subscribed] = await ws.subscribe({ channels: ['orderbook_delta'], market_tickers: all.slice(0, 2_500) });
      expect(subscribed.type).toBe('subscribed');
      const grow = ws.send('update_subscription', { sid: subscribed.msg.sid, action: 'add_markets', market_tickers: all.slice(2_500) });
      const ok = await ws.waitFor((m) => m.id === grow, 20_000);
      expect(ok.type).toBe('ok');
      expect(ok.msg.market_tickers).toHaveLength(SYNTHETIC);
      const snapshots = await ws.waitForCount((m) => m.type === 'orderbook_snapshot', SYNTHETIC, 30_000);
      expect(new Set(snapshots.map((m) => m.msg.market_ticker))).toEqual(new Set(all));
    } finally {
      ws.close();
    }
  }, 60_000);

  it('GET /events pages over every synthetic event once; GET /series lists the 50 synthetic series', async () => {
    const events = await walk('/events?limit=200', 'events', 'event_ticker', 10);
    expect(new Set(events).size).toBe(events.length);
    expect(events.filter((t) => t.startsWith('KXSYN'))).toHaveLength(SYNTHETIC / 10);
    const series = await client.get('/series?category=Synthetic');
    expect(series.status).toBe(200);
    expect((series.body as { series: unknown[] }).series).toHaveLength(50);
  }, 60_000);
});
