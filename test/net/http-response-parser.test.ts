// Goal: HttpResponseParser frames every response the raw hot-path client can meet (Content-Length,
// chunked with extensions and trailers, body until close, 1xx interim responses, 204, keep-alive
// and close signals) identically however TCP splits or coalesces the bytes, and refuses malformed
// or oversized responses with a stable error.
// Method: known response byte strings fed whole, byte by byte, and at seeded random split points
// (half of them, and the byte-by-byte run once more, in a reused buffer with an earlier read's
// bytes past each piece, as the connections' onread hands them over)
// (bounded count); results compared with the expected status, body and keep-alive; malformed inputs
// checked one by one; a seeded random-byte fuzz checks that the parser always ends in a defined
// state without throwing.

import { describe, expect, it } from 'vitest';
import { HttpResponseParser, ParseState, PARSE_ERRORS, type HttpResponseParserLimits } from '../../src/net/http-response-parser.ts';

interface Known {
  name: string;
  wire: string;
  status: number;
  body: string;
  keepAlive: boolean;
  untilClose?: boolean; // complete only at end()
  keepAliveTimeoutMs?: number;
}

const ACK = '{"order_id":"e5d8a0c2","client_order_id":"c-1","fill_count":"0.00","remaining_count":"10.00","ts_ms":1781821370267}';
const UTF8 = '{"error":{"code":"invalid_order","message":"prix hors grille: 0,42 €"}}';

const KNOWN: Known[] = [
  {
    name: 'content-length 201 (node:http style)',
    wire: `HTTP/1.1 201 Created\r\nContent-Type: application/json\r\nDate: Sun, 22 Nov 2026 20:00:00 GMT\r\nConnection: keep-alive\r\nKeep-Alive: timeout=5\r\nContent-Length: ${ACK.length}\r\n\r\n${ACK}`,
    status: 201, body: ACK, keepAlive: true, keepAliveTimeoutMs: 5000,
  },
  {
    name: 'content-length with utf-8 body, odd header case and spacing',
    wire: `HTTP/1.1 400 Bad Request\r\ncOnTeNt-LeNgTh:   ${Buffer.byteLength(UTF8)}  \r\nX-Empty:\r\n\r\n${UTF8}`,
    status: 400, body: UTF8, keepAlive: true,
  },
  {
    name: 'chunked with extension and trailers',
    wire: 'HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n' +
      '5;name=value\r\n{"ord\r\n' + `${(ACK.length - 5).toString(16).toUpperCase()}\r\n${ACK.slice(5)}\r\n` + '0\r\nX-Trailer: 1\r\n\r\n',
    status: 200, body: ACK, keepAlive: true,
  },
  {
    name: 'chunked, gzip-free coding list ending in chunked, many tiny chunks',
    wire: 'HTTP/1.1 200 OK\r\nTransfer-Encoding: identity, chunked\r\n\r\n' +
      [...'{"a":1}'].map((c) => `1\r\n${c}\r\n`).join('') + '0\r\n\r\n',
    status: 200, body: '{"a":1}', keepAlive: true,
  },
  {
    name: '100 Continue then 201',
    wire: `HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 201 Created\r\nContent-Length: 2\r\n\r\n{}`,
    status: 201, body: '{}', keepAlive: true,
  },
  {
    name: '204 with no body and Connection: close',
    wire: 'HTTP/1.1 204 No Content\r\nConnection: close\r\n\r\n',
    status: 204, body: '', keepAlive: false,
  },
  {
    name: 'content-length 0',
    wire: 'HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n',
    status: 200, body: '', keepAlive: true,
  },
  {
    name: 'bare LF line endings',
    wire: 'HTTP/1.1 429 Too Many Requests\nContent-Length: 30\n\n{"error":"too many requests"}\n',
    status: 429, body: '{"error":"too many requests"}\n', keepAlive: true,
  },
  {
    name: 'HTTP/1.0 without keep-alive',
    wire: 'HTTP/1.0 503 Service Unavailable\r\nContent-Length: 2\r\n\r\n{}',
    status: 503, body: '{}', keepAlive: false,
  },
  {
    name: 'HTTP/1.0 with Connection: keep-alive',
    wire: 'HTTP/1.0 200 OK\r\nConnection: Keep-Alive\r\nContent-Length: 2\r\n\r\n{}',
    status: 200, body: '{}', keepAlive: true,
  },
  {
    name: 'no length, not chunked: body until close',
    wire: `HTTP/1.1 500 Internal Server Error\r\nContent-Type: text/plain\r\n\r\nupstream failed`,
    status: 500, body: 'upstream failed', keepAlive: false, untilClose: true,
  },
  {
    name: 'status line without reason phrase; Connection: upgrade, close',
    wire: 'HTTP/1.1 201\r\nConnection: upgrade, close\r\nContent-Length: 2\r\n\r\n{}',
    status: 201, body: '{}', keepAlive: false,
  },
];

