/**
 * Live data routes (interface-spec "Predictions, market data and reference"): the city weather index
 * (window by from/to in unix ms or last_sec, default the trailing 24 hours, at most 7 days;
 * detailed=true adds station readings and incomplete trailing minutes without `v`), its
 * calibration timeline, and event-keyed live data whose `type` names the shape of `details`:
 * `weather_index` for events of a weather series (the city's index over `range`), else
 * `market_prices` (each market's best bid, ask and last price from the engine). Public, as the
 * other market-data reads. The arithmetic lives in src/sim/live-data.
 */

import { calibrationAt, CITIES, findCity, indexPoints, SERIES_CITY, WINDOW_MS_MAX, type IndexPoint } from '../../../live-data/weather.ts';
import { marketToJson } from '../../../engine/index.ts';
import { jsonReply, nestedError, type RestReply } from '../reply.ts';
import { route, type RestContext, type RouteDef } from '../route.ts';

const DAY_MS = 24 * 3600 * 1000;
const RANGES: Readonly<Record<string, number>> = { '15min': 15 * 60_000, '1h': 3600_000, '6h': 6 * 3600_000, '1d': DAY_MS };
const DEFAULT_RANGE = '1d';

function degrees(centiF: number): number {
  return centiF / 100; // rounded to 0.01 already: centi-degrees are integers
}

function pointToJson(point: IndexPoint, detailed: boolean): Record<string, unknown> {
  const out: Record<string, unknown> = { t: point.tMs, status: point.complete ? 'final' : 'incomplete', contributors: point.contributors };
  if (point.valueCentiF !== null) out.v = degrees(point.valueCentiF);
  if (!point.complete) out.receipt_basis = 'partial'; // absent on canonical points
  if (detailed) {
    out.stations = point.stations.map((s) => ({
      station_id: s.stationId,
      code: 'accepted', // quality-control disposition
      source: 'sim',
      temp_f: degrees(s.tempCentiF),
      obs_time_ms: s.obsTimeMs,
      received_at_ms: s.receivedAtMs,
    }));
  }
  return out;
}

function getWeather(ctx: RestContext): RestReply {
  const city = findCity(ctx.params.city);
  if (city === undefined) return nestedError(400, 'bad_request', `unknown city; known: ${CITIES.map((c) => c.code).join(', ')}`, 'city');
  const nowMs = ctx.services.now();
  const q = ctx.query;
  const from = q.integer('from');
  const to = q.integer('to');
  const lastSec = q.integer('last_sec');
  const detailed = q.boolean('detailed') ?? false;
  if (lastSec !== null && (from !== null || to !== null)) return nestedError(400, 'bad_request', 'last_sec excludes from and to', 'last_sec');
  const toMs = to ?? nowMs;
  const fromMs = lastSec !== null ? nowMs - lastSec * 1000 : from ?? toMs - DAY_MS;
  if (fromMs >= toMs) return nestedError(400, 'bad_request', 'from must be before to', 'from');
  if (toMs - fromMs > WINDOW_MS_MAX) return nestedError(400, 'bad_request', `the window must be at most ${WINDOW_MS_MAX / 1000} seconds`, 'from');
  const points = indexPoints(city, fromMs, Math.min(toMs, nowMs), nowMs, detailed);
  return jsonReply(200, {
    city: city.code,
    config_version: calibrationAt(city, Math.min(toMs, nowMs)).configVersion,
    units: 'F',
    timeseries: points.map((p) => pointToJson(p, detailed)),
  });
}

function getCalibrations(ctx: RestContext): RestReply {
  const city = findCity(ctx.params.city);
  if (city === undefined) return nestedError(400, 'bad_request', `unknown city; known: ${CITIES.map((c) => c.code).join(', ')}`, 'city');
  return jsonReply(200, {
    city: city.code,
    units: 'C',
    calibrations: city.calibrations.map((c) => ({
      config_version: c.configVersion,
      published_at_ms: c.publishedAtMs,
      effective_at_ms: c.effectiveAtMs,
      change_reason: c.changeReason,
      calibration_window_start_ms: c.windowStartMs,
      calibration_window_end_ms: c.windowEndMs,
      city_reference_c: c.cityReferenceCentiC / 100,
      stations: c.stations.map((s) => {
        const out: Record<string, unknown> = { station_id: s.stationId, weight: s.weightPpm / 1_000_000, offset_c: s.offsetCentiC / 100 };
        if (s.updateNote !== undefined) out.update_note = s.updateNote;
        return out;
      }),
    })),
  });
}

function getEventLiveData(ctx: RestContext): RestReply {
  const event = ctx.services.engine.getEvent(ctx.params.event_ticker);
  if (event === undefined) return nestedError(404, 'not_found', 'event not found');
  const range = ctx.query.string('range') ?? DEFAULT_RANGE;
  const rangeMs = RANGES[range];
  if (rangeMs === undefined) return nestedError(400, 'bad_request', `range must be one of ${Object.keys(RANGES).join(', ')}`, 'range');
  const nowMs = ctx.services.now();
  const isHistorical = event.markets.length > 0 && event.markets.every((m) => m.status === 'finalized' || m.status === 'determined');
  const common = { is_historical: isHistorical, default_range: DEFAULT_RANGE, range_options: Object.keys(RANGES) };
  const cityCode = SERIES_CITY[event.spec.seriesTicker];
  const city = cityCode === undefined ? undefined : findCity(cityCode);
  if (city !== undefined) {
    const points = indexPoints(city, nowMs - rangeMs, nowMs, nowMs, false);
    const values = points.map((p) => p.valueCentiF!);
    const details: Record<string, unknown> = { city: city.code, units: 'F', points: points.map((p) => ({ t: p.tMs, v: degrees(p.valueCentiF!) })) };
    if (values.length > 0) {
      details.latest = degrees(values[values.length - 1]);
      details.high = degrees(Math.max(...values));
      details.low = degrees(Math.min(...values));
    }
    return jsonReply(200, { live_data: { type: 'weather_index', details, ...common } });
  }
  const markets = event.markets.map((market) => {
    const json = marketToJson(market) as Record<string, unknown>;
    return { ticker: market.ticker, yes_bid_dollars: json.yes_bid_dollars, yes_ask_dollars: json.yes_ask_dollars, last_price_dollars: json.last_price_dollars };
  });
  return jsonReply(200, { live_data: { type: 'market_prices', details: { as_of_ms: nowMs, markets }, ...common } });
}

export const LIVE_DATA_ROUTES: readonly RouteDef[] = [
  route('GET', '/live_data/weather/{city}', { auth: false }, getWeather),
  route('GET', '/live_data/weather/{city}/calibrations', { auth: false }, getCalibrations),
  route('GET', '/live_data/events/{event_ticker}', { auth: false }, getEventLiveData),
];
