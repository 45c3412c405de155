// Goal: the simulator records its public trades, book tops and open interest and serves the
// candlestick and historical routes from them: bodies valid against trade-api.openapi.yaml,
// values that agree with the trades the simulator itself reports (GET /markets/trades) worked out
// the plain way per period, book tops and open interest as set up, empty periods, the aggregate
// cap (adjusted_end_ts), cursor paging of historical trades, archived positions, the exchange's
// error shapes for bad queries, and the official client (kalshi-typescript) reading every route.
// Method: in-process simulator on 127.0.0.1:0 with a manual clock (2026-01-01, then the real clock
// for signed client calls) and the cutoff lag at 0; trades made through the engine with a seeded
// random walk (bounded step count); every request over a real socket.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Configuration, EventsApi, HistoricalApi, MarketApi } from 'kalshi-typescript';
import { parseCount, parsePrice, SeededRandom, type Centicents } from '../../../src/core/index.ts';
import { MAX_AGGREGATE_CANDIDATES } from '../../../src/workers/index.ts';
import { RestClient } from '../helpers/clients.ts';
import { errorsOf, OpenApiValidator, unrequire } from '../helpers/schemas.ts';
import { MARKET, MARKET_2, startTestSim } from '../helpers/test-sim.ts';

const T0_MS = 1_767_225_630_000; // 2026-01-01T00:00:30Z
const T0_S = T0_MS / 1000;
const SERIES = 'KXDEMO';
const FED_EVENT = 'KXFEDDECISION-26DEC';

let sim: Awaited<ReturnType<typeof startTestSim>>;
let rest: RestClient;
/** The simulator's clock: manual while trading, then real time (signed client calls). */
let manualMs: number | null = T0_MS;
const openapi = new OpenApiValidator((doc) => unrequire(doc, 'EventData', 'available_on_brokers'));

function check(method: string, path: string, status: number, body: unknown): void {
  const validate = openapi.response(method, path, status);
  expect(validate(body), `${method} ${path}: ${errorsOf(validate)}\n${JSON.stringify(body).slice(0, 800)}`).toBe(true);
}

async function get(template: string, url: string, status = 200): Promise<any> {
  const result = await rest.get(url);
  expect(result.status, `${url}: ${result.text.slice(0, 300)}`).toBe(status);
  if (status === 200) check('GET', template, 200, result.body);
  return result.body;
}

function order(ticker: string, side: 'bid' | 'ask', price: string, count: string, ioc: boolean) {
  return {
    ticker,
    side,
    price: parsePrice(price),
    count: parseCount(count),
    timeInForce: ioc ? ('immediate_or_cancel' as const) : ('good_till_canceled' as const),
    selfTradePrevention: 'taker_at_cross' as const,
  };
}

/** A seeded walk of resting quotes and crossing takers on `tickers`, the clock moving 0-150 s a step. */
function trade(tickers: readonly string[], steps: number, seed: number): void {
  const random = new SeededRandom(seed);
  const engine = sim.engine;
  for (let step = 0; step < steps; step++) {
    manualMs! += random.nextInt(150_000);
    if (random.chance(1, 40)) manualMs! += 2 * 3_600_000; // a quiet stretch: empty periods
    const ticker = tickers[random.nextInt(tickers.length)];
    const mid = 20 + random.nextInt(60);
    const bid = `0.${String(mid - 1 - random.nextInt(3)).padStart(2, '0')}`;
    const ask = `0.${String(mid + 1 + random.nextInt(3)).padStart(2, '0')}`;
    engine.createOrder('maker', order(ticker, 'bid', bid, String(1 + random.nextInt(20)), false));
    engine.createOrder('maker', order(ticker, 'ask', ask, String(1 + random.nextInt(20)), false));
    if (random.chance(2, 3)) {
      const buy = random.chance(1, 2);
      engine.createOrder(sim.userId, order(ticker, buy ? 'bid' : 'ask', buy ? '0.99' : '0.01', `${1 + random.nextInt(5)}.${random.nextInt(2) === 0 ? '00' : '50'}`, true));
    }
  }
}

