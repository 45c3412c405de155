/**
 * The runtime: configuration, logger, REST order entry (presigned signing per config, sockets
 * warmed before trading) and the trading graph (trading-graph.ts: risk gate, feed with its books,
 * OMS with its journal under var/journal/, strategy host), started in that order and stopped in
 * reverse; the kill switch, the status and the venue-backed ports (markets, order groups).
 * Wiring and lifecycle only: every decision lives in the component that owns it.
 *
 * Private channels (fill, user_order, market_position, order_group_updates) go to the OMS first
 * and then, for fills and order changes, to the owning strategy. Slow work runs beside the hot
 * path: the OMS tick (timeouts, journal flush, reconciliation), the host's coarse timer,
 * presigning workers, and the worker pool (config.workers): live candlesticks (backfilled from the
 * venue when a market is added, then kept from the trade feed) and portfolio risk (the gate waits
 * for the first snapshot before strategies start). The event-loop stall sampler runs from start
 * to stop; the status reports it with the pool's queue depth. With config record.enabled the run
 * is recorded (src/record: frames, markets, orders and answers) to one file under record.dir.
 */

import type { KeyObject } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { dirname, join, resolve as resolvePath } from 'node:path';
import { systemClock } from '../core/index.ts';
import type { Clock } from '../core/index.ts';
import { Channel } from '../feed/index.ts';
import type { Feed, FixMarketData } from '../feed/index.ts';
import type { OrderBook } from '../book/index.ts';
import {
  ACCOUNT_CLIENT_DEFAULTS, AccountClient, FIX_ORDER_ENTRY_DEFAULTS, FIX_QUOTE_ROUTE_DEFAULTS, FixOrderEntry, FixQuoteRoute, REST_ORDER_ENTRY_DEFAULTS,
  MARGIN_ORDER_ENTRY_DEFAULTS, MarginOrderEntry, REST_QUOTE_ROUTE_DEFAULTS, RestOrderEntry, RestQuoteRoute,
} from '../exec/index.ts';
import { recover } from '../oms/index.ts';
import type { ExecListener, Journal, Oms, QuoteBook, RecoveredJournal, RecoveredKill } from '../oms/index.ts';
import { DENY_CODE_COUNT, DENY_NAMES } from '../risk/index.ts';
import type { RiskGate } from '../risk/index.ts';
import type { Router } from '../router/index.ts';
import type { MarketPort, OrderGroupPort, StrategyEntry, StrategyHost } from '../strategy/index.ts';
import type { Logger } from '../telemetry/index.ts';
import { CandlePool } from '../workers/index.ts';
import type { CandleFeed, CandlePoolError, PortfolioRiskPublisher } from '../workers/index.ts';
import { fetchCandles } from './candle-backfill.ts';
import type { DeepReadonly, RuntimeConfig } from './config.ts';
import { EventLoopStall } from './event-loop-stall.ts';
import type { EventLoopStallSummary } from './event-loop-stall.ts';
import { MarketLookupError, fetchEventsExclusive, fetchMarkets } from './market-directory.ts';
import type { MarketFacts } from './market-directory.ts';
import { MarginAccountSync, fetchMarginMarkets } from './margin-venue.ts';
import type { MarginMarketFacts } from './margin-venue.ts';
import { readAccountBudgets, readEndpointCosts } from './account-budgets.ts';
import type { AccountBudgets } from './account-budgets.ts';
import type { RuntimeFeedListener } from './runtime-feed-listener.ts';
import type { TickToTradeProbe } from './tick-to-trade-probe.ts';
import { TradingGraph, configuredTradingState } from './trading-graph.ts';
import { KeepWarm } from './keep-warm.ts';
import { watchRouteWrites } from './probe-write-stamps.ts';
import { ScaleStatus, TOP_ROWS, topPositions } from './scale-status.ts';
import type { BudgetStatus, MarketActivity } from './scale-status.ts';
import { rfqStatus } from './rfq-status.ts';
import type { RfqStatus } from './rfq-status.ts';
import { createFleetPort } from './fleet-host.ts';
import type { FleetPort, FleetStatus } from '../fleet/index.ts';
import { gatedOrderGroupPort } from './order-group-port.ts';
import { Recorder, RecordKind, marketRecordText, recordBudget, recordingGroupVenue } from '../record/index.ts';

export interface VenueEndpoint {
  /** REST base including the API prefix, e.g. http://127.0.0.1:9000/trade-api/v2. */
  restUrl: string;
  /** WebSocket URL, e.g. ws://127.0.0.1:9000/trade-api/ws/v2. */
  wsUrl: string;
  keyId: string;
  privateKey: KeyObject;
  /** The FIX order-entry session (host, port, TLS), or null when no strategy uses the FIX route. */
  fix?: { host: string; port: number; tls: boolean } | null;
  /** The FIX market-data session KalshiMD (config feed.source "fix"), or null: books from the WebSocket. */
  marketData?: { host: string; port: number; tls: boolean } | null;
  /** The FIX RFQ session KalshiRFQ (config rfq.route "fix"), or null: quotes over REST, RFQs on `communications`. */
  rfq?: { host: string; port: number; tls: boolean } | null;
}

export interface RuntimeOptions {
  config: DeepReadonly<RuntimeConfig>;
  venue: VenueEndpoint;
  /** Project root: plugin paths are relative to it. */
  rootDir: string;
  /** The OMS journal (JSON lines); its directory is created. */
  journalPath: string;
  logger: Logger;
  clock?: Clock;
  /** Strategies to run (default config.strategies). */
  strategies?: readonly StrategyEntry[];
  /** Client order id prefix, [A-Za-z0-9_]{1,16} (default "rt"). */
  clientOrderIdPrefix?: string;
  /** The subaccount a restricted API key is locked to, -1 for a full-account key (default -1). */
  restrictedSubaccount?: number;
  /** OMS tick period, ms (default 100). */
  omsTickMs?: number;
  /** How long start waits for the feed to connect and for each market's first snapshot, ms (default 10,000). */
  startTimeoutMs?: number;
  /** Strategy host's drain bound on stop, ms (default 5,000). */
  drainTimeoutMs?: number;
  /** OMS timing (defaults from the OMS). */
  pendingTimeoutMs?: number;
  unknownGraceMs?: number;
  reconcileIntervalMs?: number;
  /**
   * Who releases a kill switch recovered from the journal (e.g. "operator: --release-kill-switch");
   * journaled. Null/undefined: an engaged kill switch makes start() refuse to trade.
   */
  releaseKillSwitchBy?: string | null;
}

