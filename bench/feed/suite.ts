/**
 * Feed bench: orderbook_delta frames decoded by the hand scanner beside the JSON.parse reference
 * decoder (JSON.parse + field conversion to units) and a JSON.parse-only floor, as throughput
 * (interleaved rounds over the same recorded frames) and per-call latency; then frame -> book
 * applied through Feed.handleFrame (decode, BookStore apply, listener) with either decoder, as
 * throughput and as per-hop latency from the feed's own hop record (received -> decoded -> applied,
 * three performance.now() reads per frame included). The faster decoder is the Feed's default
 * (FrameDecoder useScanner); this suite is the evidence. Every loop is bounded in count and time.
 */

import { PriceGrid } from '../../src/core/index.ts';
import {
  DecodeStatus,
  Feed,
  NoopFeedListener,
  OrderbookDeltaRecord,
  TickerTable,
  decodeDeltaJson,
  scanDelta,
  type FeedSession,
  type WsSessionOptions,
} from '../../src/feed/index.ts';
import type { OrderBook } from '../../src/book/index.ts';
import {
  consume,
  createHistogram,
  latencyRow,
  measureLatency,
  measureThroughputInterleaved,
  recordNs,
  throughputRow,
  type BenchRow,
  type BenchSuite,
} from '../harness.ts';
import { makeFeedStream, type FeedStream } from './delta-frames.ts';

const SUITE = 'feed';

interface Settings {
  markets: number;
  deltas: number;
  chunk: number;
  roundMs: number;
  rounds: number;
  warmupMs: number;
  samples: number;
  latencyBudgetMs: number;
}

const FULL: Settings = { markets: 500, deltas: 200_000, chunk: 1_000, roundMs: 1_000, rounds: 5, warmupMs: 500, samples: 500_000, latencyBudgetMs: 2_000 };
const QUICK: Settings = { markets: 100, deltas: 20_000, chunk: 500, roundMs: 150, rounds: 3, warmupMs: 100, samples: 50_000, latencyBudgetMs: 300 };

/** A session that never connects: the bench feeds frames straight to handleFrame. */
class DetachedSession implements FeedSession {
  readonly state = 'idle' as const;
  readonly isOpen = false;
  start(): void {}
  stop(): void {}
  send(): boolean {
    return false;
  }
  reconnect(): void {}
  onTick(): void {}
}

/** A Feed holding the stream's books, replaying its frames in a loop; each wrap re-snapshots on a fresh seq. */
class Replay {
  readonly feed: Feed;
  readonly #stream: FeedStream;
  #next = 0;
  /** Frames -> book latency from the hop record, filled by the listener. */
  readonly decodeHop = createHistogram();
  readonly applyHop = createHistogram();
  readonly totalHop = createHistogram();
  recordHops = false;

  constructor(stream: FeedStream, useScanner: boolean) {
    this.#stream = stream;
    const replay = this;
    class HopListener extends NoopFeedListener {
      override onBookUpdate(book: OrderBook): void {
        consume(book);
        if (!replay.recordHops) return;
        const hop = replay.feed.hop;
        recordNs(replay.decodeHop, hop.decodedNs - hop.receivedNs);
        recordNs(replay.applyHop, hop.appliedNs - hop.decodedNs);
        recordNs(replay.totalHop, hop.appliedNs - hop.receivedNs);
      }
    }
    this.feed = new Feed({
      url: 'ws://127.0.0.1:9/trade-api/ws/v2',
      auth: null,
      listener: new HopListener(),
      useScanner,
      staleBookMs: 0,
      createSession: (_options: WsSessionOptions) => new DetachedSession(),
    });
    for (const ticker of stream.tickers) this.feed.addMarket(ticker, stream.grid);
    this.#resnapshot();
  }

  #resnapshot(): void {
    this.feed.books.resetSubscription(1); // the next pass starts the sid's seq over
    for (const frame of this.#stream.snapshots) this.feed.handleFrame(frame);
    this.#next = 0;
  }

