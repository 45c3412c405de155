/**
 * The runtime's Prometheus metrics (prom-client, text format), served by telemetry's
 * MetricsServer when telemetry.metrics.enabled. Every value is read when scraped: one
 * runtime.status() per scrape (taken in beforeScrape), the tick-to-trade probe's hop histograms
 * (reading them drains the probe's ring, as every reader does, off the frame), and the plain
 * integer counters the feed, feed listener and OMS already keep. Nothing here is incremented per
 * frame, so the hot path pays nothing for the metrics; a scrape costs about what a status line does.
 *
 * Counters are set from the owner's running totals at scrape time (reset, then inc by the total):
 * they only go down when the runtime restarts, which Prometheus reads as a counter reset.
 * Owns the metric definitions only; decides nothing.
 */

import { Counter, Gauge, Registry } from 'prom-client';
import { ConnectionState } from '../feed/index.ts';
import { HdrHistogramMetric, MetricsServer, registerHdrHistogram } from '../telemetry/index.ts';
import type { Logger } from '../telemetry/index.ts';
import type { MetricsConfig } from './config.ts';
import type { Runtime, RuntimeStatus } from './runtime.ts';
import { HOP_NAMES } from './tick-to-trade-probe.ts';

/** What the metrics read: the runtime's read-only surface. */
export type MetricsSource = Pick<Runtime, 'status' | 'probe' | 'feed' | 'listener' | 'oms' | 'fix' | 'marketData'>;

export const METRIC_PREFIX = 'trading_';
const FEED_STATES: readonly string[] = Object.values(ConnectionState);
/** Dollars per micro-dollar; contracts per count unit (1/100 contract). */
const DOLLARS_PER_MICRO = 1e-6;
const CONTRACTS_PER_COUNT = 0.01;

/**
 * Defines every metric on a fresh Registry. `refresh()` takes the scrape's one status snapshot;
 * the collect() callbacks read it (MetricsServer calls refresh before each scrape).
 */
