/**
 * Goal: the sample market maker (strategies/market-maker.ts) quotes post-only around the mid or a
 * fair value at the configured half-spread on the grid, skews against the position, stops the side
 * that would breach maxPosition, requotes by amend only when the target moved by requoteTicks,
 * and pulls its quotes when the book goes out of sync.
 * Method: the plugin's default export, params validated by the real loader, run against a
 * BoundStrategyContext over the real RiskGate and real books with a fake OMS (fake-ports.ts);
 * assertions read the requests that reached the OMS.
 */

import { describe, expect, it } from 'vitest';
import { ApplyStatus } from '../../src/book/index.ts';
import { BoundStrategyContext, validateParams } from '../../src/strategy/index.ts';
import type { Strategy } from '../../src/strategy/index.ts';
import { createLogger } from '../../src/telemetry/index.ts';
import plugin, { MarketMaker } from '../../strategies/market-maker.ts';
import { FakeOrder, harness, setBook } from './fake-ports.ts';
import { OrderState } from '../../src/strategy/index.ts';
import { IntentKind } from '../../src/core/index.ts';

const TICKER = 'KXMM-1';

function setup(params: Record<string, unknown>) {
  const h = harness();
  const book = h.markets.addBook(TICKER);
  setBook(book, [['0.4000', '10']], [['0.4500', '10']]);
  const entry = { id: 'mm', plugin: 'strategies/market-maker.ts', subaccount: 0, orderGroup: null, markets: [TICKER], params };
  const validated = validateParams(entry, plugin);
  const strategy = plugin.create(validated) as Strategy & MarketMaker;
  const ctx = new BoundStrategyContext(
    { id: 'mm', strategyId: 1, subaccount: 0, orderGroup: -1, markets: [TICKER], params: validated as unknown as Record<string, unknown>, log: createLogger({ level: 'silent' }) },
    h.oms, h.markets, h.clock,
  );
  ctx.setActive(true);
  return { ...h, book, ctx, strategy };
}

/** The maker on `count` markets KXMM-0.. (each book 0.40 / 0.45) with a budget that never runs out. */
function setupMany(count: number, params: Record<string, unknown> = {}) {
  const h = harness({ rateTier: 'custom', writeTokensPerSecond: 1_000_000, writeCapacityTokens: 1_000_000, readTokensPerSecond: 1_000_000 });
  const tickers = Array.from({ length: count }, (_, i) => `KXMM-${i}`);
  for (const ticker of tickers) setBook(h.markets.addBook(ticker), [['0.4000', '10']], [['0.4500', '10']]);
  const entry = { id: 'mm', plugin: 'strategies/market-maker.ts', subaccount: 0, orderGroup: null, markets: tickers, params: { halfSpreadTicks: 1, size: '1.00', ...params } };
  const validated = validateParams(entry, plugin);
  const strategy = plugin.create(validated) as Strategy & MarketMaker;
  const ctx = new BoundStrategyContext(
    { id: 'mm', strategyId: 1, subaccount: 0, orderGroup: -1, markets: tickers, params: validated as unknown as Record<string, unknown>, log: createLogger({ level: 'silent' }) },
    h.oms, h.markets, h.clock,
  );
  ctx.setActive(true);
  return { h, tickers, strategy, ctx };
}

const news = <T extends { kind: number }>(sent: T[]): T[] => sent.filter((record) => record.kind === IntentKind.NEW);
/** A quote's id: the fake ports give orders no handle, so the maker keeps their text. */
const text = (ref: string | number): string => {
  expect(typeof ref).toBe('string');
  return ref as string;
};

