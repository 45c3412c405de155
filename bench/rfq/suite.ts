/**
 * RFQ suite (issue's performance rows: "RFQ message received -> quote bytes handed to the socket:
 * p50 <= 20 us, p99 <= 100 us at a pace of 10 RFQs/s, over WebSocket+REST and over FIX, each beside
 * the same work done through the official client in the same run").
 *
 * One simulator in a child process of its own (sim-child.ts, started as bench/child-process.ts
 * starts children, as bench/fix/wire.ts and bench/tick-to-trade run theirs), FIX on, one market with
 * a resting 0.45 bid and 0.55 ask from a liquidity user, and a requester (the demo key) that creates
 * one RFQ of 10 contracts every 100 ms over signed REST and deletes each RFQ about a second later
 * (at the half tick; the venue keeps at most 100 open per user). The requester lives in that child
 * too: its inline RSA signing (~1 ms per create and per delete) and the answers to its requests
 * would otherwise run on the lanes' event loop at the very moment the RFQ it created reaches them
 * (the create's answer and the broadcasts leave the simulator together); in the child they only
 * decide when an RFQ is sent, before any lane's t0. Three makers, each its own simulator user (so
 * each sees every RFQ), quote every RFQ:
 *
 *   1. ours, WebSocket + REST (graph-lane.ts): the runtime's graph with the rfq-maker plugin, RFQs
 *      from the `communications` channel, quotes through RestQuoteRoute signed as the runtime signs
 *      them by default (exec.signing 'presigned': a signature the REST route's presigner worker
 *      made ahead for POST /communications/quotes, taken from its ring, the request written on a
 *      raw HTTP/1.1 socket before create() returns).
 *   2. ours, FIX (graph-lane.ts): the same graph, quotes through FixQuoteRoute on the simulator's
 *      KalshiRFQ session, RFQs from that session's QuoteRequest (35=R); no `communications`.
 *   3. baseline, official client (official-maker.ts): undici WebSocket, JSON.parse, a fixed mid,
 *      kalshi-typescript CommunicationsApi.createQuote (which signs inline with its PEM).
 *
 * Measured identically for every lane (wire-stamps.ts): t0 = the socket 'data' event whose chunk
 * carries the RFQ on the lane's WebSocket or FIX socket, t1 = the first socket.write of the quote's
 * bytes on the lane's socket (the request head naming communications/quotes, or 35=S), matched by
 * RFQ id; t1 - t0 into an HDR histogram per lane. Only RFQs created after the warm-up count. Each of
 * ours carries the target 'p50 <= 20 us, p99 <= 100 us' (pass, and by how much it is missed) and is
 * compared with the baseline; every row says how many of the RFQs created it quoted. Beside each of
 * ours, a context row without a target: t0 -> the graph calling its quote route's create (the
 * graph's share: decode, quote book, strategy, gate; the route's own share is the difference), from
 * a wrapper on the route instance that costs one hrtime read per quote inside the window.
 *
 * Only the three lanes share this event loop, with one another, as makers in one process would:
 * a lane whose path is asynchronous (axios's promise chain) can run inside another lane's window.
 * Placement and JIT as bench/fix/wire.ts and `npm start`: on Linux with two or more CPUs and
 * taskset, this event loop on the first CPU (pinned once the lanes' worker threads exist) and the
 * simulator child on the others (BENCH_PLACEMENT=off turns it off); eager JIT tier-up
 * (BENCH_EAGER_JIT=off keeps V8's default), and our lanes run the main job's keep-warm dry run,
 * RFQ leg included (BENCH_KEEP_WARM=off leaves it out). Bounded in RFQs and in time; decides nothing.
 */

import { createPrivateKey } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { pinEventLoop, placementForThisMachine } from '../../src/runtime/cpu-placement.ts';
import { applyEagerTierUp } from '../../src/runtime/jit-tier-up.ts';
import { BenchChild } from '../child-process.ts';
import { createHistogram, latencyRow, recordNs } from '../harness.ts';
import type { BenchRow, BenchSuite } from '../harness.ts';
import { startGraphLane, type GraphLane } from './graph-lane.ts';
import { startOfficialMaker, type OfficialMaker } from './official-maker.ts';
import { SocketStamper, matchLane, type StampLane } from './wire-stamps.ts';

const SUITE = 'rfq';
const REPO_DIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const TICKER = 'KXDEMO-26DEC31-T50';
const API = '/trade-api/v2';
const PACE_MS = 100; // 10 RFQs/s
const P50_TARGET_NS = 20_000;
const P99_TARGET_NS = 100_000;
const TARGET = 'p50 <= 20 us, p99 <= 100 us';
const OURS_REST = 'ours, WebSocket + REST: rfq_created received -> quote POST written';
const OURS_FIX = 'ours, FIX: QuoteRequest 35=R received -> Quote 35=S written';
const OFFICIAL = 'baseline: official client (undici WebSocket + kalshi-typescript createQuote): rfq_created received -> quote POST written';

