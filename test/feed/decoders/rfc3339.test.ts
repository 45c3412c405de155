// Goal: the communications decoder's timestamp scanner (rfc3339Ms) gives exactly what Date.parse
// gives for the UTC RFC 3339 times the exchange sends (0 to 9 fraction digits, truncated to ms),
// and -1 (so the caller falls back to Date.parse) for anything else: offsets, bad digits, impossible
// dates, a missing Z. Method: seeded random instants over 1970-2100 in every fraction length,
// compared with Date.parse; hand-picked edge cases (leap days, month ends, the epoch).
import { describe, expect, it } from 'vitest';
import { SeededRandom } from '../../../src/core/index.ts';
import { rfc3339Ms } from '../../../src/feed/decoders/communications.ts';

describe('rfc3339Ms', () => {
  it('equals Date.parse on random UTC instants with 0 to 9 fraction digits (seeded, bounded)', () => {
    const random = new SeededRandom(3339);
    const end = Date.UTC(2100, 0, 1);
    for (let i = 0; i < 20_000; i++) {
      const ms = random.nextInt(end);
      const iso = new Date(ms).toISOString(); // YYYY-MM-DDTHH:MM:SS.mmmZ
      const digits = random.nextInt(10);
      const extra = String(random.nextInt(1_000_000)).padStart(6, '0');
      const text = digits === 0 ? `${iso.slice(0, 19)}Z` : `${iso.slice(0, 19)}.${(iso.slice(20, 23) + extra).slice(0, digits)}Z`;
      expect(rfc3339Ms(text), text).toBe(Date.parse(text));
    }
  });

  it('handles the epoch, leap days and month ends', () => {
    for (const text of ['1970-01-01T00:00:00Z', '2024-02-29T23:59:59.999Z', '2000-02-29T12:00:00.5Z', '2026-12-31T23:59:59.123456789Z', '2026-04-30T00:00:00.01Z']) {
      expect(rfc3339Ms(text), text).toBe(Date.parse(text));
    }
  });

  it('answers -1 for what it does not read, so the caller asks Date.parse', () => {
    for (const text of ['2026-11-25T02:20:15+01:00', '2026-11-25 02:20:15Z', '2026-13-01T00:00:00Z', '2025-02-29T00:00:00Z', '2026-04-31T00:00:00Z',
      '2026-11-25T24:00:00Z', '2026-11-25T02:20:15.Z', '2026-11-25T02:20:15.1234567890Z', '2026-11-2xT02:20:15Z', '2026-11-25T02:20:15', '']) {
      expect(rfc3339Ms(text), text).toBe(-1);
    }
  });
});
