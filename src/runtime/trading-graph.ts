/**
 * The one graph builder: every component of the trading path, built and connected once, the same
 * way for the main job (runtime.ts), the integration tests (through Runtime) and every bench that
 * measures the runtime (bench/hot-path, bench/tick-to-trade). What differs between them comes in
 * as options, never as a second wiring: the order-entry route (REST, or a sink), the reads the OMS
 * reconciles with, the feed session (the exchange's WebSocket, or a stub fed by a driver), the
 * clock, and how a market is looked up when a strategy asks for it. A replay (src/replay) builds
 * this same graph from a recording: a replay session, a replay venue route, the recording's clock.
 * With a recorder (config record.enabled) the feed's frames and the routes' requests and answers
 * are tapped into it; without one nothing is wrapped.
 *
 *   WS frame (or FIX W/X, feed.source "fix") -> feed decode -> book apply -> RuntimeFeedListener -> StrategyHost -> strategy
 *     -> Router: RiskGate.check -> Oms.accept -> route (bytes out) ; route answers -> Oms -> gate
 *   `communications` frame (or KalshiRFQ R/AI/8, rfq.route "fix") -> RuntimeFeedListener -> QuoteBook -> StrategyHost.onRfq / onQuoteUpdate -> strategy
 *     -> QuoteRouter: RiskGate.checkQuote -> QuoteBook.accept (-> gate's ledger) -> quote route (REST or FIX, off the book path)
 *
 * With `workers` (the main job and the integration tests, through Runtime) it also builds the
 * main-thread halves of the worker pool's work, wired in at construction: the CandleFeed (the
 * feed listener appends trades and top changes; strategies read ctx.candles) and the
 * PortfolioRiskPublisher (reads the gate's ledger and the OMS's cost basis; publishes the
 * PortfolioView the gate checks). The pool itself is started by Runtime.start().
 *
 * The probe is handed to the components that stamp it (the router, the gate's verdict, the feed's
 * hop record); nothing is wrapped after construction. Wiring only: every decision lives in the
 * component that owns it.
 */

import { PRICE_ONE } from '../core/index.ts';
import type { Clock, Exchange } from '../core/index.ts';
import { Feed, FixMarketData } from '../feed/index.ts';
import type { FeedOptions, FixMarketDataOptions } from '../feed/index.ts';
import { EXIT_TRIGGER_TABLE_DEFAULTS, ExitTriggerTable, Journal, Oms, QuoteBook, TRIGGER_STATE_NAMES } from '../oms/index.ts';
import type { ExitTriggerVenue, OrderEntry, OrderReads, QuoteEntry, RecoveredJournal, SystemOrder } from '../oms/index.ts';
import { PortfolioView, RiskGate, TradingState, riskLimits } from '../risk/index.ts';
import type { RiskLimits } from '../risk/index.ts';
import { MarketRegistry } from '../market/index.ts';
import { QuoteRouter, Router } from '../router/index.ts';
import { StrategyHost } from '../strategy/index.ts';
import type { ExitTriggerAnswer, MarketPort, OrderGroupPort, StrategyEntry, TriggerPort } from '../strategy/index.ts';
import type { Logger } from '../telemetry/index.ts';
import { CandleFeed, PortfolioRiskPublisher } from '../workers/index.ts';
import { RecordingOrderEntry } from '../record/index.ts';
import type { Recorder } from '../record/index.ts';
import type { DeepReadonly, RuntimeConfig } from './config.ts';
import { RuntimeFeedListener } from './runtime-feed-listener.ts';
import { TickToTradeProbe } from './tick-to-trade-probe.ts';

