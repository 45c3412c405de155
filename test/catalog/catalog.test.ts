/**
 * Goal: the catalog holds exactly what its sources hold. A recording's deltas and trades in
 * DuckDB (row counts and sums over the Parquet files) equal the recording's own, counted here
 * independently from the reader's records with JSON.parse; book_top rows exist only for synced
 * ticks; adding the same file twice does not duplicate rows; an OMS journal's fills in the catalog
 * equal what the OMS's recover() reads; a backfill against the simulator's historical and live
 * trade routes and candlesticks lands every trade once.
 * Method: the committed fixture recording; a journal written by the OMS's Journal; the simulator
 * in-process on 127.0.0.1 port 0 with seeded activity and a zero historical lag, read through the
 * budgeted client; queries through queryCatalog (read_parquet with hive partitioning).
 */

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { RecordKind, readRecordingFile, recordText } from '../../src/record/index.ts';
import { addToCatalog } from '../../src/catalog/catalog-add.ts';
import { queryCatalog } from '../../src/catalog/catalog-query.ts';
import { CatalogWriter } from '../../src/catalog/catalog-writer.ts';
import { backfillSeries } from '../../src/catalog/backfill.ts';
import { openVenueReads } from '../../src/capture/venue-reads.ts';
import { Journal, recover } from '../../src/oms/index.ts';
import { loadPrivateKey, parseCount, parseSignedCount, type Price } from '../../src/core/index.ts';
import { startTestSim, waitUntil } from '../integration/helpers.ts';

