/**
 * A replay: a recording (src/record) run through the trading graph the live runtime builds
 * (src/runtime/trading-graph.ts), with three options of its own: the feed session is a
 * ReplaySession (no socket; it answers the feed's commands), the order-entry route is the
 * ReplayVenue (the simulator's matching engine under a latency and queue-position model), and the
 * clock is a ManualClock set from the recording's receive times. Frames go in through
 * Feed.handleBytes exactly as a socket delivers them, so books, resyncs, strategies, gate, OMS and
 * router run their live code. Faster than real time: nothing waits; time jumps to the next record.
 *
 * What is not replayed: the recording's command replies (the session answers the replay's own
 * commands) and private frames (fill, user_order, market_position, order_group_update: they were
 * the live orders' fate; the venue makes the replay orders' own). Deterministic: no wall clock,
 * no randomness outside the seed, microtasks drained at fixed frame counts, so one recording and
 * one config give the same orders and the same report, byte for byte.
 */

import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ManualClock, PriceGrid, complementPrice, isPriceLevelStructure } from '../core/index.ts';
import type { PriceLevelStructure } from '../core/index.ts';
import { DENY_CODE_COUNT, DENY_NAMES } from '../risk/index.ts';
import { MessageKind } from '../feed/index.ts';
import { STRATEGY_HOST_DEFAULTS } from '../strategy/index.ts';
import type { MarketPort, OrderGroupPort, StrategyEntry } from '../strategy/index.ts';
import { createLogger } from '../telemetry/index.ts';
import type { Logger } from '../telemetry/index.ts';
import { RecordKind } from '../record/index.ts';
import type { RecordedMarket, Recording, SessionFacts } from '../record/index.ts';
import { KeepWarm } from '../runtime/keep-warm.ts';
import type { DeepReadonly, RuntimeConfig } from '../runtime/config.ts';
import { TradingGraph } from '../runtime/trading-graph.ts';
import { gatedOrderGroupPort } from '../runtime/order-group-port.ts';
import { ReplaySession } from './replay-session.ts';
import { ReplayVenue } from './replay-venue.ts';
import type { QueueModel } from './replay-venue.ts';
import { FrameClass } from './frame-class.ts';
import { LiveFills } from './live-fills.ts';
import { PrivateFrames } from './private-frames.ts';
import { prepareReplay } from './replay-prep.ts';
import type { RecordedHops, ReplayPrep } from './replay-prep.ts';
import { type ReplayReport, percentiles } from './report.ts';
import { fixedLatency } from './recorded-latency.ts';
import type { LatencyModel } from './recorded-latency.ts';
import { LiveOrders } from './live-orders.ts';
import { ReplayTicks } from './replay-ticks.ts';

/** Longest wait for the strategies' plugins to load at start, wall-clock ms. */
const PLUGIN_LOAD_WAIT_MS = 60_000;

export interface ReplayOptions {
  recording: Recording;
  config: DeepReadonly<RuntimeConfig>;
  /** Project root: strategy plugin paths are relative to it. */
  rootDir: string;
  /** Request sent -> at the engine, µs (default 500). */
  orderLatencyUs?: number;
  /** Engine -> answer at the OMS, µs (default 500). */
  answerLatencyUs?: number;
  /** Engine -> our fill / order frame at the feed, µs (default 1,000). */
  feedLatencyUs?: number;
  queueModel?: QueueModel;
  /**
   * A trade at a level where the live run rested fills the replay's order as the recording's fill
   * frames say it filled the live one (live-fills.ts), while the replay's order there joined the
   * level after the same public size as the live order did (replay-venue.ts); the queue model
   * decides the rest. `npm run replay` sets it unless `--queue-live off`; a sweep does not (its
   * combinations are compared under one queue model). Default false.
   */
  queueFromLiveFills?: boolean;
  /** Engine id seed (default 1). */
  seed?: number;
  /** Cash per subaccount at the replay venue, centicents (default $1,000,000). */
  cashCenticents?: number;
  /** Stop after this many frames (default: all). */
  framesMax?: number;
  logger?: Logger;
  /**
   * Answer latencies: 'recorded' (the default when the recording has answered requests: each
   * request takes the hops of the nearest live request of its verb, recorded-latency.ts) or
   * 'fixed' (the three latencies above; the default for a recording without requests).
   */
  latency?: 'recorded' | 'fixed';
  /** Period of the OMS and router tick (held intents, pending timeouts) on the recording's clock, ms (default 100, as the main job's). */
  tickMs?: number;
  /** Stamp per-hop wall-clock latency with the tick-to-trade probe (not deterministic; reported apart). */
  measure?: boolean;
  /**
   * The recording's prepared facts (replay-prep.ts), computed once for many replays of it (a
   * sweep); absent: computed here. Must be of this recording.
   */
  prep?: ReplayPrep;
  /**
   * Called every DRAIN_EVERY_FRAMES delivered frames with the FRAME records done so far (delivered
   * and skipped): a progress display. Synchronous and read-only: it adds no await, so it cannot
   * change what the replay does.
   */
  onProgress?: (framesDone: number) => void;
}

