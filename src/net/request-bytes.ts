/**
 * One HTTP/1.1 request of the raw pool, from its parts: the head up to the timestamp value (request
 * line, Host, key, Content-Type), the timestamp, the signature, the framing and the body. Written
 * into a caller's reused buffer on the hot path (`assembleInto`: no string is built, so an order's
 * request leaves no request-sized garbage), or made one string where it must wait in a queue
 * (`assemble`). Both give the same bytes. The body is a string, or a BodyWriter that writes its
 * bytes straight into the buffer (an order's body is then never a string at all). Owns the framing
 * only; never knows sockets.
 */

import { decimalDigits, writeAscii } from '../core/index.ts';

/**
 * A body that writes itself: the hot path's order bodies, so no body string is made for a request
 * written at once. A writer may be reused for the next request once the call that took it
 * returned (the pool makes a queued request's string before that).
 */
export interface BodyWriter {
  /** Writes the body's UTF-8 bytes at `at`: the offset after them, or -1 when they do not fit (out's bytes past `at` are then undefined). */
  writeInto(out: Buffer, at: number): number;
  /** The same bytes as a string (a request that waits in a queue). */
  text(): string;
}

/** A request's body: text, a writer, or none. */
export type RequestBody = string | BodyWriter | null;

/**
 * A request head made per request, in parts: the method, the target and the rest of the head up to
 * the timestamp value as bytes made once (RawHttpPool.sendTo's per-order paths). Written into the
 * buffer part by part, so no head string is made (a head concatenated per request was flattened
 * again by the write: a few hundred bytes of garbage per amend). Its owner fills it for one call
 * and reads nothing of it after: a request that must wait is made one string (prefixText) first.
 */
export class RequestLine {
  method = '';
  /** Visible ASCII starting with '/' (the pool checks it). */
  target = '';
  tail: Uint8Array = new Uint8Array(0);

  get length(): number {
    return this.method.length + 1 + this.target.length + this.tail.length;
  }
}

/**
 * A request head up to the timestamp value: text, its bytes made once (RawRequestHead's, for a
 * constant path: one copy instead of a text write per request), or a RequestLine. ASCII always.
 */
export type RequestPrefix = string | Uint8Array | RequestLine;

/** Between the timestamp and the signature in a request head (signedFieldsBytes). */
export const SIGNATURE_FIELD = '\r\nKALSHI-ACCESS-SIGNATURE: ';
const LENGTH_FIELD = '\r\nContent-Length: ';
const HEAD_END = '\r\n\r\n';
// The same as bytes, copied with one TypedArray set each (a text write is a native call with its
// argument checks: about twice the time for these, bench/hot-path's exec hop).
const SIGNATURE_FIELD_BYTES = new Uint8Array(Buffer.from(SIGNATURE_FIELD, 'latin1'));
const LENGTH_FIELD_BYTES = new Uint8Array(Buffer.from(LENGTH_FIELD, 'latin1'));
/** Content-Length's decimal digits at most (a safe integer). */
const LENGTH_DIGITS_MAX = 16;
/** Content-Length's digits for the bodies of orders (100-999 bytes): the body is written where they leave it. */
const LENGTH_DIGITS_GUESS = 3;

/** The body as text (a writer's text()). */
export function bodyText(body: RequestBody): string | null {
  return body === null || typeof body === 'string' ? body : body.text();
}

/** The head's text (a queued request's string; off the hot path). */
export function prefixText(prefix: RequestPrefix): string {
  if (typeof prefix === 'string') return prefix;
  if (prefix instanceof RequestLine) return `${prefix.method} ${prefix.target}${latin1(prefix.tail)}`;
  return latin1(prefix);
}

function latin1(bytes: Uint8Array): string {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('latin1');
}

/** The whole request as one string (a queued request waits as this). */
export function assemble(requestPrefix: RequestPrefix, timestampText: string, signature: string, body: RequestBody, signedBytes: Uint8Array | null = null): string {
  const prefix = prefixText(requestPrefix);
  const text = bodyText(body);
  // A presigned signature may come as its head bytes only (the presigner makes no strings).
  const signed = signedBytes !== null ? Buffer.from(signedBytes.buffer, signedBytes.byteOffset, signedBytes.length).toString('latin1') : timestampText + SIGNATURE_FIELD + signature;
  return text === null ? prefix + signed + HEAD_END : prefix + signed + LENGTH_FIELD + Buffer.byteLength(text, 'utf8') + HEAD_END + text;
}

/** Bytes `signedFields` is made of (timestamp, field name, signature) for a signature of `signatureLength` characters and a timestamp of at most 20 digits. */
export function signedFieldsBytesMax(signatureLength: number): number {
  return 20 + SIGNATURE_FIELD_BYTES.length + signatureLength;
}

