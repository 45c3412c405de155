// Goal: a client order id written as bytes (ClientOrderIds.writeInto, from the prefix and the
// counter) is exactly its string form, at any offset and for any prefix, epoch and counter up to
// the largest safe integer; next() gives the ids in counter order, each parsing back to its parts.
// Method: seeded random prefixes, epochs and counters (2,000 cases), bytes compared with the
// string's latin1 bytes; parseClientOrderId on every id.

import { describe, expect, it } from 'vitest';
import { seededRandom } from '../../src/core/index.ts';
import { CLIENT_ORDER_ID_BYTES_MAX, ClientOrderIds, parseClientOrderId } from '../../src/oms/client-order-ids.ts';

const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_';

describe('client order ids as bytes', () => {
  it('writes the bytes of the string form, at any offset, for any prefix, epoch and counter', () => {
    const next = seededRandom(29);
    const pick = (n: number): number => Math.floor(next() * n);
    const out = Buffer.alloc(256, 0x7e);
    for (let i = 0; i < 2_000; i++) {
      let prefix = '';
      for (let k = 1 + pick(16); k > 0; k--) prefix += ALPHABET[pick(ALPHABET.length)];
      const epoch = i % 7 === 0 ? Number.MAX_SAFE_INTEGER : 1 + pick(2 ** 45);
      const last = i % 5 === 0 ? Number.MAX_SAFE_INTEGER - 1 : [0, 9, 99, pick(1e9)][pick(4)]!;
      const ids = new ClientOrderIds(prefix, epoch, last);
      const id = ids.next();
      expect(id).toBe(`${prefix}-${epoch.toString(36)}-${last + 1}`);
      expect(id.length).toBeLessThanOrEqual(CLIENT_ORDER_ID_BYTES_MAX);
      const at = pick(100);
      const end = ids.writeInto(out, at, ids.counter);
      expect(out.toString('latin1', at, end)).toBe(id);
      expect(parseClientOrderId(id)).toEqual({ prefix, sessionEpochMs: epoch, counter: last + 1 });
    }
  });

  it('gives ids in counter order from one session head', () => {
    const ids = new ClientOrderIds('mm1', 1_798_761_600_000, 1041);
    expect([ids.next(), ids.next(), ids.next()]).toEqual(['mm1-myc87pc0-1042', 'mm1-myc87pc0-1043', 'mm1-myc87pc0-1044']);
    const out = Buffer.alloc(64);
    expect(out.toString('latin1', 0, ids.writeInto(out, 0, 7))).toBe('mm1-myc87pc0-7');
  });
});