export interface RfqPhase {
  warmupMs: number;
  /** RFQs recorded after the warm-up. */
  rfqs: number;
}

export const RFQ_QUICK: RfqPhase = { warmupMs: 3_000, rfqs: 200 };
export const RFQ_FULL: RfqPhase = { warmupMs: 5_000, rfqs: 2_000 };

/** The simulator child's ready line (sim-child.ts). */
interface SimReady {
  http: string;
  ws: string;
  port: number;
  fix: { host: string; port: number };
  makers: { keyId: string; privateKeyPem: string }[];
}

/** The requester's report (sim-child.ts's Paced). */
interface Paced {
  recorded: string[];
  created: number;
  createFailures: number;
  lastFailure: string;
  elapsedMs: number;
}

function us(ns: number): string {
  return `${(ns / 1000).toFixed(1)} us`;
}

/** The target's verdict and, when missed, by how much. */
function verdict(p50Ns: number, p99Ns: number, count: number): { pass: boolean; note: string } {
  if (count === 0) return { pass: false, note: 'no samples' };
  const misses: string[] = [];
  if (p50Ns > P50_TARGET_NS) misses.push(`p50 ${us(p50Ns)} is ${us(p50Ns - P50_TARGET_NS)} over 20 us (${(p50Ns / P50_TARGET_NS).toFixed(1)}x)`);
  if (p99Ns > P99_TARGET_NS) misses.push(`p99 ${us(p99Ns)} is ${us(p99Ns - P99_TARGET_NS)} over 100 us (${(p99Ns / P99_TARGET_NS).toFixed(1)}x)`);
  return misses.length === 0 ? { pass: true, note: 'meets the target' } : { pass: false, note: `misses: ${misses.join('; ')}` };
}

