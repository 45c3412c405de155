/**
 * An incremental HTTP/1.1 response parser for the raw hot-path connections
 * (raw-http-connection.ts): fed the bytes of one socket as they arrive, split or coalesced
 * anywhere, it reads the status line, the few headers the client acts on (Content-Length,
 * Transfer-Encoding: chunked, Connection, Keep-Alive: timeout=N), skips 1xx interim responses,
 * and collects the body (by length, chunked, or until the peer closes) into one reused buffer.
 *
 * Owns framing only: never interprets a status or a body (rest-order-entry.ts does), never touches
 * a socket. No string is made per header: names are compared byte by byte in place; only the
 * body becomes a string, and only when the owner asks for it. A malformed or oversized response
 * sets `error` to one of PARSE_ERRORS and stops; the connection carrying it must be closed.
 */

/** What execute() reports. */
export const ParseState = {
  NEED_MORE: 0, // the response is not complete yet; feed more bytes (or call end() at EOF)
  COMPLETE: 1, // one full response; `consumed` says where it ended in the last chunk
  ERROR: 2, // malformed; `error` names why
} as const;
export type ParseState = (typeof ParseState)[keyof typeof ParseState];

/** Stable reasons a response cannot be framed; each is a broken or hostile peer. */
export const PARSE_ERRORS = [
  'HTTP_BAD_STATUS_LINE',
  'HTTP_BAD_HEADER',
  'HTTP_HEADER_TOO_LARGE',
  'HTTP_BAD_CONTENT_LENGTH',
  'HTTP_BAD_TRANSFER_ENCODING',
  'HTTP_BAD_CHUNK',
  'HTTP_BODY_TOO_LARGE',
  'HTTP_TRUNCATED', // the peer closed before the declared end of the response
] as const;
export type ParseError = (typeof PARSE_ERRORS)[number];

// Phases of one response.
const HEAD_STATUS = 0;
const HEAD_FIELDS = 1;
const BODY_LENGTH = 2;
const BODY_UNTIL_CLOSE = 3;
const CHUNK_SIZE = 4;
const CHUNK_DATA = 5;
const CHUNK_DATA_END = 6; // the CRLF after a chunk's data
const CHUNK_TRAILERS = 7;
const DONE = 8;
const FAILED = 9;

const CR = 0x0d;
const LF = 0x0a;
const COLON = 0x3a;

// Header names as lower-case bytes; compared against the wire with `| 0x20` (ASCII letters only).
/** Runs up to this many bytes are copied by a loop (copyBytes). */
const COPY_BY_LOOP_MAX = 512;
const NAME_CONTENT_LENGTH = Buffer.from('content-length', 'latin1');
const NAME_TRANSFER_ENCODING = Buffer.from('transfer-encoding', 'latin1');
const NAME_CONNECTION = Buffer.from('connection', 'latin1');
const NAME_KEEP_ALIVE = Buffer.from('keep-alive', 'latin1');
const TOKEN_CHUNKED = Buffer.from('chunked', 'latin1');
const TOKEN_CLOSE = Buffer.from('close', 'latin1');
const TOKEN_KEEP_ALIVE = NAME_KEEP_ALIVE;
const TOKEN_TIMEOUT = Buffer.from('timeout', 'latin1');

export interface HttpResponseParserLimits {
  lineBytesMax: number; // one status or header line (8 KiB is generous for an API)
  headBytesMax: number; // all header lines of one response
  bodyBytesMax: number; // 1 MiB: far above any order response; more is a broken peer
  bodyBytesInitial: number; // body buffer allocated up front; grows by doubling up to the max
}

export const HTTP_RESPONSE_PARSER_LIMITS: Readonly<HttpResponseParserLimits> = Object.freeze({
  lineBytesMax: 8 * 1024,
  headBytesMax: 32 * 1024,
  bodyBytesMax: 1 << 20,
  bodyBytesInitial: 16 * 1024,
});

export class HttpResponseParser {
  // ---- the response, valid once execute() returned COMPLETE ----
  status = 0;
  keepAlive = true; // false: the server will close (Connection: close, HTTP/1.0, body until close)
  keepAliveTimeoutMs = -1; // from `Keep-Alive: timeout=N`, -1 when not sent
  body: Buffer; // bytes [0, bodyLength); reused: read it before the next execute()
  bodyLength = 0;
  error: ParseError | null = null;
  consumed = 0; // after COMPLETE/ERROR: index in the last chunk where parsing stopped

