/**
 * Rate-limit tiers and their token budgets (spec/rest.md §9). Each tier has a read and a write
 * bucket; refill is tokens per second, capacity the most a bucket holds. This file owns the
 * numbers only; buckets and costs live beside it.
 *
 * Documented (rest.md §9, newer token docs): Basic 200/100, Advanced 300/300, Premier 1000/1000,
 * Paragon 2000/2000, Prime 4000/4000 tokens per second; write capacity is two seconds of budget on
 * non-Basic tiers, read capacity one second (implied). Basic write capacity: one second (the
 * two-second rule is stated only for non-Basic tiers).
 * Not documented (our choice, README): `expert` sits between Advanced and Premier at 600/600,
 * `prestige` above Prime at 8000/8000, both with the non-Basic capacities.
 */

export type RateLimitTier = 'basic' | 'advanced' | 'expert' | 'premier' | 'paragon' | 'prime' | 'prestige';

export const RATE_LIMIT_TIERS: readonly RateLimitTier[] = ['basic', 'advanced', 'expert', 'premier', 'paragon', 'prime', 'prestige'];

export interface BucketBudget {
  /** Tokens added per second. */
  readonly refillPerSecond: number;
  /** Most tokens the bucket holds (burst). */
  readonly capacity: number;
}

export interface TierBudget {
  readonly read: BucketBudget;
  readonly write: BucketBudget;
}

function nonBasic(perSecond: number): TierBudget {
  return {
    read: { refillPerSecond: perSecond, capacity: perSecond },
    write: { refillPerSecond: perSecond, capacity: perSecond * 2 },
  };
}

export const TIER_BUDGETS: Readonly<Record<RateLimitTier, TierBudget>> = {
  basic: { read: { refillPerSecond: 200, capacity: 200 }, write: { refillPerSecond: 100, capacity: 100 } },
  advanced: nonBasic(300),
  expert: nonBasic(600),
  premier: nonBasic(1000),
  paragon: nonBasic(2000),
  prime: nonBasic(4000),
  prestige: nonBasic(8000),
};

export function isRateLimitTier(value: unknown): value is RateLimitTier {
  return typeof value === 'string' && (RATE_LIMIT_TIERS as readonly string[]).includes(value);
}

/**
 * Trailing 30-day volume goals of the volume-based tiers (interface-spec: Premier, Paragon and
 * Prime are earned from volume; qualification requirements were halved). The exchange publishes no
 * numbers: these are the simulator's choice, in Count units (1/100 contract). `earn` reaches the
 * tier, `keep` holds it at the next review.
 */
export interface VolumeGoal {
  readonly level: RateLimitTier;
  readonly earnCount: number;
  readonly keepCount: number;
}

export const VOLUME_GOALS: readonly VolumeGoal[] = [
  { level: 'expert', earnCount: 50_000 * 100, keepCount: 40_000 * 100 },
  { level: 'premier', earnCount: 250_000 * 100, keepCount: 200_000 * 100 },
  { level: 'paragon', earnCount: 1_000_000 * 100, keepCount: 800_000 * 100 },
  { level: 'prime', earnCount: 2_500_000 * 100, keepCount: 2_000_000 * 100 },
  { level: 'prestige', earnCount: 10_000_000 * 100, keepCount: 8_000_000 * 100 },
];

/**
 * Perps (Margin) lane budgets for GET /account/limits/perps: Basic as captured on the margin
 * surface (rest.md §9 [WIRE]: read 400/400, write 100/100); other tiers as the Predictions lane.
 */
export const PERPS_TIER_BUDGETS: Readonly<Record<RateLimitTier, TierBudget>> = {
  ...TIER_BUDGETS,
  basic: { read: { refillPerSecond: 400, capacity: 400 }, write: { refillPerSecond: 100, capacity: 100 } },
};
