/**
 * The runtime's Margin hot path built by the runtime's one graph builder (src/runtime/trading-graph.ts),
 * the way Runtime builds it with margin.enabled: the Margin route handed over in `moreRoutes` with
 * `exchange: 'margin'` (the router picks it for a perpetual's orders), its reads as `marginReads`
 * (the OMS reconciles Margin orders with them), and the Margin feed (`marginFeed`, venue 'margin')
 * with a session stub that never connects: the driver hands frames to graph.marginFeed. The market
 * port registers the perpetual as Runtime's Margin look-up does (marginFeed.addPerpMarket,
 * gate.addMarginMarket, the registry's mark, the subaccount's Margin equity), from the bench's
 * stream instead of GET /margin/markets/{ticker}, then feeds the snapshot.
 *
 * Same options as bench/hot-path/wiring.ts (manual clock, silent logger, the tick-to-trade strategy
 * with the hot-path lane's settings); the risk config differs in one value only: a larger
 * maxOrderNotionalDollars, as a $100 contract's bid sits at the default $100 cap. Owns those
 * options only; measures nothing.
 */

import { ManualClock } from '../../src/core/index.ts';
import type { Price } from '../../src/core/index.ts';
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
import { REPO_DIR } from '../hot-path/wiring.ts';

export interface MarginPathOptions {
  ticker: string;
  /** The perpetual's tick, 1/10,000 $. */
  tick: number;
  /** The mark price written to the registry (as the ticker channel or GET /margin/markets does). */
  mark: Price;
  /** Margin equity of subaccount 0, centicents (gate.setMarginBalance). */
  equityCenticents: number;
  /** The Margin orderbook_snapshot frame (sid 1): fed when the strategy asks for the market. */
  snapshotFrame: string;
  /** The Margin route (moreRoutes, exchange 'margin') and the reads the OMS reconciles Margin orders with. */
  marginEntry: OrderEntry & OrderReads;
  /** The default (Predictions REST) route and its reads: present as in the runtime, unused here. */
  entry: OrderEntry & OrderReads;
  journalPath: string;
  mode: 'replace' | 'amend';
}

export interface MarginPath {
  clock: ManualClock;
  /** The Margin feed (venue 'margin'): the driver's frames go to its handleBytes. */
  feed: Feed;
  gate: RiskGate;
  oms: Oms;
  journal: Journal;
  probe: TickToTradeProbe;
  host: StrategyHost;
  graph: TradingGraph;
  book(): OrderBook;
  stop(): Promise<void>;
}

/** A session that never connects: frames come from the driver (the same stub as bench/hot-path/wiring.ts, which does not export it). */
function stubSession(): FeedSession {
  return { state: ConnectionState.CLOSED, isOpen: false, start() {}, stop() {}, send: () => false, reconnect() {}, onTick() {} };
}

export async function buildMarginPath(options: MarginPathOptions): Promise<MarginPath> {
  const config = validateConfig(
    {
      risk: { rateLimitTier: 'prime', maxOrderCount: '10.00', maxOrderNotionalDollars: '1000.00' },
      margin: { enabled: true },
      // The hot-path lane's strategy and settings; route 'rest' is the default route, which the
      // router turns into the market's exchange route (Margin) for a perpetual.
      strategies: [{ id: 't2t-margin', plugin: 'strategies/tick-to-trade.ts', subaccount: 0, markets: [options.ticker], route: 'rest', params: { mode: options.mode, trigger: 'every', offsetTicks: 10, size: '1.00' } }],
    },
    '<bench margin>',
    {},
  );
  const clock = new ManualClock(1_798_761_600_000);
  const entries = config.strategies as unknown as StrategyEntry[];
  let book: OrderBook | null = null;
  const graph: TradingGraph = new TradingGraph({
    config,
    clock,
    logger: createLogger({ level: 'silent', pretty: false }),
    entry: options.entry,
    reads: options.entry,
    moreRoutes: [{ name: 'margin', entry: options.marginEntry, exchange: 'margin' }],
    marginReads: options.marginEntry,
    exitTriggers: null,
    feed: { url: 'ws://127.0.0.1:1/unused', auth: null, createSession: stubSession },
    marginFeed: { url: 'ws://127.0.0.1:1/unused/margin', auth: null, createSession: stubSession },
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
          if (ticker !== options.ticker) throw new Error(`margin bench: unknown market ${ticker}`);
          const marginFeed = graph.marginFeed;
          if (marginFeed === null) throw new Error('margin bench: the graph has no Margin feed');
          book = marginFeed.addPerpMarket(ticker, options.tick);
          const handle = gate.addMarginMarket(ticker, options.tick, book, { open: true });
          gate.markets.registry.setMark(handle, options.mark);
          gate.setMarginBalance(0, options.equityCenticents);
          marginFeed.handleFrame(options.snapshotFrame);
          if (!book.synced) throw new Error('margin bench: the snapshot did not sync the perpetual book');
        }
      },
    }),
    orderGroups: null,
  });
  if (graph.marginFeed === null) throw new Error('margin bench: the graph has no Margin feed');
  const marginFeed = graph.marginFeed;
  await graph.host.start(entries);
  return {
    clock,
    feed: marginFeed,
    gate: graph.gate,
    oms: graph.oms,
    journal: graph.journal,
    probe: graph.probe,
    host: graph.host,
    graph,
    book: () => {
      if (book === null) throw new Error('margin bench: no book');
      return book;
    },
    stop: async () => {
      graph.host.halt();
      await graph.oms.stop();
    },
  };
}
