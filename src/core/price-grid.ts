/**
 * Price grids: the set of prices a market trades at, from its `price_ranges` (the authority) or,
 * when those are absent, from the grid its `price_level_structure` names (spec/interface-spec.md).
 * A grid numbers its tradable prices strictly between $0 and $1 as levels 0..levelCount-1
 * ascending, and answers level <-> price, validity and snapping in O(1) through tables built once;
 * order books index their arrays by that level. Grids are immutable and shared: one instance per
 * structure and per distinct set of bands. This file never holds book or order state.
 *
 * Bands are inclusive at both ends and may touch ("0.00-0.10 step 0.001" then "0.10-0.90 step
 * 0.01" both contain $0.10); the grid is the union of their prices, less $0 and $1.
 *
 * tapered_deci_cent: the spec leaves its bands open. We assume $0.001 ticks in the edge bands
 * $0.00-$0.10 and $0.90-$1.00 and $0.01 in the centre $0.10-$0.90, which is what the exchange's
 * fixed-point migration page states (docs.kalshi.com/getting_started/fixed_point_migration,
 * "Price Level Structures" table). A market's price_ranges, when sent, override this.
 */

import { formatPrice, parsePrice, PRICE_INVALID, PRICE_ONE, type Price } from './units.ts';
import { nearer, type LevelGrid } from './tick-grid.ts';

export type PriceLevelStructure =
  | 'linear_cent'
  | 'deci_cent'
  | 'tapered_deci_cent'
  | 'center_deci_edge_centi_cent'
  | 'center_whole_edge_half_cent'
  | 'center_whole_edge_quint_cent'
  | 'center_half_edge_half_cent'
  | 'center_half_edge_quint_cent'
  | 'center_half_edge_deci_cent'
  | 'center_quint_edge_quint_cent'
  | 'center_quint_edge_deci_cent';

/** Wire form of one band: dollar strings ("0.1000"). */
export interface PriceRangeText {
  start: string;
  end: string;
  step: string;
}

/** One band in Price units, inclusive at both ends. */
export interface PriceBand {
  start: Price;
  end: Price;
  step: Price;
}

/** A failure a caller may branch on: price_ranges or a structure name that cannot form a grid. */
export class GridError extends Error {
  readonly code: 'GRID_INVALID' = 'GRID_INVALID';
  constructor(message: string) {
    super(message);
    this.name = 'GridError';
  }
}

// Tick sizes in Price units (1/10,000 dollar) of the center_{c}_edge_{e}_cent names.
const WHOLE = 100; // 1 cent
const HALF = 50; // 0.5 cent
const QUINT = 20; // 0.2 cent
const DECI = 10; // 0.1 cent
const EDGE_LOW_END = 1_000; // $0.10
const EDGE_HIGH_START = 9_000; // $0.90

function band(start: number, end: number, step: number): PriceBand {
  return { start: start as Price, end: end as Price, step: step as Price };
}

/** Edge bands $0.00-$0.10 and $0.90-$1.00 at `edge`, centre band $0.10-$0.90 at `center`. */
function centerEdge(center: number, edge: number): PriceBand[] {
  return [band(0, EDGE_LOW_END, edge), band(EDGE_LOW_END, EDGE_HIGH_START, center), band(EDGE_HIGH_START, PRICE_ONE, edge)];
}

const STRUCTURE_BANDS = {
  linear_cent: [band(0, PRICE_ONE, WHOLE)],
  deci_cent: [band(0, PRICE_ONE, DECI)],
  tapered_deci_cent: centerEdge(WHOLE, DECI), // assumption, see the file comment
  // $0.0001 below $0.01 and above $0.99, $0.001 between (combo markets).
  center_deci_edge_centi_cent: [band(0, 100, 1), band(100, 9_900, DECI), band(9_900, PRICE_ONE, 1)],
  center_whole_edge_half_cent: centerEdge(WHOLE, HALF),
  center_whole_edge_quint_cent: centerEdge(WHOLE, QUINT),
  center_half_edge_half_cent: centerEdge(HALF, HALF),
  center_half_edge_quint_cent: centerEdge(HALF, QUINT),
  center_half_edge_deci_cent: centerEdge(HALF, DECI),
  center_quint_edge_quint_cent: centerEdge(QUINT, QUINT),
  center_quint_edge_deci_cent: centerEdge(QUINT, DECI),
} as const satisfies Record<PriceLevelStructure, readonly PriceBand[]>;

