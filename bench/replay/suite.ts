/**
 * Replay suite: how fast a recording goes through the full decision path, and what recording
 * costs the live hot path.
 *
 * 1. Replay throughput. A synthetic recording (written by the real Recorder) of the shipped
 *    fixture's market: its market record, subscribe replies and snapshot, then orderbook_delta
 *    frames in the exchange's layout, as the simulator writes them (seeded random walk of sizes around the top, so the top moves and the sample market
 *    maker of test/fixtures/recordings/replay-config.json requotes) with a public trade every 64
 *    frames. The Replay (src/replay) runs it as `npm run replay` does: Feed.handleBytes -> book ->
 *    strategy -> router -> gate -> OMS -> replay venue (matching engine) and back. Frames/s over
 *    timed chunks of the run. Baselines: the same frames through a bare Feed (decode and book only:
 *    the floor under the replay) and JSON.parse of them (decode only). Target: >= 1M frames/s.
 * 2. Recording cost. The hot-path bench's wiring (bench/hot-path/wiring.ts: tick-to-trade strategy,
 *    an order per frame, sink route), the same frames through Feed.handleBytes with and without
 *    Recorder.frame after it (exactly what the feed's frameTap does), interleaved frame by frame.
 *    Tick-to-trade from the graph's own probe (target: p50 within 5% with recording on), and the
 *    whole frame on the driver's clock (what recording costs the CPU per frame; no target).
 *
 * Bounded: frames per phase fixed, every loop capped in count and in wall time.
 */

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { consume, createHistogram, latencyRow, nowNs, recordNs, round1 } from '../harness.ts';
import type { BenchRow, BenchSuite } from '../harness.ts';
import { SeededRandom } from '../../src/core/index.ts';
import { RecordKind, Recorder, readRecordingFile, recordText, recordedMarkets } from '../../src/record/index.ts';
import type { Recording } from '../../src/record/index.ts';
import { ConnectionState, Feed } from '../../src/feed/index.ts';
import type { FeedSession } from '../../src/feed/index.ts';
import { loadConfig } from '../../src/runtime/config.ts';
import { Replay, gridOf } from '../../src/replay/replay.ts';
import { makeFeedStream } from '../feed/delta-frames.ts';
import { SinkOrderEntry } from '../hot-path/sink-order-entry.ts';
import { FRAME_MS, buildHotPath } from '../hot-path/wiring.ts';

const SUITE = 'replay';
const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const FIXTURE = path.join(ROOT, 'test', 'fixtures', 'recordings', 'sim-market-maker.prrc');
const CONFIG = path.join(ROOT, 'test', 'fixtures', 'recordings', 'replay-config.json');
const REPLAY = 'replay: recorded frame -> feed, book, strategy, gate, OMS, venue (frames/s)';
const PARSE = 'baseline: JSON.parse of the same frames (decode only)';
const FEED_ONLY = 'baseline: Feed.handleBytes alone, same frames (decode + book; no strategy, no driver)';
const TAP_ON = 'tick-to-trade (probe: frame received -> order bytes out), recording on';
const TAP_OFF = 'baseline: tick-to-trade (probe), recording off';
const FRAME_ON = 'frame in -> handled and recorded (driver clock), recording on';
const FRAME_OFF = 'baseline: frame in -> handled (driver clock), recording off';
const SEED = 20261125;

interface Phase {
  frames: number;
  chunk: number;
  budgetMs: number;
  tapFrames: number;
}

export default {
  name: SUITE,
  async run({ quick }): Promise<BenchRow[]> {
    const phase: Phase = quick
      ? { frames: 300_000, chunk: 20_000, budgetMs: 20_000, tapFrames: 30_000 }
      : { frames: 1_500_000, chunk: 50_000, budgetMs: 90_000, tapFrames: 200_000 };
    const work = mkdtempSync(path.join(tmpdir(), 'bench-replay-'));
    try {
      const file = await writeSyntheticRecording(work, phase.frames);
      const rows = await replayRows(file, phase);
      rows.push(...(await tapRows(work, phase)));
      return rows;
    } finally {
      rmSync(work, { recursive: true, force: true });
    }
  },
} satisfies BenchSuite;

