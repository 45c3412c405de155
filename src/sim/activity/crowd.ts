/**
 * The synthetic crowd both activity generators share (market-activity.ts on Predictions,
 * margin-activity.ts on Margin): the seeded random source, the roster of maker and taker user ids,
 * the knobs (quotes per side, taker and drift chances, quote sizes) with their defaults, and the
 * draws every flow makes the same way: which action comes next, a mean-reverting fair-value step,
 * a whole-contract size, and which resting quote a maker drops. It owns no engine and no market:
 * each generator places the orders on its own exchange. Draw order is part of the contract (the
 * same seed must give the same events), so a helper draws exactly what the code it replaced drew.
 */

import { SeededRandom } from '../engine/index.ts';

export interface CrowdOptions {
  seed: number;
  /** Synthetic market makers (shared by all markets). Default 3. */
  makers?: number;
  /** Resting quotes per maker per side per market. Default 3. */
  quotesPerSide?: number;
  /** Chance per action that a taker crosses, in 1/1000. Default 60. */
  takerPerMille?: number;
  /** Chance per action that the fair value moves one step, in 1/1000. Default 80. */
  driftPerMille?: number;
  /** Quote size range, whole contracts. Default 1..the generator's maximum. */
  quoteContractsMin?: number;
  quoteContractsMax?: number;
  /** User id prefix for the synthetic participants. Default: the generator's. */
  userPrefix?: string;
}

/** What one action does. */
export const CrowdAction = { DRIFT: 0, TAKE: 1, REQUOTE: 2 } as const;
export type CrowdAction = (typeof CrowdAction)[keyof typeof CrowdAction];

/** Takers per crowd (fixed: the crossing flow needs no more to look alive). */
const TAKERS = 2;

export class Crowd {
  readonly random: SeededRandom;
  readonly makerIds: readonly string[];
  readonly takerIds: readonly string[];
  /** Makers then takers. */
  readonly userIds: readonly string[];
  readonly quotesPerSide: number;
  readonly #takerPerMille: number;
  readonly #driftPerMille: number;
  readonly #sizeMin: number;
  readonly #sizeSpan: number;

  constructor(options: CrowdOptions, defaults: { userPrefix: string; quoteContractsMax: number }) {
    this.random = new SeededRandom(options.seed);
    const makers = options.makers ?? 3;
    const prefix = options.userPrefix ?? defaults.userPrefix;
    this.quotesPerSide = options.quotesPerSide ?? 3;
    this.#takerPerMille = options.takerPerMille ?? 60;
    this.#driftPerMille = options.driftPerMille ?? 80;
    const min = options.quoteContractsMin ?? 1;
    const max = options.quoteContractsMax ?? defaults.quoteContractsMax;
    this.#sizeMin = min;
    this.#sizeSpan = Math.max(1, max - min + 1);
    const makerIds: string[] = [];
    const takerIds: string[] = [];
    for (let m = 0; m < makers; m++) makerIds.push(`${prefix}-maker-${m}`);
    for (let t = 0; t < TAKERS; t++) takerIds.push(`${prefix}-taker-${t}`);
    this.makerIds = makerIds;
    this.takerIds = takerIds;
    this.userIds = [...makerIds, ...takerIds];
  }

  /** The next action: a drift, a taker crossing, or (most often) a maker requoting. */
  nextAction(): CrowdAction {
    const roll = this.random.nextInt(1000);
    if (roll < this.#driftPerMille) return CrowdAction.DRIFT;
    return roll < this.#driftPerMille + this.#takerPerMille ? CrowdAction.TAKE : CrowdAction.REQUOTE;
  }

  /**
   * One step (-1 or +1) of a mean-reverting walk `distance` away from its anchor: a step back toward
   * the anchor has chance 500 + min(400, pullPerMille) in 1000, so a long run stays plausible
   * instead of pinning at the edges; at the anchor either way is even.
   */
  revertingStep(distance: number, pullPerMille: number): -1 | 1 {
    const random = this.random;
    const toward = random.nextInt(1000) < 500 + Math.min(400, pullPerMille);
    if (distance === 0) return random.nextInt(2) === 0 ? -1 : 1;
    return (distance > 0) === toward ? -1 : 1;
  }

  /** A quote size in whole contracts, uniform over the configured range. */
  wholeContracts(): number {
    return this.#sizeMin + this.random.nextInt(this.#sizeSpan);
  }

  /**
   * Forgets a maker's quotes (oldest first) that no longer rest (filled or cancelled) and, when the
   * side is full, takes out and returns the stalest for the caller to cancel; else null.
   */
  staleQuote<T extends { readonly status: string }>(quotes: T[]): T | null {
    for (let i = quotes.length - 1; i >= 0; i--) if (quotes[i].status !== 'resting') quotes.splice(i, 1);
    return quotes.length >= this.quotesPerSide ? (quotes.shift() as T) : null;
  }
}