  readonly #limits: HttpResponseParserLimits;
  #phase = HEAD_STATUS;
  readonly #line: Buffer;
  #lineLength = 0;
  #headBytes = 0;
  #minorVersion = 1;
  #contentLength = -1;
  #chunked = false;
  #connectionClose = false;
  #connectionKeepAlive = false;
  #remaining = 0; // body bytes left (BODY_LENGTH) or chunk bytes left (CHUNK_DATA)
  #sawCr = false; // CHUNK_DATA_END: the CR was seen

  constructor(limits: HttpResponseParserLimits = HTTP_RESPONSE_PARSER_LIMITS) {
    this.#limits = limits;
    this.#line = Buffer.allocUnsafe(limits.lineBytesMax);
    this.body = Buffer.allocUnsafe(Math.min(limits.bodyBytesInitial, limits.bodyBytesMax));
  }

  /** True between the first byte of a response and its end: an EOF now truncates it. */
  get started(): boolean {
    return this.#phase !== HEAD_STATUS || this.#lineLength > 0;
  }

  /** Ready for the next response on the same connection. */
  reset(): void {
    this.status = 0;
    this.keepAlive = true;
    this.keepAliveTimeoutMs = -1;
    this.bodyLength = 0;
    this.error = null;
    this.consumed = 0;
    this.#phase = HEAD_STATUS;
    this.#resetHead();
  }