/** The fixture's opening (markets, replies, first snapshot), then `frames` seeded deltas and trades. */
export async function writeSyntheticRecording(dir: string, frames: number): Promise<string> {
  const fixture = readRecordingFile(FIXTURE);
  let ns = 0;
  const recorder = new Recorder({ dir, startMs: fixture.startMs, nowNs: () => ns, fileName: 'synthetic.prrc' });
  let sid = -1;
  let seq = -1;
  let ticker = '';
  let marketId = '';
  let snapshotAt = -1;
  let tradeSid = -1;
  let tradeSeq = 0;
  for (let i = 0; i < fixture.count && snapshotAt === -1; i++) {
    const text = recordText(fixture, i);
    ns = fixture.timesNs[i];
    recorder.text(fixture.kinds[i] as RecordKind, text);
    const subscribedTrade = /"channel":"trade","sid":(\d+)/.exec(text);
    if (subscribedTrade !== null) tradeSid = Number(subscribedTrade[1]);
    if (fixture.kinds[i] === RecordKind.FRAME && text.includes('"type":"orderbook_snapshot"')) {
      const parsed = JSON.parse(text) as { sid: number; seq: number; msg: { market_ticker: string; market_id: string } };
      sid = parsed.sid;
      seq = parsed.seq;
      ticker = parsed.msg.market_ticker;
      marketId = parsed.msg.market_id;
      snapshotAt = i;
    }
  }
  if (snapshotAt === -1) throw new Error('bench replay: the fixture has no snapshot');
  // Sizes walk around the top of book; each level's size is kept >= 0 so no delta is refused.
  const random = new SeededRandom(SEED);
  const sizes = new Map<string, number>();
  const prefix = `{"type":"orderbook_delta","sid":${sid},"seq":`;
  // The exchange's layout (websocket.md §6.1, as the simulator writes it and the fixture holds it).
  const middle = `,"msg":{"market_ticker":"${ticker}","market_id":"${marketId}","price_dollars":"0.`;
  const bytes = Buffer.allocUnsafe(1024); // > the longest frame written below (a trade, ~340 bytes)
  for (let n = 0; n < frames; n++) {
    if ((n & 4095) === 4095) await nextTurn(); // let the recorder's batches reach the disk
    ns += 1_000; // 1 µs of recording time per frame: 1M frames/s recorded
    if (n % 64 === 63) {
      const price = 40 + random.nextInt(20);
      const taker = random.nextInt(2) === 0 ? 'yes' : 'no';
      const text = `{"type":"trade","sid":${tradeSid},"seq":${++tradeSeq},"msg":{"trade_id":"t${n}","market_ticker":"${ticker}","yes_price_dollars":"0.${price}00","no_price_dollars":"0.${100 - price}00","count_fp":"1.00","taker_outcome_side":"${taker}","taker_book_side":"${taker === 'yes' ? 'bid' : 'ask'}","taker_side":"${taker}","is_block_trade":false,"ts_ms":${fixture.startMs + Math.floor(ns / 1e6)},"ts":${Math.floor((fixture.startMs + ns / 1e6) / 1000)}}}`;
      const length = bytes.write(text, 0, 'utf8');
      recorder.frame(bytes, 0, length);
      continue;
    }
    const side = random.nextInt(2) === 0 ? 'yes' : 'no';
    const cents = 38 + random.nextInt(14);
    const key = `${side}${cents}`;
    const have = sizes.get(key) ?? 0;
    const delta = have >= 5 && random.nextInt(2) === 0 ? -(1 + random.nextInt(have > 20 ? 20 : have)) : 1 + random.nextInt(20);
    sizes.set(key, have + delta);
    const tsMs = fixture.startMs + Math.floor(ns / 1e6);
    const text = `${prefix}${++seq}${middle}${cents}00","delta_fp":"${delta}.00","side":"${side}","ts":"${new Date(tsMs).toISOString()}","ts_ms":${tsMs}}}`;
    const length = bytes.write(text, 0, 'utf8');
    recorder.frame(bytes, 0, length);
  }
  await recorder.close();
  if (recorder.stats.droppedRecords !== 0) throw new Error(`bench replay: the recorder dropped ${recorder.stats.droppedRecords} records`);
  return recorder.path;
}