export const PRICE_LEVEL_STRUCTURES: readonly PriceLevelStructure[] = Object.freeze(
  Object.keys(STRUCTURE_BANDS) as PriceLevelStructure[],
);

export function isPriceLevelStructure(value: unknown): value is PriceLevelStructure {
  return typeof value === 'string' && Object.prototype.hasOwnProperty.call(STRUCTURE_BANDS, value);
}

function bandsKey(bands: readonly PriceBand[]): string {
  let key = '';
  for (const b of bands) key += `${b.start}:${b.end}:${b.step};`;
  return key;
}

// Grids built from price_ranges that match no structure, by canonical key.
const gridsByKey = new Map<string, PriceGrid>();
// Structure grids are built on first use; this maps their keys so equal price_ranges share them.
const STRUCTURE_BY_KEY = new Map<string, PriceLevelStructure>(
  PRICE_LEVEL_STRUCTURES.map((structure) => [bandsKey(STRUCTURE_BANDS[structure]), structure]),
);
const gridsByStructure = new Map<PriceLevelStructure, PriceGrid>();
const constructing = Symbol('PriceGrid.construct');

export class PriceGrid implements LevelGrid {
  readonly bands: readonly PriceBand[];
  /** Tradable prices strictly between $0 and $1. */
  readonly levelCount: number;
  readonly minPrice: Price;
  readonly maxPrice: Price;
  /** The structure this grid was built from, or null when built from price_ranges. */
  readonly structure: PriceLevelStructure | null;
  /** Canonical text of the bands: equal keys mean equal grids. */
  readonly key: string;
  // level -> price.
  readonly #prices: Int32Array;
  // price (0..10_000) -> level, -1 when not tradable. 40 KB per distinct grid, shared by its books.
  readonly #levels: Int32Array;
  // price (0..10_000) -> level of the greatest tradable price <= it, -1 when none: snapping.
  readonly #floorLevels: Int32Array;

  private constructor(token: symbol, bands: readonly PriceBand[], structure: PriceLevelStructure | null) {
    if (token !== constructing) throw new TypeError('PriceGrid: use fromPriceRanges, fromStructure or forMarket');
    this.bands = Object.freeze(bands.map((b) => Object.freeze({ start: b.start, end: b.end, step: b.step })));
    this.structure = structure;
    this.key = bandsKey(bands);
    const tradable = new Uint8Array(PRICE_ONE + 1);
    for (const b of bands) {
      for (let price = b.start as number; price <= b.end; price += b.step) {
        if (price > 0 && price < PRICE_ONE) tradable[price] = 1;
      }
    }
    let levelCount = 0;
    for (let price = 1; price < PRICE_ONE; price++) levelCount += tradable[price];
    if (levelCount === 0) throw new GridError('price grid has no tradable price strictly between $0 and $1');
    this.levelCount = levelCount;
    this.#prices = new Int32Array(levelCount);
    this.#levels = new Int32Array(PRICE_ONE + 1).fill(-1);
    this.#floorLevels = new Int32Array(PRICE_ONE + 1);
    let level = -1;
    for (let price = 0; price <= PRICE_ONE; price++) {
      if (tradable[price] === 1) {
        level++;
        this.#prices[level] = price;
        this.#levels[price] = level;
      }
      this.#floorLevels[price] = level;
    }
    this.minPrice = this.#prices[0] as Price;
    this.maxPrice = this.#prices[levelCount - 1] as Price;
    Object.freeze(this);
  }

  /**
   * The grid of a market's price_ranges (wire strings). Identical bands give the same instance, and
   * bands equal to a structure's give that structure's instance. Throws GridError.
   */
  static fromPriceRanges(ranges: readonly PriceRangeText[]): PriceGrid {
    const bands = parseRanges(ranges);
    const key = bandsKey(bands);
    const structure = STRUCTURE_BY_KEY.get(key);
    if (structure !== undefined) return PriceGrid.fromStructure(structure);
    let grid = gridsByKey.get(key);
    if (grid === undefined) {
      grid = new PriceGrid(constructing, bands, null);
      gridsByKey.set(key, grid);
    }
    return grid;
  }

  /** The grid a price_level_structure names; one shared instance per structure. Throws GridError for an unknown name. */
  static fromStructure(structure: PriceLevelStructure): PriceGrid {
    let grid = gridsByStructure.get(structure);
    if (grid !== undefined) return grid;
    if (!isPriceLevelStructure(structure)) throw new GridError(`unknown price_level_structure ${JSON.stringify(structure)}`);
    grid = new PriceGrid(constructing, STRUCTURE_BANDS[structure], structure);
    gridsByStructure.set(structure, grid);
    return grid;
  }