interface PlainCandle {
  end: number;
  open: string | null;
  high: string | null;
  low: string | null;
  close: string | null;
  volume: string;
}

/** Per period from the simulator's own trade list: the plain computation. */
function plainCandles(trades: any[], intervalMinutes: number): Map<number, PlainCandle> {
  const P = intervalMinutes * 60;
  const byEnd = new Map<number, any[]>();
  for (const t of [...trades].reverse()) {
    const ms = Date.parse(t.created_time);
    const end = Math.ceil(ms / (P * 1000)) * P;
    if (!byEnd.has(end)) byEnd.set(end, []);
    byEnd.get(end)!.push(t);
  }
  const out = new Map<number, PlainCandle>();
  for (const [end, list] of byEnd) {
    const prices = list.map((t) => parsePrice(t.yes_price_dollars));
    const volume = list.reduce((sum, t) => sum + parseCount(t.count_fp), 0);
    const fmt = (p: number): string => (p / 10_000).toFixed(4);
    out.set(end, { end, open: fmt(prices[0]), high: fmt(Math.max(...prices)), low: fmt(Math.min(...prices)), close: fmt(prices[prices.length - 1]), volume: (volume / 100).toFixed(2) });
  }
  return out;
}

async function allTrades(ticker: string): Promise<any[]> {
  const body = await get('/markets/trades', `/markets/trades?ticker=${ticker}&limit=1000`);
  return body.trades;
}

beforeAll(async () => {
  sim = await startTestSim({ clock: { nowMs: () => manualMs ?? Date.now() }, history: { cutoffLagMs: 0 }, rateLimits: false });
  rest = new RestClient(sim.httpUrl, sim.demoKey);
  sim.engine.addUser('maker');
  for (const index of [0, 2, 3]) {
    sim.engine.deposit('maker', 0, index, (1_000_000 * 10_000) as Centicents);
    sim.engine.deposit(sim.userId, 0, index, (1_000_000 * 10_000) as Centicents);
  }
  const fed = sim.engine.getEvent(FED_EVENT)!.markets.map((m) => m.ticker);
  trade([MARKET, MARKET_2, ...fed], 300, 16);
  manualMs! += 1;
});
afterAll(async () => {
  await sim.close();
});