export type RuntimeErrorCode = 'RUNTIME_FEED_CONNECT_TIMEOUT' | 'RUNTIME_START_FAILED' | 'RUNTIME_KILL_SWITCH_ENGAGED';

export class RuntimeError extends Error {
  readonly code: RuntimeErrorCode;
  constructor(code: RuntimeErrorCode, message: string) {
    super(message);
    this.name = 'RuntimeError';
    this.code = code;
  }
}

export interface PositionLine {
  subaccount: number;
  ticker: string;
  /** Signed, 1/100 contract. */
  position: number;
  /** Realized minus fees plus the open position marked at the book mid, micro-dollars (1e-6 $). */
  pnlMicro: number;
}

export interface RuntimeStatus {
  booksSynced: number;
  booksTotal: number;
  openOrders: number;
  ordersSent: number;
  fills: number;
  positions: PositionLine[];
  pnlMicro: number;
  tickToTradeUsP50: number;
  tickToTradeUsP99: number;
  tickToTradeCount: number;
  /** Frame received -> the first byte of its order handed to socket.write (the probe's firstByte hop), µs. */
  firstByte?: { p50Us: number; p99Us: number; count: number };
  denies: Record<string, number>;
  feedState: string;
  strategies: { id: string; status: string }[];
  /** The engaged kill switch, or null. */
  killSwitch: { reason: string; source: string; sinceMs: number } | null;
  /** Event-loop stall from setImmediate round trips (absent when not sampled). */
  eventLoopStall?: EventLoopStallSummary;
  /** The worker pool (absent or null when off). */
  workers?: WorkersStatus | null;
  /** This runtime's seat in the fleet (config fleet.redisUrl), null when alone. */
  fleet?: FleetStatus | null;
  /** Positions held or traded (`positions` lists only the TOP_ROWS by |PnL|). */
  positionsTotal?: number;
  /** The write budget: tokens, spent per second against the refill, held intents, batches. */
  budget?: BudgetStatus;
  /** The most active markets (book changes per second). */
  mostActive?: readonly MarketActivity[];
  /** RFQ quoting counters (config rfq.enabled), null when quoting is off. */
  rfq?: RfqStatus | null;
}

export interface WorkersStatus {
  /** Tasks waiting for a worker, and submitted but not settled. */
  queueDepth: number;
  inFlight: number;
  completed: number;
  failed: number;
  /** Workers lost mid-task (each replaced). */
  workerExits: number;
  /** Candle batches waiting for a task; -1 when candles are off. */
  candleBatchesQueued: number;
  candleRowsDropped: number;
  /** Age of the portfolio snapshot the gate reads, ms; -1 when portfolio risk is off or none yet. */
  portfolioAgeMs: number;
}

export class Runtime {
  readonly config: DeepReadonly<RuntimeConfig>;
  readonly logger: Logger;
  readonly clock: Clock;
  readonly gate: RiskGate;
  readonly feed: Feed;
  readonly rest: RestOrderEntry;
  /** The FIX order-entry route (strategies with route "fix"), null when none uses it. */
  readonly fix: FixOrderEntry | null;
  /** The Margin exchange's order route and reads (config margin.enabled), null otherwise. */
  readonly margin: MarginOrderEntry | null;
  /** The Margin WebSocket (books, marks, user orders, fills of perpetuals), null without margin.enabled. */
  readonly marginFeed: Feed | null;
  /** Re-reads the Margin balance and notional risk limits into the gate, null without margin.enabled. */
  readonly marginAccount: MarginAccountSync | null;
  /** The FIX market-data source (feed.source "fix"), null when books come from the WebSocket. */
  readonly marketData: FixMarketData | null;
  /** Reads, order groups and balances off the hot path (its own undici pool, signed by the route's presigner). */
  readonly account: AccountClient;
  /** The REST quote route (config rfq.enabled), null when quoting is off. */
  readonly quoteRoute: RestQuoteRoute | null;
  /** The FIX quote route (config rfq.route "fix"; its reconciliation reads through quoteRoute), null otherwise. */
  readonly fixQuotes: FixQuoteRoute | null;
  /** Our RFQ quotes (config rfq.enabled), null when quoting is off. */
  readonly quoteBook: QuoteBook | null;
  readonly oms: Oms;
  readonly journal: Journal;
  readonly recovered: RecoveredJournal;
  readonly probe: TickToTradeProbe;
  /** The one way from an intent to the wire (gate, OMS, route); also the strategies' OrderPort. */
  readonly router: Router;
  readonly host: StrategyHost;
  readonly listener: RuntimeFeedListener;
  /** Every component of the trading path, built by the one graph builder. */
  readonly graph: TradingGraph;
  readonly #options: RuntimeOptions;
  /** Live candlesticks and portfolio risk (null when config.workers turns them off). */
  readonly candles: CandleFeed | null;
  readonly portfolio: PortfolioRiskPublisher | null;
  /** Event-loop stall by setImmediate round trips, sampled from start to stop. */
  readonly stall: EventLoopStall;
  /** The keep-warm dry run (process.keepWarmMs), null when off. */
  readonly keepWarm: KeepWarm | null;
  /** The session recording (config record.enabled; docs/recording-format.md), null when off. */
  readonly recorder: Recorder | null;
  /** Budget leases, the account-wide kill switch and status over Redis (config fleet.redisUrl), null when alone. */
  readonly fleet: FleetPort | null;
  readonly #denyScratch = new Float64Array(DENY_CODE_COUNT);
  readonly #scale = new ScaleStatus();
  /** Whether each event's markets are mutually exclusive, as read from the venue (portfolio risk). */
  readonly #eventExclusive = new Map<string, Promise<boolean>>();
  #pool: CandlePool | null = null;
  /** The Margin markets strategies trade (the account sync reads their notional risk limits). */
  readonly #marginTickers: string[] = [];
  #omsTimer: NodeJS.Timeout | null = null;
  /** Stops feeding the routes' writes to the probe (its encode / write / firstByte hops). */
  #unwatchWrites: () => void = () => undefined;
  #stopped = false;

