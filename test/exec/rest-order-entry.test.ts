// Goal: RestOrderEntry sends correctly signed, correctly encoded V2 requests and turns every kind of
// answer (201/200 acks, 4xx error bodies in each shape, 429, 5xx, hang, dropped socket, garbage)
// into the right listener callback and code; order mutations go out on the raw client, which writes
// a create's, an amend's, a decrease's and a single cancel's bytes to the socket (one write, query
// in the target, not in the signed string) before the call returns, and reports a request that
// never reached a socket as a status-0 reject; per-order paths are presigned after a resting create
// ack; cancel-all and reads go through undici pools, kept warm; reads page and parse into core units.
// Method: a scripted node:http exchange on 127.0.0.1:0 (test/exec/scripted-exchange.ts) that
// verifies every signature with verifyRequest and answers per test; a recording listener; bounded
// polling for callbacks. Presigned and inline signing both run against it.

import { constants, generateKeyPairSync, verify as cryptoVerify } from 'node:crypto';
import { subscribe, unsubscribe } from 'node:diagnostics_channel';
import { inspect } from 'node:util';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { COUNT_INVALID, InvariantError, systemClock, type Count, type Price } from '../../src/core/index.ts';
import { ACCOUNT_CLIENT_DEFAULTS, AccountClient, REST_ORDER_ENTRY_DEFAULTS, RestOrderEntry, RestOrderEntryConfigError, type AccountClientOptions, type RestOrderEntryOptions } from '../../src/exec/index.ts';
import type { NewOrder } from '../../src/oms/index.ts';
import { RAW_HTTP_WRITE_CHANNEL } from '../../src/net/index.ts';
import { Socket } from 'node:net';
import { selfSignedCertificate } from './self-signed-certificate.ts';
import { ListenerWithUnknowns, RecordingListener, type Event } from './recording-listener.ts';
import { ScriptedExchange, defaultScript, type RecordedRequest, type ScriptAction } from './scripted-exchange.ts';
import { EXEC_ERROR_CODES, ExecError } from '../../src/oms/index.ts';

const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });

function order(clientOrderId: string, overrides: Partial<NewOrder> = {}): NewOrder {
  return {
    clientOrderId, ticker: 'KXEXAMPLE-26JUN30-T50', side: 'bid', price: 4200 as Price, count: 1000 as Count,
    timeInForce: 'good_till_canceled', postOnly: true, reduceOnly: false, selfTradePrevention: 'taker_at_cross',
    subaccount: 0, orderGroupId: null, expirationTs: 0, ...overrides,
  };
}

async function until(condition: () => boolean): Promise<void> {
  for (let i = 0; i < 400 && !condition(); i++) await new Promise((resolve) => setTimeout(resolve, 5));
  expect(condition()).toBe(true);
}

const json = (status: number, body: unknown): ScriptAction => ({ status, body: JSON.stringify(body) });

let exchange: ScriptedExchange;
let entry: RestOrderEntry | null = null;

beforeAll(async () => {
  exchange = await ScriptedExchange.start(publicKey);
});
afterAll(async () => {
  await exchange.close();
});
afterEach(async () => {
  await entry?.close();
  entry = null;
  await account?.close();
  account = null;
  exchange.script = defaultScript;
  exchange.requests.length = 0;
});

function options(overrides: Partial<RestOrderEntryOptions> = {}): RestOrderEntryOptions {
  return {
    ...REST_ORDER_ENTRY_DEFAULTS,
    baseUrl: exchange.baseUrl,
    keyId: 'key-123',
    privateKey,
    clock: systemClock,
    connections: 2,
    headersTimeoutMs: 3_000, // the hang cases pass their own short timeout
    bodyTimeoutMs: 3_000,
    keepAliveIntervalMs: 0,
    presign: { ...REST_ORDER_ENTRY_DEFAULTS.presign, createCapacity: 4, batchCapacity: 2, tickMs: 50 },
    ...overrides,
  };
}

/** The account client for the same exchange and key (reads, order groups): its own pool. */
let account: AccountClient | null = null;
function openAccount(overrides: Partial<AccountClientOptions> = {}): AccountClient {
  account = new AccountClient({
    ...ACCOUNT_CLIENT_DEFAULTS,
    baseUrl: exchange.baseUrl,
    keyId: 'key-123',
    privateKey,
    clock: systemClock,
    headersTimeoutMs: 3_000,
    bodyTimeoutMs: 3_000,
    ...overrides,
  });
  return account;
}

async function open(overrides: Partial<RestOrderEntryOptions> = {}, listener: RecordingListener = new RecordingListener()) {
  entry = new RestOrderEntry(options(overrides));
  entry.setListener(listener);
  await entry.connect();
  return { entry, listener };
}

/** Sends one create answered by `action`, returns the single listener event. */
async function createAnswered(action: ScriptAction, overrides: Partial<RestOrderEntryOptions> = {}): Promise<Event> {
  exchange.script = (request) => (request.path.endsWith('/portfolio/events/orders') ? action : defaultScript(request));
  const { entry: opened, listener } = await open(overrides);
  opened.create(order('c-1'));
  await until(() => listener.events.length === 1);
  return listener.events[0]!;
}

/** Order mutations since `writtenBefore` went out on the raw client: `count` writes. */
function expectRawWrites(opened: RestOrderEntry, writtenBefore: number, count: number): void {
  expect(opened.rawStats.written - writtenBefore).toBe(count);
}