/** Seeded xorshift so failures reproduce. */
function random(seed: number): () => number {
  let state = seed >>> 0 || 1;
  return () => {
    state ^= state << 13;
    state ^= state >>> 17;
    state ^= state << 5;
    return (state >>> 0) / 0x1_0000_0000;
  };
}

interface Outcome {
  state: ParseState;
  status: number;
  body: string;
  keepAlive: boolean;
  keepAliveTimeoutMs: number;
  consumedAll: boolean;
  error: string | null;
}

/** Feeds `pieces` in order; stops at the first COMPLETE/ERROR; calls end() if asked and still NEED_MORE. */
function feed(parser: HttpResponseParser, pieces: Buffer[], endAtEof: boolean): Outcome {
  let state: ParseState = ParseState.NEED_MORE;
  let consumedAll = true;
  for (let p = 0; p < pieces.length; p++) {
    state = parser.execute(pieces[p]!, 0);
    if (state !== ParseState.NEED_MORE) {
      consumedAll = parser.consumed === pieces[p]!.length && p === pieces.length - 1;
      break;
    }
  }
  if (state === ParseState.NEED_MORE && endAtEof) state = parser.end();
  return {
    state, status: parser.status, body: parser.bodyText(), keepAlive: parser.keepAlive,
    keepAliveTimeoutMs: parser.keepAliveTimeoutMs, consumedAll, error: parser.error,
  };
}

/**
 * As feed(), each piece handed over as a socket's reused read buffer holds it (onread): copied to
 * the start of one buffer whose bytes past the piece are an earlier read's (stale lines, LFs
 * among them), with `end` saying where the piece stops.
 */
function feedReused(parser: HttpResponseParser, pieces: Buffer[], endAtEof: boolean): Outcome {
  const reused = Buffer.alloc(8 * 1024);
  for (let at = 0; at < reused.length; at += STALE.length) STALE.copy(reused, at);
  let state: ParseState = ParseState.NEED_MORE;
  let consumedAll = true;
  for (let p = 0; p < pieces.length; p++) {
    const piece = pieces[p]!;
    if (piece.length > reused.length) throw new Error('feedReused: piece larger than the buffer');
    piece.copy(reused, 0);
    state = parser.execute(reused, 0, piece.length);
    if (state !== ParseState.NEED_MORE) {
      consumedAll = parser.consumed === piece.length && p === pieces.length - 1;
      break;
    }
  }
  if (state === ParseState.NEED_MORE && endAtEof) state = parser.end();
  return {
    state, status: parser.status, body: parser.bodyText(), keepAlive: parser.keepAlive,
    keepAliveTimeoutMs: parser.keepAliveTimeoutMs, consumedAll, error: parser.error,
  };
}
/** An earlier read's bytes left in a reused buffer: header-like lines ending in LF. */
const STALE = Buffer.from('\r\nX-Stale: 1\r\n\r\n0\r\n', 'latin1');

function split(bytes: Buffer, cuts: number[]): Buffer[] {
  const sorted = [...new Set(cuts)].filter((cut) => cut > 0 && cut < bytes.length).sort((a, b) => a - b);
  const pieces: Buffer[] = [];
  let from = 0;
  for (const cut of sorted) {
    pieces.push(bytes.subarray(from, cut));
    from = cut;
  }
  pieces.push(bytes.subarray(from));
  return pieces;
}

function expectKnown(outcome: Outcome, known: Known): void {
  expect(outcome.error).toBeNull();
  expect(outcome.state).toBe(ParseState.COMPLETE);
  expect(outcome.status).toBe(known.status);
  expect(outcome.body).toBe(known.body);
  expect(outcome.keepAlive).toBe(known.keepAlive);
  expect(outcome.keepAliveTimeoutMs).toBe(known.keepAliveTimeoutMs ?? -1);
  if (known.untilClose !== true) expect(outcome.consumedAll).toBe(true);
}

