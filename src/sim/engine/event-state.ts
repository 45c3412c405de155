/**
 * An event's live state: its catalog spec, its series and the markets listed under it. Owns the
 * grouping only; fees are read from it (series fee type, event overrides) by the engine.
 */

import type { EventInfo, EventSpec, SeriesSpec } from './types.ts';
import type { MarketState } from './market-state.ts';
import { MAKER_RATE, TAKER_RATE, parseMultiplier } from './fees.ts';

export class EventState implements EventInfo {
  spec: EventSpec;
  series: SeriesSpec;
  eventTicker: string;
  markets: MarketState[];
  updatedMs: number;
  index: number;
  /** Fee parameters resolved from the series and the event's overrides (see fees.ts units). */
  takerRate: number;
  makerRate: number;
  feeMultiplier: number;

  constructor(spec: EventSpec, series: SeriesSpec, index: number, nowMs: number) {
    this.spec = spec;
    this.series = series;
    this.eventTicker = spec.eventTicker;
    this.markets = [];
    this.updatedMs = nowMs;
    this.index = index;
    this.takerRate = 0;
    this.makerRate = 0;
    this.feeMultiplier = 0;
    this.resolveFees();
  }

  resolveFees(): void {
    const feeType = this.spec.feeTypeOverride ?? this.series.feeType;
    const multiplier = parseMultiplier(this.spec.feeMultiplierOverride ?? this.series.feeMultiplier);
    this.feeMultiplier = multiplier < 0 ? 10_000 : multiplier;
    // 'flat' has no published formula: treated as quadratic (documented gap).
    this.takerRate = TAKER_RATE;
    this.makerRate = feeType === 'quadratic_with_maker_fees' ? MAKER_RATE : 0;
  }
}