describe('RestOrderEntry: connect and signing', () => {
  it('opens and warms every socket with one signed GET each before trading: 3 raw (orders) + 3 undici (cancel-all)', async () => {
    const before = exchange.socketsOpened;
    const { entry: opened } = await open({ connections: 3 });
    expect(exchange.socketsOpened - before).toBe(6);
    expect(exchange.requests).toHaveLength(6);
    expect(new Set(exchange.requests.map((request) => request.socketId)).size).toBe(6);
    expect(opened.rawStats).toMatchObject({ connects: 3, responses: 3 });
    await opened.connect(); // again: warms the same sockets, opens nothing
    expect(exchange.socketsOpened - before).toBe(6);
    expect(opened.rawStats).toMatchObject({ connects: 3, responses: 6 });
    for (const request of exchange.requests) {
      expect(request.method).toBe('GET');
      expect(request.path).toBe('/trade-api/v2/portfolio/balance');
      expect(request.signatureValid).toBe(true);
      expect(request.headers['kalshi-access-key']).toBe('key-123');
    }
  });

  it('keeps the sockets warm with periodic signed GETs on the same connections (raw and undici cancel-all sockets)', async () => {
    const { entry: opened } = await open({ connections: 2, keepAliveIntervalMs: 30 });
    const socketsAfterConnect = exchange.socketsOpened;
    expect(new Set(exchange.requests.map((request) => request.socketId)).size).toBe(4); // one GET per socket
    // Each beat: 2 raw + 2 undici cancel-all sockets. Waits for both kinds, and for the route to count
    // the answers (it counts a warm request when answered, after the exchange saw it): under load
    // one may run ahead of the other, which is not what this test is about.
    await until(() => exchange.requests.length >= 4 + 3 * 4 && opened.rawStats.written >= 2 + 3 * 2 && opened.stats.warmRequests >= 16);
    expect(opened.stats.warmRequests).toBeGreaterThanOrEqual(16);
    expect(opened.rawStats.written).toBeGreaterThanOrEqual(2 + 3 * 2);
    expect(exchange.requests.every((request) => request.path === '/trade-api/v2/portfolio/balance' && request.signatureValid)).toBe(true);
    expect(exchange.socketsOpened).toBe(socketsAfterConnect); // reused, not reopened
  });

  it('fails connect with the exchange reject when the key is refused', async () => {
    exchange.script = () => json(401, { error: { code: 'authentication_error', message: 'no', details: 'NOT_FOUND' } });
    entry = new RestOrderEntry(options({ signing: 'inline' }));
    const error = await entry.connect().catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ExecError);
    expect((error as ExecError).code).toBe('EXEC_REJECTED');
    expect((error as ExecError).status).toBe(401);
    expect((error as ExecError).reject?.code).toBe('authentication_error');
  });

  it('raw transport: when create() returns, the whole request was handed to the socket in ONE write', async () => {
    exchange.script = (request) => (request.method === 'POST' ? json(201, { order_id: 'o-1', fill_count: '0.00', remaining_count: '10.00', ts_ms: 1 }) : defaultScript(request));
    const { entry: opened, listener } = await open();
    const published: Socket[] = [];
    const onWrite = (message: unknown) => published.push(message as Socket);
    const original = Socket.prototype.write;
    const writes: { text: string; socket: Socket }[] = [];
    const spy = vi.spyOn(Socket.prototype, 'write').mockImplementation(function (this: Socket, ...args: Parameters<Socket['write']>) {
      writes.push({ text: String(args[0]), socket: this });
      return original.apply(this, args);
    });
    subscribe(RAW_HTTP_WRITE_CHANNEL, onWrite);
    let writtenBefore = 0;
    try {
      writtenBefore = opened.rawStats.written;
      opened.create(order('sync-raw'));
    } finally {
      unsubscribe(RAW_HTTP_WRITE_CHANNEL, onWrite);
      spy.mockRestore();
    }
    // Inside create(): one write with head and body, nothing left buffered in the stream.
    expect(writes).toHaveLength(1);
    expect(writes[0]!.text).toMatch(/^POST \/trade-api\/v2\/portfolio\/events\/orders HTTP\/1\.1\r\n/);
    expect(writes[0]!.text).toContain('"client_order_id":"sync-raw"');
    expect(published).toEqual([writes[0]!.socket]);
    expect(published[0]!.writableLength).toBe(0);
    expect(published[0]!.bytesWritten).toBeGreaterThanOrEqual(Buffer.byteLength(writes[0]!.text));
    expect(opened.rawStats.written).toBe(writtenBefore + 1);
    await until(() => listener.events.length === 1);
    expect(listener.events[0]).toEqual(['createAck', 'sync-raw', 'o-1', 0, 1000, 1]);
    expect(exchange.orderRequests[0]!.signatureValid).toBe(true);
    expect(opened.stats.queued).toBe(0);
  });

  it('raw transport: amend(), decrease() and single-route cancel() each hand the whole request to the socket in ONE write before returning', async () => {
    exchange.script = (request) => {
      if (request.path.endsWith('/amend')) return json(200, { order_id: 'o-7', remaining_count: '10.00', fill_count: '0.00', ts_ms: 2 });
      if (request.path.endsWith('/decrease')) return json(200, { order_id: 'o-7', remaining_count: '5.00', ts_ms: 3 });
      if (request.method === 'DELETE') return json(200, { order_id: 'o-7', reduced_by: '5.00', ts_ms: 4 });
      return defaultScript(request);
    };
    // One idle raw socket per call, so each is written at once rather than queued. signWhenUnready
    // 'inline': o-7 has no per-order signature, and the worker's would be written later.
    const { entry: opened, listener } = await open({ cancelRoute: 'single', connections: 3, presign: { ...REST_ORDER_ENTRY_DEFAULTS.presign, createCapacity: 4, batchCapacity: 2, tickMs: 50, signWhenUnready: 'inline' } });
    const orderPath = '/trade-api/v2/portfolio/events/orders/o-7';
    const calls: { name: string; call: () => void; method: string; path: string; target: string }[] = [
      { name: 'amend', call: () => opened.amend('o-7', 'T', 'bid', 4300 as Price, 1000 as Count, 2), method: 'POST', path: `${orderPath}/amend`, target: `${orderPath}/amend?subaccount=2` },
      { name: 'decrease', call: () => opened.decrease('o-7', 500 as Count, 5), method: 'POST', path: `${orderPath}/decrease`, target: `${orderPath}/decrease?subaccount=5` },
      { name: 'cancel', call: () => opened.cancel('o-7', 0), method: 'DELETE', path: orderPath, target: orderPath },
    ];
    const original = Socket.prototype.write;
    const writes: { text: string; socket: Socket }[] = [];
    const published: Socket[] = [];
    const onWrite = (message: unknown) => published.push(message as Socket);
    for (const { name, call, method, path, target } of calls) {
      writes.length = 0;
      published.length = 0;
      const spy = vi.spyOn(Socket.prototype, 'write').mockImplementation(function (this: Socket, ...args: Parameters<Socket['write']>) {
        writes.push({ text: String(args[0]), socket: this });
        return original.apply(this, args);
      });
      subscribe(RAW_HTTP_WRITE_CHANNEL, onWrite);
      try {
        call();
      } finally {
        unsubscribe(RAW_HTTP_WRITE_CHANNEL, onWrite);
        spy.mockRestore();
      }
      // Inside the call: one write holding request line, headers and body; nothing left buffered.
      expect(writes, name).toHaveLength(1);
      const text = writes[0]!.text;
      expect(text.startsWith(`${method} ${target} HTTP/1.1\r\n`), name).toBe(true);
      expect(published, name).toEqual([writes[0]!.socket]);
      expect(published[0]!.writableLength, name).toBe(0);
      // The signed string is timestamp + method + the path without the query, never the target as
      // sent (checked with node:crypto directly: core's signatureMessage cuts at '?' itself).
      const timestamp = /\r\nKALSHI-ACCESS-TIMESTAMP: (\d+)\r\n/.exec(text)![1]!;
      const signature = Buffer.from(/\r\nKALSHI-ACCESS-SIGNATURE: ([A-Za-z0-9+/=]+)\r\n/.exec(text)![1]!, 'base64');
      const pss = { key: publicKey, padding: constants.RSA_PKCS1_PSS_PADDING, saltLength: 32 };
      expect(cryptoVerify('sha256', Buffer.from(`${timestamp}${method}${path}`), pss, signature), name).toBe(true);
      if (target !== path) expect(cryptoVerify('sha256', Buffer.from(`${timestamp}${method}${target}`), pss, signature), name).toBe(false);
    }
    await until(() => listener.events.length === 3);
    expect(listener.events).toEqual([['amendAck', 'o-7', 0, 1000, 2], ['decreaseAck', 'o-7', 500, 3], ['cancelAck', 'o-7', 500, 4]]);
    expect(exchange.orderRequests.map((request) => request.url)).toEqual(calls.map((one) => one.target));
    expect(exchange.orderRequests.every((request) => request.signatureValid)).toBe(true);
    expect(opened.stats.queued).toBe(0);
    expect(opened.stats.inlineSigned).toBe(3); // o-7 was never created here: no per-order signatures ready
  });

  it('signWhenUnready worker (the default): an amend with no signature ready is signed by the worker and written when it answers; a decrease or cancel signs inline, never waiting on the worker', async () => {
    exchange.script = (request) => {
      if (request.path.endsWith('/amend')) return json(200, { order_id: 'o-8', remaining_count: '10.00', fill_count: '0.00', ts_ms: 2 });
      if (request.path.endsWith('/decrease')) return json(200, { order_id: 'o-8', remaining_count: '5.00', ts_ms: 3 });
      if (request.method === 'DELETE') return json(200, { order_id: 'o-8', reduced_by: '5.00', ts_ms: 4 });
      return defaultScript(request);
    };
    expect(REST_ORDER_ENTRY_DEFAULTS.presign.signWhenUnready).toBe('worker');
    const { entry: opened, listener } = await open({ cancelRoute: 'single', connections: 3 });
    const writtenBefore = opened.rawStats.written;
    const inlineBefore = opened.stats.inlineSigned;
    // o-8 was never created here: none of its paths has a signature ready.
    opened.amend('o-8', 'T', 'ask', 4300 as Price, 1000 as Count, 2);
    expect(opened.rawStats.written - writtenBefore).toBe(0); // the amend waits for the worker
    opened.decrease('o-8', 500 as Count, 0);
    opened.cancel('o-8', 0);
    expect(opened.rawStats.written - writtenBefore).toBe(2); // they take risk off: written inside the calls
    expect(opened.stats).toMatchObject({ workerSigned: 1, inlineSigned: inlineBefore + 2 });
    await until(() => listener.events.length === 3);
    expect(listener.events).toContainEqual(['amendAck', 'o-8', 0, 1000, 2]);
    expect(listener.events).toContainEqual(['decreaseAck', 'o-8', 500, 3]);
    expect(listener.events).toContainEqual(['cancelAck', 'o-8', 500, 4]);
    const requests = exchange.orderRequests.filter((request) => request.path.includes('/o-8'));
    expect(requests.map((request) => request.url).sort()).toEqual([
      '/trade-api/v2/portfolio/events/orders/o-8',
      '/trade-api/v2/portfolio/events/orders/o-8/amend?subaccount=2',
      '/trade-api/v2/portfolio/events/orders/o-8/decrease',
    ]);
    expect(requests.every((request) => request.signatureValid)).toBe(true);
    // The amend's body was kept as text when the call returned (the route's writer is reused).
    const amend = JSON.parse(requests.find((request) => request.path.endsWith('/amend'))!.body);
    expect(amend).toMatchObject({ ticker: 'T', side: 'ask', price: '0.4300' });
    expect(opened.stats.inlineSigned).toBe(inlineBefore + 2);
  });

  it('signWhenUnready worker: a request still waiting for its signature at close() is a status-0 "not sent" reject, never written', async () => {
    const listener = new ListenerWithUnknowns();
    const { entry: opened } = await open({}, listener);
    opened.amend('w1', 'T', 'bid', 5500 as Price, 500 as Count, 0);
    expect(opened.stats.workerSigned).toBe(1);
    await opened.close();
    await until(() => listener.events.length === 1);
    expect(listener.events).toEqual([
      ['amendReject', 'w1', { status: 0, code: 'EXEC_DISCONNECTED', message: 'not sent: order entry closed', details: '' }],
    ]);
    expect(exchange.orderRequests.filter((request) => request.path.includes('/w1'))).toEqual([]);
    expect(opened.stats.inlineSigned).toBe(0);
  });

  it('raw transport: an amend or decrease that never reached a socket is a status-0 "not sent" reject; one in flight at close() is unknown', async () => {
    exchange.script = (request) => (request.method === 'GET' ? defaultScript(request) : 'hang');
    const listener = new ListenerWithUnknowns();
    const { entry: opened } = await open({ connections: 1, hotPathQueueMax: 1, presign: { ...REST_ORDER_ENTRY_DEFAULTS.presign, createCapacity: 4, batchCapacity: 2, tickMs: 50, signWhenUnready: 'inline' } }, listener);
    opened.amend('q1', 'T', 'bid', 5500 as Price, 500 as Count, 0); // written
    opened.decrease('q2', 100 as Count, 0); // queued
    opened.amend('q3', 'T', 'bid', 5500 as Price, 500 as Count, 0); // refused inside the call
    expect(listener.events).toEqual([
      ['amendReject', 'q3', { status: 0, code: 'EXEC_RATE_LIMITED', message: 'not sent: hot-path queue full (hotPathQueueMax)', details: '' }],
    ]);
    await until(() => exchange.orderRequests.length === 1);
    await opened.close();
    expect(listener.events.slice(1)).toEqual([
      ['amendUnknown', 'q1', 'EXEC_DISCONNECTED'],
      ['decreaseReject', 'q2', { status: 0, code: 'EXEC_DISCONNECTED', message: 'not sent: order entry closed', details: '' }],
    ]);
    expect(opened.stats).toMatchObject({ notSent: 2, unknowns: 1, queued: 1 });
  });

  it('uses presigned signatures for creates, falls back to inline when the ring is empty, and every one verifies', async () => {
    exchange.script = (request) => request.method === 'POST'
      ? json(201, { order_id: `o-${exchange.requests.length}`, fill_count: '0.00', remaining_count: '10.00', ts_ms: 7 })
      : defaultScript(request);
    const { entry: opened, listener } = await open({ connections: 2 });
    for (let i = 0; i < 6; i++) opened.create(order(`p-${i}`)); // capacity 4: two inline
    await until(() => listener.events.length === 6);
    expect(opened.stats.presigned).toBe(4);
    expect(opened.stats.presignFallbacks).toBe(2);
    await until(() => opened.presigner!.size(0) === 4); // refilled once nothing is in flight
    expect(opened.stats.queued).toBe(4); // 6 requests on 2 sockets
    const creates = exchange.orderRequests;
    expect(creates).toHaveLength(6);
    expect(creates.every((request) => request.signatureValid)).toBe(true);
    const pairs = new Set(creates.map((request) => `${request.headers['kalshi-access-timestamp']}:${request.headers['kalshi-access-signature']}`));
    expect(pairs.size).toBe(6);
    expect(listener.events.map((event) => event[0])).toEqual(Array(6).fill('createAck'));
  });

  it('signs inline in inline mode and routes single cancels to the per-order path with cancelRoute single', async () => {
    exchange.script = (request) => request.method === 'DELETE'
      ? json(200, { order_id: 'o-9', reduced_by: '10.00', ts_ms: 12 })
      : defaultScript(request);
    const { entry: opened, listener } = await open({ signing: 'inline', cancelRoute: 'single' });
    expect(opened.presigner).toBeNull();
    opened.cancel('o-9', 3);
    await until(() => listener.events.length === 1);
    expect(listener.events[0]).toEqual(['cancelAck', 'o-9', 1000, 12]);
    const [request] = exchange.orderRequests;
    expect(request!.url).toBe('/trade-api/v2/portfolio/events/orders/o-9?subaccount=3');
    expect(request!.body).toBe('');
    expect(request!.headers['content-type']).toBeUndefined();
    expect(request!.signatureValid).toBe(true);
    expect(opened.stats.inlineSigned).toBe(1);
    expect(opened.stats.presignFallbacks).toBe(0);
  });

  it('never exposes key material through inspect or stats', async () => {
    const { entry: opened } = await open();
    const pem = privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
    const text = `${inspect(opened, { depth: 5 })}${JSON.stringify(opened.stats)}`;
    expect(text).not.toContain('PRIVATE KEY');
    expect(text).not.toContain(pem.split('\n')[1]!.slice(0, 20));
  });
});

