// Goal: StringTable (src/core/string-table.ts) answers as a Map: get, has, set (new and replace),
// delete reporting whether it removed, size, over long random sequences where keys come and go
// (the backward-shift deletion is where an open-addressing table goes wrong: a key left
// unreachable behind a hole), with keys that share a home cell, across growth and wrap-around.
// Method: seeded random steps from a small table compared with a Map after every step; every
// key of the pool probed every 100 steps; a crafted set of keys with one home cell; keys equal in
// their hashed tail (only the last 16 characters are hashed) but different before it.

import { describe, expect, it } from 'vitest';
import { hashKey, seededRandom, StringTable } from '../../src/core/index.ts';

describe('StringTable', () => {
  for (const seed of [11, 12, 13]) {
    it(`answers as a Map over random set/get/delete steps (seed ${seed})`, () => {
      const next = seededRandom(seed);
      const pool: string[] = [];
      for (let i = 0; i < 400; i++) pool.push(i % 3 === 0 ? `${Math.floor(next() * 1e12).toString(16)}-${i}` : `o-${i}`);
      pool.push('', 'é', 'a\u0000b', '9b8e0d3f-2c1a-4e01-a5e1-d6f05c2b4b8e');
      const table = new StringTable<number>(4);
      const reference = new Map<string, number>();
      // Plain comparisons per step, expect() only on a mismatch: 20,000 steps with every key probed
      // every 100 in well under a second (an expect per comparison took 8 s of CI).
      const same = (what: string, ours: unknown, theirs: unknown): void => {
        if (ours !== theirs) expect(ours, what).toBe(theirs);
      };
      for (let step = 0; step < 20_000; step++) {
        const window = Math.min(pool.length, 16 + Math.floor(step / 40));
        const key = pool[Math.floor(next() * window)]!;
        const roll = next();
        if (roll < 0.5) {
          table.set(key, step);
          reference.set(key, step);
        } else if (roll < 0.9) {
          same(`delete ${key} at ${step}`, table.delete(key), reference.delete(key));
        } else {
          same(`has ${key} at ${step}`, table.has(key), reference.has(key));
        }
        same(`size at ${step}`, table.size, reference.size);
        same(`${key} at ${step}`, table.get(key), reference.get(key));
        if (step % 100 === 0) for (const probe of pool) same(`${probe} at ${step}`, table.get(probe), reference.get(probe));
      }
      expect(new Set(table.values())).toEqual(new Set(reference.values()));
    });
  }

  it('keeps every key reachable when many share a home cell and some leave', () => {
    const table = new StringTable<string>(8); // 16 cells
    // Keys whose hash has the same low 4 bits: runs that wrap past the table's end.
    const keys: string[] = [];
    for (let i = 0; keys.length < 7; i++) if ((hashKey(`k${i}`) & 15) === 15) keys.push(`k${i}`);
    for (const key of keys) table.set(key, key);
    for (const gone of [keys[0]!, keys[3]!, keys[5]!]) {
      expect(table.delete(gone)).toBe(true);
      expect(table.delete(gone)).toBe(false);
    }
    for (const key of keys) expect(table.get(key)).toBe([keys[0], keys[3], keys[5]].includes(key) ? undefined : key);
    expect(table.size).toBe(4);
  });

  it('tells apart keys that differ only before the hashed tail, and equal strings made apart', () => {
    const tail = '-4e01-a5e1-d6f05c2b4b8e';
    const keys = Array.from({ length: 40 }, (_, i) => `${i.toString(16).padStart(8, '0')}-2c1a${tail}`);
    expect(new Set(keys.map(hashKey)).size).toBe(1); // one hash: every key probes one run
    const table = new StringTable<number>(4);
    keys.forEach((key, i) => table.set(key, i));
    for (const [i, key] of keys.entries()) expect(table.get(Buffer.from(key, 'latin1').toString('latin1'))).toBe(i);
    for (let i = 0; i < keys.length; i += 2) expect(table.delete(keys[i]!)).toBe(true);
    for (const [i, key] of keys.entries()) expect(table.get(key)).toBe(i % 2 === 0 ? undefined : i);
    expect(table.size).toBe(20);
  });
});
