/**
 * The in-process part of the fix suite: frame in -> order bytes ready, through the runtime's one
 * graph builder, on the same recorded orderbook_delta frames as bench/hot-path (bench/feed/
 * delta-frames.ts, one market, the same seed), the tick-to-trade strategy in replace mode, twice
 * in one run:
 *
 *   REST lane  strategy route 'rest' -> bench/hot-path's SinkOrderEntry (encode the JSON body,
 *              take a presigned signature, assemble the request, copy it into bytes)
 *   FIX lane   strategy route 'fix'  -> the real FixOrderEntry (fix-sink.ts: NewOrderSingle encoded
 *              by its session, copied by its transport, handed to socket.write, which counts it)
 *
 * Both graphs are fed every frame, interleaved frame by frame with the starting lane rotating (as
 * bench/hot-path's driver does), answers delivered between frames and never timed, a manual clock
 * moving 10 ms per frame, the OMS tick every 8 frames. Rows: each lane's TickToTradeProbe total
 * (frame received -> exec returned) and its exec hop, and the driver's own clock around
 * handleBytes; the FIX lane's total carries the target (within 10% of the REST lane's p50).
 */

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { makeFeedStream } from '../feed/delta-frames.ts';
import { SinkOrderEntry } from '../hot-path/sink-order-entry.ts';
import { createHistogram, latencyRow, nowNs, recordNs } from '../harness.ts';
import type { BenchRow, Histogram } from '../harness.ts';
import { FixSinkRoute } from './fix-sink.ts';
import { FRAME_MS, buildHotPath, type HotPath } from '../hot-path/wiring.ts';

const SEED = 20261122; // bench/hot-path's frames
export const REST_TOTAL = '[rest] tick-to-trade (probe): frame received -> exec returned (SinkOrderEntry, as bench/hot-path)';
export const FIX_TOTAL = '[fix] tick-to-trade (probe): frame received -> exec returned (FixOrderEntry: NewOrderSingle bytes ready)';
const WITHIN = 1.1;

export interface InProcessPhase {
  warmup: number;
  samples: number;
  budgetMs: number;
}

export const IN_PROCESS_QUICK: InProcessPhase = { warmup: 5_000, samples: 20_000, budgetMs: 4_000 };
export const IN_PROCESS_FULL: InProcessPhase = { warmup: 20_000, samples: 200_000, budgetMs: 30_000 };

interface Lane {
  readonly name: 'rest' | 'fix';
  readonly path: HotPath;
  readonly outer: Histogram;
  /** Answers of the previous frame's requests (never timed). */
  answer(): void;
}

