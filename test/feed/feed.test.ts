/**
 * Goal: the Feed's message handler survives anything (malformed frames, unknown types, throwing
 * listeners) with a counter and a log line; routes every private and lifecycle message to its
 * listener method as the reused record; applies lifecycle to market state (pause, grid change);
 * converts use_yes_price NO levels back for the store; records per-hop timestamps in order; takes
 * frames as the socket's bytes anywhere in a buffer (handleBytes), and answers false for bytes that
 * are not UTF-8 (the session then fails the connection with 1007).
 * Method: a Feed over a scripted session and a manual clock; frames through feed.handleFrame (text
 * written as bytes) and feed.handleBytes.
 */

import { Writable } from 'node:stream';
import { afterEach, describe, expect, it } from 'vitest';
import { ApplyStatus, type OrderBook } from '../../src/book/index.ts';
import { PriceGrid } from '../../src/core/index.ts';
import { Feed, NoopFeedListener, type FeedOptions, type LifecycleRecord, type TradeRecord } from '../../src/feed/index.ts';
import { createLogger } from '../../src/telemetry/index.ts';
import { FakeSession, RecordingLogger, TestClock, bookLevels, deltaFrame, settle, snapshotFrame } from './fakes.ts';

const feeds: Feed[] = [];
afterEach(() => {
  for (const feed of feeds.splice(0)) feed.stop();
});

function setup(options: Partial<FeedOptions> = {}, listener = new NoopFeedListener()) {
  const clock = new TestClock();
  const logger = new RecordingLogger();
  let session: FakeSession | null = null;
  const feed = new Feed({
    url: 'ws://127.0.0.1:9/trade-api/ws/v2?ignored=1',
    auth: null,
    listener,
    logger,
    clock: { nowMs: clock.nowMs },
    createSession: (sessionOptions) => (session = new FakeSession(sessionOptions)),
    ...options,
  });
  feeds.push(feed);
  feed.addMarket('A', PriceGrid.fromStructure('linear_cent'));
  return { feed, clock, logger, session: session! };
}

async function syncA(h: ReturnType<typeof setup>): Promise<void> {
  h.session.open();
  h.feed.subscribeOrderbooks(['A']);
  await settle();
  const [subscribe] = h.session.take();
  h.feed.handleFrame(JSON.stringify({ id: subscribe.id, type: 'subscribed', msg: { channel: 'orderbook_delta', sid: 1 } }));
  h.feed.handleFrame(snapshotFrame(1, 1, 'A', [[4000, 100]], [[5000, 200]]));
}

