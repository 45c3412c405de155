/**
 * Tick-to-trade suite: how long the runtime takes from an order-book frame arriving to the order
 * it causes being handed to the socket, hop by hop, against the simulator in a process of its own
 * (as the main job runs it), with the tick-to-trade strategy (strategies/tick-to-trade.ts: one
 * intent per book update, an amend or a create of a far post-only bid).
 *
 *   frame received -> decoded -> book applied -> strategy intent -> risk verdict -> exec called -> exec returned
 *
 * The feed stamps the first three, the runtime's TickToTradeProbe the rest. Exec writes every
 * order mutation (creates, cancels, amends, batches) on its raw client inside the call, so
 * "exec returned" is "bytes written".

 * Beside it, in the same run:
 * - the replace run again with the metrics server on and scraped once a second, and again with
 *   the dashboard on as well (pushing a view every 250 ms to one connected WebSocket) and scraped:
 *   the operator's view must cost under 5% of tick-to-trade p50 and p99, judged against the off
 *   run before and the off run again after them (operator-bound.ts). The scraper and the
 *   dashboard's client run in a child process of their own (operator-client.ts), on the
 *   simulator's CPUs when placed, as Prometheus and a browser would: the runtime's loop pays for
 *   the snapshot and for serving, not for an HTTP client;
 * - the replace run again on the FIX route (the strategy's route 'fix': NewOrderSingle and
 *   OrderCancelRequest on the simulator's KalshiNR acceptor), timed at the FIX session's socket
 *   write (its write-start channel) as the REST run is at its raw client's;
 * - alone (BENCH_T2T_ONLY=margin, not in the whole suite): the replace run on a perpetual
 *   (KXBTCPERP, margin.enabled), its orders on the Margin route, the simulator's Margin activity
 *   on at the Predictions market's rate per perpetual;
 * - the loopback floor: a node:net echo server in a child process, ping-pong with the sizes of one
 *   order request out and one book frame in (round trip; the one-way floor is about half);
 * - order round trip, ours (RestOrderEntry.create, presigned) vs the official `kalshi-typescript`
 *   OrdersApi.createOrderV2, interleaved, against the same simulator.
 * - wire-to-wire from the simulator's side (its --probe: the most recent delta on the market sent
 *   -> the order-entry request received, both on the simulator's clock), in replace mode (the
 *   simulator probes creates and batched cancels, not amends; our cancels name no market, so they
 *   give no sample). A create that arrives after a later delta was sent is timed from that later
 *   delta: the figure can only err on the fast side, by at most the gap between deltas.
 *
 * Placement (src/runtime/cpu-placement.ts, as `npm start` does): on Linux with two or more CPUs
 * and taskset, this process's event-loop thread runs on the first CPU and the simulator on the
 * others, so the simulator, woken by each order write, is never put on the runtime's CPU (it then
 * preempted the runtime inside socket.write for its whole request, ~0.6 ms, seen with perf sched).
 * BENCH_PLACEMENT=off runs without it, for comparison. The JIT tiers up eagerly, as in `npm start`
 * (src/runtime/jit-tier-up.ts); BENCH_EAGER_JIT=off keeps V8's default (set once per process:
 * the flag stays for the process's other suites). The strategy reacts to touch changes
 * (trigger 'touch'), so its own far bid does not feed it and the order rate follows the
 * simulator's activity (1,000 updates/s on the one market).
 *
 * Every loop is bounded in count and time; children are stopped by their own handles.
 */

import { randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Configuration, OrdersApi } from 'kalshi-typescript';
import { loadPrivateKey, systemClock } from '../../src/core/index.ts';
import type { Count, Price } from '../../src/core/index.ts';
import { REST_ORDER_ENTRY_DEFAULTS, RestOrderEntry, encodeCreateOrder } from '../../src/exec/index.ts';
import { validateConfig } from '../../src/runtime/config.ts';
import { Runtime } from '../../src/runtime/runtime.ts';
import { SimChild } from '../../src/runtime/sim-child.ts';
import { judgeOperatorRow } from './operator-bound.ts';
import { pinEventLoop, placementForThisMachine } from '../../src/runtime/cpu-placement.ts';
import { applyEagerTierUp } from '../../src/runtime/jit-tier-up.ts';
import { createLogger } from '../../src/telemetry/index.ts';
import { loopbackRoundTrips, oneMarketCatalog, simProbe } from '../loopback.ts';
import { SyscallTrace } from './syscall-trace.ts';
import { METRICS_SNAPSHOT_MS, startRuntimeMetrics } from '../../src/runtime/runtime-metrics.ts';
import { DashboardServer, OperatorSnapshots } from '../../src/dashboard/index.ts';
import type { MetricsServer } from '../../src/telemetry/index.ts';
import { BenchChild } from '../child-process.ts';
import { consume, createHistogram, latencyRow, nowNs, recordNs } from '../harness.ts';
import type { BenchRow, BenchSuite, Histogram } from '../harness.ts';
import type { ExecListener, NewOrder } from '../../src/oms/index.ts';
import { MARGIN_TICKER } from '../margin/margin-frames.ts';
import { DEFAULT_MARGIN_CATALOG_FILE, loadMarginCatalog } from '../../src/sim/margin/index.ts';

const SUITE = 'tick-to-trade';
const REPO_DIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const TICKER = 'KXDEMO-26DEC31-T50';
const FLOOR = 'floor: loopback TCP ping-pong (round trip)';
const OFFICIAL = 'kalshi-typescript createOrderV2 round trip';
// About the gap between the timed orders at the simulator's 1,000 updates/s (touch changes ~60/s).
const PACED_GAP_MS = 15;
/** The dashboard row's push period: the config default (telemetry.dashboard.pushIntervalMs). */
const DASHBOARD_PUSH_MS = 250;
/** The operator's view in a replace run: none, the metrics, or the dashboard and the metrics. */
type Operator = 'off' | 'metrics' | 'dashboard' | 'control' | 'traced';
const OPERATOR_LABEL: Record<Operator, string> = { off: '', metrics: ', metrics on', dashboard: ', dashboard+metrics on', control: ', off again', traced: ', perf trace' };
// A book frame as the simulator sends it (spec/websocket.md §6.1): its size sets the floor's reply.
const SAMPLE_FRAME =
  '{"type":"orderbook_delta","sid":1,"seq":12345,"msg":{"market_ticker":"KXDEMO-26DEC31-T50","market_id":"3f1c2d4e-0a1b-4c5d-8e9f-102132435465","price_dollars":"0.4200","delta_fp":"-40.00","side":"yes","ts_ms":1798761600123}}';

interface Phase {
  warmupMs: number;
  measureMs: number;
  activityPerSec: number;
  roundTrips: number;
}

/** Writes this large are order requests (a create or a batched cancel with its 344-byte signature), not WebSocket frames. */
const ORDER_WRITE_MIN_BYTES = 500;

const pause = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

