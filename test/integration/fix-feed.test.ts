/**
 * Goal: with config feed.source "fix" the runtime builds its order books from the simulator's
 * KalshiMD session, into the same book store the WebSocket path fills (no orderbook_delta
 * subscription on the WebSocket), and those books equal the WebSocket books of the same market and
 * the venue's REST book; a forced MsgSeqNum gap (one increment dropped by the simulator's
 * fix_drop_outbound) breaks them and a fresh snapshot resyncs them.
 * Method: an in-process simulator with its FIX acceptor; the Runtime built as the main job builds
 * it with the acceptor's KalshiMD endpoint as venue.marketData; a standalone WebSocket Feed on the
 * same market as the reference; counterparty orders over REST move the book. Real sockets
 * throughout; bounded waits.
 */

import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { PriceGrid } from '../../src/core/index.ts';
import { Feed } from '../../src/feed/index.ts';
import { validateConfig } from '../../src/runtime/config.ts';
import type { Runtime } from '../../src/runtime/runtime.ts';
import { MARKET, counterpartyKey, createRuntime, demoKey, entry, localBook, orderBody, rest, startTestSim, venueBook, waitUntil } from './helpers.ts';
import type { TestSim } from './helpers.ts';

let sim: TestSim;
let runtime: Runtime | null = null;
let wsFeed: Feed | null = null;

beforeAll(async () => {
  sim = await startTestSim({ fix: { enabled: true } });
});

afterEach(async () => {
  wsFeed?.stop();
  wsFeed = null;
  await runtime?.stop('test done');
  runtime = null;
});

afterAll(async () => {
  await sim.close();
});

const same = (a: { yes: Map<number, number>; no: Map<number, number> }, b: { yes: Map<number, number>; no: Map<number, number> }): boolean =>
  JSON.stringify([[...a.yes].sort(), [...a.no].sort()]) === JSON.stringify([[...b.yes].sort(), [...b.no].sort()]);

describe('feed.source "fix"', () => {
  it('books from KalshiMD equal the WebSocket books and the venue; a forced gap resyncs', async () => {
    const key = demoKey(sim);
    const counterparty = counterpartyKey(sim, 'fix-feed-cp');
    for (const [side, price, count] of [['bid', '0.3100', '4.00'], ['bid', '0.3000', '2.00'], ['ask', '0.6900', '3.00']] as const) {
      expect((await rest(sim, counterparty, 'POST', '/portfolio/events/orders', orderBody(side, price, count))).status).toBe(201);
    }
    const strategies = [entry('mm-fix-feed', 'strategies/market-maker.ts', { fairValue: '0.5000', halfSpreadTicks: 3, size: '1.00', maxPosition: '10.00', timerIntervalMs: 100 }, 0)];
    const config = validateConfig({
      risk: { rateLimitTier: 'prime' }, exec: { requestTimeoutMs: 1_000 },
      feed: { source: 'fix', reconnectBackoffMinMs: 50, reconnectBackoffMaxMs: 200 }, strategies,
    }, '<integration>', {});
    const fix = sim.fix!;
    const rt = createRuntime(sim, {
      strategies,
      journalPath: join(sim.workDir, 'fix-feed.jsonl'),
      options: {
        config,
        venue: { restUrl: `${sim.httpUrl}/trade-api/v2`, wsUrl: sim.wsUrl, keyId: key.keyId, privateKey: key.privateKey, marketData: { host: fix.host, port: fix.ports.KalshiMD, tls: false } },
      },
    });
    runtime = rt;
    await rt.start();
    const md = rt.marketData!;
    expect(md).not.toBeNull();
    const book = rt.feed.books.get(MARKET)!;
    await waitUntil(() => book.synced, 5_000, 'the FIX book synced');
    expect(rt.feed.market(MARKET)?.subscribed).toBe(false); // no orderbook_delta on the WebSocket
    expect(book.sid).toBe(md.sid); // the FIX connection's sid in the one store

    // The reference: the WebSocket feed's book of the same market.
    const feed = new Feed({ url: sim.wsUrl, auth: { keyId: key.keyId, privateKey: key.privateKey } });
    wsFeed = feed;
    const wsBook = feed.addMarket(MARKET, book.grid as PriceGrid);
    feed.start();
    feed.subscribeOrderbooks([MARKET]);
    await waitUntil(() => wsBook.synced, 5_000, 'the WebSocket book synced');
    const agree = async (): Promise<boolean> => book.synced && wsBook.synced && same(localBook(book), localBook(wsBook)) && same(localBook(book), await venueBook(sim, key));
    await waitUntil(agree, 5_000, 'FIX book = WebSocket book = venue book');
    expect(localBook(book).yes.get(3100)).toBe(400);

    // A forced gap: the next increment never leaves the simulator; the one after shows the gap.
    const snapshotsBefore = md.stats.snapshots;
    const rule = sim.faults.add({ kind: 'fix_drop_outbound', target: { times: 1, session: 'KalshiMD', msgType: 'X' } });
    expect((await rest(sim, counterparty, 'POST', '/portfolio/events/orders', orderBody('bid', '0.2900', '5.00'))).status).toBe(201);
    await waitUntil(() => sim.faults.firedCount(rule) === 1, 5_000, 'the dropped increment');
    expect((await rest(sim, counterparty, 'POST', '/portfolio/events/orders', orderBody('bid', '0.2800', '1.00'))).status).toBe(201);
    await waitUntil(() => md.stats.gaps === 1, 5_000, 'the gap seen');
    await waitUntil(() => md.stats.snapshots > snapshotsBefore && book.synced, 5_000, 'resynced by a new snapshot');
    await waitUntil(agree, 5_000, 'equal again after the resync');
    expect(localBook(book).yes.get(2900)).toBe(500);
    sim.faults.remove(rule);
  });
});
