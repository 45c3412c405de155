// Goal: the token buckets admit a request only when they hold its whole cost, refill exactly at
// the tier's rate up to its capacity, and keep read and write budgets apart (spec/rest.md §9).
// Method: drive the limiter with a manual clock; no sockets, no timing.

import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../../src/core/index.ts';
import { RateLimiter, TIER_BUDGETS, TokenBucket, bucketOf, costOf } from '../../../src/sim/rate-limit/index.ts';

describe('TokenBucket', () => {
  it('starts full, refuses a cost it cannot pay whole, refills per millisecond up to capacity', () => {
    const bucket = new TokenBucket(100, 100, 0);
    for (let i = 0; i < 10; i++) expect(bucket.tryTake(10, 0)).toBe(true);
    expect(bucket.tryTake(10, 0)).toBe(false);
    expect(bucket.tryTake(1, 9)).toBe(false); // 9 ms at 100/s = 0.9 token
    expect(bucket.tryTake(1, 10)).toBe(true); // 1 token after 10 ms
    expect(bucket.available(10_000)).toBe(100); // capped at capacity
  });

  it('a refused request takes nothing', () => {
    const bucket = new TokenBucket(10, 10, 0);
    expect(bucket.tryTake(7, 0)).toBe(true);
    expect(bucket.tryTake(5, 0)).toBe(false);
    expect(bucket.tryTake(3, 0)).toBe(true);
  });

  it('a clock stepping back mints no tokens', () => {
    const bucket = new TokenBucket(10, 10, 1000);
    expect(bucket.tryTake(10, 1000)).toBe(true);
    expect(bucket.tryTake(1, 500)).toBe(false);
  });
});

describe('RateLimiter', () => {
  it('Basic tier: 10 V2 creates then 429 on the write bucket; reads unaffected', () => {
    const clock = new ManualClock(0);
    const limiter = new RateLimiter({ now: () => clock.nowMs() });
    const create = costOf('POST', '/portfolio/events/orders');
    expect(create).toEqual({ cost: 10, perItem: false });
    for (let i = 0; i < 10; i++) expect(limiter.admit('k', 'basic', 'write', create.cost)).toBe(true);
    expect(limiter.admit('k', 'basic', 'write', create.cost)).toBe(false);
    expect(limiter.admit('k', 'basic', 'read', 10)).toBe(true);
    clock.advance(100); // 100 ms at 100 tokens/s = 10 tokens
    expect(limiter.admit('k', 'basic', 'write', create.cost)).toBe(true);
  });

  it('non-Basic write buckets hold two seconds of budget', () => {
    expect(TIER_BUDGETS.advanced.write).toEqual({ refillPerSecond: 300, capacity: 600 });
    expect(TIER_BUDGETS.basic.write).toEqual({ refillPerSecond: 100, capacity: 100 });
    expect(TIER_BUDGETS.prime.read).toEqual({ refillPerSecond: 4000, capacity: 4000 });
  });

  it('keeps callers apart and can be switched off', () => {
    const limiter = new RateLimiter({ now: () => 0 });
    expect(limiter.admit('a', 'basic', 'write', 100)).toBe(true);
    expect(limiter.admit('a', 'basic', 'write', 2)).toBe(false);
    expect(limiter.admit('b', 'basic', 'write', 100)).toBe(true);
    limiter.enabled = false;
    expect(limiter.admit('a', 'basic', 'write', 1000)).toBe(true);
  });

  it('costs and buckets follow rest.md §9', () => {
    expect(costOf('DELETE', '/portfolio/events/orders/{order_id}').cost).toBe(2);
    expect(costOf('POST', '/portfolio/events/orders/batched')).toEqual({ cost: 10, perItem: true });
    expect(costOf('DELETE', '/portfolio/events/orders/batched')).toEqual({ cost: 2, perItem: true });
    expect(costOf('DELETE', '/portfolio/events/orders').cost).toBe(2);
    expect(costOf('POST', '/portfolio/orders').cost).toBe(100);
    expect(costOf('DELETE', '/portfolio/orders/{order_id}').cost).toBe(20);
    expect(costOf('GET', '/markets').cost).toBe(10);
    expect(bucketOf('GET', '/portfolio/orders')).toBe('read');
    expect(bucketOf('PUT', '/portfolio/order_groups/{order_group_id}/reset')).toBe('write');
    expect(bucketOf('POST', '/portfolio/events/orders/{order_id}/amend')).toBe('write');
  });
});
