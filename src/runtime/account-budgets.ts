/**
 * The account's REST budgets, decided once at start: the configured tier when one is named
 * (risk.rateLimitTier overrides), else what the exchange reports (GET /account/limits, signed:
 * `read` and `write` as {refill_rate, bucket_capacity}), else Basic when that read fails (the
 * smallest budget: a guess above the account's would earn 429s). Also the venue's endpoint costs
 * (GET /account/endpoint_costs), so the read client charges what the venue charges. Owns the
 * reading, parsing and choosing; the caller applies the result to the gate and the read pacer.
 */

import { EndpointCosts } from '../exec/index.ts';
import { TIER_WRITE_BUDGETS } from '../risk/index.ts';
import type { RateLimitTier } from './config.ts';
import type { ColdReads } from './market-directory.ts';

export interface AccountBudgets {
  /** The tier's name (the exchange's usage_tier, or the configured one). */
  tier: string;
  /** Where the numbers came from. */
  source: 'config' | 'exchange' | 'fallback';
  readPerSecond: number;
  readCapacity: number;
  writePerSecond: number;
  writeCapacity: number;
}

/** A documented tier's budgets (rest.md §9): read holds one second, write its tier's seconds. */
export function tierBudgets(tier: Exclude<RateLimitTier, 'auto'>, source: AccountBudgets['source']): AccountBudgets {
  const budget = TIER_WRITE_BUDGETS[tier];
  return {
    tier,
    source,
    readPerSecond: budget.readTokensPerSecond,
    readCapacity: budget.readTokensPerSecond,
    writePerSecond: budget.writeTokensPerSecond,
    writeCapacity: budget.writeTokensPerSecond * budget.writeCapacitySeconds,
  };
}

/** The budgets to use: the configured tier, or the exchange's answer (one signed read), or Basic. */
export async function readAccountBudgets(reads: ColdReads, apiPrefix: string, configured: RateLimitTier, onError: (error: unknown) => void): Promise<AccountBudgets> {
  if (configured !== 'auto') return tierBudgets(configured, 'config');
  try {
    const body = await reads.get(`${apiPrefix}/account/limits`);
    const parsed = body === null ? null : accountBudgetsFromJson(body);
    if (parsed !== null) return parsed;
    onError(new Error(`GET ${apiPrefix}/account/limits: no read/write {refill_rate, bucket_capacity} in the answer`));
  } catch (error) {
    onError(error);
  }
  return tierBudgets('basic', 'fallback');
}

/** GET /account/limits' answer; null when `read` or `write` is missing or not positive integers. */
export function accountBudgetsFromJson(body: Record<string, unknown>): AccountBudgets | null {
  const read = bucketOf(body.read);
  const write = bucketOf(body.write);
  if (read === null || write === null) return null;
  const tier = typeof body.usage_tier === 'string' ? body.usage_tier : 'unknown';
  return { tier, source: 'exchange', readPerSecond: read.rate, readCapacity: read.capacity, writePerSecond: write.rate, writeCapacity: write.capacity };
}

function bucketOf(node: unknown): { rate: number; capacity: number } | null {
  if (typeof node !== 'object' || node === null) return null;
  const { refill_rate: rate, bucket_capacity: capacity } = node as Record<string, unknown>;
  if (typeof rate !== 'number' || !Number.isSafeInteger(rate) || rate <= 0) return null;
  if (typeof capacity !== 'number' || !Number.isSafeInteger(capacity) || capacity <= 0) return null;
  return { rate, capacity };
}

/** The venue's endpoint costs (public); null when the read fails or the answer is unusable (the default 10 stays). */
export async function readEndpointCosts(reads: ColdReads, apiPrefix: string, onError: (error: unknown) => void): Promise<EndpointCosts | null> {
  try {
    const body = await reads.get(`${apiPrefix}/account/endpoint_costs`);
    return body === null ? null : EndpointCosts.fromJson(body);
  } catch (error) {
    onError(error);
    return null;
  }
}
