/**
 * Goal: the shared token bucket meters exactly (integer milli-tokens), takes all or nothing, keeps
 * a caller's floor (the gate's cancel reserve), never mints tokens when the clock steps back, and
 * reports the wait for a cost. Method: drive it with explicit millisecond timestamps.
 */
import { describe, expect, it } from 'vitest';
import { TokenBucket } from '../../src/core/index.ts';

describe('TokenBucket', () => {
  it('starts full and refuses a take it cannot pay in full, taking nothing', () => {
    const bucket = new TokenBucket(10, 20, 0);
    expect(bucket.available(0)).toBe(20);
    expect(bucket.tryTake(15, 0)).toBe(true);
    expect(bucket.tryTake(10, 0)).toBe(false);
    expect(bucket.available(0)).toBe(5);
  });

  it('refills continuously up to capacity, exactly', () => {
    const bucket = new TokenBucket(10, 20, 0);
    bucket.tryTake(20, 0);
    expect(bucket.available(100)).toBe(1); // 10 tokens/s for 100 ms
    expect(bucket.available(250)).toBe(2);
    expect(bucket.available(60_000)).toBe(20);
  });

  it('keeps the floor for callers that must leave a reserve', () => {
    const bucket = new TokenBucket(10, 20, 0);
    expect(bucket.tryTake(15, 0, 5)).toBe(true);
    expect(bucket.canTake(1, 0, 5)).toBe(false);
    expect(bucket.tryTake(1, 0, 5)).toBe(false);
    expect(bucket.tryTake(5, 0)).toBe(true); // no floor: may drain to zero
    expect(bucket.available(0)).toBe(0);
  });

  it('never mints tokens when the clock steps back', () => {
    const bucket = new TokenBucket(1000, 10, 1_000);
    bucket.tryTake(10, 1_000);
    expect(bucket.available(500)).toBe(0);
    expect(bucket.available(1_001)).toBe(1);
  });

  it('reports the wait for a cost and drains to a level', () => {
    const bucket = new TokenBucket(4, 8, 0);
    bucket.tryTake(8, 0);
    expect(bucket.waitMs(1, 0)).toBe(250);
    expect(bucket.waitMs(2, 0)).toBe(500);
    expect(bucket.waitMs(1, 250)).toBe(0);
    const full = new TokenBucket(4, 8, 0);
    full.drainTo(3, 0);
    expect(full.available(0)).toBe(3);
  });

  it('caps below the tokens on the way: refill stops at capacity less them, never below zero, nothing with none', () => {
    const bucket = new TokenBucket(100, 100, 0);
    bucket.tryTake(60, 0);
    bucket.capBelowOnTheWay(60, 1_000); // a second of refill would fill it; the 60 on the way leave room for 40
    expect(bucket.available(1_000)).toBe(40);
    bucket.capBelowOnTheWay(150, 1_000); // more on the way than the bucket holds
    expect(bucket.available(1_000)).toBe(0);
    bucket.capBelowOnTheWay(0, 1_500);
    expect(bucket.available(1_500)).toBe(50);
  });

  it('rejects a rate that is not a positive integer', () => {
    expect(() => new TokenBucket(0, 1, 0)).toThrow(RangeError);
    expect(() => new TokenBucket(2.5, 1, 0)).toThrow(RangeError);
  });
});
