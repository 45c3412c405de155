/**
 * Goal: fills count once by trade id, and the set stays bounded by forgetting the oldest id first
 * (FIFO), whether or not the ring has grown to its capacity yet.
 * Method: a small capacity and a seeded sequence checked against a reference model (an array
 * kept in arrival order, the oldest dropped past the capacity). Bounded: 20,000 offers.
 */

import { describe, expect, it } from 'vitest';
import { SeededRandom } from '../../src/core/index.ts';
import { FillDedup } from '../../src/oms/fill-dedup.ts';

describe('FillDedup', () => {
  it('counts an id once and forgets the oldest first once full', () => {
    const dedup = new FillDedup(3);
    expect(['a', 'b', 'a', 'c'].map((id) => dedup.firstTime(id))).toEqual([true, true, false, true]);
    expect(dedup.size).toBe(3);
    expect(dedup.firstTime('d')).toBe(true); // 'a' forgotten
    expect(dedup.has('a')).toBe(false);
    expect(dedup.has('b')).toBe(true);
    expect(dedup.firstTime('a')).toBe(true); // 'b' forgotten
    expect([dedup.has('b'), dedup.has('c'), dedup.has('d'), dedup.size]).toEqual([false, true, true, 3]);
  });

  it('agrees with a FIFO reference model over a seeded sequence', () => {
    const capacity = 64;
    const dedup = new FillDedup(capacity);
    const model: string[] = [];
    const random = new SeededRandom(7);
    for (let i = 0; i < 20_000; i++) {
      const id = `t${random.nextInt(200)}`;
      const expected = !model.includes(id);
      if (expected) {
        model.push(id);
        if (model.length > capacity) model.shift();
      }
      expect(dedup.firstTime(id)).toBe(expected);
      expect(dedup.size).toBe(model.length);
    }
  });

  it('refuses a capacity that is not a positive integer', () => {
    expect(() => new FillDedup(0)).toThrow(RangeError);
    expect(() => new FillDedup(1.5)).toThrow(RangeError);
  });
});