export default {
  name: SUITE,
  async run({ quick }): Promise<BenchRow[]> {
    const phase: Phase = quick
      ? { warmupMs: 2_000, measureMs: 4_000, activityPerSec: 1_000, roundTrips: 60 }
      : { warmupMs: 5_000, measureMs: 20_000, activityPerSec: 1_000, roundTrips: 400 };
    const placement = process.env.BENCH_PLACEMENT === 'off' ? { plan: null, reason: 'placement off (BENCH_PLACEMENT=off)' } : placementForThisMachine();
    // As `npm start` (process.eagerJitTierUp); BENCH_EAGER_JIT=off for V8's default tiering.
    const eagerJit = process.env.BENCH_EAGER_JIT !== 'off';
    const eagerJitFlags = eagerJit ? applyEagerTierUp() : [];
    const work = mkdtempSync(path.join(tmpdir(), 'bench-t2t-'));
    const rows: BenchRow[] = [];
    let sim: SimChild | null = null;
    // BENCH_T2T_ONLY: the runs it names alone (back-to-back comparisons of one change), else the whole suite.
    const only = process.env.BENCH_T2T_ONLY;
    const runs = only === undefined ? null : selectedRuns(only);
    // The perpetuals move only with the simulator's Margin activity: on for a margin run alone, so
    // the other runs' simulator does what it always did.
    const marginActivity = runs?.some((run) => run.exchange === 'margin') === true;
    try {
      sim = await SimChild.start({
        rootDir: REPO_DIR,
        marketsFile: oneMarketCatalog(work, TICKER),
        activityUpdatesPerSec: phase.activityPerSec,
        // The Margin activity spreads over the catalog's perpetuals: KXBTCPERP gets the Predictions market's rate.
        ...(marginActivity ? { marginActivityUpdatesPerSec: phase.activityPerSec * marginMarketCount() } : {}),
        keysDir: path.join(work, 'keys'),
        logPath: path.join(work, 'sim.log'),
        logLevel: 'warn',
        extraArgs: ['--probe', '--fix'],
        cpus: placement.plan?.simCpus ?? null,
      });
      // The event loop's CPUs while a runtime or a floor runs (null: no placement).
      const pin = placement.plan?.runtimeCpus ?? null;
      if (runs !== null) {
        for (const run of runs) rows.push(...(await tickToTrade(sim, work, phase, pin, run)).rows);
      } else {
        rows.push(...(await wholeSuite(sim, work, phase, pin, placement.plan?.simCpus ?? null)));
      }
    } finally {
      await sim?.stop();
      rmSync(work, { recursive: true, force: true });
    }
    const setting = `${placement.reason}; ${eagerJit ? `eager JIT tier-up (${eagerJitFlags.join(' ') || 'no flags known for this V8'})` : "V8's default tiering (BENCH_EAGER_JIT=off)"}`;
    for (const row of rows) if (/tick-to-trade:|wire-to-wire|floor/.test(row.case)) row.note = row.note === undefined || row.note === '' ? setting : `${row.note}; ${setting}`;
    return rows;
  },
} satisfies BenchSuite;

/** Perpetuals in the simulator's Margin catalog (the one SimChild's simulator loads). */
function marginMarketCount(): number {
  return loadMarginCatalog(path.join(REPO_DIR, DEFAULT_MARGIN_CATALOG_FILE)).markets.length;
}

/**
 * `BENCH_T2T_ONLY`'s runs: replace, amend, fix (the replace run on the FIX route) or margin (the
 * replace run on a perpetual, KXBTCPERP, through the Margin route, the simulator's Margin activity
 * on), or several joined by '+' (replace+amend), run one after the other in this process, each
 * labelled with its place: a mode's figures depend on what ran before it in the process.
 */
function selectedRuns(only: string): Run[] {
  const names = only.split('+');
  return names.map((name, index) => {
    const place = names.length > 1 ? `run ${index + 1} of ${names.length}` : '';
    switch (name) {
      case 'replace': return { mode: 'replace', place };
      case 'amend': return { mode: 'amend', place };
      case 'fix': return { mode: 'replace', route: 'fix', place };
      case 'margin': return { mode: 'replace', exchange: 'margin', place };
      default: throw new Error(`BENCH_T2T_ONLY: ${name} is not replace, amend, fix or margin`);
    }
  });
}