describe('RestOrderEntry: create outcomes', () => {
  it('201 -> onCreateAck with counts in core units; the body decodes to the order', async () => {
    const event = await createAnswered(json(201, {
      order_id: 'e5d8', client_order_id: 'c-1', fill_count: '3.00', remaining_count: '7.00',
      average_fill_price: '0.4200', ts_ms: 1781821370267,
    }));
    expect(event).toEqual(['createAck', 'c-1', 'e5d8', 300, 700, 1781821370267]);
    const [request] = exchange.orderRequests;
    expect(request!.headers['content-type']).toBe('application/json');
    expect(JSON.parse(request!.body)).toEqual({
      ticker: 'KXEXAMPLE-26JUN30-T50', client_order_id: 'c-1', side: 'bid', count: '10.00', price: '0.4200',
      time_in_force: 'good_till_canceled', self_trade_prevention_type: 'taker_at_cross', post_only: true,
    });
  });

  it('400 nested error body -> onCreateReject with code, message and details', async () => {
    const event = await createAnswered(json(400, { error: { code: 'invalid_order', message: 'post only would cross', details: 'post only cross' } }));
    expect(event).toEqual(['createReject', 'c-1', { status: 400, code: 'invalid_order', message: 'post only would cross', details: 'post only cross' }]);
  });

  it('400 flat error body -> onCreateReject', async () => {
    const event = await createAnswered(json(400, { code: 'bad_request', message: 'count must be a string' }));
    expect(event).toEqual(['createReject', 'c-1', { status: 400, code: 'bad_request', message: 'count must be a string', details: '' }]);
  });

  it('409 duplicate client order id -> onCreateReject order_already_exists', async () => {
    const event = await createAnswered(json(409, { error: { code: 'order_already_exists', message: 'exists' } }));
    expect(event).toEqual(['createReject', 'c-1', { status: 409, code: 'order_already_exists', message: 'exists', details: '' }]);
  });

  it('404 and a bare {"msg"} body -> onCreateReject with EXEC_REJECTED when no code is given', async () => {
    const event = await createAnswered(json(404, { msg: 'market not found' }));
    expect(event).toEqual(['createReject', 'c-1', { status: 404, code: 'EXEC_REJECTED', message: 'market not found', details: '' }]);
  });

  it('429 {"error":"too many requests"} -> onCreateReject with EXEC_RATE_LIMITED', async () => {
    const event = await createAnswered(json(429, { error: 'too many requests' }));
    expect(event).toEqual(['createReject', 'c-1', { status: 429, code: 'EXEC_RATE_LIMITED', message: 'too many requests', details: '' }]);
  });

  it('500 and 503 -> onCreateUnknown EXEC_HTTP_5XX, never a reject', async () => {
    expect(await createAnswered(json(500, { error: { code: 'internal' } }))).toEqual(['createUnknown', 'c-1', 'EXEC_HTTP_5XX']);
    await entry!.close();
    expect(await createAnswered(json(503, { error: { code: 'exchange_unavailable' } }))).toEqual(['createUnknown', 'c-1', 'EXEC_HTTP_5XX']);
  });

  it('no answer within headersTimeoutMs -> onCreateUnknown EXEC_TIMEOUT', async () => {
    expect(await createAnswered('hang', { headersTimeoutMs: 300 })).toEqual(['createUnknown', 'c-1', 'EXEC_TIMEOUT']);
  });

  it('socket dropped by the exchange -> onCreateUnknown EXEC_DISCONNECTED', async () => {
    expect(await createAnswered('destroy')).toEqual(['createUnknown', 'c-1', 'EXEC_DISCONNECTED']);
  });

  it('201 with an unparsable or incomplete body -> onCreateUnknown EXEC_BAD_RESPONSE', async () => {
    expect(await createAnswered({ status: 201, body: '<html>' })).toEqual(['createUnknown', 'c-1', 'EXEC_BAD_RESPONSE']);
    await entry!.close();
    expect(await createAnswered(json(201, { order_id: 'x', fill_count: 3, remaining_count: '7.00', ts_ms: 1 })))
      .toEqual(['createUnknown', 'c-1', 'EXEC_BAD_RESPONSE']);
  });

  it('a 4xx whose body is not JSON is a reject with EXEC_BAD_RESPONSE', async () => {
    const event = await createAnswered({ status: 400, body: 'Bad Request' });
    expect(event).toEqual(['createReject', 'c-1', { status: 400, code: 'EXEC_BAD_RESPONSE', message: 'Bad Request', details: '' }]);
  });

  it('reports a request after close() as a not-sent reject at once, and a missing listener as an assertion', async () => {
    const { entry: opened, listener: closedListener } = await open();
    await opened.close();
    opened.create(order('late'));
    expect(closedListener.events).toEqual([['createReject', 'late', { status: 0, code: 'EXEC_DISCONNECTED', message: 'not sent: order entry closed', details: '' }]]);
    expect(opened.stats.notSent).toBe(1);
    entry = new RestOrderEntry(options({ signing: 'inline' }));
    await entry.connect();
    exchange.script = (request) => (request.method === 'POST' ? json(201, { order_id: 'o', fill_count: '0.00', remaining_count: '1.00', ts_ms: 1 }) : defaultScript(request));
    // No listener: the ack callback asserts; the error surfaces from a microtask, not swallowed.
    const errors: unknown[] = [];
    const onError = (error: unknown) => errors.push(error);
    process.on('uncaughtException', onError);
    try {
      entry.create(order('no-listener'));
      await until(() => errors.length === 1);
    } finally {
      process.off('uncaughtException', onError);
    }
    expect(errors[0]).toBeInstanceOf(InvariantError);
  });
});

