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
