/**
 * The wire-to-wire part of the fix suite: the runtime in this process (src/runtime/runtime.ts, as
 * `npm start` builds it) with the tick-to-trade strategy on route 'fix', against the simulator in
 * a child process started with --fix and --probe, and, in the same run and on the same CPUs, a raw
 * TCP ping-pong at the same pace and sizes. bench/tick-to-trade's approach, reused:
 *
 * - wire to wire, on the simulator's clock (src/sim/server/probe.ts): the most recent
 *   orderbook_delta on the market handed to the socket -> the read of the socket chunk that
 *   completed our NewOrderSingle on the simulator's FIX order-entry connection (noteFixBytes /
 *   noteFixOrder; the REST route is stamped when uWS hands the request over). Replace mode: each
 *   touch change gives one create (sampled) and one cancel (35=F, not sampled). The simulator's
 *   market makes ~1,000 updates/s, touch changes ~60/s.
 * - the REST route beside it, same simulator, same strategy on route 'rest' (the simulator probes
 *   its creates the same way), for context.
 * - the floor: bench/tick-to-trade/echo-server.mjs in a child process (on the simulator's CPUs),
 *   a NewOrderSingle's bytes out and a delta frame's bytes back, one round trip every
 *   PACED_GAP_MS (about the gap between the timed orders), so both ends are idle between round
 *   trips as they are between orders; the loop is bench/loopback.ts's, shared with
 *   bench/tick-to-trade. Also back to back, for reference.
 *
 * Placement and JIT as bench/tick-to-trade and `npm start`: on Linux with two or more CPUs and
 * taskset, the event loop on the first CPU and the children on the others (BENCH_PLACEMENT=off
 * turns it off); eager JIT tier-up (BENCH_EAGER_JIT=off keeps V8's default; process-wide, so it
 * stays on for suites run after this one in the same process). Bounded in time everywhere.
 */

import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { loadPrivateKey } from '../../src/core/index.ts';
import { FixEncoder, MsgType, Tag } from '../../src/fix/index.ts';
import { pinEventLoop, placementForThisMachine } from '../../src/runtime/cpu-placement.ts';
import { validateConfig } from '../../src/runtime/config.ts';
import { applyEagerTierUp } from '../../src/runtime/jit-tier-up.ts';
import { Runtime } from '../../src/runtime/runtime.ts';
import { SimChild } from '../../src/runtime/sim-child.ts';
import { createLogger } from '../../src/telemetry/index.ts';
import { REPO_DIR } from '../child-process.ts';
import { loopbackRoundTrips, oneMarketCatalog, simProbe, type WireProbeSummary } from '../loopback.ts';
import { latencyRow } from '../harness.ts';
import type { BenchRow } from '../harness.ts';

const TICKER = 'KXDEMO-26DEC31-T50';
const PACED_GAP_MS = 15; // bench/tick-to-trade's: about the gap between timed orders
export const FIX_WIRE = '[fix] wire-to-wire (simulator side): delta sent -> NewOrderSingle received';
const REST_WIRE = '[rest] wire-to-wire (simulator side): delta sent -> create request received';
export const FLOOR_PACED = `floor: loopback TCP ping-pong (round trip), paced: ${PACED_GAP_MS} ms between round trips`;
const FLOOR = 'floor: loopback TCP ping-pong (round trip), back to back';
const WITHIN = 1.3;
// A book frame as the simulator sends it (bench/tick-to-trade's sample): its size sets the floor's reply.
const SAMPLE_FRAME =
  '{"type":"orderbook_delta","sid":1,"seq":12345,"msg":{"market_ticker":"KXDEMO-26DEC31-T50","market_id":"3f1c2d4e-0a1b-4c5d-8e9f-102132435465","price_dollars":"0.4200","delta_fp":"-40.00","side":"yes","ts_ms":1798761600123}}';

export interface WirePhase {
  warmupMs: number;
  measureMs: number;
  activityPerSec: number;
  roundTrips: number;
  /** Also run the REST route (context row). */
  rest: boolean;
}

export const WIRE_QUICK: WirePhase = { warmupMs: 1_500, measureMs: 3_000, activityPerSec: 1_000, roundTrips: 60, rest: false };
export const WIRE_FULL: WirePhase = { warmupMs: 5_000, measureMs: 20_000, activityPerSec: 1_000, roundTrips: 400, rest: true };


const pause = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