export interface TradingGraphOptions {
  config: DeepReadonly<RuntimeConfig>;
  clock: Clock;
  logger: Logger;
  /** The order-entry route: RestOrderEntry in production, a sink in the hot-path bench. */
  entry: OrderEntry;
  /** The venue reads reconciliation uses (the account client; off the hot path). */
  reads: OrderReads;
  /**
   * Routes beyond the default one (FIX by name, config strategies[].route; the Margin route, which
   * the router picks for a Margin market's orders), each with the exchange it serves.
   */
  moreRoutes?: readonly { readonly name: string; readonly entry: OrderEntry; readonly exchange?: Exchange }[];
  /** The Margin route's reads (reconciliation of Margin orders, Margin positions); null: no Margin route. */
  marginReads?: OrderReads | null;
  /** The Margin exchange's exit-trigger client (the trigger table's venue port); null: no Margin route. */
  exitTriggers?: ExitTriggerVenue | null;
  /** The Margin WebSocket (config margin.enabled): books, mark prices, user orders and fills of perpetuals. Null: none. */
  marginFeed?: Pick<FeedOptions, 'url' | 'auth' | 'createSession'> | null;
  /**
   * The quote route (config rfq.enabled: REST /communications/quotes); null or absent: no quote
   * book, `communications` messages ignored, ctx.quote answers INTENT_INVALID.
   */
  quoteEntry?: QuoteEntry | null;
  /** The feed: the exchange's URL and key, or `createSession` for a driver-fed stub. */
  feed: Pick<FeedOptions, 'url' | 'auth' | 'createSession'>;
  /**
   * config feed.source "fix": the KalshiMD endpoint and key. Its books are the feed's (one store,
   * one registry); the WebSocket feed then carries only the other channels. Null: books from the WebSocket.
   */
  marketData?: Omit<FixMarketDataOptions, 'books' | 'markets' | 'clock' | 'logger'> | null;
  journalPath: string;
  /** What an earlier run left in the journal (null: a fresh journal). */
  recovered: RecoveredJournal | null;
  /** The strategies the host will run (their subaccounts are the OMS's). */
  strategies: readonly StrategyEntry[];
  /** The subaccount a restricted API key is locked to, -1 for a full-account key. */
  restrictedSubaccount: number;
  /** Client order id prefix, [A-Za-z0-9_]{1,16}. */
  clientOrderIdPrefix: string;
  /** Project root: plugin paths are relative to it. */
  rootDir: string;
  /** How the host finds a market a strategy asks for, given the graph's gate and feed. */
  markets: (parts: { gate: RiskGate; feed: Feed }) => MarketPort;
  /** Order-group creation for strategies that configure one; null where there is no venue. */
  orderGroups: ((parts: { gate: RiskGate }) => OrderGroupPort) | null;
  pendingTimeoutMs?: number;
  unknownGraceMs?: number;
  reconcileIntervalMs?: number;
  drainTimeoutMs?: number;
  /**
   * Build the worker pool's main-thread halves as config.workers says (default false: the benches,
   * which measure the hot path alone and start no pool).
   */
  workers?: boolean;
  /**
   * The session recorder (config record.enabled; src/record): taps the feed's frames and sits
   * between the router and every route to record orders and answers. Null or absent: no tap at all.
   */
  recorder?: Recorder | null;
  /**
   * The caller ticks the strategy host itself, on its own clock (a replay: the recording's); the
   * host then starts no interval timer. Default false: the host's own timer.
   */
  drivenTicks?: boolean;
}

/** The risk limits the gate enforces, from the validated config's `risk` section. */
export function limitsFromConfig(config: DeepReadonly<RuntimeConfig>, restrictedSubaccount: number): RiskLimits {
  const risk = config.risk;
  return riskLimits({
    orderCountMax: risk.maxOrderCount,
    orderNotionalMax: risk.maxOrderNotionalDollars,
    marketPositionMax: risk.maxPositionPerMarket,
    subaccountPositionMax: risk.maxPositionPerSubaccount,
    subaccountNotionalMax: risk.maxRestingExposureDollars,
    // "auto": Basic, the smallest budget, until the runtime reads the account's limits at start.
    rateTier: risk.rateLimitTier === 'auto' ? 'basic' : risk.rateLimitTier,
    cancelReserveShare: risk.cancelReserveFraction,
    arrivalSkewMs: risk.arrivalSkewMs,
    restrictedSubaccount,
    // Staleness is the feed's job (feed.staleBookMs marks a silent book out of sync).
    bookStaleMs: 0,
    worstLossSubaccountMax: risk.maxWorstCaseLossPerSubaccountDollars,
    worstLossEventMax: risk.maxWorstCaseLossPerEventDollars,
    portfolioStaleMs: risk.portfolioSnapshotMaxAgeMs,
    openQuotesMax: config.rfq.maxOpenQuotes,
    marginLeverageMax: config.margin.maxLeverage,
    marginPriceBandBps: config.margin.priceBandBps,
  });
}

