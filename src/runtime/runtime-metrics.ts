/**
 * The runtime's Prometheus metrics (text format 0.0.4), served by telemetry's MetricsServer when
 * telemetry.metrics.enabled. The text is rendered from the operator snapshot (src/dashboard,
 * OperatorSnapshots) when its timer refreshes it, the same record the dashboard pushes, so a
 * scrape only writes a prebuilt string: no status(), no histogram walk, no prom-client
 * collect() promises on the event loop at scrape time (that cost a frame arriving during a scrape
 * ~1 ms: bench/tick-to-trade, metrics-on row). Without a running snapshot timer (a caller that
 * only wants metrics, e.g. a test) the scrape refreshes the snapshot itself.
 *
 * Counters are the owners' running totals: they only go down when the runtime restarts, which
 * Prometheus reads as a counter reset. Owns the metric names, help and rendering; decides nothing.
 */

import { ConnectionState } from '../feed/index.ts';
import { OperatorSnapshots } from '../dashboard/index.ts';
import type { OperatorView, SnapshotSource } from '../dashboard/index.ts';
import { MetricsServer } from '../telemetry/index.ts';
import type { Logger } from '../telemetry/index.ts';
import type { MetricsConfig } from './config.ts';

/** What the metrics read: the runtime's read-only surface, through the operator snapshot. */
export type MetricsSource = SnapshotSource;

export const METRIC_PREFIX = 'trading_';
/** The exposition's content type (Prometheus text format 0.0.4). */
export const METRICS_CONTENT_TYPE = 'text/plain; version=0.0.4; charset=utf-8';
/** Snapshot period when the metrics run without the dashboard (the dashboard's pushIntervalMs otherwise). */
export const METRICS_SNAPSHOT_MS = 1_000;
const FEED_STATES: readonly string[] = Object.values(ConnectionState);
/** Dollars per micro-dollar; contracts per count unit (1/100 contract); seconds per ns and per µs. */
const DOLLARS_PER_MICRO = 1e-6;
const CONTRACTS_PER_COUNT = 0.01;
const SECONDS_PER_NS = 1e-9;
const SECONDS_PER_US = 1e-6;

/** Builds the text exposition line by line; label values escaped as the format says. */
class Exposition {
  #text = '';

  family(suffix: string, type: 'counter' | 'gauge' | 'histogram', help: string): string {
    const name = `${METRIC_PREFIX}${suffix}`;
    this.#text += `# HELP ${name} ${help}\n# TYPE ${name} ${type}\n`;
    return name;
  }

  sample(name: string, value: number, labels?: Record<string, string | number>): void {
    let line = name;
    if (labels !== undefined) {
      let separator = '{';
      for (const key in labels) {
        line += `${separator}${key}="${escapeLabel(String(labels[key]))}"`;
        separator = ',';
      }
      line += '}';
    }
    this.#text += `${line} ${formatValue(value)}\n`;
  }

  /** A family of one unlabelled sample (bound: renderers pass it around as a function). */
  readonly single = (suffix: string, type: 'counter' | 'gauge', help: string, value: number): void => this.sample(this.family(suffix, type, help), value);

  /** A sample whose name and labels are a prebuilt prefix ending in a space. */
  prefixed(prefix: string, value: number): void {
    this.#text += `${prefix}${formatValue(value)}\n`;
  }

  get text(): string {
    return this.#text;
  }
}

const LABEL_SPECIAL = /[\\"\n]/;

function escapeLabel(value: string): string {
  if (!LABEL_SPECIAL.test(value)) return value;
  return value.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\n/g, '\\n');
}

function formatValue(value: number): string {
  if (Number.isNaN(value)) return 'NaN';
  if (value === Infinity) return '+Inf';
  if (value === -Infinity) return '-Inf';
  return String(value);
}

/** The histogram's bucket lines up to the value, per hop and bound: built once (the bounds never change). */
const bucketPrefixes = new Map<string, string[]>();