describe('RestOrderEntry: cancel, amend, decrease, batches', () => {
  it('routes a cancel through the presigned batched DELETE and reports ack or item error', async () => {
    exchange.script = (request: RecordedRequest) => {
      if (request.method !== 'DELETE') return defaultScript(request);
      const id = JSON.parse(request.body).orders[0].order_id as string;
      return id === 'gone'
        ? json(200, { orders: [{ order_id: 'gone', reduced_by: '0.00', error: { code: 'not_found', message: 'order not found' } }] })
        : json(200, { orders: [{ order_id: id, reduced_by: '5.50', ts_ms: 99 }] });
    };
    const { entry: opened, listener } = await open();
    opened.cancel('o-1', 2);
    opened.cancel('gone', 0);
    await until(() => listener.events.length === 2);
    expect(listener.events).toContainEqual(['cancelAck', 'o-1', 550, 99]);
    expect(listener.events).toContainEqual(['cancelReject', 'gone', { status: 200, code: 'not_found', message: 'order not found', details: '' }]);
    const requests = exchange.orderRequests;
    expect(requests.map((request) => request.url)).toEqual(['/trade-api/v2/portfolio/events/orders/batched', '/trade-api/v2/portfolio/events/orders/batched']);
    expect(JSON.parse(requests[0]!.body)).toEqual({ orders: [{ order_id: 'o-1', subaccount: 2 }] });
    expect(requests.every((request) => request.signatureValid)).toBe(true);
    expect(opened.stats.presigned).toBe(2);
  });

  it('single-route cancel: 404 not_found -> onCancelReject; 500 -> onCancelUnknown', async () => {
    exchange.script = (request) => {
      if (request.method !== 'DELETE') return defaultScript(request);
      return request.path.endsWith('/gone') ? json(404, { error: { code: 'not_found', message: 'gone' } }) : json(500, {});
    };
    const { entry: opened, listener } = await open({ cancelRoute: 'single' });
    const writtenBefore = opened.rawStats.written;
    opened.cancel('gone', 0);
    opened.cancel('o-2', 3);
    await until(() => listener.events.length === 2);
    expect(listener.events).toContainEqual(['cancelReject', 'gone', { status: 404, code: 'not_found', message: 'gone', details: '' }]);
    expect(listener.events).toContainEqual(['cancelUnknown', 'o-2', 'EXEC_HTTP_5XX']);
    expect(exchange.orderRequests.map((request) => request.url).sort()).toEqual([
      '/trade-api/v2/portfolio/events/orders/gone', '/trade-api/v2/portfolio/events/orders/o-2?subaccount=3',
    ]);
    expect(exchange.orderRequests.every((request) => request.signatureValid && request.body === '')).toBe(true);
    expectRawWrites(opened, writtenBefore, 2);
  });

  it('amend and decrease: acks, rejects, and unknowns (with and without the optional callbacks)', async () => {
    exchange.script = (request) => {
      if (request.method !== 'POST') return defaultScript(request);
      if (request.path.endsWith('/a1/amend')) return json(200, { order_id: 'a1', remaining_count: '4.00', fill_count: '1.00', ts_ms: 5 });
      if (request.path.endsWith('/a2/amend')) return json(200, { order_id: 'a2', ts_ms: 6 });
      if (request.path.endsWith('/a3/amend')) return json(400, { error: { code: 'invalid_price', message: 'off grid' } });
      if (request.path.endsWith('/a4/amend')) return 'destroy';
      if (request.path.endsWith('/d1/decrease')) return json(200, { order_id: 'd1', remaining_count: '2.00', ts_ms: 8 });
      if (request.path.endsWith('/d2/decrease')) return json(503, {});
      return json(404, {});
    };
    const listener = new RecordingListener();
    const { entry: opened } = await open({ connections: 4 }, listener);
    const writtenBefore = opened.rawStats.written;
    opened.amend('a1', 'T', 'ask', 5600 as Price, 500 as Count, 1);
    opened.amend('a2', 'T', 'bid', 5500 as Price, 500 as Count, 0);
    opened.amend('a3', 'T', 'bid', 5555 as Price, 500 as Count, 0);
    opened.amend('a4', 'T', 'bid', 5500 as Price, 500 as Count, 0);
    opened.decrease('d1', 300 as Count, 0);
    opened.decrease('d2', 300 as Count, 7);
    await until(() => listener.events.length === 6);
    expect(listener.events).toContainEqual(['amendAck', 'a1', 100, 400, 5]);
    expect(listener.events).toContainEqual(['amendAck', 'a2', COUNT_INVALID, COUNT_INVALID, 6]);
    expect(listener.events).toContainEqual(['amendReject', 'a3', { status: 400, code: 'invalid_price', message: 'off grid', details: '' }]);
    expect(listener.events).toContainEqual(['amendReject', 'a4', { status: 0, code: 'EXEC_DISCONNECTED', message: 'fate unknown: reconcile', details: '' }]);
    expect(listener.events).toContainEqual(['decreaseAck', 'd1', 200, 8]);
    expect(listener.events).toContainEqual(['decreaseReject', 'd2', { status: 0, code: 'EXEC_HTTP_5XX', message: 'fate unknown: reconcile', details: '' }]);
    const amend = exchange.orderRequests.find((request) => request.path.endsWith('/a1/amend'))!;
    expect(amend.url).toBe('/trade-api/v2/portfolio/events/orders/a1/amend?subaccount=1');
    expect(JSON.parse(amend.body)).toEqual({ ticker: 'T', side: 'ask', price: '0.5600', count: '5.00' });
    const decrease = exchange.orderRequests.find((request) => request.path.endsWith('/d2/decrease'))!;
    expect(decrease.url).toBe('/trade-api/v2/portfolio/events/orders/d2/decrease?subaccount=7');
    expect(JSON.parse(decrease.body)).toEqual({ reduce_by: '3.00' });
    expect(exchange.orderRequests.every((request) => request.signatureValid)).toBe(true);
    expectRawWrites(opened, writtenBefore, 6);

    await opened.close();
    const withUnknowns = new ListenerWithUnknowns();
    const { entry: second } = await open({ connections: 2 }, withUnknowns);
    second.amend('a4', 'T', 'bid', 5500 as Price, 500 as Count, 0);
    second.decrease('d2', 300 as Count, 0);
    await until(() => withUnknowns.events.length === 2);
    expect(withUnknowns.events).toContainEqual(['amendUnknown', 'a4', 'EXEC_DISCONNECTED']);
    expect(withUnknowns.events).toContainEqual(['decreaseUnknown', 'd2', 'EXEC_HTTP_5XX']);
  });

  it('no answer within headersTimeoutMs -> amend, decrease, single cancel unknown EXEC_TIMEOUT; 429 -> reject EXEC_RATE_LIMITED', async () => {
    exchange.script = (request) => {
      if (request.method === 'GET') return defaultScript(request);
      if (request.path.endsWith('/r1/amend')) return json(429, { error: 'too many requests' });
      if (request.path.endsWith('/r2/decrease')) return json(400, { error: { code: 'invalid_order', message: 'reduce_by above remaining' } });
      return 'hang';
    };
    const listener = new ListenerWithUnknowns();
    const { entry: opened } = await open({ connections: 5, cancelRoute: 'single', headersTimeoutMs: 300 }, listener);
    const writtenBefore = opened.rawStats.written;
    opened.amend('h1', 'T', 'bid', 5500 as Price, 500 as Count, 0);
    opened.decrease('h2', 100 as Count, 0);
    opened.cancel('h3', 0);
    opened.amend('r1', 'T', 'bid', 5500 as Price, 500 as Count, 0);
    opened.decrease('r2', 900 as Count, 0);
    await until(() => listener.events.length === 5);
    expect(listener.events).toContainEqual(['amendUnknown', 'h1', 'EXEC_TIMEOUT']);
    expect(listener.events).toContainEqual(['decreaseUnknown', 'h2', 'EXEC_TIMEOUT']);
    expect(listener.events).toContainEqual(['cancelUnknown', 'h3', 'EXEC_TIMEOUT']);
    expect(listener.events).toContainEqual(['amendReject', 'r1', { status: 429, code: 'EXEC_RATE_LIMITED', message: 'too many requests', details: '' }]);
    expect(listener.events).toContainEqual(['decreaseReject', 'r2', { status: 400, code: 'invalid_order', message: 'reduce_by above remaining', details: '' }]);
    expect(opened.stats).toMatchObject({ unknowns: 3, rejects: 2, acks: 0 });
    expectRawWrites(opened, writtenBefore, 5);
  });

  it('batch create: per-item acks and rejects; a missing item is unknown; a 5xx makes all unknown', async () => {
    let fail = false;
    exchange.script = (request) => {
      if (request.method !== 'POST') return defaultScript(request);
      if (fail) return json(500, {});
      return json(201, { orders: [
        { order_id: 'o-a', client_order_id: 'a', fill_count: '0.00', remaining_count: '10.00', ts_ms: 1 },
        { client_order_id: 'b', error: { code: 'insufficient_balance', message: 'no money' } },
      ] });
    };
    const { entry: opened, listener } = await open();
    opened.createBatch([order('a'), order('b'), order('c')]);
    await until(() => listener.events.length === 3);
    expect(listener.events).toEqual([
      ['createAck', 'a', 'o-a', 0, 1000, 1],
      ['createReject', 'b', { status: 201, code: 'insufficient_balance', message: 'no money', details: '' }],
      ['createUnknown', 'c', 'EXEC_BAD_RESPONSE'],
    ]);
    expect(JSON.parse(exchange.orderRequests[0]!.body).orders.map((o: { client_order_id: string }) => o.client_order_id)).toEqual(['a', 'b', 'c']);
    fail = true;
    opened.createBatch([order('d'), order('e')]);
    await until(() => listener.events.length === 5);
    expect(listener.events.slice(3)).toEqual([['createUnknown', 'd', 'EXEC_HTTP_5XX'], ['createUnknown', 'e', 'EXEC_HTTP_5XX']]);
  });

  it('signWhenUnready worker: a batch past its ring is signed by the worker and written when it answers, never on the loop', async () => {
    exchange.script = (request) => {
      if (request.method !== 'POST') return defaultScript(request);
      const ids = (JSON.parse(request.body) as { orders: { client_order_id: string }[] }).orders.map((o) => o.client_order_id);
      return json(201, { orders: ids.map((id) => ({ order_id: `o-${id}`, client_order_id: id, fill_count: '0.00', remaining_count: '10.00', ts_ms: 1 })) });
    };
    // One batch signature kept ready: the second batch in a row finds the ring empty.
    const { entry: opened, listener } = await open({ presign: { ...REST_ORDER_ENTRY_DEFAULTS.presign, createCapacity: 2, batchCapacity: 1, tickMs: 50 } });
    const inlineBefore = opened.stats.inlineSigned;
    const writtenBefore = opened.rawStats.written;
    opened.createBatch([order('a'), order('b')]);
    opened.createBatch([order('c'), order('d')]);
    expect(opened.rawStats.written - writtenBefore).toBe(1); // the second waits for the worker
    expect(opened.stats).toMatchObject({ presigned: 1, workerSigned: 1, inlineSigned: inlineBefore });
    await until(() => listener.events.length === 4);
    expect(listener.events.map((event) => event[1]).sort()).toEqual(['a', 'b', 'c', 'd']);
    const batches = exchange.orderRequests.filter((request) => request.path.endsWith('/batched'));
    expect(batches).toHaveLength(2);
    expect(batches.every((request) => request.signatureValid)).toBe(true);
    expect(opened.stats.inlineSigned).toBe(inlineBefore);
    // A batch cancel past its ring takes risk off: signed inline, written inside the call.
    opened.cancelBatch(['o-a', 'o-b'], 0);
    opened.cancelBatch(['o-c', 'o-d'], 0);
    expect(opened.stats).toMatchObject({ workerSigned: 1, inlineSigned: inlineBefore + 1 });
  });

  it('batch cancel: acks by order_id; a whole-request 4xx rejects every order', async () => {
    let reject = false;
    exchange.script = (request) => {
      if (request.method !== 'DELETE') return defaultScript(request);
      if (reject) return json(403, { error: { code: 'forbidden', message: 'other subaccount' } });
      return json(200, { orders: [{ order_id: 'y', reduced_by: '1.00', ts_ms: 2 }, { order_id: 'x', reduced_by: '2.00', ts_ms: 3 }] });
    };
    const { entry: opened, listener } = await open();
    opened.cancelBatch(['x', 'y'], 4);
    await until(() => listener.events.length === 2);
    expect(listener.events).toEqual([['cancelAck', 'y', 100, 2], ['cancelAck', 'x', 200, 3]]);
    expect(JSON.parse(exchange.orderRequests[0]!.body)).toEqual({ orders: [{ order_id: 'x', subaccount: 4 }, { order_id: 'y', subaccount: 4 }] });
    reject = true;
    opened.cancelBatch(['p', 'q'], 0);
    await until(() => listener.events.length === 4);
    const forbidden = { status: 403, code: 'forbidden', message: 'other subaccount', details: '' };
    expect(listener.events.slice(2)).toEqual([['cancelReject', 'p', forbidden], ['cancelReject', 'q', forbidden]]);
  });
});

