/**
 * Feed bench: orderbook_delta frames decoded from the socket's bytes by the feed's FrameDecoder
 * (byte scanners, no string) beside JSON.parse alone (from the same bytes, made a string first;
 * and on a string made beforehand, the strictest floor) and JSON.parse + conversion to the record
 * (the former decoder, bench/feed/json-baseline.ts), as throughput (interleaved rounds, CPU-time
 * rates) and per-call latency; the cost of checking a frame's UTF-8 with isUtf8 (what the scanners'
 * ASCII rule saves on the hot path); then frame -> book applied through Feed.handleBytes (decode,
 * BookStore apply, listener) beside the JSON.parse path into the same store, as throughput and
 * per-hop latency from the feed's own hop record; and the garbage collections counted while
 * 1,000,000 delta frames go bytes -> decoder -> book, ours (with the feed's hop timestamps off and
 * on: on Node 20 each performance.now() returns a freshly boxed number) and the JSON.parse path's.
 *
 * Frames are recorded traffic (delta-frames.ts makeLoopStream: 500 markets, the exchange's layout,
 * one in ten with our own client_order_id) lying in 64 KiB chunks as socket reads hold them. The
 * decode rows cycle over the first DECODE_SET frames (~1 MB: in cache, as a frame just read from
 * the socket is); the book rows replay the whole stream, whose second half undoes the first, with
 * seq numbers rewritten in place between passes (no snapshot, nothing allocated between passes).
 * GCs are PerformanceObserver 'gc' entries that start inside the run, which starts on an empty young
 * generation (one gc() first, V8's --expose-gc set at run time). Bounded in count and time.
 */

import { isUtf8 } from 'node:buffer';
import { PerformanceObserver, performance, type PerformanceEntry } from 'node:perf_hooks';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import {
  Feed,
  FrameDecoder,
  MessageKind,
  NoopFeedListener,
  OrderbookDeltaRecord,
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
  type ThroughputResult,
} from '../harness.ts';
import { makeLoopStream, type LoopStream } from './delta-frames.ts';
import { JsonDeltaPath, decodeDeltaJson, decodeDeltaJsonFromBytes } from './json-baseline.ts';
import { MarketRegistry } from '../../src/market/index.ts';

const SUITE = 'feed';
const OURS = 'delta decode from bytes: ours (FrameDecoder.decode, byte scanner)';
const PARSE_BYTES = 'delta decode: JSON.parse alone, from bytes (utf8 string + JSON.parse)';
const PARSE_STRING = 'delta decode: JSON.parse alone, string made beforehand (floor)';
const PARSE_CONVERT = 'delta decode: JSON.parse + conversion, from bytes (former decoder)';
const BOOK_OURS = 'frame -> book: Feed.handleBytes (ours)';
const BOOK_JSON = 'frame -> book: utf8 string + JSON.parse + conversion + BookStore apply';
const GC_OURS = 'GCs while 1,000,000 delta frames go bytes -> decoder -> book (ours, hop stamps off)';
const GC_OURS_STAMPED = 'GCs, the same with the feed\'s hop stamps on (3 clock reads per frame, the default)';
const GC_JSON = 'GCs while the same frames go through JSON.parse + conversion -> book';

interface Settings {
  markets: number;
  /** Frames in the loop stream (even). */
  deltas: number;
  decodeSet: number;
  chunk: number;
  roundMs: number;
  rounds: number;
  warmupMs: number;
  samples: number;
  latencyBudgetMs: number;
  gcFrames: number;
}

const FULL: Settings = {
  markets: 500, deltas: 200_000, decodeSet: 4_096, chunk: 1_000, roundMs: 1_000, rounds: 5, warmupMs: 500,
  samples: 500_000, latencyBudgetMs: 2_000, gcFrames: 1_000_000,
};
const QUICK: Settings = {
  markets: 100, deltas: 20_000, decodeSet: 2_048, chunk: 500, roundMs: 150, rounds: 3, warmupMs: 100,
  samples: 50_000, latencyBudgetMs: 300, gcFrames: 100_000,
};

/** A session that never connects: the bench feeds frames straight to handleBytes. */
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