function bucketPrefixesOf(hop: string, boundsNs: readonly number[]): string[] {
  const key = `${hop} ${boundsNs.length}`;
  let prefixes = bucketPrefixes.get(key);
  if (prefixes === undefined) {
    prefixes = boundsNs.map((ns) => `${METRIC_PREFIX}hop_latency_seconds_bucket{hop="${escapeLabel(hop)}",le="${formatValue(ns * SECONDS_PER_NS)}"} `);
    prefixes.push(`${METRIC_PREFIX}hop_latency_seconds_bucket{hop="${escapeLabel(hop)}",le="+Inf"} `);
    bucketPrefixes.set(key, prefixes);
  }
  return prefixes;
}

/**
 * Every sample of `text` with a `runtime` label first: several runtimes of one account (a fleet)
 * scraped into one Prometheus stay apart. Once per render (about a second), not per scrape.
 */
export function withRuntimeLabel(text: string, runtimeName: string): string {
  const label = `runtime="${escapeLabel(runtimeName)}"`;
  const lines = text.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    if (line === '' || line.startsWith('#')) continue;
    const brace = line.indexOf('{');
    const space = line.indexOf(' ');
    lines[i] = brace >= 0 && brace < space ? `${line.slice(0, brace + 1)}${label},${line.slice(brace + 1)}` : `${line.slice(0, space)}{${label}}${line.slice(space)}`;
  }
  return lines.join('\n');
}

