// Goal: the raw hot-path HTTP client writes each request with one synchronous socket.write on a
// warm TCP_NODELAY connection, keeps one request per connection (queueing the rest, bounded and
// counted), frames responses however the server splits them (Content-Length, chunked, until close),
// reports every failure with the right NetFailure and sent flag (timeout, close mid-response,
// garbage, queue full, queued too long, closed pool), writes per-request targets (sendTo) only when
// they cannot split the request line, and recovers: server-closed idle sockets,
// dropped connections and refused reconnects come back with backoff.
// Method: node:http servers and hand-written node:net servers on 127.0.0.1:0; a recording
// handler; timeouts driven by calling tick() with a monotonic time moved forward (no waiting on
// wall time); bounded polling for asynchronous outcomes.

import { createServer as createHttpServer, type Server as HttpServer } from 'node:http';
import { createServer as createNetServer, Socket, type AddressInfo, type Server as NetServer } from 'node:net';
import { performance } from 'node:perf_hooks';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { InvariantError } from '../../src/core/index.ts';
import { RawHttpPool, SendResult, type RawHttpPoolOptions } from '../../src/net/index.ts';
import type { RawExchangeHandler } from '../../src/net/index.ts';
import { NET_FAILURES, type NetFailure } from '../../src/net/index.ts';

type Outcome = { status: number; body: string } | { code: NetFailure; sent: boolean };

class Recorder implements RawExchangeHandler {
  readonly outcomes: Outcome[] = [];
  onRawResponse(status: number, body: Buffer, bodyLength: number): void {
    this.outcomes.push({ status, body: body.toString('utf8', 0, bodyLength) });
  }
  onRawFailure(code: NetFailure, sent: boolean): void {
    this.outcomes.push({ code, sent });
  }
}

async function until(condition: () => boolean, rounds = 400): Promise<void> {
  for (let i = 0; i < rounds && !condition(); i++) await new Promise((resolve) => setTimeout(resolve, 5));
  expect(condition()).toBe(true);
}

const servers: (HttpServer | NetServer)[] = [];
const pools: RawHttpPool[] = [];
const serverSockets = new Set<Socket>();

afterEach(async () => {
  vi.restoreAllMocks();
  for (const pool of pools.splice(0)) pool.close();
  for (const socket of serverSockets) socket.destroy();
  serverSockets.clear();
  await Promise.all(servers.splice(0).map((server) => new Promise<void>((resolve) => server.close(() => resolve()))));
});

function track<T extends HttpServer | NetServer>(server: T): T {
  servers.push(server);
  server.on('connection', (socket: Socket) => {
    serverSockets.add(socket);
    socket.on('close', () => serverSockets.delete(socket));
  });
  return server;
}

async function listen(server: HttpServer | NetServer, port = 0): Promise<number> {
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  return (server.address() as AddressInfo).port;
}

function poolOptions(port: number, overrides: Partial<RawHttpPoolOptions> = {}): RawHttpPoolOptions {
  return {
    origin: `http://127.0.0.1:${port}`, keyId: 'key-1', connections: 2, queueMax: 8, connectTimeoutMs: 2_000,
    headersTimeoutMs: 2_000, bodyTimeoutMs: 2_000, idleLifetimeMs: 60_000, keepAliveMarginMs: 1_000,
    reconnectMinMs: 10, reconnectMaxMs: 80, tickMs: 10, tls: null, ...overrides,
  };
}

async function openPool(port: number, overrides: Partial<RawHttpPoolOptions> = {}): Promise<RawHttpPool> {
  const pool = new RawHttpPool(poolOptions(port, overrides));
  pools.push(pool);
  await pool.connect();
  return pool;
}

interface Seen {
  method: string;
  url: string;
  headers: Record<string, string | string[] | undefined>;
  body: string;
  socketInFlight: number; // requests open on that socket when this one arrived (must be 1)
  remotePort: number; // the client connection it came on
}

