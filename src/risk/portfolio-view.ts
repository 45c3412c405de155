/**
 * PortfolioView: the gate's read side of the portfolio risk the worker pool computes
 * (src/workers/portfolio). The pool publishes a snapshot (one Float64Array, laid out below) and the
 * runtime swaps it in with one assignment; the gate reads it on every order that adds risk, without
 * waiting, allocating or copying. Which event a market belongs to is set here off the hot path
 * (when the runtime learns a market), as an index into the snapshot's event columns.
 *
 * Snapshot layout (Float64, micro-dollars unless said):
 *
 *   0 generation | 1 packedAtMs (main-thread clock when the input was read) | 2 eventCount
 *   3 addedTotalAtPack (ExposureLedger.addedMicroTotal when packed) | 4..7 spare
 *   SUB_LOSS    + s   worst-case loss of subaccount s over every outcome        (64)
 *   SUB_EXPOSURE + s  money at stake of subaccount s (positions at cost + resting cost)  (64)
 *   SUB_ADDED   + s   ExposureLedger.addedMicro(s) when packed                 (64)
 *   EVENTS      + e              worst-case loss on event e, all subaccounts     (eventCount)
 *   EVENTS + eventCount + e      money at stake on event e                       (eventCount)
 *
 * This file owns the layout and the reads; the arithmetic is the worker's, the checks the gate's.
 */

import { assert } from '../core/index.ts';

export const PortfolioField = {
  GENERATION: 0,
  PACKED_AT_MS: 1,
  EVENT_COUNT: 2,
  ADDED_TOTAL_AT_PACK: 3,
  SUB_LOSS: 8,
  SUB_EXPOSURE: 8 + 64,
  SUB_ADDED: 8 + 128,
  EVENTS: 8 + 192,
} as const satisfies Record<string, number>;

/** Floats of a snapshot covering `eventCount` events. */
export function portfolioSnapshotLength(eventCount: number): number {
  return PortfolioField.EVENTS + 2 * eventCount;
}

/** No snapshot yet: generation 0, packed at time 0 (stale under any positive age limit). */
const EMPTY = new Float64Array(portfolioSnapshotLength(0));

export class PortfolioView {
  /** The published snapshot; replaced whole by publish(), never written in place. */
  #values: Float64Array = EMPTY;
  /** Event index by market handle, -1: the market belongs to no known event (its own outcome set). */
  #eventOfMarket = new Int32Array(64).fill(-1);

  /** The last published snapshot (read-only by convention). */
  get values(): Float64Array {
    return this.#values;
  }

  get generation(): number {
    return this.#values[PortfolioField.GENERATION];
  }

  get packedAtMs(): number {
    return this.#values[PortfolioField.PACKED_AT_MS];
  }

  get eventCount(): number {
    return this.#values[PortfolioField.EVENT_COUNT];
  }

  /** Swaps in a new snapshot (the runtime, when a worker answers). */
  publish(values: Float64Array): void {
    assert(values.length >= PortfolioField.EVENTS, 'PortfolioView.publish: snapshot too short');
    assert(values.length === portfolioSnapshotLength(values[PortfolioField.EVENT_COUNT]), 'PortfolioView.publish: length does not match eventCount');
    this.#values = values;
  }

  subaccountLossMicro(subaccount: number): number {
    return this.#values[PortfolioField.SUB_LOSS + subaccount];
  }

  subaccountExposureMicro(subaccount: number): number {
    return this.#values[PortfolioField.SUB_EXPOSURE + subaccount];
  }

  addedAtPackMicro(subaccount: number): number {
    return this.#values[PortfolioField.SUB_ADDED + subaccount];
  }

  get addedTotalAtPackMicro(): number {
    return this.#values[PortfolioField.ADDED_TOTAL_AT_PACK];
  }

  /** Worst-case loss on event `event`; 0 when the snapshot predates the event. */
  eventLossMicro(event: number): number {
    const values = this.#values;
    return event >= 0 && event < values[PortfolioField.EVENT_COUNT] ? values[PortfolioField.EVENTS + event] : 0;
  }

  eventExposureMicro(event: number): number {
    const values = this.#values;
    const count = values[PortfolioField.EVENT_COUNT];
    return event >= 0 && event < count ? values[PortfolioField.EVENTS + count + event] : 0;
  }

  /** Event index of a market handle, -1 when none. Hot path read. */
  eventOf(market: number): number {
    return market >= 0 && market < this.#eventOfMarket.length ? this.#eventOfMarket[market] : -1;
  }

  /** Off the hot path: records which event a market belongs to. */
  setEventOf(market: number, event: number): void {
    assert(Number.isSafeInteger(market) && market >= 0, 'PortfolioView.setEventOf: bad market handle');
    if (market >= this.#eventOfMarket.length) {
      let size = this.#eventOfMarket.length * 2;
      while (size <= market) size *= 2;
      const grown = new Int32Array(size).fill(-1);
      grown.set(this.#eventOfMarket);
      this.#eventOfMarket = grown;
    }
    this.#eventOfMarket[market] = event;
  }
}
