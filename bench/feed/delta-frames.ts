/**
 * Recorded WebSocket traffic for the feed bench: per-market orderbook_snapshot frames (sid 1, seq
 * 1..markets) followed by orderbook_delta frames (seq markets+1...) exactly as the exchange writes
 * them (spec/websocket.md §6.1: market_id, 4-decimal prices, 2-decimal signed counts, ts_ms; one in
 * ten with client_order_id and subaccount, as deltas caused by our own orders carry). A model of
 * every book keeps sizes non-negative, so the whole stream applies cleanly after its snapshots.
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
      `{"type":"orderbook_snapshot","sid":1,"seq":${m + 1},"msg":{"market_ticker":"${ticker}","market_id":"${ids[m]}",` +
        `"yes_dollars_fp":[${Array.from(yes, (s, i) => level(0, i, s)).join(',')}],` +
        `"no_dollars_fp":[${Array.from(no, (s, i) => level(1, i, s)).join(',')}]}}`,
    );
  }
  const frames: string[] = [];
  let seq = markets;
  let tsMs = 1_798_761_600_000;
  for (let k = 0; k < deltas; k++) {
    const m = Math.floor(random() * markets);
    const side = random() < 0.5 ? 0 : 1;
    // Activity clusters near the top of the book (the last indexes are the best levels).
    const i = LEVELS_PER_SIDE - 1 - Math.min(LEVELS_PER_SIDE - 1, Math.floor(-Math.log(1 - random()) * 4));
    const book = sizes[m][side];
    let delta: number;
    if (book[i] > 0 && random() < 0.5) delta = -(random() < 0.3 ? book[i] : Math.min(book[i], (1 + Math.floor(random() * 50)) * 100));
    else delta = (1 + Math.floor(random() * 50)) * 100 + (random() < 0.1 ? 37 : 0);
    book[i] += delta;
    tsMs += Math.floor(random() * 3);
    const own = random() < 0.1 ? `,"client_order_id":"c-${k}","subaccount":${k % 4}` : '';
    frames.push(
      `{"type":"orderbook_delta","sid":1,"seq":${++seq},"msg":{"market_ticker":"${tickers[m]}","market_id":"${ids[m]}",` +
        `"price_dollars":"${formatPrice(priceOf(side, i))}","delta_fp":"${formatCount(delta as Count)}","side":"${side === 0 ? 'yes' : 'no'}"${own},"ts_ms":${tsMs}}}`,
    );
  }
  // As the socket layer delivers them: flat strings decoded from bytes, not concatenation trees
  // (a template-literal string is a cons string, slower to read character by character).
  return { grid, tickers, snapshots: snapshots.map(flatten), deltas: frames.map(flatten) };
}

function flatten(text: string): string {
  return Buffer.from(text, 'utf8').toString('utf8');
}

/** Wire price of level i: YES bids $0.31 + i cents, NO bids $0.30 + i cents. */
function priceOf(side: number, i: number): Price {
  return ((side === 0 ? 3100 : 3000) + i * 100) as Price;
}
