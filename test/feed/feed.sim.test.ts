/**
 * Goal: the Feed keeps real order books equal to the exchange's over real sockets, and repairs
 * them after each kind of failure: a dropped delta (sequence gap -> out of sync -> get_snapshot ->
 * resynced and equal again), error 25 (subscription re-created on a new sid), and the server
 * closing the connection (reconnect, everything resubscribed and rebuilt).
 * Method: startSim in-process on 127.0.0.1:0 with a temporary key directory; the Feed connects to
 * its WebSocket with the demo key (signed handshake) and subscribes orderbook_delta for several
 * markets of different grids; market activity is driven by a seeded flow of limit, IOC and cancel
 * orders from two users straight into the sim's engine; after each burst the Feed's books are
 * compared with GET /markets/{ticker}/orderbook (signed) until equal. Every wait is bounded.
 */

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApplyStatus, type OrderBook } from '../../src/book/index.ts';
import {
  PriceGrid,
  loadPrivateKey,
  parseCount,
  parsePrice,
  signRequest,
  type Centicents,
  type Count,
  type PriceLevelStructure,
  type PriceRangeText,
  seededRandom,
} from '../../src/core/index.ts';
import { Feed, NoopFeedListener } from '../../src/feed/index.ts';
import { startSim, type SimHandle } from '../../src/sim/index.ts';
import { RecordingLogger, bookLevels } from './fakes.ts';

const TICKERS = ['KXDEMO-26DEC31-T50', 'KXHIGHNY-26DEC31-T40', 'KXFEDDECISION-26DEC-H0', 'KXBTCY-26DEC31-T100000', 'KXRAINNYC-26DEC-T3'];
const USERS = ['feed-test-maker', 'feed-test-taker'];

class Recorder extends NoopFeedListener {
  readonly events: string[] = [];
  readonly errors: (number | string)[] = [];
  override onBookOutOfSync(book: OrderBook, reason: number): void {
    this.events.push(`out ${book.ticker} ${reason}`);
  }
  override onBookResynced(book: OrderBook): void {
    this.events.push(`resynced ${book.ticker}`);
  }
  override onError(code: number | string): void {
    this.errors.push(code);
  }
}

let keysDir = '';
let sim: SimHandle;
let feed: Feed;
const listener = new Recorder();
const grids = new Map<string, PriceGrid>();
const orderIds = new Map<string, string[]>(USERS.map((u) => [u, []]));
const random = seededRandom(42);

