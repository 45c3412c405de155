/**
 * Goal: every resync trigger takes a book out of sync, tells the listener, and rebuilds it from a
 * fresh snapshot: a sequence gap (get_snapshot on the same sid), a terminal error 25 or 10
 * (resubscribe, new sid, the dead sid's data dropped), a stale book (no message for staleBookMs
 * while open; none while paused) and a reconnect (everything resubscribed); an overdue repair is
 * asked again; a storm of gaps is batched and paced.
 * Method: a Feed over a scripted session (FakeSession) and a manual clock; frames are fed to
 * feed.handleFrame exactly as the socket would, commands are read back from the session.
 */

import { afterEach, describe, expect, it } from 'vitest';
import { ApplyStatus, type OrderBook } from '../../src/book/index.ts';
import { PriceGrid } from '../../src/core/index.ts';
import { Feed, NoopFeedListener, type FeedOptions } from '../../src/feed/index.ts';
import { FakeSession, TestClock, bookLevels, deltaFrame, settle, snapshotFrame, type SentCommand } from './fakes.ts';

class Recorder extends NoopFeedListener {
  readonly events: string[] = [];
  override onBookUpdate(book: OrderBook): void {
    this.events.push(`update ${book.ticker}`);
  }
  override onBookOutOfSync(book: OrderBook, reason: number): void {
    this.events.push(`out ${book.ticker} ${reason}`);
  }
  override onBookResynced(book: OrderBook): void {
    this.events.push(`resynced ${book.ticker}`);
  }
  override onError(code: number | string, _message: string): void {
    this.events.push(`error ${code}`);
  }
  take(): string[] {
    return this.events.splice(0);
  }
}

const feeds: Feed[] = [];
afterEach(() => {
  for (const feed of feeds.splice(0)) feed.stop();
});

function setup(options: Partial<FeedOptions> = {}) {
  const clock = new TestClock();
  const listener = new Recorder();
  let session: FakeSession | null = null;
  const feed = new Feed({
    url: 'ws://127.0.0.1:9/trade-api/ws/v2',
    auth: null,
    listener,
    clock: { nowMs: clock.nowMs },
    staleBookMs: 0,
    createSession: (sessionOptions) => (session = new FakeSession(sessionOptions)),
    ...options,
  });
  feeds.push(feed);
  const grid = PriceGrid.fromStructure('linear_cent');
  for (const ticker of ['A', 'B', 'C']) feed.addMarket(ticker, grid);
  return { feed, clock, listener, session: session! };
}

/** Opens, subscribes A and B on sid `sid`, and syncs both books (seq 1, 2). */
async function subscribeAndSync(h: ReturnType<typeof setup>, sid = 1): Promise<SentCommand> {
  h.session.open();
  h.feed.subscribeOrderbooks(['A', 'B']);
  await settle();
  const [subscribe] = h.session.take();
  h.feed.handleFrame(JSON.stringify({ id: subscribe.id, type: 'subscribed', msg: { channel: 'orderbook_delta', sid } }));
  h.feed.handleFrame(snapshotFrame(sid, 1, 'A', [[4100, 25000], [4200, 4000]], [[5500, 7500]]));
  h.feed.handleFrame(snapshotFrame(sid, 2, 'B', [[1000, 100]], []));
  h.listener.take();
  return subscribe;
}

