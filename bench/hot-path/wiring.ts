/**
 * The runtime's hot path built by the runtime's own graph builder (src/runtime/trading-graph.ts,
 * as the main job and the integration tests build it), with three options of its own: no sockets
 * (the feed session is a stub that never connects; order entry is the caller's, e.g.
 * SinkOrderEntry), a stepped clock (stepped-clock.ts), so the driver decides how much wall time passes between frames
 * (the rate budget refills, nothing goes stale), and markets registered from the bench's frames
 * instead of the venue's listing. With `margin` the market is a perpetual, built the way Runtime
 * builds margin.enabled (bench/margin): the Margin route in `moreRoutes` (exchange 'margin'; the
 * router picks it for the perpetual's orders), its reads as `marginReads`, the Margin feed with a
 * stub session, and the market registered as Runtime's Margin look-up does (addPerpMarket,
 * addMarginMarket, the mark, the subaccount's equity). Owns those options only; measures nothing.
 */

import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Price, PriceGrid } from '../../src/core/index.ts';
import type { OrderBook } from '../../src/book/index.ts';
import { ConnectionState } from '../../src/feed/index.ts';
import type { Feed, FeedSession } from '../../src/feed/index.ts';
import type { Journal, Oms, OrderEntry, OrderReads } from '../../src/oms/index.ts';
import type { RiskGate } from '../../src/risk/index.ts';
import { validateConfig } from '../../src/runtime/config.ts';
import type { TickToTradeProbe } from '../../src/runtime/tick-to-trade-probe.ts';
import { TradingGraph } from '../../src/runtime/trading-graph.ts';
import type { MarketPort, StrategyEntry, StrategyHost } from '../../src/strategy/index.ts';
import { createLogger } from '../../src/telemetry/index.ts';
import { SteppedClock } from './stepped-clock.ts';

export const REPO_DIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');

/** A perpetual on the Margin exchange instead of a Predictions market. */
export interface HotPathMargin {
  /** The perpetual's tick, 1/10,000 $. */
  tick: number;
  /** The mark price written to the registry (as the ticker channel or GET /margin/markets does). */
  mark: Price;
  /** Margin equity of subaccount 0, centicents (gate.setMarginBalance). */
  equityCenticents: number;
  /** The Margin route (moreRoutes, exchange 'margin') and the reads the OMS reconciles Margin orders with. */
  entry: OrderEntry & OrderReads;
}

export interface HotPathOptions {
  ticker: string;
  /** The Predictions market's grid (unused with `margin`). */
  grid: PriceGrid | null;
  /** The market's orderbook_snapshot frame (sid 1; a Margin one with `margin`): fed when the strategy asks for the market. */
  snapshotFrame: string;
  margin?: HotPathMargin | null;
  /** The default (REST) route and the reads reconciliation uses. */
  entry: OrderEntry & OrderReads;
  journalPath: string;
  mode: 'replace' | 'amend';
  /** A FIX route handed to the graph as moreRoutes (bench/fix), and the strategy's route: 'rest' by default. */
  fix?: OrderEntry | null;
  route?: 'rest' | 'fix';
  /** Steps of FRAME_MS the clock boxes before the run (stepped-clock.ts): as many as frames the driver runs; 0 by default. */
  clockSteps?: number;
}

/** How far the driver moves the clock per frame: the rate budget refills, nothing goes stale. */
export const FRAME_MS = 10;

export interface HotPath {
  clock: SteppedClock;
  /** The feed the market's frames go to (the Margin feed with `margin`). */
  feed: Feed;
  gate: RiskGate;
  oms: Oms;
  journal: Journal;
  probe: TickToTradeProbe;
  host: StrategyHost;
  /** The whole graph, built by the runtime's one graph builder. */
  graph: TradingGraph;
  book(): OrderBook;
  stop(): Promise<void>;
}

