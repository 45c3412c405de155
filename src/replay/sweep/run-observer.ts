/**
 * What a report needs beyond the replay's own report: our fills as they happen (the replay venue's
 * matching engine's fill events for our user, read-only, so the run is unchanged), and after the
 * run the inventory and PnL curves and the markouts, from those fills and the recorded book's mid
 * (mid-series.ts). A markout at horizon h is the recorded mid h after a fill minus the mid at the
 * fill, signed by the fill's side (+ when a buy was followed by a rise), weighted by its contracts;
 * a fill whose horizon falls past the recording's end, or where the book had no mid, is left out
 * and the count says how many were kept. Integers throughout. Owns observation and arithmetic;
 * never changes the replay.
 */

import type { Recording } from '../../record/index.ts';
import type { Replay } from '../replay.ts';
import type { MidSeries } from './mid-series.ts';

/** The replay venue's user id for our orders (replay-venue.ts `US`); a test checks the fills add up to the report's. */
const OUR_USER = 'replay';

export const MARKOUT_HORIZONS_S = [1, 10, 60] as const;
/** Points of a curve besides the fills: enough for a plot, small enough to return from every run. */
const CURVE_POINTS = 200;

export interface FillPoint {
  /** ns after the recording's start (the engine's ms clock). */
  timeNs: number;
  ticker: string;
  /** +1 bought YES (bid), -1 sold YES (ask). */
  sign: number;
  /** YES price, 1/10,000 $. */
  price: number;
  /** 1/100 contract. */
  count: number;
  feeCenticents: number;
}

export interface Markout {
  horizonS: number;
  /** Fills with a mid at the fill and at the horizon inside the recording. */
  fills: number;
  contracts: number;
  /** Sum over those fills of side x mid move x contracts, micro-dollars. */
  totalMicro: number;
  /** totalMicro per contract, micro-dollars (0 when no fill counted). */
  perContractMicro: number;
}

export interface RunCurve {
  /** ms after the recording's start. */
  timeMs: number[];
  pnlMicro: number[];
  /** Signed position summed over markets, 1/100 contract. */
  position: number[];
}

export interface RunSummary {
  fills: FillPoint[];
  markouts: Markout[];
  curve: RunCurve;
  positionFinal: number;
  /** Largest sum over markets of |position| at any time, 1/100 contract. */
  inventoryMaxAbs: number;
}

/** Subscribes to the venue engine's fills before the run starts. */
export class RunObserver {
  readonly fills: FillPoint[] = [];
  readonly #startMs: number;

  constructor(replay: Replay) {
    this.#startMs = replay.recording.startMs;
    replay.venue.engine.subscribe({
      onFill: (userId, fill) => {
        if (userId !== OUR_USER) return;
        this.fills.push({ timeNs: (fill.tsMs - this.#startMs) * 1e6, ticker: fill.ticker, sign: fill.side === 'bid' ? 1 : -1, price: fill.price, count: fill.count, feeCenticents: fill.fee });
      },
    });
  }
}

export function summarizeRun(recording: Recording, mids: MidSeries, fills: readonly FillPoint[]): RunSummary {
  const endNs = recording.count === 0 ? 0 : recording.timesNs[recording.count - 1];
  return { fills: [...fills], markouts: MARKOUT_HORIZONS_S.map((h) => markoutOf(mids, fills, h, endNs)), ...curveOf(mids, fills, endNs) };
}

function markoutOf(mids: MidSeries, fills: readonly FillPoint[], horizonS: number, endNs: number): Markout {
  let kept = 0;
  let contracts = 0;
  let sum2 = 0; // doubled mid x count: micro-dollars x 2
  for (const fill of fills) {
    const laterNs = fill.timeNs + horizonS * 1e9;
    if (laterNs > endNs) continue;
    const before = mids.mid2At(fill.ticker, fill.timeNs);
    const after = mids.mid2At(fill.ticker, laterNs);
    if (before < 0 || after < 0) continue;
    kept++;
    contracts += fill.count;
    sum2 += fill.sign * (after - before) * fill.count;
  }
  const totalMicro = Math.floor(sum2 / 2);
  return { horizonS, fills: kept, contracts, totalMicro, perContractMicro: contracts === 0 ? 0 : Math.round((totalMicro * 100) / contracts) };
}

/** PnL (cash + positions at the last known mid - fees) and position at each fill and on a regular grid. */
function curveOf(mids: MidSeries, fills: readonly FillPoint[], endNs: number): { curve: RunCurve; positionFinal: number; inventoryMaxAbs: number } {
  const times = new Set<number>();
  for (let k = 0; k <= CURVE_POINTS; k++) times.add(Math.floor((endNs * k) / CURVE_POINTS));
  for (const fill of fills) times.add(fill.timeNs);
  const sorted = [...times].sort((a, b) => a - b);
  const cash = new Map<string, number>(); // micro-dollars, fees included
  const positions = new Map<string, number>();
  const lastMid2 = new Map<string, number>();
  const curve: RunCurve = { timeMs: [], pnlMicro: [], position: [] };
  let next = 0;
  let inventoryMaxAbs = 0;
  for (const timeNs of sorted) {
    for (; next < fills.length && fills[next].timeNs <= timeNs; next++) {
      const fill = fills[next];
      cash.set(fill.ticker, (cash.get(fill.ticker) ?? 0) - fill.sign * fill.price * fill.count - fill.feeCenticents * 100);
      positions.set(fill.ticker, (positions.get(fill.ticker) ?? 0) + fill.sign * fill.count);
    }
    let pnl = 0;
    let position = 0;
    let inventory = 0;
    for (const [ticker, held] of positions) {
      const mid2 = mids.mid2At(ticker, timeNs);
      if (mid2 >= 0) lastMid2.set(ticker, mid2);
      pnl += (cash.get(ticker) ?? 0) + Math.floor(((lastMid2.get(ticker) ?? 0) * held) / 2);
      position += held;
      inventory += Math.abs(held);
    }
    inventoryMaxAbs = Math.max(inventoryMaxAbs, inventory);
    curve.timeMs.push(Math.floor(timeNs / 1e6));
    curve.pnlMicro.push(pnl);
    curve.position.push(position);
  }
  return { curve, positionFinal: curve.position.length === 0 ? 0 : curve.position[curve.position.length - 1], inventoryMaxAbs };
}
