/**
 * Per-caller read and write token buckets (spec/rest.md §9). Callers are keyed by API key id
 * (rest.md leaves per-key vs per-account open; per key is our choice) or, for unsigned public
 * requests, by the remote address at the Basic tier. The clock is injected. This file decides
 * admission only; the server turns a refusal into the 429 body.
 */

import { TokenBucket } from '../../core/index.ts';
import { TIER_BUDGETS, type RateLimitTier } from './tiers.ts';
import type { BucketKind } from './endpoint-costs.ts';

interface CallerBuckets {
  tier: RateLimitTier;
  read: TokenBucket;
  write: TokenBucket;
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
    const buckets = this.#bucketsOf(callerId, tier, nowMs);
    return (bucket === 'write' ? buckets.write : buckets.read).tryTake(cost, nowMs);
  }

  /** Whole tokens left in a caller's bucket (tests, diagnostics). */
  available(callerId: string, tier: RateLimitTier, bucket: BucketKind): number {
    const nowMs = this.#now();
    const buckets = this.#bucketsOf(callerId, tier, nowMs);
    return (bucket === 'write' ? buckets.write : buckets.read).available(nowMs);
  }

  /** Forgets every caller: buckets start full again. */
  reset(): void {
    this.#callers.clear();
  }

  #bucketsOf(callerId: string, tier: RateLimitTier, nowMs: number): CallerBuckets {
    let buckets = this.#callers.get(callerId);
    if (buckets === undefined || buckets.tier !== tier) {
      const budget = TIER_BUDGETS[tier];
      buckets = {
        tier,
        read: new TokenBucket(budget.read.refillPerSecond, budget.read.capacity, nowMs),
        write: new TokenBucket(budget.write.refillPerSecond, budget.write.capacity, nowMs),
      };
      this.#callers.set(callerId, buckets);
    }
    return buckets;
  }
}
