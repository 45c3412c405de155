// Goal: the byte writers the order bodies and the journal are made of (src/core/ascii-bytes.ts)
// write exactly the text JSON.stringify gives: a JSON string in one pass that starts over with
// JSON.stringify at the first character needing an escape, wherever it sits; constant pieces made
// once as bytes (asciiConst, writeBytes) refuse non-ASCII text. Method: seeded random strings of
// safe ASCII with one character that needs escaping (or none) at every position, at random
// offsets in a dirty buffer, compared with JSON.stringify's UTF-8 bytes.

import { describe, expect, it } from 'vitest';
import { asciiConst, jsonStringBytesMax, seededRandom, writeBytes, writeJsonString } from '../../src/core/index.ts';

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
});
