/**
 * The runtime's hot path wired as src/runtime/runtime.ts wires it - Feed (with its BookStore and
 * HopRecord), RiskGate (check wrapped for the probe's verdict stamp, as the runtime does), Oms with
 * its Journal, ObservedOrderEntry, OmsOrderPort, OrderUpdates, RuntimeFeedListener, StrategyHost
 * running strategies/tick-to-trade.ts, TickToTradeProbe - with two differences: no sockets (the feed
 * session is a stub that never connects; order entry is the caller's, e.g. SinkOrderEntry) and a
 * manual clock, so the driver decides how much wall time passes between frames (the rate budget
 * refills, nothing goes stale). The runtime's classes are used as they are, never copied.
 * Owns the wiring only; measures nothing.
 */

import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { ManualClock } from '../../src/core/index.ts';
import type { PriceGrid } from '../../src/core/index.ts';
import type { OrderBook } from '../../src/book/index.ts';
import type { OrderEntry } from '../../src/exec/index.ts';
import { Feed } from '../../src/feed/index.ts';
import { ConnectionState } from '../../src/feed/index.ts';
import type { FeedSession } from '../../src/feed/index.ts';
import { Journal, Oms } from '../../src/oms/index.ts';
import { RiskGate, TradingState } from '../../src/risk/index.ts';
import { validateConfig } from '../../src/runtime/config.ts';
import { ObservedOrderEntry } from '../../src/runtime/observed-order-entry.ts';
import { OmsOrderPort } from '../../src/runtime/oms-order-port.ts';
import { OrderUpdates } from '../../src/runtime/order-updates.ts';
import { RuntimeFeedListener } from '../../src/runtime/runtime-feed-listener.ts';
import { limitsFromConfig } from '../../src/runtime/runtime.ts';
import { TickToTradeProbe } from '../../src/runtime/tick-to-trade-probe.ts';
import { StrategyHost } from '../../src/strategy/index.ts';
import type { MarketPort, StrategyEntry } from '../../src/strategy/index.ts';
import { createLogger } from '../../src/telemetry/index.ts';

export const REPO_DIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');

export interface HotPathOptions {
  ticker: string;
  grid: PriceGrid;
  /** The market's orderbook_snapshot frame (sid 1): fed when the strategy asks for the market. */
  snapshotFrame: string;
  entry: OrderEntry;
  journalPath: string;
  mode: 'replace' | 'amend';
}

export interface HotPath {
  clock: ManualClock;
  feed: Feed;
  gate: RiskGate;
  oms: Oms;
  journal: Journal;
  probe: TickToTradeProbe;
  host: StrategyHost;
  book(): OrderBook;
  stop(): Promise<void>;
}

/** A session that never connects: frames come from the driver through feed.handleFrame. */
function stubSession(): FeedSession {
  return { state: ConnectionState.CLOSED, isOpen: false, start() {}, stop() {}, send: () => false, reconnect() {}, onTick() {} };
}

export async function buildHotPath(options: HotPathOptions): Promise<HotPath> {
  const config = validateConfig(
    {
      risk: { rateLimitTier: 'prime', maxOrderCount: '10.00' },
      strategies: [{ id: 't2t', plugin: 'strategies/tick-to-trade.ts', subaccount: 0, markets: [options.ticker], params: { mode: options.mode, trigger: 'every', offsetTicks: 10, size: '1.00' } }],
    },
    '<bench hot-path>',
    {},
  );
  const clock = new ManualClock(1_798_761_600_000);
  const log = createLogger({ level: 'silent', pretty: false });
  const probe = new TickToTradeProbe();
  const updates = new OrderUpdates();

  const gate = new RiskGate({ limits: limitsFromConfig(config, -1), clock });
  gate.setTradingState(TradingState.ACTIVE);
  // As runtime.ts: the probe stamps the verdict of the gate's check; one wrapper, bound once.
  const check = gate.check.bind(gate);
  gate.check = (intent) => {
    const deny = check(intent);
    probe.onVerdict();
    return deny;
  };

  const feed = new Feed({ url: 'ws://127.0.0.1:1/unused', auth: null, logger: log, clock, createSession: stubSession });
  const entry = new ObservedOrderEntry(options.entry, probe, updates);
  const journal = new Journal(options.journalPath);
  const oms = new Oms({ gate, entry, clock, clientOrderIdPrefix: 'rt', journal, recovered: null, logger: log, subaccounts: [0], onOrderChange: (order) => updates.noteChange(order) });
  entry.setOrderLookup(oms);
  const port = new OmsOrderPort(oms, gate, probe, updates);
  const listener = new RuntimeFeedListener(feed.hop, oms, gate, probe, updates, log);
  feed.setListener(listener);

  let book: OrderBook | null = null;
  const markets: MarketPort = {
    marketHandle: (ticker) => gate.marketHandle(ticker),
    book: (ticker) => feed.books.get(ticker),
    ensureMarkets: async (tickers) => {
      for (const ticker of tickers) {
        if (gate.marketHandle(ticker) >= 0) continue;
        if (ticker !== options.ticker) throw new Error(`hot-path bench: unknown market ${ticker}`);
        book = feed.addMarket(ticker, options.grid);
        gate.addMarket(ticker, options.grid, book, { open: true });
        feed.setMarketOpen(ticker, true);
        feed.handleFrame(options.snapshotFrame);
        if (!book.synced) throw new Error('hot-path bench: the snapshot did not sync the book');
      }
    },
  };
  const host = new StrategyHost({ ports: { orders: port, markets, orderGroups: null, clock, logger: log }, rootDir: REPO_DIR });
  updates.setSink(host);
  listener.setHost(host);
  const entries = config.strategies as unknown as StrategyEntry[];
  await host.start(entries);
  return {
    clock,
    feed,
    gate,
    oms,
    journal,
    probe,
    host,
    book: () => {
      if (book === null) throw new Error('hot-path bench: no book');
      return book;
    },
    stop: async () => {
      host.halt();
      await oms.stop();
    },
  };
}
