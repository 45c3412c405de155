/**
 * Goal: the journal's byte writer (src/oms/journal-bytes.ts) produces exactly the JSON text the
 * string serialiser it replaced produced (JSON.stringify of each value), so recover() and every
 * reader of old journals see the same lines. Method: seeded random strings (printable ASCII,
 * quotes, backslashes, control characters, non-ASCII) and numbers (integers up to the safe limit,
 * negatives, -0, fractions, non-finite), each written into a small buffer that must grow, compared
 * byte for byte with Buffer.from(JSON.stringify(value)). A timestamp given in two parts
 * (numSplit, high x 1,000,000 + low) is written as num() writes the whole, zero-padded low part
 * included.
 */

import { describe, expect, it } from 'vitest';
import { JournalBytes } from '../../src/oms/journal-bytes.ts';

function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state * 1664525 + 1013904223) >>> 0;
    return state / 0x1_0000_0000;
  };
}

const ALPHABET = ['a', 'Z', '0', '-', '_', ' ', '"', '\\', '\n', '\u0001', 'é', '€', '~', '/'];

describe('JournalBytes', () => {
  it('writes strings exactly as JSON.stringify does', () => {
    const next = random(7);
    for (let round = 0; round < 2000; round++) {
      const length = Math.floor(next() * 20);
      let text = '';
      for (let i = 0; i < length; i++) text += next() < 0.8 ? ALPHABET[Math.floor(next() * 8)] : ALPHABET[Math.floor(next() * ALPHABET.length)];
      const bytes = new JournalBytes(4);
      bytes.str(text);
      expect(bytes.view().equals(Buffer.from(JSON.stringify(text), 'utf8'))).toBe(true);
    }
  });

  it('writes numbers as `${value}` (null when not finite), growing as needed', () => {
    const next = random(11);
    const fixed = [0, -0, 1, -1, 9, 10, 99, 100, Number.MAX_SAFE_INTEGER, -Number.MAX_SAFE_INTEGER, Number.MIN_SAFE_INTEGER, 2 ** 60, 0.5, -1.25, 1e21, NaN, Infinity, -Infinity];
    const values = [...fixed];
    for (let i = 0; i < 2000; i++) values.push(Math.floor((next() - 0.5) * 2 * 10 ** Math.floor(next() * 16)));
    const bytes = new JournalBytes(1);
    let expected = '';
    for (const value of values) {
      bytes.num(value);
      bytes.raw(',');
      expected += `${Number.isFinite(value) ? `${value}` : 'null'},`;
    }
    expect(bytes.view().toString('utf8')).toBe(expected);
    // JSON.stringify agrees for every finite value except -0, which it writes as 0 (as `${-0}` does).
    expect(JSON.stringify(-0)).toBe(`${-0}`);
  });

  it('writes a timestamp given in two small parts as num() writes the whole', () => {
    const next = random(13);
    const values = [0, 1, 999_999, 1_000_000, 1_000_001, 1_798_761_600_000, 1_798_761_600_007, Number.MAX_SAFE_INTEGER];
    for (let i = 0; i < 2000; i++) values.push(Math.floor(next() * 10 ** Math.floor(next() * 16)));
    const split = new JournalBytes(1);
    const whole = new JournalBytes(1);
    for (const value of values) {
      split.numSplit(Math.floor(value / 1_000_000), value % 1_000_000);
      split.raw(',');
      whole.num(value);
      whole.raw(',');
    }
    expect(split.view().toString('utf8')).toBe(whole.view().toString('utf8'));
  });

  it('starts over after reset and keeps what it held when it grows', () => {
    const bytes = new JournalBytes(2);
    bytes.raw('{"k":');
    bytes.str('intent');
    bytes.reset();
    expect(bytes.length).toBe(0);
    bytes.raw('{"t":');
    bytes.num(1798761600000);
    bytes.raw('}');
    expect(bytes.view().toString('utf8')).toBe('{"t":1798761600000}');
  });
});