export async function wireRows(suite: string, phase: WirePhase): Promise<BenchRow[]> {
  const placement = process.env.BENCH_PLACEMENT === 'off' ? { plan: null, reason: 'placement off (BENCH_PLACEMENT=off)' } : placementForThisMachine();
  const eagerJit = process.env.BENCH_EAGER_JIT !== 'off';
  const eagerJitFlags = eagerJit ? applyEagerTierUp() : [];
  const setting = `${placement.reason}; ${eagerJit ? `eager JIT tier-up (${eagerJitFlags.join(' ') || 'no flags known for this V8'})` : "V8's default tiering (BENCH_EAGER_JIT=off)"}`;
  const work = mkdtempSync(path.join(tmpdir(), 'bench-fix-wire-'));
  let sim: SimChild | null = null;
  const rows: BenchRow[] = [];
  try {
    sim = await startSim(work, phase, placement.plan?.simCpus ?? null);
    if (sim.ready.fix === null) throw new Error('bench fix: the simulator started without its FIX acceptor');
    const pin = placement.plan?.runtimeCpus ?? null;
    const simCpus = placement.plan?.simCpus ?? null;
    const fixWire = await runtimeWire(sim, work, phase, 'fix', pin);
    const restWire = phase.rest ? await runtimeWire(sim, work, phase, 'rest', pin) : null;
    const orderBytes = newOrderSingleBytes(sim.ready.keyId);
    const replyBytes = Buffer.byteLength(SAMPLE_FRAME);
    const paced = await loopbackFloor(orderBytes, replyBytes, phase, pin, simCpus, PACED_GAP_MS);
    const backToBack = await loopbackFloor(orderBytes, replyBytes, phase, pin, simCpus, 0);
    const floorP50 = paced.getValueAtPercentile(50);
    const floorNote = `${orderBytes} B out (a NewOrderSingle), ${replyBytes} B back (a delta frame); echo-server child on the simulator's CPUs`;
    if (fixWire.summary !== null) {
      const wire = fixWire.summary;
      const over = floorP50 > 0 ? wire.p50Ns / floorP50 : Infinity;
      const verdict = over <= WITHIN
        ? `p50 ${(wire.p50Ns / 1000).toFixed(1)} us is ${over.toFixed(2)}x the paced floor's ${(floorP50 / 1000).toFixed(1)} us: within 1.3x`
        : `p50 ${(wire.p50Ns / 1000).toFixed(1)} us is ${over.toFixed(2)}x the paced floor's ${(floorP50 / 1000).toFixed(1)} us: misses 1.3x by ${((wire.p50Ns - WITHIN * floorP50) / 1000).toFixed(1)} us`;
      rows.push(summaryRow(suite, FIX_WIRE, wire, {
        compareTo: FLOOR_PACED,
        target: 'p50 <= 1.3x the paced ping-pong floor',
        pass: over <= WITHIN,
        note: `${verdict}; ${fixWire.note}`,
      }));
    } else {
      rows.push({ suite, case: FIX_WIRE, baseline: false, count: 0, note: 'the simulator answered no probe summary (probe off?)', target: 'p50 <= 1.3x the paced ping-pong floor', pass: false });
    }
    if (restWire?.summary) rows.push(summaryRow(suite, REST_WIRE, restWire.summary, { compareTo: FLOOR_PACED, note: `for context, same simulator; ${restWire.note}` }));
    rows.push(
      latencyRow(suite, FLOOR_PACED, true, paced, { note: floorNote }),
      latencyRow(suite, FLOOR, true, backToBack, { note: floorNote }),
    );
    for (const row of rows) row.note = row.note === undefined || row.note === '' ? setting : `${row.note}; ${setting}`;
  } finally {
    await sim?.stop();
    rmSync(work, { recursive: true, force: true });
  }
  return rows;
}

/** The simulator child with its FIX acceptor and probe; a failed start carries the tail of its log (the folder is removed after). */
async function startSim(work: string, phase: WirePhase, cpus: string | null): Promise<SimChild> {
  const logPath = path.join(work, 'sim.log');
  try {
    return await SimChild.start({
      rootDir: REPO_DIR,
      marketsFile: oneMarketCatalog(work, TICKER),
      activityUpdatesPerSec: phase.activityPerSec,
      keysDir: path.join(work, 'keys'),
      logPath,
      logLevel: 'warn',
      extraArgs: ['--probe', '--fix'],
      cpus,
    });
  } catch (error) {
    let tail = '';
    try {
      tail = readFileSync(logPath, 'utf8').slice(-2_000);
    } catch {
      tail = '(no log)';
    }
    throw new Error(`${(error as Error).message}; simulator log tail: ${tail}`);
  }
}

