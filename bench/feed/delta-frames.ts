/**
 * Recorded WebSocket traffic for the feed bench: per-market orderbook_snapshot frames (sid 1, seq
 * 1..markets) followed by orderbook_delta frames (seq markets+1...) exactly as the exchange writes
 * them (spec/websocket.md §6.1: market_id, 4-decimal prices, 2-decimal signed counts, ts_ms; one in
 * ten with client_order_id and subaccount, as deltas caused by our own orders carry). A model of
 * every book keeps sizes non-negative, so the whole stream applies cleanly after its snapshots.
 *
 * makeLoopStream builds the same kind of traffic as bytes that can be replayed for ever without a
 * new snapshot: its second half undoes the first (the inverse deltas in reverse order), so every
 * book is back to its snapshot after each pass, and its seq numbers have a fixed width (8 digits),
 * so the next pass renumbers them in place (LoopStream.renumber: digits written into the bytes,
 * nothing allocated). The frames sit in 64 KiB chunks, a few bytes apart, as socket reads hold them.
 * Built once from a seed; this file never measures anything.
 */

import { formatCount, formatPrice, PriceGrid, type Count, type Price } from '../../src/core/index.ts';
import { seededRandom } from '../../src/core/index.ts';

export interface FeedStream {
  grid: PriceGrid;
  tickers: string[];
  /** orderbook_snapshot frames, seq 1..tickers.length. */
  snapshots: string[];
  /** orderbook_delta frames, seq continuing after the snapshots. */
  deltas: string[];
}

const LEVELS_PER_SIDE = 20;

function uuid(random: () => number): string {
  const hex = (n: number) => Array.from({ length: n }, () => Math.floor(random() * 16).toString(16)).join('');
  return `${hex(8)}-${hex(4)}-4${hex(3)}-a${hex(3)}-${hex(12)}`;
}

export function makeFeedStream(markets: number, deltas: number, seed: number): FeedStream {
  return makeStream(markets, deltas, seed, 1, false).stream;
}

interface StreamBuild {
  stream: FeedStream;
  /** Offset of each delta's seq digits in its text. */
  seqOffsets: number[];
}

function makeStream(markets: number, deltas: number, seed: number, firstSeq: number, loop: boolean): StreamBuild {
  const random = seededRandom(seed);
  const grid = PriceGrid.fromStructure('linear_cent');
  const tickers: string[] = [];
  const ids: string[] = [];
  // sizes[m][side][i]: YES bids at $0.31..$0.50, NO bids at $0.30..$0.49 (i = 0..19).
  const sizes: Float64Array[][] = [];
  const snapshots: string[] = [];
  for (let m = 0; m < markets; m++) {
    const ticker = `KXBENCH-26DEC31-T${1000 + m}`;
    tickers.push(ticker);
    ids.push(uuid(random));
    const yes = new Float64Array(LEVELS_PER_SIDE);
    const no = new Float64Array(LEVELS_PER_SIDE);
    for (let i = 0; i < LEVELS_PER_SIDE; i++) {
      yes[i] = (1 + Math.floor(random() * 500)) * 100;
      no[i] = (1 + Math.floor(random() * 500)) * 100;
    }
    sizes.push([yes, no]);
    const level = (side: number, i: number, size: number) => `["${formatPrice(priceOf(side, i))}","${formatCount(size as Count)}"]`;
    snapshots.push(
      `{"type":"orderbook_snapshot","sid":1,"seq":${firstSeq + m},"msg":{"market_ticker":"${ticker}","market_id":"${ids[m]}",` +
        `"yes_dollars_fp":[${Array.from(yes, (s, i) => level(0, i, s)).join(',')}],` +
        `"no_dollars_fp":[${Array.from(no, (s, i) => level(1, i, s)).join(',')}]}}`,
    );
  }
  const frames: string[] = [];
  const seqOffsets: number[] = [];
  let seq = firstSeq + markets - 1;
  let tsMs = 1_798_761_600_000;
  // (market, side, level, delta) of each forward delta: a loop stream replays them inverted.
  const ops: number[][] = [];
  const forward = loop ? deltas / 2 : deltas;
  const render = (k: number, m: number, side: number, i: number, delta: number): void => {
    tsMs += Math.floor(random() * 3);
    const own = random() < 0.1 ? `,"client_order_id":"c-${k}","subaccount":${k % 4}` : '';
    const head = `{"type":"orderbook_delta","sid":1,"seq":`;
    seqOffsets.push(head.length);
    frames.push(
      `${head}${++seq},"msg":{"market_ticker":"${tickers[m]}","market_id":"${ids[m]}",` +
        `"price_dollars":"${formatPrice(priceOf(side, i))}","delta_fp":"${formatCount(delta as Count)}","side":"${side === 0 ? 'yes' : 'no'}"${own},"ts_ms":${tsMs}}}`,
    );
  };
  for (let k = 0; k < forward; k++) {
    const m = Math.floor(random() * markets);
    const side = random() < 0.5 ? 0 : 1;
    // Activity clusters near the top of the book (the last indexes are the best levels).
    const i = LEVELS_PER_SIDE - 1 - Math.min(LEVELS_PER_SIDE - 1, Math.floor(-Math.log(1 - random()) * 4));
    const book = sizes[m][side];
    let delta: number;
    if (book[i] > 0 && random() < 0.5) delta = -(random() < 0.3 ? book[i] : Math.min(book[i], (1 + Math.floor(random() * 50)) * 100));
    else delta = (1 + Math.floor(random() * 50)) * 100 + (random() < 0.1 ? 37 : 0);
    book[i] += delta;
    if (loop) ops.push([m, side, i, delta]);
    render(k, m, side, i, delta);
  }
  for (let k = ops.length - 1; k >= 0; k--) {
    const [m, side, i, delta] = ops[k];
    sizes[m][side][i] -= delta;
    render(forward + (ops.length - 1 - k), m, side, i, -delta);
  }
  // As the socket layer delivers them: flat strings decoded from bytes, not concatenation trees
  // (a template-literal string is a cons string, slower to read character by character).
  return { stream: { grid, tickers, snapshots: snapshots.map(flatten), deltas: frames.map(flatten) }, seqOffsets };
}