async function replayRows(file: string, phase: Phase): Promise<BenchRow[]> {
  const recording = readRecordingFile(file);
  const config = loadConfig(CONFIG, {});
  const replay = new Replay({ recording, config, rootDir: ROOT });
  await replay.start();
  const rates: number[] = [];
  const cpuRates: number[] = [];
  const deadline = performance.now() + phase.budgetMs;
  let delivered = 0;
  // Bounded: at most frames / chunk rounds, and the time budget.
  for (let round = 0; round < Math.ceil(phase.frames / phase.chunk) + 1 && performance.now() < deadline; round++) {
    const before = replay.framesDelivered;
    const cpu = process.cpuUsage();
    const start = performance.now();
    await replay.advance(before + phase.chunk);
    const wallMs = performance.now() - start;
    const used = process.cpuUsage(cpu);
    const frames = replay.framesDelivered - before;
    if (frames === 0) break;
    delivered += frames;
    if (round === 0) continue; // warm-up: JIT and the strategy's first orders
    rates.push(frames / (wallMs / 1000));
    cpuRates.push(frames / (Math.max((used.user + used.system) / 1000, 0.001) / 1000));
  }
  const report = await replay.finish();
  await replay.close();
  const median = (values: number[]): number => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? 0;
  const opsPerSec = Math.round(median(rates));
  // The baseline: JSON.parse of the same frame bytes, as text, over the same number of frames.
  const parseRates: number[] = [];
  const parseCpuRates: number[] = [];
  const { kinds, bodyStarts, bodyLengths, bytes, count } = recording;
  const parseDeadline = performance.now() + phase.budgetMs / 4;
  for (let round = 0; round < 5 && performance.now() < parseDeadline; round++) {
    const cpu = process.cpuUsage();
    const start = performance.now();
    let parsed = 0;
    for (let i = 0; i < count; i++) {
      if (kinds[i] !== RecordKind.FRAME) continue;
      consume(JSON.parse(bytes.toString('utf8', bodyStarts[i], bodyStarts[i] + bodyLengths[i])));
      parsed++;
    }
    const wallMs = performance.now() - start;
    const used = process.cpuUsage(cpu);
    if (round === 0) continue;
    parseRates.push(parsed / (wallMs / 1000));
    parseCpuRates.push(parsed / (Math.max((used.user + used.system) / 1000, 0.001) / 1000));
  }
  const feedOnly = feedOnlyRate(recording, phase);
  const note = `${delivered} frames, ${report.orders.sent} orders, ${report.fills.count} fills, denies ${JSON.stringify(report.denies)}; chunks of ${phase.chunk}, first untimed`;
  return [
    {
      suite: SUITE, case: REPLAY, baseline: false, count: delivered, opsPerSec, opsPerCpuSec: Math.round(median(cpuRates)),
      meanNs: opsPerSec === 0 ? 0 : round1(1e9 / opsPerSec), compareTo: FEED_ONLY, target: '>= 1M frames/s', pass: opsPerSec >= 1_000_000, note,
    },
    {
      suite: SUITE, case: FEED_ONLY, baseline: true, count: feedOnly.frames, opsPerSec: feedOnly.opsPerSec, opsPerCpuSec: feedOnly.opsPerCpuSec,
      meanNs: round1(1e9 / feedOnly.opsPerSec), note: 'the floor under the replay: what the feed alone costs per frame here',
    },
    {
      suite: SUITE, case: PARSE, baseline: true, count: count, opsPerSec: Math.round(median(parseRates)), opsPerCpuSec: Math.round(median(parseCpuRates)),
      meanNs: round1(1e9 / median(parseRates)), note: 'bytes -> string -> JSON.parse, nothing else',
    },
  ];
}

/** The recording's frames through a bare Feed (a stub session, the market added, no listener): rounds, median. */
function feedOnlyRate(recording: Recording, phase: Phase): { frames: number; opsPerSec: number; opsPerCpuSec: number } {
  const stub: FeedSession = { state: ConnectionState.CLOSED, isOpen: false, start() {}, stop() {}, send: () => false, reconnect() {}, onTick() {} };
  const markets = recordedMarkets(recording);
  const { kinds, bodyStarts, bodyLengths, bytes, count } = recording;
  const rates: number[] = [];
  const cpuRates: number[] = [];
  let frames = 0;
  const deadline = performance.now() + phase.budgetMs / 4;
  for (let round = 0; round < 4 && performance.now() < deadline; round++) {
    // A fresh feed per round: the recording's seqs run once from its snapshot.
    const feed = new Feed({ url: 'ws://127.0.0.1:1/unused', auth: null, createSession: () => stub });
    feed.hop.enabled = false; // as in the replay, which stamps only with --measure
    for (const market of markets.values()) feed.addMarket(market.ticker, gridOf(market));
    const cpu = process.cpuUsage();
    const start = performance.now();
    let handled = 0;
    for (let i = 0; i < count; i++) {
      if (kinds[i] !== RecordKind.FRAME) continue;
      feed.handleBytes(bytes, bodyStarts[i], bodyStarts[i] + bodyLengths[i]);
      handled++;
    }
    const wallMs = performance.now() - start;
    const used = process.cpuUsage(cpu);
    frames += handled;
    if (round === 0) continue;
    rates.push(handled / (wallMs / 1000));
    cpuRates.push(handled / (Math.max((used.user + used.system) / 1000, 0.001) / 1000));
  }
  const median = (values: number[]): number => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? 0;
  return { frames, opsPerSec: Math.round(median(rates)), opsPerCpuSec: Math.round(median(cpuRates)) };
}

