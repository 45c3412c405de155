// Test helpers (not tests): a signed REST client over undici fetch, a WebSocket client (undici)
// that records every message, and a raw TCP WebSocket client that can stop reading (slow
// consumer). All sockets are closed by the caller in afterEach/afterAll.

import { createPrivateKey, randomBytes, type KeyObject } from 'node:crypto';
import { connect, type Socket } from 'node:net';
import { WebSocket } from 'undici';
import { signRequest } from '../../../src/core/index.ts';

export interface KeyPair {
  keyId: string;
  privateKeyPem: string;
}

export interface RestResult {
  status: number;
  body: any;
  text: string;
}

export class RestClient {
  readonly #base: string;
  readonly #keyId: string | null;
  readonly #key: KeyObject | null;

  constructor(httpUrl: string, key: KeyPair | null) {
    this.#base = httpUrl;
    this.#keyId = key?.keyId ?? null;
    this.#key = key === null ? null : createPrivateKey(key.privateKeyPem);
  }

  /** Signed headers for METHOD + path (path relative to /trade-api/v2, query excluded). */
  headers(method: string, relativePath: string, timestampMs = Date.now()): Record<string, string> {
    if (this.#key === null) return {};
    const path = `/trade-api/v2${relativePath.split('?')[0]}`;
    return {
      'KALSHI-ACCESS-KEY': this.#keyId!,
      'KALSHI-ACCESS-TIMESTAMP': String(timestampMs),
      'KALSHI-ACCESS-SIGNATURE': signRequest(this.#key, timestampMs, method, path),
    };
  }

  async request(method: string, relativePath: string, body?: unknown, extraHeaders: Record<string, string> = {}): Promise<RestResult> {
    const headers: Record<string, string> = { ...this.headers(method, relativePath), ...extraHeaders };
    let payload: string | undefined;
    if (body !== undefined) {
      payload = typeof body === 'string' ? body : JSON.stringify(body);
      headers['Content-Type'] ??= 'application/json';
    }
    const response = await fetch(`${this.#base}/trade-api/v2${relativePath}`, { method, headers, body: payload });
    const text = await response.text();
    let parsed: unknown = null;
    try {
      parsed = text === '' ? null : JSON.parse(text);
    } catch {
      parsed = null;
    }
    return { status: response.status, body: parsed, text };
  }

  get(path: string): Promise<RestResult> {
    return this.request('GET', path);
  }
  post(path: string, body?: unknown): Promise<RestResult> {
    return this.request('POST', path, body);
  }
  put(path: string, body?: unknown): Promise<RestResult> {
    return this.request('PUT', path, body ?? {});
  }
  delete(path: string, body?: unknown): Promise<RestResult> {
    return this.request('DELETE', path, body);
  }
}

/** Signed handshake headers for the WebSocket path. */
export function wsHeaders(key: KeyPair, timestampMs = Date.now()): Record<string, string> {
  return {
    'KALSHI-ACCESS-KEY': key.keyId,
    'KALSHI-ACCESS-TIMESTAMP': String(timestampMs),
    'KALSHI-ACCESS-SIGNATURE': signRequest(createPrivateKey(key.privateKeyPem), timestampMs, 'GET', '/trade-api/ws/v2'),
  };
}

/** An undici WebSocket that records every JSON message and lets a test wait for one. */
export class WsClient {
  readonly socket: WebSocket;
  readonly messages: any[] = [];
  #waiters: Array<{ predicate: (message: any) => boolean; resolve: (message: any) => void }> = [];
  #nextId = 1;
  closed: Promise<{ code: number }>;

  private constructor(socket: WebSocket) {
    this.socket = socket;
    socket.addEventListener('message', (event) => {
      const message = JSON.parse(String(event.data));
      this.messages.push(message);
      this.#waiters = this.#waiters.filter((waiter) => {
        if (!waiter.predicate(message)) return true;
        waiter.resolve(message);
        return false;
      });
    });
    this.closed = new Promise((resolve) => socket.addEventListener('close', (event) => resolve({ code: event.code })));
  }

  static async open(wsUrl: string, key: KeyPair): Promise<WsClient> {
    const socket = new WebSocket(wsUrl, { headers: wsHeaders(key) } as never);
    const client = new WsClient(socket);
    await new Promise<void>((resolve, reject) => {
      socket.addEventListener('open', () => resolve(), { once: true });
      socket.addEventListener('error', (event) => reject(new Error(`websocket error: ${String((event as { message?: string }).message ?? 'handshake failed')}`)), { once: true });
    });
    return client;
  }

  /** Sends a command with the next id; returns the id. */
  send(cmd: string, params?: Record<string, unknown>): number {
    const id = this.#nextId++;
    this.socket.send(JSON.stringify(params === undefined ? { id, cmd } : { id, cmd, params }));
    return id;
  }

  sendRaw(text: string): void {
    this.socket.send(text);
  }