/** The Prometheus text of one operator view. */
export function renderMetricsText(view: Readonly<OperatorView>): string {
  const out = new Exposition();
  const hops = out.family('hop_latency_seconds', 'histogram', 'Tick-to-trade latency per hop (decode, book, strategy, risk, oms, exec) and in total, frame received to order handed to the socket, for the first order each book frame causes; the exec hop split at socket.write (encode, write) and frame received to first byte handed to socket.write (firstByte).');
  for (const hop of view.hops) {
    const prefixes = bucketPrefixesOf(hop.hop, view.boundsNs);
    for (let i = 0; i < view.boundsNs.length; i++) out.prefixed(prefixes[i], hop.cumulative[i]);
    out.prefixed(prefixes[view.boundsNs.length], hop.count);
    out.sample(`${hops}_sum`, hop.meanNs * hop.count * SECONDS_PER_NS, { hop: hop.hop });
    out.sample(`${hops}_count`, hop.count, { hop: hop.hop });
  }
  const single = out.single;
  single('orders_sent_total', 'counter', 'Orders sent to the venue.', view.ordersSent);
  single('orders_open', 'gauge', 'Orders live at the venue (acknowledged or pending).', view.openOrders);
  single('fills_total', 'counter', 'Fills received, duplicates excluded.', view.fills);
  const denies = out.family('denies_total', 'counter', 'Intents the risk gate denied, by deny code.');
  for (const code in view.denies) out.sample(denies, view.denies[code], { code });
  single('positions_total', 'gauge', 'Positions held or traded, per subaccount and market (the position_* families list only the largest by |PnL|).', view.positionsTotal);
  const position = out.family('position_contracts', 'gauge', 'Signed position in contracts, per subaccount and market, for the positions with the largest |PnL|.');
  for (const p of view.positions) out.sample(position, p.position * CONTRACTS_PER_COUNT, { subaccount: p.subaccount, ticker: p.ticker });
  const positionPnl = out.family('position_pnl_dollars', 'gauge', 'Realized minus fees plus the open position marked at the book mid, dollars, per subaccount and market, for the positions with the largest |PnL|.');
  for (const p of view.positions) out.sample(positionPnl, p.pnlMicro * DOLLARS_PER_MICRO, { subaccount: p.subaccount, ticker: p.ticker });
  single('pnl_dollars', 'gauge', 'Total PnL over every position, dollars (realized minus fees plus marked at the mid).', view.pnlMicro * DOLLARS_PER_MICRO);
  single('books_synced', 'gauge', 'Order books in sync with the venue.', view.booksSynced);
  single('books_total', 'gauge', 'Order books the feed keeps.', view.booksTotal);
  const feedState = out.family('feed_state', 'gauge', 'The WebSocket feed connection: 1 for its current state, 0 for the others.');
  for (const state of FEED_STATES) out.sample(feedState, state === view.feedState ? 1 : 0, { state });
  const session = out.family('session_state', 'gauge', 'FIX sessions (order entry "fix", market data "fix_md"): 1 for the current state label.');
  for (const s of view.sessions) out.sample(session, 1, { session: s.name === 'fix KalshiMD' ? 'fix_md' : 'fix', state: s.state });
  single('feed_reconnects_total', 'counter', 'Feed connections opened after the first (reconnects).', view.feed.reconnects);
  single('feed_disconnects_total', 'counter', 'Open feed connections lost.', view.feed.disconnects);
  single('feed_resyncs_requested_total', 'counter', 'Book resyncs requested (sequence gap, out of sync, stale book).', view.feed.resyncsRequested);
  single('feed_resyncs_total', 'counter', 'Book resyncs completed (a fresh snapshot applied).', view.feed.resyncs);
  single('feed_seq_gaps_total', 'counter', 'Sequence gaps seen on the feed.', view.feed.seqGaps);
  single('feed_frames_total', 'counter', 'Frames received on the feed.', view.feed.frames);
  single('feed_malformed_frames_total', 'counter', 'Frames dropped as malformed.', view.feed.malformed);
  single('tick_to_trade_frames_total', 'counter', 'Book frames dispatched to strategies.', view.probe.frames);
  single('tick_to_trade_frames_with_order_total', 'counter', 'Book frames that led to an order on the wire.', view.probe.framesWithOrder);
  single('oms_reconcile_rounds_total', 'counter', 'OMS reconciliation rounds with the venue.', view.omsReconcileRounds);
  single('kill_switch_engaged', 'gauge', '1 while the kill switch is engaged (no new orders), else 0.', view.killSwitch === null ? 0 : 1);
  const strategies = out.family('strategies', 'gauge', 'Strategy instances, by status.');
  const byStatus = new Map<string, number>();
  for (const s of view.strategies) byStatus.set(s.status, (byStatus.get(s.status) ?? 0) + 1);
  for (const [status, count] of byStatus) out.sample(strategies, count, { status });
  const stall = out.family('event_loop_stall_seconds', 'gauge', 'Event-loop stall by setImmediate round trips since start: p50, p99 and max.');
  if (view.stall.samples > 0) {
    out.sample(stall, view.stall.p50Us * SECONDS_PER_US, { stat: 'p50' });
    out.sample(stall, view.stall.p99Us * SECONDS_PER_US, { stat: 'p99' });
    out.sample(stall, view.stall.maxUs * SECONDS_PER_US, { stat: 'max' });
  }
  renderScale(view, out);
  const workers = view.workers;
  single('worker_queue_depth', 'gauge', 'Worker pool tasks waiting or running (0 when the pool is off or not reported).', workers?.queueDepth ?? 0);
  single('worker_in_flight', 'gauge', 'Worker pool tasks running (0 when the pool is off or not reported).', workers?.inFlight ?? 0);
  single('worker_tasks_failed_total', 'counter', 'Worker pool tasks that failed (0 when the pool is off or not reported).', workers?.failed ?? 0);
  return out.text;
}

