// Goal: the runtime's live candlesticks (CandleFeed over the real worker pool) equal the one
// aggregation run once over every row (the same arithmetic the simulator serves), however the rows
// were split into batches and flushes: same-period parts combine, later periods append, the ring
// keeps the newest `kept`; book tops are appended only when they change; the venue's backfill
// seeds a market and live trades continue its last period; a strategy reads them through
// ctx.candles synchronously; and a worker that dies mid-task is replaced and the batch retried.
// Method: seeded random trades and tops on three markets over fifteen minutes with flushes at
// random instants (an injected clock), compared candle by candle with runCandleTask over all rows;
// every wait is bounded (vitest timeouts); no timing is asserted.

import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { SeededRandom, systemClock } from '../../../src/core/index.ts';
import { BoundStrategyContext } from '../../../src/strategy/index.ts';
import type { MarketPort, OrderPort } from '../../../src/strategy/index.ts';
import { createLogger } from '../../../src/telemetry/index.ts';
import { CandleBatch, CandleFeed, CandlePool, CandleTable, periodEndOf, runCandleTask, type Candle } from '../../../src/workers/index.ts';

const START_MS = 1_767_225_600_000; // 2026-01-01T00:00:00Z, a period boundary
const TICKERS = ['KX-A', 'KX-B', 'KX-C'];

const work = mkdtempSync(join(tmpdir(), 'candle-feed-'));
const crashFile = join(work, 'crash');
process.env.WORKER_CRASH_FILE = crashFile;
afterAll(() => rmSync(work, { recursive: true, force: true }));

let cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup();
  cleanups = [];
});

function newFeed(nowMs: () => number, kept = 5, filename?: string): { feed: CandleFeed; pool: CandlePool } {
  const pool = new CandlePool({ threads: 1, ...(filename === undefined ? {} : { filename }) });
  const feed = new CandleFeed({ intervals: [1, 60], kept, marketsMax: 4, batchRows: 64, batchCount: 4, nowMs });
  for (const ticker of TICKERS) feed.track(ticker);
  feed.start(pool, 3_600_000); // flushed by hand below
  cleanups.push(() => feed.stop(), () => pool.close());
  return { feed, pool };
}

async function flushed(feed: CandleFeed): Promise<void> {
  const generation = feed.generation;
  for (let i = 0; i < 10 && feed.generation === generation; i++) {
    feed.flush();
    await feed.idle();
  }
  expect(feed.generation).toBeGreaterThan(generation);
}

/** The reference: every row in one batch, one aggregation, the newest `kept` candles per market. */
function reference(rows: CandleBatch, intervalMinutes: number, asOfMs: number, kept: number): Candle[][] {
  const period = intervalMinutes * 60;
  const out = runCandleTask({
    batch: rows.buffer, batchLength: rows.length, marketCount: TICKERS.length, intervalMinutes,
    startTs: periodEndOf(START_MS, period), endTs: periodEndOf(asOfMs, period), asOfMs, seeds: null,
  });
  const candles = new CandleTable(out.candles, out.rows).candles();
  return TICKERS.map((_, m) => candles.filter((candle) => candle.market === m).slice(-kept));
}

function live(feed: CandleFeed, ticker: string, minutes: number): Candle[] {
  const view = feed.view(ticker, minutes)!;
  return Array.from({ length: view.length }, (_, i) => view.candle(i)!);
}

