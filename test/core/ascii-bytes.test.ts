// Goal: the byte writers the order bodies and the journal are made of (src/core/ascii-bytes.ts)
// write exactly the text JSON.stringify gives: a JSON string in one pass that starts over with
// JSON.stringify at the first character needing an escape, wherever it sits; constant pieces made
// once as bytes (asciiConst, writeBytes) refuse non-ASCII text; numbers (writeInteger, writeFixed,
// decimalDigits) as String() and toFixed() give them on both sides of their 32-bit fast paths.
// Method: seeded random strings of safe ASCII with one character that needs escaping (or none) at
// every position, at random offsets in a dirty buffer, compared with JSON.stringify's UTF-8 bytes;
// seeded random safe integers of every width, and each power of ten and 2^31 with its neighbours.

import { describe, expect, it } from 'vitest';
import { asciiConst, decimalDigits, jsonStringBytesMax, seededRandom, writeBytes, writeFixed, writeInteger, writeJsonString } from '../../src/core/index.ts';

describe('ascii bytes', () => {
  it('writes a JSON string as JSON.stringify does, the escaped character anywhere', () => {
    const next = seededRandom(29);
    const out = Buffer.alloc(4096, 0xee);
    const special = ['"', '\\', '\n', '\u0000', '\u007f', 'é', '🙂', '\ud800'];
    for (let n = 0; n < 2_000; n++) {
      const length = Math.floor(next() * 40);
      let text = '';
      for (let i = 0; i < length; i++) text += String.fromCharCode(0x20 + Math.floor(next() * 95)).replace(/["\\]/, 'x');
      const at = Math.floor(next() * 100);
      if (n % 3 !== 0) {
        const position = Math.floor(next() * (text.length + 1));
        text = text.slice(0, position) + special[n % special.length] + text.slice(position);
      }
      const end = writeJsonString(out, at, text);
      expect(end - at).toBeLessThanOrEqual(jsonStringBytesMax(text));
      expect(out.subarray(at, end).equals(Buffer.from(JSON.stringify(text), 'utf8')), text).toBe(true);
    }
  });

  it('copies constant ASCII as bytes and refuses anything else', () => {
    const out = Buffer.alloc(64, 0);
    const key = asciiConst(',"post_only":true');
    expect(out.toString('latin1', 5, writeBytes(out, 5, key))).toBe(',"post_only":true');
    expect(() => asciiConst('prix é')).toThrow(RangeError);
  });

  it('writes integers and fixed-point numbers as String() does, on both sides of the 32-bit paths', () => {
    const next = seededRandom(31);
    const values: number[] = [0, 2 ** 31 - 2, 2 ** 31 - 1, 2 ** 31, 2 ** 31 + 1, 2 ** 32, Number.MAX_SAFE_INTEGER];
    for (let power = 1; power <= 1e15; power *= 10) values.push(power - 1, power, power + 1);
    for (let n = 0; n < 3_000; n++) values.push(Math.floor(next() * 10 ** (1 + Math.floor(next() * 15))));
    const out = Buffer.alloc(64, 0xee);
    for (const value of values) {
      expect(decimalDigits(value), String(value)).toBe(String(value).length);
      for (const signed of [value, -value]) {
        const at = Math.floor(next() * 8);
        expect(out.toString('latin1', at, writeInteger(out, at, signed))).toBe(String(signed === 0 ? 0 : signed));
      }
      // Prices (4 decimals), counts (2) and dollars (6): 5600 -> "0.5600", 100 -> "1.00".
      for (const decimals of [2, 4, 6]) {
        const whole = Math.floor(value / 10 ** decimals);
        const text = `${whole}.${String(value - whole * 10 ** decimals).padStart(decimals, '0')}`;
        expect(out.toString('latin1', 3, writeFixed(out, 3, value, decimals)), `${value} ${decimals}`).toBe(text);
      }
    }
  });
});