describe('market candlesticks', () => {
  it('every interval: schema-valid, prices and volume as the trade list says, empty periods flat', async () => {
    const trades = await allTrades(MARKET);
    expect(trades.length).toBeGreaterThan(30);
    const start = T0_S - 3600;
    const end = Math.ceil(manualMs! / 1000) + 2 * 86_400; // past the end of the day in progress
    for (const interval of [1, 60, 1440]) {
      const body = await get('/series/{series_ticker}/markets/{ticker}/candlesticks', `/series/${SERIES}/markets/${MARKET}/candlesticks?start_ts=${start}&end_ts=${end}&period_interval=${interval}`);
      expect(body.ticker).toBe(MARKET);
      const candles: any[] = body.candlesticks;
      const plain = plainCandles(trades, interval);
      const P = interval * 60;
      // Dense from the first recorded event's period to the period holding "now".
      for (let i = 1; i < candles.length; i++) expect(candles[i].end_period_ts - candles[i - 1].end_period_ts).toBe(P);
      expect(candles[candles.length - 1].end_period_ts).toBe(Math.ceil(manualMs! / (P * 1000)) * P);
      let previous: string | null = null;
      let empty = 0;
      for (const c of candles) {
        const expected = plain.get(c.end_period_ts);
        if (expected === undefined) {
          empty++;
          expect(c.price).toMatchObject({ open_dollars: null, high_dollars: null, low_dollars: null, close_dollars: null, mean_dollars: null, open: null });
          expect(c.volume_fp).toBe('0.00');
        } else {
          expect({ open: c.price.open_dollars, high: c.price.high_dollars, low: c.price.low_dollars, close: c.price.close_dollars, volume: c.volume_fp }).toEqual({
            open: expected.open, high: expected.high, low: expected.low, close: expected.close, volume: expected.volume,
          });
          expect(c.price.open).toBe(Math.floor(parsePrice(expected.open!) / 100)); // integer companion: whole cents
          expect(c.volume).toBe(Math.floor(parseCount(expected.volume) / 100));
          const mean = parsePrice(c.price.mean_dollars);
          expect(mean).toBeGreaterThanOrEqual(parsePrice(expected.low!));
          expect(mean).toBeLessThanOrEqual(parsePrice(expected.high!));
        }
        expect(c.price.previous_dollars).toBe(previous);
        if (c.price.close_dollars !== null) previous = c.price.close_dollars;
      }
      // Tops are continuous: each period opens where the one before closed.
      for (let i = 1; i < candles.length; i++) {
        expect(candles[i].yes_bid.open_dollars).toBe(candles[i - 1].yes_bid.close_dollars);
        expect(candles[i].yes_ask.open_dollars).toBe(candles[i - 1].yes_ask.close_dollars);
      }
      if (interval === 1) expect(empty).toBeGreaterThan(0);
      const total = candles.reduce((sum, c) => sum + parseCount(c.volume_fp), 0);
      expect(total).toBe(trades.reduce((sum, t) => sum + parseCount(t.count_fp), 0));
      // The last candle's top and open interest are the market's now.
      const market = (await get('/markets/{ticker}', `/markets/${MARKET}`)).market;
      const last = candles[candles.length - 1];
      expect(last.yes_bid.close_dollars).toBe(market.yes_bid_dollars);
      expect(last.yes_ask.close_dollars).toBe(market.yes_ask_dollars);
      expect(last.open_interest_fp).toBe(market.open_interest_fp);
    }
  });

  it('a window with nothing recorded before it ends is empty; one after the trades holds flat candles', async () => {
    const before = await get('/series/{series_ticker}/markets/{ticker}/candlesticks', `/series/${SERIES}/markets/${MARKET}/candlesticks?start_ts=${T0_S - 7200}&end_ts=${T0_S - 3600}&period_interval=1`);
    expect(before.candlesticks).toEqual([]);
    const trades = await allTrades(MARKET);
    const lastTradeS = Math.ceil(Date.parse(trades[0].created_time) / 1000);
    const nowS = Math.floor(manualMs! / 1000);
    const after = await get('/series/{series_ticker}/markets/{ticker}/candlesticks', `/series/${SERIES}/markets/${MARKET}/candlesticks?start_ts=${lastTradeS + 60}&end_ts=${nowS}&period_interval=1`);
    for (const c of after.candlesticks) {
      expect(c.volume_fp).toBe('0.00');
      expect(c.price.previous_dollars).toBe(trades[0].yes_price_dollars);
    }
  });

  it('batch: one entry per market, equal to the single-market answers', async () => {
    const start = T0_S;
    const end = Math.ceil(manualMs! / 1000);
    const body = await get('/markets/candlesticks', `/markets/candlesticks?market_tickers=${MARKET},${MARKET_2}&start_ts=${start}&end_ts=${end}&period_interval=60`);
    expect(body.markets.map((m: any) => m.market_ticker)).toEqual([MARKET, MARKET_2]);
    const single = await get('/series/{series_ticker}/markets/{ticker}/candlesticks', `/series/${SERIES}/markets/${MARKET}/candlesticks?start_ts=${start}&end_ts=${end}&period_interval=60`);
    expect(body.markets[0].candlesticks).toEqual(single.candlesticks);
    expect(body.markets[1].candlesticks.length).toBeGreaterThan(0);
  });

  it('historical market candlesticks: the same values in the historical shape', async () => {
    const start = T0_S;
    const end = Math.ceil(manualMs! / 1000);
    const live = await get('/series/{series_ticker}/markets/{ticker}/candlesticks', `/series/${SERIES}/markets/${MARKET}/candlesticks?start_ts=${start}&end_ts=${end}&period_interval=60`);
    const historical = await get('/historical/markets/{ticker}/candlesticks', `/historical/markets/${MARKET}/candlesticks?start_ts=${start}&end_ts=${end}&period_interval=60`);
    expect(historical.candlesticks.length).toBe(live.candlesticks.length);
    historical.candlesticks.forEach((h: any, i: number) => {
      const l = live.candlesticks[i];
      expect(h.end_period_ts).toBe(l.end_period_ts);
      expect(h.price).toEqual({ open: l.price.open_dollars, low: l.price.low_dollars, high: l.price.high_dollars, close: l.price.close_dollars, mean: l.price.mean_dollars, previous: l.price.previous_dollars });
      expect(h.yes_bid).toEqual({ open: l.yes_bid.open_dollars, low: l.yes_bid.low_dollars, high: l.yes_bid.high_dollars, close: l.yes_bid.close_dollars });
      expect([h.volume, h.open_interest]).toEqual([l.volume_fp, l.open_interest_fp]);
    });
  });
});