export async function rfqRows(suite: string, phase: RfqPhase): Promise<BenchRow[]> {
  const placement = process.env.BENCH_PLACEMENT === 'off' ? { plan: null, reason: 'placement off (BENCH_PLACEMENT=off)' } : placementForThisMachine();
  const eagerJit = process.env.BENCH_EAGER_JIT !== 'off';
  const eagerJitFlags = eagerJit ? applyEagerTierUp() : [];
  const keepWarmNote = process.env.BENCH_KEEP_WARM === 'off' ? 'keep-warm off (BENCH_KEEP_WARM=off)' : 'keep-warm on (process.keepWarmMs, RFQ leg included)';
  const setting = `simulator and requester in a child process; ${placement.reason}; ${keepWarmNote}; ${eagerJit ? `eager JIT tier-up (${eagerJitFlags.join(' ') || 'no flags known for this V8'})` : "V8's default tiering (BENCH_EAGER_JIT=off)"}`;
  const work = mkdtempSync(path.join(tmpdir(), 'bench-rfq-'));
  let child: BenchChild | null = null;
  let stamper: SocketStamper | null = null;
  const lanes: GraphLane[] = [];
  let official: OfficialMaker | null = null;
  let unpin: (() => void) | null = null;
  try {
    child = await BenchChild.start(path.join('bench', 'rfq', 'sim-child.ts'), [work], 60_000, placement.plan?.simCpus ?? null);
    const sim = child.ready as unknown as SimReady;
    const makerKeys = sim.makers;
    const stampLanes: StampLane[] = [
      { name: OURS_REST, kind: 'ws', keyId: makerKeys[0]!.keyId },
      { name: OURS_FIX, kind: 'fix', keyId: makerKeys[1]!.keyId },
      { name: OFFICIAL, kind: 'ws', keyId: makerKeys[2]!.keyId },
    ];
    stamper = new SocketStamper(stampLanes, [sim.port, sim.fix.port]);
    stamper.install(); // before any lane connects: its handshakes tag its sockets
    const restUrl = `${sim.http}${API}`;
    for (const [index, route] of (['rest', 'fix'] as const).entries()) {
      const key = makerKeys[index]!;
      lanes.push(await startGraphLane({
        route, ticker: TICKER, restUrl, wsUrl: sim.ws, keyId: key.keyId, privateKey: createPrivateKey(key.privateKeyPem),
        fix: route === 'fix' ? sim.fix : null,
        journalPath: path.join(work, `journal-${route}.jsonl`), rootDir: REPO_DIR, rateLimitTier: 'basic',
      }));
    }
    official = await startOfficialMaker({ restUrl, wsUrl: sim.ws, keyId: makerKeys[2]!.keyId, privateKeyPem: makerKeys[2]!.privateKeyPem });
    // As `npm start`: pinned once the lanes' worker threads (presigners) exist, so they keep the other CPUs.
    if (placement.plan !== null) unpin = pinEventLoop(placement.plan.runtimeCpus);

    const boundMs = phase.warmupMs + phase.rfqs * PACE_MS * 1.5 + 10_000;
    const paced = await child.command({ cmd: 'pace', warmupMs: phase.warmupMs, rfqs: phase.rfqs, boundMs }, boundMs + 30_000) as unknown as Paced;
    stamper.uninstall();

    const rows: BenchRow[] = [];
    const created = paced.recorded.length;
    const pacing = `${paced.created} RFQs created in ${(paced.elapsedMs / 1000).toFixed(1)} s (every ${PACE_MS} ms), ${created} after the ${phase.warmupMs / 1000} s warm-up counted` +
      (paced.createFailures > 0 ? `; ${paced.createFailures} creates refused (last: ${paced.lastFailure})` : '') +
      (created < phase.rfqs ? `; stopped at the time bound before ${phase.rfqs}` : '');
    const laneRow = (index: number, baseline: boolean, extraNote: string): BenchRow => {
      const lane = stampLanes[index]!;
      const match = matchLane(stamper!.stamps[index]!, paced.recorded);
      const histogram = createHistogram();
      for (const ns of match.latenciesNs) recordNs(histogram, ns);
      const missed = created - match.quoted;
      const counts = `quoted ${match.quoted} of ${created} RFQs created (received ${match.received})` +
        (missed > 0 ? `; MISSED ${missed} RFQs` : '') +
        (match.sentWithoutReceived > 0 ? `; ${match.sentWithoutReceived} quotes without a t0 (RFQ split across chunks), not sampled` : '');
      if (baseline) return latencyRow(suite, lane.name, true, histogram, { note: `${counts}; ${extraNote}` });
      const p50 = histogram.getValueAtPercentile(50);
      const p99 = histogram.getValueAtPercentile(99);
      const { pass, note } = verdict(p50, p99, histogram.totalCount);
      return latencyRow(suite, lane.name, false, histogram, { compareTo: OFFICIAL, target: TARGET, pass, note: `${note}; ${counts}; ${extraNote}` });
    };
    const [restLane, fixLane] = lanes;
    rows.push(laneRow(0, false, `quote book ${JSON.stringify(restLane!.quoteStates())}; ${restLane!.signingNote()}`));
    rows.push(laneRow(1, false, `quote book ${JSON.stringify(fixLane!.quoteStates())}; FIX route ${JSON.stringify(fixLane!.fixRoute?.stats ?? {})}`));
    // Context rows: the part of each of our windows spent before the graph hands the quote to its route.
    for (const [index, lane] of lanes.entries()) {
      const stamps = stamper.stamps[index]!;
      const histogram = createHistogram();
      for (const id of paced.recorded) {
        const t0 = stamps.received.get(id);
        const called = lane.createCalls.get(id);
        if (t0 !== undefined && called !== undefined && called >= t0) recordNs(histogram, Number(called - t0));
      }
      const route = index === 0 ? 'RestQuoteRoute.create' : 'FixQuoteRoute.create';
      rows.splice(index === 0 ? 1 : 3, 0, latencyRow(suite, `${index === 0 ? 'ours, WebSocket + REST' : 'ours, FIX'}: of which RFQ received -> ${route} called`, false, histogram, {
        note: `for context: the graph's share (decode, quote book, strategy, gate) of the row above; the rest is the route's (${index === 0 ? 'a presigned signature from the ring, encode and the raw socket write' : 'encode and write'})`,
      }));
    }
    const stats = official.stats;
    rows.push(laneRow(2, true, `createQuote answered 201 ${stats.quotesCreated}, failed ${stats.quotesFailed}${stats.lastError === '' ? '' : ` (last: ${stats.lastError})`}`));
    for (const row of rows) {
      row.note = `${row.note}; ${pacing}; ${setting}${stamper.chunksWithoutId > 0 ? `; ${stamper.chunksWithoutId} RFQ chunks without a readable id` : ''}`;
    }
    return rows;
  } finally {
    stamper?.uninstall();
    unpin?.();
    await official?.stop();
    for (const lane of lanes) await lane.stop().catch(() => undefined);
    await child?.stop();
    rmSync(work, { recursive: true, force: true });
  }
}

export default {
  name: SUITE,
  async run({ quick }): Promise<BenchRow[]> {
    return rfqRows(SUITE, quick ? RFQ_QUICK : RFQ_FULL);
  },
} satisfies BenchSuite;