/** The trading state config risk.tradingState asks for. */
export function configuredTradingState(config: DeepReadonly<RuntimeConfig>): TradingState {
  const state = config.risk.tradingState;
  return state === 'halted' ? TradingState.HALTED : state === 'reducing' ? TradingState.REDUCING : TradingState.ACTIVE;
}

export class TradingGraph {
  readonly probe = new TickToTradeProbe();
  /** The one registry of markets: the feed, its books, the gate and the OMS share its indexes. */
  readonly markets = new MarketRegistry();
  readonly gate: RiskGate;
  readonly feed: Feed;
  /** The FIX market-data source (feed.source "fix"), null when books come from the WebSocket. */
  readonly marketData: FixMarketData | null;
  readonly entry: OrderEntry;
  readonly journal: Journal;
  readonly oms: Oms;
  readonly router: Router;
  /** Our RFQ quotes and the RFQs open (null without a quote route). */
  readonly quoteBook: QuoteBook | null;
  readonly quoteRouter: QuoteRouter | null;
  readonly listener: RuntimeFeedListener;
  /** The Margin WebSocket feed and its listener (config margin.enabled), null otherwise. */
  readonly marginFeed: Feed | null;
  readonly marginListener: RuntimeFeedListener | null;
  /** Exit triggers on Margin positions (null without a Margin route). */
  readonly exitTriggers: ExitTriggerTable | null;
  readonly host: StrategyHost;
  /** Live candlesticks (null: workers or candles off). */
  readonly candles: CandleFeed | null;
  /** Portfolio risk for the gate (null: workers or portfolio risk off). */
  readonly portfolio: PortfolioRiskPublisher | null;