const FIXTURE = path.resolve('test/fixtures/recordings/sim-market-maker.prrc');
const work = mkdtempSync(path.join(tmpdir(), 'catalog-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

async function one(dir: string, sql: string): Promise<Record<string, unknown>> {
  return (await queryCatalog(dir, sql)).rows[0];
}

/** The recording's own deltas and trades: JSON.parse of every FRAME record (independent of the feed). */
function ownCounts(file: string): { deltas: number; deltaSum: number; trades: number; tradeSum: number } {
  const recording = readRecordingFile(file);
  const out = { deltas: 0, deltaSum: 0, trades: 0, tradeSum: 0 };
  for (let i = 0; i < recording.count; i++) {
    if (recording.kinds[i] !== RecordKind.FRAME) continue;
    const frame = JSON.parse(recordText(recording, i)) as { type: string; msg: Record<string, string> };
    if (frame.type === 'orderbook_delta') {
      out.deltas++;
      out.deltaSum += parseSignedCount(frame.msg.delta_fp);
    } else if (frame.type === 'trade') {
      out.trades++;
      out.tradeSum += parseCount(frame.msg.count_fp);
    }
  }
  return out;
}

describe('catalog', () => {
  it('a recording round trip: counts and sums in DuckDB equal the recording; re-adding replaces', async () => {
    const dir = path.join(work, 'rt');
    const own = ownCounts(FIXTURE);
    expect(own.deltas).toBeGreaterThan(100);
    const result = await addToCatalog(dir, FIXTURE, { snapshotMs: 250, depth: 3 });
    expect(result.rows.book_deltas).toBe(own.deltas);
    expect(result.rows.trades).toBe(own.trades);
    await addToCatalog(dir, FIXTURE, { snapshotMs: 250, depth: 3 }); // idempotent per source
    const deltas = await one(dir, 'SELECT count(*) AS n, sum(delta_count_e2) AS s, count(DISTINCT market) AS m FROM book_deltas');
    expect(Number(deltas.n)).toBe(own.deltas);
    expect(Number(deltas.s)).toBe(own.deltaSum);
    expect(Number(deltas.m)).toBe(1);
    const trades = await one(dir, 'SELECT count(*) AS n, sum(count_e2) AS s, count(DISTINCT trade_id) AS d FROM trades');
    expect(Number(trades.n)).toBe(own.trades);
    expect(Number(trades.s)).toBe(own.tradeSum);
    expect(Number(trades.d)).toBe(own.trades);
    const tops = await one(dir, "SELECT count(*) AS n, min(best_bid_price_e4) AS lo, max(best_ask_price_e4) AS hi, min(date) AS day FROM book_top");
    expect(Number(tops.n)).toBe(result.rows.book_top);
    expect(Number(tops.n)).toBeGreaterThan(0);
    expect(Number(tops.lo)).toBeGreaterThan(0);
    expect(Number(tops.hi)).toBeLessThan(10_000);
    expect(String(tops.day)).toMatch(/^\d{4}-\d{2}-\d{2}$/);
    // Depth: at most 3 levels a side, best first (bids descending).
    const depth = await one(dir, 'SELECT max(level) AS top, count(*) FILTER (WHERE side = \'bid\' AND level = 0) AS bests FROM book_depth');
    expect(Number(depth.top)).toBeLessThanOrEqual(2);
    expect(Number(depth.bests)).toBe(Number(tops.n));
  }, 60_000);

  it("an OMS journal's orders, fills and positions; fills equal recover()'s", async () => {
    const journalPath = path.join(work, 'journal.jsonl');
    const journal = new Journal(journalPath);
    const day = Date.UTC(2026, 10, 28, 9);
    const markets = ['KXDEMO-26DEC31-T50', 'KXGOLD-26DEC31-T2000'];
    for (let i = 0; i < 40; i++) {
      const side = i % 3 === 0 ? 'ask' : 'bid';
      journal.appendFill(`t${i}`, `o${i % 7}`, `c${i % 7}`, markets[i % 2], side, (100 + i * 37) as Price, 100 * (1 + (i % 5)), 7 * i, i % 4 === 0 ? 500 : Number.MIN_SAFE_INTEGER, i % 2, i % 2 === 0, day + i * 60_000);
    }
    await journal.close();
    const recovered = recover(journalPath);
    expect(recovered.fills).toHaveLength(40);
    const dir = path.join(work, 'journal-catalog');
    const result = await addToCatalog(dir, journalPath, { snapshotMs: 1000, depth: 5 });
    expect(result.kind).toBe('journal');
    const fills = await queryCatalog(dir, 'SELECT market, count(*) AS n, sum(count_e2) AS c, sum(fee_centicents) AS fee, sum(price_e4 * count_e2) AS notional FROM fills GROUP BY market ORDER BY market');
    for (const row of fills.rows) {
      const own = recovered.fills.filter((fill) => fill.ticker === row.market);
      expect(Number(row.n)).toBe(own.length);
      expect(Number(row.c)).toBe(own.reduce((sum, fill) => sum + fill.count, 0));
      expect(Number(row.fee)).toBe(own.reduce((sum, fill) => sum + fill.feeCenticents, 0));
      expect(Number(row.notional)).toBe(own.reduce((sum, fill) => sum + fill.price * fill.count, 0));
    }
    expect(fills.rows.map((row) => row.market)).toEqual(markets);
    const positions = await one(dir, 'SELECT count(*) AS n FROM positions');
    expect(Number(positions.n)).toBe(40);
  }, 60_000);

  it('backfill: historical and live trades and candles of a series through the budgeted client', async () => {
    const sim = await startTestSim({ seed: 9, activity: { updatesPerSec: 400 }, history: { cutoffLagMs: 0 } });
    const venue = await openVenueReads(`${sim.httpUrl}/trade-api/v2`, sim.demoKey.keyId, loadPrivateKey(sim.demoKey.privateKeyPem), () => undefined);
    const dir = path.join(work, 'backfill');
    try {
      // Trades of the backfilled series itself: the activity may trade other series first.
      const tradesNow = async (): Promise<number> => {
        const trades = ((await venue.reads.get(`${venue.apiPrefix}/markets/trades?limit=1000`))?.trades ?? []) as { ticker?: string }[];
        return trades.filter((trade) => trade.ticker?.startsWith('KXDEMO-') === true).length;
      };
      await waitUntil(async () => (await tradesNow()) >= 5, 40_000, 'trades of the series at the venue');
      const writer = await CatalogWriter.open(dir);
      const counts = await backfillSeries(venue.reads, venue.apiPrefix, 'KXDEMO', 1, Date.now(), writer);
      await writer.finish('backfill-test');
      expect(counts.markets).toBeGreaterThan(0);
      expect(counts.candles).toBeGreaterThan(0);
      const trades = await one(dir, "SELECT count(*) AS n, count(DISTINCT trade_id) AS d, count(*) FILTER (WHERE market NOT LIKE 'KXDEMO-%') AS other FROM trades");
      expect(Number(trades.n)).toBe(counts.trades);
      expect(Number(trades.d)).toBe(counts.trades);
      expect(Number(trades.other)).toBe(0);
      const candles = await one(dir, 'SELECT count(*) AS n FROM candles');
      expect(Number(candles.n)).toBe(counts.candles);
    } finally {
      await venue.close();
      await sim.close();
    }
  }, 90_000);
});