describe('RestOrderEntry over https (a self-signed certificate made for the test)', () => {
  const { key, cert } = selfSignedCertificate();
  it('connects, warms and trades with a create and a batched cancel', async () => {
    const secure = await ScriptedExchange.start(publicKey, { key, cert });
    secure.script = (request) => {
      if (request.method === 'POST') return json(201, { order_id: 'o-tls', fill_count: '0.00', remaining_count: '10.00', ts_ms: 9 });
      if (request.method === 'DELETE') return json(200, { orders: [{ order_id: 'o-tls', reduced_by: '10.00', ts_ms: 10 }] });
      return defaultScript(request);
    };
    const listener = new RecordingListener();
    const tlsEntry = new RestOrderEntry(options({ baseUrl: secure.baseUrl, tls: { ca: cert } }));
    tlsEntry.setListener(listener);
    try {
      await tlsEntry.connect();
      tlsEntry.create(order('c-tls'));
      await until(() => listener.events.length === 1);
      tlsEntry.cancel('o-tls', 0);
      await until(() => listener.events.length === 2);
      expect(listener.events).toEqual([['createAck', 'c-tls', 'o-tls', 0, 1000, 9], ['cancelAck', 'o-tls', 1000, 10]]);
      expect(secure.requests.every((request) => request.signatureValid)).toBe(true);
      expect(tlsEntry.rawStats).toMatchObject({ connects: 2, written: 4 }); // 2 warm GETs, create, cancel
    } finally {
      await tlsEntry.close();
      await secure.close();
    }
  });

  it('refuses a server certificate it does not trust (raw connect fails before trading)', async () => {
    const secure = await ScriptedExchange.start(publicKey, { key, cert });
    const untrusting = new RestOrderEntry(options({ baseUrl: secure.baseUrl, signing: 'inline' }));
    try {
      const error = await untrusting.connect().catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(ExecError);
      expect((error as ExecError).code).toBe('EXEC_DISCONNECTED');
      expect(secure.requests).toHaveLength(0);
    } finally {
      await untrusting.close();
      await secure.close();
    }
  });
});

