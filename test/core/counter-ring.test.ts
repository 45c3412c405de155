// Goal: CounterRing (src/core/counter-ring.ts) answers as a Map keyed by the same numbers: get,
// set (new and replace), delete reporting whether it removed, size, values, while keys rise as
// request counters do, entries live for a while and some far longer than the ring spans (their
// cell then holds an older key: the newer one goes to the overflow and must still be found).
// Method: seeded random steps on a 16-cell ring compared with a Map after every step; every live
// key probed every 64 steps, and keys never set (a cell's later key) probed as absent.

import { describe, expect, it } from 'vitest';
import { CounterRing, seededRandom } from '../../src/core/index.ts';

describe('CounterRing', () => {
  for (const seed of [21, 22, 23]) {
    it(`answers as a Map while keys rise and some outlive the ring (seed ${seed})`, () => {
      const next = seededRandom(seed);
      const ring = new CounterRing<number>(16);
      const reference = new Map<number, number>();
      const live: number[] = [];
      let counter = 0;
      let overflowSeen = 0;
      // Plain comparisons per step, expect() only on a mismatch (fast enough for CI).
      const same = (what: string, ours: unknown, theirs: unknown): void => {
        if (ours !== theirs) expect(ours, what).toBe(theirs);
      };
      for (let step = 0; step < 20_000; step++) {
        const roll = next();
        if (roll < 0.45 || live.length === 0) {
          const key = ++counter;
          ring.set(key, step);
          reference.set(key, step);
          live.push(key);
        } else if (roll < 0.85) {
          // Mostly the oldest goes (answers come back in order), sometimes any of the live ones.
          const at = next() < 0.7 ? 0 : Math.floor(next() * live.length);
          const key = live.splice(at, 1)[0]!;
          same(`delete ${key} at ${step}`, ring.delete(key), reference.delete(key));
          same(`second delete ${key} at ${step}`, ring.delete(key), false);
        } else if (roll < 0.95) {
          const key = live[Math.floor(next() * live.length)]!;
          ring.set(key, -step); // replace
          reference.set(key, -step);
        } else {
          const key = counter + 1 + Math.floor(next() * 64); // never set yet
          same(`absent ${key} at ${step}`, ring.get(key), undefined);
        }
        same(`size at ${step}`, ring.size, reference.size);
        overflowSeen = Math.max(overflowSeen, ring.overflowSize);
        if (step % 64 === 0) {
          for (const key of live) same(`${key} at ${step}`, ring.get(key), reference.get(key));
          const values = ring.values().sort((a, b) => a - b);
          same(`values at ${step}`, values.join(','), [...reference.values()].sort((a, b) => a - b).join(','));
        }
      }
      // The steps did outrun the ring (live keys more than 16 apart), so the overflow was exercised.
      expect(overflowSeen).toBeGreaterThan(0);
    });
  }

  it('keeps keys beyond 2^31 apart by their full value', () => {
    const ring = new CounterRing<string>(16);
    const big = 2 ** 40 + 5;
    ring.set(5, 'small');
    ring.set(big, 'big'); // same low bits as 5
    expect(ring.get(5)).toBe('small');
    expect(ring.get(big)).toBe('big');
    expect(ring.delete(5)).toBe(true);
    expect(ring.get(big)).toBe('big');
    expect(ring.get(5)).toBeUndefined();
    expect(ring.size).toBe(1);
  });
});
