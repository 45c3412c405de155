/**
 * Positions per (subaccount, market) built from our de-duplicated fills: signed count (+ long YES,
 * - long NO, the venue's convention for position_fp), average-cost basis, realized PnL and fees.
 * The venue's own figures (fill post_position, market_position, listPositions) are kept beside
 * ours; when they disagree on the count the venue's wins and the mismatch is counted.
 *
 * Money: cost basis and realized PnL are held exactly in micro-dollars (YES price 1/10,000 $ x
 * count 1/100 contract); centicents getters round half away from zero. Fees are centicents as the
 * venue reports them (fee_cost). Realized PnL is gross of fees.
 * This file owns the arithmetic; it never talks to the venue or the risk gate.
 */

import { DOUBLE_ZERO, type BookSide, type Price } from '../core/index.ts';

export const POSITION_UNKNOWN = Number.MIN_SAFE_INTEGER;

export class Position {
  readonly subaccount: number;
  readonly ticker: string;
  /** Signed, 1/100 contract. */
  position = DOUBLE_ZERO;
  /** Signed cost of the open position in YES terms, micro-dollars (negative when short YES = long NO). */
  costMicro = DOUBLE_ZERO;
  realizedMicro = DOUBLE_ZERO;
  feesCenticents = DOUBLE_ZERO;
  /** Contracts traded (both sides), 1/100 contract. */
  volume = DOUBLE_ZERO;
  /** The venue's last word on the position; POSITION_UNKNOWN until it says. */
  venuePosition = POSITION_UNKNOWN;
  venueRealizedPnlCenticents = DOUBLE_ZERO;
  venueFeesPaidCenticents = DOUBLE_ZERO;
  /** Times the venue's count disagreed with ours and replaced it. */
  mismatches = 0;

  constructor(subaccount: number, ticker: string) {
    this.subaccount = subaccount;
    this.ticker = ticker;
  }

  get realizedPnlCenticents(): number {
    return roundHalfAway(this.realizedMicro / 100);
  }

  get costCenticents(): number {
    return roundHalfAway(this.costMicro / 100);
  }

  /** Applies a fill of `count` at YES `price`: bid buys YES (+), ask sells YES (-). */
  applyFill(side: BookSide, price: Price, count: number, feeCenticents: number): void {
    const delta = side === 'bid' ? count : -count;
    this.feesCenticents += feeCenticents;
    this.volume += count;
    const q = this.position;
    if (q === 0 || (q > 0) === (delta > 0)) {
      this.costMicro += price * delta;
      this.position = q + delta;
      return;
    }
    // Closing (part of) the position, maybe flipping through zero.
    const absQ = q < 0 ? -q : q;
    const closeCount = count < absQ ? count : absQ;
    const closeDelta = delta > 0 ? closeCount : -closeCount;
    const costRemoved = closeCount === absQ ? this.costMicro : Math.round((this.costMicro * closeCount) / absQ);
    const cash = -price * closeDelta; // selling YES brings cash in, buying pays it out
    this.realizedMicro += cash - costRemoved;
    this.costMicro -= costRemoved;
    this.position = q + closeDelta;
    const rest = delta - closeDelta;
    if (rest !== 0) {
      this.costMicro += price * rest;
      this.position += rest;
    }
  }

  /** Replaces our count with the venue's; returns true when they differed. */
  adopt(venuePosition: number): boolean {
    this.venuePosition = venuePosition;
    if (venuePosition === this.position) return false;
    this.mismatches++;
    // The cost basis of the unexplained part is unknown: scale it so the average price is kept.
    if (this.position !== 0 && venuePosition !== 0 && (venuePosition > 0) === (this.position > 0)) {
      this.costMicro = Math.round((this.costMicro * venuePosition) / this.position);
    } else if (venuePosition === 0 || this.position === 0) {
      this.costMicro = 0;
    }
    this.position = venuePosition;
    return true;
  }
}

function roundHalfAway(value: number): number {
  const rounded = value < 0 ? -Math.round(-value) : Math.round(value);
  return rounded === 0 ? 0 : rounded;
}

export class PositionBook {
  readonly #bySubaccount: Map<string, Position>[] = [];

  constructor() {
    for (let i = 0; i < 64; i++) this.#bySubaccount.push(new Map());
  }

  get(subaccount: number, ticker: string): Position | undefined {
    return this.#bySubaccount[subaccount]?.get(ticker);
  }

  /** The position record, created on first use (once per market and subaccount). */
  at(subaccount: number, ticker: string): Position {
    const map = this.#bySubaccount[subaccount];
    let position = map.get(ticker);
    if (position === undefined) {
      position = new Position(subaccount, ticker);
      map.set(ticker, position);
    }
    return position;
  }

  /** Every position record (off the hot path). */
  all(): Position[] {
    const out: Position[] = [];
    for (const map of this.#bySubaccount) for (const position of map.values()) out.push(position);
    return out;
  }

  /** Subaccounts holding a non-zero position. */
  subaccountsWithPositions(): number[] {
    const out: number[] = [];
    this.#bySubaccount.forEach((map, subaccount) => {
      for (const position of map.values()) {
        if (position.position !== 0) {
          out.push(subaccount);
          break;
        }
      }
    });
    return out;
  }
}