  constructor(options: TradingGraphOptions) {
    const { config, clock, logger: log } = options;
    const probe = this.probe;
    const workers = options.workers === true && config.workers.enabled ? config.workers : null;
    const portfolioView = workers !== null && workers.portfolioRisk ? new PortfolioView() : null;
    this.gate = new RiskGate({
      limits: limitsFromConfig(config, options.restrictedSubaccount),
      clock,
      tradingState: configuredTradingState(config),
      verdictProbe: probe,
      markets: this.markets,
      portfolio: portfolioView,
    });
    const recorder = options.recorder ?? null;
    this.feed = new Feed({
      ...options.feed,
      frameTap: recorder === null ? null : recorder.frameTap,
      markets: this.markets,
      logger: log.child({ component: 'feed' }),
      clock,
      staleBookMs: config.feed.staleBookMs,
      reconnectMinMs: config.feed.reconnectBackoffMinMs,
      reconnectMaxMs: config.feed.reconnectBackoffMaxMs,
      commandsPerSec: config.feed.commandsPerSecond,
      turnBudgetUs: config.feed.turnBudgetUs,
    });
    const md = options.marketData ?? null;
    this.marketData = md === null ? null : new FixMarketData({
      ...md,
      books: this.feed.books,
      markets: this.markets,
      clock,
      logger: log.child({ component: 'fix-md' }),
      reconnectMinMs: md.reconnectMinMs ?? config.feed.reconnectBackoffMinMs,
      reconnectMaxMs: md.reconnectMaxMs ?? config.feed.reconnectBackoffMaxMs,
    });
    this.entry = recorder === null ? options.entry : new RecordingOrderEntry(recorder, options.entry, 'rest');
    const moreRoutes = recorder === null || options.moreRoutes === undefined
      ? options.moreRoutes
      : options.moreRoutes.map((route) => ({ name: route.name, entry: new RecordingOrderEntry(recorder, route.entry, route.name), exchange: route.exchange }));
    const marginRouteAt = (moreRoutes ?? []).findIndex((route) => route.exchange === 'margin');
    const marginReads = options.marginReads ?? null;
    this.journal = new Journal(options.journalPath);
    this.oms = new Oms({
      reads: options.reads,
      listener: this.gate,
      clock,
      clientOrderIdPrefix: options.clientOrderIdPrefix,
      journal: this.journal,
      recovered: options.recovered,
      logger: log.child({ component: 'oms' }),
      // A restricted key can see (and cancel in) its own subaccount only.
      subaccounts: options.restrictedSubaccount >= 0 ? [options.restrictedSubaccount] : [...new Set(options.strategies.map((entry) => entry.subaccount))],
      pendingTimeoutMs: options.pendingTimeoutMs,
      unknownGraceMs: options.unknownGraceMs,
      reconcileIntervalMs: options.reconcileIntervalMs,
      margin: marginRouteAt < 0 || marginReads === null ? null : { reads: marginReads, route: marginRouteAt + 1 },
    });
    probe.controlStamps(this.feed.hop);
    this.router = new Router({ gate: this.gate, oms: this.oms, route: this.entry, moreRoutes, clock, probe, batchUnsigned: options.config.exec.batchUnsigned });
    const quoteEntry = options.quoteEntry ?? null;
    this.quoteBook = quoteEntry === null ? null : new QuoteBook({
      clock,
      journal: this.journal,
      logger: log.child({ component: 'quote-book' }),
      recovered: options.recovered?.quotes ?? [],
      onOpenCount: (count) => this.gate.setOpenQuotes(count),
      onExposure: (quote) => this.gate.onQuoteChange(quote), // open quotes count as resting in the ledger
    });
    this.gate.setOpenQuotes(this.quoteBook === null ? 0 : this.quoteBook.openCount);
    this.quoteRouter = quoteEntry === null || this.quoteBook === null ? null : new QuoteRouter({ gate: this.gate, quotes: this.quoteBook, route: quoteEntry });
    this.listener = new RuntimeFeedListener(this.feed.hop, this.oms, this.gate, probe, log.child({ component: 'feed-listener' }));
    this.listener.setQuotes(this.quoteBook);
    this.feed.setListener(this.listener);
    const marginFeed = options.marginFeed ?? null;
    this.marginFeed = marginFeed === null ? null : new Feed({
      ...marginFeed,
      venue: 'margin',
      frameTap: null, // a recording holds the Predictions feed's frames (replay decodes one venue); Margin orders are still recorded
      markets: this.markets,
      logger: log.child({ component: 'margin-feed' }),
      clock,
      staleBookMs: config.feed.staleBookMs,
      reconnectMinMs: config.feed.reconnectBackoffMinMs,
      reconnectMaxMs: config.feed.reconnectBackoffMaxMs,
      commandsPerSec: config.feed.commandsPerSecond,
      turnBudgetUs: config.feed.turnBudgetUs,
    });
    // Its own listener: the tick-to-trade probe reads the hop stamps of the feed the frame came on.
    this.marginListener = this.marginFeed === null ? null : new RuntimeFeedListener(this.marginFeed.hop, this.oms, this.gate, probe, log.child({ component: 'margin-feed-listener' }));
    if (this.marginFeed !== null && this.marginListener !== null) this.marginFeed.setListener(this.marginListener);
    this.marketData?.setListener(this.listener);
    const candles = workers !== null && workers.candles
      ? new CandleFeed({
          intervals: workers.candleIntervalsMinutes,
          kept: workers.candlesKept,
          marketsMax: workers.candleMarketsMax,
          batchRows: workers.candleBatchRows,
          batchCount: 4,
          nowMs: () => clock.nowMs(),
        })
      : null;
    this.candles = candles;
    this.listener.setCandles(candles);
    this.marginListener?.setCandles(candles);
    this.portfolio = portfolioView === null || workers === null
      ? null
      : new PortfolioRiskPublisher({
          ledger: this.gate.exposure,
          view: portfolioView,
          costMicro: (subaccount, market, position) => this.#costMicro(subaccount, market, position),
          nowMs: () => clock.nowMs(),
          debounceMs: workers.portfolioDebounceMs,
          refreshMs: workers.portfolioRefreshMs,
          onFailure: (error) => log.warn({ err: error, component: 'portfolio-risk' }, 'portfolio risk recompute failed; retried at the next tick (the snapshot ages meanwhile)'),
        });
    const triggerVenue = options.exitTriggers ?? null;
    this.exitTriggers = triggerVenue === null ? null : new ExitTriggerTable({
      ...EXIT_TRIGGER_TABLE_DEFAULTS,
      venue: triggerVenue,
      gate: (intent, live) => this.gate.checkTrigger(intent, live),
      markets: this.markets,
      // The OMS keeps one position per (subaccount, ticker); an isolated slot is the same position here.
      positionOf: (market, subaccount) => {
        const position = this.oms.position(subaccount, this.markets.tickerAt(market));
        return position === undefined ? 0 : Math.abs(position.position);
      },
    });
    if (this.exitTriggers !== null) {
      const triggers = this.exitTriggers;
      const triggerLog = log.child({ component: 'exit-triggers' });
      // An order a trigger fired comes as a system order: tie it to its trigger (logged, bounded).
      this.oms.setSystemOrderSink((order: Readonly<SystemOrder>) => {
        if (order.reason !== 'take_profit_stop_loss' || triggers.triggerOfOrder(order.orderId) !== null) return;
        void triggers.linkOrder(order.orderId, order.ticker, order.subaccount).then(
          (trigger) => triggerLog.info({ orderId: order.orderId, ticker: order.ticker, triggerId: trigger?.triggerId ?? null }, 'exit trigger fired'),
          (error: unknown) => triggerLog.warn({ err: error, orderId: order.orderId }, 'linking a fired order to its trigger failed'),
        );
      });
    }
    this.host = new StrategyHost({
      ports: {
        triggers: this.exitTriggers === null ? null : triggerPort(this.exitTriggers),
        orders: this.router,
        quotes: this.quoteRouter,
        markets: options.markets({ gate: this.gate, feed: this.feed }),
        candles: candles === null ? null : { candles: (ticker, intervalMinutes) => candles.view(ticker, intervalMinutes) },
        orderGroups: options.orderGroups === null ? null : options.orderGroups({ gate: this.gate }),
        clock,
        logger: log.child({ component: 'strategy' }),
      },
      rootDir: options.rootDir,
      drainTimeoutMs: options.drainTimeoutMs,
      drivenTicks: options.drivenTicks === true,
    });
    this.oms.setUpdateSink(this.host);
    this.router.setHeldListener(this.host);
    this.quoteBook?.setUpdateSink(this.host);
    this.listener.setHost(this.host);
    this.marginListener?.setHost(this.host);
  }

  /**
   * The OMS's cost basis of `position` (the gate's count) in YES terms, micro-dollars; scaled to
   * the average price when the counts differ (a venue position adopted), and the worst cost when
   * unknown: $1 a contract long, nothing received short.
   */
  #costMicro(subaccount: number, market: number, position: number): number {
    const entry = this.markets.at(market);
    const known = entry === undefined ? undefined : this.oms.position(subaccount, entry.ticker);
    if (known !== undefined && known.position !== 0 && (known.position > 0) === (position > 0)) {
      return known.position === position ? known.costMicro : Math.round((known.costMicro * position) / known.position);
    }
    return position > 0 ? position * PRICE_ONE : 0;
  }
}

/** The strategies' trigger port over the table: its answer in the strategy API's terms. */
function triggerPort(table: ExitTriggerTable): TriggerPort {
  return {
    async submit(intent): Promise<ExitTriggerAnswer> {
      const result = await table.submit(intent);
      const record = result.record;
      return {
        deny: result.deny as ExitTriggerAnswer['deny'],
        triggerId: record === null ? '' : record.triggerId,
        state: record === null ? '' : TRIGGER_STATE_NAMES[record.state],
        error: result.error === null ? '' : result.error.code,
      };
    },
  };
}