describe('event candlesticks', () => {
  it('every market of the event, adjusted_end_ts the requested end when the request fits', async () => {
    const markets = sim.engine.getEvent(FED_EVENT)!.markets.map((m) => m.ticker);
    const start = T0_S;
    const end = Math.ceil(manualMs! / 1000);
    const body = await get('/series/{series_ticker}/events/{ticker}/candlesticks', `/series/KXFEDDECISION/events/${FED_EVENT}/candlesticks?start_ts=${start}&end_ts=${end}&period_interval=60`);
    expect(body.market_tickers).toEqual(markets);
    expect(body.market_candlesticks.length).toBe(markets.length);
    expect(body.adjusted_end_ts).toBe(end);
    const plain = await rest.get(`/events/${FED_EVENT}/candlesticks?start_ts=${start}&end_ts=${end}&period_interval=60`);
    expect(plain.status).toBe(200);
    expect(plain.body).toEqual(body);
    const component = openapi.component('GetEventCandlesticksResponse');
    expect(component(plain.body), errorsOf(component)).toBe(true);
    const single = await get('/series/{series_ticker}/markets/{ticker}/candlesticks', `/series/KXFEDDECISION/markets/${markets[1]}/candlesticks?start_ts=${start}&end_ts=${end}&period_interval=60`);
    expect(body.market_candlesticks[1]).toEqual(single.candlesticks);
  });

  it('a request above the aggregate cap is cut at adjusted_end_ts', async () => {
    const markets = sim.engine.getEvent(FED_EVENT)!.markets.length;
    const start = T0_S - 30;
    const end = start + 40 * 86_400;
    const body = await get('/series/{series_ticker}/events/{ticker}/candlesticks', `/series/KXFEDDECISION/events/${FED_EVENT}/candlesticks?start_ts=${start}&end_ts=${end}&period_interval=1`);
    const periods = Math.floor(MAX_AGGREGATE_CANDIDATES / markets);
    expect(body.adjusted_end_ts).toBe(Math.ceil(start / 60) * 60 + (periods - 1) * 60);
    expect(body.adjusted_end_ts).toBeLessThan(end);
    let total = 0;
    for (const candles of body.market_candlesticks) {
      total += candles.length;
      for (const c of candles) expect(c.end_period_ts).toBeLessThanOrEqual(body.adjusted_end_ts);
    }
    expect(total).toBeLessThanOrEqual(MAX_AGGREGATE_CANDIDATES);
  });
});

