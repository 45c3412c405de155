/**
 * Goal: a Feed on the Margin endpoint (venue 'margin', `/trade-api/ws/v2/margin`) keeps a
 * perpetual's book equal to the exchange's over real sockets, including levels far outside its
 * window; writes the settlement mark of the `ticker` channel into the market registry and hands the
 * record to onMarginTicker; and decodes the Margin `user_order`, `fill` and `trade` frames of a
 * crossing order into the shared records (a bid = buy YES at price).
 * Method: startSim in-process on 127.0.0.1:0 with a temporary key directory; the Feed connects with
 * the demo key (signed handshake on the Margin path) and books KXBTCPERP (tick from
 * GET /margin/markets/{ticker}); a seeded flow of resting orders and cancels from two users goes
 * straight into the simulator's Margin engine (as test/feed/feed.sim.test.ts drives the Predictions
 * engine); after each burst the local book is compared with GET /margin/markets/{ticker}/orderbook
 * until equal. The demo user's own resting bid is then hit by an IOC ask of a counterparty. Every
 * wait is a bounded poll.
 */

import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { OrderBook } from '../../src/book/index.ts';
import { PRICE_INVALID, parseCount, parsePrice, seededRandom, type BookSide, type Price } from '../../src/core/index.ts';
import { Channel, Feed, NoopFeedListener, type FillRecord, type MarginTickerRecord, type TradeRecord, type UserOrderRecord } from '../../src/feed/index.ts';
import { startSim, type SimHandle } from '../../src/sim/index.ts';
import { RecordingLogger } from './fakes.ts';

const TICKER = 'KXBTCPERP';
const USERS = ['margin-feed-maker', 'margin-feed-taker'];
const COUNTERPARTY = 'margin-feed-counterparty';
const DEPOSIT = 1_000_000_000_000; // centicents: margin is never the limit here

interface Copied {
  userOrders: Pick<UserOrderRecord, 'orderId' | 'ticker' | 'status' | 'bookSide' | 'outcomeSide' | 'yesPrice' | 'fillCount' | 'remainingCount' | 'orderSource' | 'clientOrderId'>[];
  fills: Pick<FillRecord, 'orderId' | 'marketTicker' | 'bookSide' | 'outcomeSide' | 'yesPrice' | 'count' | 'postPosition' | 'isTaker' | 'feeCost'>[];
  trades: Pick<TradeRecord, 'marketTicker' | 'yesPrice' | 'count' | 'takerBookSide'>[];
  tickers: Pick<MarginTickerRecord, 'marketTicker' | 'markPrice' | 'bid' | 'ask'>[];
}

class Recorder extends NoopFeedListener {
  readonly seen: Copied = { userOrders: [], fills: [], trades: [], tickers: [] };
  readonly errors: (number | string)[] = [];
  // Records are reused: copy what is kept.
  override onUserOrder(r: UserOrderRecord): void {
    const { orderId, ticker, status, bookSide, outcomeSide, yesPrice, fillCount, remainingCount, orderSource, clientOrderId } = r;
    this.seen.userOrders.push({ orderId, ticker, status, bookSide, outcomeSide, yesPrice, fillCount, remainingCount, orderSource, clientOrderId });
  }
  override onFill(r: FillRecord): void {
    const { orderId, marketTicker, bookSide, outcomeSide, yesPrice, count, postPosition, isTaker, feeCost } = r;
    this.seen.fills.push({ orderId, marketTicker, bookSide, outcomeSide, yesPrice, count, postPosition, isTaker, feeCost });
  }
  override onTrade(r: TradeRecord): void {
    this.seen.trades.push({ marketTicker: r.marketTicker, yesPrice: r.yesPrice, count: r.count, takerBookSide: r.takerBookSide });
  }
  override onMarginTicker(r: MarginTickerRecord): void {
    this.seen.tickers.push({ marketTicker: r.marketTicker, markPrice: r.markPrice, bid: r.bid, ask: r.ask });
  }
  override onError(code: number | string): void {
    this.errors.push(code);
  }
}

let workDir = '';
let sim: SimHandle;
let feed: Feed;
let book: OrderBook;
let tick = 0;
let mark = 0;
const listener = new Recorder();
const logger = new RecordingLogger();
const resting = new Map<string, string[]>(USERS.map((u) => [u, []]));
const random = seededRandom(7);

