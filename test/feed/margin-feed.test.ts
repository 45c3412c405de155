/**
 * Goal: the Feed's Margin venue wiring without a network: addPerpMarket registers a Margin market of
 * its tick and a perpetual book; Margin snapshots and deltas reach it with asks at their own price
 * even when useYesPrice is asked for (no use_yes_price on the wire); the `ticker` message writes the
 * mark into the registry and reaches onMarginTicker (and a listener without that method is fine);
 * a price_level_structure lifecycle message leaves a perpetual book alone; an off-tick delta breaks
 * the book OFF_GRID and asks for a snapshot.
 * Method: a Feed with venue 'margin' over a scripted FakeSession (test/feed/fakes.ts), frames
 * handed in as text.
 */

import { afterEach, describe, expect, it } from 'vitest';
import { ApplyStatus } from '../../src/book/index.ts';
import { PRICE_INVALID, TickGrid } from '../../src/core/index.ts';
import { Channel, Feed, NoopFeedListener, type FeedListener, type FeedOptions, type MarginTickerRecord } from '../../src/feed/index.ts';
import { FakeSession, RecordingLogger, TestClock, settle } from './fakes.ts';

const TICKER = 'KXBTCPERP';
const feeds: Feed[] = [];
afterEach(() => {
  for (const feed of feeds.splice(0)) feed.stop();
});

function setup(options: Partial<FeedOptions> = {}, listener: FeedListener = new NoopFeedListener()) {
  const clock = new TestClock();
  let session: FakeSession | null = null;
  const feed = new Feed({
    url: 'ws://127.0.0.1:9/trade-api/ws/v2/margin',
    venue: 'margin',
    auth: null,
    listener,
    logger: new RecordingLogger(),
    clock: { nowMs: clock.nowMs },
    createSession: (sessionOptions) => (session = new FakeSession(sessionOptions)),
    ...options,
  });
  feeds.push(feed);
  const book = feed.addPerpMarket(TICKER, 100);
  return { feed, book, session: session! };
}

async function sync(h: ReturnType<typeof setup>): Promise<Record<string, unknown>> {
  h.session.open();
  h.feed.subscribeOrderbooks([TICKER]);
  await settle();
  const [subscribe] = h.session.take();
  h.feed.handleFrame(JSON.stringify({ id: subscribe.id, type: 'subscribed', msg: { channel: 'orderbook_delta', sid: 1 } }));
  h.feed.handleFrame(JSON.stringify({ type: 'orderbook_snapshot', sid: 1, seq: 1, msg: { market_ticker: TICKER, bid: [['99.9900', '3.00']], ask: [['100.0100', '5.00']] } }));
  return subscribe.params as Record<string, unknown>;
}

const delta = (seq: number, price: string, count: string, side: 'bid' | 'ask'): string =>
  JSON.stringify({ type: 'orderbook_delta', sid: 1, seq, msg: { market_ticker: TICKER, price, delta: count, side } });