/** A configuration the recording cannot replay: a stable code to branch on. */
export class ReplayError extends Error {
  readonly code: 'REPLAY_UNKNOWN_MARKET';
  constructor(code: 'REPLAY_UNKNOWN_MARKET', message: string) {
    super(`${code}: ${message}`);
    this.name = 'ReplayError';
    this.code = code;
  }
}

/** The main job's OMS tick (runtime omsTickMs) and the feed's coarse tick, ms. */
const OMS_TICK_MS = 100;
const FEED_TICK_MS = 250;
/** A recorded user_order frame starts `{"type":"user_order"`. */

/** Frames between microtask drains: fixed, so the drains fall at the same frames every run. */
const DRAIN_EVERY_FRAMES = 256;

/** The options' latency model: fixed when asked or when any fixed latency is given, else the recording's own when it has answered requests. */
function latencyModelOf(options: ReplayOptions, recorded: LatencyModel | null): LatencyModel {
  const fixed = fixedLatency(options.orderLatencyUs ?? 500, options.answerLatencyUs ?? 500, options.feedLatencyUs ?? 1_000);
  const explicit = options.orderLatencyUs !== undefined || options.answerLatencyUs !== undefined || options.feedLatencyUs !== undefined;
  if (options.latency === 'fixed' || (options.latency === undefined && explicit)) return fixed;
  return recorded ?? fixed;
}

export function gridOf(market: RecordedMarket): PriceGrid {
  if (market.priceRanges !== null) return PriceGrid.fromPriceRanges(market.priceRanges);
  const structure = market.priceLevelStructure ?? 'linear_cent';
  if (!isPriceLevelStructure(structure)) throw new Error(`replay: market ${market.ticker} has an unknown price_level_structure ${structure}`);
  return PriceGrid.fromStructure(structure as PriceLevelStructure);
}

export class Replay {
  readonly graph: TradingGraph;
  readonly venue: ReplayVenue;
  readonly clock: ManualClock;
  readonly recording: Recording;
  readonly classes: Uint8Array;
  readonly #seqOks: ReadonlyMap<number, string>;
  readonly #recordedHops: RecordedHops;
  session: ReplaySession | null = null;
  readonly #options: ReplayOptions;
  readonly #entries: StrategyEntry[];
  readonly #workDir: string;
  readonly #startMs: number;
  #framesDelivered = 0;
  #framesSkipped = 0;
  #cursor = 0;
  /** The live runtime's timers on the recording's clock (replay-ticks.ts). */
  readonly ticks = new ReplayTicks();
  /** The recording's budget and order-group facts (null budget: recorded before budgets were). */
  readonly facts: SessionFacts;
  /** The live run's own resting orders as of now (live-orders.ts), left out of the venue's mirror. */
  readonly liveOrders = new LiveOrders();
  /** The live run's private frames, which the replay's feed does not take: read beside it (private-frames.ts). */
  readonly #liveFrames: PrivateFrames;
  readonly latencyModel: LatencyModel;
  readonly keepWarm: KeepWarm | null;
  #hostStart: Promise<void> | null = null;
  #hostStarted = false;
  #hostError: unknown = null;
  readonly #setTimeBound = (ns: number): void => this.#setTime(ns);