  /** A market's grid: its price_ranges when present and non-empty (the authority), else its structure's grid. */
  static forMarket(structure: PriceLevelStructure, ranges?: readonly PriceRangeText[] | null): PriceGrid {
    if (ranges !== undefined && ranges !== null && ranges.length > 0) return PriceGrid.fromPriceRanges(ranges);
    return PriceGrid.fromStructure(structure);
  }

  /** Price of `level` (0 = lowest); PRICE_INVALID when the level does not exist. */
  priceAt(level: number): Price {
    if (level >= 0 && level < this.levelCount) return this.#prices[level] as Price;
    return PRICE_INVALID;
  }

  /** Level of a tradable price; -1 when off tick, outside every band, <= $0, >= $1 or not an integer. */
  levelOf(price: Price): number {
    if (price > 0 && price < PRICE_ONE && (price | 0) === price) return this.#levels[price];
    return -1;
  }

  contains(price: Price): boolean {
    return this.levelOf(price) !== -1;
  }

  /**
   * The tradable price nearest `price` in `direction` ('down': greatest <= price, 'up': least >=
   * price, 'nearest': closer of the two, ties going down). PRICE_INVALID when none exists that way.
   */
  snap(price: Price, direction: 'down' | 'up' | 'nearest'): Price {
    if (price !== price) return PRICE_INVALID; // NaN
    if (direction === 'down') return this.#snapDown(price);
    if (direction === 'up') return this.#snapUp(price);
    return nearer(price, this.#snapDown(price), this.#snapUp(price));
  }

  #snapDown(price: number): Price {
    if (price >= this.maxPrice) return this.maxPrice;
    if (price < this.minPrice) return PRICE_INVALID;
    return this.#prices[this.#floorLevels[Math.floor(price)]] as Price;
  }

  #snapUp(price: number): Price {
    if (price <= this.minPrice) return this.minPrice;
    if (price > this.maxPrice) return PRICE_INVALID;
    const whole = Math.ceil(price);
    const level = this.#levels[whole];
    return this.#prices[level !== -1 ? level : this.#floorLevels[whole] + 1] as Price;
  }

  /** The bands as wire strings with 4 decimals, for REST and WS output. */
  toPriceRanges(): PriceRangeText[] {
    return this.bands.map((b) => ({ start: formatPrice(b.start), end: formatPrice(b.end), step: formatPrice(b.step) }));
  }

  /** True when every price of `other` is a price of this grid (this is finer or equal). */
  includesGrid(other: PriceGrid): boolean {
    if (other === this) return true;
    for (let level = 0; level < other.levelCount; level++) {
      if (this.levelOf(other.priceAt(level)) === -1) return false;
    }
    return true;
  }
}

function parseRanges(ranges: readonly PriceRangeText[]): PriceBand[] {
  if (!Array.isArray(ranges) || ranges.length === 0) throw new GridError('price_ranges must be a non-empty array');
  const bands: PriceBand[] = [];
  for (let i = 0; i < ranges.length; i++) {
    const range = ranges[i] as Partial<PriceRangeText> | null;
    const where = `price_ranges[${i}]`;
    if (range === null || typeof range !== 'object') throw new GridError(`${where} must be an object {start, end, step}`);
    const start = parseBound(range.start, `${where}.start`);
    const end = parseBound(range.end, `${where}.end`);
    const step = parseBound(range.step, `${where}.step`);
    if (step <= 0) throw new GridError(`${where}.step must be > 0, got ${JSON.stringify(range.step)}`);
    if (start >= end) throw new GridError(`${where}: start ${range.start} must be below end ${range.end}`);
    if (end > PRICE_ONE) throw new GridError(`${where}.end must be <= 1, got ${JSON.stringify(range.end)}`);
    if ((end - start) % step !== 0) throw new GridError(`${where}: end - start is not a multiple of step ${range.step}`);
    const previous = bands[bands.length - 1];
    if (previous !== undefined && start < previous.end) {
      throw new GridError(`${where} starts at ${range.start}, inside the previous band (bands must ascend without overlap)`);
    }
    bands.push(band(start, end, step));
  }
  return bands;
}

function parseBound(text: unknown, where: string): Price {
  const price = typeof text === 'string' ? parsePrice(text) : PRICE_INVALID;
  if (price === PRICE_INVALID) throw new GridError(`${where} must be a dollar string with at most 4 decimals, got ${JSON.stringify(text)}`);
  return price;
}