describe('historical trades, cutoff and positions', () => {
  it('cutoff: every field at the history cutoff (lag 0: now)', async () => {
    const body = await get('/historical/cutoff', '/historical/cutoff');
    const iso = new Date(manualMs!).toISOString();
    expect(body).toEqual({ market_settled_ts: iso, trades_created_ts: iso, orders_updated_ts: iso, market_positions_last_updated_ts: iso });
  });

  it('trades: newest first, paged by cursor to the end, the same trades GET /markets/trades lists', async () => {
    const expected = await allTrades(MARKET);
    const seen: any[] = [];
    let cursor = '';
    for (let page = 0; page < 100; page++) {
      const body = await get('/historical/trades', `/historical/trades?ticker=${MARKET}&limit=7${cursor === '' ? '' : `&cursor=${cursor}`}`);
      expect(body.trades.length).toBeLessThanOrEqual(7);
      seen.push(...body.trades);
      cursor = body.cursor;
      if (cursor === '') break;
    }
    expect(cursor).toBe('');
    expect(seen).toEqual(expected);
    const all = await get('/historical/trades', '/historical/trades?limit=1000');
    const ids = all.trades.map((t: any) => t.trade_id);
    expect(new Set(ids).size).toBe(ids.length);
    const times = all.trades.map((t: any) => Date.parse(t.created_time));
    for (let i = 1; i < times.length; i++) expect(times[i]).toBeLessThanOrEqual(times[i - 1]);
    expect((await get('/historical/trades', '/historical/trades?is_block_trade=true')).trades).toEqual([]);
    const windowed = await get('/historical/trades', `/historical/trades?ticker=${MARKET}&min_ts=${T0_S + 3600}&max_ts=${T0_S + 7200}&limit=0`);
    for (const t of windowed.trades) expect(Date.parse(t.created_time)).toBeGreaterThanOrEqual((T0_S + 3600) * 1000);
  });
});

describe('query validation', () => {
  it('bad queries answer 400 {"msg"}; unknown markets, events and series the nested 404', async () => {
    const base = `/series/${SERIES}/markets/${MARKET}/candlesticks`;
    for (const query of ['end_ts=10&period_interval=1', 'start_ts=1&period_interval=1', 'start_ts=1&end_ts=10', 'start_ts=1&end_ts=10&period_interval=5', 'start_ts=20&end_ts=10&period_interval=1', 'start_ts=x&end_ts=10&period_interval=1', 'start_ts=1&end_ts=10&period_interval=1&include_latest_before_start=maybe']) {
      const result = await rest.get(`${base}?${query}`);
      expect(result.status, query).toBe(400);
      expect(typeof result.body.msg, query).toBe('string');
    }
    const ok = 'start_ts=1&end_ts=10&period_interval=1';
    expect((await rest.get(`/markets/candlesticks?market_tickers=${MARKET}&start_ts=1&end_ts=10&period_interval=5`)).status).toBe(200);
    expect((await rest.get(`/markets/candlesticks?market_tickers=${MARKET}&start_ts=1&end_ts=10&period_interval=1441`)).status).toBe(400);
    expect((await rest.get(`/markets/candlesticks?start_ts=1&end_ts=10&period_interval=1`)).body.msg).toContain('market_tickers');
    const many = Array.from({ length: 101 }, (_, i) => `T${i}`).join(',');
    expect((await rest.get(`/markets/candlesticks?market_tickers=${many}&${ok}`)).status).toBe(400);
    for (const url of [`/series/${SERIES}/markets/NOPE/candlesticks?${ok}`, `/series/KXHIGHNY/markets/${MARKET}/candlesticks?${ok}`, `/events/NOPE/candlesticks?${ok}`, `/series/KXDEMO/events/${FED_EVENT}/candlesticks?${ok}`, `/historical/markets/NOPE/candlesticks?${ok}`, `/markets/candlesticks?market_tickers=${MARKET},NOPE&${ok}`]) {
      const result = await rest.get(url);
      expect(result.status, url).toBe(404);
      expect(result.body.error.code, url).toBe('not_found');
    }
    expect((await rest.get('/historical/trades?limit=1001')).status).toBe(400);
    expect((await rest.request('GET', '/historical/positions', undefined, { 'KALSHI-ACCESS-KEY': '' })).status).toBe(401);
  });
});

