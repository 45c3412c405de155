/**
 * A growable byte buffer the journal serialises its ring into: JSON pieces written as ASCII bytes
 * straight into a preallocated Buffer, so a flush builds no strings (bench/hot-path's heap
 * profile had the string-building serialiser at ~4 KB per order, 44% of everything the path
 * allocated, and its scavenges land in the timed frames). It grows (doubling, a copy) only when a
 * flush holds more than it has ever held. Owns bytes and their encoding; never does I/O.
 */

import { jsonStringBytesMax, writeAscii, writeInteger, writeJsonString } from '../core/index.ts';
import { CLIENT_ORDER_ID_BYTES_MAX } from './client-order-ids.ts';

export class JournalBytes {
  #buffer: Buffer;
  /** Bytes written so far (the next write's index). */
  length = 0;

  constructor(capacityBytes: number) {
    this.#buffer = Buffer.allocUnsafe(capacityBytes);
  }

  /** The whole buffer; the bytes written so far are its first `length` (valid until the next write or reset). */
  get bytes(): Buffer {
    return this.#buffer;
  }

  /** The bytes written so far (a view, valid until the next write or reset). */
  view(): Buffer {
    return this.#buffer.subarray(0, this.length);
  }

  reset(): void {
    this.length = 0;
  }

  /** ASCII text with no escaping (constant keys and punctuation: the caller knows it is safe). */
  raw(text: string): void {
    this.#ensure(text.length);
    this.length = writeAscii(this.#buffer, this.length, text);
  }

  /** A JSON string: printable ASCII without quote or backslash as bytes, anything else through JSON.stringify (rare). */
  str(text: string): void {
    this.#ensure(jsonStringBytesMax(text));
    this.length = writeJsonString(this.#buffer, this.length, text);
  }

  /** A JSON string of bytes that need no escape (the caller checked: venue-order-ids.ts), the first `length` of `bytes`. */
  quotedBytes(bytes: Uint8Array, length: number): void {
    this.#ensure(length + 2);
    const out = this.#buffer;
    let at = this.length;
    out[at++] = 0x22;
    for (let i = 0; i < length; i++) out[at++] = bytes[i]!;
    out[at++] = 0x22;
    this.length = at;
  }

  /** A JSON number, the text `${value}` gives: safe integers as digits, anything else through String (rare); non-finite is null. */
  num(value: number): void {
    if (!Number.isFinite(value)) {
      this.raw('null');
      return;
    }
    if (!Number.isSafeInteger(value) || Object.is(value, -0)) {
      this.raw(String(value));
      return;
    }
    this.#ensure(17);
    this.length = writeInteger(this.#buffer, this.length, value);
  }

  /**
   * A millisecond timestamp (or any non-negative safe integer) as num() writes it, given as
   * value = high x 1,000,000 + low, both small integers: the caller splits it, so the number is
   * never boxed on its way into this call (a timestamp is no small integer, and every call with
   * one allocated: ~60 bytes an order in bench/hot-path's heap profile).
   */
  numSplit(high: number, low: number): void {
    this.#ensure(17);
    if (high === 0) {
      this.length = writeInteger(this.#buffer, this.length, low);
      return;
    }
    const buffer = this.#buffer;
    const at = writeInteger(buffer, this.length, high);
    for (let i = at + 5, rest = low; i >= at; i--, rest = (rest - (rest % 10)) / 10) buffer[i] = 0x30 + (rest % 10);
    this.length = at + 6;
  }

  /** This session's client order id with `counter` as a JSON string, from its bytes (its characters need no escape). */
  clientOrderId(ids: { writeInto(out: Buffer, at: number, counter: number): number }, counter: number): void {
    this.#ensure(CLIENT_ORDER_ID_BYTES_MAX + 2);
    const buffer = this.#buffer;
    buffer[this.length] = 0x22;
    const end = ids.writeInto(buffer, this.length + 1, counter);
    buffer[end] = 0x22;
    this.length = end + 1;
  }

  bool(value: boolean): void {
    this.raw(value ? 'true' : 'false');
  }

  /** Any text, UTF-8 encoded (off the per-line path: lines written synchronously, escaped strings). */
  utf8(text: string): void {
    this.#ensure(Buffer.byteLength(text, 'utf8'));
    this.length += this.#buffer.write(text, this.length, 'utf8');
  }

  #ensure(more: number): void {
    const need = this.length + more;
    if (need <= this.#buffer.length) return;
    let capacity = this.#buffer.length * 2;
    while (capacity < need) capacity *= 2;
    const grown = Buffer.allocUnsafe(capacity);
    this.#buffer.copy(grown, 0, 0, this.length);
    this.#buffer = grown;
  }
}
