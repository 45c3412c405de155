/**
 * Goal: the uWS.js fallback (src/net/uws-fallback.ts, node:http + ws) behaves as the part of
 * uWS.js the simulator, the dashboard and the test servers rely on: route precedence, parameters,
 * query and headers, streamed bodies with an isLast flag, 404 without a route, 431 above the head
 * limit, WebSocket upgrades through a custom upgrade handler with user data, topics, send's
 * backpressure codes, close codes and the closed-socket rule. Method: one app per test group on
 * 127.0.0.1 port 0, driven by fetch, raw sockets and `ws` clients.
 */

import { connect, type Socket } from 'node:net';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import { createFallbackUws, type FallbackApp, type FallbackListenSocket } from '../../src/net/uws-fallback.ts';
import type { FallbackHttpRequest, FallbackHttpResponse } from '../../src/net/uws-fallback-http.ts';
import type { FallbackWebSocket } from '../../src/net/uws-fallback-ws.ts';

const HEAD_BYTES_MAX = 8 * 1024;
const uws = createFallbackUws({ headBytesMax: HEAD_BYTES_MAX }) as {
  App: () => FallbackApp;
  us_listen_socket_close: (socket: FallbackListenSocket) => void;
  us_socket_local_port: (socket: FallbackListenSocket) => number;
};

const apps: FallbackApp[] = [];
afterAll(() => {
  for (const app of apps) app.close();
});

function listen(app: FallbackApp): Promise<number> {
  apps.push(app);
  return new Promise((resolve, reject) => {
    app.listen('127.0.0.1', 0, (socket: FallbackListenSocket | false) => {
      if (socket === false) reject(new Error('listen failed'));
      else resolve(uws.us_socket_local_port(socket));
    });
  });
}

function text(res: FallbackHttpResponse, body: string, status = '200 OK'): void {
  res.cork(() => res.writeStatus(status).writeHeader('Content-Type', 'text/plain').end(body));
}

/** One raw request; the status code of the answer, 0 when the connection ends without one (5 s at most). */
function rawStatus(port: number, request: string): Promise<number> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1', () => socket.write(request));
    let head = '';
    const timer = setTimeout(() => done(0), 5_000);
    const done = (status: number): void => {
      clearTimeout(timer);
      socket.destroy();
      resolve(status);
    };
    socket.on('data', (chunk: Buffer) => {
      head += chunk.toString('latin1');
      const match = /^HTTP\/1\.1 (\d{3})/.exec(head);
      if (match !== null) done(Number(match[1]));
    });
    socket.on('error', () => done(0));
    socket.on('close', () => done(0));
  });
}

