/**
 * Margin suite: the in-process tick-to-trade path of a Margin perpetual beside the Predictions
 * path, in the same process run, hop by hop, with no sockets.
 *
 *   Lane A (Margin): Margin orderbook_delta bytes (websocket.md §7.1, margin-frames.ts: KXBTCPERP
 *     around a $100 mark, $0.01 tick) -> graph.marginFeed.handleBytes (venue 'margin': the
 *     exact-layout byte scanner) -> perpetual book apply -> RuntimeFeedListener -> StrategyHost -> tick-to-trade onBook
 *     -> ctx.place -> Router (default route -> the market's Margin route) -> RiskGate.check (the
 *     Margin checks: tick, mark, notional, margin, leverage...) -> Oms.accept ->
 *     SinkOrderEntry(MARGIN_SINK).create (the Margin pre-send rules, CreateMarginOrderRequest body, a
 *     signature take, POST /trade-api/v2/margin/orders assembled and copied: bytes "out")
 *   Lane B (Predictions): bench/hot-path's lane unchanged (its wiring, sink, frames and strategy
 *     settings: Feed.handleBytes -> byte scanner -> ... -> SinkOrderEntry.create).
 *
 * Both are built by the runtime's one graph builder (bench/hot-path/wiring.ts; lane A with its
 * `margin` option: moreRoutes exchange 'margin', marginReads and a stub marginFeed session),
 * each its own graph, so each has its own TickToTradeProbe. Frame k of each lane's stream goes in
 * the same round, the starting lane rotating, so the machine's noise and the collector's pauses land
 * on both alike; acks are delivered, the manual clocks moved 10 ms and the OMS ticked between
 * rounds, never inside a timed call (as bench/hot-path does).
 *
 * Then a decode-only comparison, interleaved the same way on the same frames: a Margin delta
 * through FrameDecoder (venue 'margin': the exact-layout byte scanner), a Predictions delta
 * through FrameDecoder (byte scanner, no string), and JSON.parse alone of the Margin frame's bytes
 * made a string (the floor of any JSON path, what a Margin delta in another layout pays).
 * And the timer floor. Every phase bounded in frames and time.
 */

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { consume, createHistogram, latencyRow, nowNs, recordNs } from '../harness.ts';
import type { BenchRow, BenchSuite, Histogram } from '../harness.ts';
import { makeFeedStream } from '../feed/delta-frames.ts';
import { MARGIN_SINK, SinkOrderEntry } from '../hot-path/sink-order-entry.ts';
import { FRAME_MS, buildHotPath } from '../hot-path/wiring.ts';
import { FrameDecoder, MessageKind } from '../../src/feed/index.ts';
import { MarketRegistry } from '../../src/market/index.ts';
import type { TickToTradeProbe } from '../../src/runtime/tick-to-trade-probe.ts';
import { makeMarginStream } from './margin-frames.ts';

const SUITE = 'margin';
const SEED_MARGIN = 20261125;
/** bench/hot-path's seed: the Predictions lane replays the same frames. */
const SEED_PREDICTIONS = 20261122;
/** $1,000,000 of Margin equity, centicents: the margin and leverage checks never bind. */
const EQUITY_CENTICENTS = 10_000_000_000;

export const OUTER_MARGIN = 'margin: frame in -> handleBytes returned (driver clock)';
export const OUTER_PREDICTIONS = 'predictions: frame in -> handleBytes returned (driver clock)';
const DECODE_MARGIN = 'decode: Margin delta, FrameDecoder venue margin (exact-layout byte scanner; JSON path for anything else)';
const DECODE_PREDICTIONS = 'decode: Predictions delta, FrameDecoder (byte scanner)';
const DECODE_PARSE = 'decode: JSON.parse of the same Margin frame (utf8 string + JSON.parse)';

export interface Phase {
  warmup: number;
  samples: number;
  budgetMs: number;
}

export const QUICK: Phase = { warmup: 5_000, samples: 20_000, budgetMs: 4_000 };
export const FULL: Phase = { warmup: 20_000, samples: 200_000, budgetMs: 30_000 };

