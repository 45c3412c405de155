/**
 * A synthetic city temperature index (interface-spec: GET /live_data/weather/{city} and its
 * calibrations): minute resolution, Fahrenheit rounded to 0.01, computed as the weighted mean of
 * station readings (Celsius plus each station's calibration offset) under the calibration in force
 * at that minute. Readings are a pure function of (city, station, minute), so a window replays
 * exactly. A station misses a minute now and then; a minute with fewer than QUORUM stations is
 * omitted. Minutes inside the receipt deadline are incomplete: returned only with detailed=true,
 * without `v`. This file owns the arithmetic and the city table; routes render it.
 */

export interface StationCalibration {
  readonly stationId: string;
  /** Weight in ppm of the index; a calibration's weights sum to 1,000,000. */
  readonly weightPpm: number;
  /** Added to the station's Celsius reading, hundredths of a degree. */
  readonly offsetCentiC: number;
  readonly updateNote?: string;
}

export interface Calibration {
  readonly configVersion: string;
  readonly effectiveAtMs: number;
  readonly publishedAtMs: number;
  readonly changeReason: string;
  readonly windowStartMs: number;
  readonly windowEndMs: number;
  /** City reference temperature, hundredths of a degree Celsius. */
  readonly cityReferenceCentiC: number;
  readonly stations: readonly StationCalibration[];
}

export interface City {
  readonly code: string;
  readonly name: string;
  /** Mean temperature, hundredths of a degree Celsius, and the daily swing around it. */
  readonly meanCentiC: number;
  readonly swingCentiC: number;
  /** Ascending by effective time. */
  readonly calibrations: readonly Calibration[];
}

export const MINUTE_MS = 60_000;
/** Readings for a minute are final this long after it ends. */
export const RECEIPT_DEADLINE_MS = 3 * MINUTE_MS;
export const QUORUM = 2;
/** Longest window one request may ask for: 7 days of minutes (10,080 points). */
export const WINDOW_MS_MAX = 7 * 24 * 3600 * 1000;

const V1_MS = Date.UTC(2026, 0, 1);
const V2_MS = Date.UTC(2026, 5, 1);

function calibrations(prefix: string, referenceCentiC: number): Calibration[] {
  const ids = [`${prefix}-A`, `${prefix}-B`, `${prefix}-C`];
  return [
    {
      configVersion: `${prefix.toLowerCase()}-v1`, effectiveAtMs: V1_MS, publishedAtMs: V1_MS - 86_400_000, changeReason: 'initial calibration',
      windowStartMs: V1_MS - 30 * 86_400_000, windowEndMs: V1_MS - 86_400_000, cityReferenceCentiC: referenceCentiC,
      stations: [
        { stationId: ids[0], weightPpm: 500_000, offsetCentiC: 0 },
        { stationId: ids[1], weightPpm: 300_000, offsetCentiC: -20 },
        { stationId: ids[2], weightPpm: 200_000, offsetCentiC: 35 },
      ],
    },
    {
      configVersion: `${prefix.toLowerCase()}-v2`, effectiveAtMs: V2_MS, publishedAtMs: V2_MS - 86_400_000, changeReason: 'station C sensor replaced',
      windowStartMs: V2_MS - 30 * 86_400_000, windowEndMs: V2_MS - 86_400_000, cityReferenceCentiC: referenceCentiC,
      stations: [
        { stationId: ids[0], weightPpm: 450_000, offsetCentiC: 0 },
        { stationId: ids[1], weightPpm: 300_000, offsetCentiC: -15 },
        { stationId: ids[2], weightPpm: 250_000, offsetCentiC: 10, updateNote: 'new sensor, offset recalibrated' },
      ],
    },
  ];
}

export const CITIES: readonly City[] = [
  { code: 'NY', name: 'New York', meanCentiC: 1300, swingCentiC: 500, calibrations: calibrations('NYC', 1300) },
  { code: 'CHI', name: 'Chicago', meanCentiC: 1000, swingCentiC: 600, calibrations: calibrations('CHI', 1000) },
  { code: 'MIA', name: 'Miami', meanCentiC: 2500, swingCentiC: 350, calibrations: calibrations('MIA', 2500) },
  { code: 'AUS', name: 'Austin', meanCentiC: 2100, swingCentiC: 700, calibrations: calibrations('AUS', 2100) },
];