describe('HTTP routes', () => {
  let port = 0;
  const seen: string[] = [];

  it('picks the most specific route, then the method over any, and yields to the next', async () => {
    const app = uws.App();
    app.any('/*', (res, req) => text(res, `catch-all ${req.getMethod()} ${req.getUrl()}`));
    app.get('/markets/:ticker/orderbook', (res, req) => text(res, `book ${req.getParameter(0)} ${req.getParameter('ticker')}`));
    app.get('/markets/special', (res) => text(res, 'special'));
    app.any('/markets/:ticker', (res, req) => text(res, `any-market ${req.getParameter(0)}`));
    app.get('/markets/:ticker', (res, req) => text(res, `get-market ${req.getParameter(0)}`));
    app.get('/yield', (_res, req) => {
      seen.push('yielded');
      req.setYield(true);
    });
    port = await listen(app);
    const get = async (path: string, method = 'GET'): Promise<string> => (await fetch(`http://127.0.0.1:${port}${path}`, { method })).text();
    expect(await get('/markets/special')).toBe('special');
    expect(await get('/markets/KX-1')).toBe('get-market KX-1');
    expect(await get('/markets/KX-1', 'DELETE')).toBe('any-market KX-1');
    expect(await get('/markets/KX-1/orderbook')).toBe('book KX-1 KX-1');
    expect(await get('/other/path?x=1', 'POST')).toBe('catch-all post /other/path');
    expect(await get('/yield')).toBe('catch-all get /yield');
    expect(seen).toEqual(['yielded']);
  });

  it('answers 404 when no route takes the request', async () => {
    const app = uws.App();
    app.get('/only', (res) => text(res, 'only'));
    const only = await listen(app);
    expect((await fetch(`http://127.0.0.1:${only}/only`)).status).toBe(200);
    expect((await fetch(`http://127.0.0.1:${only}/else`)).status).toBe(404);
    expect((await fetch(`http://127.0.0.1:${only}/only`, { method: 'POST' })).status).toBe(404);
  });

  it('reads the raw query, decoded query values, headers and the remote address', async () => {
    const app = uws.App();
    let captured: Record<string, unknown> = {};
    app.get('/q', (res, req: FallbackHttpRequest) => {
      captured = {
        raw: req.getQuery(),
        token: req.getQuery('token'),
        missing: req.getQuery('missing'),
        empty: req.getQuery('empty'),
        header: req.getHeader('kalshi-access-key'),
        absent: req.getHeader('no-such-header'),
        remote: Buffer.from(res.getRemoteAddressAsText()).toString(),
      };
      text(res, 'ok');
    });
    app.get('/noquery', (res, req) => text(res, String(req.getQuery())));
    const qPort = await listen(app);
    await fetch(`http://127.0.0.1:${qPort}/q?token=a%20b%2Bc&empty=&x=1`, { headers: { 'KALSHI-ACCESS-KEY': 'key-1' } });
    expect(captured).toEqual({ raw: 'token=a%20b%2Bc&empty=&x=1', token: 'a b+c', missing: undefined, empty: '', header: 'key-1', absent: '', remote: '127.0.0.1' });
    expect(await (await fetch(`http://127.0.0.1:${qPort}/noquery`)).text()).toBe('undefined');
  });

  it('streams a body as ArrayBuffers with one last chunk; an empty body is one empty last chunk', async () => {
    const app = uws.App();
    app.post('/body', (res) => {
      const chunks: Buffer[] = [];
      let lasts = 0;
      res.onAborted(() => {});
      res.onData((chunk, isLast) => {
        expect(chunk).toBeInstanceOf(ArrayBuffer);
        chunks.push(Buffer.from(chunk.slice(0)));
        if (!isLast) return;
        lasts++;
        const body = Buffer.concat(chunks);
        text(res, `${body.length} ${lasts} ${body.subarray(0, 4).toString()}`);
      });
    });
    const bodyPort = await listen(app);
    const big = Buffer.alloc(300_000, 'x');
    big.write('head', 0);
    expect(await (await fetch(`http://127.0.0.1:${bodyPort}/body`, { method: 'POST', body: big })).text()).toBe('300000 1 head');
    expect(await (await fetch(`http://127.0.0.1:${bodyPort}/body`, { method: 'POST' })).text()).toBe('0 1 ');
  });

  it('answers 431 to a request head above the limit and still serves the next request', async () => {
    const app = uws.App();
    app.get('/*', (res) => text(res, 'ok'));
    const headPort = await listen(app);
    expect(await rawStatus(headPort, `GET / HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(HEAD_BYTES_MAX * 2)}\r\n\r\n`)).toBe(431);
    expect(await rawStatus(headPort, `GET / HTTP/1.1\r\nHost: x\r\nX-Small: ${'a'.repeat(HEAD_BYTES_MAX / 2)}\r\n\r\n`)).toBe(200);
  });

  it('end(body, true) closes the connection; close() runs the abort handler and drops it', async () => {
    const app = uws.App();
    let aborts = 0;
    app.get('/close-after', (res) => res.writeStatus('200 OK').end('bye', true));
    app.get('/drop', (res) => {
      res.onAborted(() => aborts++);
      res.close();
      expect(() => res.end('late')).toThrow(/aborted/);
    });
    const closePort = await listen(app);
    const reply = await fetch(`http://127.0.0.1:${closePort}/close-after`);
    expect(reply.headers.get('connection')).toBe('close');
    expect(await reply.text()).toBe('bye');
    expect(await rawStatus(closePort, 'GET /drop HTTP/1.1\r\nHost: x\r\n\r\n')).toBe(0);
    expect(aborts).toBe(1);
  });
});

