import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/core/index.ts';
import { SteppedClock } from '../../bench/hot-path/stepped-clock.ts';

describe('SteppedClock (the hot-path driver clock)', () => {
  it('tells the same times as a ManualClock through its prepared steps, past them and after other advances', () => {
    const start = 1_798_761_600_000;
    const stepped = new SteppedClock(start, 10, 5);
    const manual = new ManualClock(start);
    const advances = [10, 10, 0, 10, 10, 10, 10, 10, 3, 10, 10];
    expect(stepped.nowMs()).toBe(manual.nowMs());
    for (const ms of advances) {
      expect(stepped.advance(ms)).toBe(manual.advance(ms));
      expect(stepped.nowMs()).toBe(manual.nowMs());
    }
    expect(stepped.nowMs()).toBe(start + 93);
  });

  it('refuses to go back', () => {
    expect(() => new SteppedClock(0, 10, 2).advance(-1)).toThrow(RangeError);
  });
});