/** Series tickers whose events follow a city's index (event-keyed live data). */
export const SERIES_CITY: Readonly<Record<string, string>> = { KXHIGHNY: 'NY', KXRAINNYC: 'NY' };

export function findCity(code: string): City | undefined {
  return CITIES.find((city) => city.code === code.toUpperCase());
}

/** 32-bit FNV-1a of text and two integers: the deterministic noise source. */
function hash(text: string, a: number, b: number): number {
  let h = 0x811c9dc5;
  const mix = (value: number): void => {
    h ^= value & 0xff;
    h = Math.imul(h, 0x01000193) >>> 0;
  };
  for (let i = 0; i < text.length; i++) mix(text.charCodeAt(i));
  for (let shift = 0; shift < 48; shift += 8) mix(Math.floor(a / 2 ** shift));
  mix(b);
  return h >>> 0;
}

export interface StationReading {
  readonly stationId: string;
  /** Hundredths of a degree Fahrenheit, before calibration offsets. */
  readonly tempCentiF: number;
  readonly obsTimeMs: number;
  readonly receivedAtMs: number;
}

export interface IndexPoint {
  readonly tMs: number;
  /** Hundredths of a degree Fahrenheit; null while incomplete. */
  readonly valueCentiF: number | null;
  readonly complete: boolean;
  readonly contributors: number;
  readonly configVersion: string;
  readonly stations: readonly StationReading[];
}

export function calibrationAt(city: City, tMs: number): Calibration {
  let current = city.calibrations[0];
  for (const calibration of city.calibrations) if (calibration.effectiveAtMs <= tMs) current = calibration;
  return current;
}

function centiCToCentiF(centiC: number): number {
  return Math.round((centiC * 9) / 5) + 3200;
}

/** Points for minutes in [fromMs, toMs), minute-aligned; `nowMs` decides completeness. */
export function indexPoints(city: City, fromMs: number, toMs: number, nowMs: number, includeIncomplete: boolean): IndexPoint[] {
  const out: IndexPoint[] = [];
  const first = Math.ceil(fromMs / MINUTE_MS) * MINUTE_MS;
  for (let t = first; t < toMs && t <= nowMs - MINUTE_MS; t += MINUTE_MS) {
    const calibration = calibrationAt(city, t);
    const complete = t + MINUTE_MS + RECEIPT_DEADLINE_MS <= nowMs;
    if (!complete && !includeIncomplete) continue;
    const dayFraction = ((t % 86_400_000) - 9 * 3600_000) / 86_400_000; // coolest about 09:00 UTC (dawn in the US)
    const baseCentiC = city.meanCentiC - city.swingCentiC * Math.cos(2 * Math.PI * dayFraction);
    const stations: StationReading[] = [];
    let weighted = 0;
    let weightSum = 0;
    for (let i = 0; i < calibration.stations.length; i++) {
      const station = calibration.stations[i];
      const noise = hash(station.stationId, t, 1);
      if (noise % 40 === 0) continue; // this station missed the minute
      const receivedAtMs = t + MINUTE_MS + (noise % 240_000); // up to 4 minutes late
      if (receivedAtMs > nowMs) continue; // not received yet
      const centiC = Math.round(baseCentiC + ((noise >>> 8) % 81) - 40); // +-0.40 degree C of station noise
      stations.push({ stationId: station.stationId, tempCentiF: centiCToCentiF(centiC), obsTimeMs: t, receivedAtMs });
      weighted += (centiC + station.offsetCentiC) * station.weightPpm;
      weightSum += station.weightPpm;
    }
    if (complete && stations.length < QUORUM) continue; // no quorum: omitted
    const valueCentiF = complete ? centiCToCentiF(Math.round(weighted / weightSum)) : null;
    out.push({ tMs: t, valueCentiF, complete, contributors: stations.length, configVersion: calibration.configVersion, stations });
  }
  return out;
}
