// Goal: StringTable (src/core/string-table.ts) answers as a Map: get, has, set (new and replace),
// delete reporting whether it removed, size, over long random sequences where keys come and go
// (the backward-shift deletion is where an open-addressing table goes wrong: a key left
// unreachable behind a hole), with keys that share a home cell, across growth and wrap-around.
// Method: seeded random steps from a small table compared with a Map after every step; every
// key of the pool probed every 100 steps; a crafted set of keys with one home cell.

import { describe, expect, it } from 'vitest';
import { seededRandom, StringTable } from '../../src/core/index.ts';

describe('StringTable', () => {
  for (const seed of [11, 12, 13]) {
    it(`answers as a Map over random set/get/delete steps (seed ${seed})`, () => {
      const next = seededRandom(seed);
      const pool: string[] = [];
      for (let i = 0; i < 400; i++) pool.push(i % 3 === 0 ? `${Math.floor(next() * 1e12).toString(16)}-${i}` : `o-${i}`);
      pool.push('', 'é', 'a\u0000b', '9b8e0d3f-2c1a-4e01-a5e1-d6f05c2b4b8e');
      const table = new StringTable<number>(4);
      const reference = new Map<string, number>();
      for (let step = 0; step < 20_000; step++) {
        const window = Math.min(pool.length, 16 + Math.floor(step / 40));
        const key = pool[Math.floor(next() * window)]!;
        const roll = next();
        if (roll < 0.5) {
          table.set(key, step);
          reference.set(key, step);
        } else if (roll < 0.9) {
          expect(table.delete(key), `delete ${key} at ${step}`).toBe(reference.delete(key));
        } else {
          expect(table.has(key)).toBe(reference.has(key));
        }
        expect(table.size).toBe(reference.size);
        expect(table.get(key)).toBe(reference.get(key));
        if (step % 100 === 0) for (const probe of pool) expect(table.get(probe), `${probe} at ${step}`).toBe(reference.get(probe));
      }
      expect(new Set(table.values())).toEqual(new Set(reference.values()));
    });
  }

  it('keeps every key reachable when many share a home cell and some leave', () => {
    const table = new StringTable<string>(8); // 16 cells
    // Keys whose FNV-1a hash has the same low 4 bits: runs that wrap past the table's end.
    const keys: string[] = [];
    for (let i = 0; keys.length < 7; i++) {
      const key = `k${i}`;
      let h = 0x811c9dc5;
      for (let c = 0; c < key.length; c++) h = Math.imul(h ^ key.charCodeAt(c), 0x01000193);
      if ((h & 15) === 15) keys.push(key);
    }
    for (const key of keys) table.set(key, key);
    for (const gone of [keys[0]!, keys[3]!, keys[5]!]) {
      expect(table.delete(gone)).toBe(true);
      expect(table.delete(gone)).toBe(false);
    }
    for (const key of keys) expect(table.get(key)).toBe([keys[0], keys[3], keys[5]].includes(key) ? undefined : key);
    expect(table.size).toBe(4);
  });
});
