// Goal: invariant helpers and the injected clocks behave as documented.
// Method: direct calls; assert throws InvariantError with its code and message, the manual clock moves
// only when told, the coarse clock only on refresh (polled with a bounded wait, no timing assertion).
import { describe, expect, it } from 'vitest';
import { assert, CoarseClock, InvariantError, ManualClock, systemClock, unreachable } from '../../src/core/index.ts';

describe('errors', () => {
  it('assert passes on true and throws InvariantError on false', () => {
    expect(() => assert(true, 'fine')).not.toThrow();
    try {
      assert(false, 'book half updated');
      expect.unreachable('should throw');
    } catch (error) {
      expect(error).toBeInstanceOf(InvariantError);
      expect((error as InvariantError).code).toBe('INVARIANT_BROKEN');
      expect((error as InvariantError).message).toBe('book half updated');
    }
  });
  it('unreachable throws with the value', () => {
    expect(() => unreachable('surprise' as never)).toThrow(/surprise/);
  });
});

describe('clock', () => {
  it('systemClock reads wall time in integer ms', () => {
    const now = systemClock.nowMs();
    expect(Number.isSafeInteger(now)).toBe(true);
    expect(Math.abs(now - Date.now())).toBeLessThan(60_000);
  });
  it('ManualClock moves only when told', () => {
    const clock = new ManualClock(1000);
    expect(clock.nowMs()).toBe(1000);
    expect(clock.advance(5)).toBe(1005);
    clock.set(42);
    expect(clock.nowMs()).toBe(42);
    expect(() => clock.advance(-1)).toThrow(RangeError);
  });
  it('CoarseClock returns its cached time until refreshed', () => {
    const source = new ManualClock(100);
    const clock = new CoarseClock(source);
    expect(clock.nowMs()).toBe(100);
    source.advance(5);
    expect(clock.nowMs()).toBe(100);
    expect(clock.refresh()).toBe(105);
    expect(clock.nowMs()).toBe(105);
  });
  it('CoarseClock.start refreshes from an unref\'d timer and stop ends it', async () => {
    const source = new ManualClock(0);
    const clock = new CoarseClock(source);
    clock.start(1);
    clock.start(1); // idempotent
    source.set(42);
    for (let i = 0; i < 200 && clock.nowMs() !== 42; i++) await new Promise((resolve) => setTimeout(resolve, 5));
    expect(clock.nowMs()).toBe(42);
    clock.stop();
    source.set(43);
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(clock.nowMs()).toBe(42);
  });
});
