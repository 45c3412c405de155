/**
 * Goal: the byte-level primitives behind the frame scanners (src/feed/decoders/json-bytes.ts) are
 * exact: the four-bytes-at-a-time tests (plainStops, tickerStops) say "stop" exactly when a byte
 * of the word would stop a byte-by-byte scan; readFixed reads unit text exactly as core's
 * parsePrice / parseCount / parseSignedCount / parseDollars do; readIndex accepts exactly the plain
 * integers JSON.parse would give as a safe non-negative integer; readTicker's running hash is
 * hashBytes (the key the market registry files tickers' bytes under); reads never pass `end`.
 * Method: every byte value in every lane of a word against a reference predicate, plus seeded
 * random words; seeded random and edge-case unit texts against core's parsers; integer texts
 * against JSON.parse; tickers of every length and alignment.
 */

import { describe, expect, it } from 'vitest';
import { CENTICENTS_INVALID, COUNT_INVALID, PRICE_INVALID, parseCount, parseDollars, parsePrice, parseSignedCount, seededRandom } from '../../../src/core/index.ts';
import { ScanState, hashBytes, plainStops, readFixed, readIndex, tickerStops } from '../../../src/feed/decoders/json-bytes.ts';
import { readTicker } from '../../../src/feed/decoders/scan-values.ts';
import { MarketRegistry } from '../../../src/market/index.ts';

const stopsPlain = (byte: number): boolean => byte < 0x20 || byte === 0x22 || byte === 0x5c || byte >= 0x80;
const stopsTicker = (byte: number): boolean => byte < 0x20 || byte === 0x22 || byte === 0x5c;

function word(bytes: readonly number[]): number {
  return bytes[0] | (bytes[1] << 8) | (bytes[2] << 16) | (bytes[3] << 24);
}