  /** Resolves with the first message (already received or future) matching, or rejects after timeoutMs. */
  waitFor(predicate: (message: any) => boolean, timeoutMs = 5000): Promise<any> {
    const found = this.messages.find(predicate);
    if (found !== undefined) return Promise.resolve(found);
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`timed out waiting; got ${JSON.stringify(this.messages.slice(-5))}`)), timeoutMs);
      this.#waiters.push({
        predicate,
        resolve: (message) => {
          clearTimeout(timer);
          resolve(message);
        },
      });
    });
  }

  /** Waits until `count` messages match. */
  async waitForCount(predicate: (message: any) => boolean, count: number, timeoutMs = 5000): Promise<any[]> {
    const deadline = Date.now() + timeoutMs;
    while (Date.now() < deadline) {
      const matches = this.messages.filter(predicate);
      if (matches.length >= count) return matches;
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    throw new Error(`timed out waiting for ${count} messages; have ${this.messages.filter(predicate).length}`);
  }

  async subscribe(params: Record<string, unknown>): Promise<any[]> {
    const id = this.send('subscribe', params);
    const channels = (params.channels as string[]).length;
    return this.waitForCount((m) => m.id === id && (m.type === 'subscribed' || m.type === 'error'), channels).then((list) =>
      list.length > 0 && list[0].type === 'error' ? list : list,
    );
  }

  close(): void {
    if (this.socket.readyState === WebSocket.OPEN || this.socket.readyState === WebSocket.CONNECTING) this.socket.close();
  }
}

/**
 * A WebSocket client on a raw TCP socket: it can stop reading (socket.pause) so the server's
 * buffer fills, then resume and decode every frame received.
 */
export class RawWsClient {
  readonly socket: Socket;
  #buffer = Buffer.alloc(0);
  readonly texts: string[] = [];
  /** Payloads of the server's ping frames, in order. */
  readonly pings: string[] = [];
  #upgraded = false;
  statusLine = '';

  private constructor(socket: Socket) {
    this.socket = socket;
  }

  static async open(port: number, key: KeyPair): Promise<RawWsClient> {
    const socket = connect(port, '127.0.0.1');
    const client = new RawWsClient(socket);
    const headers = wsHeaders(key);
    await new Promise<void>((resolve, reject) => {
      socket.once('error', reject);
      socket.once('connect', () => {
        const lines = [
          'GET /trade-api/ws/v2 HTTP/1.1',
          `Host: 127.0.0.1:${port}`,
          'Upgrade: websocket',
          'Connection: Upgrade',
          `Sec-WebSocket-Key: ${randomBytes(16).toString('base64')}`,
          'Sec-WebSocket-Version: 13',
          ...Object.entries(headers).map(([name, value]) => `${name}: ${value}`),
        ];
        socket.write(`${lines.join('\r\n')}\r\n\r\n`);
      });
      socket.on('data', (chunk) => {
        client.#onData(chunk);
        if (client.#upgraded) resolve();
      });
    });
    return client;
  }

  #onData(chunk: Buffer): void {
    this.#buffer = Buffer.concat([this.#buffer, chunk]);
    if (!this.#upgraded) {
      const end = this.#buffer.indexOf('\r\n\r\n');
      if (end < 0) return;
      this.statusLine = this.#buffer.subarray(0, this.#buffer.indexOf('\r\n')).toString();
      this.#buffer = this.#buffer.subarray(end + 4);
      this.#upgraded = true;
    }
    for (;;) {
      const buffer = this.#buffer;
      if (buffer.length < 2) return;
      const opcode = buffer[0] & 0x0f;
      let length = buffer[1] & 0x7f;
      let offset = 2;
      if (length === 126) {
        if (buffer.length < 4) return;
        length = buffer.readUInt16BE(2);
        offset = 4;
      } else if (length === 127) {
        if (buffer.length < 10) return;
        length = Number(buffer.readBigUInt64BE(2));
        offset = 10;
      }
      if (buffer.length < offset + length) return;
      if (opcode === 1) this.texts.push(buffer.subarray(offset, offset + length).toString('utf8'));
      else if (opcode === 9) this.pings.push(buffer.subarray(offset, offset + length).toString('utf8'));
      this.#buffer = buffer.subarray(offset + length);
    }
  }

  /** Sends one masked text frame. */
  send(text: string): void {
    const payload = Buffer.from(text, 'utf8');
    const mask = randomBytes(4);
    const header =
      payload.length < 126
        ? Buffer.from([0x81, 0x80 | payload.length])
        : Buffer.from([0x81, 0x80 | 126, payload.length >> 8, payload.length & 0xff]);
    const masked = Buffer.alloc(payload.length);
    for (let i = 0; i < payload.length; i++) masked[i] = payload[i] ^ mask[i & 3];
    this.socket.write(Buffer.concat([header, mask, masked]));
  }

  pause(): void {
    this.socket.pause();
  }

  resume(): void {
    this.socket.resume();
  }

  messages(): any[] {
    return this.texts.map((text) => JSON.parse(text));
  }

  close(): void {
    this.socket.destroy();
  }
}
