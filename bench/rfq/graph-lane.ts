/**
 * Our maker lanes of the rfq suite: the runtime's one graph (src/runtime/trading-graph.ts) built as
 * src/runtime/runtime.ts builds it for the main job, against the simulator, with the rfq-maker
 * plugin (strategies/rfq-maker.ts) quoting every RFQ on the one market:
 *
 *   - default route RestOrderEntry with the config's signing ('presigned' by default: its worker
 *     and rings start on connect), the AccountClient for the OMS's reads, both as Runtime makes them;
 *   - quoteEntry 'rest': RestQuoteRoute with the Runtime's venue-client settings, its creates signed
 *     from the REST route's presigner (presigner: () => rest.presigner; the REST route keeps a ring
 *     for POST /communications/quotes: presign.extraEndpoints [RestQuoteRoute.presignEndpoint], as
 *     Runtime asks it when rfq is enabled) and written on its raw socket, and RFQs from the
 *     WebSocket's `communications` channel;
 *   - quoteEntry 'fix': FixQuoteRoute on the simulator's KalshiRFQ port, its RFQs (35=R) into the
 *     graph's feed listener (setRfqListener(graph.listener)); `communications` is not subscribed, so
 *     each RFQ reaches the lane once. Its reconciliation reads are the REST route's list.
 *
 * Books come from the WebSocket in both (orderbook_delta on the market, as Runtime's market port
 * subscribes them). Workers (candles, portfolio risk) are off: the bench measures the RFQ path.
 * Wiring only; measures nothing.
 */

import { mkdirSync } from 'node:fs';
import path from 'node:path';
import type { KeyObject } from 'node:crypto';
import { systemClock } from '../../src/core/index.ts';
import { Channel } from '../../src/feed/index.ts';
import {
  ACCOUNT_CLIENT_DEFAULTS, AccountClient, FIX_QUOTE_ROUTE_DEFAULTS, FixQuoteRoute, REST_ORDER_ENTRY_DEFAULTS, REST_QUOTE_ROUTE_DEFAULTS,
  RestOrderEntry, RestQuoteRoute,
} from '../../src/exec/index.ts';
import { QuoteState } from '../../src/oms/index.ts';
import { validateConfig } from '../../src/runtime/config.ts';
import { fetchMarket } from '../../src/runtime/market-directory.ts';
import { TradingGraph } from '../../src/runtime/trading-graph.ts';
import { KeepWarm } from '../../src/runtime/keep-warm.ts';
import type { StrategyEntry } from '../../src/strategy/index.ts';
import { createLogger } from '../../src/telemetry/index.ts';

export interface GraphLaneOptions {
  route: 'rest' | 'fix';
  ticker: string;
  restUrl: string; // with /trade-api/v2
  wsUrl: string;
  keyId: string;
  privateKey: KeyObject;
  /** KalshiRFQ endpoint (route 'fix'). */
  fix: { host: string; port: number } | null;
  journalPath: string;
  rootDir: string;
  /** The simulator's tier of this key (the gate budgets the quote creates as the venue does). */
  rateLimitTier: string;
}

export interface GraphLane {
  graph: TradingGraph;
  restRoute: RestQuoteRoute;
  fixRoute: FixQuoteRoute | null;
  /** process.hrtime.bigint() when the graph called the quote route's create, by RFQ id. */
  createCalls: ReadonlyMap<string, bigint>;
  /** Our quotes by state name (the quote book's view at the time of asking). */
  quoteStates(): Record<string, number>;
  /** The presigner's counters (taken, empty ...) as a note, or '' without one. */
  signingNote(): string;
  stop(): Promise<void>;
}

const STATE_NAMES = Object.fromEntries(Object.entries(QuoteState).map(([name, value]) => [value, name.toLowerCase()])) as Record<number, string>;

const pause = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

async function waitFor(check: () => boolean, timeoutMs: number, what: string): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`bench rfq: timed out waiting for ${what}`);
    await pause(10);
  }
}

