/**
 * Per-caller read and write token buckets (spec/rest.md §9), in two lanes: Predictions (the
 * numbers GET /account/limits reports) and perps, for /margin routes (GET /account/limits/perps;
 * rest.md §9 [WIRE] margin Basic read 400/400). Callers are keyed by API key id
 * (rest.md leaves per-key vs per-account open; per key is our choice) or, for unsigned public
 * requests, by the remote address at the Basic tier. The clock is injected. This file decides
 * admission only; the server turns a refusal into the 429 body.
 */

import { TokenBucket, unreachable } from '../../core/index.ts';
import { PERPS_TIER_BUDGETS, TIER_BUDGETS, type RateLimitTier } from './tiers.ts';
import type { BucketKind } from './endpoint-costs.ts';

interface CallerBuckets {
  tier: RateLimitTier;
  read: TokenBucket;
  write: TokenBucket;
  perpsRead: TokenBucket;
  perpsWrite: TokenBucket;
}

export interface RateLimiterOptions {
  now: () => number;
  /** false switches limiting off (every request admitted). */
  enabled?: boolean;
}

export class RateLimiter {
  readonly #callers = new Map<string, CallerBuckets>();
  readonly #now: () => number;
  enabled: boolean;

  constructor(options: RateLimiterOptions) {
    this.#now = options.now;
    this.enabled = options.enabled ?? true;
  }

  /** Takes `cost` tokens from the caller's bucket; false means answer 429. */
  admit(callerId: string, tier: RateLimitTier, bucket: BucketKind, cost: number): boolean {
    if (!this.enabled) return true;
    const nowMs = this.#now();
    return bucketIn(this.#bucketsOf(callerId, tier, nowMs), bucket).tryTake(cost, nowMs);
  }

  /** Whole tokens left in a caller's bucket (tests, diagnostics). */
  available(callerId: string, tier: RateLimitTier, bucket: BucketKind): number {
    const nowMs = this.#now();
    return bucketIn(this.#bucketsOf(callerId, tier, nowMs), bucket).available(nowMs);
  }

  /** Forgets every caller: buckets start full again. */
  reset(): void {
    this.#callers.clear();
  }

  #bucketsOf(callerId: string, tier: RateLimitTier, nowMs: number): CallerBuckets {
    let buckets = this.#callers.get(callerId);
    if (buckets === undefined || buckets.tier !== tier) {
      // The same tables GET /account/limits and /account/limits/perps report: agreement by construction.
      const budget = TIER_BUDGETS[tier];
      const perps = PERPS_TIER_BUDGETS[tier];
      buckets = {
        tier,
        read: new TokenBucket(budget.read.refillPerSecond, budget.read.capacity, nowMs),
        write: new TokenBucket(budget.write.refillPerSecond, budget.write.capacity, nowMs),
        perpsRead: new TokenBucket(perps.read.refillPerSecond, perps.read.capacity, nowMs),
        perpsWrite: new TokenBucket(perps.write.refillPerSecond, perps.write.capacity, nowMs),
      };
      this.#callers.set(callerId, buckets);
    }
    return buckets;
  }
}

function bucketIn(buckets: CallerBuckets, kind: BucketKind): TokenBucket {
  switch (kind) {
    case 'read':
      return buckets.read;
    case 'write':
      return buckets.write;
    case 'perps_read':
      return buckets.perpsRead;
    case 'perps_write':
      return buckets.perpsWrite;
    default:
      return unreachable(kind);
  }
}