  /** Handles `count` delta frames (wrapping re-snapshots: markets/deltas of the work, noted). */
  run(count: number): void {
    const frames = this.#stream.deltas;
    for (let k = 0; k < count; k++) {
      if (this.#next === frames.length) this.#resnapshot();
      this.feed.handleFrame(frames[this.#next++]);
    }
  }

  check(): void {
    const counters = this.feed.counters;
    if (counters.malformedFrames !== 0 || counters.seqGaps !== 0 || counters.deltasRefused !== 0) {
      throw new Error(`feed bench: stream did not apply cleanly ${JSON.stringify(counters.snapshot())}`);
    }
  }
}

async function run(options: { quick: boolean }): Promise<BenchRow[]> {
  const s = options.quick ? QUICK : FULL;
  const stream = makeFeedStream(s.markets, s.deltas, 7);
  const frames = stream.deltas;
  const tickers = new TickerTable();
  for (const ticker of stream.tickers) tickers.add(ticker);
  const scanned = new OrderbookDeltaRecord();
  const parsed = new OrderbookDeltaRecord();

  // Same answers first: the bench measures equivalent work.
  for (let k = 0; k < Math.min(frames.length, 10_000); k++) {
    if (scanDelta(frames[k], scanned, tickers) !== DecodeStatus.OK || decodeDeltaJson(frames[k], parsed, tickers) !== DecodeStatus.OK) {
      throw new Error(`feed bench: a decoder refused frame ${k}`);
    }
    if (JSON.stringify(scanned) !== JSON.stringify(parsed)) throw new Error(`feed bench: decoders disagree on frame ${k}`);
  }

  let cursor = 0;
  const chunk = s.chunk;
  const decodeScanner = (): void => {
    let sum = 0;
    for (let k = 0; k < chunk; k++) {
      if (cursor === frames.length) cursor = 0;
      sum += scanDelta(frames[cursor++], scanned, tickers) + scanned.price;
    }
    consume(sum);
  };
  let cursorJson = 0;
  const decodeJson = (): void => {
    let sum = 0;
    for (let k = 0; k < chunk; k++) {
      if (cursorJson === frames.length) cursorJson = 0;
      sum += decodeDeltaJson(frames[cursorJson++], parsed, tickers) + parsed.price;
    }
    consume(sum);
  };
  let cursorFloor = 0;
  const parseOnly = (): void => {
    let last: unknown = null;
    for (let k = 0; k < chunk; k++) {
      if (cursorFloor === frames.length) cursorFloor = 0;
      last = JSON.parse(frames[cursorFloor++]);
    }
    consume(last);
  };
  const [scanRate, jsonRate, floorRate] = measureThroughputInterleaved(
    [
      { run: decodeScanner, opsPerCall: chunk },
      { run: decodeJson, opsPerCall: chunk },
      { run: parseOnly, opsPerCall: chunk },
    ],
    { roundMs: s.roundMs, rounds: s.rounds, warmupMs: s.warmupMs },
  );

  let latencyCursor = 0;
  const scanLatency = measureLatency(() => {
    if (latencyCursor === frames.length) latencyCursor = 0;
    consume(scanDelta(frames[latencyCursor++], scanned, tickers));
  }, { samples: s.samples, timeBudgetMs: s.latencyBudgetMs });
  latencyCursor = 0;
  const jsonLatency = measureLatency(() => {
    if (latencyCursor === frames.length) latencyCursor = 0;
    consume(decodeDeltaJson(frames[latencyCursor++], parsed, tickers));
  }, { samples: s.samples, timeBudgetMs: s.latencyBudgetMs });

  // Frame -> book applied, through the Feed.
  const withScanner = new Replay(stream, true);
  const withJson = new Replay(stream, false);
  const [feedScanRate, feedJsonRate] = measureThroughputInterleaved(
    [
      { run: () => withScanner.run(chunk), opsPerCall: chunk },
      { run: () => withJson.run(chunk), opsPerCall: chunk },
    ],
    { roundMs: s.roundMs, rounds: s.rounds, warmupMs: s.warmupMs },
  );
  withScanner.check();
  withJson.check();
  const hopSamples = Math.min(s.samples, frames.length);
  for (const replay of [withScanner, withJson]) {
    replay.recordHops = true;
    const deadline = performance.now() + s.latencyBudgetMs;
    for (let k = 0; k < hopSamples && performance.now() < deadline; k += 100) replay.run(100);
    replay.recordHops = false;
    replay.check();
  }
  const wrapNote = `${s.markets} snapshots re-applied per ${s.deltas} deltas`;

  return [
    throughputRow(SUITE, 'delta decode: hand scanner', false, scanRate, { compareTo: 'delta decode: JSON.parse + conversion' }),
    throughputRow(SUITE, 'delta decode: JSON.parse + conversion', true, jsonRate, { note: 'reference decoder' }),
    throughputRow(SUITE, 'delta decode: JSON.parse only (floor)', true, floorRate, { note: 'no field conversion' }),
    latencyRow(SUITE, 'delta decode latency: hand scanner', false, scanLatency, { compareTo: 'delta decode latency: JSON.parse + conversion', note: 'per call, timer included' }),
    latencyRow(SUITE, 'delta decode latency: JSON.parse + conversion', true, jsonLatency, { note: 'per call, timer included' }),
    throughputRow(SUITE, 'frame -> book: Feed.handleFrame (scanner)', false, feedScanRate, { compareTo: 'frame -> book: Feed.handleFrame (JSON.parse)', note: `decode + apply + listener + 3 hop timestamps; ${wrapNote}` }),
    throughputRow(SUITE, 'frame -> book: Feed.handleFrame (JSON.parse)', true, feedJsonRate, { note: wrapNote }),
    latencyRow(SUITE, 'hop received -> applied (scanner)', false, withScanner.totalHop, { compareTo: 'hop received -> applied (JSON.parse)', note: 'from Feed.hop' }),
    latencyRow(SUITE, 'hop received -> applied (JSON.parse)', true, withJson.totalHop, { note: 'from Feed.hop' }),
    latencyRow(SUITE, 'hop received -> decoded (scanner)', false, withScanner.decodeHop, { note: 'from Feed.hop' }),
    latencyRow(SUITE, 'hop decoded -> applied (scanner)', false, withScanner.applyHop, { note: 'BookStore apply; from Feed.hop' }),
  ];
}

const suite: BenchSuite = { name: SUITE, run };
export default suite;
