// Goal: the page walks that keep listings cheap at 5,000+ markets answer exactly what the plain
// walks answer: newestAcross (every market's trade ring at once, GET /markets/trades without a
// ticker) against copy-sort-newestFirst, and oldestFirstSorted (a filter's candidates, GET /markets
// with tickers= or event_ticker) against oldestFirst over the whole list.
// Method: seeded random inputs (unsorted rings, random filters, cursors and limits) compared page
// by page with the reference; full walks checked to return every match exactly once.

import { describe, expect, it } from 'vitest';
import { SeededRandom } from '../../../src/core/index.ts';
import { decodeCursor, newestAcross, newestFirst, oldestFirst, oldestFirstSorted } from '../../../src/sim/engine/pagination.ts';

interface Row {
  seq: number;
  keep: boolean;
}

/** Rings of rows with distinct seqs, each ring rotated (a wrapped ring is not sorted). */
function rings(random: SeededRandom, ringCount: number, seqMax: number): Row[][] {
  const out: Row[][] = Array.from({ length: ringCount }, () => []);
  for (let seq = 1; seq <= seqMax; seq++) {
    if (random.nextInt(4) === 0) continue;
    out[random.nextInt(ringCount)].push({ seq, keep: random.nextInt(5) !== 0 });
  }
  return out.map((ring) => {
    const cut = ring.length === 0 ? 0 : random.nextInt(ring.length);
    return [...ring.slice(cut), ...ring.slice(0, cut)];
  });
}

describe('newestAcross', () => {
  it('equals copy, sort and newestFirst for random rings, filters, cursors and limits', () => {
    const random = new SeededRandom(11);
    for (let round = 0; round < 200; round++) {
      const lists = rings(random, 1 + random.nextInt(30), 1 + random.nextInt(400));
      const sorted = lists.flat().sort((a, b) => a.seq - b.seq);
      const limit = 1 + random.nextInt(25);
      const afterSeq = random.nextInt(3) === 0 ? -1 : random.nextInt(450);
      const match = (row: Row): boolean => row.keep;
      expect(newestAcross(lists, afterSeq, limit, match)).toEqual(newestFirst(sorted, afterSeq, limit, match));
    }
  });

  it('a full walk returns every match once, newest first', () => {
    const random = new SeededRandom(12);
    const lists = rings(random, 50, 5_000);
    const expected = lists.flat().filter((row) => row.keep).map((row) => row.seq).sort((a, b) => b - a);
    const seen: number[] = [];
    let cursor = '';
    for (let page = 0; page < 1_000; page++) {
      const result = newestAcross(lists, decodeCursor(cursor), 97, (row) => row.keep);
      for (const row of result.items) seen.push(row.seq);
      cursor = result.cursor;
      if (cursor === '') break;
    }
    expect(cursor).toBe('');
    expect(seen).toEqual(expected);
  });
});

describe('oldestFirstSorted', () => {
  it('over a filter\'s candidates equals oldestFirst over the whole list', () => {
    const random = new SeededRandom(13);
    for (let round = 0; round < 200; round++) {
      const all = Array.from({ length: 1 + random.nextInt(300) }, (_, index) => ({ index, open: random.nextInt(4) !== 0 }));
      const chosen = new Set<number>();
      for (let i = random.nextInt(60); i > 0; i--) chosen.add(random.nextInt(all.length));
      const candidates = [...chosen].sort((a, b) => a - b).map((i) => all[i]);
      const limit = 1 + random.nextInt(20);
      const after = random.nextInt(3) === 0 ? -1 : random.nextInt(all.length + 5);
      const key = (m: { index: number }): number => m.index;
      const reference = oldestFirst(all, after, limit, (m) => m.open && chosen.has(m.index), key);
      expect(oldestFirstSorted(candidates, after, limit, (m) => m.open, key)).toEqual(reference);
    }
  });
});