/** Every run of the suite, the floors and the round trips (see the file comment), in their order. */
async function wholeSuite(sim: SimChild, work: string, phase: Phase, pin: string | null, simCpus: string | null): Promise<BenchRow[]> {
  const rows: BenchRow[] = [];
  const replace = await tickToTrade(sim, work, phase, pin, { mode: 'replace' });
  rows.push(...replace.rows);
  // The operator's view's overhead rows: the same replace run with the metrics server on and
  // scraped, then with the dashboard pushing as well, then the off run again ('control'). Each
  // on run is judged against both off runs around it: two off runs of 20 s differ by more than
  // 5% at these figures (52.4 against 59.3 us at p50 in two runs of one build), so one off
  // run cannot tell a 5% cost from drift. The bound is 5% over the off runs' mean, or the
  // slower off run where the two are further apart than that (within their own spread, an on
  // run cannot be told from off).
  const onRuns: BenchRow[][] = [];
  for (const operator of ['metrics', 'dashboard'] as const) onRuns.push((await tickToTrade(sim, work, phase, pin, { mode: 'replace', operator, clientCpus: simCpus })).rows);
  const control = (await tickToTrade(sim, work, phase, pin, { mode: 'replace', operator: 'control' })).rows;
  for (const row of onRuns.flat()) {
    if (!/tick-to-trade:/.test(row.case)) {
      if (process.env.BENCH_OPERATOR_CONTROL === '1') rows.push(row); // the per-hop rows too, to see where a cost lands
      continue;
    }
    const judged = judgeOperatorRow(row, replace.rows, control);
    if (judged !== null) rows.push(judged);
  }
  rows.push(...control.filter((row) => /tick-to-trade:/.test(row.case) || process.env.BENCH_OPERATOR_CONTROL === '1'));
  // Amend after every replace run: switching the strategy's mode leaves V8's feedback on the
  // gate and route polymorphic for a while, and a replace run right after amend measured its
  // risk hop ~2-3x slower (BENCH_OPERATOR_CONTROL=1, Nov 2026): the on rows would pay for it.
  rows.push(...(await tickToTrade(sim, work, phase, pin, { mode: 'amend' })).rows);
  // The FIX route (a strategy with route 'fix'): the same replace run, its NewOrderSingle and
  // OrderCancelRequest written on the FIX order-entry session (KalshiNR) instead of REST.
  rows.push(...(await tickToTrade(sim, work, phase, pin, { mode: 'replace', route: 'fix' })).rows);
  // The exec hop's machine part (kernel write, the simulator's wake), from perf trace: a run of
  // its own, since the tracer costs every system call something.
  rows.push(...(await tickToTrade(sim, work, phase, pin, { mode: 'replace', operator: 'traced', clientCpus: simCpus })).rows);
  rows.push(await loopbackFloor(createRequestBytes(sim), Buffer.byteLength(SAMPLE_FRAME), phase, pin, simCpus, 0));
  // The same round trip at about the timed orders' pace: both ends idle between round trips.
  rows.push(await loopbackFloor(createRequestBytes(sim), Buffer.byteLength(SAMPLE_FRAME), phase, pin, simCpus, PACED_GAP_MS));
  rows.push(...(await roundTrips(sim, phase)));
  return rows;
}

/** One runtime's run: the strategy's mode, the operator's view, the CPUs of the operator's client, the order route, the exchange, its place in a sequence. */
interface Run {
  mode: 'replace' | 'amend';
  /** 'margin': the strategy on a perpetual (margin.enabled), its orders on the Margin route. Default predictions. */
  exchange?: 'predictions' | 'margin';
  operator?: Operator;
  clientCpus?: string | null;
  route?: 'rest' | 'fix';
  place?: string;
}

/**
 * One runtime in this process with the tick-to-trade strategy in `mode`: replace (create the new
 * bid, cancel the old: presigned paths) or amend (the amend path carries the order id: signed
 * inline by exec); on the REST route, or with `route` 'fix' on the FIX order-entry session
 * (KalshiNR, the simulator's acceptor).
 */
