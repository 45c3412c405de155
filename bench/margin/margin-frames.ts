/**
 * Margin WebSocket book traffic for the margin bench: one perpetual's `orderbook_snapshot` (sid 1,
 * seq 1) and then `orderbook_delta` frames (seq 2...) exactly as the Margin endpoint writes them
 * (spec/websocket.md §7.1: `market_ticker`, `price` as a 4-decimal dollar string, `delta` a signed
 * 2-decimal count, `side` bid|ask, `ts_ms`; one in ten with `client_order_id` and `subaccount`, as
 * deltas caused by our own orders carry, as bench/feed/delta-frames.ts does for Predictions).
 *
 * The book: bids under and asks from a touch that random-walks around the $100 mark on a $0.01
 * tick, kept within `MAX_DRIFT_TICKS` of it (bounded), LEVELS levels a side. Most deltas add to or
 * take from a level near the touch (activity clusters at the top, as in delta-frames.ts); about one
 * in twenty moves the touch one tick (the level at the touch is taken out in full, as a trade or a
 * cancel does, and a level appears on the other side). A model of the book keeps every size
 * non-negative, so the whole stream applies cleanly after its snapshot. Seeded; built once; this
 * file never measures anything.
 */

import { formatCount, formatPrice, seededRandom, type Count, type Price } from '../../src/core/index.ts';

export const MARGIN_TICKER = 'KXBTCPERP';
/** $0.01 in 1/10,000 dollar. */
export const MARGIN_TICK = 100;
/** $100.00 in 1/10,000 dollar. */
export const MARGIN_MARK: Price = 1_000_000 as Price;

const LEVELS = 20;
/** The touch never strays further than this from the mark ($0.50). */
const MAX_DRIFT_TICKS = 50;
/** One side's levels as sizes by tick index; room for the window and the drift. */
const SPAN = 2 * (MAX_DRIFT_TICKS + LEVELS + 4);

export interface MarginStream {
  ticker: string;
  /** 1/10,000 dollar. */
  tick: number;
  mark: Price;
  /** The orderbook_snapshot frame (sid 1, seq 1). */
  snapshot: string;
  /** orderbook_delta frames, seq 2..deltas+1. */
  deltas: string[];
}

/**
 * `deltas` frames after one snapshot. Tick index t is price mark + (t - SPAN/2) ticks; bids rest at
 * t < touch, asks at t >= touch (touch = the best ask's index), one tick of spread at least.
 */
export function makeMarginStream(deltas: number, seed: number): MarginStream {
  const random = seededRandom(seed);
  const centre = SPAN / 2;
  const bids = new Float64Array(SPAN);
  const asks = new Float64Array(SPAN);
  let touch = centre; // best ask index: $100.00
  const priceAt = (t: number): Price => (MARGIN_MARK + (t - centre) * MARGIN_TICK) as Price;
  const size = (): number => (1 + Math.floor(random() * 50)) * 100; // whole contracts: the Margin exchange has no fractions
  for (let i = 0; i < LEVELS; i++) {
    bids[touch - 1 - i] = size() * 4;
    asks[touch + i] = size() * 4;
  }
  const level = (t: number, count: number): string => `["${formatPrice(priceAt(t))}","${formatCount(count as Count)}"]`;
  const bidLevels: string[] = [];
  const askLevels: string[] = [];
  for (let i = 0; i < LEVELS; i++) bidLevels.push(level(touch - 1 - i, bids[touch - 1 - i]));
  for (let i = 0; i < LEVELS; i++) askLevels.push(level(touch + i, asks[touch + i]));
  const snapshot = `{"type":"orderbook_snapshot","sid":1,"seq":1,"msg":{"market_ticker":"${MARGIN_TICKER}","bid":[${bidLevels.join(',')}],"ask":[${askLevels.join(',')}]}}`;

  const frames: string[] = [];
  let seq = 1;
  let tsMs = 1_798_761_600_000;
  const render = (k: number, t: number, delta: number, side: 'bid' | 'ask'): void => {
    tsMs += Math.floor(random() * 3);
    const own = random() < 0.1 ? `,"client_order_id":"c-${k}","subaccount":${k % 4}` : '';
    frames.push(
      `{"type":"orderbook_delta","sid":1,"seq":${++seq},"msg":{"market_ticker":"${MARGIN_TICKER}","price":"${formatPrice(priceAt(t))}","delta":"${formatCount(delta as Count)}","side":"${side}"${own},"ts_ms":${tsMs}}}`,
    );
  };
  for (let k = 0; frames.length < deltas; k++) {
    if (random() < 0.05) {
      // The touch moves one tick: up takes out the best ask and a bid appears where it was; down
      // takes out the best bid and an ask appears there. Bounded around the mark.
      const up = touch - centre >= MAX_DRIFT_TICKS ? false : touch - centre <= -MAX_DRIFT_TICKS ? true : random() < 0.5;
      if (up) {
        if (asks[touch] > 0) {
          render(k, touch, -asks[touch], 'ask');
          asks[touch] = 0;
        }
        if (frames.length >= deltas) break;
        const added = size();
        bids[touch] = added;
        render(k, touch, added, 'bid');
        touch++;
      } else {
        if (bids[touch - 1] > 0) {
          render(k, touch - 1, -bids[touch - 1], 'bid');
          bids[touch - 1] = 0;
        }
        if (frames.length >= deltas) break;
        const added = size();
        touch--;
        asks[touch] = added;
        render(k, touch, added, 'ask');
      }
      continue;
    }
    const bid = random() < 0.5;
    // Activity clusters near the touch (distance 0 is the best level).
    const distance = Math.min(LEVELS - 1, Math.floor(-Math.log(1 - random()) * 4));
    const t = bid ? touch - 1 - distance : touch + distance;
    const book = bid ? bids : asks;
    let delta: number;
    // Never empties the level at the touch here (that is a touch move, above): the best stays put.
    if (book[t] > 0 && random() < 0.5) delta = -Math.min(distance === 0 ? book[t] - 100 : book[t], random() < 0.3 ? book[t] : size());
    else delta = size();
    if (delta === 0) delta = size();
    book[t] += delta;
    render(k, t, delta, bid ? 'bid' : 'ask');
  }
  // Flat strings, as the socket layer hands them over (see delta-frames.ts's flatten).
  return { ticker: MARGIN_TICKER, tick: MARGIN_TICK, mark: MARGIN_MARK, snapshot: flatten(snapshot), deltas: frames.map(flatten) };
}

function flatten(text: string): string {
  return Buffer.from(text, 'utf8').toString('utf8');
}
