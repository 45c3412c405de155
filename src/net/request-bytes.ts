/**
 * One HTTP/1.1 request of the raw pool, from its parts: the head up to the timestamp value (request
 * line, Host, key, Content-Type), the timestamp, the signature, the framing and the body. Written
 * into a caller's reused buffer on the hot path (`assembleInto`: no string is built, so an order's
 * request leaves no request-sized garbage), or made one string where it must wait in a queue
 * (`assemble`). Both give the same bytes. Owns the framing only; never knows sockets.
 */

const SIGNATURE_FIELD = '\r\nKALSHI-ACCESS-SIGNATURE: ';
const LENGTH_FIELD = '\r\nContent-Length: ';
const HEAD_END = '\r\n\r\n';
/** Content-Length's decimal digits at most (a safe integer). */
const LENGTH_DIGITS_MAX = 16;

/** The whole request as one string (a queued request waits as this). */
export function assemble(prefix: string, timestampText: string, signature: string, body: string | null): string {
  return body === null
    ? prefix + timestampText + SIGNATURE_FIELD + signature + HEAD_END
    : prefix + timestampText + SIGNATURE_FIELD + signature + LENGTH_FIELD + Buffer.byteLength(body, 'utf8') + HEAD_END + body;
}

/** The request's UTF-8 bytes written at the start of `out`: their count, or -1 (nothing written) when `out` is too small. */
export function assembleInto(out: Buffer, prefix: string, timestampText: string, signature: string, body: string | null): number {
  const bodyBytes = body === null ? 0 : Buffer.byteLength(body, 'utf8');
  const headBytes = Buffer.byteLength(prefix, 'utf8') + Buffer.byteLength(timestampText, 'utf8') + SIGNATURE_FIELD.length + Buffer.byteLength(signature, 'utf8');
  const needed = headBytes + (body === null ? HEAD_END.length : LENGTH_FIELD.length + LENGTH_DIGITS_MAX + HEAD_END.length + bodyBytes);
  if (needed > out.length) return -1;
  let at = out.write(prefix, 0, 'utf8');
  at += out.write(timestampText, at, 'utf8');
  at += out.write(SIGNATURE_FIELD, at, 'latin1');
  at += out.write(signature, at, 'utf8');
  if (body === null) return at + out.write(HEAD_END, at, 'latin1');
  at += out.write(LENGTH_FIELD, at, 'latin1');
  at = writeDecimal(out, at, bodyBytes);
  at += out.write(HEAD_END, at, 'latin1');
  return at + out.write(body, at, 'utf8');
}

/** `value` (a non-negative safe integer) in decimal ASCII at `at`; returns the offset after it. */
function writeDecimal(out: Buffer, at: number, value: number): number {
  let digits = 1;
  for (let rest = value; rest >= 10; rest = Math.floor(rest / 10)) digits++;
  let rest = value;
  for (let i = digits - 1; i >= 0; i--) {
    out[at + i] = 0x30 + (rest % 10);
    rest = Math.floor(rest / 10);
  }
  return at + digits;
}