async function tickToTrade(sim: SimChild, work: string, phase: Phase, pin: string | null, run: Run): Promise<{ rows: BenchRow[] }> {
  const { mode, operator = 'off', clientCpus = null, route = 'rest', place = '' } = run;
  const margin = run.exchange === 'margin';
  const ticker = margin ? MARGIN_TICKER : TICKER;
  const label = `${mode}${margin ? ', margin' : ''}${route === 'fix' ? ', fix route' : ''}${OPERATOR_LABEL[operator]}${place === '' ? '' : `, ${place}`}`;
  const fix = route === 'fix' ? sim.ready.fix : null;
  if (route === 'fix' && fix === null) throw new Error('bench tick-to-trade: the simulator started without its FIX acceptor');
  const config = validateConfig(
    {
      risk: { rateLimitTier: 'prime', maxOrderCount: '10.00', ...(margin ? { maxOrderNotionalDollars: '1000.00' } : {}) },
      ...(margin ? { margin: { enabled: true } } : {}),
      exec: { signing: 'presigned', connections: 4 },
      // BENCH_KEEP_WARM_MS: the keep-warm cadence (process.keepWarmMs) for this run; the config default otherwise.
      ...(process.env.BENCH_KEEP_WARM_MS === undefined ? {} : { process: { keepWarmMs: Number(process.env.BENCH_KEEP_WARM_MS) } }),
      // BENCH_FEED_TRANSPORT=undici: the feed over undici's WebSocket instead of ours (the default).
      strategies: [{ id: 't2t', plugin: 'strategies/tick-to-trade.ts', subaccount: 0, markets: [ticker], route, params: { mode, offsetTicks: 10, size: '1.00' } }],
    },
    '<bench tick-to-trade>',
    {},
  );
  const runtime = new Runtime({
    config,
    venue: {
      restUrl: `${sim.ready.http}/trade-api/v2`, wsUrl: sim.ready.ws, keyId: sim.ready.keyId, privateKey: loadPrivateKey(sim.ready.privateKeyPath),
      fix: fix === null ? null : { host: fix.host, port: fix.ports.KalshiNR, tls: fix.tls },
    },
    rootDir: REPO_DIR,
    journalPath: path.join(work, `journal-${mode}-${route}-${operator}${place === '' ? '' : `-${place.replace(/\W+/g, '-')}`}.jsonl`),
    logger: createLogger({ level: 'silent', pretty: false }),
  });
  const probe = runtime.probe;
  // Frame received -> the first byte of its order handed to socket.write, and the exec hop split at
  // that write: the probe's firstByte, encode and write hops (the runtime feeds it the routes'
  // write-start and write channels: src/runtime/probe-write-stamps.ts), as `npm start` reports them.
  let trace: SyscallTrace | null = null;
  let traceNote = '';
  let unpin: (() => void) | null = null;
  let metricsServer: MetricsServer | null = null;
  let snapshots: OperatorSnapshots | null = null;
  let dashboard: DashboardServer | null = null;
  let client: BenchChild | null = null;
  try {
    await runtime.start();
    if (operator === 'metrics' || operator === 'dashboard') {
      // As the main job wires them (main.ts): one snapshot timer for the metrics and the dashboard.
      snapshots = new OperatorSnapshots(runtime, operator === 'dashboard' ? DASHBOARD_PUSH_MS : METRICS_SNAPSHOT_MS);
      metricsServer = await startRuntimeMetrics(runtime, { enabled: true, host: '127.0.0.1', port: 0 }, createLogger({ level: 'silent', pretty: false }), snapshots);
      const token = 'bench-dashboard-token';
      if (operator === 'dashboard') {
        dashboard = await DashboardServer.start({ host: '127.0.0.1', port: 0, token, snapshots, onKill: () => undefined });
      }
      snapshots.start();
      const wsUrl = dashboard === null ? '-' : `ws://127.0.0.1:${dashboard.port}/ws?token=${token}`;
      client = await BenchChild.start(path.join('bench', 'tick-to-trade', 'operator-client.ts'), [metricsServer!.url, wsUrl], 10_000, clientCpus);
    }
    // As `npm start`: the event loop is pinned once the runtime's worker threads exist (they inherit it otherwise).
    if (pin !== null) unpin = pinEventLoop(pin);
    await pause(phase.warmupMs);
    await simProbe(sim, 'reset');
    if (operator === 'traced') {
      const started = await SyscallTrace.start(process.pid, sim.ready.pid, path.join(work, `perf-trace-${mode}.txt`), clientCpus);
      if (typeof started === 'string') traceNote = started;
      else trace = started;
    }
    // The order route's counters: the Margin route's for a margin run (its own transport and presigner).
    const orderRoute = margin ? runtime.margin! : runtime.rest;
    const statsBefore = { ...orderRoute.stats };
    const fixBefore = runtime.fix === null ? null : { ...runtime.fix.stats };
    probe.reset();
    await pause(phase.measureMs);
    const syscalls = trace === null ? null : await trace.stop(process.pid, sim.ready.pid, ORDER_WRITE_MIN_BYTES);
    trace = null;
    const wire = await simProbe(sim, 'read');
    const served = client === null ? null : await client.command({ cmd: 'read' });
    const frames = probe.frames;
    const withOrder = probe.framesWithOrder;
    const status = runtime.status();
    const tick = snapshots?.stats;
    const tickNote = tick === undefined || tick.ticks === 0 ? '' : `; snapshot ticks ${tick.ticks}, each mean ${Math.round(tick.busyNsTotal / tick.ticks / 1000)} us, max ${Math.round(tick.busyNsMax / 1000)} us (refresh, metrics text${dashboard === null ? '' : ', push'})`;
    const servedNote = served === null ? '' : `; operator client (whole run): scrapes ${served.scrapes} (failed ${served.scrapeFailures}), dashboard views ${served.views}${dashboard === null ? '' : `, dropped ${dashboard.stats.dropped}`}${tickNote}`;
    const note = `book frames ${frames}, with an order ${withOrder} (others: request in flight); denies ${JSON.stringify(status.denies)}${servedNote}`;
    const hop = (name: string, histogram: Histogram, extra: Partial<BenchRow> = {}): BenchRow => latencyRow(SUITE, `[${label}] ${name}`, false, histogram, extra);
    const stats = orderRoute.stats;
    const signed = `presigned ${stats.presigned - statsBefore.presigned}, signed inline ${stats.inlineSigned - statsBefore.inlineSigned}, signed by the worker on demand ${stats.workerSigned - statsBefore.workerSigned}`;
    const orderPaths = orderRoute.orderPathStats;
    const orderPathNote = orderPaths === null ? '' : `; per-order signatures (whole run): orders tracked ${orderPaths.tracked}, signed ${orderPaths.signed}, taken ${orderPaths.taken}, missed ${orderPaths.missed} (of orders not tracked ${orderPaths.untracked}), evicted ${orderPaths.evicted}`;
    const fixStats = runtime.fix?.stats ?? null;
    const pathNote = fixStats !== null && fixBefore !== null
      ? `NewOrderSingle: written on the FIX session's socket inside the call; FIX requests ${fixStats.requests - fixBefore.requests}, acks ${fixStats.acks - fixBefore.acks}, rejects ${fixStats.rejects - fixBefore.rejects}, not sent ${fixStats.notSent - fixBefore.notSent}`
      : `${mode === 'replace' ? 'create' : 'amend'}: written on exec's raw client inside the call; requests ${stats.requests - statsBefore.requests}: ${signed}${orderPathNote}`;
    const rows = [
      hop('hop: frame received -> decoded', probe.decode.histogram),
      hop('hop: decoded -> book applied', probe.book.histogram),
      hop('hop: book applied -> strategy intent', probe.strategy.histogram),
      hop('hop: strategy intent -> risk verdict', probe.risk.histogram),
      hop('hop: risk verdict -> exec called (OMS)', probe.oms.histogram),
      hop('hop: exec called -> returned', probe.exec.histogram, { note: pathNote }),
      hop('exec: exec called -> first byte handed to socket.write (encode, signature take, assembly)', probe.encode.histogram),
      hop('exec: the socket.write call (first byte handed -> write returned)', probe.write.histogram, { note: 'the routes\' write-start and write channels around the one socket.write' }),
      hop('tick-to-trade: frame received -> first byte handed to socket.write', probe.firstByte.histogram, { note: 'the probe\'s firstByte hop: timed frames whose order was written inside its exec call; its return is the row above' }),
      hop('tick-to-trade: frame received -> exec returned', probe.total.histogram, { compareTo: FLOOR, note }),
    ];
    if (syscalls !== null) {
      const traced = `perf trace on both processes (adds its own cost per system call); order writes >= ${ORDER_WRITE_MIN_BYTES} bytes ${syscalls.writes}, paired with a simulator read of the same size ${syscalls.paired}`;
      rows.push(
        hop('kernel: an order request\'s write system call (perf trace: entry -> return)', syscalls.kernelWrite, { note: traced }),
        hop('wake: our write\'s entry -> the simulator\'s read returned its bytes (perf trace)', syscalls.wake, { note: traced }),
      );
    } else if (traceNote !== '') {
      rows.push({ suite: SUITE, case: `[${label}] kernel and wake (perf trace)`, baseline: false, count: 0, note: traceNote });
    }
    // The simulator probes Predictions order entry only.
    if (mode === 'replace' && operator === 'off' && !margin && wire !== null) {
      rows.push({
        suite: SUITE,
        case: `[${label}] wire-to-wire (simulator side): delta sent -> ${route === 'fix' ? 'NewOrderSingle' : 'order'} received`,
        baseline: false,
        count: wire.count,
        p50Ns: wire.p50Ns,
        p99Ns: wire.p99Ns,
        p999Ns: wire.p999Ns,
        maxNs: wire.maxNs,
        meanNs: Math.round(wire.meanNs * 10) / 10,
        compareTo: FLOOR,
        note: `simulator --probe, its own clock; delta batches ${wire.deltaBatches}, orders without a delta ${wire.ordersWithoutDelta}, cancels without a market ${wire.ordersWithoutTicker}`,
      });
    }
    return { rows };
  } finally {
    if (trace !== null) await trace.stop(process.pid, sim.ready.pid, ORDER_WRITE_MIN_BYTES);
    await client?.stop();
    snapshots?.stop();
    await dashboard?.stop();
    await metricsServer?.stop();
    unpin?.();
    await runtime.stop('bench done');
  }
}

