/**
 * The market catalog: series, events and markets the simulator lists, loaded from a JSON file
 * (config/markets.json, exchange-style snake_case keys) and validated field by field; every
 * violation is reported at once with its JSON path, unknown keys included. It owns parsing and
 * validation only; live market state lives in the engine.
 */

import { readFileSync } from 'node:fs';
import { GridError, PRICE_INVALID, PriceGrid, isPriceLevelStructure, parsePrice } from '../../core/index.ts';
import type { Price, PriceLevelStructure, PriceRangeText } from '../../core/index.ts';
import type { Catalog, CollectionEventSpec, CollectionSpec, EventSpec, ExchangeIndex, FeeType, MarketSpec, MarketStatus, SeriesSpec, SettlementSource } from './types.ts';
import { parseMultiplier } from './fees.ts';

export class CatalogError extends Error {
  readonly code = 'CATALOG_INVALID' as const;
  readonly problems: readonly string[];
  constructor(source: string, problems: readonly string[]) {
    super(`${source}: invalid market catalog:\n  ${problems.join('\n  ')}`);
    this.name = 'CatalogError';
    this.problems = problems;
  }
}

/** Reads and validates a catalog file. Throws CatalogError naming the file and every bad path. */
export function loadCatalog(path: string): Catalog {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    throw new CatalogError(path, [`cannot read file: ${(error as Error).message}`]);
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    throw new CatalogError(path, [`not JSON: ${(error as Error).message}`]);
  }
  return parseCatalog(json, path);
}

const MARKET_STATUSES: readonly MarketStatus[] = ['initialized', 'inactive', 'active', 'closed', 'determined', 'disputed', 'amended', 'finalized'];
const FEE_TYPES: readonly FeeType[] = ['quadratic', 'quadratic_with_maker_fees', 'quadratic_with_combo_maker_fees', 'flat'];
const TICKER = /^[A-Z0-9][A-Z0-9._-]{0,99}$/;

type Obj = Record<string, unknown>;

/** Collects problems with their JSON paths while reading one object. */
class Reader {
  constructor(
    readonly problems: string[],
    readonly path: string,
    readonly object: Obj,
    allowed: readonly string[],
  ) {
    for (const key of Object.keys(object)) {
      if (!allowed.includes(key)) problems.push(`${path}.${key}: unknown key`);
    }
  }