describe('market-maker plugin', () => {
  it('quotes a post-only bid and ask around the mid at the half-spread', () => {
    const { strategy, ctx, oms } = setup({ halfSpreadTicks: 1, size: '2.00' });
    strategy.onStart?.(ctx);
    expect(news(oms.sent).map((r) => [r.side, r.price])).toEqual([['bid', 4100], ['ask', 4400]]);
    expect(oms.sent.every((r) => r.postOnly && r.count === 200 && r.timeInForce === 'good_till_canceled')).toBe(true);
  });

  it('never crosses the touch: quotes stay at least one tick inside the other side', () => {
    const { strategy, ctx, oms, book } = setup({ halfSpreadTicks: 3, fairValue: '0.5000' });
    strategy.onBook(book, ctx);
    // Fair 0.50 +/- 3 ticks = 0.47 / 0.53, but the bid must stay under the best ask 0.45.
    expect(news(oms.sent).map((r) => r.price)).toEqual([4400, 5300]);
  });

  it('skews both quotes against a long position and stops bidding at max position', () => {
    const { strategy, ctx, oms, book } = setup({ halfSpreadTicks: 1, fairValue: '0.4200', maxPosition: '10.00', skewTicksAtMaxPosition: 2, size: '1.00' });
    oms.setPosition(0, TICKER, 500); // half of max: shift -1 tick
    strategy.onBook(book, ctx);
    expect(news(oms.sent).map((r) => [r.side, r.price])).toEqual([['bid', 4000], ['ask', 4200]]);
    const h2 = setup({ halfSpreadTicks: 1, fairValue: '0.4200', maxPosition: '10.00', skewTicksAtMaxPosition: 2, size: '1.00' });
    h2.oms.setPosition(0, TICKER, 1000); // at max: a bid fill would exceed it
    h2.strategy.onBook(h2.book, h2.ctx);
    expect(news(h2.oms.sent).map((r) => r.side)).toEqual(['ask']);
    const h3 = setup({ halfSpreadTicks: 1, fairValue: '0.4200', maxPosition: '10.00', size: '1.00' });
    h3.oms.setPosition(0, TICKER, -1000);
    h3.strategy.onBook(h3.book, h3.ctx);
    expect(news(h3.oms.sent).map((r) => r.side)).toEqual(['bid']);
  });

  it('requotes by amend only when the target moves by requoteTicks, and never while a request is in flight', () => {
    const { strategy, ctx, oms, book } = setup({ halfSpreadTicks: 1, requoteTicks: 2 });
    strategy.onBook(book, ctx);
    expect(oms.sent).toHaveLength(2);
    // In flight: nothing more is sent.
    strategy.onBook(book, ctx);
    expect(oms.sent).toHaveLength(2);
    oms.ackAll();
    // Mid moves by one tick (0.40/0.46 -> center 43): target bid 0.42 vs 0.41, under requoteTicks.
    setBook(book, [['0.4000', '10']], [['0.4600', '10']]);
    strategy.onBook(book, ctx);
    expect(oms.sent).toHaveLength(2);
    // Mid moves by two ticks.
    setBook(book, [['0.4200', '10']], [['0.4700', '10']]);
    strategy.onBook(book, ctx);
    const amends = oms.sent.filter((r) => r.kind === IntentKind.AMEND);
    expect(amends.map((r) => [r.side, r.price])).toEqual([['bid', 4300], ['ask', 4600]]);
  });

  it('pulls both quotes when the book goes out of sync and quotes again after the resync', () => {
    const { strategy, ctx, oms, book } = setup({ halfSpreadTicks: 1 });
    strategy.onBook(book, ctx);
    oms.ackAll();
    book.breakSync(ApplyStatus.SEQ_GAP);
    strategy.onBookOutOfSync?.(book, ctx);
    const cancels = oms.sent.filter((r) => r.kind === IntentKind.CANCEL);
    expect(cancels).toHaveLength(2);
    oms.ackAll();
    // A book update while out of sync (e.g. a timer) sends nothing new.
    strategy.onTimer?.(0, ctx);
    expect(news(oms.sent)).toHaveLength(2);
    setBook(book, [['0.4000', '10']], [['0.4500', '10']]);
    strategy.onBook(book, ctx);
    expect(news(oms.sent)).toHaveLength(4);
  });

  it('replaces a quote that closed (filled) and requotes on fills', () => {
    const { strategy, ctx, oms, book } = setup({ halfSpreadTicks: 1, size: '1.00', maxPosition: '5.00' });
    strategy.onBook(book, ctx);
    oms.ackAll();
    const { bid } = strategy.quoteIds(TICKER);
    const filled = oms.fill(text(bid), 100);
    strategy.onOrderUpdate?.(filled, ctx);
    const bids = news(oms.sent).filter((r) => r.side === 'bid');
    expect(bids).toHaveLength(2);
    expect(strategy.quoteIds(TICKER).bid).not.toBe(bid);
  });

  it('after a venue reject, places no new quote until rejectBackoffMs has passed (no reject loop)', () => {
    const { strategy, ctx, oms, book, clock } = setup({ halfSpreadTicks: 1, size: '1.00', rejectBackoffMs: 500 });
    strategy.onBook(book, ctx);
    expect(news(oms.sent)).toHaveLength(2);
    const { bid } = strategy.quoteIds(TICKER);
    const rejected = oms.order(text(bid)) as FakeOrder;
    rejected.state = OrderState.REJECTED; // e.g. market_closed at the venue
    strategy.onOrderUpdate?.(rejected, ctx);
    for (let i = 0; i < 5; i++) strategy.onBook(book, ctx);
    expect(news(oms.sent)).toHaveLength(2);
    clock.advance(499);
    strategy.onTimer?.(clock.nowMs(), ctx);
    expect(news(oms.sent)).toHaveLength(2);
    clock.advance(1);
    strategy.onTimer?.(clock.nowMs(), ctx);
    expect(news(oms.sent).filter((r) => r.side === 'bid')).toHaveLength(2);
  });

  it('on 1,000 markets, each timer call re-checks a bounded number: 64 in turn and up to 64 missing a quote; all are quoted in turn', () => {
    const { h, tickers, strategy, ctx } = setupMany(1_000, { rejectBackoffMs: 500 });
    const oms = h.oms;
    strategy.onTimer?.(h.clock.nowMs(), ctx);
    expect(news(oms.sent)).toHaveLength(128); // 64 markets, a bid and an ask each
    expect(new Set(news(oms.sent).map((r) => r.ticker)).size).toBe(64);
    for (let call = 1; call < 15; call++) strategy.onTimer?.(h.clock.nowMs(), ctx);
    expect(news(oms.sent)).toHaveLength(2 * 15 * 64);
    strategy.onTimer?.(h.clock.nowMs(), ctx); // the last 40, then the first 24 again (quoted already)
    expect(news(oms.sent)).toHaveLength(2_000);
    expect(new Set(news(oms.sent).map((r) => `${r.ticker} ${r.side}`)).size).toBe(2_000);
    // 100 quotes rejected: after the backoff, the missing pass re-quotes 64 on the next call, the rest on the one after.
    for (const ticker of tickers.slice(500, 600)) {
      const rejected = oms.order(text(strategy.quoteIds(ticker).bid)) as FakeOrder;
      rejected.state = OrderState.REJECTED;
      strategy.onOrderUpdate?.(rejected, ctx);
    }
    h.clock.advance(500);
    strategy.onTimer?.(h.clock.nowMs(), ctx);
    expect(news(oms.sent).length - 2_000).toBeGreaterThanOrEqual(64);
    expect(news(oms.sent).length - 2_000).toBeLessThanOrEqual(64 + 64);
    strategy.onTimer?.(h.clock.nowMs(), ctx);
    const requoted = news(oms.sent).slice(2_000);
    expect(new Set(requoted.filter((r) => r.side === 'bid').map((r) => r.ticker))).toEqual(new Set(tickers.slice(500, 600)));
  });

  it("hears books only when a best price moves ('bestPrice'); a move that met an amend in flight is caught up at the next change or by the timer", () => {
    expect(plugin.bookUpdates).toBe('bestPrice');
    const { h, tickers, strategy, ctx } = setupMany(100); // above the timer's all-markets walk (64)
    strategy.onStart?.(ctx);
    h.oms.ackAll();
    const book = h.markets.books.get('KXMM-70')!;
    const amendsOf = () => h.oms.sent.filter((r) => r.kind === IntentKind.AMEND && r.ticker === 'KXMM-70').map((r) => [r.side, r.price]);
    setBook(book, [['0.4200', '10']], [['0.4700', '10']]); // center 0.445: bid 0.43, ask 0.46
    strategy.onBook(book, ctx);
    expect(amendsOf()).toEqual([['bid', 4300], ['ask', 4600]]);
    // The book moves again while both amends are in flight: nothing is sent, and no later update comes.
    setBook(book, [['0.4500', '10']], [['0.5000', '10']]); // center 0.475: bid 0.46, ask 0.49
    strategy.onBook(book, ctx);
    expect(amendsOf()).toHaveLength(2);
    expect(ctx.nextBookWanted.has('KXMM-70')).toBe(true); // the book's next change reaches it, top moved or not
    h.oms.ackAll();
    // Every market has both quotes; the timer's missing pass picks the one left behind its target.
    strategy.onTimer?.(h.clock.nowMs(), ctx);
    expect(amendsOf()).toEqual([['bid', 4300], ['ask', 4600], ['bid', 4600], ['ask', 4900]]);
  });

  it('does not quote a one-sided book without a fair value', () => {
    const { strategy, ctx, oms, book } = setup({});
    setBook(book, [['0.4000', '10']], []);
    strategy.onBook(book, ctx);
    expect(oms.sent).toHaveLength(0);
  });

  it('rejects params outside its schema, naming the strategy and the path', () => {
    const entry = { id: 'mm-bad', plugin: 'strategies/market-maker.ts', subaccount: 0, orderGroup: null, markets: [TICKER], params: { halfSpreadTicks: -1, size: 3, bogus: true } };
    expect(() => validateParams(entry, plugin)).toThrowError(/strategies\[mm-bad\]\.params\/halfSpreadTicks: must be >= 0/);
    try {
      validateParams(entry, plugin);
    } catch (error) {
      const problems = (error as { problems: string[]; code: string }).problems;
      expect((error as { code: string }).code).toBe('STRATEGY_PARAMS_INVALID');
      expect(problems).toContain('strategies[mm-bad].params/bogus: is not a parameter of this plugin');
      expect(problems).toContain('strategies[mm-bad].params/size: must be string');
    }
  });
});