/**
 * The signed part of a request head as one block of bytes: the timestamp, the signature's field
 * name and the signature (`KALSHI-ACCESS-TIMESTAMP: ` ends the prefix). The presigner makes it
 * once per signature when the worker's answer arrives, off the order path, so a request copies one
 * block instead of writing two strings (a Latin-1 text write is a native call: ~170 ns each on this
 * VM for the 13-digit timestamp and the 344-character signature, against ~60 ns for one copy).
 */
export function signedFieldsBytes(timestampText: string, signature: string): Uint8Array {
  // One allocation of the exact size, written in place (a concatenated string made bytes and then
  // copied out of Buffer's pool left three times its size behind, per signature made).
  const bytes = Buffer.allocUnsafeSlow(timestampText.length + SIGNATURE_FIELD_BYTES.length + signature.length);
  let at = bytes.write(timestampText, 0, 'latin1');
  bytes.set(SIGNATURE_FIELD_BYTES, at);
  at += SIGNATURE_FIELD_BYTES.length;
  bytes.write(signature, at, 'latin1');
  return bytes;
}

/**
 * The request's UTF-8 bytes written at the start of `out`: their count, or -1 when `out` is too
 * small (nothing written for a text body; a writer's partial bytes may be left). The head's parts
 * are ASCII (`prefix` from RawRequestHead / RawHttpPool, which check the path, host and key id;
 * the timestamp's digits; a base64 signature), so they are written as Latin-1, one byte a
 * character, and measured by their length: about 40% of the head's time against UTF-8 writes
 * and byteLength calls (bench/hot-path's exec hop). `signedBytes`, when given, is
 * signedFieldsBytes(timestampText, signature), copied in their place.
 */
export function assembleInto(out: Buffer, prefix: RequestPrefix, timestampText: string, signature: string, body: RequestBody, signedBytes: Uint8Array | null = null): number {
  const signedLength = signedBytes !== null ? signedBytes.length : timestampText.length + SIGNATURE_FIELD.length + signature.length;
  const headBytes = prefix.length + signedLength;
  // A text body's size is known: too large, nothing is written. A writer's is known once it wrote.
  const textBytes = typeof body === 'string' ? Buffer.byteLength(body, 'utf8') : 0;
  if (headBytes + LENGTH_FIELD.length + LENGTH_DIGITS_MAX + HEAD_END.length + textBytes > out.length) return -1;
  let at: number;
  if (typeof prefix === 'string') {
    at = out.write(prefix, 0, 'latin1');
  } else if (prefix instanceof RequestLine) {
    at = writeAscii(out, 0, prefix.method);
    out[at++] = 0x20; // ' '
    at = writeAscii(out, at, prefix.target);
    out.set(prefix.tail, at);
    at += prefix.tail.length;
  } else {
    out.set(prefix, 0);
    at = prefix.length;
  }
  if (signedBytes !== null) {
    out.set(signedBytes, at);
    at += signedBytes.length;
  } else {
    at += out.write(timestampText, at, 'latin1');
    out.set(SIGNATURE_FIELD_BYTES, at);
    at += SIGNATURE_FIELD_BYTES.length;
    at += out.write(signature, at, 'latin1');
  }
  if (body === null) return writeHeadEnd(out, at);
  out.set(LENGTH_FIELD_BYTES, at);
  at += LENGTH_FIELD_BYTES.length;
  // The body goes where a Content-Length of LENGTH_DIGITS_GUESS digits leaves it, and moves only
  // when its length has another count of digits: a writer's byte count is known once it wrote.
  const parked = at + LENGTH_DIGITS_GUESS + HEAD_END.length;
  const end = typeof body === 'string' ? parked + out.write(body, parked, 'utf8') : body.writeInto(out, parked);
  if (end < 0) return -1;
  const bodyBytes = end - parked;
  const digits = decimalDigits(bodyBytes);
  if (digits !== LENGTH_DIGITS_GUESS) {
    const bodyAt = at + digits + HEAD_END.length;
    if (bodyAt + bodyBytes > out.length) return -1;
    out.copyWithin(bodyAt, parked, end);
  }
  at = writeHeadEnd(out, writeDecimal(out, at, bodyBytes));
  return at + bodyBytes;
}

/** "\r\n\r\n" at `at` (four stores: a TypedArray set of four bytes costs twice as much); the offset after. */
function writeHeadEnd(out: Buffer, at: number): number {
  out[at] = 13;
  out[at + 1] = 10;
  out[at + 2] = 13;
  out[at + 3] = 10;
  return at + 4;
}

/** `value` (a non-negative safe integer) in decimal ASCII at `at`; returns the offset after it. */
export function writeDecimal(out: Buffer, at: number, value: number): number {
  const digits = decimalDigits(value);
  let rest = value;
  for (let i = digits - 1; i >= 0; i--) {
    out[at + i] = 0x30 + (rest % 10);
    rest = Math.floor(rest / 10);
  }
  return at + digits;
}