/** The write budget and held intents, the most active markets and the RFQ counters. */
function renderScale(view: Readonly<OperatorView>, out: Exposition): void {
  const single = out.single;
  const budget = view.budget;
  if (budget !== null) {
    single('write_tokens_available', 'gauge', 'Write tokens in the REST write budget now.', budget.writeTokens);
    single('write_tokens_capacity', 'gauge', 'Write tokens the budget holds at most (its burst).', budget.writeCapacity);
    single('write_tokens_refill_per_second', 'gauge', 'Write tokens the budget refills per second (the tier).', budget.writePerSecond);
    single('write_tokens_spent_per_second', 'gauge', 'Write tokens taken per second since the last snapshot.', budget.writeSpentPerSecond);
    single('intents_held', 'gauge', 'Creates and amends the router holds until the write budget has room.', budget.held);
    single('intents_held_sent_total', 'counter', 'Held intents sent once the budget had room.', budget.heldSent);
    single('intents_held_dropped_total', 'counter', 'Held intents not sent (denied when released, replaced or withdrawn).', budget.heldDropped);
    single('batch_requests_total', 'counter', 'Batch order requests sent.', budget.batchesSent);
    single('batched_orders_total', 'counter', 'Orders carried by batch requests.', budget.batchedOrders);
  }
  const active = out.family('book_changes_per_second', 'gauge', 'Book changes (snapshots and deltas) per second of the most active markets.');
  for (const market of view.mostActive) out.sample(active, market.changesPerSecond, { ticker: market.ticker });
  const rfq = view.rfq;
  if (rfq === null) return;
  single('rfqs_seen_total', 'counter', 'RFQs created on the venue and handed to the strategies.', rfq.rfqsSeen);
  single('quotes_sent_total', 'counter', 'Quotes the gate passed and the route sent.', rfq.quotesSent);
  single('quotes_rejected_total', 'counter', 'Quotes the venue rejected.', rfq.quotesRejected);
  single('quotes_accepted_total', 'counter', 'Our quotes the RFQ creator accepted.', rfq.accepted);
  single('quotes_confirmed_total', 'counter', 'Accepted quotes we confirmed.', rfq.confirmed);
  single('quotes_executed_total', 'counter', 'Our quotes that executed.', rfq.executed);
  single('quotes_denied_total', 'counter', 'Quote actions (new, cancel, confirm) the risk gate denied.', rfq.denied);
  single('quotes_open', 'gauge', 'Our quotes not yet closed.', rfq.open);
}

/**
 * The metrics' text source over `snapshots`: while their timer runs, the text rendered at the
 * last refresh; otherwise (no timer) a refresh and a render per scrape.
 */
export function metricsTextSource(snapshots: OperatorSnapshots, runtimeName: string | null = null): () => string {
  const render = (view: Readonly<OperatorView>): string => (runtimeName === null ? renderMetricsText(view) : withRuntimeLabel(renderMetricsText(view), runtimeName));
  let text = '';
  let renderedSeq = -1;
  let renderedAtMs = 0;
  snapshots.onRefresh((view) => {
    // With the dashboard's faster ticks the text is rebuilt about once a second, not every tick:
    // a scrape sees figures at most METRICS_SNAPSHOT_MS plus one tick old.
    if (view.tsMs - renderedAtMs < METRICS_SNAPSHOT_MS - snapshots.intervalMs / 2) return;
    text = render(view);
    renderedSeq = view.seq;
    renderedAtMs = view.tsMs;
  });
  return () => {
    if (!snapshots.running || snapshots.view === null) {
      const view = snapshots.refresh();
      text = render(view);
      renderedSeq = view.seq;
    } else if (renderedSeq === -1) {
      // Started after the snapshots' first tick: render the latest view once.
      text = render(snapshots.view);
      renderedSeq = snapshots.view.seq;
      renderedAtMs = snapshots.view.tsMs;
    }
    return text;
  };
}

/**
 * The main job's metrics server for `source`, or null when telemetry.metrics is off. `snapshots`:
 * the shared operator snapshot (also the dashboard's), whose timer the caller starts; without
 * it, each scrape builds its own snapshot.
 */
export async function startRuntimeMetrics(
  source: MetricsSource, config: Readonly<MetricsConfig>, logger: Logger, snapshots: OperatorSnapshots | null = null, runtimeName: string | null = null,
): Promise<MetricsServer | null> {
  if (!config.enabled) return null;
  return MetricsServer.start({
    text: metricsTextSource(snapshots ?? new OperatorSnapshots(source, METRICS_SNAPSHOT_MS), runtimeName),
    contentType: METRICS_CONTENT_TYPE,
    host: config.host,
    port: config.port,
    onError: (error) => logger.error({ err: error }, 'metrics scrape failed'),
  });
}