async function until(condition: () => boolean | Promise<boolean>, what: string, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

async function rest(path: string): Promise<Record<string, unknown>> {
  const response = await fetch(`${sim.httpUrl}/trade-api/v2${path}`);
  expect(response.status).toBe(200);
  return (await response.json()) as Record<string, unknown>;
}

/** The exchange's book over REST: bids best (highest) first, asks best (lowest) first. */
async function restBook(): Promise<{ bids: [number, number][]; asks: [number, number][] }> {
  const body = (await rest(`/margin/markets/${TICKER}/orderbook`)) as { orderbook: { bids: [string, string][]; asks: [string, string][] } };
  const side = (levels: [string, string][]): [number, number][] => levels.map(([price, count]) => [parsePrice(price), parseCount(count)]);
  return { bids: side(body.orderbook.bids), asks: side(body.orderbook.asks) };
}

async function bookEqual(): Promise<boolean> {
  if (!book.synced) return false;
  const expected = await restBook();
  return JSON.stringify({ bids: book.levels(0), asks: book.levels(1) }) === JSON.stringify(expected);
}

function create(user: string, side: BookSide, price: number, count: number, timeInForce: 'good_till_canceled' | 'immediate_or_cancel'): string | null {
  const result = sim.services.margin.create(user, 0, {
    ticker: TICKER, clientOrderId: randomUUID(), side, count, price, timeInForce, selfTradePrevention: 'maker',
    postOnly: false, reduceOnly: false, cancelOrderOnPause: false, expirationTs: null,
  });
  if ('code' in result) throw new Error(`order refused: ${JSON.stringify(result)}`);
  return result.order.remaining > 0 ? result.order.orderId : null;
}

/**
 * A seeded burst of resting orders and cancels around the mark, without crossing (bids below the
 * mark, asks above), some far: up to 9,000 ticks away, beyond half the 16,384-tick window.
 */
function activity(orders: number): void {
  for (let i = 0; i < orders; i++) {
    const user = USERS[Math.floor(random() * USERS.length)];
    const ids = resting.get(user)!;
    if (ids.length > 0 && random() < 0.3) {
      const [orderId] = ids.splice(Math.floor(random() * ids.length), 1);
      sim.services.margin.cancel(user, 0, orderId);
      continue;
    }
    const side: BookSide = random() < 0.5 ? 'bid' : 'ask';
    const ticks = 1 + (random() < 0.1 ? 8_500 + Math.floor(random() * 500) : Math.floor(random() * 30));
    const price = side === 'bid' ? mark - ticks * tick : mark + ticks * tick;
    const id = create(user, side, price, (1 + Math.floor(random() * 5)) * 100, 'good_till_canceled');
    if (id !== null) ids.push(id);
  }
}

beforeAll(async () => {
  workDir = mkdtempSync(join(tmpdir(), 'margin-feed-'));
  sim = await startSim({ keysDir: join(workDir, 'keys'), logger: pino({ level: 'silent' }), rateLimits: false });
  for (const user of [...USERS, COUNTERPARTY, sim.userId]) sim.services.margin.ensureAccount(user, 0, DEPOSIT);
  const { market } = (await rest(`/margin/markets/${TICKER}`)) as { market: { tick_size: string; mark_price?: string; settlement_mark_price?: { price: string } } };
  tick = parsePrice(market.tick_size);
  mark = parsePrice(market.settlement_mark_price?.price ?? market.mark_price ?? '100.0000');
  expect(tick).toBeGreaterThan(0);
  expect(mark % tick).toBe(0);
  feed = new Feed({
    url: `${sim.wsUrl}/margin`,
    venue: 'margin',
    auth: { keyId: sim.demoKey.keyId, privateKey: sim.demoKey.privateKeyPem },
    listener,
    logger,
    tickMs: 50,
    reconnectMinMs: 20,
    reconnectMaxMs: 200,
    resyncTimeoutMs: 1_000,
    staleBookMs: 0,
  });
  book = feed.addPerpMarket(TICKER, tick);
  activity(150); // depth before the feed subscribes: the first snapshot centres the window
  feed.start();
  feed.subscribeOrderbooks([TICKER]);
  feed.subscribe(Channel.TICKER, [TICKER]);
  feed.subscribe(Channel.TRADE, [TICKER]);
  feed.subscribe(Channel.FILL);
  feed.subscribe(Channel.USER_ORDERS);
  await until(() => book.synced, 'the first snapshot');
}, 30_000);

afterAll(async () => {
  feed?.stop();
  await sim?.close();
  if (workDir !== '') rmSync(workDir, { recursive: true, force: true });
});

describe('Feed on the Margin endpoint against the simulator', () => {
  it('books a perpetual: the market is a Margin one in the registry, the book a perpetual one', () => {
    const index = feed.markets.indexOf(TICKER);
    expect(feed.markets.at(index)).toMatchObject({ exchange: 'margin', tick });
    expect(book.perp).toBe(true);
    expect(book.grid.contains(mark as Price) || book.bestBid() !== PRICE_INVALID).toBe(true);
  });

  it('keeps the local book equal to GET /margin/markets/{ticker}/orderbook through placing and cancelling', async () => {
    await until(bookEqual, 'book equal after the snapshot');
    for (let burst = 0; burst < 4; burst++) {
      activity(100);
      await until(bookEqual, `book equal after burst ${burst}`);
    }
    expect(feed.counters.deltasApplied).toBeGreaterThan(100);
    expect(feed.counters.malformedFrames).toBe(0);
    expect(feed.counters.seqGaps).toBe(0);
    expect(book.overflowLevelCount()).toBeGreaterThan(0); // far levels live outside the window, still equal
    expect(book.levels(0).length).toBeGreaterThan(10);
    expect(book.levels(1).length).toBeGreaterThan(10);
    expect(book.bestBid()).toBeLessThan(mark);
    expect(book.bestAsk()).toBeGreaterThan(mark);
    expect(book.bestBidLevel).not.toBe(-1);
    expect(book.bestAskLevel).not.toBe(-1);
    // Cancel everything resting: the book empties like the exchange's.
    for (const [user, ids] of resting) for (const id of ids.splice(0)) sim.services.margin.cancel(user, 0, id);
    await until(bookEqual, 'book equal after cancelling everything');
    expect([book.levels(0).length, book.levels(1).length]).toEqual([0, 0]);
    activity(50);
    await until(bookEqual, 'book equal after rebuilding depth');
  }, 60_000);

  it('a mark price arrives on the ticker channel and is written into the registry', async () => {
    await until(() => listener.seen.tickers.some((t) => t.marketTicker === TICKER && t.markPrice !== PRICE_INVALID), 'a ticker with a mark');
    const last = listener.seen.tickers.filter((t) => t.marketTicker === TICKER).at(-1)!;
    expect(last.markPrice).toBeGreaterThan(0);
    expect(feed.markets.at(feed.markets.indexOf(TICKER))!.markPrice).toBe(last.markPrice);
  }, 15_000);

  it('decodes Margin user_order, fill and trade frames of a crossing order', async () => {
    const bestBid = book.bestBid();
    const price = (bestBid === PRICE_INVALID ? mark - 50 * tick : bestBid + tick) as Price; // a new best bid, still below every ask
    expect(price).toBeLessThan(book.bestAsk() === PRICE_INVALID ? Infinity : book.bestAsk());
    const orderId = create(sim.userId, 'bid', price, 300, 'good_till_canceled')!;
    await until(() => listener.seen.userOrders.some((o) => o.orderId === orderId && o.status === 'resting'), 'our resting user_order');
    expect(listener.seen.userOrders.find((o) => o.orderId === orderId)).toMatchObject({
      ticker: TICKER, status: 'resting', bookSide: 'bid', outcomeSide: 'yes', yesPrice: price, fillCount: 0, remainingCount: 300, orderSource: 'user',
    });
    await until(() => book.bestBid() === price, 'our bid at the top of the local book');

    expect(create(COUNTERPARTY, 'ask', price, 200, 'immediate_or_cancel')).toBeNull(); // crosses our bid: 2 contracts
    await until(() => listener.seen.fills.some((f) => f.orderId === orderId), 'our fill');
    expect(listener.seen.fills.find((f) => f.orderId === orderId)).toMatchObject({
      marketTicker: TICKER, bookSide: 'bid', outcomeSide: 'yes', yesPrice: price, count: 200, postPosition: 200, isTaker: false,
    });
    await until(() => listener.seen.userOrders.some((o) => o.orderId === orderId && o.fillCount === 200), 'our partly filled user_order');
    expect(listener.seen.userOrders.filter((o) => o.orderId === orderId).at(-1)).toMatchObject({ status: 'resting', fillCount: 200, remainingCount: 100 });
    await until(() => listener.seen.trades.some((t) => t.yesPrice === price && t.count === 200), 'the public trade');
    expect(listener.seen.trades.find((t) => t.yesPrice === price && t.count === 200)).toMatchObject({ marketTicker: TICKER, takerBookSide: 'ask' });

    sim.services.margin.cancel(sim.userId, 0, orderId);
    await until(() => listener.seen.userOrders.some((o) => o.orderId === orderId && o.status === 'canceled'), 'our cancelled user_order');
    await until(bookEqual, 'book equal after the cross and the cancel');
    expect(feed.counters.malformedFrames).toBe(0);
    expect(listener.errors).toEqual([]);
  }, 30_000);
});
