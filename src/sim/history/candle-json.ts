/**
 * Candlesticks as the exchange's JSON, from CandleTable rows. Two shapes:
 *
 * Live routes (OpenAPI MarketCandlestick: markets, batch, event): `price`, `yes_bid`, `yes_ask`
 * carry each value as `<name>_dollars` (FixedPointDollars, 4 decimals like every price the
 * simulator sends), counts as `volume_fp` / `open_interest_fp` (FixedPointCount). The interface
 * spec's candlestick (issue 16, "Event candlestick response") also names the integer fields beside
 * each `_dollars` companion and an integer `volume` and `open_interest`; their unit is "not
 * shown". They are sent too, in the exchange's legacy integer units: prices in whole cents and
 * counts in whole contracts, both rounded down (as `balance` truncates sub-cent amounts), so the
 * exact values stay in the string companions. The schema allows the extra properties.
 * No trade in the period: every `price` field null except `previous`, null only when the market
 * never traded before the period.
 *
 * Historical route (OpenAPI MarketCandlestickHistorical): the same values, strings only, with the
 * bare names (`open`, `volume`, `open_interest`).
 *
 * This file renders; it never aggregates.
 */

import { formatCount, formatPrice, type Count, type Price } from '../../core/index.ts';
import { CANDLE_STRIDE, CandleField as F, NULL_PRICE, type CandleTable } from '../../workers/index.ts';

type Json = Record<string, unknown>;

function dollars(price: number): string | null {
  return price === NULL_PRICE ? null : formatPrice(price as Price);
}

function cents(price: number): number | null {
  return price === NULL_PRICE ? null : Math.floor(price / 100);
}

function priceFields(out: Json, name: string, value: number): void {
  out[name] = cents(value);
  out[`${name}_dollars`] = dollars(value);
}

function topJson(v: Float64Array, at: number, open: number): Json {
  const out: Json = {};
  priceFields(out, 'open', v[at + open]);
  priceFields(out, 'low', v[at + open + 2]);
  priceFields(out, 'high', v[at + open + 1]);
  priceFields(out, 'close', v[at + open + 3]);
  return out;
}

/** One live candlestick (MarketCandlestick plus the integer companions). */
export function candleToJson(table: CandleTable, row: number): Json {
  const v = table.values;
  const at = row * CANDLE_STRIDE;
  const price: Json = {};
  priceFields(price, 'open', v[at + F.OPEN]);
  priceFields(price, 'low', v[at + F.LOW]);
  priceFields(price, 'high', v[at + F.HIGH]);
  priceFields(price, 'close', v[at + F.CLOSE]);
  priceFields(price, 'mean', v[at + F.MEAN]);
  priceFields(price, 'previous', v[at + F.PREVIOUS]);
  const volume = v[at + F.VOLUME];
  const openInterest = v[at + F.OPEN_INTEREST];
  return {
    end_period_ts: v[at + F.END_TS],
    yes_bid: topJson(v, at, F.BID_OPEN),
    yes_ask: topJson(v, at, F.ASK_OPEN),
    price,
    volume: Math.floor(volume / 100),
    volume_fp: formatCount(volume as Count),
    open_interest: Math.floor(openInterest / 100),
    open_interest_fp: formatCount(openInterest as Count),
  };
}

function topHistoricalJson(v: Float64Array, at: number, open: number): Json {
  return {
    open: formatPrice(v[at + open] as Price),
    low: formatPrice(v[at + open + 2] as Price),
    high: formatPrice(v[at + open + 1] as Price),
    close: formatPrice(v[at + open + 3] as Price),
  };
}

/** One historical candlestick (MarketCandlestickHistorical). */
export function candleToHistoricalJson(table: CandleTable, row: number): Json {
  const v = table.values;
  const at = row * CANDLE_STRIDE;
  return {
    end_period_ts: v[at + F.END_TS],
    yes_bid: topHistoricalJson(v, at, F.BID_OPEN),
    yes_ask: topHistoricalJson(v, at, F.ASK_OPEN),
    price: {
      open: dollars(v[at + F.OPEN]),
      low: dollars(v[at + F.LOW]),
      high: dollars(v[at + F.HIGH]),
      close: dollars(v[at + F.CLOSE]),
      mean: dollars(v[at + F.MEAN]),
      previous: dollars(v[at + F.PREVIOUS]),
    },
    volume: formatCount(v[at + F.VOLUME] as Count),
    open_interest: formatCount(v[at + F.OPEN_INTEREST] as Count),
  };
}

export function candlesToJson(table: CandleTable): Json[] {
  const out: Json[] = [];
  for (let row = 0; row < table.length; row++) out.push(candleToJson(table, row));
  return out;
}

export function candlesToHistoricalJson(table: CandleTable): Json[] {
  const out: Json[] = [];
  for (let row = 0; row < table.length; row++) out.push(candleToHistoricalJson(table, row));
  return out;
}
