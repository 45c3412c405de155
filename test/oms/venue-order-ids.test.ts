// Goal: the venue's order ids kept as bytes (src/oms/venue-order-ids.ts, Order's id store) answer as
// their text does: an id set from bytes reads back as the same string, writes the same bytes, and
// compares equal to its text and its bytes; ids that cannot be bytes (too long, characters JSON
// escapes, non-ASCII) are kept as text and still found; the two hashes agree; and VenueIdIndex
// answers as a Map over long random sequences where ids come and go (backward-shift deletion and
// growth are where an open-addressing table goes wrong), with ids that share their hashed tail.
// Method: seeded random steps compared with a Map after every step, every id of the pool probed
// every 100 steps, by text and by bytes; records reused as the OMS's pool reuses them, their ids
// in one store that grows as they are made (from 4 slots).

import { describe, expect, it } from 'vitest';
import { seededRandom } from '../../src/core/index.ts';
import { Order, VENUE_ID_BYTES_MAX, VenueIdIndex, VenueIdStore, hashIdBytes, hashIdText, storableText } from '../../src/oms/index.ts';

const UUID = '9b8e0d3f-2c1a-4e01-a5e1-d6f05c2b4b8e';

function bytesOf(text: string, pad = 3): { bytes: Buffer; start: number; end: number } {
  // The id in the middle of other bytes, as inside a response body.
  const bytes = Buffer.alloc(text.length + 2 * pad, 0x7b);
  bytes.write(text, pad, 'latin1');
  return { bytes, start: pad, end: pad + text.length };
}

describe('an order\'s venue id as bytes', () => {
  it('set from bytes: no text until read; reads, writes and compares as its text', () => {
    const order = new Order(0);
    expect(order.hasOrderId).toBe(false);
    expect(order.orderId).toBe('');
    const { bytes, start, end } = bytesOf(UUID);
    expect(order.setOrderIdBytes(bytes, start, end)).toBe(true);
    expect(order.hasOrderId).toBe(true);
    const out = Buffer.alloc(80, 0);
    expect(order.writeOrderId(out, 5)).toBe(5 + UUID.length);
    expect(out.toString('latin1', 5, 5 + UUID.length)).toBe(UUID);
    expect(order.orderIdIs(UUID)).toBe(true);
    expect(order.orderIdIs(UUID.slice(0, -1) + 'f')).toBe(false);
    expect(order.orderIdIs(UUID + 'x')).toBe(false);
    expect(order.orderIdIsBytes(bytes, start, end)).toBe(true);
    expect(order.orderIdIsBytes(bytes, start, end - 1)).toBe(false);
    expect(order.orderId).toBe(UUID);
    expect(order.venueIdHash()).toBe(hashIdText(UUID));
  });

  it('ids that cannot be bytes are kept as text: found, compared, never written as bytes', () => {
    for (const text of ['x'.repeat(VENUE_ID_BYTES_MAX + 1), 'a"b', 'a\\b', 'é-1', 'tab\there', 'a\u0000b']) {
      expect(storableText(text)).toBe(false);
      const order = new Order(1);
      order.setOrderIdText(text);
      expect(order.hasOrderId).toBe(true);
      expect(order.orderId).toBe(text);
      expect(order.writeOrderId(Buffer.alloc(200), 0)).toBe(-1);
      expect(order.orderIdIs(text)).toBe(true);
      const latin1 = Buffer.from(text, 'latin1');
      if (latin1.toString('latin1') === text) expect(order.orderIdIsBytes(latin1, 0, latin1.length)).toBe(true);
      expect(order.setOrderIdBytes(latin1, 0, latin1.length)).toBe(false); // refused, nothing changed
      expect(order.orderId).toBe(text);
    }
    const order = new Order(2);
    order.setOrderIdText(UUID);
    order.setOrderIdText('');
    expect(order.hasOrderId).toBe(false);
    expect(order.orderId).toBe('');
  });

  it('the text and the bytes hash alike', () => {
    const next = seededRandom(5);
    for (let i = 0; i < 2_000; i++) {
      const length = 1 + Math.floor(next() * 70);
      let text = '';
      for (let k = 0; k < length; k++) text += String.fromCharCode(0x20 + Math.floor(next() * 95));
      const { bytes, start, end } = bytesOf(text, i % 7);
      if (hashIdBytes(bytes, start, end) !== hashIdText(text)) expect(hashIdBytes(bytes, start, end), text).toBe(hashIdText(text));
    }
  });
});

