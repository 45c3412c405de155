/**
 * The WebSocket of the uWS.js fallback (uws-fallback.ts): uWS.js's `WebSocket` API over a `ws`
 * WebSocket. Semantics kept from uWS.js: `send` answers 1 (sent), 0 (sent, but bytes wait in the
 * buffer) or 2 (dropped: more than `maxBackpressure` already buffered, default 64 KiB);
 * `getBufferedAmount` is what waits to be written, excluding what a `cork` batch has written so far
 * (uWS holds that in its cork buffer, and the slow-consumer checks of the simulator and dashboard
 * must not take a large batch for a slow reader); `end` and `close` call the close handler at once,
 * and any later call throws, as uWS does; `idleTimeout` closes a connection with no traffic (after
 * one ping when `sendPingsAutomatically`); topics for subscribe/publish.
 */

import type { Socket } from 'node:net';
import type { WebSocket as WsSocket } from 'ws';
import { toBuffer, type FallbackHttpRequest, type FallbackHttpResponse, type RecognizedString } from './uws-fallback-http.ts';

export const SEND_SUCCESS = 1;
export const SEND_BACKPRESSURE = 0;
export const SEND_DROPPED = 2;

/** uWS.js defaults for what a behavior leaves out. */
export const BEHAVIOR_DEFAULTS = { maxPayloadLength: 16 * 1024, idleTimeout: 120, maxBackpressure: 64 * 1024, sendPingsAutomatically: true, closeOnBackpressureLimit: false };

/** Bytes written inside one cork after which they are flushed, as uWS's 16 KiB cork buffer does. */
const CORK_FLUSH_BYTES = 16 * 1024;
const CLOSE_REASON_BYTES_MAX = 123; // RFC 6455 §5.5: a control frame's payload is at most 125 bytes
const EMPTY = new ArrayBuffer(0);

export interface FallbackBehavior<UserData> {
  compression?: number;
  maxPayloadLength?: number;
  idleTimeout?: number;
  maxBackpressure?: number;
  closeOnBackpressureLimit?: boolean;
  sendPingsAutomatically?: boolean;
  upgrade?: (res: FallbackHttpResponse, req: FallbackHttpRequest, context: unknown) => void;
  open?: (ws: FallbackWebSocket<UserData>) => void;
  message?: (ws: FallbackWebSocket<UserData>, message: ArrayBuffer, isBinary: boolean) => void;
  drain?: (ws: FallbackWebSocket<UserData>) => void;
  close?: (ws: FallbackWebSocket<UserData>, code: number, message: ArrayBuffer) => void;
  ping?: (ws: FallbackWebSocket<UserData>, message: ArrayBuffer) => void;
  pong?: (ws: FallbackWebSocket<UserData>, message: ArrayBuffer) => void;
}

/** Topic subscriptions of one app. */
export class FallbackTopics {
  readonly #subscribers = new Map<string, Set<FallbackWebSocket<unknown>>>();

  add(topic: string, ws: FallbackWebSocket<unknown>): boolean {
    let set = this.#subscribers.get(topic);
    if (set === undefined) this.#subscribers.set(topic, (set = new Set()));
    if (set.has(ws)) return false;
    set.add(ws);
    return true;
  }

  remove(topic: string, ws: FallbackWebSocket<unknown>): boolean {
    const set = this.#subscribers.get(topic);
    if (set === undefined || !set.delete(ws)) return false;
    if (set.size === 0) this.#subscribers.delete(topic);
    return true;
  }

  count(topic: string): number {
    return this.#subscribers.get(topic)?.size ?? 0;
  }

  /** Sends to every subscriber of `topic` but `except`; true when there was any subscriber. */
  publish(topic: string, message: RecognizedString, isBinary: boolean, except: FallbackWebSocket<unknown> | null): boolean {
    const set = this.#subscribers.get(topic);
    if (set === undefined) return false;
    const bytes = typeof message === 'string' ? message : toBuffer(message);
    for (const ws of set) if (ws !== except) ws.send(bytes, isBinary);
    return true;
  }
}

