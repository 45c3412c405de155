// Goal: Counters counts per code and snapshots them by name. Method: increment integer codes
// (with and without labels) and string codes, then compare snapshots, totals and resets with the
// expected plain objects.

import { describe, expect, it } from 'vitest';
import { Counters } from '../../src/telemetry/index.ts';

describe('Counters', () => {
  const labels = ['NONE', 'BOOK_NOT_SYNCED', 'TRADING_HALTED', 'PRICE_OFF_GRID'];

  it('counts integer codes under their labels and string codes by name', () => {
    const counters = new Counters('risk.deny', labels);
    counters.increment(1);
    counters.increment(1);
    counters.increment(3, 5);
    counters.increment(7); // no label: appears under its number
    counters.increment('EXEC_TIMEOUT');
    counters.increment('EXEC_TIMEOUT', 2);
    expect(counters.get(1)).toBe(2);
    expect(counters.get(0)).toBe(0);
    expect(counters.get(42)).toBe(0);
    expect(counters.get('EXEC_TIMEOUT')).toBe(3);
    expect(counters.get('unknown')).toBe(0);
    expect(counters.total).toBe(11);
    const snapshot = counters.snapshot();
    expect(snapshot).toEqual({ '7': 1, BOOK_NOT_SYNCED: 2, EXEC_TIMEOUT: 3, PRICE_OFF_GRID: 5 });
    expect(Object.keys(snapshot)).toEqual(['7', 'BOOK_NOT_SYNCED', 'EXEC_TIMEOUT', 'PRICE_OFF_GRID']);
  });

  it('returns an independent snapshot and resets to zero', () => {
    const counters = new Counters('feed');
    counters.increment('RESYNC');
    const before = counters.snapshot();
    counters.increment('RESYNC');
    expect(before).toEqual({ RESYNC: 1 });
    counters.reset();
    expect(counters.snapshot()).toEqual({});
    expect(counters.total).toBe(0);
    counters.increment('RESYNC');
    expect(counters.snapshot()).toEqual({ RESYNC: 1 });
  });
});