/** Hot-path latency with and without the recorder's copy after the frame, interleaved frame by frame. */
async function tapRows(work: string, phase: Phase): Promise<BenchRow[]> {
  const stream = makeFeedStream(1, phase.tapFrames * 2, SEED);
  const lanes = [];
  for (let k = 0; k < 2; k++) {
    const sink = new SinkOrderEntry();
    const hp = await buildHotPath({
      ticker: stream.tickers[0], grid: stream.grid, snapshotFrame: stream.snapshots[0], entry: sink,
      journalPath: path.join(work, `tap-journal-${k}.jsonl`), mode: 'replace',
    });
    hp.probe.setEnabled(true);
    lanes.push({ hp, sink, histogram: createHistogram() });
  }
  const recorder = new Recorder({ dir: work, startMs: 0, fileName: 'tap.prrc' });
  const frames = stream.deltas.map((text) => Buffer.from(text, 'utf8'));
  const warmup = Math.min(frames.length >> 2, 20_000);
  const deadline = performance.now() + phase.budgetMs;
  let timed = 0;
  try {
    for (let f = 0; f < frames.length && performance.now() < deadline; f++) {
      const bytes = frames[f];
      if (f === warmup) for (const lane of lanes) lane.hp.probe.reset();
      for (const lane of lanes) {
        lane.sink.deliverAnswers(lane.hp.clock.nowMs());
        lane.hp.clock.advance(FRAME_MS);
        if ((f & 7) === 0) lane.hp.oms.tick();
      }
      // The OMS tells the strategy of the answers in a microtask, as after a socket callback (bench/hot-path does the same).
      await null;
      for (let j = 0; j < 2; j++) {
        const k = (f + j) & 1; // the lane going first alternates
        const lane = lanes[k];
        const feed = lane.hp.feed;
        const start = nowNs();
        feed.handleBytes(bytes, 0, bytes.length);
        if (k === 0) recorder.frame(bytes, 0, bytes.length, feed.hop.receivedNs); // what the feed's frameTap does
        const elapsed = nowNs() - start;
        if (f >= warmup) recordNs(lane.histogram, elapsed);
      }
      if (f >= warmup) timed++;
      if ((f & 1023) === 0) await nextTurn(); // the recorder's batches go to disk between bursts, as live
    }
  } finally {
    await recorder.close();
    for (const lane of lanes) await lane.hp.stop();
  }
  const onProbe = lanes[0].hp.probe.total.histogram;
  const offProbe = lanes[1].hp.probe.total.histogram;
  const ratio = offProbe.getValueAtPercentile(50) === 0 ? 0 : onProbe.getValueAtPercentile(50) / offProbe.getValueAtPercentile(50);
  const frameRatio = lanes[0].histogram.getValueAtPercentile(50) / Math.max(1, lanes[1].histogram.getValueAtPercentile(50));
  return [
    latencyRow(SUITE, TAP_ON, false, onProbe, {
      compareTo: TAP_OFF, target: 'p50 within 5% of off', pass: ratio <= 1.05,
      note: `${timed} frames per lane, an order each; p50 ratio on/off ${ratio.toFixed(3)}`,
    }),
    latencyRow(SUITE, TAP_OFF, true, offProbe, { note: 'same wiring, no recorder' }),
    latencyRow(SUITE, FRAME_ON, false, lanes[0].histogram, {
      compareTo: FRAME_OFF,
      note: `p50 ratio on/off ${frameRatio.toFixed(3)}: the copy after the order; recorder wrote ${recorder.stats.bytesWritten} bytes in ${recorder.stats.flushes} flushes, dropped ${recorder.stats.droppedRecords}`,
    }),
    latencyRow(SUITE, FRAME_OFF, true, lanes[1].histogram, { note: 'same wiring, no recorder' }),
  ];
}