/** A feed holding the stream's books (snapshots applied) and its books by registry index. */
function makeFeed(stream: LoopStream, listener: NoopFeedListener): { feed: Feed; tickers: MarketRegistry; books: OrderBook[] } {
  const feed = new Feed({
    url: 'ws://127.0.0.1:9/trade-api/ws/v2',
    auth: null,
    listener,
    staleBookMs: 0,
    createSession: (_options: WsSessionOptions) => new DetachedSession(),
  });
  const tickers = feed.markets;
  const books: OrderBook[] = [];
  for (const ticker of stream.tickers) {
    const book = feed.addMarket(ticker, stream.grid);
    books[tickers.indexOf(ticker)] = book;
  }
  for (const snapshot of stream.snapshots) feed.handleFrame(snapshot);
  if (feed.books.get(stream.tickers[0])?.synced !== true) throw new Error('feed bench: snapshots did not sync the books');
  return { feed, tickers, books };
}

/**
 * Replays the loop stream into one feed, pass after pass. Several replayers share the stream's
 * bytes: each writes its own pass's seq numbers into them when they hold another's (renumber
 * allocates nothing; one run of a whole pass renumbers at most once).
 */
class Replayer {
  readonly #stream: LoopStream;
  #next = 0;
  #pass = 0;

  constructor(stream: LoopStream) {
    this.#stream = stream;
  }