async function until(condition: () => boolean | Promise<boolean>, what: string, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

async function rest(path: string): Promise<Record<string, unknown>> {
  const key = loadPrivateKey(sim.demoKey.privateKeyPem);
  const timestampMs = Date.now();
  const fullPath = `/trade-api/v2${path}`;
  const response = await fetch(`${sim.httpUrl}${fullPath}`, {
    headers: {
      'KALSHI-ACCESS-KEY': sim.demoKey.keyId,
      'KALSHI-ACCESS-TIMESTAMP': String(timestampMs),
      'KALSHI-ACCESS-SIGNATURE': signRequest(key, timestampMs, 'GET', fullPath),
    },
  });
  expect(response.status).toBe(200);
  return (await response.json()) as Record<string, unknown>;
}

/** The exchange's book over REST, in the shape of bookLevels(). */
async function restBook(ticker: string): Promise<{ yes: [number, number][]; no: [number, number][] }> {
  const body = (await rest(`/markets/${ticker}/orderbook`)) as { orderbook_fp: { yes_dollars?: [string, string][]; no_dollars?: [string, string][] } };
  const side = (levels: [string, string][] | undefined): [number, number][] =>
    (levels ?? []).map(([p, s]) => [parsePrice(p), parseCount(s)] as [number, number]).sort((a, b) => a[0] - b[0]);
  return { yes: side(body.orderbook_fp.yes_dollars), no: side(body.orderbook_fp.no_dollars) };
}

async function booksEqual(): Promise<boolean> {
  for (const ticker of TICKERS) {
    const book = feed.books.get(ticker)!;
    if (!book.synced) return false;
    const expected = await restBook(ticker);
    if (JSON.stringify(bookLevels(book)) !== JSON.stringify(expected)) return false;
  }
  return true;
}

/** A seeded burst of limit, IOC and cancel orders from two users straight into the engine. */
function activity(orders: number, tickers: readonly string[] = TICKERS): void {
  for (let i = 0; i < orders; i++) {
    const ticker = tickers[Math.floor(random() * tickers.length)];
    const user = USERS[Math.floor(random() * USERS.length)];
    const resting = orderIds.get(user)!;
    if (resting.length > 0 && random() < 0.2) {
      const [orderId] = resting.splice(Math.floor(random() * resting.length), 1);
      sim.engine.cancelOrder(user, orderId);
      continue;
    }
    const grid = grids.get(ticker)!;
    const middle = grid.levelCount >> 1;
    const level = Math.max(0, Math.min(grid.levelCount - 1, middle + Math.floor(random() * 21) - 10));
    const result = sim.engine.createOrder(user, {
      ticker,
      side: random() < 0.5 ? 'bid' : 'ask',
      price: grid.priceAt(level),
      count: ((1 + Math.floor(random() * 20)) * 100) as Count,
      timeInForce: random() < 0.8 ? 'good_till_canceled' : 'immediate_or_cancel',
      selfTradePrevention: 'maker',
    });
    if (!result.isError && result.remainingCount > 0) resting.push(result.order.orderId);
  }
}

beforeAll(async () => {
  keysDir = mkdtempSync(join(tmpdir(), 'feed-sim-keys-'));
  sim = await startSim({ keysDir, rateLimits: false });
  for (const user of USERS) {
    sim.engine.addUser(user);
    for (const index of [0, 2, 3]) sim.engine.deposit(user, 0, index, 1_000_000_000_000 as Centicents);
  }
  feed = new Feed({
    url: sim.wsUrl,
    auth: { keyId: sim.demoKey.keyId, privateKey: sim.demoKey.privateKeyPem },
    listener,
    logger: new RecordingLogger(),
    tickMs: 50,
    reconnectMinMs: 20,
    reconnectMaxMs: 200,
    resyncTimeoutMs: 1_000,
    staleBookMs: 0,
  });
  for (const ticker of TICKERS) {
    const { market } = (await rest(`/markets/${ticker}`)) as { market: { price_level_structure: PriceLevelStructure; price_ranges?: PriceRangeText[] } };
    const grid = PriceGrid.forMarket(market.price_level_structure, market.price_ranges);
    grids.set(ticker, grid);
    feed.addMarket(ticker, grid);
  }
  activity(200); // books with depth before the feed subscribes
  feed.start();
  feed.subscribeOrderbooks(TICKERS);
  await until(() => TICKERS.every((t) => feed.books.get(t)!.synced), 'initial snapshots');
});

afterAll(async () => {
  feed?.stop();
  await sim?.close();
  rmSync(keysDir, { recursive: true, force: true });
});

describe('Feed against the simulator', () => {
  it('keeps every subscribed book equal to the exchange through activity', async () => {
    await until(booksEqual, 'books equal after subscribe');
    activity(400);
    await until(booksEqual, 'books equal after activity');
    expect(feed.counters.deltasApplied).toBeGreaterThan(100);
    expect(feed.counters.malformedFrames).toBe(0);
    expect(feed.counters.seqGaps).toBe(0);
    expect(await feed.listSubscriptions()).toEqual([{ channel: 'orderbook_delta', sid: feed.subscriptions.subscriptions('orderbook_delta')[0].sid }]);
  });

  it('a dropped delta is a gap: books go out of sync, are resynced and equal again', async () => {
    listener.events.length = 0;
    const target = TICKERS[0];
    const rule = sim.faults.add({ kind: 'ws_drop_delta', target: { times: 1, marketTicker: target } });
    await until(() => {
      activity(5, [target]);
      return sim.faults.firedCount(rule) === 1;
    }, 'the drop fault to fire');
    activity(5, [target]); // the delta after the hole reveals the gap
    await until(() => listener.events.some((e) => e.startsWith('resynced')), 'resync after the gap');
    expect(listener.events).toContain(`out ${target} ${ApplyStatus.SEQ_GAP}`);
    expect(feed.counters.seqGaps).toBeGreaterThan(0);
    activity(100);
    await until(booksEqual, 'books equal after the gap');
    sim.faults.remove(rule);
  });

  it('error 25 re-creates the subscription on a new sid and rebuilds its books', async () => {
    listener.events.length = 0;
    listener.errors.length = 0;
    const before = feed.subscriptions.subscriptions('orderbook_delta')[0].sid;
    expect(sim.faults.overflowSubscriptions({ channel: 'orderbook_delta' })).toBe(1);
    await until(() => {
      const subscription = feed.subscriptions.subscriptions('orderbook_delta')[0];
      return subscription.sid !== -1 && subscription.sid !== before && TICKERS.every((t) => feed.books.get(t)!.synced);
    }, 'resubscribed and synced');
    expect(listener.errors).toContain(25);
    expect(listener.events).toContain(`out ${TICKERS[1]} ${ApplyStatus.RESYNC}`);
    expect(feed.counters.resubscribes).toBe(1);
    activity(100);
    await until(booksEqual, 'books equal after error 25');
  });

  it('a connection closed by the server is reopened and every book rebuilt', async () => {
    listener.events.length = 0;
    const opensBefore = (feed.session as { opens?: number }).opens ?? 0;
    expect(sim.faults.closeConnections()).toBe(1);
    await until(() => feed.counters.disconnects === 1, 'disconnect seen');
    expect(listener.events.filter((e) => e.endsWith(` ${ApplyStatus.RESYNC}`))).toHaveLength(TICKERS.length);
    activity(100); // while reconnecting: the new snapshots must include it
    await until(() => feed.state === 'open' && TICKERS.every((t) => feed.books.get(t)!.synced), 'reconnected and synced');
    expect((feed.session as { opens?: number }).opens).toBe(opensBefore + 1);
    activity(100);
    await until(booksEqual, 'books equal after reconnect');
    expect(feed.counters.malformedFrames).toBe(0);
  });
});