  /** Builds every component (no I/O yet except the journal file); call start(). */
  constructor(options: RuntimeOptions) {
    this.#options = options;
    const config = options.config;
    this.config = config;
    this.logger = options.logger;
    this.clock = options.clock ?? systemClock;

    const venue = options.venue;
    // The order routes' transport (both exchanges' REST routes: one pool shape, one signing setting).
    const transport = {
      baseUrl: venue.restUrl,
      keyId: venue.keyId,
      privateKey: venue.privateKey,
      clock: this.clock,
      connections: config.exec.connections,
      headersTimeoutMs: config.exec.requestTimeoutMs,
      bodyTimeoutMs: config.exec.requestTimeoutMs,
      signing: config.exec.signing,
    };
    this.rest = new RestOrderEntry({
      ...REST_ORDER_ENTRY_DEFAULTS,
      ...transport,
      // Creates and cancels (the batched DELETE route) both sign ahead; one pool size for both.
      // The quote create's constant path is presigned too when quoting over REST (RestQuoteRoute takes from this ring).
      presign: {
        ...REST_ORDER_ENTRY_DEFAULTS.presign, createCapacity: config.exec.presignPoolSize, batchCapacity: config.exec.presignPoolSize,
        workerNice: config.exec.presignWorkerNice === 0 ? null : config.exec.presignWorkerNice,
        extraEndpoints: config.rfq.enabled && config.rfq.route === 'rest' ? [RestQuoteRoute.presignEndpoint] : [],
      },
    });
    const fix = venue.fix ?? null;
    mkdirSync(dirname(options.journalPath), { recursive: true, mode: 0o700 }); // the FIX store lives there too
    this.fix = fix === null ? null : new FixOrderEntry({
      ...FIX_ORDER_ENTRY_DEFAULTS,
      host: fix.host,
      port: fix.port,
      tls: fix.tls ? {} : null,
      sessionName: config.venue.fix.sessionName,
      heartbeatIntervalS: config.venue.fix.heartbeatIntervalS,
      cancelOrdersOnDisconnect: config.venue.fix.cancelOrdersOnDisconnect,
      keyId: venue.keyId,
      privateKey: venue.privateKey,
      clock: this.clock,
      // KalshiRT resumes its numbers after a restart: the store lives beside the journal, one per key.
      storePath: config.venue.fix.sessionName === 'KalshiRT' ? join(dirname(options.journalPath), `fix-${venue.keyId.slice(0, 8).replace(/[^A-Za-z0-9]/g, '_')}-KalshiRT`) : null,
      requestTimeoutMs: config.exec.requestTimeoutMs,
    });
    this.margin = !config.margin.enabled ? null : new MarginOrderEntry({
      ...MARGIN_ORDER_ENTRY_DEFAULTS,
      ...transport,
      presign: { ...MARGIN_ORDER_ENTRY_DEFAULTS.presign, workerNice: config.exec.presignWorkerNice === 0 ? null : config.exec.presignWorkerNice },
    });
    // The off-path clients (reads, quotes): the venue, the key, and the route's presigner to sign with.
    const venueClient = {
      baseUrl: venue.restUrl,
      keyId: venue.keyId,
      privateKey: venue.privateKey,
      clock: this.clock,
      headersTimeoutMs: config.exec.requestTimeoutMs,
      bodyTimeoutMs: config.exec.requestTimeoutMs,
      presigner: () => this.rest.presigner,
    };
    this.account = new AccountClient({ ...ACCOUNT_CLIENT_DEFAULTS, ...venueClient });

    this.quoteRoute = !config.rfq.enabled ? null : new RestQuoteRoute({ ...REST_QUOTE_ROUTE_DEFAULTS, ...venueClient, restRemainder: config.rfq.restRemainder });
    // rfq.route "fix": quotes and RFQs over KalshiRFQ; the REST route stays for the quote list FIX lacks.
    const rfqSession = config.rfq.enabled && config.rfq.route === 'fix' ? (venue.rfq ?? null) : null;
    if (config.rfq.enabled && config.rfq.route === 'fix' && rfqSession === null) throw new RuntimeError('RUNTIME_START_FAILED', 'rfq.route "fix" needs the venue\'s KalshiRFQ endpoint (venue.fix.host and venue.fix.rfqPort)');
    const quoteReads = this.quoteRoute;
    this.fixQuotes = rfqSession === null || quoteReads === null ? null : new FixQuoteRoute({
      ...FIX_QUOTE_ROUTE_DEFAULTS,
      host: rfqSession.host,
      port: rfqSession.port,
      tls: rfqSession.tls ? {} : null,
      heartbeatIntervalS: config.venue.fix.heartbeatIntervalS,
      keyId: venue.keyId,
      privateKey: venue.privateKey,
      clock: this.clock,
      requestTimeoutMs: config.exec.requestTimeoutMs,
      restRemainder: config.rfq.restRemainder,
      reads: quoteReads,
    });

    mkdirSync(dirname(options.journalPath), { recursive: true, mode: 0o700 });
    this.recovered = recover(options.journalPath);
    // One file per run under record.dir (relative to the project root), named by the start time.
    this.recorder = config.record.enabled ? new Recorder({ dir: resolvePath(options.rootDir, config.record.dir), startMs: this.clock.nowMs() }) : null;
    if (this.recorder !== null) options.logger.info({ path: this.recorder.path }, 'recording the session (record.enabled)');
    this.recorder?.text(RecordKind.SESSION, JSON.stringify({ event: 'start', source: 'runtime', strategies: (options.strategies ?? config.strategies).map((s) => s.id) }));
    this.graph = new TradingGraph({
      config,
      clock: this.clock,
      logger: options.logger,
      entry: this.rest,
      moreRoutes: [
        ...(this.fix === null ? [] : [{ name: 'fix', entry: this.fix }]),
        ...(this.margin === null ? [] : [{ name: 'margin', entry: this.margin, exchange: 'margin' as const }]),
      ],
      reads: this.account,
      marginReads: this.margin,
      exitTriggers: this.margin === null ? null : this.margin.exitTriggers(),
      marginFeed: this.margin === null ? null : { url: config.margin.wsUrl ?? `${venue.wsUrl.replace(/\/+$/, '')}/margin`, auth: { keyId: venue.keyId, privateKey: venue.privateKey } },
      quoteEntry: this.fixQuotes ?? this.quoteRoute,
      feed: { url: venue.wsUrl, auth: { keyId: venue.keyId, privateKey: venue.privateKey } },
      marketData: config.feed.source === 'fix' && venue.marketData !== undefined && venue.marketData !== null
        ? {
            host: venue.marketData.host,
            port: venue.marketData.port,
            tls: venue.marketData.tls ? {} : null,
            keyId: venue.keyId,
            privateKey: venue.privateKey,
            heartbeatIntervalS: config.venue.fix.heartbeatIntervalS,
          }
        : null,
      journalPath: options.journalPath,
      recovered: this.recovered,
      strategies: options.strategies ?? config.strategies,
      restrictedSubaccount: options.restrictedSubaccount ?? -1,
      clientOrderIdPrefix: options.clientOrderIdPrefix ?? 'rt',
      rootDir: options.rootDir,
      markets: ({ gate, feed }) => this.#marketPort(gate, feed),
      orderGroups: ({ gate }) => this.#groupPort(gate),
      pendingTimeoutMs: options.pendingTimeoutMs,
      unknownGraceMs: options.unknownGraceMs,
      reconcileIntervalMs: options.reconcileIntervalMs,
      drainTimeoutMs: options.drainTimeoutMs,
      workers: true,
      recorder: this.recorder,
    });
    const graph = this.graph;
    this.candles = graph.candles;
    this.portfolio = graph.portfolio;
    this.stall = new EventLoopStall(config.telemetry.eventLoopStallSampleMs);
    this.gate = graph.gate;
    // One read mirror per key: the gate's reads (reconciliation, keep-warm) spend from the pacer the
    // budgeted client queues on, so the two never each spend the venue's whole read bucket.
    this.account.reads.pacer.setArrivalSkew(config.risk.arrivalSkewMs);
    this.gate.budget.shareReads(this.account.reads.pacer);
    // Keep-warm GETs are reads the venue bills: they spend the gate's read budget (a fleet's lease).
    this.rest.setReadBudget(() => graph.router.takeReadToken(), () => graph.router.readSettled());
    // Writes on the way are still in the venue's bucket: the write mirror stays that far below its capacity.
    const rest = this.rest;
    this.gate.budget.countWritesInFlight(() => rest.writeTokensInFlight);
    this.rest.setWriteAnswerHook(() => graph.router.onWriteAnswer());
    this.feed = graph.feed;
    this.marginFeed = graph.marginFeed;
    this.marketData = graph.marketData;
    this.journal = graph.journal;
    this.oms = graph.oms;
    this.probe = graph.probe;
    this.router = graph.router;
    this.quoteBook = graph.quoteBook;
    this.keepWarm = config.process.keepWarmMs > 0
      ? new KeepWarm({
        intervalMs: config.process.keepWarmMs, limits: this.gate.limits, clock: this.clock, rfq: config.rfq.enabled ? config.rfq.route : null, margin: config.margin.enabled,
        realGate: { gate: this.gate, marginRoute: this.router.marginRoute, oms: this.oms, router: this.router },
        realRoutes: this.fix === null ? [this.rest] : [this.rest, this.fix],
        realMarginRoute: this.margin,
        strategies: config.process.keepWarmStrategies ? graph.host : null,
      })
      : null;
    this.listener = graph.listener;
    const gate = this.gate;
    this.marginAccount = this.margin === null ? null : new MarginAccountSync(
      this.margin,
      {
        setMarginBalance: (subaccount, centicents) => gate.setMarginBalance(subaccount, centicents),
        setDefaultNotionalRiskLimit: (centicents) => gate.setDefaultNotionalRiskLimit(centicents),
        setNotionalRiskLimit: (ticker, centicents) => gate.setNotionalRiskLimit(gate.marketHandle(ticker), centicents),
      },
      () => this.#marginTickers,
      (error) => options.logger.warn({ err: error }, 'reading the Margin equity or notional risk limits failed; the gate keeps the last figures'),
    );
    this.fixQuotes?.setRfqListener(graph.listener); // RFQs and quote events of KalshiRFQ, as from `communications`
    this.host = graph.host;
    this.fleet = createFleetPort({
      config, keyId: venue.keyId, gate: this.gate, router: this.router, host: this.host, pacer: () => this.account.reads.pacer,
      clock: this.clock, logger: options.logger, snapshot: () => ({ ...this.status(), fleet: undefined }), configuredState: configuredTradingState(config),
    });
    const releaseBy = options.releaseKillSwitchBy ?? null;
    if (releaseBy !== null && this.oms.killSwitchState !== null) {
      this.router.releaseKillSwitch(releaseBy);
      this.gate.setTradingState(configuredTradingState(config));
    }
  }