  #bad(key: string, expected: string): void {
    this.problems.push(`${this.path}.${key}: expected ${expected}, got ${JSON.stringify(this.object[key])}`);
  }

  string(key: string, fallback?: string): string {
    const value = this.object[key];
    if (value === undefined && fallback !== undefined) return fallback;
    if (typeof value !== 'string') {
      this.#bad(key, 'a string');
      return '';
    }
    return value;
  }

  ticker(key: string): string {
    const value = this.string(key);
    if (value !== '' && !TICKER.test(value)) this.#bad(key, 'an upper-case ticker ([A-Z0-9._-])');
    return value;
  }

  boolean(key: string, fallback: boolean): boolean {
    const value = this.object[key];
    if (value === undefined) return fallback;
    if (typeof value !== 'boolean') {
      this.#bad(key, 'a boolean');
      return fallback;
    }
    return value;
  }

  integer(key: string, fallback: number | undefined, min: number, max: number): number {
    const value = this.object[key];
    if (value === undefined && fallback !== undefined) return fallback;
    if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < min || value > max) {
      this.#bad(key, `an integer from ${min} to ${max}`);
      return fallback ?? min;
    }
    return value;
  }

  nullableNumber(key: string): number | null {
    const value = this.object[key];
    if (value === undefined || value === null) return null;
    if (typeof value !== 'number' || !Number.isFinite(value)) {
      this.#bad(key, 'a number or null');
      return null;
    }
    return value;
  }

  nullableString(key: string): string | null {
    const value = this.object[key];
    if (value === undefined || value === null) return null;
    if (typeof value !== 'string') {
      this.#bad(key, 'a string or null');
      return null;
    }
    return value;
  }

  nullableObject(key: string): Record<string, unknown> | null {
    const value = this.object[key];
    if (value === undefined || value === null) return null;
    if (typeof value !== 'object' || Array.isArray(value)) {
      this.#bad(key, 'an object or null');
      return null;
    }
    return value as Record<string, unknown>;
  }

  oneOf<T extends string>(key: string, values: readonly T[], fallback?: T): T {
    const value = this.object[key];
    if (value === undefined && fallback !== undefined) return fallback;
    if (typeof value !== 'string' || !values.includes(value as T)) {
      this.#bad(key, `one of ${values.join(', ')}`);
      return fallback ?? values[0];
    }
    return value as T;
  }

  exchangeIndex(key: string, fallback?: ExchangeIndex): ExchangeIndex {
    const value = this.object[key];
    if (value === undefined && fallback !== undefined) return fallback;
    if (value !== 0 && value !== 2 && value !== 3) {
      this.#bad(key, 'exchange index 0, 2 or 3');
      return fallback ?? 0;
    }
    return value;
  }

  /** RFC 3339 timestamp -> Unix ms. */
  time(key: string, fallback?: number | null): number | null {
    const value = this.object[key];
    if ((value === undefined || value === null) && fallback !== undefined) return fallback;
    if (typeof value !== 'string' || !/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/.test(value)) {
      this.#bad(key, 'an RFC 3339 timestamp such as "2026-12-31T23:59:59Z"');
      return 0;
    }
    const ms = Date.parse(value);
    if (!Number.isFinite(ms)) {
      this.#bad(key, 'a valid date');
      return 0;
    }
    return ms;
  }

  price(key: string, fallback: Price): Price {
    const value = this.object[key];
    if (value === undefined) return fallback;
    const price = typeof value === 'string' ? parsePrice(value) : PRICE_INVALID;
    if (price === PRICE_INVALID || price <= 0 || price >= 10_000) {
      this.#bad(key, 'a dollar price string strictly between "0" and "1"');
      return fallback;
    }
    return price;
  }

  multiplier(key: string, nullable: boolean): string | null {
    const value = this.object[key];
    if ((value === undefined || value === null) && nullable) return null;
    if (value === undefined) return '1';
    if (typeof value !== 'string' || parseMultiplier(value) < 0) {
      this.#bad(key, 'a decimal string such as "1" or "0.5"');
      return nullable ? null : '1';
    }
    return value;
  }

  stringArray(key: string): string[] {
    const value = this.object[key];
    if (value === undefined) return [];
    if (!Array.isArray(value) || !value.every((item) => typeof item === 'string')) {
      this.#bad(key, 'an array of strings');
      return [];
    }
    return value as string[];
  }

  sources(key: string): SettlementSource[] {
    const value = this.object[key];
    if (value === undefined) return [];
    if (!Array.isArray(value)) {
      this.#bad(key, 'an array of {name, url}');
      return [];
    }
    const out: SettlementSource[] = [];
    value.forEach((item, i) => {
      const path = `${this.path}.${key}[${i}]`;
      if (!isObject(item)) {
        this.problems.push(`${path}: expected an object {name, url}`);
        return;
      }
      const reader = new Reader(this.problems, path, item, ['name', 'url']);
      out.push({ name: reader.string('name'), url: reader.string('url') });
    });
    return out;
  }
}