/** Bytes of one create request as the runtime writes it: request line, headers (RSA-2048 signature), body. */
function createRequestBytes(sim: SimChild): number {
  const body = encodeCreateOrder({
    clientOrderId: 'rt-mwsbapda-1000000', ticker: TICKER, side: 'bid', price: 4000 as Price, count: 100 as Count, timeInForce: 'good_till_canceled',
    postOnly: true, reduceOnly: false, selfTradePrevention: 'taker_at_cross', subaccount: 0, orderGroupId: null, expirationTs: 0,
  });
  const head =
    `POST /trade-api/v2/portfolio/events/orders HTTP/1.1\r\nhost: ${new URL(sim.ready.http).host}\r\ncontent-type: application/json\r\n` +
    `content-length: ${Buffer.byteLength(body)}\r\nkalshi-access-key: ${sim.ready.keyId}\r\nkalshi-access-timestamp: 1798761600123\r\n` +
    `kalshi-access-signature: ${'A'.repeat(344)}\r\n\r\n`;
  return Buffer.byteLength(head) + Buffer.byteLength(body);
}

/** The loopback floor as a row: bench/loopback.ts's round trips, 200 warm-up ones first. */
async function loopbackFloor(requestBytes: number, replyBytes: number, phase: Phase, pin: string | null, childCpus: string | null, gapMs: number): Promise<BenchRow> {
  const samples = gapMs === 0 ? phase.roundTrips * 10 : phase.roundTrips;
  const histogram = await loopbackRoundTrips(requestBytes, replyBytes, samples, 200, pin, childCpus, gapMs);
  const name = gapMs === 0 ? FLOOR : `${FLOOR}, paced: ${gapMs} ms between round trips`;
  return latencyRow(SUITE, name, true, histogram, { note: `${requestBytes} B out (an order request), ${replyBytes} B back (a delta frame); one way is about half` });
}

