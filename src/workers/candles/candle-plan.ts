/**
 * Candlestick periods and the size of a request. A period of `intervalMinutes` is the half-open
 * span (end - P, end] in seconds, P = intervalMinutes x 60, with `end` a multiple of P counted from
 * the Unix epoch (so daily candles end at 00:00 UTC). A trade at exactly `end` (to the
 * millisecond) belongs to the period ending there: the OpenAPI names end_period_ts the "inclusive
 * end of the candlestick period".
 *
 * A request [start_ts, end_ts] asks for the periods whose end lies in it ("candlesticks will
 * include those ending on or after start_ts ... on or before end_ts"). Its size is periods x
 * markets, the "aggregate candidates"; above MAX_AGGREGATE_CANDIDATES the end is pulled in to the
 * last period that fits and reported as adjusted_end_ts. This file owns that arithmetic; it never
 * sees a trade.
 */

import { assert } from '../../core/index.ts';

/**
 * The period lengths the OpenAPI document lists for every candlestick route that enumerates them
 * (`period_interval` enum 1, 60, 1440: one minute, one hour, one day). The batch route's schema
 * only says `minimum: 1`; the arithmetic here takes any whole number of minutes up to a day.
 */
export const PERIOD_INTERVALS = [1, 60, 1440] as const;
export type PeriodInterval = (typeof PERIOD_INTERVALS)[number];
export const INTERVAL_MINUTES_MAX = 1440;

/**
 * maxAggregateCandidates (interface-spec, "Event candlestick response") has no published value. The
 * batch route's documentation caps a response at "up to 10,000 candlesticks total across all
 * markets"; the same 10,000 (periods x markets) is used for every candlestick request here.
 */
export const MAX_AGGREGATE_CANDIDATES = 10_000;

export function isPeriodInterval(value: number): value is PeriodInterval {
  return value === 1 || value === 60 || value === 1440;
}

/** End (Unix seconds) of the period holding the instant `tsMs` (Unix ms): ceil(tsMs / P) x P. */
export function periodEndOf(tsMs: number, periodSeconds: number): number {
  const periodMs = periodSeconds * 1000;
  // Exact: a non-integer quotient lies at least 1/periodMs from an integer, while the float
  // division errs by at most quotient x 2^-53 = tsMs / periodMs x 2^-53, far smaller for any tsMs
  // below 2^50 (the year 37,000).
  const index = Math.ceil(tsMs / periodMs);
  return index * periodSeconds;
}

/** The periods one request covers, after the aggregate-size cap. Plain data: it crosses to workers. */
export interface CandlePlan {
  readonly intervalMinutes: number;
  readonly periodSeconds: number;
  /** As requested, Unix seconds. */
  readonly startTs: number;
  readonly endTs: number;
  /** First and last period end in the (adjusted) request, Unix seconds; periods = 0 when none. */
  readonly firstEndTs: number;
  readonly lastEndTs: number;
  readonly periods: number;
  /** Markets the request spans (the candidates are periods x markets). */
  readonly marketCount: number;
  /** True when the request was larger than the cap and lastEndTs was pulled in. */
  readonly adjusted: boolean;
  /** The end the answer actually covers: lastEndTs when adjusted, else the requested endTs. */
  readonly adjustedEndTs: number;
}

/**
 * Plans a request. Preconditions (the REST layer answers 400 before calling): whole minutes in
 * 1..1440, start and end non-negative safe integers with start <= end, marketCount >= 1.
 */
export function planCandles(intervalMinutes: number, startTs: number, endTs: number, marketCount: number, maxCandidates = MAX_AGGREGATE_CANDIDATES): CandlePlan {
  assert(Number.isSafeInteger(intervalMinutes) && intervalMinutes >= 1 && intervalMinutes <= INTERVAL_MINUTES_MAX, 'planCandles: interval out of range');
  assert(Number.isSafeInteger(startTs) && startTs >= 0, 'planCandles: bad start');
  assert(Number.isSafeInteger(endTs) && endTs >= startTs, 'planCandles: bad end');
  assert(Number.isSafeInteger(marketCount) && marketCount >= 1, 'planCandles: bad market count');
  assert(Number.isSafeInteger(maxCandidates) && maxCandidates >= 1, 'planCandles: bad cap');
  const periodSeconds = intervalMinutes * 60;
  const firstEndTs = Math.ceil(startTs / periodSeconds) * periodSeconds;
  let lastEndTs = Math.floor(endTs / periodSeconds) * periodSeconds;
  let periods = lastEndTs >= firstEndTs ? (lastEndTs - firstEndTs) / periodSeconds + 1 : 0;
  // At least one period per market is always allowed, so a request for many markets still moves.
  const periodsMax = Math.max(1, Math.floor(maxCandidates / marketCount));
  let adjusted = false;
  if (periods > periodsMax) {
    periods = periodsMax;
    lastEndTs = firstEndTs + (periodsMax - 1) * periodSeconds;
    adjusted = true;
  }
  if (periods === 0) lastEndTs = firstEndTs - periodSeconds;
  return {
    intervalMinutes,
    periodSeconds,
    startTs,
    endTs,
    firstEndTs,
    lastEndTs,
    periods,
    marketCount,
    adjusted,
    adjustedEndTs: adjusted ? lastEndTs : endTs,
  };
}