function isObject(value: unknown): value is Obj {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function arrayAt(problems: string[], root: Obj, key: string): Obj[] {
  const value = root[key];
  if (!Array.isArray(value)) {
    problems.push(`$.${key}: expected an array`);
    return [];
  }
  const out: Obj[] = [];
  value.forEach((item, i) => {
    if (isObject(item)) out.push(item);
    else problems.push(`$.${key}[${i}]: expected an object`);
  });
  return out;
}

/** A stable uuid-shaped id from a ticker (FNV-1a), for market_id when the catalog gives none. */
export function marketIdFromTicker(ticker: string): string {
  const parts: string[] = [];
  let hash = 0x811c9dc5;
  for (let round = 0; round < 4; round++) {
    for (let i = 0; i < ticker.length; i++) {
      hash ^= ticker.charCodeAt(i);
      hash = Math.imul(hash, 0x01000193) >>> 0;
    }
    hash = Math.imul(hash ^ round, 0x01000193) >>> 0;
    parts.push(hash.toString(16).padStart(8, '0'));
  }
  const hex = parts.join('');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-4${hex.slice(13, 16)}-8${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
}

/** Validates already-parsed JSON (same format as the file). Throws CatalogError. */
export function parseCatalog(json: unknown, source = 'catalog'): Catalog {
  const problems: string[] = [];
  if (!isObject(json)) throw new CatalogError(source, ['$: expected an object {series, events, markets}']);
  for (const key of Object.keys(json)) {
    if (key !== 'series' && key !== 'events' && key !== 'markets' && key !== 'collections' && key !== '$comment') problems.push(`$.${key}: unknown key`);
  }
  const series = arrayAt(problems, json, 'series').map((item, i) => readSeries(problems, `$.series[${i}]`, item));
  const seriesByTicker = new Map<string, SeriesSpec>();
  series.forEach((s, i) => {
    if (seriesByTicker.has(s.ticker)) problems.push(`$.series[${i}].ticker: duplicate ${s.ticker}`);
    seriesByTicker.set(s.ticker, s);
  });
  const events = arrayAt(problems, json, 'events').map((item, i) => readEvent(problems, `$.events[${i}]`, item, seriesByTicker));
  const eventsByTicker = new Map<string, EventSpec>();
  events.forEach((e, i) => {
    if (eventsByTicker.has(e.eventTicker)) problems.push(`$.events[${i}].event_ticker: duplicate ${e.eventTicker}`);
    eventsByTicker.set(e.eventTicker, e);
  });
  const markets = arrayAt(problems, json, 'markets').map((item, i) => readMarket(problems, `$.markets[${i}]`, item, eventsByTicker));
  const tickers = new Set<string>();
  markets.forEach((m, i) => {
    if (tickers.has(m.ticker)) problems.push(`$.markets[${i}].ticker: duplicate ${m.ticker}`);
    tickers.add(m.ticker);
  });
  if (markets.length === 0 && problems.length === 0) problems.push('$.markets: at least one market is required');
  // Collections are optional (catalogs written before combo markets have none).
  const collections = json.collections === undefined ? [] : arrayAt(problems, json, 'collections').map((item, i) => readCollection(problems, `$.collections[${i}]`, item, seriesByTicker, eventsByTicker));
  const collectionTickers = new Set<string>();
  collections.forEach((c, i) => {
    if (collectionTickers.has(c.collectionTicker)) problems.push(`$.collections[${i}].collection_ticker: duplicate ${c.collectionTicker}`);
    collectionTickers.add(c.collectionTicker);
  });
  if (problems.length > 0) throw new CatalogError(source, problems);
  return { series, events, markets, collections };
}

const COLLECTION_KEYS = ['collection_ticker', 'series_ticker', 'title', 'description', 'open_date', 'close_date', 'associated_events', 'is_ordered', 'size_min', 'size_max', 'functional_description'];
const ASSOCIATED_EVENT_KEYS = ['ticker', 'is_yes_only', 'size_min', 'size_max'];

/**
 * A multivariate event collection: its combo markets belong to `series_ticker` (exchange index and
 * fees come from it); legs come from the markets of `associated_events`.
 */
function readCollection(problems: string[], path: string, object: Obj, series: Map<string, SeriesSpec>, events: Map<string, EventSpec>): CollectionSpec {
  const r = new Reader(problems, path, object, COLLECTION_KEYS);
  const seriesTicker = r.ticker('series_ticker');
  if (seriesTicker !== '' && !series.has(seriesTicker)) problems.push(`${path}.series_ticker: no series ${seriesTicker} in $.series`);
  const associated: CollectionEventSpec[] = [];
  const list = object.associated_events;
  if (!Array.isArray(list) || list.length === 0) problems.push(`${path}.associated_events: expected a non-empty array`);
  else {
    list.forEach((item, i) => {
      const itemPath = `${path}.associated_events[${i}]`;
      if (!isObject(item)) {
        problems.push(`${itemPath}: expected an object`);
        return;
      }
      const e = new Reader(problems, itemPath, item, ASSOCIATED_EVENT_KEYS);
      const ticker = e.ticker('ticker');
      if (ticker !== '' && !events.has(ticker)) problems.push(`${itemPath}.ticker: no event ${ticker} in $.events`);
      associated.push({
        eventTicker: ticker,
        isYesOnly: e.boolean('is_yes_only', false),
        sizeMin: item.size_min === undefined || item.size_min === null ? null : e.integer('size_min', undefined, 0, 100),
        sizeMax: item.size_max === undefined || item.size_max === null ? null : e.integer('size_max', undefined, 1, 100),
      });
    });
  }
  const sizeMin = r.integer('size_min', 2, 1, 100);
  const sizeMax = r.integer('size_max', 10, 1, 100);
  if (sizeMin > sizeMax) problems.push(`${path}.size_min: above size_max`);
  const openMs = r.time('open_date') ?? 0;
  const closeMs = r.time('close_date') ?? 0;
  if (openMs > closeMs) problems.push(`${path}.close_date: before open_date`);
  return {
    collectionTicker: r.ticker('collection_ticker'),
    seriesTicker,
    title: r.string('title'),
    description: r.string('description', ''),
    openTimeMs: openMs,
    closeTimeMs: closeMs,
    associatedEvents: associated,
    isOrdered: r.boolean('is_ordered', false),
    sizeMin,
    sizeMax,
    functionalDescription: r.string('functional_description', ''),
  };
}

const SERIES_KEYS = ['ticker', 'title', 'category', 'frequency', 'tags', 'settlement_sources', 'contract_url', 'contract_terms_url', 'fee_type', 'fee_multiplier', 'exchange_index'];

function readSeries(problems: string[], path: string, object: Obj): SeriesSpec {
  const r = new Reader(problems, path, object, SERIES_KEYS);
  return {
    ticker: r.ticker('ticker'),
    title: r.string('title'),
    category: r.string('category', ''),
    frequency: r.string('frequency', 'custom'),
    tags: r.stringArray('tags'),
    settlementSources: r.sources('settlement_sources'),
    contractUrl: r.string('contract_url', ''),
    contractTermsUrl: r.string('contract_terms_url', ''),
    feeType: r.oneOf('fee_type', FEE_TYPES, 'quadratic'),
    feeMultiplier: r.multiplier('fee_multiplier', false) ?? '1',
    exchangeIndex: r.exchangeIndex('exchange_index', 0),
  };
}

const EVENT_KEYS = ['event_ticker', 'series_ticker', 'title', 'sub_title', 'collateral_return_type', 'mutually_exclusive', 'category', 'strike_date', 'strike_period', 'settlement_sources', 'product_metadata', 'fee_type_override', 'fee_multiplier_override', 'exchange_index'];

function readEvent(problems: string[], path: string, object: Obj, series: Map<string, SeriesSpec>): EventSpec {
  const r = new Reader(problems, path, object, EVENT_KEYS);
  const seriesTicker = r.ticker('series_ticker');
  const owner = series.get(seriesTicker);
  if (seriesTicker !== '' && owner === undefined) problems.push(`${path}.series_ticker: no series ${seriesTicker} in $.series`);
  const strikeDate = r.time('strike_date', null);
  const feeTypeOverride = object.fee_type_override === undefined || object.fee_type_override === null ? null : r.oneOf('fee_type_override', FEE_TYPES);
  return {
    eventTicker: r.ticker('event_ticker'),
    seriesTicker,
    title: r.string('title'),
    subTitle: r.string('sub_title', ''),
    collateralReturnType: r.string('collateral_return_type', ''),
    mutuallyExclusive: r.boolean('mutually_exclusive', false),
    category: r.string('category', owner?.category ?? ''),
    strikeDate: strikeDate === null ? null : Math.floor(strikeDate / 1000),
    strikePeriod: r.string('strike_period', ''),
    settlementSources: r.sources('settlement_sources'),
    productMetadata: r.nullableObject('product_metadata'),
    feeTypeOverride,
    feeMultiplierOverride: r.multiplier('fee_multiplier_override', true),
    exchangeIndex: r.exchangeIndex('exchange_index', owner?.exchangeIndex ?? 0),
  };
}

const MARKET_KEYS = ['ticker', 'event_ticker', 'market_id', 'market_type', 'title', 'subtitle', 'yes_sub_title', 'no_sub_title', 'status', 'exchange_index', 'price_level_structure', 'price_ranges', 'open_time', 'close_time', 'expected_expiration_time', 'latest_expiration_time', 'settlement_timer_seconds', 'can_close_early', 'rules_primary', 'rules_secondary', 'strike_type', 'floor_strike', 'cap_strike', 'custom_strike', 'initial_fair_price'];

function readMarket(problems: string[], path: string, object: Obj, events: Map<string, EventSpec>): MarketSpec {
  const r = new Reader(problems, path, object, MARKET_KEYS);
  const ticker = r.ticker('ticker');
  const eventTicker = r.ticker('event_ticker');
  const event = events.get(eventTicker);
  if (eventTicker !== '' && event === undefined) problems.push(`${path}.event_ticker: no event ${eventTicker} in $.events`);
  const exchangeIndex = r.exchangeIndex('exchange_index', event?.exchangeIndex ?? 0);
  if (event !== undefined && exchangeIndex !== event.exchangeIndex) {
    problems.push(`${path}.exchange_index: ${exchangeIndex} differs from its event's exchange_index ${event.exchangeIndex}`);
  }
  const structureValue = object.price_level_structure;
  let structure: PriceLevelStructure = 'linear_cent';
  if (typeof structureValue === 'string' && isPriceLevelStructure(structureValue)) structure = structureValue;
  else problems.push(`${path}.price_level_structure: expected a price level structure such as "linear_cent", got ${JSON.stringify(structureValue)}`);
  let ranges: PriceRangeText[] | null = null;
  if (object.price_ranges !== undefined && object.price_ranges !== null) {
    try {
      PriceGrid.fromPriceRanges(object.price_ranges as PriceRangeText[]);
      ranges = (object.price_ranges as PriceRangeText[]).map((b) => ({ start: b.start, end: b.end, step: b.step }));
    } catch (error) {
      if (!(error instanceof GridError)) throw error;
      problems.push(`${path}.price_ranges: ${error.message}`);
    }
  }
  const openTime = r.time('open_time', 0) ?? 0;
  const closeTime = r.time('close_time') ?? 0;
  if (closeTime !== 0 && openTime > closeTime) problems.push(`${path}.close_time: before open_time`);
  const grid = ranges !== null ? safeGrid(structure, ranges) : PriceGrid.fromStructure(structure);
  const fair = r.price('initial_fair_price', 5000 as Price);
  return {
    ticker,
    eventTicker,
    marketId: r.string('market_id', marketIdFromTicker(ticker)),
    marketType: r.oneOf('market_type', ['binary', 'scalar'] as const, 'binary'),
    title: r.string('title', ''),
    subtitle: r.string('subtitle', ''),
    yesSubTitle: r.string('yes_sub_title', ''),
    noSubTitle: r.string('no_sub_title', ''),
    status: r.oneOf('status', MARKET_STATUSES),
    exchangeIndex,
    priceLevelStructure: structure,
    priceRanges: ranges,
    openTimeMs: openTime,
    closeTimeMs: closeTime,
    expectedExpirationTimeMs: r.time('expected_expiration_time', null),
    latestExpirationTimeMs: r.time('latest_expiration_time', closeTime) ?? closeTime,
    settlementTimerSeconds: r.integer('settlement_timer_seconds', 60, 0, 86_400 * 365),
    canCloseEarly: r.boolean('can_close_early', false),
    rulesPrimary: r.string('rules_primary', ''),
    rulesSecondary: r.string('rules_secondary', ''),
    strikeType: r.nullableString('strike_type'),
    floorStrike: r.nullableNumber('floor_strike'),
    capStrike: r.nullableNumber('cap_strike'),
    customStrike: r.nullableObject('custom_strike'),
    initialFairPrice: grid === null ? fair : grid.snap(fair, 'nearest'),
  };
}

function safeGrid(structure: PriceLevelStructure, ranges: PriceRangeText[]): PriceGrid | null {
  try {
    return PriceGrid.forMarket(structure, ranges);
  } catch {
    return null;
  }
}