/** A session that never connects: frames come from the driver through feed.handleFrame. */
function stubSession(): FeedSession {
  return { state: ConnectionState.CLOSED, isOpen: false, start() {}, stop() {}, send: () => false, reconnect() {}, onTick() {} };
}

export async function buildHotPath(options: HotPathOptions): Promise<HotPath> {
  const margin = options.margin ?? null;
  const config = validateConfig(
    {
      // A $100 perpetual's one-contract bid sits at the default $100 order cap: Margin gets room.
      risk: { rateLimitTier: 'prime', maxOrderCount: '10.00', ...(margin === null ? {} : { maxOrderNotionalDollars: '1000.00' }) },
      ...(margin === null ? {} : { margin: { enabled: true } }),
      // With `margin` route 'rest' is the default route, which the router turns into the market's (Margin) route.
      strategies: [{ id: 't2t', plugin: 'strategies/tick-to-trade.ts', subaccount: 0, markets: [options.ticker], route: options.route ?? 'rest', params: { mode: options.mode, trigger: 'every', offsetTicks: 10, size: '1.00', maxIntents: 100_000_000 } }],
    },
    '<bench hot-path>',
    {},
  );
  const clock = new SteppedClock(1_798_761_600_000, FRAME_MS, options.clockSteps ?? 0);
  const entries = config.strategies as unknown as StrategyEntry[];
  let book: OrderBook | null = null;
  const graph: TradingGraph = new TradingGraph({
    config,
    clock,
    logger: createLogger({ level: 'silent', pretty: false }),
    entry: options.entry,
    reads: options.entry,
    moreRoutes: [
      ...(options.fix === undefined || options.fix === null ? [] : [{ name: 'fix', entry: options.fix }]),
      ...(margin === null ? [] : [{ name: 'margin', entry: margin.entry, exchange: 'margin' as const }]),
    ],
    marginReads: margin?.entry ?? null,
    feed: { url: 'ws://127.0.0.1:1/unused', auth: null, createSession: stubSession },
    marginFeed: margin === null ? null : { url: 'ws://127.0.0.1:1/unused/margin', auth: null, createSession: stubSession },
    journalPath: options.journalPath,
    recovered: null,
    strategies: entries,
    restrictedSubaccount: -1,
    clientOrderIdPrefix: 'rt',
    rootDir: REPO_DIR,
    markets: ({ gate, feed }): MarketPort => ({
      marketHandle: (ticker) => gate.marketHandle(ticker),
      book: (ticker) => feed.books.get(ticker) ?? graph.marginFeed?.books.get(ticker),
      ensureMarkets: async (tickers) => {
        for (const ticker of tickers) {
          if (gate.marketHandle(ticker) >= 0) continue;
          if (ticker !== options.ticker) throw new Error(`hot-path bench: unknown market ${ticker}`);
          const marginFeed = graph.marginFeed;
          if (margin !== null && marginFeed !== null) {
            book = marginFeed.addPerpMarket(ticker, margin.tick);
            const handle = gate.addMarginMarket(ticker, margin.tick, book, { open: true });
            gate.markets.registry.setMark(handle, margin.mark);
            gate.setMarginBalance(0, margin.equityCenticents);
            marginFeed.handleFrame(options.snapshotFrame);
          } else {
            book = feed.addMarket(ticker, options.grid!);
            gate.addMarket(ticker, options.grid!, book, { open: true });
            feed.handleFrame(options.snapshotFrame);
          }
          if (!book.synced) throw new Error('hot-path bench: the snapshot did not sync the book');
        }
      },
    }),
    orderGroups: null,
  });
  await graph.host.start(entries);
  return {
    clock,
    feed: graph.marginFeed ?? graph.feed,
    gate: graph.gate,
    oms: graph.oms,
    journal: graph.journal,
    probe: graph.probe,
    host: graph.host,
    graph,
    book: () => {
      if (book === null) throw new Error('hot-path bench: no book');
      return book;
    },
    stop: async () => {
      graph.host.halt();
      await graph.oms.stop();
    },
  };
}
