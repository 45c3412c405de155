// Goal: FifoMap keeps at most `capacity` entries, evicts the oldest live one, skips keys deleted
// from the middle, and bounds its order ring (2 x capacity) without losing live entries early
// except by that documented rule.
// Method: hand-run sequences checked against the expected contents; a seeded random run checks
// the map against a reference model (an array in insertion order) after every operation.
import { describe, expect, it } from 'vitest';
import { FifoMap, SeededRandom } from '../../src/core/index.ts';

describe('FifoMap', () => {
  it('evicts the oldest key when a new key would exceed the capacity, and reports it', () => {
    const map = new FifoMap<string, number>(3);
    const evicted: [string, number][] = [];
    for (const [key, value] of [['a', 1], ['b', 2], ['c', 3], ['d', 4], ['e', 5]] as const) {
      map.set(key, value, (k, v) => evicted.push([k, v]));
    }
    expect([...map.keys()]).toEqual(['c', 'd', 'e']);
    expect(evicted).toEqual([['a', 1], ['b', 2]]);
    expect(map.size).toBe(3);
  });

  it('updating a key in place neither evicts nor moves it', () => {
    const map = new FifoMap<string, number>(2);
    map.set('a', 1).set('b', 2).set('a', 10);
    expect([...map.entries()]).toEqual([['a', 10], ['b', 2]]);
    map.set('c', 3);
    expect([...map.keys()]).toEqual(['b', 'c']);
  });

  it('skips keys deleted from the middle when it evicts', () => {
    const map = new FifoMap<string, number>(3);
    map.set('a', 1).set('b', 2).set('c', 3);
    map.delete('a');
    map.delete('b');
    map.set('d', 4).set('e', 5); // room: no eviction
    expect([...map.keys()]).toEqual(['c', 'd', 'e']);
    map.set('f', 6); // full: c is the oldest live key
    expect([...map.keys()]).toEqual(['d', 'e', 'f']);
  });

  it('a ring full of stale keys makes room by dropping them, not a live entry', () => {
    const map = new FifoMap<number, number>(2); // ring of 4
    for (let k = 1; k <= 4; k++) {
      map.set(k, k);
      map.delete(k);
    } // ring: 1x, 2x, 3x, 4x
    map.set(5, 5);
    map.set(6, 6);
    expect([...map.keys()]).toEqual([5, 6]);
  });

  it('evicts a live entry once 2 x capacity keys were inserted after it', () => {
    const map = new FifoMap<number, number>(2); // ring of 4
    map.set(1, 1);
    map.set(2, 2);
    map.delete(2);
    map.set(3, 3);
    map.delete(3);
    map.set(4, 4);
    map.delete(4); // ring: 1, 2x, 3x, 4x (full); the map holds 1 only
    map.set(5, 5); // the ring's head is live 1 and the ring is full: 1 goes
    expect([...map.keys()]).toEqual([5]);
  });

  it('matches a reference model under random sets and deletes (seeded, bounded)', () => {
    const random = new SeededRandom(7);
    const capacity = 16;
    const map = new FifoMap<number, number>(capacity);
    // reference: live keys in insertion order, plus every insertion's number for the 2 x capacity rule
    let model: { key: number; value: number; inserted: number }[] = [];
    let insertions = 0;
    let nextKey = 0;
    for (let step = 0; step < 20_000; step++) {
      if (model.length > 0 && random.nextInt(3) === 0) {
        const victim = model[random.nextInt(model.length)]!;
        expect(map.delete(victim.key)).toBe(true);
        model = model.filter((entry) => entry !== victim);
      } else {
        const key = nextKey++;
        insertions++;
        // ring rule: entries inserted 2 x capacity insertions ago or earlier are gone
        model = model.filter((entry) => insertions - entry.inserted < capacity * 2);
        if (model.length >= capacity) model.shift();
        map.set(key, step);
        model.push({ key, value: step, inserted: insertions });
      }
      expect(map.size).toBe(model.length);
    }
    expect([...map.entries()]).toEqual(model.map((entry) => [entry.key, entry.value]));
  });

  it('refuses a capacity that is not a positive integer', () => {
    expect(() => new FifoMap(0)).toThrow(RangeError);
    expect(() => new FifoMap(1.5)).toThrow(RangeError);
  });
});
