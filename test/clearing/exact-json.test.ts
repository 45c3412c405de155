// Goal: the clearing client's JSON reader (src/clearing/exact-json.ts) keeps every integer literal
// exact as bigint (int64 extremes, values past 2^53), reads everything else as JSON.parse does,
// and refuses exactly what JSON.parse refuses, with a JsonSyntaxError rather than a crash.
// Method: fixed cases; a differential property test against JSON.parse on seeded random documents
// whose numbers are safe; malformed-byte fuzzing by seeded mutation of valid documents.

import { describe, expect, it } from 'vitest';
import { DEPTH_MAX, JsonDecimal, JsonSyntaxError, parseExactJson, type ExactJson } from '../../src/clearing/exact-json.ts';
import { SeededRandom as CoreRandom } from '../../src/core/index.ts';

/** int(lo, hi): uniform in [lo, hi]. */
class SeededRandom {
  readonly #random: CoreRandom;
  constructor(seed: number) {
    this.#random = new CoreRandom(seed);
  }
  int(lo: number, hi: number): number {
    return lo + this.#random.nextInt(hi - lo + 1);
  }
}

/** Our tree as JSON.parse would give it (bigint and decimals through Number: only safe values are compared). */
function plain(value: ExactJson): unknown {
  if (typeof value === 'bigint') return Number(value);
  if (value instanceof JsonDecimal) return Number(value.text);
  if (Array.isArray(value)) return value.map(plain);
  if (value !== null && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const key of Object.keys(value)) Object.defineProperty(out, key, { value: plain(value[key]), enumerable: true, writable: true, configurable: true });
    return out;
  }
  return value;
}

function randomString(random: SeededRandom): string {
  const pieces = ['a', 'Z', ' ', '"', '\\', '/', '\n', '\t', '\u0001', 'é', '€', '😀', '\ud800', '__proto__', ':', ',', '{', ']'];
  let out = '';
  const length = random.int(0, 6);
  for (let i = 0; i < length; i++) out += pieces[random.int(0, pieces.length - 1)];
  return out;
}

function randomValue(random: SeededRandom, depth: number): unknown {
  const kind = random.int(0, depth > 3 ? 5 : 7);
  switch (kind) {
    case 0: return null;
    case 1: return random.int(0, 1) === 1;
    case 2: return random.int(-1_000_000_000, 1_000_000_000) * (random.int(0, 1) === 1 ? 9_007 : 1);
    case 3: return random.int(-100_000, 100_000) / 64; // exact binary fractions: text round-trips
    case 4: return randomString(random);
    case 5: return Number.MAX_SAFE_INTEGER * (random.int(0, 1) === 1 ? 1 : -1);
    case 6: return Array.from({ length: random.int(0, 4) }, () => randomValue(random, depth + 1));
    default: {
      const out: Record<string, unknown> = {};
      for (let i = random.int(0, 4); i > 0; i--) out[randomString(random)] = randomValue(random, depth + 1);
      return out;
    }
  }
}

