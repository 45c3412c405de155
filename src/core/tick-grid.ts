/**
 * Price grids for perpetual (Margin) markets, and the grid interface order books and strategies
 * use for both kinds of market.
 *
 * A perpetual's price is unbounded above (Price units, 1/10,000 dollar: $100,000.00 = 1e9) and
 * trades on a fixed tick (100 = $0.01). A dense table over every possible price is impossible, so a
 * TickGrid numbers only a window of `levelCount` consecutive ticks starting at `base`:
 * priceAt(level) = base + level * tick. Conversions are integer arithmetic (remainders, never a
 * rounded quotient). A TickGrid is immutable: a book whose window moves gets a new one
 * (`recentred`), so read `book.grid` afresh rather than keeping it. Never holds book or order state.
 */

import { PRICE_INVALID, type Price } from './units.ts';

/**
 * What OrderBook and strategies need of a grid: levels 0..levelCount-1 ascending in price, and
 * level <-> price, validity and snapping. PriceGrid (binary markets) and TickGrid (perpetuals)
 * implement it.
 */
export interface LevelGrid {
  readonly levelCount: number;
  readonly minPrice: Price;
  readonly maxPrice: Price;
  /** Canonical text: equal keys mean equal grids. */
  readonly key: string;
  /** Price of `level`; PRICE_INVALID when the level does not exist. */
  priceAt(level: number): Price;
  /** Level of a price; -1 when it is not one of the grid's prices. */
  levelOf(price: Price): number;
  contains(price: Price): boolean;
  /** The grid price nearest `price` in `direction`; PRICE_INVALID when none exists that way. */
  snap(price: Price, direction: 'down' | 'up' | 'nearest'): Price;
}

export class TickGrid implements LevelGrid {
  /** Price step, > 0. */
  readonly tick: number;
  /** Price of level 0: a positive multiple of tick. */
  readonly base: Price;
  readonly levelCount: number;
  readonly minPrice: Price;
  readonly maxPrice: Price;
  readonly key: string;

  /** Throws RangeError unless tick, base and levelCount are positive safe integers with base % tick === 0. */
  constructor(tick: number, base: number, levelCount: number) {
    if (!Number.isSafeInteger(tick) || tick <= 0) throw new RangeError(`TickGrid: tick must be a positive safe integer, got ${tick}`);
    if (!Number.isSafeInteger(base) || base <= 0 || base % tick !== 0) throw new RangeError(`TickGrid: base must be a positive multiple of tick ${tick}, got ${base}`);
    if (!Number.isSafeInteger(levelCount) || levelCount <= 0) throw new RangeError(`TickGrid: levelCount must be a positive integer, got ${levelCount}`);
    const maxPrice = base + (levelCount - 1) * tick;
    if (!Number.isSafeInteger(maxPrice)) throw new RangeError('TickGrid: window passes 2^53');
    this.tick = tick;
    this.base = base as Price;
    this.levelCount = levelCount;
    this.minPrice = base as Price;
    this.maxPrice = maxPrice as Price;
    this.key = `tick:${tick}:${base}:${levelCount}`;
    Object.freeze(this);
  }

  /** The window of `levelCount` ticks whose middle level is at (or, clamped at the first tick, near) `centre` snapped down to the tick. */
  static around(tick: number, centre: number, levelCount: number): TickGrid {
    return new TickGrid(tick, TickGrid.baseAround(tick, centre, levelCount), levelCount);
  }

  /** The base `around` would use: centre on the tick, minus half the window, never below one tick. */
  static baseAround(tick: number, centre: number, levelCount: number): number {
    const onTick = centre - (centre % tick);
    const base = onTick - Math.floor(levelCount / 2) * tick;
    return base < tick ? tick : base;
  }

  /** Same tick and size, level 0 at `base`. */
  recentred(base: number): TickGrid {
    return base === this.base ? this : new TickGrid(this.tick, base, this.levelCount);
  }

  /** A positive safe integer on the tick: a price this market can trade at (inside the window or not). */
  onTick(price: Price): boolean {
    return price > 0 && Number.isSafeInteger(price) && price % this.tick === 0;
  }

  priceAt(level: number): Price {
    if (level >= 0 && level < this.levelCount && (level | 0) === level) return (this.base + level * this.tick) as Price;
    return PRICE_INVALID;
  }

  /** Level of a price on the tick inside the window; -1 when off the tick, outside the window or not an integer. */
  levelOf(price: Price): number {
    const offset = price - this.base;
    // NaN and fractions leave a non-zero (or NaN) remainder; the quotient of an exact multiple is exact.
    if (offset < 0 || offset % this.tick !== 0) return -1;
    const level = offset / this.tick;
    return level < this.levelCount ? level : -1;
  }

  contains(price: Price): boolean {
    return this.levelOf(price) !== -1;
  }

  /**
   * The window price nearest `price` in `direction` ('down': greatest <= price, 'up': least >=
   * price, 'nearest': closer of the two, ties going down), as PriceGrid.snap does over its range.
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
    const offset = price - this.base;
    return (this.base + (offset - (offset % this.tick))) as Price;
  }

  #snapUp(price: number): Price {
    if (price <= this.minPrice) return this.minPrice;
    if (price > this.maxPrice) return PRICE_INVALID;
    const offset = price - this.base;
    const rest = offset % this.tick;
    return (this.base + (rest === 0 ? offset : offset - rest + this.tick)) as Price;
  }
}

/** The closer of the grid prices below and above `price` (ties go down); either may be PRICE_INVALID. Both grids' snap('nearest'). */
export function nearer(price: number, down: Price, up: Price): Price {
  if (down === PRICE_INVALID) return up;
  if (up === PRICE_INVALID) return down;
  return price - down <= up - price ? down : up;
}
