// Test helper (not a test): a deliberately naive reference book keyed by side and price in a Map,
// plus a seeded PRNG, used to check OrderBook / BookStore against straightforward semantics.
import { PRICE_INVALID, PRICE_ONE, seededRandom, type LevelGrid, type Price } from '../../src/core/index.ts';

/** Reproducible random cases: core's seeded PRNG. */
export const rng = seededRandom;

export function randomInt(random: () => number, below: number): number {
  return Math.floor(random() * below);
}

/** side 0: YES bids keyed by YES price; side 1: NO bids keyed by NO price. Sizes > 0 only. */
export class ReferenceBook {
  readonly levels = [new Map<number, number>(), new Map<number, number>()];

  clear(): void {
    this.levels[0].clear();
    this.levels[1].clear();
  }

  set(side: 0 | 1, price: number, size: number): void {
    if (size === 0) this.levels[side].delete(price);
    else this.levels[side].set(price, size);
  }

  /** Returns false (and changes nothing) when the level would go negative. */
  add(side: 0 | 1, price: number, delta: number): boolean {
    const size = (this.levels[side].get(price) ?? 0) + delta;
    if (size < 0) return false;
    this.set(side, price, size);
    return true;
  }

  size(side: 0 | 1, price: number): number {
    return this.levels[side].get(price) ?? 0;
  }

  bestBid(): number {
    let best = PRICE_INVALID as number;
    for (const price of this.levels[0].keys()) if (price > best) best = price;
    return best;
  }

  /** Best YES ask = 1 - highest NO bid. */
  bestAsk(): number {
    let bestNo = -1;
    for (const price of this.levels[1].keys()) if (price > bestNo) bestNo = price;
    return bestNo === -1 ? PRICE_INVALID : PRICE_ONE - bestNo;
  }

  /** YES bid prices, best first. */
  bidPrices(): number[] {
    return [...this.levels[0].keys()].sort((a, b) => b - a);
  }

  /** YES ask prices (1 - NO price), best (lowest) first. */
  askPrices(): number[] {
    return [...this.levels[1].keys()].map((p) => PRICE_ONE - p).sort((a, b) => a - b);
  }

  /** A random existing level, or null. */
  pick(random: () => number, side: 0 | 1): number | null {
    const keys = [...this.levels[side].keys()];
    return keys.length === 0 ? null : keys[randomInt(random, keys.length)];
  }
}

/** A random tradable price of the grid (as the exchange would send it for that side). */
export function randomGridPrice(random: () => number, grid: LevelGrid, side: 0 | 1): Price {
  const yes = grid.priceAt(randomInt(random, grid.levelCount));
  return (side === 0 ? yes : PRICE_ONE - yes) as Price;
}