describe('RestOrderEntry: per-order presigned paths', () => {
  it('after a resting create ack, cancel (single route), amend and decrease carry worker-made signatures; a used one is inline until replaced', async () => {
    exchange.script = (request) => {
      if (request.method === 'POST' && request.path.endsWith('/portfolio/events/orders')) {
        const ioc = JSON.parse(request.body).time_in_force === 'immediate_or_cancel';
        return json(201, { order_id: ioc ? 'o-ioc' : 'o-rest', fill_count: ioc ? '10.00' : '0.00', remaining_count: ioc ? '0.00' : '10.00', ts_ms: 1 });
      }
      if (request.path.endsWith('/amend')) return json(200, { order_id: 'o-rest', ts_ms: 2 });
      if (request.path.endsWith('/decrease')) return json(200, { order_id: 'o-rest', remaining_count: '5.00', ts_ms: 3 });
      if (request.method === 'DELETE') return json(200, { order_id: 'o-rest', reduced_by: '5.00', ts_ms: 4 });
      return defaultScript(request);
    };
    // One signature per path (orderDepth and orderAmendDepth 1), so the second amend in a row must sign inline; depth 2
    // (the default) is covered in order-path-signatures.test.ts.
    const { entry: opened, listener } = await open({
      cancelRoute: 'single', presign: { ...REST_ORDER_ENTRY_DEFAULTS.presign, createCapacity: 4, batchCapacity: 2, tickMs: 50, orderDepth: 1, orderAmendDepth: 1, signWhenUnready: 'inline' },
    });
    const writtenBefore = opened.rawStats.written;
    opened.create(order('c-ioc', { timeInForce: 'immediate_or_cancel', postOnly: false }));
    opened.create(order('c-rest'));
    await until(() => listener.events.length === 2);
    expect(opened.orderPathStats!.tracked).toBe(1); // the filled IOC has no resting order to sign for
    await until(() => opened.orderPathStats!.signed === 3); // cancel, amend, decrease of o-rest

    const inlineBefore = opened.stats.inlineSigned;
    opened.amend('o-rest', 'T', 'bid', 4300 as Price, 1000 as Count, 2);
    opened.decrease('o-rest', 500 as Count, 0);
    opened.amend('o-rest', 'T', 'bid', 4400 as Price, 1000 as Count, 0); // the amend signature was just used: inline
    expect(opened.orderPathStats!.taken).toBe(2);
    expect(opened.stats.inlineSigned).toBe(inlineBefore + 1);
    expect(opened.stats.presignFallbacks).toBe(1);
    await until(() => listener.events.length === 5);
    await until(() => opened.orderPathStats!.signed >= 5); // replacements made once idle
    opened.cancel('o-rest', 0);
    await until(() => listener.events.length === 6);
    expect(listener.events[5]).toEqual(['cancelAck', 'o-rest', 500, 4]);
    expect(opened.orderPathStats!.taken).toBe(3);

    const mutations = exchange.orderRequests.filter((request) => request.path.includes('/o-rest'));
    expect(mutations.map((request) => request.url).sort()).toEqual([
      '/trade-api/v2/portfolio/events/orders/o-rest',
      '/trade-api/v2/portfolio/events/orders/o-rest/amend',
      '/trade-api/v2/portfolio/events/orders/o-rest/amend?subaccount=2',
      '/trade-api/v2/portfolio/events/orders/o-rest/decrease',
    ]);
    expect(mutations.every((request) => request.signatureValid)).toBe(true);
    expectRawWrites(opened, writtenBefore, 2 + 4); // 2 creates, 4 mutations
    // After the cancel ack the order is forgotten: nothing more is signed for it.
    const signed = opened.orderPathStats!.signed;
    opened.amend('o-rest', 'T', 'bid', 4400 as Price, 1000 as Count, 0);
    await until(() => listener.events.length === 7);
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(opened.orderPathStats!.signed).toBe(signed);
  });

  it("asks for a resting order's signatures on the next turn, not when the route goes idle: a request in flight does not hold them back", async () => {
    exchange.script = (request) => {
      if (request.method === 'POST' && request.path.endsWith('/portfolio/events/orders')) {
        // The first create never gets an answer, so the route is never idle (presign.refill 'idle').
        return JSON.parse(request.body).client_order_id === 'c-hang' ? 'hang' : json(201, { order_id: 'o-rest', fill_count: '0.00', remaining_count: '10.00', ts_ms: 1 });
      }
      return defaultScript(request);
    };
    // No tick flush within the test (tickMs 60 s), and the hanging create outlives it (headersTimeoutMs 20 s).
    const { entry: opened, listener } = await open({
      cancelRoute: 'single', headersTimeoutMs: 20_000, bodyTimeoutMs: 20_000, presign: { ...REST_ORDER_ENTRY_DEFAULTS.presign, refill: 'idle', tickMs: 60_000 },
    });
    opened.create(order('c-hang'));
    opened.create(order('c-rest'));
    await until(() => listener.events.length === 1);
    expect(listener.events[0]![0]).toBe('createAck');
    await until(() => opened.orderPathStats!.signed === 3); // cancel, amend, decrease of o-rest
    const inlineBefore = opened.stats.inlineSigned;
    opened.cancel('o-rest', 0);
    expect(opened.stats.inlineSigned).toBe(inlineBefore);
    expect(opened.orderPathStats!.taken).toBe(1);
  });

  it('with the defaults (four amend signatures once the amend path is used, one per path before), four amends in a row all go out presigned', async () => {
    exchange.script = (request) => {
      if (request.method === 'POST' && request.path.endsWith('/portfolio/events/orders')) return json(201, { order_id: 'o-2', fill_count: '0.00', remaining_count: '10.00', ts_ms: 1 });
      if (request.path.endsWith('/amend')) return json(200, { order_id: 'o-2', ts_ms: 2 });
      return defaultScript(request);
    };
    const { entry: opened, listener } = await open();
    expect(REST_ORDER_ENTRY_DEFAULTS.presign.orderDepth).toBe(2);
    expect(REST_ORDER_ENTRY_DEFAULTS.presign.orderAmendDepth).toBe(4);
    opened.create(order('c-2'));
    await until(() => listener.events.length === 1);
    await until(() => opened.orderPathStats!.signed === 2); // amend and decrease, one each until used
    const inlineBefore = opened.stats.inlineSigned;
    opened.amend('o-2', 'T', 'bid', 4200 as Price, 1000 as Count, 0);
    await until(() => listener.events.length === 2);
    await until(() => opened.orderPathStats!.signed === 6); // the amend path used: four deep
    for (let i = 0; i < 4; i++) opened.amend('o-2', 'T', 'bid', (4300 + i * 100) as Price, 1000 as Count, 0);
    expect(opened.stats).toMatchObject({ inlineSigned: inlineBefore, workerSigned: 0 });
    expect(opened.orderPathStats!.taken).toBe(5);
    await until(() => listener.events.length === 6);
    expect(exchange.orderRequests.filter((request) => request.path.endsWith('/o-2/amend')).every((request) => request.signatureValid)).toBe(true);
  });

  it('presign.orderCapacity 0 turns it off; inline signing never starts it', async () => {
    const { entry: off } = await open({ presign: { ...REST_ORDER_ENTRY_DEFAULTS.presign, createCapacity: 2, batchCapacity: 1, orderCapacity: 0 } });
    expect(off.orderPathStats).toBeNull();
    await off.close();
    const { entry: inline } = await open({ signing: 'inline' });
    expect(inline.orderPathStats).toBeNull();
  });
});