/** One lane: its graph's feed entry, its sink's answers, its clock and OMS tick, its own frames. */
export interface Lane {
  readonly name: string;
  readonly histogram: Histogram;
  readonly probe: TickToTradeProbe;
  readonly frames: readonly Buffer[];
  /** Handles frame k (its UTF-8 bytes, as the socket hands them over); times it when `timed`. */
  step(k: number, timed: boolean): void;
  /** Work between frames (answers, clock, coarse tick), never timed. */
  between(k: number): void;
  ordersSent(): number;
  /** ordersSent() when the timed phase began (drive sets it). */
  sentAtTimed: number;
  stop(): Promise<void>;
}

interface Graphish {
  clock: { nowMs(): number; advance(ms: number): void };
  feed: { handleBytes(bytes: Buffer, start: number, end: number): boolean };
  oms: { tick(): void; readonly stats: { readonly ordersSent: number } };
  probe: TickToTradeProbe;
  stop(): Promise<void>;
}

class PathLane implements Lane {
  readonly histogram = createHistogram();
  readonly probe: TickToTradeProbe;
  sentAtTimed = 0;
  constructor(
    readonly name: string,
    readonly graph: Graphish,
    readonly sink: { deliverAnswers(tsMs: number): number },
    readonly frames: readonly Buffer[],
  ) {
    this.probe = graph.probe;
  }

  between(k: number): void {
    const clock = this.graph.clock;
    this.sink.deliverAnswers(clock.nowMs());
    clock.advance(FRAME_MS);
    if ((k & 7) === 0) this.graph.oms.tick();
  }

  step(k: number, timed: boolean): void {
    const bytes = this.frames[k];
    if (!timed) {
      this.graph.feed.handleBytes(bytes, 0, bytes.length);
      return;
    }
    const start = nowNs();
    this.graph.feed.handleBytes(bytes, 0, bytes.length);
    recordNs(this.histogram, nowNs() - start);
  }

  ordersSent(): number {
    return this.graph.oms.stats.ordersSent;
  }

  stop(): Promise<void> {
    return this.graph.stop();
  }
}

export interface MarginLanes {
  margin: Lane;
  predictions: Lane;
  marginSink: SinkOrderEntry;
  predictionsSink: SinkOrderEntry;
  /** The Margin lane's default (Predictions) route: must stay silent. */
  marginDefaultSink: SinkOrderEntry;
  /** The frames as text, for the decode comparison. */
  marginTexts: readonly string[];
  predictionsTexts: readonly string[];
  marginTicker: string;
  predictionsTicker: string;
  stop(): Promise<void>;
}

/** Both lanes' graphs and `frames` delta frames for each; journals under `workDir`. */
export async function buildLanes(frames: number, workDir: string): Promise<MarginLanes> {
  const margin = makeMarginStream(frames, SEED_MARGIN);
  const predictions = makeFeedStream(1, frames, SEED_PREDICTIONS);
  const marginSink = new SinkOrderEntry(MARGIN_SINK);
  const marginDefaultSink = new SinkOrderEntry();
  const predictionsSink = new SinkOrderEntry();
  const stops: Array<() => Promise<void>> = [];
  try {
    const mp = await buildHotPath({
      ticker: margin.ticker,
      grid: null,
      margin: { tick: margin.tick, mark: margin.mark, equityCenticents: EQUITY_CENTICENTS, entry: marginSink },
      snapshotFrame: margin.snapshot,
      entry: marginDefaultSink,
      journalPath: path.join(workDir, 'journal-margin.jsonl'),
      mode: 'replace',
    });
    stops.push(() => mp.stop());
    const hp = await buildHotPath({
      ticker: predictions.tickers[0],
      grid: predictions.grid,
      snapshotFrame: predictions.snapshots[0],
      entry: predictionsSink,
      journalPath: path.join(workDir, 'journal-predictions.jsonl'),
      mode: 'replace',
    });
    stops.push(() => hp.stop());
    const bytesOf = (texts: readonly string[]): Buffer[] => texts.map((text) => Buffer.from(text, 'utf8'));
    return {
      margin: new PathLane('margin', mp, marginSink, bytesOf(margin.deltas)),
      predictions: new PathLane('predictions', hp, predictionsSink, bytesOf(predictions.deltas)),
      marginSink,
      predictionsSink,
      marginDefaultSink,
      marginTexts: margin.deltas,
      predictionsTexts: predictions.deltas,
      marginTicker: margin.ticker,
      predictionsTicker: predictions.tickers[0],
      stop: async () => {
        for (const stop of stops) await stop();
      },
    };
  } catch (error) {
    for (const stop of stops) await stop();
    throw error;
  }
}