/** node:http server answering by a script; records each request and per-socket concurrency. */
async function httpServer(answer: (seen: Seen, response: import('node:http').ServerResponse) => void, keepAliveTimeoutMs = 30_000) {
  const seen: Seen[] = [];
  const inFlight = new Map<Socket, number>();
  const server = track(createHttpServer({ keepAliveTimeout: keepAliveTimeoutMs }, (request, response) => {
    const socket = request.socket;
    inFlight.set(socket, (inFlight.get(socket) ?? 0) + 1);
    response.on('finish', () => inFlight.set(socket, inFlight.get(socket)! - 1));
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const one: Seen = {
        method: request.method ?? '', url: request.url ?? '', headers: request.headers,
        body: Buffer.concat(chunks).toString('utf8'), socketInFlight: inFlight.get(socket)!, remotePort: socket.remotePort ?? -1,
      };
      seen.push(one);
      answer(one, response);
    });
  }));
  const port = await listen(server);
  return { server, port, seen };
}

const ACK = '{"order_id":"o-1","fill_count":"0.00","remaining_count":"10.00","ts_ms":1}';

function json(response: import('node:http').ServerResponse, status: number, body: string): void {
  response.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
  response.end(body);
}

describe('RawHttpPool: writing', () => {
  it('opens warm TCP_NODELAY connections and writes a request with ONE socket.write before send() returns', async () => {
    const noDelay = vi.spyOn(Socket.prototype, 'setNoDelay');
    const { port, seen } = await httpServer((_seen, response) => json(response, 201, ACK));
    const pool = await openPool(port, { connections: 3 });
    expect(pool.connectedCount).toBe(3);
    expect(noDelay.mock.calls.filter((call) => call[0] === true).length).toBeGreaterThanOrEqual(3);

    const writes: { text: string; pendingAfter: number }[] = [];
    const original = Socket.prototype.write;
    vi.spyOn(Socket.prototype, 'write').mockImplementation(function (this: Socket, ...args: Parameters<Socket['write']>) {
      const result = original.apply(this, args);
      writes.push({ text: String(args[0]), pendingAfter: this.writableLength });
      return result;
    });
    const recorder = new Recorder();
    const head = pool.head('POST', '/trade-api/v2/portfolio/events/orders', true);
    const body = '{"ticker":"KX","client_order_id":"ü-1"}';
    const bytesBefore = pool.bytesWritten;
    expect(pool.send(recorder, head, '1781821370267', 'c2lnbmF0dXJl', body)).toBe(SendResult.WRITTEN);
    // Inside send(): exactly one write, every byte handed to the kernel (nothing left buffered in JS).
    expect(writes).toHaveLength(1);
    expect(writes[0]!.pendingAfter).toBe(0);
    const expected = 'POST /trade-api/v2/portfolio/events/orders HTTP/1.1\r\nHost: 127.0.0.1:' + port + '\r\n' +
      'KALSHI-ACCESS-KEY: key-1\r\nContent-Type: application/json\r\nKALSHI-ACCESS-TIMESTAMP: 1781821370267\r\n' +
      `KALSHI-ACCESS-SIGNATURE: c2lnbmF0dXJl\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`;
    expect(writes[0]!.text).toBe(expected);
    expect(pool.bytesWritten - bytesBefore).toBe(Buffer.byteLength(expected));
    vi.mocked(Socket.prototype.write).mockRestore();

    await until(() => recorder.outcomes.length === 1);
    expect(recorder.outcomes[0]).toEqual({ status: 201, body: ACK });
    expect(seen[0]!.body).toBe(body);
    expect(seen[0]!.headers['kalshi-access-key']).toBe('key-1');
    expect(seen[0]!.headers['kalshi-access-timestamp']).toBe('1781821370267');
    expect(seen[0]!.headers['kalshi-access-signature']).toBe('c2lnbmF0dXJl');
    expect(seen[0]!.headers['content-type']).toBe('application/json');
    expect(pool.stats.written).toBe(1);
    expect(pool.stats.queued).toBe(0);
  });

  it('sends a body-less request without Content-Type or Content-Length', async () => {
    const { port, seen } = await httpServer((_seen, response) => json(response, 200, '{}'));
    const pool = await openPool(port, { connections: 1 });
    const recorder = new Recorder();
    pool.send(recorder, pool.head('GET', '/trade-api/v2/portfolio/balance', false), '1', 'sig', null);
    await until(() => recorder.outcomes.length === 1);
    expect(seen[0]!.method).toBe('GET');
    expect(seen[0]!.headers['content-length']).toBeUndefined();
    expect(seen[0]!.headers['content-type']).toBeUndefined();
  });

  it('sendTo writes a per-request target (path and query) with ONE socket.write, with or without a body', async () => {
    const { port, seen } = await httpServer((_seen, response) => json(response, 200, '{}'));
    const pool = await openPool(port, { connections: 1 });
    const writes: string[] = [];
    const original = Socket.prototype.write;
    vi.spyOn(Socket.prototype, 'write').mockImplementation(function (this: Socket, ...args: Parameters<Socket['write']>) {
      writes.push(String(args[0]));
      return original.apply(this, args);
    });
    const recorder = new Recorder();
    const target = '/trade-api/v2/portfolio/events/orders/o%2F1/amend?subaccount=2';
    const body = '{"ticker":"T","side":"bid","price":"0.4300","count":"10.00"}';
    expect(pool.sendTo(recorder, 'POST', target, '17', 'c2ln', body)).toBe(SendResult.WRITTEN);
    expect(writes).toEqual([
      `POST ${target} HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nKALSHI-ACCESS-KEY: key-1\r\nContent-Type: application/json\r\n` +
      `KALSHI-ACCESS-TIMESTAMP: 17\r\nKALSHI-ACCESS-SIGNATURE: c2ln\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
    ]);
    vi.mocked(Socket.prototype.write).mockRestore();
    await until(() => recorder.outcomes.length === 1);
    expect(pool.sendTo(recorder, 'DELETE', '/trade-api/v2/portfolio/events/orders/o-2', '18', 'c2ln', null)).toBe(SendResult.WRITTEN);
    await until(() => recorder.outcomes.length === 2);
    expect(seen.map((one) => `${one.method} ${one.url} ${one.body}`)).toEqual([`POST ${target} ${body}`, 'DELETE /trade-api/v2/portfolio/events/orders/o-2 ']);
    expect(seen[1]!.headers['content-type']).toBeUndefined();
    expect(seen[1]!.headers['content-length']).toBeUndefined();
    expect(pool.stats.written).toBe(2);
  });

  it('sendTo asserts on a target that could split the request line, and refuses (not sent) once closed', async () => {
    const { port, seen } = await httpServer((_seen, response) => json(response, 200, '{}'));
    const pool = await openPool(port, { connections: 1 });
    const recorder = new Recorder();
    for (const bad of ['/orders/a b', '/orders/a\r\nX: y', 'orders/a', '', '/orders/é']) {
      expect(() => pool.sendTo(recorder, 'POST', bad, '1', 's', '{}')).toThrow(InvariantError);
    }
    expect(() => pool.sendTo(recorder, 'post', '/x', '1', 's', '{}')).toThrow(InvariantError);
    expect(pool.stats.requests).toBe(0);
    pool.close();
    expect(pool.sendTo(recorder, 'POST', '/x', '1', 's', '{}')).toBe(SendResult.REFUSED);
    expect(recorder.outcomes).toEqual([{ code: 'NET_DISCONNECTED', sent: false }]);
    expect(seen).toHaveLength(0);
  });

  it('reuses a connection\'s request buffer: a long request then shorter ones arrive exact, and one larger than the buffer goes whole', async () => {
    const { port, seen } = await httpServer((one, response) => json(response, 200, `{"n":${one.body.length}}`));
    const pool = await openPool(port, { connections: 1 });
    const recorder = new Recorder();
    const head = pool.head('POST', '/x', true);
    const bodies = ['x'.repeat(5_000), 'é'.repeat(7), '1', 'y'.repeat(40_000), '{"a":"z"}'];
    for (const body of bodies) {
      const before = recorder.outcomes.length;
      expect(pool.send(recorder, head, '1', 'sig', body)).toBe(SendResult.WRITTEN); // the one connection is idle again each time
      await until(() => recorder.outcomes.length === before + 1);
    }
    expect(seen.map((one) => one.body)).toEqual(bodies);
    expect(seen.map((one) => one.headers['content-length'])).toEqual(bodies.map((body) => String(Buffer.byteLength(body))));
    expect(pool.stats.queued).toBe(0);
  });

  it('rehearse assembles the request the next send would write, on the connection it would take, and writes nothing', async () => {
    const held: import('node:http').ServerResponse[] = [];
    const { port, seen } = await httpServer((one, response) => (one.url === '/hold' ? held.push(response) : json(response, 201, ACK)));
    const pool = await openPool(port, { connections: 2 });
    const recorder = new Recorder();
    const head = pool.head('POST', '/trade-api/v2/portfolio/events/orders', true);
    const body = '{"ticker":"KX","client_order_id":"rt-1"}';
    const request = 'POST /trade-api/v2/portfolio/events/orders HTTP/1.1\r\nHost: 127.0.0.1:' + port + '\r\n' +
      'KALSHI-ACCESS-KEY: key-1\r\nContent-Type: application/json\r\nKALSHI-ACCESS-TIMESTAMP: 1781821370267\r\n' +
      `KALSHI-ACCESS-SIGNATURE: c2lnbmF0dXJl\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`;
    expect(pool.send(recorder, head, '1781821370267', 'c2lnbmF0dXJl', body)).toBe(SendResult.WRITTEN); // on the first connection
    await until(() => recorder.outcomes.length === 1);

    const write = vi.spyOn(Socket.prototype, 'write');
    const bytesBefore = pool.bytesWritten;
    for (let i = 0; i < 3; i++) expect(pool.rehearse(head, '1781821370267', 'c2lnbmF0dXJl', body, null)).toBe(Buffer.byteLength(request));
    expect(write).not.toHaveBeenCalled();
    expect(pool.bytesWritten).toBe(bytesBefore);
    expect(pool.stats.requests).toBe(1);
    write.mockRestore();

    // The rehearsals moved no pick: the next send goes on the second connection, as it would have.
    expect(pool.send(recorder, head, '1781821370267', 'c2lnbmF0dXJl', body)).toBe(SendResult.WRITTEN);
    await until(() => recorder.outcomes.length === 2);
    expect(seen).toHaveLength(2);
    expect(seen[1]!.remotePort).not.toBe(seen[0]!.remotePort);
    expect(seen[1]!.body).toBe(body); // the rehearsal left nothing in the way of the real request's bytes

    // No idle connection (both wait on an answer): nothing to rehearse on; closed: neither.
    const holdHead = pool.head('GET', '/hold', false);
    expect(pool.send(recorder, holdHead, '1', 'sig', null)).toBe(SendResult.WRITTEN);
    expect(pool.send(recorder, holdHead, '1', 'sig', null)).toBe(SendResult.WRITTEN);
    expect(pool.rehearse(head, '1781821370267', 'c2lnbmF0dXJl', body, null)).toBe(-1);
    await until(() => held.length === 2);
    for (const response of held) json(response, 200, '{}');
    await until(() => recorder.outcomes.length === 4);
    expect(pool.rehearse(head, '1781821370267', 'c2lnbmF0dXJl', body, null)).toBe(Buffer.byteLength(request));
    pool.close();
    expect(pool.rehearse(head, '1781821370267', 'c2lnbmF0dXJl', body, null)).toBe(-1);
    expect(seen).toHaveLength(4);
  });

  it('rehearseTo assembles a per-order target as sendTo would write it, writes nothing, and refuses what sendTo would refuse', async () => {
    const { port, seen } = await httpServer((_one, response) => json(response, 200, ACK));
    const pool = await openPool(port, { connections: 1 });
    const recorder = new Recorder();
    const target = '/trade-api/v2/portfolio/events/orders/ord-1/amend?subaccount=2';
    const body = '{"ticker":"KX","side":"yes","action":"buy"}';
    const request = `POST ${target} HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\n` +
      'KALSHI-ACCESS-KEY: key-1\r\nContent-Type: application/json\r\nKALSHI-ACCESS-TIMESTAMP: 1781821370267\r\n' +
      `KALSHI-ACCESS-SIGNATURE: c2lnbmF0dXJl\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`;
    const write = vi.spyOn(Socket.prototype, 'write');
    for (let i = 0; i < 3; i++) expect(pool.rehearseTo('POST', target, '1781821370267', 'c2lnbmF0dXJl', body, null)).toBe(Buffer.byteLength(request));
    expect(pool.rehearseTo('POST', '/orders/ord 1/amend', '1', 'sig', body, null)).toBe(-1); // a space would split the request line
    expect(pool.rehearseTo('PATCH', target, '1', 'sig', body, null)).toBe(-1);
    expect(write).not.toHaveBeenCalled();
    expect(pool.stats.requests).toBe(0);
    write.mockRestore();
    // The request sendTo writes after them is the one they assembled.
    expect(pool.sendTo(recorder, 'POST', target, '1781821370267', 'c2lnbmF0dXJl', body)).toBe(SendResult.WRITTEN);
    await until(() => recorder.outcomes.length === 1);
    expect(seen).toHaveLength(1);
    expect(seen[0]!.url).toBe(target);
    expect(seen[0]!.body).toBe(body);
    pool.close();
    expect(pool.rehearseTo('POST', target, '1781821370267', 'c2lnbmF0dXJl', body, null)).toBe(-1);
  });

  it('keeps one request per connection: the rest queue (counted) and go out as connections free', async () => {
    const { port, seen } = await httpServer((one, response) => setTimeout(() => json(response, 200, `{"n":${one.body}}`), 5));
    const pool = await openPool(port, { connections: 2 });
    const recorder = new Recorder();
    const head = pool.head('POST', '/x', true);
    const results: number[] = [];
    for (let i = 0; i < 6; i++) results.push(pool.send(recorder, head, '1', 's', String(i)));
    expect(results).toEqual([SendResult.WRITTEN, SendResult.WRITTEN, SendResult.QUEUED, SendResult.QUEUED, SendResult.QUEUED, SendResult.QUEUED]);
    expect(pool.queueLength).toBe(4);
    await until(() => recorder.outcomes.length === 6);
    expect(seen.every((one) => one.socketInFlight === 1)).toBe(true); // never two on one socket
    expect(recorder.outcomes.map((outcome) => (outcome as { body: string }).body).sort()).toEqual([0, 1, 2, 3, 4, 5].map((n) => `{"n":${n}}`));
    expect(pool.stats.queued).toBe(4);
    expect(pool.stats.written).toBe(6);
  });

  it('refuses beyond the bounded queue with NET_QUEUE_FULL (not sent)', async () => {
    const { port } = await httpServer(() => { /* never answers */ });
    const pool = await openPool(port, { connections: 1, queueMax: 2 });
    const recorder = new Recorder();
    const head = pool.head('POST', '/x', true);
    expect(pool.send(recorder, head, '1', 's', '{}')).toBe(SendResult.WRITTEN);
    expect(pool.send(recorder, head, '1', 's', '{}')).toBe(SendResult.QUEUED);
    expect(pool.send(recorder, head, '1', 's', '{}')).toBe(SendResult.QUEUED);
    expect(pool.send(recorder, head, '1', 's', '{}')).toBe(SendResult.REFUSED);
    expect(recorder.outcomes).toEqual([{ code: 'NET_QUEUE_FULL', sent: false }]);
    expect(pool.stats.queueFull).toBe(1);
  });
});

describe('RawHttpPool: responses over real sockets', () => {
  it('reads chunked responses (node:http without Content-Length) and many in a row on one connection', async () => {
    const { port } = await httpServer((one, response) => {
      response.writeHead(200, { 'content-type': 'application/json' });
      response.write('{"part":1,');
      setTimeout(() => response.end(`"n":${one.body}}`), 2);
    });
    const pool = await openPool(port, { connections: 1 });
    const recorder = new Recorder();
    const head = pool.head('POST', '/x', true);
    for (let i = 0; i < 5; i++) {
      pool.send(recorder, head, '1', 's', String(i));
      await until(() => recorder.outcomes.length === i + 1);
    }
    expect(recorder.outcomes).toEqual([0, 1, 2, 3, 4].map((n) => ({ status: 200, body: `{"part":1,"n":${n}}` })));
    expect(pool.stats.connects).toBe(1);
  });

  it('frames a response the server writes in many small delayed pieces', async () => {
    const response = `HTTP/1.1 201 Created\r\nContent-Type: application/json\r\nContent-Length: ${ACK.length}\r\n\r\n${ACK}`;
    const server = track(createNetServer((socket) => {
      socket.setNoDelay(true);
      socket.on('data', async () => {
        for (let i = 0; i < response.length; i += 7) {
          socket.write(response.slice(i, i + 7));
          await new Promise((resolve) => setTimeout(resolve, 1));
        }
      });
    }));
    const port = await listen(server);
    const pool = await openPool(port, { connections: 1 });
    const recorder = new Recorder();
    pool.send(recorder, pool.head('POST', '/x', true), '1', 's', '{}');
    await until(() => recorder.outcomes.length === 1);
    expect(recorder.outcomes[0]).toEqual({ status: 201, body: ACK });
    expect(pool.idleCount).toBe(1);
  });

  it('a connection closed mid-response fails the request as sent (NET_DISCONNECTED) and reconnects', async () => {
    let mode: 'half' | 'full' = 'half';
    const server = track(createNetServer((socket) => {
      socket.on('data', () => {
        if (mode === 'half') {
          socket.write(`HTTP/1.1 201 Created\r\nContent-Length: ${ACK.length}\r\n\r\n${ACK.slice(0, 10)}`);
          setTimeout(() => socket.destroy(), 5);
        } else {
          socket.write(`HTTP/1.1 201 Created\r\nContent-Length: ${ACK.length}\r\n\r\n${ACK}`);
        }
      });
    }));
    const port = await listen(server);
    const pool = await openPool(port, { connections: 1 });
    const recorder = new Recorder();
    const head = pool.head('POST', '/x', true);
    pool.send(recorder, head, '1', 's', '{}');
    await until(() => recorder.outcomes.length === 1);
    expect(recorder.outcomes[0]).toEqual({ code: 'NET_DISCONNECTED', sent: true });
    expect(pool.stats.disconnects).toBe(1);
    mode = 'full';
    await until(() => pool.idleCount === 1);
    pool.send(recorder, head, '1', 's', '{}');
    await until(() => recorder.outcomes.length === 2);
    expect(recorder.outcomes[1]).toEqual({ status: 201, body: ACK });
    expect(pool.stats.connects).toBe(2);
  });

  it('a body read until the server closes is a complete response, and the connection is replaced', async () => {
    const server = track(createNetServer((socket) => {
      socket.on('data', () => socket.end('HTTP/1.1 500 Internal Server Error\r\nContent-Type: text/plain\r\n\r\nupstream failed'));
    }));
    const port = await listen(server);
    const pool = await openPool(port, { connections: 1 });
    const recorder = new Recorder();
    pool.send(recorder, pool.head('POST', '/x', true), '1', 's', '{}');
    await until(() => recorder.outcomes.length === 1);
    expect(recorder.outcomes[0]).toEqual({ status: 500, body: 'upstream failed' });
    await until(() => pool.stats.connects === 2 && pool.idleCount === 1);
  });

  it('Connection: close delivers the response, then reopens the connection', async () => {
    const { port } = await httpServer((_seen, response) => {
      response.setHeader('connection', 'close');
      json(response, 200, '{}');
    });
    const pool = await openPool(port, { connections: 1 });
    const recorder = new Recorder();
    const head = pool.head('POST', '/x', true);
    pool.send(recorder, head, '1', 's', '{}');
    await until(() => recorder.outcomes.length === 1);
    expect(recorder.outcomes[0]).toEqual({ status: 200, body: '{}' });
    await until(() => pool.idleCount === 1 && pool.stats.connects === 2);
  });

  it('garbage (an unframeable response) fails as NET_BAD_RESPONSE, sent; unsolicited bytes on an idle socket drop it', async () => {
    let garbage = true;
    const sockets: Socket[] = [];
    const server = track(createNetServer((socket) => {
      sockets.push(socket);
      socket.on('data', () => socket.write(garbage ? 'SSH-2.0-nope\r\n\r\n' : 'HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\n{}'));
    }));
    const port = await listen(server);
    const pool = await openPool(port, { connections: 1 });
    const recorder = new Recorder();
    pool.send(recorder, pool.head('POST', '/x', true), '1', 's', '{}');
    await until(() => recorder.outcomes.length === 1);
    expect(recorder.outcomes[0]).toEqual({ code: 'NET_BAD_RESPONSE', sent: true });
    garbage = false;
    await until(() => pool.idleCount === 1);
    const before = pool.stats.badResponses;
    sockets.at(-1)!.write('HTTP/1.1 408 Request Timeout\r\nContent-Length: 0\r\n\r\n'); // nobody asked
    await until(() => pool.stats.badResponses === before + 1);
    await until(() => pool.idleCount === 1 && pool.stats.connects === 3);
    expect(recorder.outcomes).toHaveLength(1); // no request was charged with the unsolicited bytes
  });
});

describe('RawHttpPool: time and recovery', () => {
  it('a response later than headersTimeoutMs fails as NET_TIMEOUT (sent) on the tick; the socket is replaced', async () => {
    const { port } = await httpServer(() => { /* hang */ });
    const pool = await openPool(port, { connections: 1, headersTimeoutMs: 500 });
    const recorder = new Recorder();
    pool.send(recorder, pool.head('POST', '/x', true), '1', 's', '{}');
    pool.tick(performance.now() + 100);
    expect(recorder.outcomes).toEqual([]); // not late yet
    pool.tick(performance.now() + 501);
    expect(recorder.outcomes).toEqual([{ code: 'NET_TIMEOUT', sent: true }]);
    expect(pool.stats.timeouts).toBe(1);
    await until(() => pool.idleCount === 1 && pool.stats.connects === 2);
  });

  it('a stalled body fails after bodyTimeoutMs from the last read', async () => {
    const server = track(createNetServer((socket) => {
      socket.on('data', () => socket.write('HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\n{"partial"'));
    }));
    const port = await listen(server);
    const pool = await openPool(port, { connections: 1, headersTimeoutMs: 10_000, bodyTimeoutMs: 300 });
    const recorder = new Recorder();
    pool.send(recorder, pool.head('POST', '/x', true), '1', 's', '{}');
    await until(() => pool.stats.requests === 1 && (pool as RawHttpPool).idleCount === 0);
    await new Promise((resolve) => setTimeout(resolve, 50)); // the partial response arrives
    pool.tick(performance.now() + 301);
    expect(recorder.outcomes).toEqual([{ code: 'NET_TIMEOUT', sent: true }]);
  });

  it('a request queued longer than headersTimeoutMs fails as NET_TIMEOUT, not sent', async () => {
    const { port } = await httpServer(() => { /* hang */ });
    const pool = await openPool(port, { connections: 1, headersTimeoutMs: 500 });
    const first = new Recorder();
    const queued = new Recorder();
    const head = pool.head('POST', '/x', true);
    pool.send(first, head, '1', 's', '{}');
    expect(pool.send(queued, head, '1', 's', '{}')).toBe(SendResult.QUEUED);
    pool.tick(performance.now() + 501);
    expect(queued.outcomes).toEqual([{ code: 'NET_TIMEOUT', sent: false }]);
    expect(first.outcomes).toEqual([{ code: 'NET_TIMEOUT', sent: true }]);
    expect(pool.stats.queueTimeouts).toBe(1);
  });

  it('a server-closed idle socket is replaced at once and the next request succeeds', async () => {
    const { port } = await httpServer((_seen, response) => json(response, 200, '{}'), 100); // server idle limit 100 ms
    const pool = await openPool(port, { connections: 1 });
    const recorder = new Recorder();
    const head = pool.head('POST', '/x', true);
    pool.send(recorder, head, '1', 's', '{}');
    await until(() => recorder.outcomes.length === 1);
    await until(() => pool.stats.connects === 2 && pool.idleCount === 1); // the server's FIN came; reopened
    expect(pool.stats.disconnects).toBe(0); // no request was in flight
    pool.send(recorder, head, '1', 's', '{}');
    await until(() => recorder.outcomes.length === 2);
    expect(recorder.outcomes[1]).toEqual({ status: 200, body: '{}' });
  });

  it('retires an idle connection before the server-advertised Keep-Alive timeout', async () => {
    const { port } = await httpServer((_seen, response) => json(response, 200, '{}'), 3_000); // sends Keep-Alive: timeout=3
    const pool = await openPool(port, { connections: 1, keepAliveMarginMs: 1_000 });
    const recorder = new Recorder();
    pool.send(recorder, pool.head('POST', '/x', true), '1', 's', '{}');
    await until(() => recorder.outcomes.length === 1);
    pool.tick(performance.now() + 1_000);
    expect(pool.stats.retired).toBe(0);
    pool.tick(performance.now() + 2_000); // past 3 s - 1 s margin
    expect(pool.stats.retired).toBe(1);
    await until(() => pool.idleCount === 1 && pool.stats.connects === 2);
  });

  it('reconnects with backoff while the server is down, and recovers when it returns', async () => {
    const { server, port } = await httpServer((_seen, response) => json(response, 200, '{}'));
    const pool = await openPool(port, { connections: 2, reconnectMinMs: 5, reconnectMaxMs: 40 });
    await new Promise<void>((resolve) => {
      server.close(() => resolve());
      for (const socket of serverSockets) socket.destroy();
    });
    servers.splice(servers.indexOf(server), 1);
    await until(() => pool.stats.connectFailures >= 6);
    expect(pool.connectedCount).toBe(0);
    const recorder = new Recorder();
    expect(pool.send(recorder, pool.head('POST', '/x', true), '1', 's', '{}')).toBe(SendResult.QUEUED);
    const again = track(createHttpServer((_request, response) => json(response, 200, '{"back":true}')));
    await listen(again, port);
    await until(() => recorder.outcomes.length === 1, 1_000);
    expect(recorder.outcomes[0]).toEqual({ status: 200, body: '{"back":true}' });
    await until(() => pool.connectedCount === 2);
  });

  it('connect() rejects with NET_DISCONNECTED when the server refuses', async () => {
    const probe = track(createNetServer());
    const port = await listen(probe);
    await new Promise<void>((resolve) => probe.close(() => resolve()));
    servers.splice(servers.indexOf(probe), 1);
    const pool = new RawHttpPool(poolOptions(port));
    pools.push(pool);
    const error = await pool.connect().catch((caught: unknown) => caught);
    expect((error as { code: string }).code).toBe('NET_DISCONNECTED');
  });

  it('close() fails the request in flight as sent and the queued ones as not sent', async () => {
    const { port } = await httpServer(() => { /* hang */ });
    const pool = await openPool(port, { connections: 1 });
    const recorder = new Recorder();
    const head = pool.head('POST', '/x', true);
    pool.send(recorder, head, '1', 's', '{}');
    pool.send(recorder, head, '1', 's', '{}');
    pool.close();
    expect(recorder.outcomes).toEqual([{ code: 'NET_DISCONNECTED', sent: true }, { code: 'NET_DISCONNECTED', sent: false }]);
    expect(pool.send(recorder, head, '1', 's', '{}')).toBe(SendResult.REFUSED);
  });
});

describe('net failure codes', () => {
  it('documents every code the pool reports', () => {
    for (const code of ['NET_TIMEOUT', 'NET_DISCONNECTED', 'NET_BAD_RESPONSE', 'NET_QUEUE_FULL'] as NetFailure[]) expect(NET_FAILURES[code]).toMatch(/\w/);
  });
});