describe('RestOrderEntry: cancel-all, order groups, reads', () => {
  it('cancelAll sends DELETE /portfolio/events/orders with the optional subaccount and resolves on 204', async () => {
    exchange.script = (request) => (request.method === 'DELETE' ? { status: 204 } : defaultScript(request));
    const { entry: opened } = await open();
    await opened.cancelAll(null);
    await opened.cancelAll(5);
    expect(exchange.orderRequests.map((request) => request.url)).toEqual([
      '/trade-api/v2/portfolio/events/orders', '/trade-api/v2/portfolio/events/orders?subaccount=5',
    ]);
    expect(exchange.orderRequests.every((request) => request.signatureValid)).toBe(true);
    exchange.script = (request) => (request.method === 'DELETE' ? json(429, { error: 'too many requests' }) : defaultScript(request));
    const error = await opened.cancelAll(null).catch((caught: unknown) => caught);
    expect((error as ExecError).code).toBe('EXEC_RATE_LIMITED');
  });

  it('order groups: create returns the id; reset, trigger, limit and delete hit their paths', async () => {
    exchange.script = (request) => {
      if (request.path.endsWith('/order_groups/create')) return json(201, { order_group_id: 'g-1', subaccount: 2 });
      if (request.path.includes('/order_groups/')) return json(200, {});
      return defaultScript(request);
    };
    const opened = openAccount();
    expect(await opened.createOrderGroup(1000 as Count, 2)).toBe('g-1');
    await opened.resetOrderGroup('g-1', 2);
    await opened.triggerOrderGroup('g-1', 0);
    await opened.setOrderGroupLimit('g-1', 550 as Count, 2);
    await opened.deleteOrderGroup('g-1', 2);
    const calls = exchange.orderRequests.map((request) => `${request.method} ${request.url} ${request.body}`);
    expect(calls).toEqual([
      'POST /trade-api/v2/portfolio/order_groups/create {"contracts_limit":10,"contracts_limit_fp":"10.00","subaccount":2}',
      'PUT /trade-api/v2/portfolio/order_groups/g-1/reset?subaccount=2 {}',
      'PUT /trade-api/v2/portfolio/order_groups/g-1/trigger {}',
      'PUT /trade-api/v2/portfolio/order_groups/g-1/limit?subaccount=2 {"contracts_limit_fp":"5.50"}',
      'DELETE /trade-api/v2/portfolio/order_groups/g-1?subaccount=2 ',
    ]);
    expect(exchange.orderRequests.every((request) => request.signatureValid)).toBe(true);
    exchange.script = () => json(404, { error: { code: 'not_found', message: 'no group' } });
    const error = await opened.resetOrderGroup('nope', 0).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ExecError);
    expect((error as ExecError).reject?.code).toBe('not_found');
  });

  const wireOrder = (id: string, extra: Record<string, unknown> = {}) => ({
    order_id: id, user_id: 'u', client_order_id: `c-${id}`, ticker: 'T', outcome_side: 'yes', book_side: 'bid',
    type: 'limit', status: 'resting', yes_price_dollars: '0.4200', no_price_dollars: '0.5800',
    fill_count_fp: '1.00', remaining_count_fp: '9.00', initial_count_fp: '10.00',
    taker_fill_cost_dollars: '0.4200', maker_fill_cost_dollars: '0.0000', taker_fees_dollars: '0.0170', maker_fees_dollars: '0.0000',
    created_time: '2026-06-11T10:00:00.123Z', subaccount_number: 3, ...extra,
  });

  it('listOrders follows cursors and parses into core units', async () => {
    exchange.script = (request) => {
      if (!request.path.endsWith('/portfolio/orders')) return defaultScript(request);
      const cursor = new URL(request.url, 'http://x').searchParams.get('cursor');
      if (cursor === null) return json(200, { orders: [wireOrder('o1'), wireOrder('o2', { book_side: 'ask', order_group_id: 'g' })], cursor: 'page2' });
      if (cursor === 'page2') return json(200, { orders: [wireOrder('o3', { status: 'executed', book_side: undefined, side: 'no', action: 'buy' })], cursor: '' });
      return json(400, { msg: 'bad cursor' });
    };
    const opened = openAccount();
    const orders = await opened.listOrders({ ticker: 'T', status: 'resting', subaccount: 3, minTs: 1781000000 });
    expect(orders.map((o) => o.orderId)).toEqual(['o1', 'o2', 'o3']);
    expect(orders[0]).toEqual({
      orderId: 'o1', clientOrderId: 'c-o1', ticker: 'T', side: 'bid', price: 4200, status: 'resting', fillCount: 100,
      remainingCount: 900, initialCount: 1000, subaccount: 3, orderGroupId: null, createdTimeMs: Date.UTC(2026, 5, 11, 10, 0, 0, 123),
    });
    expect(orders[1]!.side).toBe('ask');
    expect(orders[1]!.orderGroupId).toBe('g');
    expect(orders[2]!.side).toBe('ask'); // buy NO = ask on the YES book
    const first = new URL(exchange.orderRequests[0]!.url, 'http://x').searchParams;
    expect(Object.fromEntries(first)).toEqual({ ticker: 'T', status: 'resting', subaccount: '3', min_ts: '1781000000', limit: '200' });
    expect(new URL(exchange.orderRequests[1]!.url, 'http://x').searchParams.get('cursor')).toBe('page2');
    expect(exchange.orderRequests.every((request) => request.signatureValid)).toBe(true);
  });

  it('listOrders stops on a repeated cursor and fails on a malformed order', async () => {
    exchange.script = (request) => (request.path.endsWith('/portfolio/orders') ? json(200, { orders: [wireOrder('o1')], cursor: 'same' }) : defaultScript(request));
    const opened = openAccount();
    expect((await opened.listOrders({})).length).toBe(2);
    exchange.script = (request) => (request.path.endsWith('/portfolio/orders') ? json(200, { orders: [wireOrder('o1', { fill_count_fp: 1 })], cursor: '' }) : defaultScript(request));
    const error = await opened.listOrders({}).catch((caught: unknown) => caught);
    expect((error as ExecError).code).toBe('EXEC_BAD_RESPONSE');
  });

  it('listFills, listPositions and getOrder parse their objects; getOrder 404 is null', async () => {
    exchange.script = (request) => {
      if (request.path.endsWith('/portfolio/fills')) {
        return json(200, { fills: [{
          fill_id: 'f1', trade_id: 'f1', order_id: 'o1', ticker: 'T', market_ticker: 'T', exchange_index: 0, outcome_side: 'yes',
          book_side: 'bid', count_fp: '1.00', yes_price_dollars: '0.5200', no_price_dollars: '0.4800', is_taker: true,
          fee_cost: '0.017500', created_time: '2026-06-11T10:00:01Z', subaccount_number: null,
        }], cursor: '' });
      }
      if (request.path.endsWith('/portfolio/positions')) {
        return json(200, { market_positions: [{ ticker: 'T', position_fp: '-40.00', total_traded_dollars: '1.0000' }], event_positions: [], cursor: '' });
      }
      if (request.path.endsWith('/portfolio/orders/o1')) return json(200, { order: wireOrder('o1') });
      if (request.path.endsWith('/portfolio/orders/nope')) return json(404, { error: { code: 'not_found', message: 'x' } });
      return defaultScript(request);
    };
    const opened = openAccount();
    expect(await opened.listFills({ orderId: 'o1' })).toEqual([{
      fillId: 'f1', orderId: 'o1', ticker: 'T', side: 'bid', price: 5200, count: 100, isTaker: true,
      feeCenticents: 175, tsMs: Date.UTC(2026, 5, 11, 10, 0, 1), subaccount: 0,
    }]);
    expect(await opened.listPositions({ subaccount: 2 })).toEqual([{ ticker: 'T', position: -4000, subaccount: 2 }]);
    expect((await opened.getOrder('o1'))!.orderId).toBe('o1');
    expect(await opened.getOrder('nope')).toBeNull();
    const fillQuery = exchange.orderRequests.find((request) => request.path.endsWith('/portfolio/fills'))!;
    expect(new URL(fillQuery.url, 'http://x').searchParams.get('order_id')).toBe('o1');
  });

  it('maps read timeouts and 5xx to ExecError codes', async () => {
    exchange.script = (request) => {
      if (request.path.endsWith('/portfolio/fills')) return 'hang';
      if (request.path.endsWith('/portfolio/positions')) return json(502, {});
      return defaultScript(request);
    };
    const opened = openAccount({ headersTimeoutMs: 300 });
    expect(((await opened.listFills({}).catch((caught: unknown) => caught)) as ExecError).code).toBe('EXEC_TIMEOUT');
    expect(((await opened.listPositions({}).catch((caught: unknown) => caught)) as ExecError).code).toBe('EXEC_HTTP_5XX');
  });
});