interface Session {
  name: string;
}

/** Opens a `ws` client; resolves once open, or with the HTTP status of a refused handshake. */
function openClient(url: string, headers: Record<string, string> = {}): Promise<{ ws: WebSocket; status: number; received: Array<{ data: string; isBinary: boolean }>; closed: Promise<{ code: number; reason: string }> }> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(url, { headers });
    const received: Array<{ data: string; isBinary: boolean }> = [];
    const closed = new Promise<{ code: number; reason: string }>((done) => ws.on('close', (code, reason) => done({ code, reason: reason.toString() })));
    ws.on('message', (data: Buffer, isBinary) => received.push({ data: data.toString(), isBinary }));
    ws.on('open', () => resolve({ ws, status: 101, received, closed }));
    ws.on('unexpected-response', (_request, response) => {
      resolve({ ws, status: response.statusCode ?? 0, received, closed });
      response.resume();
      ws.terminate();
    });
    ws.on('error', (error) => reject(error));
  });
}

async function waitUntil(condition: () => boolean, timeoutMs = 5_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

describe('WebSockets', () => {
  const sockets: FallbackWebSocket<Session>[] = [];
  const closes: Array<{ name: string; code: number; reason: string }> = [];
  let app: FallbackApp;
  let url = '';

  afterEach(() => {
    closes.length = 0;
  });

  it('upgrades through the custom handler with user data, refuses with its status, echoes frames', async () => {
    app = uws.App();
    app.ws<Session>('/ws/:room', {
      maxPayloadLength: 1024,
      idleTimeout: 0,
      upgrade: (res, req, context) => {
        const name = req.getHeader('x-name');
        if (name === '') {
          res.writeStatus('401 Unauthorized').writeHeader('Content-Type', 'application/json').end('{"error":"no name"}', true);
          return;
        }
        res.upgrade<Session>({ name: `${name}@${req.getParameter(0)}` }, req.getHeader('sec-websocket-key'), req.getHeader('sec-websocket-protocol'), req.getHeader('sec-websocket-extensions'), context);
      },
      open: (ws) => {
        sockets.push(ws);
        ws.send(`hello ${ws.getUserData().name}`);
      },
      message: (ws, message, isBinary) => {
        if (isBinary) ws.send(message, true);
        else ws.send(`echo ${Buffer.from(message).toString()}`, false);
      },
      close: (ws, code, message) => {
        sockets.splice(sockets.indexOf(ws), 1);
        closes.push({ name: ws.getUserData().name, code, reason: Buffer.from(message).toString() });
      },
    });
    app.any('/*', (res) => text(res, 'plain', '418 I am a teapot'));
    const port = await listen(app);
    url = `ws://127.0.0.1:${port}/ws`;
    expect((await openClient(`${url}/lobby`)).status).toBe(401);
    expect((await fetch(`http://127.0.0.1:${port}/ws/lobby`)).status).toBe(418); // a plain GET is not an upgrade
    const client = await openClient(`${url}/lobby`, { 'x-name': 'ann' });
    expect(client.status).toBe(101);
    client.ws.send('hi');
    client.ws.send(Buffer.from([1, 2, 3]), { binary: true });
    await waitUntil(() => client.received.length === 3);
    expect(client.received).toEqual([
      { data: 'hello ann@lobby', isBinary: false },
      { data: 'echo hi', isBinary: false },
      { data: '\u0001\u0002\u0003', isBinary: true },
    ]);
    client.ws.close(4002, 'client done');
    expect(await client.closed).toEqual({ code: 4002, reason: 'client done' });
    await waitUntil(() => closes.length === 1);
    expect(closes).toEqual([{ name: 'ann@lobby', code: 4002, reason: 'client done' }]);
  });

  it('end(code, reason) sends that close frame and calls the close handler at once; later calls throw', async () => {
    const client = await openClient(`${url}/end`, { 'x-name': 'bob' });
    await waitUntil(() => sockets.some((s) => s.getUserData().name === 'bob@end'));
    const server = sockets.find((s) => s.getUserData().name === 'bob@end')!;
    server.end(4001, 'bye');
    expect(closes).toEqual([{ name: 'bob@end', code: 4001, reason: 'bye' }]);
    expect(() => server.send('late')).toThrow(/closed/);
    expect(await client.closed).toEqual({ code: 4001, reason: 'bye' });
  });

  it('close() drops the connection without a close frame (1006 at the client)', async () => {
    const client = await openClient(`${url}/drop`, { 'x-name': 'cy' });
    await waitUntil(() => sockets.some((s) => s.getUserData().name === 'cy@drop'));
    sockets.find((s) => s.getUserData().name === 'cy@drop')!.close();
    expect((await client.closed).code).toBe(1006);
    expect(closes.map((c) => c.code)).toEqual([1006]);
  });

  it('a frame above maxPayloadLength ends the connection with 1009', async () => {
    const client = await openClient(`${url}/big`, { 'x-name': 'dee' });
    client.ws.send('x'.repeat(1025));
    expect((await client.closed).code).toBe(1009);
  });

  it('publishes to a topic: app.publish reaches all subscribers, ws.publish all but the sender', async () => {
    const topicApp = uws.App();
    const members: FallbackWebSocket<Session>[] = [];
    topicApp.ws<Session>('/*', {
      idleTimeout: 0,
      open: (ws) => {
        ws.subscribe('prices');
        members.push(ws);
      },
      message: (ws, message) => ws.publish('prices', Buffer.from(message).toString()),
    });
    const port = await listen(topicApp);
    const a = await openClient(`ws://127.0.0.1:${port}/`);
    const b = await openClient(`ws://127.0.0.1:${port}/`);
    await waitUntil(() => members.length === 2 && topicApp.numSubscribers('prices') === 2);
    expect(members[0].isSubscribed('prices')).toBe(true);
    expect(topicApp.publish('prices', 'to all')).toBe(true);
    a.ws.send('from a');
    await waitUntil(() => a.received.length === 1 && b.received.length === 2);
    expect(a.received.map((m) => m.data)).toEqual(['to all']);
    expect(b.received.map((m) => m.data)).toEqual(['to all', 'from a']);
    expect(members[1].unsubscribe('prices')).toBe(true);
    expect(topicApp.numSubscribers('prices')).toBe(1);
    // app.close() after one socket was ended by the server itself (the dashboard's stop does both).
    members[0].end(1001, 'going away');
    expect(() => topicApp.close()).not.toThrow();
    expect((await a.closed).code).toBe(1001);
    expect((await b.closed).code).toBe(1006);
    expect(topicApp.numSubscribers('prices')).toBe(0);
  });
});

describe('backpressure', () => {
  it('a reader that stops reading: buffered bytes grow, send answers 0, then 2 above maxBackpressure', async () => {
    const app = uws.App();
    let server: FallbackWebSocket<Record<string, never>> | null = null;
    const maxBackpressure = 1024 * 1024;
    app.ws<Record<string, never>>('/*', { idleTimeout: 0, maxBackpressure, open: (ws) => (server = ws) });
    const port = await listen(app);
    // A raw client that completes the handshake and then never reads.
    const socket: Socket = connect(port, '127.0.0.1');
    socket.write('GET / HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n');
    socket.once('data', () => socket.pause());
    try {
      await waitUntil(() => server !== null);
      const ws = server!;
      const frame = Buffer.alloc(64 * 1024, 0x61);
      const codes = new Set<number>();
      let sends = 0;
      while (sends < 2_000 && !codes.has(2)) {
        codes.add(ws.send(frame, false));
        sends++;
        if (sends % 64 === 0) await new Promise((resolve) => setImmediate(resolve));
      }
      expect(codes.has(0)).toBe(true);
      expect(codes.has(2)).toBe(true);
      expect(ws.getBufferedAmount()).toBeGreaterThan(maxBackpressure);
      // Inside a cork, bytes the batch wrote are not counted as backpressure (uWS's cork buffer).
      const before = ws.getBufferedAmount();
      ws.cork(() => expect(ws.getBufferedAmount()).toBe(before));
    } finally {
      socket.destroy();
    }
  });
});
