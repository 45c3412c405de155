// Goal: a request written into a reused buffer is byte for byte the request made as one string,
// with or without a body, for multi-byte bodies and every Content-Length width, and a buffer too
// small is refused with nothing written; a body writer gives the bytes its text gives, and one
// that does not fit is refused. The signed fields given as one block of bytes (a presigned
// signature's, signedFieldsBytes) give the same request as the two strings. A writer's body is
// placed for a 3-digit Content-Length and moved for any other width, refused where the move would
// not fit. The head given in parts (RequestLine: method, target, the tail's bytes) is the same
// head as its text. Method: both functions of src/net/request-bytes.ts on the same parts, compared
// as bytes.

import { describe, expect, it } from 'vitest';
import { RequestLine, assemble, assembleInto, signedFieldsBytes } from '../../src/net/request-bytes.ts';
import type { BodyWriter } from '../../src/net/request-bytes.ts';

/** A writer of fixed text that writes it byte for byte itself (as the order-body writers do). */
function writerOf(text: string): BodyWriter {
  const bytes = Buffer.from(text, 'utf8');
  return {
    writeInto: (out, at) => (at + bytes.length > out.length ? -1 : at + bytes.copy(out, at)),
    text: () => text,
  };
}

const PREFIX = 'POST /trade-api/v2/portfolio/events/orders HTTP/1.1\r\nHost: 127.0.0.1:9000\r\nKALSHI-ACCESS-KEY: k\r\nContent-Type: application/json\r\nKALSHI-ACCESS-TIMESTAMP: ';

describe('request bytes', () => {
  it('writes into a buffer exactly the bytes of the one-string request', () => {
    const out = Buffer.alloc(64 * 1024, 0x7e);
    const bodies: (string | null)[] = [null, '', '1', 'é', '{"client_order_id":"ü-1"}', '🙂'.repeat(3), 'x'.repeat(9), 'x'.repeat(10), 'x'.repeat(99), 'x'.repeat(100), 'x'.repeat(12_345)];
    // The head as text, as bytes made once (RawRequestHead's prefixBytes) and in parts (sendTo's RequestLine).
    const prefixBytes = new Uint8Array(Buffer.from(PREFIX, 'latin1'));
    const line = new RequestLine();
    line.method = 'POST';
    line.target = '/trade-api/v2/portfolio/events/orders';
    line.tail = new Uint8Array(Buffer.from(PREFIX.slice('POST /trade-api/v2/portfolio/events/orders'.length), 'latin1'));
    expect(line.length).toBe(PREFIX.length);
    for (const body of bodies) {
      for (const prefix of [PREFIX, prefixBytes, line]) {
        for (const signed of [null, signedFieldsBytes('1781821370267', 'c2lnbmF0dXJl')]) {
          out.fill(0x7e);
          const length = assembleInto(out, prefix, '1781821370267', 'c2lnbmF0dXJl', body, signed);
          expect(out.subarray(0, length).equals(Buffer.from(assemble(PREFIX, '1781821370267', 'c2lnbmF0dXJl', body), 'utf8'))).toBe(true);
        }
        expect(assemble(prefix, '1781821370267', 'c2lnbmF0dXJl', body)).toBe(assemble(PREFIX, '1781821370267', 'c2lnbmF0dXJl', body));
        // A presigned signature given only as its head bytes, in a view of a larger (shared) buffer: the same string.
        const shared = new Uint8Array(new SharedArrayBuffer(256));
        const fields = signedFieldsBytes('1781821370267', 'c2lnbmF0dXJl');
        shared.set(fields, 40);
        expect(assemble(prefix, '', '', body, shared.subarray(40, 40 + fields.length))).toBe(assemble(PREFIX, '1781821370267', 'c2lnbmF0dXJl', body));
      }
    }
  });

  it('refuses a buffer too small and writes nothing into it', () => {
    const out = Buffer.alloc(256, 0x7e);
    expect(assembleInto(out, PREFIX, '1', 's', 'x'.repeat(200))).toBe(-1);
    expect(out.every((byte) => byte === 0x7e)).toBe(true);
  });

  it('writes a body writer\'s bytes as its text would be, for every Content-Length width, and refuses one too large', () => {
    const out = Buffer.alloc(64 * 1024, 0x7e);
    const signed = signedFieldsBytes('1781821370267', 'c2lnbmF0dXJl');
    for (const text of ['', 'é', 'x'.repeat(9), 'x'.repeat(10), 'x'.repeat(99), 'x'.repeat(100), 'x'.repeat(999), 'x'.repeat(1_000), '🙂'.repeat(2_000)]) {
      const length = assembleInto(out, PREFIX, '1781821370267', 'c2lnbmF0dXJl', writerOf(text));
      expect(out.subarray(0, length).equals(Buffer.from(assemble(PREFIX, '1781821370267', 'c2lnbmF0dXJl', text), 'utf8'))).toBe(true);
      const fromBytes = assembleInto(out, Buffer.from(PREFIX, 'latin1'), '', '', writerOf(text), signed);
      expect(out.subarray(0, fromBytes).equals(Buffer.from(assemble(PREFIX, '1781821370267', 'c2lnbmF0dXJl', text), 'utf8'))).toBe(true);
      expect(assemble(PREFIX, '1', 's', writerOf(text))).toBe(assemble(PREFIX, '1', 's', text));
    }
    expect(assembleInto(Buffer.alloc(400), PREFIX, '1', 's', writerOf('x'.repeat(300)))).toBe(-1);
    // A 1,000-byte body fits where a 3-digit length leaves it, not once moved for its 4 digits: refused.
    const thousand = 'x'.repeat(1_000);
    const exact = Buffer.byteLength(assemble(PREFIX, '1', 's', thousand), 'utf8');
    expect(assembleInto(Buffer.alloc(exact - 1), PREFIX, '1', 's', writerOf(thousand))).toBe(-1);
    const fits = Buffer.alloc(exact);
    expect(assembleInto(fits, PREFIX, '1', 's', writerOf(thousand))).toBe(exact);
    expect(fits.toString('utf8')).toBe(assemble(PREFIX, '1', 's', thousand));
  });
});