  /**
   * Connects order entry (presigner, warm sockets) and the feed, subscribes the private channels,
   * reconciles what the journal recovered and the venue's positions, then starts the strategies.
   */
  async start(): Promise<void> {
    const log = this.logger;
    const kill = this.oms.killSwitchState;
    if (kill !== null) {
      throw new RuntimeError(
        'RUNTIME_KILL_SWITCH_ENGAGED',
        `the kill switch is engaged since ${new Date(kill.tsMs).toISOString()} (${kill.source}: ${kill.reason}); ` +
          `nothing will trade until an operator releases it: npm start -- --release-kill-switch (journaled in ${this.journal.path})`,
      );
    }
    const timeoutMs = this.#options.startTimeoutMs ?? 10_000;
    // The worker threads boot (each loads its tasks' code: ~1.6 s on this project's machine) while
    // the connects and the reconciliation below wait on the network.
    this.#openPool();
    await this.rest.connect();
    const shortfall = this.rest.presigner?.startShortfall ?? 0;
    if (shortfall > 0) log.warn({ missing: shortfall }, 'presigned signatures not all ready at start (a busy machine starves the nice-19 signing thread); orders sign inline until the rings fill');
    await this.account.connect();
    const budgets = await this.#adoptAccountBudgets();
    // Fleet: from here on this runtime spends only what it leased (two TTLs cover a fresh lease table's quiet TTL).
    await this.fleet?.start(budgets, 2 * this.config.fleet.leaseTtlMs + this.config.fleet.renewMs);
    await this.quoteRoute?.connect();
    if (this.fixQuotes !== null) {
      await this.fixQuotes.connect();
      log.info({ session: 'KalshiRFQ' }, 'FIX quotes logged on');
    }
    if (this.fix !== null) {
      await this.fix.connect();
      log.info({ session: this.config.venue.fix.sessionName }, 'FIX order entry logged on');
    }
    if (this.margin !== null) {
      await this.margin.connect();
      log.info({}, 'Margin order entry connected');
    }
    log.info({ signing: this.config.exec.signing, connections: this.config.exec.connections }, 'order entry connected and warmed');
    this.feed.start();
    this.feed.subscribe(Channel.FILL);
    this.feed.subscribe(Channel.USER_ORDERS);
    this.feed.subscribe(Channel.MARKET_POSITIONS);
    this.feed.subscribe(Channel.ORDER_GROUP_UPDATES);
    this.feed.subscribe(Channel.MARKET_LIFECYCLE);
    // RFQs arrive once: on the FIX RFQ session when quotes go over FIX, else on `communications`.
    if (this.quoteBook !== null && this.fixQuotes === null) this.feed.subscribe(Channel.COMMUNICATIONS);
    await waitFor(() => this.feed.state === 'open', timeoutMs, 'RUNTIME_FEED_CONNECT_TIMEOUT', 'feed did not connect');
    const marginFeed = this.marginFeed;
    if (marginFeed !== null && this.marginAccount !== null) {
      marginFeed.start();
      marginFeed.subscribe(Channel.FILL);
      marginFeed.subscribe(Channel.USER_ORDERS);
      marginFeed.subscribe(Channel.ORDER_GROUP_UPDATES);
      await waitFor(() => marginFeed.state === 'open', timeoutMs, 'RUNTIME_FEED_CONNECT_TIMEOUT', 'the Margin feed did not connect');
      await this.marginAccount.refresh();
      this.marginAccount.start(this.config.margin.accountRefreshMs);
    }
    if (this.marketData !== null) {
      this.marketData.start();
      await waitFor(() => this.marketData!.sessionState === 'active', timeoutMs, 'RUNTIME_FEED_CONNECT_TIMEOUT', 'FIX market data (KalshiMD) did not log on');
      log.info({ source: 'fix' }, 'order books from FIX KalshiMD');
    }
    if (this.recovered.orders.length > 0) {
      log.info({ orders: this.recovered.orders.length, journal: this.recovered.path }, 'journal recovered orders; reconciling with the venue');
      await this.oms.reconcile();
    }
    // Ours at the venue but not in the journal (a crash between a send and its line's flush): adopted and cancelled.
    const lost = await this.oms.adoptLostOrders([...new Set(this.config.strategies.map((strategy) => strategy.subaccount))]);
    if (lost > 0) log.warn({ orders: lost }, 'orders of ours the journal had lost were resting at the venue; cancelled');
    try {
      await this.oms.reconcilePositions();
    } catch (error) {
      // Positions then come from fills and market_position messages; the gate still has exposure.
      log.warn({ err: error }, 'reading the venue positions failed; continuing from fills');
    }
    if (this.quoteBook !== null && this.quoteBook.openCount > 0) {
      // Quotes an earlier run journaled: the venue says what became of them (a restart clears open ones).
      try {
        await this.quoteBook.reconcile();
      } catch (error) {
        log.warn({ err: error }, 'reconciling journaled quotes failed; retried after the next reconnect');
      }
    }
    const bookStores = this.marginFeed === null ? [this.feed.books] : [this.feed.books, this.marginFeed.books];
    this.#omsTimer = setInterval(() => {
      this.#scale.walkActivity(bookStores, this.clock.nowMs());
      this.quoteBook?.tick();
      this.router.tick()?.catch((error: unknown) => log.warn({ err: error }, 'reconciliation round failed'));
    }, this.#options.omsTickMs ?? 100);
    this.#omsTimer.unref();
    this.stall.start();
    this.keepWarm?.start();
    this.#unwatchWrites = watchRouteWrites(this.probe);
    await this.#startWorkers(timeoutMs);
    await this.host.start(this.#options.strategies ?? this.config.strategies);
  }