describe('Feed with venue margin', () => {
  it('addPerpMarket registers a Margin market of its tick and a perpetual book', () => {
    const h = setup();
    const market = h.feed.markets.at(h.feed.markets.indexOf(TICKER))!;
    expect([market.exchange, market.tick]).toEqual(['margin', 100]);
    expect(h.book.perp).toBe(true);
    expect((h.book.grid as TickGrid).tick).toBe(100);
    expect(h.feed.books.get(TICKER)).toBe(h.book);
    expect(h.feed.decoder.venue).toBe('margin');
  });

  it('books snapshots and deltas with asks at their own price, never complemented (useYesPrice ignored)', async () => {
    const h = setup({ useYesPrice: true });
    const params = await sync(h);
    expect(params.use_yes_price).toBeUndefined();
    expect(h.book.synced).toBe(true);
    expect([h.book.bestBid(), h.book.bestBidSize(), h.book.bestAsk(), h.book.bestAskSize()]).toEqual([999_900, 300, 1_000_100, 500]);
    h.feed.handleFrame(delta(2, '100.0050', '2.00', 'ask')); // off the $0.01 tick
    expect(h.book.synced).toBe(false);
    expect(h.book.outOfSyncReason).toBe(ApplyStatus.OFF_GRID);
    h.feed.handleFrame(JSON.stringify({ type: 'orderbook_snapshot', sid: 1, seq: 3, msg: { market_ticker: TICKER, bid: [['99.9900', '3.00']], ask: [] } }));
    h.feed.handleFrame(delta(4, '100.0200', '2.00', 'ask'));
    h.feed.handleFrame(delta(5, '99.9900', '-1.00', 'bid'));
    expect([h.book.bestBid(), h.book.bestBidSize(), h.book.bestAsk(), h.book.bestAskSize()]).toEqual([999_900, 200, 1_000_200, 200]);
    expect(h.feed.counters.malformedFrames).toBe(0);
  });

  it('a ticker writes the mark into the registry and reaches onMarginTicker', async () => {
    const seen: number[] = [];
    class Listener extends NoopFeedListener {
      override onMarginTicker(record: MarginTickerRecord): void {
        seen.push(record.markPrice, record.lastPrice, record.marketIndex);
      }
    }
    const h = setup({}, new Listener());
    h.session.open();
    h.feed.subscribe(Channel.TICKER, [TICKER]);
    await settle();
    expect(h.session.take()[0].params).toMatchObject({ channels: ['ticker'], market_tickers: [TICKER] });
    const ticker = (mark?: string) =>
      JSON.stringify({
        type: 'ticker', sid: 4, seq: 1,
        msg: { market_ticker: TICKER, price: '100.0000', bid: '99.9900', ask: '100.0100', ts_ms: 5, ...(mark === undefined ? {} : { settlement_mark_price: { price: mark, ts_ms: 4 } }) },
      });
    h.feed.handleFrame(ticker('100.0500'));
    const index = h.feed.markets.indexOf(TICKER);
    expect(h.feed.markets.at(index)!.markPrice).toBe(1_000_500);
    expect(seen).toEqual([1_000_500, 1_000_000, index]);
    h.feed.handleFrame(ticker()); // no mark: the registry keeps the last one
    expect(h.feed.markets.at(index)!.markPrice).toBe(1_000_500);
    expect(seen.slice(3)).toEqual([PRICE_INVALID, 1_000_000, index]);
  });

  it('a listener without onMarginTicker is fine', () => {
    const ignore = (): void => {};
    const plain: FeedListener = {
      onBookUpdate: ignore, onBookOutOfSync: ignore, onBookResynced: ignore, onTrade: ignore, onFill: ignore, onUserOrder: ignore, onMarketPosition: ignore,
      onOrderGroupUpdate: ignore, onLifecycle: ignore, onRfq: ignore, onQuote: ignore, onError: ignore, onConnectionState: ignore,
    };
    const h = setup({}, plain);
    h.feed.handleFrame(JSON.stringify({ type: 'ticker', sid: 4, msg: { market_ticker: TICKER, price: '1.0000', bid: '0.0000', ask: '0.0000', ts_ms: 1, settlement_mark_price: { price: '2.0000' } } }));
    expect(h.feed.counters.listenerErrors).toBe(0);
    expect(h.feed.markets.at(h.feed.markets.indexOf(TICKER))!.markPrice).toBe(20_000);
  });

  it('lifecycle is not a Margin message; a perpetual book on a Predictions feed ignores regrids', async () => {
    const h = setup();
    await sync(h);
    const lifecycle = JSON.stringify({ type: 'market_lifecycle_v2', sid: 9, msg: { market_ticker: TICKER, event_type: 'price_level_structure_updated', price_level_structure: 'deci_cent' } });
    h.feed.handleFrame(lifecycle);
    expect(h.feed.counters.unknownTypes).toBe(1);
    const p = setup({ venue: 'predictions' });
    const grid = p.book.grid;
    let lifecycles = 0;
    p.feed.setListener(Object.assign(new NoopFeedListener(), { onLifecycle: () => void lifecycles++ }));
    p.feed.handleFrame(lifecycle);
    expect(lifecycles).toBe(1);
    expect(p.book.grid).toBe(grid);
    expect(p.feed.markets.at(p.feed.markets.indexOf(TICKER))!.grid).toBeNull(); // the registry is not regridded either
    expect(h.book.synced).toBe(true);
  });
});
