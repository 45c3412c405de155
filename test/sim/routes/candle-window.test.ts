// Goal: the candlestick window rule on every candlestick route of both exchanges: a candle is in the
// answer only when its end_period_ts lies within [start_ts, end_ts]; the open period, whose end is
// after end_ts, is never returned. Checked at the boundaries: end_ts exactly on a period end (that
// candle is in), one second before it (it is out), start_ts exactly on a period end (that candle is
// in). Method: an in-process simulator (startSim, both exchanges) on 127.0.0.1:0 with a manual
// clock at a whole hour T (signatures checked against a window wide enough for it); Predictions
// trades through the engine and Margin trades over REST at T-30 s, T+30 s and T+90 s (so the minute ending
// T+120 is still open), then every route asked over a real socket.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock, parseCount, parsePrice } from '../../../src/core/index.ts';
import { RestClient } from '../helpers/clients.ts';
import { MARKET, startTestSim } from '../helpers/test-sim.ts';
import { marginOrder } from '../margin/margin-sim.ts';

const T = Date.UTC(2026, 0, 1) / 1000; // a whole hour, so every period end below is a whole minute
const SERIES = 'KXDEMO';
const YEARS_MS = 20 * 365 * 86_400_000;

let sim: Awaited<ReturnType<typeof startTestSim>>;
const clock = new ManualClock(T * 1000 - 30_000);
let eventTicker: string;

function predictionsTrade(price: string): void {
  const order = (side: 'bid' | 'ask', timeInForce: 'good_till_canceled' | 'immediate_or_cancel') => ({
    ticker: MARKET, side, price: parsePrice(price), count: parseCount('2'), timeInForce, selfTradePrevention: 'taker_at_cross' as const,
  });
  sim.services.engine.createOrder('maker', order('ask', 'good_till_canceled'));
  sim.services.engine.createOrder('taker', order('bid', 'immediate_or_cancel'));
}

async function marginTrade(price: string): Promise<void> {
  const user = (name: string) => new RestClient(sim.httpUrl, sim.createApiKey({ scopes: ['read', 'write'], userId: name }));
  expect((await user(`bob-${price}`).post('/margin/orders', marginOrder({ side: 'ask', count: '1', price }))).status).toBe(201);
  expect((await user(`alice-${price}`).post('/margin/orders', marginOrder({ side: 'bid', count: '1', price }))).status).toBe(201);
}

beforeAll(async () => {
  // Requests are signed with the real time; the window must take the manual clock's 2026 too.
  sim = await startTestSim({ clock, rateLimits: false, timestampWindow: { pastMs: YEARS_MS, futureMs: YEARS_MS } });
  sim.services.ensureFunded('maker', 0);
  sim.services.ensureFunded('taker', 0);
  eventTicker = sim.services.engine.getMarket(MARKET)!.eventTicker;
  // T-30 s: a first trade, so the period ending T has a top to state on Predictions too.
  predictionsTrade('0.35');
  await marginTrade('99.00');
  clock.advance(60_000);
  predictionsTrade('0.40');
  await marginTrade('100.00');
  clock.advance(60_000); // T+90 s: the minute ending T+120 is open
  predictionsTrade('0.45');
  await marginTrade('101.00');
});

afterAll(async () => sim?.close());

/** Every candle end a route answered, whatever the body shape. */
async function endsOf(path: string): Promise<number[]> {
  const response = await fetch(`${sim.httpUrl}${path}`);
  const text = await response.text();
  expect(response.status, `${path}: ${text.slice(0, 300)}`).toBe(200);
  const body = JSON.parse(text);
  const lists: any[][] = body.candlesticks !== undefined ? [body.candlesticks]
    : body.markets !== undefined ? body.markets.map((m: any) => m.candlesticks)
    : body.market_candlesticks;
  expect(lists.length).toBeGreaterThan(0);
  const ends = new Set<number>();
  for (const list of lists) for (const candle of list) ends.add(candle.end_period_ts);
  return [...ends].sort((a, b) => a - b);
}

const ROUTES: Record<string, (start: number, end: number) => string> = {
  'series market': (s, e) => `/trade-api/v2/series/${SERIES}/markets/${MARKET}/candlesticks?start_ts=${s}&end_ts=${e}&period_interval=1`,
  batch: (s, e) => `/trade-api/v2/markets/candlesticks?market_tickers=${MARKET}&start_ts=${s}&end_ts=${e}&period_interval=1`,
  'series event': (s, e) => `/trade-api/v2/series/${SERIES}/events/${eventTicker}/candlesticks?start_ts=${s}&end_ts=${e}&period_interval=1`,
  event: (s, e) => `/trade-api/v2/events/${eventTicker}/candlesticks?start_ts=${s}&end_ts=${e}&period_interval=1`,
  historical: (s, e) => `/trade-api/v2/historical/markets/${MARKET}/candlesticks?start_ts=${s}&end_ts=${e}&period_interval=1`,
  margin: (s, e) => `/trade-api/v2/margin/markets/KXBTCPERP/candlesticks?start_ts=${s}&end_ts=${e}&period_interval=1`,
};

describe('candlestick window [start_ts, end_ts] on end_period_ts', () => {
  for (const [name, url] of Object.entries(ROUTES)) {
    it(`${name}: end_ts one second before the open period's end leaves that period out`, async () => {
      expect(await endsOf(url(T, T + 119))).toEqual([T, T + 60]);
    });
    it(`${name}: end_ts exactly on a period end includes that period`, async () => {
      expect(await endsOf(url(T, T + 120))).toEqual([T, T + 60, T + 120]);
      expect(await endsOf(url(T + 1, T + 60))).toEqual([T + 60]);
    });
    it(`${name}: start_ts exactly on a period end includes that period; one second after leaves it out`, async () => {
      expect(await endsOf(url(T + 60, T + 119))).toEqual([T + 60]);
      expect(await endsOf(url(T + 61, T + 119))).toEqual([]);
    });
  }
});