/**
 * Interleaves the lanes frame by frame (the starting lane rotates): frame k of every lane in round
 * k. Warm-up rounds untimed, then timed rounds; each phase bounded in rounds and in time. Returns
 * the timed rounds.
 */
export async function drive(lanes: readonly Lane[], phase: Phase): Promise<number> {
  const length = Math.min(...lanes.map((lane) => lane.frames.length));
  let next = 0;
  const round = async (timed: boolean): Promise<void> => {
    for (let j = 0; j < lanes.length; j++) lanes[j].between(next);
    // The OMS tells strategies of the answers once it has finished (a microtask): let it run
    // before the next frame, outside the timed call (as bench/hot-path does).
    await null;
    for (let j = 0; j < lanes.length; j++) lanes[(next + j) % lanes.length].step(next, timed);
    next++;
  };
  let deadline = performance.now() + phase.budgetMs;
  for (let i = 0; i < phase.warmup && next < length; i++) {
    await round(false);
    if ((i & 1023) === 1023) {
      await nextTurn(); // the journals' writes, the probes' drains
      if (performance.now() > deadline) break;
    }
  }
  for (const lane of lanes) {
    lane.probe.reset();
    lane.sentAtTimed = lane.ordersSent();
  }
  deadline = performance.now() + phase.budgetMs;
  let timed = 0;
  while (timed < phase.samples && next < length) {
    await round(true);
    timed++;
    if ((timed & 1023) === 1023) {
      await nextTurn();
      if (performance.now() > deadline) break;
    }
  }
  return timed;
}

export interface DecodeResult {
  margin: Histogram;
  predictions: Histogram;
  parse: Histogram;
  samples: number;
  /** Frames each decoder did not read as an orderbook_delta (0 expected). */
  marginMisses: number;
  predictionsMisses: number;
}

/**
 * Decode only, per call, interleaved (the starting decoder rotates): frame k of the Margin stream
 * through FrameDecoder venue 'margin', frame k of the Predictions stream through FrameDecoder (byte
 * scanner), and the same Margin frame's bytes made a string and JSON.parse'd. Cycles over the first
 * `set` frames (in cache, as a frame just read from the socket is). Bounded in samples and time.
 */
export function measureDecode(lanes: Pick<MarginLanes, 'marginTexts' | 'predictionsTexts' | 'marginTicker' | 'predictionsTicker'>, phase: Phase, set = 4_096): DecodeResult {
  const marginRegistry = new MarketRegistry();
  marginRegistry.setMargin(marginRegistry.add(lanes.marginTicker).index, 100);
  const predictionsRegistry = new MarketRegistry();
  predictionsRegistry.add(lanes.predictionsTicker);
  const marginDecoder = new FrameDecoder(marginRegistry, 'margin');
  const predictionsDecoder = new FrameDecoder(predictionsRegistry);
  const n = Math.min(set, lanes.marginTexts.length, lanes.predictionsTexts.length);
  const marginBytes = lanes.marginTexts.slice(0, n).map((text) => Buffer.from(text, 'utf8'));
  const predictionsBytes = lanes.predictionsTexts.slice(0, n).map((text) => Buffer.from(text, 'utf8'));
  const result: DecodeResult = { margin: createHistogram(), predictions: createHistogram(), parse: createHistogram(), samples: 0, marginMisses: 0, predictionsMisses: 0 };
  const run = (which: number, k: number, timed: boolean): void => {
    let start = 0;
    if (which === 0) {
      const bytes = marginBytes[k];
      if (timed) start = nowNs();
      const kind = marginDecoder.decode(bytes, 0, bytes.length);
      if (timed) recordNs(result.margin, nowNs() - start);
      if (kind !== MessageKind.ORDERBOOK_DELTA) result.marginMisses++;
    } else if (which === 1) {
      const bytes = predictionsBytes[k];
      if (timed) start = nowNs();
      const kind = predictionsDecoder.decode(bytes, 0, bytes.length);
      if (timed) recordNs(result.predictions, nowNs() - start);
      if (kind !== MessageKind.ORDERBOOK_DELTA) result.predictionsMisses++;
    } else {
      const bytes = marginBytes[k];
      if (timed) start = nowNs();
      const frame = JSON.parse(bytes.toString('utf8', 0, bytes.length)) as unknown;
      if (timed) recordNs(result.parse, nowNs() - start);
      consume(frame);
    }
  };
  const loop = (count: number, timed: boolean): number => {
    const deadline = performance.now() + phase.budgetMs;
    let i = 0;
    for (; i < count; i++) {
      const k = i % n;
      for (let j = 0; j < 3; j++) run((i + j) % 3, k, timed);
      if ((i & 1023) === 1023 && performance.now() > deadline) {
        i++;
        break;
      }
    }
    return i;
  };
  loop(phase.warmup, false);
  result.marginMisses = 0;
  result.predictionsMisses = 0;
  result.samples = loop(phase.samples, true);
  return result;
}