/** A stream's delta frames as bytes in socket-sized chunks, replayable for ever (see the file comment). */
export interface LoopStream {
  grid: PriceGrid;
  tickers: string[];
  /** orderbook_snapshot frames (text), applied once before the first pass. */
  snapshots: string[];
  /** The delta frames as text (for baselines that start from a string). */
  texts: string[];
  /** Frame k lies in chunks[chunkOf[k]] between starts[k] and ends[k]. */
  chunks: Buffer[];
  chunkOf: Int32Array;
  starts: Int32Array;
  ends: Int32Array;
  /** The pass whose seq numbers the bytes hold now (0 as built). */
  numberedPass: number;
  /** Writes pass `pass`'s seq numbers into the bytes, unless they hold them already. Allocates nothing. */
  renumber(pass: number): void;
}

const SEQ_WIDTH = 8;
const SEQ_FIRST = 10_000_001;
const CHUNK_BYTES = 64 * 1024;

/** `deltas` frames (even) whose second half undoes the first; seq numbers SEQ_WIDTH digits wide. */
export function makeLoopStream(markets: number, deltas: number, seed: number): LoopStream {
  if (deltas % 2 !== 0) throw new RangeError('makeLoopStream: deltas must be even');
  const { stream, seqOffsets } = makeStream(markets, deltas, seed, SEQ_FIRST, true);
  const firstDeltaSeq = SEQ_FIRST + markets;
  if (firstDeltaSeq + deltas * 64 >= 10 ** SEQ_WIDTH) throw new RangeError('makeLoopStream: too many deltas for fixed-width seqs');
  const chunks: Buffer[] = [];
  const chunkOf = new Int32Array(deltas);
  const starts = new Int32Array(deltas);
  const ends = new Int32Array(deltas);
  const seqAt = new Int32Array(deltas);
  let chunk = Buffer.alloc(CHUNK_BYTES);
  let used = 0;
  for (let k = 0; k < deltas; k++) {
    const bytes = Buffer.from(stream.deltas[k], 'utf8');
    if (used + 4 + bytes.length > chunk.length) {
      chunks.push(chunk.subarray(0, used));
      chunk = Buffer.alloc(Math.max(CHUNK_BYTES, bytes.length + 4));
      used = 0;
    }
    used += 4; // a WebSocket header's worth of other bytes before each frame
    bytes.copy(chunk, used);
    chunkOf[k] = chunks.length;
    starts[k] = used;
    seqAt[k] = used + seqOffsets[k];
    used += bytes.length;
    ends[k] = used;
  }
  chunks.push(chunk.subarray(0, used));
  return {
    grid: stream.grid,
    tickers: stream.tickers,
    snapshots: stream.snapshots,
    texts: stream.deltas,
    chunks,
    chunkOf,
    starts,
    ends,
    numberedPass: 0,
    renumber(pass: number): void {
      if (this.numberedPass === pass) return;
      this.numberedPass = pass;
      for (let k = 0; k < deltas; k++) {
        let seq = firstDeltaSeq + pass * deltas + k;
        const target = chunks[chunkOf[k]];
        for (let d = seqAt[k] + SEQ_WIDTH - 1; d >= seqAt[k]; d--) {
          const digit = seq % 10;
          target[d] = 0x30 + digit;
          seq = (seq - digit) / 10; // exact: a small integer even unoptimised (no boxed quotient)
        }
      }
    },
  };
}

function flatten(text: string): string {
  return Buffer.from(text, 'utf8').toString('utf8');
}

/** Wire price of level i: YES bids $0.31 + i cents, NO bids $0.30 + i cents. */
function priceOf(side: number, i: number): Price {
  return ((side === 0 ? 3100 : 3000) + i * 100) as Price;
}