export async function inProcessRows(suite: string, phase: InProcessPhase): Promise<BenchRow[]> {
  const stream = makeFeedStream(1, phase.warmup + phase.samples, SEED);
  const frames = stream.deltas.map((text) => Buffer.from(text, 'utf8'));
  const work = mkdtempSync(path.join(tmpdir(), 'bench-fix-'));
  const paths: HotPath[] = [];
  let fix: FixSinkRoute | null = null;
  try {
    const common = { ticker: stream.tickers[0], grid: stream.grid, snapshotFrame: stream.snapshots[0] };
    const restSink = new SinkOrderEntry();
    const restPath = await buildHotPath({ ...common, entry: restSink, fix: null, route: 'rest', mode: 'replace', journalPath: path.join(work, 'journal-rest.jsonl') });
    paths.push(restPath);
    fix = await FixSinkRoute.start();
    const fixRoute = fix;
    const fixReads = new SinkOrderEntry(); // reads and the default route of the FIX graph (unused by its strategy)
    const fixPath = await buildHotPath({ ...common, entry: fixReads, fix: fix.entry, route: 'fix', mode: 'replace', journalPath: path.join(work, 'journal-fix.jsonl') });
    paths.push(fixPath);
    const lanes: Lane[] = [
      { name: 'rest', path: restPath, outer: createHistogram(), answer: () => restSink.deliverAnswers(restPath.clock.nowMs()) },
      { name: 'fix', path: fixPath, outer: createHistogram(), answer: () => fixRoute.deliverAnswers() },
    ];
    const timed = await drive(lanes, frames, phase);
    const rest = restPath.graph.probe;
    const fixProbe = fixPath.graph.probe;
    if (fixRoute.requests === 0 || fixReads.requests !== 0) throw new Error('bench fix: the FIX lane sent nothing over FIX, or something over REST');
    const restP50 = rest.total.histogram.getValueAtPercentile(50);
    const fixP50 = fixProbe.total.histogram.getValueAtPercentile(50);
    const over = fixP50 / restP50;
    const verdict = over <= WITHIN
      ? `p50 ${fixP50} ns is ${((over - 1) * 100).toFixed(1)}% vs REST ${restP50} ns: within 10%`
      : `p50 ${fixP50} ns is ${((over - 1) * 100).toFixed(1)}% above REST ${restP50} ns: misses "within 10%" by ${((over - WITHIN) * 100).toFixed(1)} points`;
    const fixStats = fixRoute.entry.stats;
    return [
      latencyRow(suite, REST_TOTAL, true, rest.total.histogram, {
        note: `frames timed ${timed}, with an order ${rest.framesWithOrder}; requests ${restSink.requests}, ${restSink.bytes} bytes`,
      }),
      latencyRow(suite, FIX_TOTAL, false, fixProbe.total.histogram, {
        compareTo: REST_TOTAL,
        target: 'p50 within 10% of the REST route (<= 1.10x)',
        pass: over <= WITHIN,
        note: `${verdict}; frames with an order ${fixProbe.framesWithOrder}; FIX messages ${fixRoute.requests}, ${fixRoute.bytes} bytes; acks ${fixStats.acks}, rejects ${fixStats.rejects}, unknowns ${fixStats.unknowns}`,
      }),
      latencyRow(suite, '[rest] hop: exec called -> returned (SinkOrderEntry: encode, sign take, assemble, copy)', true, rest.exec.histogram),
      latencyRow(suite, '[fix] hop: exec called -> returned (FixOrderEntry: encode, session send, transport copy, socket.write counted)', false, fixProbe.exec.histogram, {
        compareTo: '[rest] hop: exec called -> returned (SinkOrderEntry: encode, sign take, assemble, copy)',
      }),
      latencyRow(suite, '[rest] frame in -> handleBytes returned (driver clock)', true, lanes[0].outer),
      latencyRow(suite, '[fix] frame in -> handleBytes returned (driver clock)', false, lanes[1].outer, { compareTo: '[rest] frame in -> handleBytes returned (driver clock)' }),
    ];
  } finally {
    for (const item of paths) await item.stop();
    await fix?.stop();
    rmSync(work, { recursive: true, force: true });
  }
}

/** Frame by frame over both lanes, the starting lane rotating; answers and ticks between frames. */
async function drive(lanes: readonly Lane[], frames: readonly Buffer[], phase: InProcessPhase): Promise<number> {
  let next = 0;
  const round = async (timed: boolean): Promise<void> => {
    const bytes = frames[next];
    for (const lane of lanes) {
      lane.answer();
      lane.path.clock.advance(FRAME_MS);
      if ((next & 7) === 0) lane.path.graph.oms.tick();
    }
    await null; // the OMS tells strategies of answers in a microtask, as after a socket callback
    for (let k = 0; k < lanes.length; k++) {
      const lane = lanes[(next + k) % lanes.length];
      const feed = lane.path.graph.feed;
      if (!timed) {
        feed.handleBytes(bytes, 0, bytes.length);
        continue;
      }
      const start = nowNs();
      feed.handleBytes(bytes, 0, bytes.length);
      recordNs(lane.outer, nowNs() - start);
    }
    next++;
  };
  let deadline = performance.now() + phase.budgetMs;
  for (let i = 0; i < phase.warmup && next < frames.length; i++) {
    await round(false);
    if ((i & 1023) === 1023) {
      await nextTurn(); // the journals' writes, the FIX route's tick
      if (performance.now() > deadline) break;
    }
  }
  for (const lane of lanes) lane.path.graph.probe.reset();
  deadline = performance.now() + phase.budgetMs;
  let timed = 0;
  while (timed < phase.samples && next < frames.length) {
    await round(true);
    timed++;
    if ((timed & 1023) === 1023) {
      await nextTurn();
      if (performance.now() > deadline) break;
    }
  }
  return timed;
}