export function createRuntimeMetrics(source: MetricsSource): { registry: Registry; refresh: () => void } {
  const registry = new Registry();
  let status: RuntimeStatus | null = null;
  const refresh = (): void => {
    status = source.status();
  };
  const now = (): RuntimeStatus => status ?? source.status();
  const name = (suffix: string): string => `${METRIC_PREFIX}${suffix}`;

  registerHdrHistogram(registry, new HdrHistogramMetric({
    name: name('hop_latency_seconds'),
    help: 'Tick-to-trade latency per hop (decode, book, strategy, risk, oms, exec) and in total, frame received to order handed to the socket, for the first order each book frame causes.',
    labelName: 'hop',
    recorders: () => HOP_NAMES.map((hop) => [hop, source.probe.recorder(hop)] as const),
  }));

  const counter = (suffix: string, help: string, read: () => number): void => {
    new Counter({ name: name(suffix), help, registers: [registry], collect() {
      this.reset();
      this.inc(read());
    } });
  };
  const gauge = (suffix: string, help: string, read: () => number): void => {
    new Gauge({ name: name(suffix), help, registers: [registry], collect() {
      this.set(read());
    } });
  };

  counter('orders_sent_total', 'Orders sent to the venue.', () => now().ordersSent);
  gauge('orders_open', 'Orders live at the venue (acknowledged or pending).', () => now().openOrders);
  counter('fills_total', 'Fills received, duplicates excluded.', () => now().fills);
  new Counter({ name: name('denies_total'), help: 'Intents the risk gate denied, by deny code.', labelNames: ['code'], registers: [registry], collect() {
    this.reset();
    for (const [code, count] of Object.entries(now().denies)) this.inc({ code }, count);
  } });
  new Gauge({ name: name('position_contracts'), help: 'Signed position in contracts, per subaccount and market.', labelNames: ['subaccount', 'ticker'], registers: [registry], collect() {
    this.reset();
    for (const p of now().positions) this.set({ subaccount: p.subaccount, ticker: p.ticker }, p.position * CONTRACTS_PER_COUNT);
  } });
  new Gauge({ name: name('position_pnl_dollars'), help: 'Realized minus fees plus the open position marked at the book mid, dollars, per subaccount and market.', labelNames: ['subaccount', 'ticker'], registers: [registry], collect() {
    this.reset();
    for (const p of now().positions) this.set({ subaccount: p.subaccount, ticker: p.ticker }, p.pnlMicro * DOLLARS_PER_MICRO);
  } });
  gauge('pnl_dollars', 'Total PnL over every position, dollars (realized minus fees plus marked at the mid).', () => now().pnlMicro * DOLLARS_PER_MICRO);
  gauge('books_synced', 'Order books in sync with the venue.', () => now().booksSynced);
  gauge('books_total', 'Order books the feed keeps.', () => now().booksTotal);
  new Gauge({ name: name('feed_state'), help: 'The WebSocket feed connection: 1 for its current state, 0 for the others.', labelNames: ['state'], registers: [registry], collect() {
    const current = now().feedState;
    this.reset();
    for (const state of FEED_STATES) this.set({ state }, state === current ? 1 : 0);
  } });
  new Gauge({ name: name('session_state'), help: 'FIX sessions (order entry "fix", market data "fix_md"): 1 for the current state label.', labelNames: ['session', 'state'], registers: [registry], collect() {
    this.reset();
    if (source.fix !== null) this.set({ session: 'fix', state: source.fix.sessionState }, 1);
    if (source.marketData !== null) this.set({ session: 'fix_md', state: source.marketData.sessionState }, 1);
  } });
  counter('feed_reconnects_total', 'Feed connections opened after the first (reconnects).', () => Math.max(0, source.listener.stats.connects - 1));
  counter('feed_disconnects_total', 'Open feed connections lost.', () => source.feed.counters.disconnects);
  counter('feed_resyncs_requested_total', 'Book resyncs requested (sequence gap, out of sync, stale book).', () => source.feed.counters.resyncsRequested);
  counter('feed_resyncs_total', 'Book resyncs completed (a fresh snapshot applied).', () => source.feed.counters.resyncsCompleted);
  counter('feed_seq_gaps_total', 'Sequence gaps seen on the feed.', () => source.feed.counters.seqGaps);
  counter('feed_frames_total', 'Frames received on the feed.', () => source.feed.counters.framesReceived);
  counter('feed_malformed_frames_total', 'Frames dropped as malformed.', () => source.feed.counters.malformedFrames);
  counter('tick_to_trade_frames_total', 'Book frames dispatched to strategies.', () => source.probe.frames);
  counter('tick_to_trade_frames_with_order_total', 'Book frames that led to an order on the wire.', () => source.probe.framesWithOrder);
  counter('oms_reconcile_rounds_total', 'OMS reconciliation rounds with the venue.', () => source.oms.stats.reconcileRounds);
  gauge('kill_switch_engaged', '1 while the kill switch is engaged (no new orders), else 0.', () => (now().killSwitch === null ? 0 : 1));
  new Gauge({ name: name('strategies'), help: 'Strategy instances, by status.', labelNames: ['status'], registers: [registry], collect() {
    this.reset();
    const counts = new Map<string, number>();
    for (const strategy of now().strategies) counts.set(strategy.status, (counts.get(strategy.status) ?? 0) + 1);
    for (const [status, count] of counts) this.set({ status }, count);
  } });
  new Gauge({ name: name('event_loop_stall_seconds'), help: 'Event-loop stall by setImmediate round trips since start: p50, p99 and max.', labelNames: ['stat'], registers: [registry], collect() {
    this.reset();
    const stall = now().eventLoopStall;
    if (stall === undefined || stall.samples === 0) return;
    this.set({ stat: 'p50' }, stall.p50Us * 1e-6);
    this.set({ stat: 'p99' }, stall.p99Us * 1e-6);
    this.set({ stat: 'max' }, stall.maxUs * 1e-6);
  } });
  new Gauge({ name: name('worker_queue_depth'), help: 'Worker pool tasks waiting or running (0 when the pool is off).', registers: [registry], collect() {
    this.reset();
    const workers = now().workers;
    if (workers !== undefined && workers !== null) this.set(workers.queueDepth);
  } });
  new Gauge({ name: name('worker_in_flight'), help: 'Worker pool tasks running (0 when the pool is off).', registers: [registry], collect() {
    this.reset();
    const workers = now().workers;
    if (workers !== undefined && workers !== null) this.set(workers.inFlight);
  } });
  new Counter({ name: name('worker_tasks_failed_total'), help: 'Worker pool tasks that failed (0 when the pool is off).', registers: [registry], collect() {
    this.reset();
    const workers = now().workers;
    if (workers !== undefined && workers !== null) this.inc(workers.failed);
  } });
  return { registry, refresh };
}

/** The main job's metrics server for `runtime`, or null when telemetry.metrics is off. */
export async function startRuntimeMetrics(source: MetricsSource, config: Readonly<MetricsConfig>, logger: Logger): Promise<MetricsServer | null> {
  if (!config.enabled) return null;
  const { registry, refresh } = createRuntimeMetrics(source);
  return MetricsServer.start({
    registry,
    host: config.host,
    port: config.port,
    beforeScrape: refresh,
    onError: (error) => logger.error({ err: error }, 'metrics scrape failed'),
  });
}
