/**
 * The runtime's hot path for the fix suite, built by the runtime's one graph builder
 * (src/runtime/trading-graph.ts) exactly as bench/hot-path/wiring.ts builds it (no sockets on the
 * feed side, a manual clock, markets from the bench's frames, the tick-to-trade strategy), with one
 * difference: the strategy's config entry names its route ('rest' or 'fix'), and the FIX route is
 * handed to the graph as `moreRoutes`, as src/runtime/runtime.ts does. A copy of that file's
 * options rather than an edit of it (another suite's file). Measures nothing.
 */

import { ManualClock } from '../../src/core/index.ts';
import type { PriceGrid } from '../../src/core/index.ts';
import type { OrderBook } from '../../src/book/index.ts';
import { ConnectionState } from '../../src/feed/index.ts';
import type { FeedSession } from '../../src/feed/index.ts';
import type { OrderEntry, OrderReads } from '../../src/oms/index.ts';
import { validateConfig } from '../../src/runtime/config.ts';
import { TradingGraph } from '../../src/runtime/trading-graph.ts';
import type { MarketPort, StrategyEntry } from '../../src/strategy/index.ts';
import { createLogger } from '../../src/telemetry/index.ts';
import { REPO_DIR } from '../child-process.ts';

export interface RoutePathOptions {
  ticker: string;
  grid: PriceGrid;
  /** The market's orderbook_snapshot frame (sid 1): fed when the strategy asks for the market. */
  snapshotFrame: string;
  /** The default (REST) route and the reads reconciliation uses. */
  rest: OrderEntry & OrderReads;
  /** The FIX route, or null: then the strategy's route must be 'rest'. */
  fix: OrderEntry | null;
  route: 'rest' | 'fix';
  journalPath: string;
}

export interface RoutePath {
  clock: ManualClock;
  graph: TradingGraph;
  stop(): Promise<void>;
}

/** A session that never connects: frames come from the driver through feed.handleBytes. */
function stubSession(): FeedSession {
  return { state: ConnectionState.CLOSED, isOpen: false, start() {}, stop() {}, send: () => false, reconnect() {}, onTick() {} };
}

export async function buildRoutePath(options: RoutePathOptions): Promise<RoutePath> {
  const config = validateConfig(
    {
      risk: { rateLimitTier: 'prime', maxOrderCount: '10.00' },
      strategies: [{
        id: `t2t-${options.route}`, plugin: 'strategies/tick-to-trade.ts', subaccount: 0, markets: [options.ticker], route: options.route,
        params: { mode: 'replace', trigger: 'every', offsetTicks: 10, size: '1.00' },
      }],
    },
    '<bench fix>',
    {},
  );
  const clock = new ManualClock(1_798_761_600_000);
  const entries = config.strategies as unknown as StrategyEntry[];
  const graph = new TradingGraph({
    config,
    clock,
    logger: createLogger({ level: 'silent', pretty: false }),
    entry: options.rest,
    reads: options.rest,
    moreRoutes: options.fix === null ? [] : [{ name: 'fix', entry: options.fix }],
    feed: { url: 'ws://127.0.0.1:1/unused', auth: null, createSession: stubSession },
    journalPath: options.journalPath,
    recovered: null,
    strategies: entries,
    restrictedSubaccount: -1,
    clientOrderIdPrefix: 'rt',
    rootDir: REPO_DIR,
    markets: ({ gate, feed }): MarketPort => ({
      marketHandle: (ticker) => gate.marketHandle(ticker),
      book: (ticker) => feed.books.get(ticker),
      ensureMarkets: async (tickers) => {
        for (const ticker of tickers) {
          if (gate.marketHandle(ticker) >= 0) continue;
          if (ticker !== options.ticker) throw new Error(`fix bench: unknown market ${ticker}`);
          const book: OrderBook = feed.addMarket(ticker, options.grid);
          gate.addMarket(ticker, options.grid, book, { open: true });
          feed.handleFrame(options.snapshotFrame);
          if (!book.synced) throw new Error('fix bench: the snapshot did not sync the book');
        }
      },
    }),
    orderGroups: null,
  });
  await graph.host.start(entries);
  return {
    clock,
    graph,
    stop: async () => {
      graph.host.halt();
      await graph.oms.stop();
    },
  };
}
