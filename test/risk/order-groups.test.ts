// Goal: order groups count matched contracts in a rolling 15 s window (never less than the venue
// would), block on trigger until reset, and count live groups for the per-user cap.
// Method: record matches at chosen times on one group and read the window sum at later times.

import { describe, expect, it } from 'vitest';
import { OrderGroups } from '../../src/risk/index.ts';

describe('OrderGroups', () => {
  it('sums matches of the last 15 s and forgets older ones', () => {
    const groups = new OrderGroups();
    const group = groups.at(groups.add('g', 0, 1000))!;
    group.addMatched(100, 10_000);
    group.addMatched(50, 10_900); // same second
    group.addMatched(30, 20_000);
    expect(group.matchedInWindow(20_500)).toBe(180);
    expect(group.matchedInWindow(25_999)).toBe(180); // 10 s bucket still within 15 s (conservative edge)
    expect(group.matchedInWindow(26_000)).toBe(30);
    expect(group.matchedInWindow(36_000)).toBe(0);
    group.addMatched(5, 26_000 + 16_000 * 10); // reuses a bucket slot: the old count is dropped
    expect(group.matchedInWindow(26_000 + 16_000 * 10)).toBe(5);
  });

  it('resets matched and the trigger, and keeps the live count for the cap', () => {
    const groups = new OrderGroups();
    const h1 = groups.add('g1', 0, 10);
    const h2 = groups.add('g2', 0, 10);
    expect(groups.live).toBe(2);
    const g1 = groups.at(h1)!;
    g1.addMatched(10, 1000);
    g1.triggered = true;
    g1.reset();
    expect(g1.triggered).toBe(false);
    expect(g1.matchedInWindow(1000)).toBe(0);
    groups.delete(h2);
    groups.delete(h2);
    expect(groups.live).toBe(1);
    expect(groups.add('g2', 0, 20)).toBe(h2);
    expect(groups.live).toBe(2);
    expect(groups.handleOf('nope')).toBe(-1);
  });
});
