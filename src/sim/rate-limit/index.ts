/**
 * Public surface of the simulator's rate limiting: tiers, per-endpoint costs, token buckets and
 * the per-caller limiter (spec/rest.md §9).
 */

export { RATE_LIMIT_TIERS, TIER_BUDGETS, PERPS_TIER_BUDGETS, VOLUME_GOALS, isRateLimitTier, type VolumeGoal, type RateLimitTier, type TierBudget, type BucketBudget } from './tiers.ts';
export { TokenBucket } from '../../core/index.ts';
export { API_PREFIX, DEFAULT_COST, NON_DEFAULT_COSTS, bucketOf, costOf, type BucketKind, type EndpointCost } from './endpoint-costs.ts';
export { RateLimiter, type RateLimiterOptions } from './rate-limiter.ts';