describe('resync triggers', () => {
  it('a sequence gap breaks every book of the sid and get_snapshot on that sid rebuilds them', async () => {
    const h = setup();
    await subscribeAndSync(h);
    h.feed.handleFrame(deltaFrame(1, 3, 'A', 'yes', 4200, -4000));
    expect(h.listener.take()).toEqual(['update A']);
    h.feed.handleFrame(deltaFrame(1, 5, 'A', 'yes', 4100, 100)); // seq 4 missing
    expect(h.listener.take()).toEqual([`out A ${ApplyStatus.SEQ_GAP}`, `out B ${ApplyStatus.SEQ_GAP}`]);
    expect(h.feed.books.get('A')!.synced).toBe(false);
    h.feed.handleFrame(deltaFrame(1, 6, 'B', 'yes', 1000, 100)); // not applied to a broken book
    expect(h.listener.take()).toEqual([]);
    await settle();
    expect(h.session.take().map((c) => c.params)).toEqual([{ sids: [1], market_tickers: ['A', 'B'], action: 'get_snapshot' }]);
    h.feed.handleFrame(snapshotFrame(1, 7, 'A', [[4100, 100]], [[5500, 200]]));
    h.feed.handleFrame(snapshotFrame(1, 8, 'B', [], [[9000, 300]]));
    expect(h.listener.take()).toEqual(['resynced A', 'update A', 'resynced B', 'update B']);
    expect(bookLevels(h.feed.books.get('A')!)).toEqual({ yes: [[4100, 100]], no: [[5500, 200]] });
    expect(bookLevels(h.feed.books.get('B')!)).toEqual({ yes: [], no: [[9000, 300]] });
    expect(h.feed.counters.seqGaps).toBe(2);
    expect(h.feed.counters.resyncsCompleted).toBe(2);
  });

  it('asks again when the snapshot after a gap does not come', async () => {
    const h = setup({ resyncTimeoutMs: 1_000 });
    await subscribeAndSync(h);
    h.feed.handleFrame(deltaFrame(1, 9, 'A', 'yes', 4100, 100));
    await settle();
    expect(h.session.take()).toHaveLength(1);
    h.feed.tick(h.clock.advance(999));
    await settle();
    expect(h.session.take()).toEqual([]);
    h.feed.tick(h.clock.advance(1));
    await settle();
    expect(h.session.take().map((c) => c.params?.action)).toEqual(['get_snapshot']);
  });

  it('code 25 kills the sid: books out of sync, data on the dead sid dropped, resubscribed on a new sid', async () => {
    const h = setup();
    const first = await subscribeAndSync(h, 4);
    h.feed.handleFrame('{"type":"error","sid":4,"seq":3,"msg":{"code":25,"msg":"Subscription buffer overflow"}}');
    expect(h.listener.take()).toEqual(['error 25', `out A ${ApplyStatus.RESYNC}`, `out B ${ApplyStatus.RESYNC}`, 'error FEED_SUBSCRIPTION_LOST']);
    h.feed.handleFrame(deltaFrame(4, 4, 'A', 'yes', 4100, 100));
    expect(h.feed.counters.droppedDeadSid).toBe(1);
    await settle();
    const [resubscribe] = h.session.take();
    expect(resubscribe).toMatchObject({ cmd: 'subscribe', params: { channels: ['orderbook_delta'], market_tickers: ['A', 'B'] } });
    expect(resubscribe.id).toBeGreaterThan(first.id);
    h.feed.handleFrame(JSON.stringify({ id: resubscribe.id, type: 'subscribed', msg: { channel: 'orderbook_delta', sid: 5 } }));
    h.feed.handleFrame(snapshotFrame(5, 1, 'A', [[4000, 100]], []));
    h.feed.handleFrame(snapshotFrame(5, 2, 'B', [[2000, 100]], []));
    h.feed.handleFrame(deltaFrame(5, 3, 'A', 'no', 5000, 700));
    expect(h.listener.take()).toEqual(['resynced A', 'update A', 'resynced B', 'update B', 'update A']);
    expect(bookLevels(h.feed.books.get('A')!)).toEqual({ yes: [[4000, 100]], no: [[5000, 700]] });
    expect(h.feed.counters.resubscribes).toBe(1);
  });

  it('code 10 (channel error) is terminal too', async () => {
    const h = setup();
    await subscribeAndSync(h, 2);
    h.feed.handleFrame('{"type":"error","sid":2,"msg":{"code":10,"msg":"Channel error"}}');
    expect(h.feed.books.get('A')!.outOfSyncReason).toBe(ApplyStatus.RESYNC);
    await settle();
    expect(h.session.take().map((c) => c.cmd)).toEqual(['subscribe']);
  });

  it('a stale open book is resynced on the coarse tick; a paused market is not stale', async () => {
    const h = setup({ staleBookMs: 5_000 });
    await subscribeAndSync(h);
    h.feed.tick(h.clock.ms);
    h.feed.handleFrame(deltaFrame(1, 3, 'A', 'yes', 4100, 100)); // A has data at t0
    h.feed.handleFrame(JSON.stringify({ type: 'market_lifecycle_v2', sid: 9, msg: { event_type: 'deactivated', market_ticker: 'B', is_deactivated: true } }));
    h.listener.take();
    h.feed.tick(h.clock.advance(4_999));
    expect(h.listener.take()).toEqual([]);
    h.feed.tick(h.clock.advance(1));
    expect(h.listener.take()).toEqual([`out A ${ApplyStatus.STALE}`]);
    expect(h.feed.counters.staleBooks).toBe(1);
    await settle();
    expect(h.session.take().map((c) => c.params)).toEqual([{ sids: [1], market_tickers: ['A'], action: 'get_snapshot' }]);
    h.feed.handleFrame(snapshotFrame(1, 4, 'A', [[4100, 100]], []));
    expect(h.listener.take()).toEqual(['resynced A', 'update A']);
    expect(h.feed.books.get('B')!.synced).toBe(true);
  });

  it('with more markets than one tick walks (512), stale books are found in turn over the next ticks, each once', async () => {
    const h = setup({ staleBookMs: 5_000, commandsPerSec: 1_000, maxMarketsPerCommand: 2_000 });
    const grid = PriceGrid.fromStructure('linear_cent');
    const tickers = Array.from({ length: 1_300 }, (_, i) => `M${i}`);
    for (const ticker of tickers) h.feed.addMarket(ticker, grid);
    h.session.open();
    h.feed.subscribeOrderbooks(tickers);
    await settle();
    let seq = 0;
    for (const command of h.session.take()) {
      const sid = 100 + seq;
      h.feed.handleFrame(JSON.stringify({ id: command.id, type: 'subscribed', msg: { channel: 'orderbook_delta', sid } }));
      let inSid = 0;
      for (const ticker of command.params?.market_tickers ?? []) h.feed.handleFrame(snapshotFrame(sid, ++inSid, ticker, [[4100, 100]], []));
      seq++;
    }
    expect(tickers.every((ticker) => h.feed.books.get(ticker)!.synced)).toBe(true);
    h.listener.take();
    h.feed.tick(h.clock.advance(5_000)); // every book is stale now
    const stale = (): string[] => h.listener.take().filter((event) => event.startsWith('out '));
    const first = stale();
    expect(first).toHaveLength(512 - 3); // the walk's first 512 include setup's A, B and C, not subscribed
    expect(first[0]).toBe(`out M0 ${ApplyStatus.STALE}`);
    h.feed.tick(h.clock.advance(250));
    const second = stale();
    expect(second).toHaveLength(512);
    h.feed.tick(h.clock.advance(250));
    const third = stale();
    expect(third).toHaveLength(1_303 - 1_024);
    expect(new Set([...first, ...second, ...third]).size).toBe(1_300);
    expect(h.feed.counters.staleBooks).toBe(1_300);
  });

  it('a reconnect marks every book out of sync and resubscribes everything', async () => {
    const h = setup();
    const states: string[] = [];
    h.listener.onConnectionState = (state) => void states.push(state);
    await subscribeAndSync(h);
    h.session.drop();
    expect(h.listener.take()).toEqual([`out A ${ApplyStatus.RESYNC}`, `out B ${ApplyStatus.RESYNC}`]);
    expect(states).toEqual(['open', 'reconnecting']);
    h.session.open();
    const [subscribe] = h.session.take();
    expect(subscribe).toMatchObject({ cmd: 'subscribe', params: { market_tickers: ['A', 'B'] } });
    // The new connection may reuse sid 1: the old one's sequence state is gone.
    h.feed.handleFrame(JSON.stringify({ id: subscribe.id, type: 'subscribed', msg: { channel: 'orderbook_delta', sid: 1 } }));
    h.feed.handleFrame(snapshotFrame(1, 1, 'A', [[100, 100]], []));
    h.feed.handleFrame(snapshotFrame(1, 2, 'B', [[200, 100]], []));
    expect(h.listener.take()).toEqual(['resynced A', 'update A', 'resynced B', 'update B']);
    expect(h.feed.books.get('A')!.synced && h.feed.books.get('B')!.synced).toBe(true);
    expect(h.feed.counters.disconnects).toBe(1);
  });

  it('a storm of gaps on many subscriptions is batched and paced', async () => {
    const h = setup({ maxMarketsPerSubscription: 1, resyncCommandsPerSec: 10, resyncBurst: 1, commandsPerSec: 1_000 });
    const grid = PriceGrid.fromStructure('linear_cent');
    const tickers = Array.from({ length: 6 }, (_, i) => `S${i}`);
    for (const ticker of tickers) h.feed.addMarket(ticker, grid);
    h.session.open();
    h.feed.subscribeOrderbooks(tickers);
    await settle();
    const subscribes = h.session.take();
    subscribes.forEach((command, i) => {
      h.feed.handleFrame(JSON.stringify({ id: command.id, type: 'subscribed', msg: { channel: 'orderbook_delta', sid: 10 + i } }));
      h.feed.handleFrame(snapshotFrame(10 + i, 1, tickers[i], [[100, 100]], []));
      h.feed.handleFrame(deltaFrame(10 + i, 5, tickers[i], 'yes', 100, 1)); // gap on every sid
    });
    await settle();
    // One resync token: one batch (all six markets), split per sid by the subscription manager.
    const sent = h.session.take();
    expect(sent).toHaveLength(6);
    expect(new Set(sent.map((c) => c.params?.sids?.[0]))).toEqual(new Set([10, 11, 12, 13, 14, 15]));
    expect(h.feed.resync.queuedCount).toBe(0);
  });

  it('an ok that takes a number from the book sid does not look like a gap', async () => {
    const h = setup();
    await subscribeAndSync(h);
    h.feed.handleFrame('{"id":77,"type":"ok","sid":1,"seq":3,"msg":{"market_tickers":["A","B"]}}');
    h.feed.handleFrame(deltaFrame(1, 4, 'A', 'yes', 4100, 100));
    h.feed.handleFrame('{"id":78,"type":"ok","sid":1,"seq":4}'); // does not consume: repeats the last
    h.feed.handleFrame(deltaFrame(1, 5, 'A', 'yes', 4100, 100));
    expect(h.listener.take()).toEqual(['update A', 'update A']);
  });
});