  run(count: number, handle: (bytes: Buffer, start: number, end: number) => void): void {
    const stream = this.#stream;
    const frames = stream.starts.length;
    stream.renumber(this.#pass);
    for (let k = 0; k < count; k++) {
      if (this.#next === frames) {
        this.#next = 0;
        stream.renumber(++this.#pass);
      }
      const index = this.#next++;
      handle(stream.chunks[stream.chunkOf[index]], stream.starts[index], stream.ends[index]);
    }
  }
}

interface GcCount {
  minor: number;
  major: number;
  other: number;
  heapGrowthBytes: number;
  ms: number;
}

/**
 * V8's gc() for a clean start: a collection just before a count empties the young generation, so
 * garbage made earlier cannot bring a scavenge inside the counted run. null when unavailable.
 */
function exposeGc(): (() => void) | null {
  try {
    setFlagsFromString('--expose-gc');
    const gc = runInNewContext('gc') as unknown;
    return typeof gc === 'function' ? (gc as () => void) : null;
  } catch {
    return null;
  }
}
const collect = exposeGc();

/** GC entries that start while `work` runs (entries arrive asynchronously: collected after it). */
async function countGcs(work: () => void): Promise<GcCount> {
  const entries: PerformanceEntry[] = [];
  const observer = new PerformanceObserver((list) => entries.push(...list.getEntries()));
  collect?.();
  await nextTurn();
  observer.observe({ entryTypes: ['gc'] });
  await nextTurn();
  const heapBefore = process.memoryUsage().heapUsed;
  const start = performance.now();
  work();
  const end = performance.now();
  const heapAfter = process.memoryUsage().heapUsed;
  await nextTurn();
  await new Promise((resolve) => setTimeout(resolve, 20));
  observer.disconnect();
  const count: GcCount = { minor: 0, major: 0, other: 0, heapGrowthBytes: heapAfter - heapBefore, ms: end - start };
  for (const entry of entries) {
    if (entry.startTime < start || entry.startTime > end) continue;
    const kind = (entry as PerformanceEntry & { detail?: { kind?: number } }).detail?.kind;
    // perf_hooks constants: NODE_PERFORMANCE_GC_MINOR 1, MAJOR 4, INCREMENTAL 8, WEAKCB 16.
    if (kind === 1) count.minor++;
    else if (kind === 4) count.major++;
    else count.other++;
  }
  return count;
}

function ratio(ours: ThroughputResult, baseline: ThroughputResult): number {
  return Math.round((ours.opsPerCpuSec / baseline.opsPerCpuSec) * 100) / 100;
}

async function run(options: { quick: boolean }): Promise<BenchRow[]> {
  const s = options.quick ? QUICK : FULL;
  const stream = makeLoopStream(s.markets, s.deltas, 7);
  const tickers = new MarketRegistry();
  for (const ticker of stream.tickers) tickers.add(ticker);
  const decoder = new FrameDecoder(tickers);
  const parsed = new OrderbookDeltaRecord();
  const set = Math.min(s.decodeSet, stream.starts.length);
  const { chunks, chunkOf, starts, ends, texts } = stream;

  // Same answers first: the bench measures equivalent work, and every frame takes the byte path.
  for (let k = 0; k < set; k++) {
    const bytes = chunks[chunkOf[k]];
    if (decoder.decode(bytes, starts[k], ends[k]) !== MessageKind.ORDERBOOK_DELTA || decodeDeltaJson(texts[k], parsed, tickers) !== 0) {
      throw new Error(`feed bench: a decoder refused frame ${k}`);
    }
    const a = decoder.delta;
    if (a.sid !== parsed.sid || a.seq !== parsed.seq || a.marketIndex !== parsed.marketIndex || a.price !== parsed.price || a.delta !== parsed.delta || a.side !== parsed.side
      || a.tsMs !== parsed.tsMs || a.subaccount !== parsed.subaccount || a.clientOrderId !== parsed.clientOrderId) {
      throw new Error(`feed bench: decoders disagree on frame ${k}`);
    }
  }
  if (decoder.framesParsed !== 0) throw new Error('feed bench: a frame took the JSON path');

  // ---- decode only ---------------------------------------------------------------------------
  const chunk = s.chunk;
  const cursors = new Int32Array(5);
  const decodeOurs = (): void => {
    let sum = 0;
    let k = cursors[0];
    for (let n = 0; n < chunk; n++) {
      if (k === set) k = 0;
      sum += decoder.decode(chunks[chunkOf[k]], starts[k], ends[k]) + decoder.delta.price;
      k++;
    }
    cursors[0] = k;
    consume(sum);
  };
  const parseBytes = (): void => {
    let last: unknown = null;
    let k = cursors[1];
    for (let n = 0; n < chunk; n++) {
      if (k === set) k = 0;
      last = JSON.parse(chunks[chunkOf[k]].toString('utf8', starts[k], ends[k]));
      k++;
    }
    cursors[1] = k;
    consume(last);
  };
  const parseString = (): void => {
    let last: unknown = null;
    let k = cursors[2];
    for (let n = 0; n < chunk; n++) {
      if (k === set) k = 0;
      last = JSON.parse(texts[k]);
      k++;
    }
    cursors[2] = k;
    consume(last);
  };
  const parseConvert = (): void => {
    let sum = 0;
    let k = cursors[3];
    for (let n = 0; n < chunk; n++) {
      if (k === set) k = 0;
      sum += decodeDeltaJsonFromBytes(chunks[chunkOf[k]], starts[k], ends[k], parsed, tickers) + parsed.price;
      k++;
    }
    cursors[3] = k;
    consume(sum);
  };
  const [oursRate, parseBytesRate, parseStringRate, convertRate] = measureThroughputInterleaved(
    [
      { run: decodeOurs, opsPerCall: chunk },
      { run: parseBytes, opsPerCall: chunk },
      { run: parseString, opsPerCall: chunk },
      { run: parseConvert, opsPerCall: chunk },
    ],
    { roundMs: s.roundMs, rounds: s.rounds, warmupMs: s.warmupMs },
  );

  const latency = (op: (k: number) => void) => {
    let k = 0;
    return measureLatency(() => {
      if (k === set) k = 0;
      op(k++);
    }, { samples: s.samples, timeBudgetMs: s.latencyBudgetMs });
  };
  const oursLatency = latency((k) => consume(decoder.decode(chunks[chunkOf[k]], starts[k], ends[k])));
  const parseBytesLatency = latency((k) => consume(JSON.parse(chunks[chunkOf[k]].toString('utf8', starts[k], ends[k]))));
  const parseStringLatency = latency((k) => consume(JSON.parse(texts[k])));
  const convertLatency = latency((k) => consume(decodeDeltaJsonFromBytes(chunks[chunkOf[k]], starts[k], ends[k], parsed, tickers)));
  const utf8Latency = latency((k) => consume(isUtf8(chunks[chunkOf[k]].subarray(starts[k], ends[k]))));
  const timerFloor = createHistogram();
  for (let i = 0; i < Math.min(s.samples, 200_000); i++) {
    const t0 = performance.now();
    recordNs(timerFloor, (performance.now() - t0) * 1e6);
  }

  // ---- frame -> book ---------------------------------------------------------------------------
  const decodeHop = createHistogram();
  const applyHop = createHistogram();
  const totalHop = createHistogram();
  let recordHops = false;
  let feedOurs: Feed | null = null;
  class HopListener extends NoopFeedListener {
    override onBookUpdate(book: OrderBook): void {
      consume(book);
      if (!recordHops || feedOurs === null) return;
      const hop = feedOurs.hop;
      recordNs(decodeHop, hop.decodedNs - hop.receivedNs);
      recordNs(applyHop, hop.appliedNs - hop.decodedNs);
      recordNs(totalHop, hop.appliedNs - hop.receivedNs);
    }
  }
  const ours = makeFeed(stream, new HopListener());
  feedOurs = ours.feed;
  const json = makeFeed(stream, new NoopFeedListener());
  const jsonPath = new JsonDeltaPath(json.feed, json.tickers, json.books);
  // The two feeds take the same frames in turn, each at its own place in the replay.
  const replayOurs = new Replayer(stream);
  const replayJson = new Replayer(stream);
  const feed = ours.feed;
  const handleOurs = (bytes: Buffer, start: number, end: number): void => {
    feed.handleBytes(bytes, start, end);
  };
  const handleJson = (bytes: Buffer, start: number, end: number): void => jsonPath.handle(bytes, start, end);
  const passFrames = stream.starts.length;
  const bookRounds = Math.max(2, Math.round((s.rounds * s.roundMs) / 1000));
  const bookOurs: number[] = [];
  const bookJson: number[] = [];
  for (let round = 0; round < bookRounds; round++) {
    const lanes = [[replayOurs, handleOurs, bookOurs], [replayJson, handleJson, bookJson]] as const;
    for (let k = 0; k < lanes.length; k++) {
      const [replay, handle, rates] = lanes[(round + k) % lanes.length];
      const cpu = process.cpuUsage();
      replay.run(passFrames, handle);
      const used = process.cpuUsage(cpu);
      rates.push(passFrames / ((used.user + used.system) / 1e6));
    }
  }
  const counters = feed.counters;
  const checkClean = (): void => {
    if (counters.malformedFrames !== 0 || counters.seqGaps !== 0 || counters.deltasRefused !== 0 || jsonPath.refused !== 0) {
      throw new Error(`feed bench: stream did not apply cleanly ${JSON.stringify(counters.snapshot())}, json refused ${jsonPath.refused}`);
    }
  };
  checkClean();
  recordHops = true;
  const hopDeadline = performance.now() + s.latencyBudgetMs;
  for (let k = 0; k < Math.min(s.samples, passFrames) && performance.now() < hopDeadline; k += 1_000) replayOurs.run(1_000, handleOurs);
  recordHops = false;

  // ---- garbage collections over gcFrames frames ---------------------------------------------------
  const gcPasses = Math.max(1, Math.round(s.gcFrames / passFrames));
  const gcFrames = gcPasses * passFrames;
  const appliedBefore = counters.deltasApplied;
  // Each count follows an uncounted pass in the same setting (a switched branch re-optimises first).
  feed.hop.enabled = false;
  replayOurs.run(passFrames, handleOurs);
  const gcOurs = await countGcs(() => replayOurs.run(gcFrames, handleOurs));
  feed.hop.enabled = true;
  replayOurs.run(passFrames, handleOurs);
  const gcOursStamped = await countGcs(() => replayOurs.run(gcFrames, handleOurs));
  if (counters.deltasApplied - appliedBefore !== 2 * gcFrames + 2 * passFrames) throw new Error('feed bench: the GC runs did not apply every frame');
  const gcJson = await countGcs(() => replayJson.run(gcFrames, handleJson));
  checkClean();

  const median = (values: number[]): number => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
  const bookRow = (name: string, baseline: boolean, rates: number[], extra: Partial<BenchRow>): BenchRow => ({
    suite: SUITE, case: name, baseline, count: rates.length * passFrames, opsPerCpuSec: Math.round(median(rates)), ...extra,
  });
  const p50 = oursLatency.getValueAtPercentile(50);
  const stringRatio = ratio(oursRate, parseStringRate);
  const bytesRatio = ratio(oursRate, parseBytesRate);
  let setBytes = 0;
  for (let k = 0; k < set; k++) setBytes += ends[k] - starts[k];
  const setNote = `${set} frames of ${Math.round(setBytes / set)} bytes on average cycled (${Math.round(setBytes / 1024)} KiB: in cache, as just read)`;
  const gcNote = (count: GcCount): string =>
    `${gcFrames.toLocaleString('en-US')} frames in ${Math.round(count.ms)} ms; scavenges ${count.minor}, mark-compact ${count.major}, other ${count.other}; heap ${count.heapGrowthBytes >= 0 ? '+' : ''}${Math.round(count.heapGrowthBytes / 1024)} KiB`;

  return [
    throughputRow(SUITE, OURS, false, oursRate, {
      compareTo: PARSE_STRING,
      target: '>= 3x JSON.parse alone',
      pass: stringRatio >= 3,
      note: `${setNote}; CPU-time ratio ${stringRatio}x JSON.parse on a ready string, ${bytesRatio}x utf8 string + JSON.parse`,
    }),
    throughputRow(SUITE, PARSE_BYTES, true, parseBytesRate, { note: 'bytes.toString + JSON.parse, no conversion' }),
    throughputRow(SUITE, PARSE_STRING, true, parseStringRate, { note: 'JSON.parse of the frame text made beforehand' }),
    throughputRow(SUITE, PARSE_CONVERT, true, convertRate, { note: 'json-baseline.ts decodeDeltaJsonFromBytes' }),
    latencyRow(SUITE, `${OURS}, latency`, false, oursLatency, {
      compareTo: `${PARSE_STRING}, latency`, target: 'p50 <= 300 ns', pass: p50 <= 300, note: 'per call, one timer read included',
    }),
    latencyRow(SUITE, `${PARSE_BYTES}, latency`, true, parseBytesLatency, { note: 'per call, timer included' }),
    latencyRow(SUITE, `${PARSE_STRING}, latency`, true, parseStringLatency, { note: 'per call, timer included' }),
    latencyRow(SUITE, `${PARSE_CONVERT}, latency`, true, convertLatency, { note: 'per call, timer included' }),
    latencyRow(SUITE, 'UTF-8 check alone: isUtf8(bytes.subarray(frame)), latency', true, utf8Latency, {
      note: 'what checking every frame would add; the byte scanners accept ASCII (and known tickers) only, so accepted frames need no check',
    }),
    latencyRow(SUITE, 'floor: two timer reads (performance.now)', true, timerFloor),
    bookRow(BOOK_OURS, false, bookOurs, { compareTo: BOOK_JSON, note: `decode + apply + listener + 3 hop timestamps; whole passes of ${passFrames} frames, CPU time` }),
    bookRow(BOOK_JSON, true, bookJson, { note: 'the same frames into the same kind of BookStore (a second feed)' }),
    latencyRow(SUITE, 'hop received -> applied (ours)', false, totalHop, { note: 'from Feed.hop' }),
    latencyRow(SUITE, 'hop received -> decoded (ours)', false, decodeHop, { note: 'from Feed.hop' }),
    latencyRow(SUITE, 'hop decoded -> applied (ours)', false, applyHop, { note: 'BookStore apply; from Feed.hop' }),
    {
      suite: SUITE, case: GC_OURS, baseline: false, count: gcFrames, value: gcOurs.minor + gcOurs.major + gcOurs.other, unit: 'GCs',
      compareTo: GC_JSON, target: 'no scavenge', pass: gcOurs.minor === 0 && gcOurs.major === 0, note: gcNote(gcOurs),
    },
    {
      suite: SUITE, case: GC_OURS_STAMPED, baseline: false, count: gcFrames, value: gcOursStamped.minor + gcOursStamped.major + gcOursStamped.other, unit: 'GCs',
      compareTo: GC_JSON, note: `${gcNote(gcOursStamped)}; Node ${process.versions.node}`,
    },
    { suite: SUITE, case: GC_JSON, baseline: true, count: gcFrames, value: gcJson.minor + gcJson.major + gcJson.other, unit: 'GCs', note: gcNote(gcJson) },
  ];
}

const suite: BenchSuite = { name: SUITE, run };
export default suite;