describe('kalshi-typescript reads every route', () => {
  it('candlesticks, batch, event, historical candlesticks, trades, cutoff and (signed, real clock) positions', async () => {
    const configuration = new Configuration({ basePath: `${sim.httpUrl}/trade-api/v2`, apiKey: sim.demoKey.keyId, privateKeyPem: sim.demoKey.privateKeyPem });
    const market = new MarketApi(configuration);
    const start = T0_S;
    const end = Math.ceil(manualMs! / 1000);
    const candles = await market.getMarketCandlesticks(SERIES, MARKET, start, end, 60);
    expect(candles.data.ticker).toBe(MARKET);
    expect(candles.data.candlesticks.length).toBeGreaterThan(0);
    expect(candles.data.candlesticks[0].yes_bid.close_dollars).toMatch(/^\d\.\d{4}$/);
    const batch = await market.batchGetMarketCandlesticks(`${MARKET},${MARKET_2}`, start, end, 60);
    expect(batch.data.markets.map((m) => m.market_ticker)).toEqual([MARKET, MARKET_2]);
    const event = await new EventsApi(configuration).getMarketCandlesticksByEvent(FED_EVENT, 'KXFEDDECISION', start, end, 60);
    expect(event.data.market_tickers.length).toBe(event.data.market_candlesticks.length);
    expect(event.data.adjusted_end_ts).toBe(end);
    const historical = new HistoricalApi(configuration);
    const historicalCandles = await historical.getMarketCandlesticksHistorical(MARKET, start, end, 60);
    expect(historicalCandles.data.candlesticks.length).toBe(candles.data.candlesticks.length);
    const trades = await historical.getTradesHistorical(MARKET, undefined, undefined, 5);
    expect(trades.data.trades.length).toBe(5);
    const next = await historical.getTradesHistorical(MARKET, undefined, undefined, 5, trades.data.cursor);
    expect(next.data.trades[0].trade_id).not.toBe(trades.data.trades[0].trade_id);
    expect((await historical.getHistoricalCutoff()).data.trades_created_ts).toBe(new Date(manualMs!).toISOString());

    // Move to the real clock (signed requests are checked against it), then settle the demo
    // event: with the cutoff lag at 0 its positions are archived a moment later.
    manualMs = null;
    const positionsBefore = await historical.getHistoricalPositions();
    expect(positionsBefore.data.market_positions.map((p) => p.ticker)).not.toContain(MARKET);
    expect(sim.engine.settleMarket(MARKET, 'yes')).toBeNull();
    await new Promise((done) => setTimeout(done, 5)); // the cutoff (now) strictly after the settlement
    const positions = await historical.getHistoricalPositions(undefined, 'KXDEMO-26DEC31', 0);
    expect(positions.status).toBe(200);
    check('GET', '/historical/positions', 200, positions.data);
    expect(positions.data.market_positions.map((p) => p.ticker)).toEqual([MARKET]);
    expect(positions.data.event_positions.map((p) => p.event_ticker)).toEqual(['KXDEMO-26DEC31']);
    const live = await historical.getHistoricalPositions(MARKET_2);
    expect(live.data.market_positions).toEqual([]); // its market has not settled
    // Settlement leaves no open interest: the last candle says so.
    const after = await market.getMarketCandlesticks(SERIES, MARKET, start, Math.ceil(Date.now() / 1000) + 2 * 86_400, 1440);
    const last = after.data.candlesticks[after.data.candlesticks.length - 1];
    expect(last.open_interest_fp).toBe('0.00');
    expect(last.yes_bid.close_dollars).toBe('0.0000');
  });
});