describe('json-bytes primitives', () => {
  it('plainStops / tickerStops flag a word exactly when one of its bytes stops the run', () => {
    // Every byte value in every lane, beside fillers that stop and that do not.
    const wrong: string[] = [];
    const check = (bytes: number[]): void => {
      if ((plainStops(word(bytes)) !== 0) !== bytes.some(stopsPlain)) wrong.push(`plain ${bytes}`);
      if ((tickerStops(word(bytes)) !== 0) !== bytes.some(stopsTicker)) wrong.push(`ticker ${bytes}`);
    };
    const fillers = [0x41, 0x20, 0x7f, 0x22, 0x5c, 0x00, 0x1f, 0x80, 0xff, 0x21, 0x5d];
    for (let lane = 0; lane < 4; lane++) {
      for (let value = 0; value < 256; value++) {
        for (const filler of fillers) {
          const bytes = [filler, filler, filler, filler];
          bytes[lane] = value;
          check(bytes);
        }
      }
    }
    // Two lanes set at once (borrows run from a low lane into a high one).
    for (let low = 0; low < 256; low++) for (let high = 0; high < 256; high += 3) {
      check([low, high, 0x41, 0x41]);
      check([0x41, 0x41, low, high]);
    }
    const rng = seededRandom(5);
    for (let i = 0; i < 100_000; i++) check([0, 1, 2, 3].map(() => Math.floor(rng() * 256)));
    expect(wrong.slice(0, 10)).toEqual([]);
  });

  it('readFixed reads unit text exactly as core\'s parsers do', () => {
    const state = new ScanState();
    const read = (text: string, scale: number, decimalsMax: number, signed: boolean): number => {
      const bytes = Buffer.from(`"${text}"`, 'latin1');
      const after = readFixed(state, bytes, 0, bytes.length, scale, decimalsMax, signed);
      return after === -1 ? Number.NaN : (expect(after).toBe(bytes.length), state.value);
    };
    const cases: [string, (text: string) => number, number, number, boolean, number][] = [
      ['price', parsePrice, 4, 4, false, PRICE_INVALID],
      ['count', parseCount, 2, 2, false, COUNT_INVALID],
      ['signed count', parseSignedCount, 2, 2, true, COUNT_INVALID],
      ['dollars', parseDollars, 4, 6, true, CENTICENTS_INVALID],
    ];
    const edge = ['', '0', '-0', '-0.00', '00.5', '.5', '5.', '1.2.3', '-', '--1', '+1', '1e2', ' 1', '1 ', '0.0001', '0.00001', '0.123400', '0.123401',
      '9007199254740991', '9007199254740992', '90071992547409.91', '1'.repeat(40), '1'.repeat(41), '0'.repeat(39) + '1', '99999999999999.99', '12.5', '-12.500000'];
    const rng = seededRandom(6);
    const alphabet = '0123456789.-';
    const random = Array.from({ length: 20_000 }, () => Array.from({ length: Math.floor(rng() * 12) }, () => alphabet[Math.floor(rng() * alphabet.length)]).join(''));
    for (const [name, parse, scale, decimalsMax, signed, invalid] of cases) {
      for (const text of [...edge, ...random]) {
        const expected = parse(text);
        const got = read(text, scale, decimalsMax, signed);
        if (expected === invalid) expect(got, `${name} "${text}"`).toBeNaN();
        else expect(Object.is(got, expected), `${name} "${text}": ${got} vs ${expected}`).toBe(true);
      }
    }
  });

  it('readIndex accepts exactly the plain safe integers, and stops at `end`', () => {
    const state = new ScanState();
    const texts = ['0', '7', '10', '007', '-1', '1.0', '1e3', '123456789', '1234567890', '999999999999999', '1000000000000000', '1798761600123', '12345678901234567'];
    for (const text of texts) {
      const bytes = Buffer.from(`${text},`, 'latin1');
      const after = readIndex(state, bytes, 0, bytes.length);
      const plain = /^(0|[1-9][0-9]{0,14})$/.test(text);
      if (!plain) expect(after, text).toBe(-1);
      else expect([after, state.value], text).toEqual([text.length, JSON.parse(text) as number]);
    }
    // Digits past `end` are not read: "12|34" with end after "12" is 12.
    const bytes = Buffer.from('1234', 'latin1');
    expect(readIndex(state, bytes, 0, 2)).toBe(2);
    expect(state.value).toBe(12);
  });

  it('readTicker hashes as hashBytes and finds every ticker at any length and alignment', () => {
    const tickers = new MarketRegistry();
    const names: string[] = [];
    for (let length = 1; length <= 40; length++) names.push(`T${'abcdefghijklmnopqrstuvwxyz0123456789-_.'.slice(0, length - 1)}`);
    names.push('UNI-\u00e9\u4e2d-\ud83d\ude00');
    for (const name of names) tickers.add(name);
    const table = tickers;
    const state = new ScanState();
    for (const name of names) {
      for (let pad = 0; pad < 4; pad++) {
        const bytes = Buffer.concat([Buffer.alloc(pad, 0x20), Buffer.from(JSON.stringify(name), 'utf8'), Buffer.from(',"x"')]);
        const after = readTicker(state, bytes, pad, bytes.length, table);
        expect(after, name).toBe(bytes.length - 4);
        expect([state.index, state.text], name).toEqual([tickers.indexOf(name), name]);
        const raw = Buffer.from(name, 'utf8');
        expect(table.find(raw, 0, raw.length, hashBytes(raw, 0, raw.length))).toBe(tickers.indexOf(name));
      }
    }
    // Unknown: a new string (ASCII), or -1 to defer (non-ASCII).
    const unknown = Buffer.from('"Tabcdefg-UNKNOWN"', 'latin1');
    expect(readTicker(state, unknown, 0, unknown.length, table)).toBe(unknown.length);
    expect([state.index, state.text]).toEqual([-1, 'Tabcdefg-UNKNOWN']);
    const foreign = Buffer.from('"caf\u00e9"', 'utf8');
    expect(readTicker(state, foreign, 0, foreign.length, table)).toBe(-1);
    // A ticker cut by `end` is not read past it.
    const cut = Buffer.from(JSON.stringify(names[20]), 'utf8');
    expect(readTicker(state, cut, 0, cut.length - 1, table)).toBe(-1);
  });
});