describe('CandleFeed: live candles from the pool', () => {
  it('equals one aggregation over every row, whatever the batches and flushes', async () => {
    let now = START_MS;
    const { feed } = newFeed(() => now);
    const rows = CandleBatch.create(4096);
    const random = new SeededRandom(16);
    const bid = [0, 0, 0];
    const ask = [0, 0, 0];
    let flushes = 0;
    for (let step = 0; step < 600; step++) {
      now += random.nextInt(3_000);
      const m = random.nextInt(3);
      if (random.nextInt(3) === 0) {
        const newBid = 3000 + 100 * random.nextInt(10);
        const newAsk = newBid + 100 * (1 + random.nextInt(5));
        feed.onTop(TICKERS[m], newBid, newAsk);
        if (newBid !== bid[m] || newAsk !== ask[m]) rows.appendTop(m, now, newBid, newAsk);
        bid[m] = newBid;
        ask[m] = newAsk;
      } else {
        const price = 3000 + 25 * random.nextInt(200);
        const count = 100 * (1 + random.nextInt(20));
        feed.onTrade(TICKERS[m], price, count, now);
        rows.appendTrade(m, now, price, count);
      }
      if (random.nextInt(25) === 0) {
        await flushed(feed);
        flushes++;
      }
    }
    await flushed(feed);
    expect(flushes).toBeGreaterThan(5);
    expect(feed.stats.rowsDropped).toBe(0);
    expect(feed.stats.rowsAppended).toBe(rows.length); // tops appended only when they changed
    for (const minutes of [1, 60]) {
      const expected = reference(rows, minutes, now, 5);
      TICKERS.forEach((ticker, m) => expect(live(feed, ticker, minutes), `${ticker} ${minutes}m`).toEqual(expected[m]));
    }
    expect(feed.view('KX-A', 1)!.length).toBe(5); // fifteen minutes of data, five kept
  });

  it('a strategy reads them through ctx.candles, synchronously, for its own markets only', async () => {
    let now = START_MS + 1;
    const { feed } = newFeed(() => now);
    feed.onTop('KX-A', 4000, 6000);
    feed.onTrade('KX-A', 5000, 100, START_MS + 1_000);
    feed.onTrade('KX-A', 5200, 300, START_MS + 2_000);
    now = START_MS + 3_000;
    const markets: MarketPort = { marketHandle: (ticker) => (ticker === 'KX-A' ? 0 : -1), book: () => undefined, ensureMarkets: async () => {} };
    const orders = {} as OrderPort;
    const ctx = new BoundStrategyContext(
      { id: 's', strategyId: 0, subaccount: 0, orderGroup: -1, markets: ['KX-A'], params: {}, log: createLogger({ level: 'silent', pretty: false }) },
      orders, markets, systemClock, { candles: (ticker, minutes) => feed.view(ticker, minutes) },
    );
    const candles = ctx.candles('KX-A', 1)!;
    expect(candles.length).toBe(0); // nothing published yet: no waiting, just nothing
    await flushed(feed);
    expect(candles.length).toBe(1);
    expect([candles.open(0), candles.high(0), candles.low(0), candles.close(0), candles.volume(0)]).toEqual([5000, 5200, 5000, 5200, 400]);
    expect(candles.mean(0)).toBe(5150); // (5000 x 100 + 5200 x 300) / 400
    expect([candles.yesBidClose(0), candles.yesAskClose(0), candles.endTs(0)]).toEqual([4000, 6000, START_MS / 1000 + 60]);
    // The same period across two flushes: combined.
    feed.onTrade('KX-A', 4800, 400, START_MS + 30_000);
    now = START_MS + 31_000;
    await flushed(feed);
    expect([candles.length, candles.low(0), candles.close(0), candles.volume(0), candles.mean(0)]).toEqual([1, 4800, 4800, 800, 4975]);
    expect(ctx.candles('KX-B', 1)).toBeNull(); // not this strategy's market
    expect(ctx.candles('KX-A', 5)).toBeNull(); // not a kept interval
  });

  it('backfill from the venue seeds a market; live trades continue its last period', async () => {
    let now = START_MS + 150_000;
    const { feed } = newFeed(() => now);
    const venue = (endTs: number, close: number, volume: number): Candle => ({
      market: -1, endTs, open: close - 100, high: close, low: close - 100, close, mean: close - 50, previous: -1, volume, trades: 2,
      yesBid: { open: 4000, high: 4100, low: 4000, close: 4100 }, yesAsk: { open: 6000, high: 6000, low: 5900, close: 5900 }, openInterest: 700,
    });
    const base = START_MS / 1000;
    expect(feed.backfill('KX-C', 1, [venue(base + 60, 5000, 200), venue(base + 120, 5100, 200), venue(base + 180, 5200, 200)])).toBe(true);
    const view = feed.view('KX-C', 1)!;
    expect(view.length).toBe(3);
    feed.onTrade('KX-C', 5300, 200, START_MS + 160_000); // the venue's last period (ends at +180 s)
    now = START_MS + 170_000;
    await flushed(feed);
    expect(view.length).toBe(3);
    expect([view.close(2), view.high(2), view.volume(2), view.mean(2)]).toEqual([5300, 5300, 400, 5225]); // (5150 x 200 + 5300 x 200) / 400
    expect([view.yesBidClose(2), view.yesAskClose(2), view.candle(2)!.openInterest]).toEqual([4100, 5900, 700]); // carried from the venue's seeds
    now = START_MS + 200_000; // a new period with no event: an empty candle, tops carried
    await flushed(feed);
    expect(view.length).toBe(4);
    expect([view.close(3), view.volume(3), view.candle(3)!.previous, view.yesBidClose(3)]).toEqual([-1, 0, 5300, 4100]);
  });

  it('a worker that dies mid-task is replaced and the batch is tried again: no candle lost', async () => {
    let now = START_MS + 1;
    const { feed, pool } = newFeed(() => now, 5, new URL('../portfolio/fixtures/crash-once-loader.mjs', import.meta.url).href);
    await flushed(feed); // a warm worker
    writeFileSync(crashFile, 'once');
    feed.onTrade('KX-B', 4500, 300, START_MS + 5_000);
    now = START_MS + 6_000;
    feed.flush();
    await feed.idle();
    expect(pool.workerExits).toBe(1);
    expect(feed.stats.retries).toBe(1);
    await flushed(feed);
    expect(feed.stats.batchesLost).toBe(0);
    expect([feed.view('KX-B', 1)!.close(0), feed.view('KX-B', 1)!.volume(0)]).toEqual([4500, 300]);
  });
});