function probeRows(lane: Lane, frames: number, sink: string): BenchRow[] {
  const probe = lane.probe;
  const prefix = `${lane.name} hop:`;
  const hop = (name: string, histogram: Histogram, extra: Partial<BenchRow> = {}): BenchRow => latencyRow(SUITE, `${prefix} ${name}`, false, histogram, extra);
  return [
    hop('frame received -> decoded', probe.decode.histogram),
    hop('decoded -> book applied', probe.book.histogram),
    hop('book applied -> strategy intent', probe.strategy.histogram),
    hop('strategy intent -> risk verdict', probe.risk.histogram),
    hop('risk verdict -> exec called (OMS)', probe.oms.histogram),
    hop(`exec called -> returned (${sink})`, probe.exec.histogram),
    latencyRow(SUITE, `${lane.name}: tick-to-trade (probe): frame received -> exec returned`, false, probe.total.histogram, {
      note: `frames timed ${frames}, with an order ${probe.framesWithOrder}; orders sent (creates) in the timed phase ${lane.ordersSent() - lane.sentAtTimed}`,
    }),
  ];
}

export default {
  name: SUITE,
  async run({ quick }): Promise<BenchRow[]> {
    const phase = quick ? QUICK : FULL;
    const work = mkdtempSync(path.join(tmpdir(), 'bench-margin-'));
    const rows: BenchRow[] = [];
    let lanes: MarginLanes | null = null;
    try {
      lanes = await buildLanes(phase.warmup + phase.samples, work);
      const both = [lanes.margin, lanes.predictions];
      const frames = await drive(both, phase);
      // The sinks' counters include the warm-up; the probes' rows count the timed phase.
      rows.push(
        latencyRow(SUITE, OUTER_MARGIN, false, lanes.margin.histogram, {
          compareTo: OUTER_PREDICTIONS,
          note: `Margin sink (warm-up included): ${lanes.marginSink.creates} creates, ${lanes.marginSink.requests} requests, ${lanes.marginSink.bytes} bytes; default route requests ${lanes.marginDefaultSink.requests}`,
        }),
        latencyRow(SUITE, OUTER_PREDICTIONS, true, lanes.predictions.histogram, {
          note: `Predictions sink (warm-up included): ${lanes.predictionsSink.requests} requests, ${lanes.predictionsSink.bytes} bytes`,
        }),
        ...probeRows(lanes.margin, frames, 'Margin sink: rules, encode, sign take, assemble, copy'),
        ...probeRows(lanes.predictions, frames, 'sink: encode, sign take, assemble, copy'),
      );
      const decode = measureDecode(lanes, phase);
      const misses = `misses: margin ${decode.marginMisses}, predictions ${decode.predictionsMisses}`;
      rows.push(
        latencyRow(SUITE, DECODE_MARGIN, false, decode.margin, { compareTo: DECODE_PREDICTIONS, note: `${decode.samples} frames each, interleaved; ${misses}` }),
        latencyRow(SUITE, DECODE_PREDICTIONS, true, decode.predictions),
        latencyRow(SUITE, DECODE_PARSE, true, decode.parse, { note: 'the floor of any JSON.parse path' }),
        timerFloor(phase),
      );
    } finally {
      if (lanes !== null) await lanes.stop();
      rmSync(work, { recursive: true, force: true });
    }
    return rows;
  },
} satisfies BenchSuite;

function timerFloor(phase: Phase): BenchRow {
  const histogram = createHistogram();
  for (let i = 0; i < phase.samples; i++) {
    const start = nowNs();
    recordNs(histogram, nowNs() - start);
  }
  return latencyRow(SUITE, 'floor: two clock reads (driver nowNs)', true, histogram);
}