describe('RestOrderEntry: options and codes', () => {
  it('documents every ExecErrorCode', () => {
    expect(Object.keys(EXEC_ERROR_CODES).sort()).toEqual(
      ['EXEC_BAD_RESPONSE', 'EXEC_DISCONNECTED', 'EXEC_HTTP_5XX', 'EXEC_RATE_LIMITED', 'EXEC_REJECTED', 'EXEC_TIMEOUT'],
    );
    for (const text of Object.values(EXEC_ERROR_CODES)) expect(text.length).toBeGreaterThan(10);
  });

  it('rejects bad options with every problem at once', () => {
    let caught: unknown;
    try {
      new RestOrderEntry(options({ baseUrl: 'ftp://x', connections: 0, headersTimeoutMs: -1, signing: 'fast' as never, keyId: '' }));
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(RestOrderEntryConfigError);
    for (const part of ['http or https', 'connections', 'headersTimeoutMs', 'signing', 'keyId']) {
      expect((caught as Error).message).toContain(part);
    }
  });

  it('defaults the API prefix to /trade-api/v2 when the base URL has none', () => {
    entry = new RestOrderEntry(options({ baseUrl: 'http://127.0.0.1:1' }));
    expect(entry.prefix).toBe('/trade-api/v2');
  });
});