export class FallbackWebSocket<UserData> {
  readonly #socket: WsSocket;
  readonly #raw: Socket;
  readonly #userData: UserData;
  readonly #behavior: FallbackBehavior<UserData>;
  readonly #topics: FallbackTopics;
  readonly #subscribed = new Set<string>();
  readonly #maxBackpressure: number;
  readonly #closeOnBackpressureLimit: boolean;
  /** The close handler has run (every later call throws). */
  #closed: boolean;
  /** The close handler is running or has run. */
  #closing: boolean;
  #corkDepth: number;
  /** Bytes the current cork has put in the socket's buffer since its last flush. */
  #corkedBytes: number;
  /** An automatic ping went out since the last traffic from the peer. */
  #pinged: boolean;
  readonly #onClosed: (ws: FallbackWebSocket<UserData>) => void;

  constructor(socket: WsSocket, raw: Socket, userData: UserData, behavior: FallbackBehavior<UserData>, topics: FallbackTopics, onClosed: (ws: FallbackWebSocket<UserData>) => void) {
    this.#socket = socket;
    this.#raw = raw;
    this.#userData = userData;
    this.#behavior = behavior;
    this.#topics = topics;
    this.#maxBackpressure = behavior.maxBackpressure ?? BEHAVIOR_DEFAULTS.maxBackpressure;
    this.#closeOnBackpressureLimit = behavior.closeOnBackpressureLimit ?? BEHAVIOR_DEFAULTS.closeOnBackpressureLimit;
    this.#closed = false;
    this.#closing = false;
    this.#corkDepth = 0;
    this.#corkedBytes = 0;
    this.#pinged = false;
    this.#onClosed = onClosed;
    socket.binaryType = 'arraybuffer';
    socket.on('message', (data: ArrayBuffer, isBinary: boolean) => {
      this.#pinged = false;
      if (!this.#closing) behavior.message?.(this, data, isBinary);
    });
    socket.on('ping', (data: Buffer) => {
      this.#pinged = false;
      if (!this.#closing) behavior.ping?.(this, arrayBufferOf(data));
    });
    socket.on('pong', (data: Buffer) => {
      this.#pinged = false;
      if (!this.#closing) behavior.pong?.(this, arrayBufferOf(data));
    });
    socket.on('close', (code: number, reason: Buffer) => this.#concluded(code, arrayBufferOf(reason)));
    socket.on('error', () => {}); // a protocol error closes the socket; 'close' follows with its code
    if (behavior.drain !== undefined) raw.on('drain', () => !this.#closing && behavior.drain!(this));
    this.#startIdleTimer(behavior.idleTimeout ?? BEHAVIOR_DEFAULTS.idleTimeout, behavior.sendPingsAutomatically ?? BEHAVIOR_DEFAULTS.sendPingsAutomatically);
  }

  send(message: RecognizedString, isBinary = false, compress = false): number {
    this.#assertOpen();
    if (this.#maxBackpressure > 0 && this.getBufferedAmount() > this.#maxBackpressure) {
      if (this.#closeOnBackpressureLimit) this.close();
      return SEND_DROPPED;
    }
    const before = this.#socket.bufferedAmount;
    this.#socket.send(typeof message === 'string' ? message : toBuffer(message), { binary: isBinary, compress });
    if (this.#corkDepth > 0) {
      this.#corkedBytes += this.#socket.bufferedAmount - before;
      if (this.#corkedBytes > CORK_FLUSH_BYTES) this.#flushCork();
    }
    return this.getBufferedAmount() > 0 ? SEND_BACKPRESSURE : SEND_SUCCESS;
  }

  ping(message?: RecognizedString): number {
    this.#assertOpen();
    this.#socket.ping(message === undefined ? undefined : toBuffer(message));
    return SEND_SUCCESS;
  }

  /** Graceful: a close frame with `code` (none when 0) and the close handler now. */
  end(code = 0, shortMessage?: RecognizedString): void {
    this.#assertOpen();
    const reason = shortMessage === undefined ? undefined : toBuffer(shortMessage).subarray(0, CLOSE_REASON_BYTES_MAX);
    try {
      if (code === 0) this.#socket.close();
      else this.#socket.close(code, reason);
    } catch {
      this.#socket.close(); // a code `ws` will not send (e.g. 1006): uWS would, but no peer may read it anyway
    }
    this.#concluded(code, reason === undefined ? EMPTY : arrayBufferOf(reason));
  }

  /** Abrupt: no close frame; the close handler now, with 1006 (what the peer sees). */
  close(): void {
    this.#assertOpen();
    this.#socket.terminate();
    this.#concluded(1006, EMPTY);
  }

  getBufferedAmount(): number {
    this.#assertOpen();
    return Math.max(0, this.#socket.bufferedAmount - this.#corkedBytes);
  }

  getUserData(): UserData {
    this.#assertOpen();
    return this.#userData;
  }

  /** Batches the callback's writes into as few socket writes as uWS would (16 KiB at a time). */
  cork(callback: () => void): this {
    this.#assertOpen();
    if (this.#corkDepth++ === 0) this.#raw.cork();
    try {
      callback();
    } finally {
      if (--this.#corkDepth === 0) {
        this.#corkedBytes = 0;
        this.#raw.uncork();
      }
    }
    return this;
  }

  subscribe(topic: RecognizedString): boolean {
    this.#assertOpen();
    const name = topicName(topic);
    if (!this.#topics.add(name, this as FallbackWebSocket<unknown>)) return false;
    this.#subscribed.add(name);
    return true;
  }

  unsubscribe(topic: RecognizedString): boolean {
    this.#assertOpen();
    const name = topicName(topic);
    this.#subscribed.delete(name);
    return this.#topics.remove(name, this as FallbackWebSocket<unknown>);
  }

  isSubscribed(topic: RecognizedString): boolean {
    this.#assertOpen();
    return this.#subscribed.has(topicName(topic));
  }

  getTopics(): string[] {
    this.#assertOpen();
    return [...this.#subscribed];
  }

  /** To every subscriber of `topic` except this socket (uWS's WebSocket.publish). */
  publish(topic: RecognizedString, message: RecognizedString, isBinary = false): boolean {
    this.#assertOpen();
    return this.#topics.publish(topicName(topic), message, isBinary, this as FallbackWebSocket<unknown>);
  }

  getRemoteAddressAsText(): ArrayBuffer {
    this.#assertOpen();
    return arrayBufferOf(Buffer.from(this.#raw.remoteAddress ?? '', 'latin1'));
  }

  #flushCork(): void {
    this.#raw.uncork(); // the socket writes what the kernel takes; the rest is backpressure
    this.#raw.cork();
    this.#corkedBytes = 0;
  }

  /** Once per connection: leaves its topics and calls the close handler. */
  #concluded(code: number, message: ArrayBuffer): void {
    if (this.#closing) return;
    this.#closing = true;
    this.#raw.setTimeout(0);
    for (const topic of this.#subscribed) this.#topics.remove(topic, this as FallbackWebSocket<unknown>);
    this.#subscribed.clear();
    this.#onClosed(this);
    try {
      this.#behavior.close?.(this, code, message); // the socket is still valid inside its close handler, as in uWS
    } finally {
      this.#closed = true;
    }
  }

  #startIdleTimer(idleTimeoutS: number, sendPings: boolean): void {
    if (idleTimeoutS <= 0) return;
    // Node's socket timeout counts reads and writes, as uWS's idleTimeout does ("without sending or getting").
    this.#raw.setTimeout(idleTimeoutS * 1000);
    this.#raw.on('timeout', () => {
      if (this.#closed) return;
      if (sendPings && !this.#pinged) {
        this.#pinged = true;
        this.#socket.ping();
        return;
      }
      this.#socket.terminate(); // 'close' follows with 1006
    });
  }

  #assertOpen(): void {
    if (this.#closed) throw new Error('Invalid access of closed uWS.WebSocket/SSLWebSocket.');
  }
}

function topicName(topic: RecognizedString): string {
  return typeof topic === 'string' ? topic : toBuffer(topic).toString('utf8');
}

function arrayBufferOf(bytes: Buffer): ArrayBuffer {
  return bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer;
}