describe('Feed message handler', () => {
  it('counts, logs and survives malformed frames and unknown types', async () => {
    const h = setup();
    await syncA(h);
    for (const text of ['', 'not json', '{"type":"orderbook_delta","sid":1}', '{"type":"trade","sid":1,"msg":{"trade_id":5}}', '[1,2]']) {
      expect(() => h.feed.handleFrame(text)).not.toThrow();
    }
    h.feed.handleFrame('{"type":"ticker","sid":2,"msg":{}}');
    h.feed.handleFrame('{"type":"ticker","sid":2,"msg":{}}');
    expect(h.feed.counters.malformedFrames).toBe(5);
    expect(h.feed.counters.unknownTypes).toBe(2);
    expect(h.logger.lines.filter((l) => l.msg === 'feed: malformed frame dropped')).toHaveLength(5);
    // Unknown types: one warning per type, then debug.
    expect(h.logger.lines.filter((l) => l.level === 'warn' && (l.obj as { type?: string }).type === 'ticker')).toHaveLength(1);
    // The book is untouched and still synced.
    h.feed.handleFrame(deltaFrame(1, 2, 'A', 'yes', 4000, 50));
    expect(bookLevels(h.feed.books.get('A')!)).toEqual({ yes: [[4000, 150]], no: [[5000, 200]] });
  });

  it('catches listener exceptions (the book stays applied)', async () => {
    class Throwing extends NoopFeedListener {
      override onBookUpdate(): void {
        throw new Error('strategy bug');
      }
      override onBookOutOfSync(): void {
        throw new Error('another');
      }
    }
    const h = setup({}, new Throwing());
    await syncA(h);
    expect(() => h.feed.handleFrame(deltaFrame(1, 2, 'A', 'yes', 4000, 50))).not.toThrow();
    expect(h.feed.books.get('A')!.bidSizeAtLevel(h.feed.books.get('A')!.grid.levelOf(4000 as never))).toBe(150);
    expect(() => h.feed.handleFrame(deltaFrame(1, 9, 'A', 'yes', 4000, 50))).not.toThrow(); // gap -> onBookOutOfSync throws
    expect(h.feed.books.get('A')!.outOfSyncReason).toBe(ApplyStatus.SEQ_GAP);
    expect(h.feed.counters.listenerErrors).toBe(3); // snapshot update, delta update, out-of-sync
    expect(h.logger.count('error')).toBe(3);
  });

  it('routes private, public and lifecycle messages to their listener methods as reused records', () => {
    const seen: string[] = [];
    const kept: unknown[] = [];
    class Recorder extends NoopFeedListener {
      override onTrade(r: TradeRecord): void {
        seen.push(`trade ${r.tradeId} ${r.yesPrice} ${r.count}`);
        kept.push(r);
      }
      override onFill(r: { orderId: string; count: number }): void {
        seen.push(`fill ${r.orderId} ${r.count}`);
      }
      override onUserOrder(r: { orderId: string; status: string }): void {
        seen.push(`order ${r.orderId} ${r.status}`);
      }
      override onMarketPosition(r: { marketTicker: string; position: number }): void {
        seen.push(`position ${r.marketTicker} ${r.position}`);
      }
      override onOrderGroupUpdate(r: { eventType: string }): void {
        seen.push(`group ${r.eventType}`);
      }
      override onLifecycle(r: LifecycleRecord): void {
        seen.push(`lifecycle ${r.type}`);
      }
    }
    const h = setup({}, new Recorder());
    const trade = (id: string) => JSON.stringify({ type: 'trade', sid: 5, msg: { trade_id: id, market_ticker: 'A', yes_price_dollars: '0.5', count_fp: '2', taker_outcome_side: 'yes' } });
    h.feed.handleFrame(trade('t1'));
    h.feed.handleFrame(trade('t2'));
    h.feed.handleFrame(JSON.stringify({ type: 'fill', sid: 6, msg: { trade_id: 'x', order_id: 'o', market_ticker: 'A', is_taker: false, outcome_side: 'yes', yes_price_dollars: '0.5', count_fp: '1.5' } }));
    h.feed.handleFrame(JSON.stringify({ type: 'user_order', sid: 7, msg: { order_id: 'o', ticker: 'A', status: 'executed', outcome_side: 'yes', yes_price_dollars: '0.5', fill_count_fp: '1', remaining_count_fp: '0' } }));
    h.feed.handleFrame(JSON.stringify({ type: 'market_position', sid: 8, msg: { market_ticker: 'A', position_fp: '-3' } }));
    h.feed.handleFrame(JSON.stringify({ type: 'order_group_updates', sid: 9, seq: 1, msg: { event_type: 'reset', order_group_id: 'g' } }));
    h.feed.handleFrame(JSON.stringify({ type: 'event_lifecycle', sid: 10, msg: { event_ticker: 'E' } }));
    expect(seen).toEqual(['trade t1 5000 200', 'trade t2 5000 200', 'fill o 150', 'order o executed', 'position A -300', 'group reset', 'lifecycle event_lifecycle']);
    expect(kept[0]).toBe(kept[1]); // the same reused record
  });

  it('applies lifecycle: pause stops staleness, a new grid regrids the live book', async () => {
    const h = setup({ staleBookMs: 1_000 });
    await syncA(h);
    h.feed.handleFrame(JSON.stringify({ type: 'market_lifecycle_v2', sid: 3, msg: { event_type: 'deactivated', market_ticker: 'A', is_deactivated: true } }));
    expect(h.feed.market('A')!.info.open).toBe(false);
    h.feed.handleFrame(JSON.stringify({ type: 'market_lifecycle_v2', sid: 3, msg: { event_type: 'activated', market_ticker: 'A', is_deactivated: false } }));
    expect(h.feed.market('A')!.info.open).toBe(true);
    h.feed.handleFrame(
      JSON.stringify({ type: 'market_lifecycle_v2', sid: 3, msg: { event_type: 'price_level_structure_updated', market_ticker: 'A', price_level_structure: 'deci_cent', price_ranges: [{ start: '0.0000', end: '1.0000', step: '0.0010' }] } }),
    );
    const book = h.feed.books.get('A')!;
    expect(book.grid).toBe(PriceGrid.fromStructure('deci_cent'));
    expect(book.synced).toBe(true);
    h.feed.handleFrame(deltaFrame(1, 2, 'A', 'yes', 4010, 100)); // a deci-cent price now on the grid
    expect(bookLevels(book)).toEqual({ yes: [[4000, 100], [4010, 100]], no: [[5000, 200]] });
    h.feed.handleFrame(JSON.stringify({ type: 'market_lifecycle_v2', sid: 3, msg: { event_type: 'settled', market_ticker: 'A', settled_ts: 5 } }));
    expect(h.feed.market('A')!.info.open).toBe(false);
  });

  it('converts use_yes_price NO levels back to NO prices for the store, and asks for use_yes_price', async () => {
    const h = setup({ useYesPrice: true });
    h.session.open();
    h.feed.subscribeOrderbooks(['A']);
    await settle();
    const [subscribe] = h.session.take();
    expect(subscribe.params).toMatchObject({ channels: ['orderbook_delta'], market_tickers: ['A'], use_yes_price: true });
    h.feed.handleFrame(JSON.stringify({ id: subscribe.id, type: 'subscribed', msg: { channel: 'orderbook_delta', sid: 1 } }));
    // YES-price form: a NO bid at 0.30 arrives as 0.70.
    h.feed.handleFrame(snapshotFrame(1, 1, 'A', [], [[7000, 100]]));
    h.feed.handleFrame(deltaFrame(1, 2, 'A', 'no', 6900, 50));
    const book = h.feed.books.get('A')!;
    expect(bookLevels(book)).toEqual({ yes: [], no: [[3000, 100], [3100, 50]] });
    expect(book.bestAsk()).toBe(6900);
  });

  it('records per-hop timestamps in order for the frame being handled', async () => {
    const hops: number[][] = [];
    const feedRef: { feed: Feed | null } = { feed: null };
    class Hops extends NoopFeedListener {
      override onBookUpdate(_book: OrderBook): void {
        const hop = feedRef.feed!.hop;
        hops.push([hop.receivedNs, hop.decodedNs, hop.appliedNs]);
      }
    }
    const h = setup({}, new Hops());
    feedRef.feed = h.feed;
    await syncA(h);
    h.feed.handleFrame(deltaFrame(1, 2, 'A', 'yes', 4000, 1));
    expect(hops).toHaveLength(2);
    for (const [received, decoded, applied] of hops) {
      expect(received).toBeGreaterThan(0);
      expect(decoded).toBeGreaterThanOrEqual(received);
      expect(applied).toBeGreaterThanOrEqual(decoded);
    }
  });

  it('takes frames as bytes in the middle of a buffer, and answers false for bytes that are not UTF-8', async () => {
    const h = setup();
    await syncA(h);
    const chunk = Buffer.from(`${deltaFrame(1, 2, 'A', 'yes', 4000, 50)}${deltaFrame(1, 3, 'A', 'no', 5000, -200)}`, 'latin1');
    const split = chunk.indexOf('}}') + 2;
    expect(h.feed.handleBytes(chunk, 0, split)).toBe(true);
    expect(h.feed.handleBytes(chunk, split, chunk.length)).toBe(true);
    expect(bookLevels(h.feed.books.get('A')!)).toEqual({ yes: [[4000, 150]], no: [] });
    expect(h.feed.decoder.framesScanned).toBeGreaterThanOrEqual(2);
    const bad = Buffer.from(deltaFrame(1, 4, 'A', 'yes', 4000, 1), 'latin1');
    bad[bad.indexOf('"side"') + 8] = 0xff; // "yes" -> "\xffes"
    expect(h.feed.handleBytes(bad, 0, bad.length)).toBe(false);
    expect(h.feed.counters.malformedFrames).toBe(1);
    expect(h.logger.lines.some((l) => l.msg === 'feed: text frame is not UTF-8; failing the connection')).toBe(true);
    // The book did not move and the next good frame applies.
    expect(h.feed.handleBytes(Buffer.from(deltaFrame(1, 4, 'A', 'yes', 4000, 1)), 0, bad.length)).toBe(true);
    expect(bookLevels(h.feed.books.get('A')!)).toEqual({ yes: [[4000, 151]], no: [] });
  });

  it('accepts a pino logger from telemetry', () => {
    const lines: string[] = [];
    const destination = new Writable({ write: (chunk, _enc, done) => (lines.push(String(chunk)), done()) });
    const h = setup({ logger: createLogger({ level: 'warn', pretty: false, destination }) });
    h.feed.handleFrame('garbage');
    expect(h.feed.counters.malformedFrames).toBe(1);
  });
});