describe('HttpResponseParser: known responses', () => {
  for (const known of KNOWN) {
    it(`${known.name}: whole, byte by byte, and at 200 random split sets`, () => {
      const bytes = Buffer.from(known.wire, 'utf8');
      const parser = new HttpResponseParser();
      expectKnown(feed(parser, [bytes], known.untilClose === true), known);
      parser.reset();
      const bytewise: Buffer[] = [];
      for (let i = 0; i < bytes.length; i++) bytewise.push(bytes.subarray(i, i + 1));
      expectKnown(feed(parser, bytewise, known.untilClose === true), known);
      const next = random(0x5eed + known.wire.length);
      for (let round = 0; round < 200; round++) {
        parser.reset();
        const cuts = Array.from({ length: 1 + Math.floor(next() * 6) }, () => Math.floor(next() * bytes.length));
        // Half the rounds as a socket's reused read buffer hands them over (stale bytes past each piece).
        const pieces = split(bytes, cuts);
        expectKnown(round % 2 === 0 ? feed(parser, pieces, known.untilClose === true) : feedReused(parser, pieces, known.untilClose === true), known);
      }
      parser.reset();
      expectKnown(feedReused(parser, bytewise, known.untilClose === true), known);
    });
  }

  it('reuses one parser for many responses on one connection, coalesced reads stop at each response end', () => {
    const parser = new HttpResponseParser();
    const first = KNOWN[0]!;
    const second = KNOWN[2]!;
    const both = Buffer.from(first.wire + second.wire, 'utf8');
    expect(parser.execute(both, 0)).toBe(ParseState.COMPLETE);
    expect(parser.bodyText()).toBe(first.body);
    const rest = parser.consumed;
    expect(rest).toBe(Buffer.byteLength(first.wire));
    parser.reset();
    expect(parser.execute(both, rest)).toBe(ParseState.COMPLETE);
    expect(parser.status).toBe(200);
    expect(parser.bodyText()).toBe(second.body);
    expect(parser.consumed).toBe(both.length);
  });

  it('grows the body buffer beyond its initial size up to the limit', () => {
    const limits: HttpResponseParserLimits = { lineBytesMax: 256, headBytesMax: 1024, bodyBytesMax: 4096, bodyBytesInitial: 16 };
    const parser = new HttpResponseParser(limits);
    const body = 'x'.repeat(4096);
    expect(parser.execute(Buffer.from(`HTTP/1.1 200 OK\r\nContent-Length: 4096\r\n\r\n${body}`), 0)).toBe(ParseState.COMPLETE);
    expect(parser.bodyText()).toBe(body);
  });
});