/** Create round trips, ours and the official client's, interleaved one order each, paced under the rate limit. */
async function roundTrips(sim: SimChild, phase: Phase): Promise<BenchRow[]> {
  const privateKeyPem = readFileSync(sim.ready.privateKeyPath, 'utf8');
  const entry = new RestOrderEntry({
    ...REST_ORDER_ENTRY_DEFAULTS,
    baseUrl: `${sim.ready.http}/trade-api/v2`,
    keyId: sim.ready.keyId,
    privateKey: loadPrivateKey(privateKeyPem),
    clock: systemClock,
    connections: 2,
    signing: 'presigned',
  });
  let wake: (() => void) | null = null;
  let failures = 0;
  const done = (): void => {
    const resolve = wake;
    wake = null;
    resolve?.();
  };
  const listener: ExecListener = {
    onCreateAck: done,
    onCreateReject: () => {
      failures++;
      done();
    },
    onCreateUnknown: () => {
      failures++;
      done();
    },
    onCancelAck() {},
    onCancelReject() {},
    onCancelUnknown() {},
    onAmendAck() {},
    onAmendReject() {},
    onDecreaseAck() {},
    onDecreaseReject() {},
  };
  entry.setListener(listener);
  await entry.connect();
  const official = new OrdersApi(new Configuration({ apiKey: sim.ready.keyId, privateKeyPem, basePath: `${sim.ready.http}/trade-api/v2` }));
  const ours = createHistogram();
  const theirs = createHistogram();
  let officialFailures = 0;
  // IOC buys at $0.01 against a book quoted near $0.50: answered at once, nothing rests.
  const order: { -readonly [K in keyof NewOrder]: NewOrder[K] } = {
    clientOrderId: '', ticker: TICKER, side: 'bid', price: 100 as Price, count: 100 as Count, timeInForce: 'immediate_or_cancel',
    postOnly: false, reduceOnly: false, selfTradePrevention: 'taker_at_cross', subaccount: 0, orderGroupId: null, expirationTs: 0,
  };
  const warmup = 20;
  const deadline = Date.now() + 60_000;
  try {
    for (let i = 0; i < phase.roundTrips + warmup && Date.now() < deadline; i++) {
      const record = i >= warmup;
      order.clientOrderId = randomUUID();
      const acked = new Promise<void>((resolve) => {
        wake = resolve;
      });
      let start = nowNs();
      entry.create(order);
      await acked;
      if (record) recordNs(ours, nowNs() - start);
      await pause(3);
      start = nowNs();
      try {
        const response = await official.createOrderV2({
          ticker: TICKER, client_order_id: randomUUID(), side: 'bid', count: '1.00', price: '0.0100',
          time_in_force: 'immediate_or_cancel', self_trade_prevention_type: 'taker_at_cross',
        });
        consume(response.data);
      } catch {
        officialFailures++;
      }
      if (record) recordNs(theirs, nowNs() - start);
      await pause(3); // demo key "prime": 400 creates/s; two per 6+ ms stays under it
    }
  } finally {
    await entry.close();
  }
  return [
    latencyRow(SUITE, 'ours create round trip (RestOrderEntry, presigned)', false, ours, { compareTo: OFFICIAL, note: `create() -> ack; failures ${failures}` }),
    latencyRow(SUITE, OFFICIAL, true, theirs, { note: `axios, inline signing; failures ${officialFailures}` }),
  ];
}