describe('VenueIdIndex', () => {
  for (const seed of [21, 22, 23]) {
    it(`answers as a Map over random add/find/remove steps, by text and by bytes (seed ${seed})`, () => {
      const next = seededRandom(seed);
      const pool: string[] = [];
      const tail = '-4e01-a5e1-d6f05c2b4b8e';
      for (let i = 0; i < 400; i++) {
        const kind = i % 4;
        pool.push(kind === 0 ? `${Math.floor(next() * 1e12).toString(16)}-${i}` : kind === 1 ? `${i.toString(16).padStart(8, '0')}-2c1a${tail}` : kind === 2 ? `o-${i}` : `${'long-'.repeat(14)}${i}`);
      }
      pool.push('é', 'a"quote', UUID);
      const store = new VenueIdStore(4); // grows as records are made
      const records = Array.from({ length: pool.length }, (_, slot) => new Order(slot, store));
      const free = records.slice();
      const index = new VenueIdIndex<Order>(store, 4);
      const reference = new Map<string, Order>();
      const same = (what: string, ours: unknown, theirs: unknown): void => {
        if (ours !== theirs) expect(ours, what).toBe(theirs);
      };
      for (let step = 0; step < 20_000; step++) {
        const window = Math.min(pool.length, 16 + Math.floor(step / 40));
        const id = pool[Math.floor(next() * window)]!;
        const held = reference.get(id);
        if (held === undefined && next() < 0.55) {
          const record = free.pop()!;
          const { bytes, start, end } = bytesOf(id);
          if (!(next() < 0.5 && record.setOrderIdBytes(bytes, start, end))) record.setOrderIdText(id);
          index.add(record);
          reference.set(id, record);
        } else if (held !== undefined && next() < 0.5) {
          same(`remove ${id} at ${step}`, index.remove(held), true);
          same(`remove again ${id} at ${step}`, index.remove(held), false);
          reference.delete(id);
          held.setOrderIdText('');
          free.push(held);
        }
        same(`size at ${step}`, index.size, reference.size);
        same(`${id} at ${step}`, index.get(id), reference.get(id));
        if (step % 100 === 0) {
          for (const probe of pool) {
            same(`${probe} at ${step}`, index.get(probe), reference.get(probe));
            const latin1 = Buffer.from(probe, 'latin1');
            if (latin1.toString('latin1') === probe) same(`${probe} by bytes at ${step}`, index.getBytes(latin1, 0, latin1.length), reference.get(probe));
          }
        }
      }
      expect(new Set(index.values())).toEqual(new Set(reference.values()));
    });
  }

  it('keeps every id reachable when many share a home cell and some leave', () => {
    const store = new VenueIdStore();
    const index = new VenueIdIndex<Order>(store, 8); // 16 cells
    const ids: string[] = [];
    for (let i = 0; ids.length < 7; i++) if ((hashIdText(`k${i}`) & 15) === 15) ids.push(`k${i}`);
    const records = ids.map((id, slot) => {
      const order = new Order(slot, store);
      order.setOrderIdText(id);
      index.add(order);
      return order;
    });
    for (const gone of [0, 3, 5]) expect(index.remove(records[gone]!)).toBe(true);
    ids.forEach((id, i) => expect(index.get(id)).toBe([0, 3, 5].includes(i) ? undefined : records[i]));
    expect(index.size).toBe(4);
  });
});