  #resetHead(): void {
    this.#lineLength = 0;
    this.#headBytes = 0;
    this.#minorVersion = 1;
    this.#contentLength = -1;
    this.#chunked = false;
    this.#connectionClose = false;
    this.#connectionKeepAlive = false;
    this.#remaining = 0;
    this.#sawCr = false;
  }

  /**
   * Parses chunk[start, end). Returns COMPLETE when a full (non-1xx) response ended, with
   * `consumed` the index after its last byte (bytes beyond it belong to nobody: the client never
   * pipelines); NEED_MORE when every byte was used; ERROR when the response cannot be framed.
   */
  execute(chunk: Buffer, start: number, end = chunk.length): ParseState {
    let i = start;
    while (i < end) {
      switch (this.#phase) {
        case HEAD_STATUS:
        case HEAD_FIELDS: {
          const lineEnd = lfAt(chunk, i, end);
          const stop = lineEnd === -1 ? end : lineEnd;
          const bytes = stop - i;
          this.#headBytes += bytes + (lineEnd === -1 ? 0 : 1);
          if (this.#lineLength + bytes > this.#limits.lineBytesMax || this.#headBytes > this.#limits.headBytesMax) {
            return this.#fail('HTTP_HEADER_TOO_LARGE', stop);
          }
          copyBytes(chunk, i, stop, this.#line, this.#lineLength);
          this.#lineLength += bytes;
          if (lineEnd === -1) return this.#needMore(end);
          i = lineEnd + 1;
          let length = this.#lineLength;
          if (length > 0 && this.#line[length - 1] === CR) length--; // CRLF, or a bare LF
          this.#lineLength = 0;
          if (this.#phase === HEAD_STATUS) {
            if (!this.#statusLine(length)) return this.#fail('HTTP_BAD_STATUS_LINE', i);
            this.#phase = HEAD_FIELDS;
          } else if (length > 0) {
            const problem = this.#headerLine(length);
            if (problem !== null) return this.#fail(problem, i);
          } else {
            const state = this.#endOfHead(i);
            if (state !== ParseState.NEED_MORE) return state;
          }
          break;
        }
        case BODY_LENGTH: {
          const take = Math.min(this.#remaining, end - i);
          if (!this.#appendBody(chunk, i, take)) return this.#fail('HTTP_BODY_TOO_LARGE', i);
          i += take;
          this.#remaining -= take;
          if (this.#remaining === 0) return this.#complete(i);
          break;
        }
        case BODY_UNTIL_CLOSE: {
          if (!this.#appendBody(chunk, i, end - i)) return this.#fail('HTTP_BODY_TOO_LARGE', i);
          return this.#needMore(end);
        }
        case CHUNK_SIZE:
        case CHUNK_TRAILERS: {
          const lineEnd = lfAt(chunk, i, end);
          const stop = lineEnd === -1 ? end : lineEnd;
          const bytes = stop - i;
          if (this.#lineLength + bytes > this.#limits.lineBytesMax) return this.#fail('HTTP_BAD_CHUNK', stop);
          copyBytes(chunk, i, stop, this.#line, this.#lineLength);
          this.#lineLength += bytes;
          if (lineEnd === -1) return this.#needMore(end);
          i = lineEnd + 1;
          let length = this.#lineLength;
          if (length > 0 && this.#line[length - 1] === CR) length--;
          this.#lineLength = 0;
          if (this.#phase === CHUNK_TRAILERS) {
            if (length === 0) return this.#complete(i); // trailers (ignored) end with an empty line
            break;
          }
          const size = this.#chunkSize(length);
          if (size < 0) return this.#fail('HTTP_BAD_CHUNK', i);
          if (size === 0) {
            this.#phase = CHUNK_TRAILERS;
          } else {
            this.#remaining = size;
            this.#phase = CHUNK_DATA;
          }
          break;
        }
        case CHUNK_DATA: {
          const take = Math.min(this.#remaining, end - i);
          if (!this.#appendBody(chunk, i, take)) return this.#fail('HTTP_BODY_TOO_LARGE', i);
          i += take;
          this.#remaining -= take;
          if (this.#remaining === 0) {
            this.#phase = CHUNK_DATA_END;
            this.#sawCr = false;
          }
          break;
        }
        case CHUNK_DATA_END: {
          const byte = chunk[i]!;
          i++;
          if (byte === CR && !this.#sawCr) {
            this.#sawCr = true;
          } else if (byte === LF) {
            this.#phase = CHUNK_SIZE;
          } else {
            return this.#fail('HTTP_BAD_CHUNK', i);
          }
          break;
        }
        default:
          // DONE or FAILED: the owner must reset() first; bytes here are a caller bug.
          return this.#fail('HTTP_BAD_STATUS_LINE', i);
      }
    }
    return this.#needMore(end);
  }

  /**
   * The peer closed the connection. COMPLETE when the body was being read until close (the end
   * of the stream is its end), otherwise ERROR HTTP_TRUNCATED when a response had started, or
   * NEED_MORE when nothing had arrived (the caller decides what a close with no response means).
   */
  end(): ParseState {
    if (this.#phase === BODY_UNTIL_CLOSE) {
      this.#phase = DONE;
      this.keepAlive = false;
      return ParseState.COMPLETE;
    }
    if (this.#phase === DONE) return ParseState.COMPLETE;
    if (this.#phase === FAILED) return ParseState.ERROR;
    if (!this.started) return ParseState.NEED_MORE;
    this.#phase = FAILED;
    this.error = 'HTTP_TRUNCATED';
    return ParseState.ERROR;
  }

  /** The body as text (allocates the string; call once per response). */
  bodyText(): string {
    return this.bodyLength === 0 ? '' : this.body.toString('utf8', 0, this.bodyLength);
  }

  #needMore(consumed: number): ParseState {
    this.consumed = consumed;
    return ParseState.NEED_MORE;
  }

  #complete(consumed: number): ParseState {
    this.#phase = DONE;
    this.consumed = consumed;
    return ParseState.COMPLETE;
  }

  #fail(error: ParseError, consumed: number): ParseState {
    this.#phase = FAILED;
    this.error = error;
    this.consumed = consumed;
    return ParseState.ERROR;
  }

  /** "HTTP/1.x SSS[ reason]" */
  #statusLine(length: number): boolean {
    const line = this.#line;
    if (length < 12) return false;
    // 'HTTP/1.'
    if (line[0] !== 0x48 || line[1] !== 0x54 || line[2] !== 0x54 || line[3] !== 0x50 || line[4] !== 0x2f || line[5] !== 0x31 || line[6] !== 0x2e) {
      return false;
    }
    const minor = line[7]! - 0x30;
    if (minor !== 0 && minor !== 1) return false;
    if (line[8] !== 0x20) return false;
    let status = 0;
    for (let k = 9; k < 12; k++) {
      const digit = line[k]! - 0x30;
      if (digit < 0 || digit > 9) return false;
      status = status * 10 + digit;
    }
    if (status < 100) return false;
    if (length > 12 && line[12] !== 0x20) return false;
    this.#minorVersion = minor;
    this.status = status;
    return true;
  }

  /** One "name: value" line; only the names the client acts on are read. */
  #headerLine(length: number): ParseError | null {
    const line = this.#line;
    const colon = line.indexOf(COLON);
    if (colon <= 0 || colon >= length) return 'HTTP_BAD_HEADER';
    const first = line[0]!;
    if (first === 0x20 || first === 0x09) return 'HTTP_BAD_HEADER'; // obsolete line folding
    let valueStart = colon + 1;
    while (valueStart < length && (line[valueStart] === 0x20 || line[valueStart] === 0x09)) valueStart++;
    let valueEnd = length;
    while (valueEnd > valueStart && (line[valueEnd - 1] === 0x20 || line[valueEnd - 1] === 0x09)) valueEnd--;
    if (nameIs(line, colon, NAME_CONTENT_LENGTH)) {
      let value = 0;
      if (valueEnd === valueStart) return 'HTTP_BAD_CONTENT_LENGTH';
      for (let k = valueStart; k < valueEnd; k++) {
        const digit = line[k]! - 0x30;
        if (digit < 0 || digit > 9) return 'HTTP_BAD_CONTENT_LENGTH';
        value = value * 10 + digit;
        if (value > Number.MAX_SAFE_INTEGER / 10) return 'HTTP_BAD_CONTENT_LENGTH';
      }
      // A repeated Content-Length must agree (RFC 9112 §6.3): otherwise the framing is ambiguous.
      if (this.#contentLength !== -1 && this.#contentLength !== value) return 'HTTP_BAD_CONTENT_LENGTH';
      this.#contentLength = value;
      return null;
    }
    if (nameIs(line, colon, NAME_TRANSFER_ENCODING)) {
      // Only "chunked" as the final coding frames a response we can read; we never ask for
      // compression, so any other coding is a peer we do not understand.
      if (!lastTokenIs(line, valueStart, valueEnd, TOKEN_CHUNKED)) return 'HTTP_BAD_TRANSFER_ENCODING';
      this.#chunked = true;
      return null;
    }
    if (nameIs(line, colon, NAME_CONNECTION)) {
      if (hasToken(line, valueStart, valueEnd, TOKEN_CLOSE)) this.#connectionClose = true;
      if (hasToken(line, valueStart, valueEnd, TOKEN_KEEP_ALIVE)) this.#connectionKeepAlive = true;
      return null;
    }
    if (nameIs(line, colon, NAME_KEEP_ALIVE)) {
      const seconds = timeoutParameter(line, valueStart, valueEnd);
      if (seconds >= 0) this.keepAliveTimeoutMs = seconds * 1000;
      return null;
    }
    return null;
  }

  /** After the empty line: decide how the body is framed (RFC 9112 §6.3). */
  #endOfHead(next: number): ParseState {
    const status = this.status;
    if (status < 200 && status !== 101) {
      // 1xx interim response (100 Continue, 103 Early Hints): the real one follows.
      this.#phase = HEAD_STATUS;
      this.#resetHead();
      this.status = 0;
      this.keepAliveTimeoutMs = -1;
      return ParseState.NEED_MORE;
    }
    if (status === 101) return this.#fail('HTTP_BAD_STATUS_LINE', next); // we never ask to upgrade
    this.keepAlive = this.#minorVersion === 1 ? !this.#connectionClose : this.#connectionKeepAlive && !this.#connectionClose;
    if (status === 204 || status === 304) return this.#complete(next);
    if (this.#chunked) {
      if (this.#contentLength !== -1) return this.#fail('HTTP_BAD_CONTENT_LENGTH', next); // both: request smuggling territory
      this.#phase = CHUNK_SIZE;
      return ParseState.NEED_MORE;
    }
    if (this.#contentLength !== -1) {
      if (this.#contentLength > this.#limits.bodyBytesMax) return this.#fail('HTTP_BODY_TOO_LARGE', next);
      if (this.#contentLength === 0) return this.#complete(next);
      this.#remaining = this.#contentLength;
      this.#phase = BODY_LENGTH;
      return ParseState.NEED_MORE;
    }
    // No length and not chunked: the body runs until the server closes; the socket is spent.
    this.keepAlive = false;
    this.#phase = BODY_UNTIL_CLOSE;
    return ParseState.NEED_MORE;
  }

  /** Hex size of a chunk-size line, extensions after ';' ignored; -1 when malformed. */
  #chunkSize(length: number): number {
    const line = this.#line;
    let size = 0;
    let digits = 0;
    let k = 0;
    for (; k < length; k++) {
      const byte = line[k]!;
      let digit: number;
      if (byte >= 0x30 && byte <= 0x39) digit = byte - 0x30;
      else if (byte >= 0x61 && byte <= 0x66) digit = byte - 0x57;
      else if (byte >= 0x41 && byte <= 0x46) digit = byte - 0x37;
      else break;
      size = size * 16 + digit;
      digits++;
      if (size > this.#limits.bodyBytesMax) return -1;
    }
    if (digits === 0) return -1;
    while (k < length && (line[k] === 0x20 || line[k] === 0x09)) k++;
    if (k < length && line[k] !== 0x3b) return -1; // ';' starts extensions
    return size;
  }

  #appendBody(chunk: Buffer, from: number, count: number): boolean {
    if (count === 0) return true;
    const needed = this.bodyLength + count;
    if (needed > this.#limits.bodyBytesMax) return false;
    if (needed > this.body.length) {
      let size = this.body.length * 2;
      while (size < needed) size *= 2;
      const grown = Buffer.allocUnsafe(Math.min(size, this.#limits.bodyBytesMax));
      this.body.copy(grown, 0, 0, this.bodyLength);
      this.body = grown;
    }
    copyBytes(chunk, from, from + count, this.body, this.bodyLength);
    this.bodyLength = needed;
    return true;
  }
}

/**
 * The first LF in bytes[from, end), or -1. Bounded by `end`, not by the buffer: a socket's reused
 * read buffer (onread) holds an earlier read's bytes past this one's end, and Buffer.indexOf would
 * find an LF there (a response framed wrong, NET_BAD_RESPONSE, caught on Node 24 in CI).
 */
function lfAt(bytes: Buffer, from: number, end: number): number {
  for (let i = from; i < end; i++) if (bytes[i] === LF) return i;
  return -1;
}

/**
 * source[start, end) copied to target at `at`. A short run is copied by a loop: Buffer.copy makes
 * a Uint8Array view of the source range per call (Node 20), ~1.3 KB an order from this parser's
 * header lines and ack bodies in bench/tick-to-trade's heap profile, and its native call costs
 * more than the loop below this size.
 */
function copyBytes(source: Buffer, start: number, end: number, target: Buffer, at: number): void {
  if (end - start > COPY_BY_LOOP_MAX) {
    source.copy(target, at, start, end);
    return;
  }
  for (let i = start; i < end; i++) target[at++] = source[i]!;
}

/** line[0, nameEnd) equals `name` ignoring ASCII case (name is lower-case letters and '-'). */
function nameIs(line: Buffer, nameEnd: number, name: Buffer): boolean {
  if (nameEnd !== name.length) return false;
  for (let k = 0; k < nameEnd; k++) {
    if ((line[k]! | 0x20) !== name[k]) return false;
  }
  return true;
}

/** A comma-separated list in line[start, end) contains `token` (case-insensitive). */
function hasToken(line: Buffer, start: number, end: number, token: Buffer): boolean {
  let k = start;
  while (k < end) {
    while (k < end && (line[k] === 0x20 || line[k] === 0x09 || line[k] === 0x2c)) k++;
    let stop = k;
    while (stop < end && line[stop] !== 0x2c) stop++;
    let tokenEnd = stop;
    while (tokenEnd > k && (line[tokenEnd - 1] === 0x20 || line[tokenEnd - 1] === 0x09)) tokenEnd--;
    if (rangeIs(line, k, tokenEnd, token)) return true;
    k = stop + 1;
  }
  return false;
}

/** The last element of a comma-separated list in line[start, end) is `token`. */
function lastTokenIs(line: Buffer, start: number, end: number, token: Buffer): boolean {
  let tokenStart = end;
  while (tokenStart > start && line[tokenStart - 1] !== 0x2c) tokenStart--;
  while (tokenStart < end && (line[tokenStart] === 0x20 || line[tokenStart] === 0x09)) tokenStart++;
  return rangeIs(line, tokenStart, end, token);
}

function rangeIs(line: Buffer, start: number, end: number, token: Buffer): boolean {
  if (end - start !== token.length) return false;
  for (let k = 0; k < token.length; k++) {
    if ((line[start + k]! | 0x20) !== token[k]) return false;
  }
  return true;
}

/** `timeout=N` (seconds) of a Keep-Alive header value, -1 when absent or malformed. */
function timeoutParameter(line: Buffer, start: number, end: number): number {
  let k = start;
  while (k < end) {
    while (k < end && (line[k] === 0x20 || line[k] === 0x09 || line[k] === 0x2c)) k++;
    const nameStart = k;
    while (k < end && line[k] !== 0x3d && line[k] !== 0x2c) k++;
    if (k < end && line[k] === 0x3d && rangeIs(line, nameStart, k, TOKEN_TIMEOUT)) {
      k++;
      let seconds = 0;
      let digits = 0;
      while (k < end && line[k]! >= 0x30 && line[k]! <= 0x39 && digits < 9) {
        seconds = seconds * 10 + (line[k]! - 0x30);
        digits++;
        k++;
      }
      return digits > 0 ? seconds : -1;
    }
    while (k < end && line[k] !== 0x2c) k++;
  }
  return -1;
}