  constructor(options: ReplayOptions) {
    this.#options = options;
    const recording = options.recording;
    this.recording = recording;
    this.#liveFrames = new PrivateFrames(recording);
    this.#startMs = recording.startMs;
    const config = options.config;
    const prep = options.prep ?? prepareReplay(recording);
    const classified = prep.frames;
    this.classes = classified.classes;
    this.#seqOks = classified.seqOks;
    this.#recordedHops = prep.hops;
    const markets = prep.markets;
    for (const strategy of config.strategies) {
      for (const ticker of strategy.markets) {
        if (!markets.has(ticker)) throw new ReplayError('REPLAY_UNKNOWN_MARKET', `strategy ${strategy.id} trades ${ticker}, which the recording never added (it has: ${[...markets.keys()].join(', ') || 'no markets'})`);
      }
    }
    this.clock = new ManualClock(recording.startMs);
    this.facts = prep.facts;
    this.latencyModel = latencyModelOf(options, prep.recordedLatency);
    this.#entries = config.strategies as unknown as StrategyEntry[];
    // The OMS journals as live; a replay's journal is scratch, removed by close().
    this.#workDir = mkdtempSync(join(tmpdir(), 'replay-'));
    const log = options.logger ?? createLogger({ level: 'silent', pretty: false });
    let graphRef: TradingGraph | null = null;
    const liveFills = options.queueFromLiveFills === true ? LiveFills.fromRecording(recording, classified.sidsByChannel.has('fill')) : null;
    this.venue = new ReplayVenue({
      markets: [...markets.values()],
      startMs: recording.startMs,
      orderLatencyUs: options.orderLatencyUs ?? 500,
      answerLatencyUs: options.answerLatencyUs ?? 500,
      feedLatencyUs: options.feedLatencyUs ?? 1_000,
      queueModel: options.queueModel ?? 'risk_averse',
      seed: options.seed ?? 1,
      cashCenticents: options.cashCenticents ?? 10_000_000_000,
      subaccounts: [...new Set(this.#entries.map((entry) => entry.subaccount))],
      book: (ticker) => graphRef?.feed.books.get(ticker),
      deliverFrame: (text) => graphRef?.feed.handleFrame(text),
      latency: this.latencyModel,
      liveOwnSize: (ticker, side, price) => this.liveOrders.sizeAt(ticker, side, price),
      liveMakerCount: liveFills === null ? undefined : (tradeId) => liveFills.makerCountOf(tradeId),
      groupTimesNs: this.facts.orderGroups.map((group) => group.createdNs),
    });
    this.graph = new TradingGraph({
      config,
      clock: this.clock,
      logger: log,
      entry: this.venue,
      reads: this.venue,
      feed: {
        url: 'ws://replay.invalid/trade-api/ws/v2',
        auth: null,
        createSession: (sessionOptions) => (this.session = new ReplaySession(sessionOptions, classified.sidsByChannel)),
      },
      journalPath: join(this.#workDir, 'journal.jsonl'),
      recovered: null,
      strategies: this.#entries,
      restrictedSubaccount: -1,
      clientOrderIdPrefix: 'rp',
      rootDir: options.rootDir,
      markets: ({ gate, feed }): MarketPort => ({
        marketHandle: (ticker) => gate.marketHandle(ticker),
        book: (ticker) => feed.books.get(ticker),
        ensureMarkets: async (tickers) => {
          const added: string[] = [];
          for (const ticker of tickers) {
            if (gate.marketHandle(ticker) >= 0) continue;
            const market = markets.get(ticker);
            if (market === undefined) throw new Error(`replay: the recording has no market record for ${ticker}`);
            const grid = gridOf(market);
            const book = feed.addMarket(ticker, grid);
            const handle = gate.addMarket(ticker, grid, book, { open: market.open });
            gate.setMarketCloseTime(handle, market.closeMs ?? Infinity);
            added.push(ticker);
          }
          if (added.length === 0) return;
          feed.subscribeOrderbooks(added);
          feed.subscribe('trade', added);
        },
      }),
      // As the main job's: the gate books the request, the replay venue makes the group.
      // No wait for write tokens: the replay's buckets refill on the recording's clock, not the wall's.
      orderGroups: ({ gate }): OrderGroupPort => gatedOrderGroupPort(gate, this.venue, 0),
      drivenTicks: true,
    });
    graphRef = this.graph;
    const keepWarmMs = config.process.keepWarmMs;
    this.keepWarm = keepWarmMs > 0
      ? new KeepWarm({
        intervalMs: keepWarmMs, limits: this.graph.gate.limits, clock: this.clock, rfq: config.rfq.enabled ? config.rfq.route : null, margin: config.margin.enabled,
        realGate: { gate: this.graph.gate, marginRoute: this.graph.router.marginRoute },
      })
      : null;
    this.#addTicks(keepWarmMs);
    // Per-hop wall-clock stamps only when asked: they read the clock three times a frame.
    this.graph.probe.setEnabled(options.measure === true);
  }

  /** Opens the session, subscribes as the runtime does, starts the strategies. */
  async start(): Promise<void> {
    const feed = this.graph.feed;
    feed.session.start();
    feed.subscribe('fill');
    feed.subscribe('user_orders');
    feed.subscribe('market_lifecycle_v2');
    const session = this.session!;
    // The feed sends its subscribes on a microtask; bounded: they are answered at once.
    for (let turn = 0; turn < 100 && (session.sidOf('fill') < 0 || session.sidOf('user_orders') < 0); turn++) {
      await Promise.resolve();
      this.#drainReplies();
    }
    this.venue.setSids(session.sidOf('fill'), session.sidOf('user_orders'));
    const facts = this.facts;
    const budget = facts.budget;
    // The budgets the live run adopted (tier "auto" became the exchange's answer), not the config's
    // guess, adopted when it adopted them; the strategies start when they did (the buckets refilled meanwhile).
    if (budget !== null) {
      this.#setTime(facts.budgetNs);
      this.graph.gate.budget.setBudget(budget.writePerSecond, budget.writeCapacity, budget.readPerSecond, budget.readCapacity, this.clock.nowMs());
    }
    if (facts.strategiesStartNs >= 0) {
      this.#setTime(facts.strategiesStartNs);
      this.venue.setNow(facts.strategiesStartNs);
    }
    // Started as live: markets, then each order group, answered when the live one was (the venue
    // holds it until the recording's clock gets there), then onStart. Waits here only for what
    // needs no recorded time (loading the plugins).
    const hostStart = this.graph.host.start(this.#entries).then(() => {
      this.#hostStarted = true;
    }, (error: unknown) => {
      this.#hostStarted = true;
      this.#hostError = error;
    });
    this.#hostStart = hostStart;
    // Bounded in time, not turns: plugin loading is real I/O (a slow or loaded machine takes many
    // turns for it, and stopping early would start the replay without its strategies); after it the
    // start runs on microtasks until a group waits.
    const loadDeadlineMs = Date.now() + PLUGIN_LOAD_WAIT_MS;
    while (!this.#hostStarted && this.venue.groupsPending === 0 && Date.now() < loadDeadlineMs) await new Promise<void>((resolve) => setImmediate(resolve));
    this.#throwHostError();
    this.#drainReplies();
  }

  /** The main job's timers as tasks on the recording's clock, at the main job's periods. */
  #addTicks(keepWarmMs: number): void {
    const graph = this.graph;
    const start = this.#startMs;
    graph.feed.tick(start);
    this.ticks.add('feed', FEED_TICK_MS, start, (nowMs) => graph.feed.tick(nowMs));
    this.ticks.add('host', STRATEGY_HOST_DEFAULTS.tickMs, start, () => graph.host.tick());
    this.ticks.add('oms', this.#options.tickMs ?? OMS_TICK_MS, start, () => {
      graph.quoteBook?.tick();
      // A reconciliation round reads the venue (the engine): it settles on microtasks.
      graph.router.tick()?.catch(() => undefined);
    });
    const keepWarm = this.keepWarm;
    if (keepWarm !== null) this.ticks.add('keep-warm', keepWarmMs, start, () => keepWarm.runOnce());
  }

  #throwHostError(): void {
    if (this.#hostError !== null) throw this.#hostError;
  }

  /** Replays every frame (or options.framesMax), lets what is in flight land, and returns the report. */
  async run(): Promise<ReplayReport> {
    await this.advance(this.#options.framesMax ?? Infinity);
    return this.finish();
  }

  /**
   * Replays frames from where the last call stopped until `framesTotal` frames have been delivered
   * in all (or the recording ends). Tests stop mid-recording with it to look at the books.
   */
  async advance(framesTotal: number): Promise<void> {
    const recording = this.recording;
    const { kinds, timesNs, bodyStarts, bodyLengths, bytes, count } = recording;
    const classes = this.classes;
    const feed = this.graph.feed;
    const venue = this.venue;
    let sinceDrain = 0;
    let i = this.#cursor;
    for (; i < count && this.#framesDelivered < framesTotal; i++) {
      if (kinds[i] !== RecordKind.FRAME) continue;
      const frameClass = classes[i];
      const timeNs = timesNs[i];
      if (frameClass === FrameClass.SKIP) {
        this.#framesSkipped++;
        // The live run's own orders: not replayed, but kept out of the venue's mirror of the book.
        if (this.#liveFrames.read(i, 'user_order')) {
          this.#runUntil(timeNs);
          this.liveOrders.onUserOrder(this.#liveFrames.decoder.userOrder);
        }
        continue;
      }
      // Bounded: each round answers one of the recording's order groups.
      while (this.#runUntil(timeNs)) await this.#settleHost();
      this.#setTime(timeNs);
      venue.setNow(timeNs);
      const start = bodyStarts[i];
      if (frameClass === FrameClass.SEQ_OK) feed.handleFrame(this.#seqOks.get(i)!);
      else feed.handleBytes(bytes, start, start + bodyLengths[i]);
      // The decoder's trade record is this frame's only if the frame decoded as a trade.
      if (frameClass === FrameClass.TRADE && feed.hop.kind === MessageKind.TRADE) {
        const trade = feed.decoder.trade;
        venue.onRecordedTrade(trade.marketTicker, trade.yesPrice, trade.count, trade.takerBookSide, trade.tradeId);
      } else if (frameClass === FrameClass.DELIVER && feed.hop.kind === MessageKind.ORDERBOOK_DELTA) this.#onRecordedDelta(i);
      this.#framesDelivered++;
      // A break queued a get_snapshot (a microtask, as live): let it go out before the next frame, as it would live.
      if (feed.resync.queuedCount !== 0) {
        await Promise.resolve();
        this.#drainReplies();
      }
      if (++sinceDrain === DRAIN_EVERY_FRAMES) {
        sinceDrain = 0;
        this.#options.onProgress?.(this.#framesDelivered + this.#framesSkipped);
        await Promise.resolve(); // microtasks only (resync drains, strategy promises): no timer, no I/O
        this.#drainReplies();
      }
    }
    this.#cursor = i;
  }

  /** A delivered delta (record `i`) to the live orders' sizes and the venue's mirror (replay-venue.ts onRecordedDelta). */
  #onRecordedDelta(i: number): void {
    const delta = this.graph.feed.decoder.delta;
    // The feed asks for NO levels at NO prices (no use_yes_price): side 1 is the ask at 1 - price.
    const side = delta.side === 0 ? 'bid' : 'ask';
    const yesPrice = delta.side === 0 ? delta.price : complementPrice(delta.price);
    const own = delta.clientOrderId !== '';
    if (own) this.liveOrders.onOwnDelta(delta.marketTicker, side, yesPrice, delta.delta);
    // Only a decrease can be a trade's: the look-ahead is skipped for the rest.
    this.venue.onRecordedDelta(delta.marketTicker, side, yesPrice, delta.delta, own, delta.delta < 0 && this.#nextFrameIsTrade(i));
  }

  /** Whether the frame after record `i` (skipping the recording's other kinds) is a public trade. */
  #nextFrameIsTrade(i: number): boolean {
    const { kinds, count } = this.recording;
    // Bounded: a few non-frame records (orders, answers) lie between two frames at most.
    for (let j = i + 1; j < count && j < i + 64; j++) if (kinds[j] === RecordKind.FRAME) return this.classes[j] === FrameClass.TRADE;
    return false;
  }

  /** What is still in flight lands (bounded: one more second of the recording's clock); the report. */
  async finish(): Promise<ReplayReport> {
    const recording = this.recording;
    const endNs = (recording.count === 0 ? 0 : recording.timesNs[recording.count - 1]) + 1e9;
    while (this.#runUntil(endNs)) await this.#settleHost();
    await Promise.resolve();
    this.#throwHostError();
    return this.report();
  }

  /** Stops the strategies and removes the scratch journal. */
  async close(): Promise<void> {
    this.graph.host.halt();
    this.graph.feed.session.stop();
    await this.graph.oms.stop();
    rmSync(this.#workDir, { recursive: true, force: true });
  }

  get framesDelivered(): number {
    return this.#framesDelivered;
  }

  #setTime(timeNs: number): void {
    const ms = this.#startMs + Math.floor(timeNs / 1e6);
    if (ms > this.clock.nowMs()) this.clock.set(ms);
  }

  /**
   * Runs, in time order, the venue's events and the timers' ticks due up to `timeNs`, each at its
   * own time. Returns true when it stopped because an order group was answered: the caller lets
   * the strategy's start go on (settleHost) before anything later runs.
   */
  #runUntil(timeNs: number): boolean {
    const venue = this.venue;
    const ticks = this.ticks;
    // Bounded: every round runs at least one event or one tick, and both are finite before timeNs.
    for (let round = 0; round < 10_000_000; round++) {
      const tickNs = (ticks.nextDueMs() - this.#startMs) * 1e6;
      const eventNs = venue.nextEventNs();
      if (tickNs > timeNs && eventNs > timeNs) return false;
      if (eventNs < tickNs) {
        const pending = venue.groupsPending;
        venue.runUntil(Math.min(timeNs, tickNs - 1), this.#setTimeBound);
        if (venue.groupsPending < pending) return true;
        continue;
      }
      this.#setTime(tickNs);
      venue.setNow(tickNs);
      ticks.runDue(this.clock.nowMs());
      this.#drainReplies();
    }
    return false;
  }

  /** An order group was answered: the strategy's start goes on (microtasks only) to its onStart or its next group. */
  async #settleHost(): Promise<void> {
    for (let turn = 0; turn < 1_000 && !this.#hostStarted && this.venue.groupsPending === 0; turn++) await Promise.resolve();
    this.#throwHostError();
    this.#drainReplies();
  }

  #drainReplies(): void {
    this.session?.deliverReplies((text) => this.graph.feed.handleFrame(text));
  }

  report(): ReplayReport {
    const graph = this.graph;
    const recording = this.recording;
    const denyCounts = graph.host.denyCounts(new Float64Array(DENY_CODE_COUNT));
    const denies: Record<string, number> = {};
    for (let code = 1; code < denyCounts.length; code++) if (denyCounts[code] !== 0) denies[DENY_NAMES[code]] = denyCounts[code];
    const positions: ReplayReport['positions'] = [];
    let pnlMicro = 0;
    for (const position of graph.oms.positions.all()) {
      const book = graph.feed.books.get(position.ticker);
      const bid = book === undefined ? -1 : book.bestBid();
      const ask = book === undefined ? -1 : book.bestAsk();
      // Integer micro-dollars: price (1e-4 $) x count (1e-2 contract), the mid's half rounded down.
      const marked = bid < 0 || ask < 0 ? 0 : Math.floor(((bid + ask) * position.position) / 2) - position.costMicro;
      const pnl = position.realizedMicro + marked - position.feesCenticents * 100;
      pnlMicro += pnl;
      if (position.position !== 0 || position.volume !== 0) positions.push({ subaccount: position.subaccount, ticker: position.ticker, position: position.position, pnlMicro: pnl });
    }
    positions.sort((a, b) => (a.ticker < b.ticker ? -1 : a.ticker > b.ticker ? 1 : a.subaccount - b.subaccount));
    const counters = graph.feed.counters;
    const venue = this.venue.stats;
    const report: ReplayReport = {
      recording: { records: recording.count, frames: this.#framesDelivered + this.#framesSkipped, truncatedTailBytes: recording.truncatedTailBytes, durationMs: recording.count === 0 ? 0 : Math.floor(recording.timesNs[recording.count - 1] / 1e6) },
      replay: { framesDelivered: this.#framesDelivered, framesSkipped: this.#framesSkipped, endMs: this.clock.nowMs() },
      orders: { sha256: createHash('sha256').update(this.venue.log.join('\n')).digest('hex'), sent: graph.oms.stats.ordersSent, creates: venue.creates, cancels: venue.cancels, amends: venue.amends, decreases: venue.decreases, venueRejects: venue.rejects, venueRejectsByCode: Object.fromEntries([...venue.rejectCodes].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) },
      fills: { count: venue.fills, contracts: venue.filledCount, mirrorTrades: venue.mirrorTrades, tradesAsLive: venue.tradesAsLive, tradesNotCounterpart: venue.tradesNotCounterpart },
      denies,
      pnlMicro,
      positions,
      book: { seqGaps: counters.seqGaps, resyncsRequested: counters.resyncsRequested, resyncsCompleted: counters.resyncsCompleted, snapshotsApplied: counters.snapshotsApplied, deltasApplied: counters.deltasApplied, outOfSync: counters.outOfSync },
      hopsUs: {
        recordedFrameToOrder: { ...this.#recordedHops.frameToOrder },
        recordedOrderToAnswer: { ...this.#recordedHops.orderToAnswer },
        replayOrderToAck: percentiles(venue.ackLatencyUs),
      },
    };
    if (this.#options.measure === true) {
      const total = graph.probe.total.summary();
      report.measuredWallClockNs = { tickToTradeP50: total.p50, tickToTradeP99: total.p99, count: total.count };
    }
    return report;
  }
}

export type { ReplayReport };
export { DRAIN_EVERY_FRAMES };