describe('exact JSON reader', () => {
  it('keeps integers exact as bigint, past 2^53 and at the int64 ends', () => {
    const text = '{"a":9223372036854775807,"b":-9223372036854775808,"c":9007199254740993,"d":-0,"e":123456789012345678901234567890}';
    const value = parseExactJson(text) as Record<string, ExactJson>;
    expect(value.a).toBe(9_223_372_036_854_775_807n);
    expect(value.b).toBe(-9_223_372_036_854_775_808n);
    expect(value.c).toBe(9_007_199_254_740_993n); // JSON.parse gives ...992
    expect(JSON.parse(text).c).toBe(9_007_199_254_740_992);
    expect(value.d).toBe(0n);
    expect(value.e).toBe(123456789012345678901234567890n);
  });

  it('keeps non-integer numbers as their text, never rounded', () => {
    const value = parseExactJson('[1.5, -0.0000000001, 1e3, 12345678901234567890.125]') as ExactJson[];
    expect(value.map((v) => (v as JsonDecimal).text)).toEqual(['1.5', '-0.0000000001', '1e3', '12345678901234567890.125']);
    expect(value.every((v) => v instanceof JsonDecimal)).toBe(true);
  });

  it('reads strings with every escape and a "__proto__" key as a plain key', () => {
    const value = parseExactJson('{"s":"q\\"b\\\\s\\/n\\nt\\tu\\u00e9\\ud83d\\ude00\\b\\f\\r","__proto__":{"x":1}}') as Record<string, ExactJson>;
    expect(value.s).toBe('q"b\\s/n\nt\tué😀\b\f\r');
    expect(Object.keys(value)).toEqual(['s', '__proto__']);
    expect(Object.getPrototypeOf(value)).toBeNull();
    expect(({} as Record<string, unknown>).x).toBeUndefined();
  });

  it('refuses malformed text with the offset', () => {
    for (const [text, offset] of [
      ['', 0], ['{', 1], ['{"a" 1}', 5], ['[1,]', 3], ['01', 0], ['1.', 2], ['-', 1], ['1e', 2], ['"abc', 0], ['"a\u0001"', 2],
      ['"\\x"', 1], ['"\\u12g4"', 1], ['tru', 0], ['{"a":1}x', 7], ['[1 2]', 3], ['{1:2}', 1], ['NaN', 0],
    ] as const) {
      let caught: unknown = null;
      try {
        parseExactJson(text);
      } catch (error) {
        caught = error;
      }
      expect(caught, text).toBeInstanceOf(JsonSyntaxError);
      expect((caught as JsonSyntaxError).offset, text).toBe(offset);
    }
  });

  it('bounds nesting', () => {
    expect(() => parseExactJson(`${'['.repeat(DEPTH_MAX)}${']'.repeat(DEPTH_MAX)}`)).not.toThrow();
    expect(() => parseExactJson(`${'['.repeat(DEPTH_MAX + 1)}${']'.repeat(DEPTH_MAX + 1)}`)).toThrow(JsonSyntaxError);
    expect(() => parseExactJson('{"a":'.repeat(100_000))).toThrow(JsonSyntaxError); // no stack overflow
  });

  it('agrees with JSON.parse on random documents with safe numbers', () => {
    const random = new SeededRandom(7);
    for (let i = 0; i < 2_000; i++) {
      const text = JSON.stringify(randomValue(random, 0), null, random.int(0, 1) === 1 ? 2 : undefined);
      expect(plain(parseExactJson(text)), text).toEqual(JSON.parse(text));
    }
  });

  it('refuses what JSON.parse refuses and accepts what it accepts, on mutated bytes', () => {
    const random = new SeededRandom(11);
    const alphabet = '{}[]",:\\ 0123456789-+.eEtrufalsn\u0000\n';
    let refused = 0;
    for (let i = 0; i < 5_000; i++) {
      const chars = [...JSON.stringify(randomValue(random, 0))];
      for (let m = random.int(1, 3); m > 0; m--) {
        const at = random.int(0, chars.length);
        const op = random.int(0, 2);
        if (op === 0) chars.splice(at, 1);
        else if (op === 1) chars.splice(at, 0, alphabet[random.int(0, alphabet.length - 1)]);
        else chars[at] = alphabet[random.int(0, alphabet.length - 1)];
      }
      const text = chars.join('');
      let expected: unknown;
      let valid = true;
      try {
        expected = JSON.parse(text);
      } catch {
        valid = false;
      }
      if (valid) {
        const ours = parseExactJson(text);
        // Integers JSON.parse rounded are compared through Number too (it rounds the same way).
        expect(plain(ours), text).toEqual(expected);
      } else {
        refused++;
        expect(() => parseExactJson(text), text).toThrow(JsonSyntaxError);
      }
    }
    expect(refused).toBeGreaterThan(1_000); // the fuzz really exercised the error paths
  });
});