  /** The worker pool, when candles or portfolio risk use it: its threads start booting now (stop() closes it). */
  #openPool(): void {
    if ((this.candles === null && this.portfolio === null) || this.#pool !== null) return;
    const workers = this.config.workers;
    const log = this.logger;
    this.#pool = new CandlePool({
      threads: workers.threads,
      maxQueue: workers.maxQueue,
      // A worker that died is replaced by piscina; the task is retried (candles) or recomputed at
      // the next tick (portfolio). Reported here and in the status; trading goes on.
      onFailure: (error: CandlePoolError) => log.warn({ err: error, code: error.code }, 'worker pool task failed'),
    });
  }

  /** Candles and portfolio risk on the pool; waits (bounded) for the first portfolio snapshot. */
  async #startWorkers(timeoutMs: number): Promise<void> {
    const pool = this.#pool;
    if (pool === null) return;
    const workers = this.config.workers;
    const log = this.logger;
    this.candles?.start(pool, workers.candleFlushMs);
    const portfolio = this.portfolio;
    if (portfolio === null) return;
    portfolio.start(pool);
    const first = portfolio.published(0);
    let timer: NodeJS.Timeout | null = null;
    const timedOut = new Promise<boolean>((resolve) => {
      timer = setTimeout(() => resolve(true), timeoutMs);
    });
    const late = await Promise.race([first.then(() => false), timedOut]);
    if (timer !== null) clearTimeout(timer);
    // Not fatal: the gate denies orders that add risk (PORTFOLIO_RISK_STALE) until it arrives.
    if (late) log.warn({ timeoutMs }, 'no portfolio risk snapshot yet; orders adding risk are denied until one is published');
  }

  /**
   * The read and write budgets (risk.rateLimitTier, else GET /account/limits) into the read pacer
   * and the gate's buckets, and the venue's endpoint costs into the read client. Logged with
   * their source. Before any other read but the warm-up, so everything after is paced right.
   */
  async #adoptAccountBudgets(): Promise<AccountBudgets> {
    const log = this.logger;
    const reads = this.account.reads;
    const prefix = this.account.prefix;
    const budgets = await readAccountBudgets(reads, prefix, this.config.risk.rateLimitTier, (error) => log.warn({ err: error }, 'reading the account limits failed; using the Basic budgets'));
    reads.pacer.setBudget(budgets.readPerSecond, budgets.readCapacity);
    this.gate.budget.setBudget(budgets.writePerSecond, budgets.writeCapacity, budgets.readPerSecond, budgets.readCapacity, this.clock.nowMs());
    // A replay runs with the budgets this run adopted (tier "auto" resolves to the exchange's answer).
    if (this.recorder !== null) recordBudget(this.recorder, budgets);
    const costs = await readEndpointCosts(reads, prefix, (error) => log.warn({ err: error }, 'reading the endpoint costs failed; every read costs the default 10'));
    if (costs !== null) reads.setCosts(costs);
    const from = budgets.source === 'config' ? 'risk.rateLimitTier (overrides the exchange)' : budgets.source === 'exchange' ? 'the exchange (GET /account/limits)' : 'Basic (the exchange did not answer)';
    log.info({ tier: budgets.tier, source: budgets.source, readPerSecond: budgets.readPerSecond, readCapacity: budgets.readCapacity, writePerSecond: budgets.writePerSecond, writeCapacity: budgets.writeCapacity }, `REST budgets from ${from}`);
    return budgets;
  }

  /** Portfolio events and candle backfill for markets just added (off the hot path, batched reads; failures are logged, not fatal). */
  async #onMarketsAdded(added: readonly { ticker: string; handle: number; eventTicker: string }[]): Promise<void> {
    const log = this.logger;
    const reads = this.account.reads;
    const prefix = this.account.prefix;
    const portfolio = this.portfolio;
    if (portfolio !== null) {
      const unknown = [...new Set(added.map((market) => market.eventTicker))].filter((event) => event !== '' && !this.#eventExclusive.has(event));
      if (unknown.length > 0) {
        // A failed read counts as "not exclusive": settling independently is the larger worst case.
        const read = fetchEventsExclusive(reads, prefix, unknown).catch((error: unknown) => {
          log.warn({ err: error, events: unknown.length }, 'event lookup failed; its markets are treated as settling independently (the larger worst case)');
          return new Map<string, boolean>();
        });
        for (const event of unknown) this.#eventExclusive.set(event, read.then((found) => found.get(event) === true));
      }
      for (const market of added) {
        if (market.eventTicker === '') continue;
        portfolio.setEvent(market.handle, market.eventTicker, await this.#eventExclusive.get(market.eventTicker)!);
      }
    }
    const candles = this.candles;
    if (candles === null) return;
    const tracked = added.filter((market) => candles.track(market.ticker) >= 0).map((market) => market.ticker);
    if (tracked.length === 0 || !this.config.workers.candleBackfill) return;
    // Not awaited: a strategy on thousands of markets must not wait for their history to start
    // quoting (the reads go through the read budget behind the lookups); candles fill in as it comes.
    void (async (): Promise<void> => {
      for (const minutes of candles.intervals) {
        try {
          const fetched = await fetchCandles(reads, prefix, tracked, minutes, this.config.workers.candlesKept, this.clock.nowMs());
          for (const [ticker, list] of fetched) candles.backfill(ticker, minutes, list);
        } catch (error) {
          log.warn({ err: error, intervalMinutes: minutes, markets: tracked.length }, 'candlestick backfill failed; candles start from the trade feed');
        }
      }
    })();
  }

  async #stopWorkers(): Promise<void> {
    this.stall.stop();
    this.candles?.stop();
    this.portfolio?.stop();
    const pool = this.#pool;
    this.#pool = null;
    if (pool !== null) await pool.close();
  }

  /**
   * The kill switch (operator or risk breach): cancels every order at the exchange, denies every
   * new one, and persists in the journal so a restart refuses to trade until it is released.
   * Strategies keep running and hear KILL_SWITCH denies.
   */
  async engageKillSwitch(reason: string, source = 'operator'): Promise<void> {
    // Account-wide with a fleet: every runtime hears it (retried until Redis takes it). Published
    // first: queueing the command costs microseconds, the local journal write and cancel-all signing
    // about 2 ms, which every other runtime would otherwise wait for.
    this.fleet?.publishKill(reason, source);
    await this.router.killSwitch(reason, source);
  }

  /**
   * Stops strategies (each cancels its orders and drains), cancels everything left (cancel-all at
   * the exchange for every subaccount in use; not the kill switch, so the next start trades),
   * reconciles once, then closes feed, order entry and journal. Idempotent.
   */
  async stop(reason = 'shutdown'): Promise<void> {
    if (this.#stopped) return;
    this.#stopped = true;
    const log = this.logger;
    try {
      await this.host.stopAll();
    } catch (error) {
      log.error({ err: error }, 'stopping strategies failed');
    }
    try {
      log.info({ reason }, 'stopping: cancelling every order');
      await this.router.cancelAllForStop(reason);
      await this.oms.reconcile();
    } catch (error) {
      log.error({ err: error }, 'cancel-all or final reconcile failed');
    }
    await this.fleet?.stop(); // after the cancels, which spend the lease
    if (this.#omsTimer !== null) clearInterval(this.#omsTimer);
    this.#omsTimer = null;
    this.keepWarm?.stop();
    this.#unwatchWrites();
    this.feed.stop();
    this.marginFeed?.stop();
    this.marginAccount?.stop();
    await this.marketData?.stop();
    await this.#stopWorkers(); // the pool's threads, the candle and risk timers, the stall sampler
    await this.rest.close();
    await this.account.close();
    await this.fixQuotes?.close();
    await this.quoteRoute?.close();
    await this.fix?.close();
    await this.margin?.close();
    await this.oms.stop();
    await this.#closeRecorder();
  }

  async #closeRecorder(): Promise<void> {
    const recorder = this.recorder;
    if (recorder === null) return;
    await recorder.close();
    this.logger.info({ path: recorder.path, ...recorder.stats }, 'session recording closed');
  }

  /** Simulates a crash for tests: stops strategies, timers and sockets without cancelling or reconciling. */
  async abandon(): Promise<void> {
    this.#stopped = true;
    this.fleet?.abandon();
    this.host.halt();
    // A crashed process hears no more answers: nothing reaches the OMS or the journal from here on.
    this.rest.setListener(NO_EXEC_LISTENER);
    this.fix?.setListener(NO_EXEC_LISTENER);
    this.margin?.setListener(NO_EXEC_LISTENER);
    if (this.#omsTimer !== null) clearInterval(this.#omsTimer);
    this.#omsTimer = null;
    this.keepWarm?.stop();
    this.#unwatchWrites();
    this.feed.stop();
    this.marginFeed?.stop();
    this.marginAccount?.stop();
    await this.marketData?.stop();
    await this.#stopWorkers(); // the pool's threads, the candle and risk timers, the stall sampler
    await this.rest.close();
    await this.fix?.close();
    await this.margin?.close();
    await this.account.close();
    await this.fixQuotes?.close();
    await this.quoteRoute?.close();
    await this.journal.close();
    await this.#closeRecorder();
  }

  /** Fills received on both exchanges' feeds, duplicates excluded (the status, the dashboard and the metrics read it). */
  get fillsReceived(): number {
    return this.listener.stats.fillMessages + (this.graph.marginListener?.stats.fillMessages ?? 0) - this.oms.stats.duplicateFills;
  }

  /** The most active markets (book changes per second) as the activity walk last found them; the dashboard reads them too. */
  get mostActive(): readonly MarketActivity[] {
    return this.#scale.mostActive;
  }

  status(): RuntimeStatus {
    const marginBooks = this.marginFeed?.books ?? null;
    const nowMs = this.clock.nowMs();
    const positions: PositionLine[] = [];
    let pnlMicro = 0;
    for (const position of this.oms.positions.all()) {
      const book = this.feed.books.get(position.ticker) ?? marginBooks?.get(position.ticker);
      const mid = book === undefined ? -1 : midPrice(book);
      const marked = mid < 0 ? 0 : mid * position.position - position.costMicro;
      const pnl = position.realizedMicro + marked - position.feesCenticents * 100;
      pnlMicro += pnl;
      if (position.position !== 0 || position.volume !== 0) positions.push({ subaccount: position.subaccount, ticker: position.ticker, position: position.position, pnlMicro: pnl });
    }
    const total = this.probe.total.summary();
    const firstByte = this.probe.firstByte.summary();
    const denies: Record<string, number> = {};
    const counts = this.host.denyCounts(this.#denyScratch);
    for (let code = 1; code < counts.length; code++) if (counts[code] !== 0) denies[DENY_NAMES[code]] = counts[code];
    return {
      // Counts the stores keep: no walk over thousands of books here (the activity walk runs on the OMS tick).
      booksSynced: this.feed.books.syncedCount + (marginBooks?.syncedCount ?? 0),
      booksTotal: this.feed.books.size + (marginBooks?.size ?? 0),
      openOrders: this.oms.liveOrderCount,
      ordersSent: this.oms.stats.ordersSent,
      fills: this.fillsReceived,
      positions: topPositions(positions, TOP_ROWS),
      positionsTotal: positions.length,
      budget: this.#scale.budget(this.gate.budget, this.router.holdStats, this.router.held.size, nowMs),
      mostActive: this.#scale.mostActive,
      rfq: rfqStatus(this.quoteBook, this.listener.stats.rfqsSeen, this.graph.quoteRouter?.quotesDenied ?? 0),
      pnlMicro,
      tickToTradeUsP50: total.p50 / 1000,
      tickToTradeUsP99: total.p99 / 1000,
      tickToTradeCount: total.count,
      firstByte: { p50Us: firstByte.p50 / 1000, p99Us: firstByte.p99 / 1000, count: firstByte.count },
      denies,
      feedState: this.feed.state,
      strategies: this.host.summaries().map((s) => ({ id: s.id, status: s.status })),
      killSwitch: killSwitchStatus(this.oms.killSwitchState),
      eventLoopStall: this.stall.summary(),
      workers: this.workersStatus(),
      fleet: this.fleet?.status() ?? null,
    };
  }

  /** The worker pool's figures (queue depth, tasks, candle batches, portfolio age), null when the pool is off. */
  workersStatus(): WorkersStatus | null {
    const pool = this.#pool;
    if (pool === null) return null;
    const view = this.portfolio?.view ?? null;
    return {
      queueDepth: pool.queueDepth,
      inFlight: pool.inFlight,
      completed: pool.completed,
      failed: pool.failed,
      workerExits: pool.workerExits,
      candleBatchesQueued: this.candles === null ? -1 : this.candles.batchesQueued,
      candleRowsDropped: this.candles === null ? 0 : this.candles.stats.rowsDropped,
      portfolioAgeMs: view === null || view.generation === 0 ? -1 : this.clock.nowMs() - view.packedAtMs,
    };
  }

  // ---- ports for the strategy host -----------------------------------------------------------

  #marketPort(gate: RiskGate, feed: Feed): MarketPort {
    const timeoutMs = (): number => this.#options.startTimeoutMs ?? 10_000;
    const log = this.logger;
    return {
      marketHandle: (ticker) => gate.marketHandle(ticker),
      book: (ticker) => feed.books.get(ticker) ?? this.marginFeed?.books.get(ticker),
      ensureMarkets: async (tickers) => {
        const added: OrderBook[] = [];
        const learnt: { ticker: string; handle: number; eventTicker: string }[] = [];
        const perps: OrderBook[] = [];
        const wanted = [...new Set(tickers)].filter((ticker) => gate.marketHandle(ticker) < 0);
        if (wanted.length === 0) return;
        const found = await this.#lookUpMarkets(wanted);
        for (const ticker of wanted) {
          if (gate.marketHandle(ticker) >= 0) continue; // another strategy's lookup added it meanwhile
          const perpFacts = found.perps.get(ticker);
          if (perpFacts !== undefined) {
            perps.push(this.#addMarginMarket(ticker, perpFacts));
            continue;
          }
          const facts = found.predictions.get(ticker)!;
          const book = feed.addMarket(ticker, facts.grid);
          // One registry: the feed's book, the gate's market and the facts share one index and one record.
          const handle = gate.addMarket(ticker, facts.grid, book, { open: facts.open });
          gate.setMarketCloseTime(handle, facts.closeMs);
          this.#bookKnownPositions(ticker);
          this.recorder?.text(RecordKind.MARKET, marketRecordText(ticker, facts.grid, facts.open, facts.closeMs, facts.eventTicker));
          added.push(book);
          learnt.push({ ticker, handle, eventTicker: facts.eventTicker });
        }
        if (perps.length > 0) await this.#subscribePerps(perps, timeoutMs());
        if (added.length === 0) return;
        const newTickers = added.map((book) => book.ticker);
        // feed.source "fix": the books come from KalshiMD into the same store; trades stay on the WebSocket.
        if (this.marketData !== null) this.marketData.subscribe(newTickers);
        else feed.subscribeOrderbooks(newTickers);
        feed.subscribe(Channel.TRADE, newTickers);
        // Trades are subscribed first, so the backfill and the feed overlap rather than leave a gap.
        await this.#onMarketsAdded(learnt);
        try {
          await waitFor(() => added.every((book) => book.synced), timeoutMs(), 'RUNTIME_START_FAILED', 'no snapshot');
        } catch {
          // Not fatal: the gate denies orders on a book until it is synced.
          log.warn({ markets: added.filter((book) => !book.synced).map((book) => book.ticker) }, 'books not synced yet; strategies start anyway');
        }
      },
    };
  }

  /**
   * The facts of every wanted market in batches through the budgeted read client: GET
   * /markets?tickers=... (100 a request), then, for what the Predictions exchange does not list
   * and with margin.enabled, one GET /margin/markets. A ticker neither lists is MARKET_NOT_FOUND,
   * thrown before any market is added.
   */
  async #lookUpMarkets(wanted: readonly string[]): Promise<{ predictions: Map<string, MarketFacts>; perps: Map<string, MarginMarketFacts> }> {
    const reads = this.account.reads;
    const prefix = this.account.prefix;
    const predictions = await fetchMarkets(reads, prefix, wanted);
    const missing = wanted.filter((ticker) => !predictions.has(ticker));
    const perps = missing.length > 0 && this.marginFeed !== null ? await fetchMarginMarkets(reads, prefix, missing) : new Map<string, MarginMarketFacts>();
    for (const ticker of missing) {
      if (!perps.has(ticker)) throw new MarketLookupError('MARKET_NOT_FOUND', ticker, `the exchange does not list it (GET ${prefix}/markets?tickers=${this.marginFeed !== null ? ', GET /margin/markets' : ''})`);
    }
    return { predictions, perps };
  }

  /** A perpetual on the Margin feed and in the gate (tick, mark, initial margin). */
  #addMarginMarket(ticker: string, facts: MarginMarketFacts): OrderBook {
    const book = this.marginFeed!.addPerpMarket(ticker, facts.tick);
    const gate = this.gate;
    const handle = gate.addMarginMarket(ticker, facts.tick, book, { open: facts.open });
    if (facts.markPrice > 0) gate.markets.registry.setMark(handle, facts.markPrice);
    if (facts.initialMarginPpm > 0) gate.setMarginRate(handle, facts.initialMarginPpm);
    this.#bookKnownPositions(ticker);
    this.#marginTickers.push(ticker);
    return book;
  }

  /** Books, trades and marks of new Margin markets on the Margin feed; their limits read before a strategy trades. */
  async #subscribePerps(books: readonly OrderBook[], timeoutMs: number): Promise<void> {
    const feed = this.marginFeed!;
    const tickers = books.map((book) => book.ticker);
    feed.subscribeOrderbooks(tickers);
    feed.subscribe(Channel.TRADE, tickers);
    feed.subscribe(Channel.TICKER, tickers);
    await this.marginAccount?.refresh();
    await this.#adoptTriggers(tickers);
    try {
      await waitFor(() => books.every((book) => book.synced), timeoutMs, 'RUNTIME_START_FAILED', 'no snapshot');
    } catch {
      this.logger.warn({ markets: books.filter((book) => !book.synced).map((book) => book.ticker) }, 'Margin books not synced yet; strategies start anyway');
    }
  }

  /**
   * Positions the OMS adopted from the venue before the market was registered with the gate (the
   * start-up read comes first) reach the gate's ledger now: it drops a position of a market it does
   * not know, and the venue repeats a position only when it changes.
   */
  #bookKnownPositions(ticker: string): void {
    for (const position of this.oms.positions.all()) {
      if (position.ticker === ticker && position.position !== 0) this.gate.onPosition(ticker, position.subaccount, position.position);
    }
  }

  /**
   * The exit triggers the venue holds on these markets' positions (set by an earlier run, or by
   * hand), read into the trigger table so the gate's trigger limits count them: cross per
   * subaccount in use, isolated once (the isolated routes take no subaccount). A failed read is
   * logged; the gate then counts only what this run sets, and the venue still enforces its limits.
   */
  async #adoptTriggers(tickers: readonly string[]): Promise<void> {
    const table = this.graph.exitTriggers;
    if (table === null) return;
    for (const ticker of tickers) {
      try {
        for (const subaccount of this.oms.subaccountsInUse()) await table.reconcile(ticker, subaccount, false);
        await table.reconcile(ticker, 0, true);
      } catch (error) {
        this.logger.warn({ err: error, ticker }, 'reading the exit triggers on a Margin market failed; the gate counts only those this run sets');
      }
    }
  }

  #groupPort(gate: RiskGate): OrderGroupPort {
    // Recorded: a replay creates the same groups when the live run's were answered.
    return gatedOrderGroupPort(gate, this.recorder === null ? this.account : recordingGroupVenue(this.recorder, this.account));
  }
}

const ignore = (): void => {};
const NO_EXEC_LISTENER: ExecListener = {
  onCreateAck: ignore, onCreateReject: ignore, onCreateUnknown: ignore, onCancelAck: ignore, onCancelReject: ignore,
  onCancelUnknown: ignore, onAmendAck: ignore, onAmendReject: ignore, onDecreaseAck: ignore, onDecreaseReject: ignore,
};

function killSwitchStatus(kill: Readonly<RecoveredKill> | null): RuntimeStatus['killSwitch'] {
  return kill === null ? null : { reason: kill.reason, source: kill.source, sinceMs: kill.tsMs };
}

function midPrice(book: OrderBook): number {
  const bid = book.bestBid();
  const ask = book.bestAsk();
  if (bid < 0 || ask < 0) return -1;
  return (bid + ask) / 2;
}

async function waitFor(done: () => boolean, timeoutMs: number, code: RuntimeErrorCode, what: string): Promise<void> {
  const started = Date.now();
  while (!done()) {
    if (Date.now() - started >= timeoutMs) throw new RuntimeError(code, `${what} within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}