function summaryRow(suite: string, name: string, wire: WireProbeSummary, extra: Partial<BenchRow>): BenchRow {
  return {
    suite, case: name, baseline: false, count: wire.count, p50Ns: wire.p50Ns, p99Ns: wire.p99Ns, p999Ns: wire.p999Ns, maxNs: wire.maxNs,
    meanNs: Math.round(wire.meanNs * 10) / 10, ...extra,
  };
}

/** One runtime with the tick-to-trade strategy (replace mode) on `route`; the simulator's probe read after the window. */
async function runtimeWire(sim: SimChild, work: string, phase: WirePhase, route: 'rest' | 'fix', pin: string | null): Promise<{ summary: WireProbeSummary | null; note: string }> {
  const config = validateConfig(
    {
      risk: { rateLimitTier: 'prime', maxOrderCount: '10.00' },
      exec: { signing: 'presigned', connections: 4 },
      strategies: [{ id: `t2t-${route}`, plugin: 'strategies/tick-to-trade.ts', subaccount: 0, markets: [TICKER], route, params: { mode: 'replace', offsetTicks: 10, size: '1.00' } }],
    },
    '<bench fix>',
    {},
  );
  const fix = sim.ready.fix!;
  const runtime = new Runtime({
    config,
    venue: {
      restUrl: `${sim.ready.http}/trade-api/v2`, wsUrl: sim.ready.ws, keyId: sim.ready.keyId, privateKey: loadPrivateKey(sim.ready.privateKeyPath),
      fix: route === 'fix' ? { host: fix.host, port: fix.ports.KalshiNR, tls: fix.tls } : null,
    },
    rootDir: REPO_DIR,
    journalPath: path.join(work, `journal-${route}.jsonl`),
    logger: createLogger({ level: 'silent', pretty: false }),
  });
  let unpin: (() => void) | null = null;
  try {
    await runtime.start();
    if (pin !== null) unpin = pinEventLoop(pin); // as `npm start`: once the runtime's worker threads exist
    await pause(phase.warmupMs);
    await simProbe(sim, 'reset');
    const probe = runtime.probe;
    probe.reset();
    const fixBefore = runtime.fix === null ? null : { ...runtime.fix.stats };
    await pause(phase.measureMs);
    const summary = await simProbe(sim, 'read');
    const status = runtime.status();
    const t2t = probe.total.histogram;
    let note = `runtime's own probe: frame received -> exec returned p50 ${t2t.getValueAtPercentile(50)} ns, p99 ${t2t.getValueAtPercentile(99)} ns over ${t2t.totalCount} orders; book frames ${probe.frames}, with an order ${probe.framesWithOrder}; denies ${JSON.stringify(status.denies)}`;
    if (summary !== null) note += `; delta batches ${summary.deltaBatches}, orders without a delta ${summary.ordersWithoutDelta}`;
    if (runtime.fix !== null && fixBefore !== null) {
      const stats = runtime.fix.stats;
      note += `; FIX requests ${stats.requests - fixBefore.requests}, acks ${stats.acks - fixBefore.acks}, rejects ${stats.rejects - fixBefore.rejects}, unknowns ${stats.unknowns - fixBefore.unknowns}`;
    }
    return { summary, note };
  } finally {
    unpin?.();
    await runtime.stop('bench done');
  }
}

/** Bytes of one NewOrderSingle as the FIX route writes the strategy's bid (FixOrderEntry.create's fields). */
function newOrderSingleBytes(keyId: string): number {
  return new FixEncoder().begin(MsgType.NewOrderSingle, keyId, 'KalshiNR', 1234, Date.now())
    .string(Tag.ClOrdID, 'rt-mwsbapda-1000000').string(Tag.Symbol, TICKER).string(Tag.Side, '1').count(Tag.OrderQty, 100, 2)
    .string(Tag.OrdType, '2').price(Tag.Price, 4000).string(Tag.TimeInForce, '1').string(Tag.ExecInst, '6').int(Tag.ExDestination, -1)
    .string(Tag.SelfTradePreventionType, '1').finish().length;
}

/** The ping-pong floor (bench/loopback.ts); a shorter paced warm-up than tick-to-trade's 200: 50 x 15 ms. */
function loopbackFloor(requestBytes: number, replyBytes: number, phase: WirePhase, pin: string | null, childCpus: string | null, gapMs: number) {
  const samples = gapMs === 0 ? phase.roundTrips * 10 : phase.roundTrips;
  return loopbackRoundTrips(requestBytes, replyBytes, samples, gapMs === 0 ? 200 : 50, pin, childCpus, gapMs);
}