describe('HttpResponseParser: malformed and truncated responses', () => {
  const cases: [string, string, string][] = [
    ['not HTTP', 'SSH-2.0-OpenSSH_9.6\r\n\r\n', 'HTTP_BAD_STATUS_LINE'],
    ['HTTP/2 status line', 'HTTP/2 200 OK\r\n\r\n', 'HTTP_BAD_STATUS_LINE'],
    ['two-digit status', 'HTTP/1.1 20 OK\r\n\r\n', 'HTTP_BAD_STATUS_LINE'],
    ['101 upgrade', 'HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\n\r\n', 'HTTP_BAD_STATUS_LINE'],
    ['header without colon', 'HTTP/1.1 200 OK\r\nContent-Length 2\r\n\r\n{}', 'HTTP_BAD_HEADER'],
    ['obsolete line folding', 'HTTP/1.1 200 OK\r\nX-A: 1\r\n  folded\r\nContent-Length: 0\r\n\r\n', 'HTTP_BAD_HEADER'],
    ['negative content-length', 'HTTP/1.1 200 OK\r\nContent-Length: -1\r\n\r\n', 'HTTP_BAD_CONTENT_LENGTH'],
    ['conflicting content-lengths', 'HTTP/1.1 200 OK\r\nContent-Length: 2\r\nContent-Length: 3\r\n\r\n{}', 'HTTP_BAD_CONTENT_LENGTH'],
    ['chunked and content-length', 'HTTP/1.1 200 OK\r\nContent-Length: 2\r\nTransfer-Encoding: chunked\r\n\r\n', 'HTTP_BAD_CONTENT_LENGTH'],
    ['gzip transfer coding', 'HTTP/1.1 200 OK\r\nTransfer-Encoding: gzip\r\n\r\n', 'HTTP_BAD_TRANSFER_ENCODING'],
    ['bad chunk size', 'HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n', 'HTTP_BAD_CHUNK'],
    ['missing CRLF after chunk data', 'HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n2\r\n{}XX0\r\n\r\n', 'HTTP_BAD_CHUNK'],
    ['declared body above the limit', 'HTTP/1.1 200 OK\r\nContent-Length: 99999999\r\n\r\n', 'HTTP_BODY_TOO_LARGE'],
    ['chunk above the limit', 'HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nFFFFFFFF\r\n', 'HTTP_BAD_CHUNK'],
  ];
  for (const [name, wire, error] of cases) {
    it(`${name} -> ${error}`, () => {
      const parser = new HttpResponseParser();
      expect(parser.execute(Buffer.from(wire, 'latin1'), 0)).toBe(ParseState.ERROR);
      expect(parser.error).toBe(error);
      expect(PARSE_ERRORS).toContain(parser.error);
    });
  }

  it('a header line above the limit -> HTTP_HEADER_TOO_LARGE, even when it arrives in pieces', () => {
    const parser = new HttpResponseParser();
    expect(parser.execute(Buffer.from('HTTP/1.1 200 OK\r\nX-Big: '), 0)).toBe(ParseState.NEED_MORE);
    let state: ParseState = ParseState.NEED_MORE;
    for (let i = 0; i < 10 && state === ParseState.NEED_MORE; i++) state = parser.execute(Buffer.alloc(1024, 0x61), 0);
    expect(state).toBe(ParseState.ERROR);
    expect(parser.error).toBe('HTTP_HEADER_TOO_LARGE');
  });

  it('end() mid-response is HTTP_TRUNCATED (head, length body, chunked body); before any byte it is NEED_MORE', () => {
    const pieces = [
      'HTTP/1.1 201 Created\r\nContent-Le',
      'HTTP/1.1 201 Created\r\nContent-Length: 10\r\n\r\n{"ord',
      'HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\n{"a":',
    ];
    for (const piece of pieces) {
      const parser = new HttpResponseParser();
      expect(parser.execute(Buffer.from(piece), 0)).toBe(ParseState.NEED_MORE);
      expect(parser.end()).toBe(ParseState.ERROR);
      expect(parser.error).toBe('HTTP_TRUNCATED');
    }
    const fresh = new HttpResponseParser();
    expect(fresh.started).toBe(false);
    expect(fresh.end()).toBe(ParseState.NEED_MORE);
  });

  it('random bytes and random mutations of known responses never throw and end in a defined state', () => {
    const next = random(0xfeed);
    const states = new Set<number>();
    for (let round = 0; round < 2_000; round++) {
      const parser = new HttpResponseParser({ lineBytesMax: 512, headBytesMax: 2048, bodyBytesMax: 4096, bodyBytesInitial: 64 });
      let bytes: Buffer;
      if (round % 2 === 0) {
        bytes = Buffer.from(Array.from({ length: 1 + Math.floor(next() * 300) }, () => Math.floor(next() * 256)));
      } else {
        bytes = Buffer.from(KNOWN[Math.floor(next() * KNOWN.length)]!.wire, 'utf8');
        for (let m = 0; m < 1 + Math.floor(next() * 4); m++) bytes[Math.floor(next() * bytes.length)] = Math.floor(next() * 256);
      }
      const cuts = Array.from({ length: Math.floor(next() * 5) }, () => Math.floor(next() * bytes.length));
      const outcome = feed(parser, split(bytes, cuts), true);
      states.add(outcome.state);
      if (outcome.state === ParseState.ERROR) expect(PARSE_ERRORS).toContain(outcome.error);
      if (outcome.state === ParseState.COMPLETE) expect(outcome.status).toBeGreaterThanOrEqual(200);
    }
    expect(states.has(ParseState.ERROR)).toBe(true);
    expect(states.has(ParseState.COMPLETE)).toBe(true);
  });
});