export async function startGraphLane(options: GraphLaneOptions): Promise<GraphLane> {
  const config = validateConfig(
    {
      risk: { rateLimitTier: options.rateLimitTier },
      rfq: { enabled: true, maxOpenQuotes: 100, route: options.route },
      workers: { enabled: false },
      strategies: [{
        id: `rfq-${options.route}`, plugin: 'strategies/rfq-maker.ts', subaccount: 0, orderGroup: null, markets: [options.ticker],
        params: { edge: '0.0200', maxContracts: '100.00', maxOpenQuotes: 100, postOnly: true },
      }],
    },
    `<bench rfq ${options.route}>`,
    {},
  );
  const clock = systemClock;
  mkdirSync(path.dirname(options.journalPath), { recursive: true });
  // As Runtime's constructor: the REST route (its presigner), the off-path venue client settings.
  const rest = new RestOrderEntry({
    ...REST_ORDER_ENTRY_DEFAULTS,
    baseUrl: options.restUrl,
    keyId: options.keyId,
    privateKey: options.privateKey,
    clock,
    connections: config.exec.connections,
    headersTimeoutMs: config.exec.requestTimeoutMs,
    bodyTimeoutMs: config.exec.requestTimeoutMs,
    signing: config.exec.signing,
    presign: {
      ...REST_ORDER_ENTRY_DEFAULTS.presign, createCapacity: config.exec.presignPoolSize, batchCapacity: config.exec.presignPoolSize,
      workerNice: config.exec.presignWorkerNice === 0 ? null : config.exec.presignWorkerNice,
      extraEndpoints: [RestQuoteRoute.presignEndpoint],
    },
  });
  const venueClient = {
    baseUrl: options.restUrl,
    keyId: options.keyId,
    privateKey: options.privateKey,
    clock,
    headersTimeoutMs: config.exec.requestTimeoutMs,
    bodyTimeoutMs: config.exec.requestTimeoutMs,
    presigner: () => rest.presigner,
  };
  const account = new AccountClient({ ...ACCOUNT_CLIENT_DEFAULTS, ...venueClient });
  const restRoute = new RestQuoteRoute({ ...REST_QUOTE_ROUTE_DEFAULTS, ...venueClient, restRemainder: config.rfq.restRemainder });
  const fixRoute = options.route === 'fix' && options.fix !== null
    ? new FixQuoteRoute({
        ...FIX_QUOTE_ROUTE_DEFAULTS, host: options.fix.host, port: options.fix.port, tls: null, keyId: options.keyId, privateKey: options.privateKey,
        clock, heartbeatIntervalS: config.venue.fix.heartbeatIntervalS, requestTimeoutMs: config.exec.requestTimeoutMs,
        restRemainder: config.rfq.restRemainder, reads: restRoute,
      })
    : null;
  if (options.route === 'fix' && fixRoute === null) throw new Error('bench rfq: the FIX lane needs the KalshiRFQ endpoint');
  // When the graph hands each quote to its route, by RFQ id (first call wins): the suite's "of which"
  // row, so the time inside the graph and the route's own time (signing, dispatch) can be told apart.
  // One hrtime read and a Map lookup per quote, inside the measured window.
  const quoteEntry = fixRoute ?? restRoute;
  const createCalls = new Map<string, bigint>();
  const create = quoteEntry.create.bind(quoteEntry);
  quoteEntry.create = (quote) => {
    const at = process.hrtime.bigint();
    if (!createCalls.has(quote.rfqId)) createCalls.set(quote.rfqId, at);
    create(quote);
  };
  const entries = config.strategies as unknown as StrategyEntry[];
  const graph = new TradingGraph({
    config,
    clock,
    logger: createLogger({ level: 'silent', pretty: false }),
    entry: rest,
    reads: account,
    quoteEntry,
    feed: { url: options.wsUrl, auth: { keyId: options.keyId, privateKey: options.privateKey } },
    journalPath: options.journalPath,
    recovered: null,
    strategies: entries,
    restrictedSubaccount: -1,
    clientOrderIdPrefix: options.route === 'fix' ? 'rfqf' : 'rfqr',
    rootDir: options.rootDir,
    // As Runtime's market port: the venue's grid, the book on the WebSocket, synced before strategies start.
    markets: ({ gate, feed }) => ({
      marketHandle: (ticker) => gate.marketHandle(ticker),
      book: (ticker) => feed.books.get(ticker),
      ensureMarkets: async (tickers) => {
        for (const ticker of tickers) {
          if (gate.marketHandle(ticker) >= 0) continue;
          const facts = await fetchMarket(options.restUrl, ticker);
          const book = feed.addMarket(ticker, facts.grid);
          const handle = gate.addMarket(ticker, facts.grid, book, { open: facts.open });
          gate.setMarketCloseTime(handle, facts.closeMs);
          feed.subscribeOrderbooks([ticker]);
          await waitFor(() => book.synced, 10_000, `the ${ticker} book`);
        }
      },
    }),
    orderGroups: null,
  });
  fixRoute?.setRfqListener(graph.listener);

  // As Runtime.start, in its order, without the channels this bench does not use.
  await rest.connect();
  await account.connect();
  await restRoute.connect();
  if (fixRoute !== null) await fixRoute.connect();
  graph.feed.start();
  if (fixRoute === null) graph.feed.subscribe(Channel.COMMUNICATIONS);
  await waitFor(() => graph.feed.state === 'open', 10_000, 'the feed');
  const timer = setInterval(() => {
    graph.quoteBook?.tick();
    graph.router.tick()?.catch(() => {});
  }, 100);
  timer.unref();
  await graph.host.start(entries);
  // As the main job: the keep-warm dry run (process.keepWarmMs, on by default), RFQ leg included.
  const keepWarm = config.process.keepWarmMs > 0 && process.env.BENCH_KEEP_WARM !== 'off'
    ? new KeepWarm({ intervalMs: config.process.keepWarmMs, limits: graph.gate.limits, clock, rfq: options.route })
    : null;
  keepWarm?.start();

  return {
    graph,
    restRoute,
    fixRoute,
    createCalls,
    quoteStates: () => {
      const counts: Record<string, number> = {};
      for (const quote of graph.quoteBook?.quotes() ?? []) {
        const name = STATE_NAMES[quote.state] ?? String(quote.state);
        counts[name] = (counts[name] ?? 0) + 1;
      }
      return counts;
    },
    signingNote: () => {
      const presigner = rest.presigner;
      if (presigner === null) return `signing ${config.exec.signing}`;
      const stats = restRoute.stats;
      return `signing ${config.exec.signing}: quote creates presigned from the REST route's presigner ring (nice ${presigner.workerNice ?? 'not reported'}), written on RestQuoteRoute's raw socket: ` +
        `presigned ${stats.presigned}, inline ${stats.inlineSigned} (fallbacks ${stats.presignFallbacks}), queued ${stats.queued}; acks ${stats.acks}, rejects ${stats.rejects}, unknowns ${stats.unknowns}`;
    },
    stop: async () => {
      clearInterval(timer);
      keepWarm?.stop();
      graph.host.halt();
      graph.feed.stop();
      await fixRoute?.close();
      await restRoute.close();
      await account.close();
      await rest.close();
      await graph.oms.stop();
    },
  };
}
