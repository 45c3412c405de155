/**
 * One persistent HTTP/1.1 keep-alive connection of the raw hot-path client (raw-http-pool.ts owns
 * the set). It carries strictly one request at a time: a request is one preassembled string
 * (request line, headers, body) written with ONE socket.write inside the caller's call, so on a
 * connected socket the bytes reach the kernel (libuv tries the write synchronously) before
 * create() (or amend(), decrease(), cancel()) returns; the response is framed by HttpResponseParser
 * as bytes arrive.
 *
 * Why not undici for this: undici 7.30 defers every write on a reused keep-alive socket by one
 * setImmediate (client-h1.js scheduleIdleSocketValidation), so create() returned before the order
 * left; bench/order-entry measures both (rows "raw ..." beside "undici ...").
 *
 * The price of writing at once: undici's deferral exists to notice a FIN the server sent on an
 * idle socket before reusing it. Here an idle connection is retired before the server's idle limit
 * (`Keep-Alive: timeout=N` minus a margin, else keepAliveTimeoutMs), a FIN seen while idle takes
 * the connection out of use at once, and RestOrderEntry's keep-warm beat refreshes idle ones; a
 * request that still meets a close is reported as sent with fate unknown (NET_DISCONNECTED).
 *
 * Owns: the socket, its state, the exchange in flight, the parser. Never: retries a request (a
 * create is not idempotent), chooses which connection to use, reconnects by itself (the pool
 * does, with backoff), or interprets a status.
 */

import { channel } from 'node:diagnostics_channel';
import { isIP, connect as netConnect, type Socket } from 'node:net';
import { performance } from 'node:perf_hooks';
import { connect as tlsConnect, type ConnectionOptions } from 'node:tls';
import type { NetFailure } from './net-error.ts';
import { HttpResponseParser, ParseState } from './http-response-parser.ts';
import { assemble, assembleInto } from './request-bytes.ts';
import type { RequestBody, RequestPrefix } from './request-bytes.ts';

/** What one exchange reports; exactly one call per request handed to a connection or pool. */
export interface RawExchangeHandler {
  /** A full response. `body` bytes [0, bodyLength) are valid only during this call. */
  onRawResponse(status: number, body: Buffer, bodyLength: number): void;
  /**
   * No full response. `sent` false: the request never reached a socket (queue full, queued too
   * long, pool closed): nothing was applied. `sent` true: it was written and may have been applied.
   */
  onRawFailure(code: NetFailure, sent: boolean): void;
}

/**
 * Diagnostics channels, the socket as the message: WRITE_START just before the request's one
 * socket.write (the point undici's `undici:client:sendHeaders` marks on its side), WRITE after it
 * returned (the bytes are in the kernel), for tests and benches to see that both happen inside the
 * caller's call. Each costs one `hasSubscribers` read when no one listens.
 */
export const RAW_HTTP_WRITE_START_CHANNEL = 'exec:raw-http:write-start';
export const RAW_HTTP_WRITE_CHANNEL = 'exec:raw-http:write';
const writeStartChannel = channel(RAW_HTTP_WRITE_START_CHANNEL);
/** A connection's reused request buffer: a V2 batch of 20 creates and its head fit several times over. */
const REQUEST_BUFFER_BYTES = 32 * 1024;
/** A plain-TCP socket's reused read buffer: one read takes at most this much. */
const READ_BUFFER_BYTES = 64 * 1024;
const writeChannel = channel(RAW_HTTP_WRITE_CHANNEL);

export const ConnectionState = {
  DOWN: 0, // no socket (before open, after a failure, while the pool waits to reconnect)
  CONNECTING: 1,
  IDLE: 2, // connected, nothing in flight: may take a request
  BUSY: 3, // one request written, its response not complete yet
} as const;
export type ConnectionState = (typeof ConnectionState)[keyof typeof ConnectionState];

/** Why a connection went down, for the pool's backoff and counters. */
export const DownReason = {
  CONNECT_FAILED: 0, // refused, unreachable, TLS failure or connect timeout
  CLOSED: 1, // the peer closed or reset an established connection
  TIMEOUT: 2, // a response did not arrive in time; the socket is spent
  PROTOCOL: 3, // a response that cannot be framed, or bytes nobody asked for
  RETIRED: 4, // closed by us: idle past its lifetime, or Connection: close
  SHUTDOWN: 5, // the pool is closing
} as const;
export type DownReason = (typeof DownReason)[keyof typeof DownReason];

/** The pool, as a connection sees it. */
export interface ConnectionOwner {
  onConnectionIdle(connection: RawHttpConnection): void; // connected, or the exchange ended with keep-alive
  onConnectionDown(connection: RawHttpConnection, reason: DownReason, hadExchange: boolean): void;
}

/** The counters a connection adds to (the pool's stats object). */
export interface RawConnectionCounters {
  responses: number;
  timeouts: number;
  disconnects: number;
  badResponses: number;
  connects: number;
}

export interface RawConnectionTarget {
  host: string; // hostname or IP
  port: number;
  tls: ConnectionOptions | null; // null: plain TCP (http:)
}

export class RawHttpConnection {
  readonly index: number;
  state: ConnectionState = ConnectionState.DOWN;
  socket: Socket | null = null;
  // Monotonic ms (performance.now()) stamps read by the pool's tick.
  connectStartedMs = 0;
  sentMs = 0;
  lastDataMs = 0;
  idleSinceMs = 0;
  idleLifetimeMs: number; // retire when idle longer than this (server hint minus margin, else default)
  exchanges = 0; // completed on the current socket
  failures = 0; // consecutive connect failures or deaths without a completed exchange (backoff)
  reconnectTimer: NodeJS.Timeout | null = null;
  readonly #target: RawConnectionTarget;
  readonly #owner: ConnectionOwner;
  readonly #counters: RawConnectionCounters;
  readonly #parser = new HttpResponseParser();
  readonly #defaultIdleLifetimeMs: number;
  readonly #keepAliveMarginMs: number;
  #handler: RawExchangeHandler | null = null;
  #closedSocketsBytes = 0; // bytes written by this connection's earlier sockets
  /**
   * The request bytes of this connection, reused: one request at a time (no pipelining), and the
   * next one is written only after the last one's answer, once the socket holds none of it.
   */
  readonly #out = Buffer.allocUnsafe(REQUEST_BUFFER_BYTES);
  /** Where a plain-TCP socket's reads land (onread), reused by every read and socket of this connection. */
  readonly #readBuffer = Buffer.allocUnsafe(READ_BUFFER_BYTES);

  constructor(index: number, target: RawConnectionTarget, owner: ConnectionOwner, counters: RawConnectionCounters, idleLifetimeMs: number, keepAliveMarginMs: number) {
    this.index = index;
    this.#target = target;
    this.#owner = owner;
    this.#counters = counters;
    this.#defaultIdleLifetimeMs = idleLifetimeMs;
    this.idleLifetimeMs = idleLifetimeMs;
    this.#keepAliveMarginMs = keepAliveMarginMs;
  }

  /** Opens a new socket (state CONNECTING). The pool calls it; closures are made per socket, not per request. */
  open(): void {
    if (this.state !== ConnectionState.DOWN) return;
    this.state = ConnectionState.CONNECTING;
    this.connectStartedMs = performance.now();
    this.exchanges = 0;
    this.idleLifetimeMs = this.#defaultIdleLifetimeMs;
    this.#parser.reset();
    const target = this.#target;
    let socket: Socket;
    if (target.tls === null) {
      // Reads into the connection's reused buffer (net's onread): no Buffer, stream bookkeeping and
      // nextTick per read. The parser copies what it keeps, within the call. TLS keeps 'data'.
      const readBuffer = this.#readBuffer;
      socket = netConnect({
        host: target.host, port: target.port,
        onread: { buffer: readBuffer, callback: (bytes: number) => {
          if (this.socket === socket) this.#onData(readBuffer, bytes);
          return true;
        } },
      });
    } else {
      const options: ConnectionOptions = { ALPNProtocols: ['http/1.1'], ...target.tls, host: target.host, port: target.port };
      if (!isIP(target.host) && options.servername === undefined) options.servername = target.host; // SNI never carries an IP
      socket = tlsConnect(options);
    }
    this.socket = socket;
    socket.setNoDelay(true); // one write per request: nothing to coalesce, never wait for an ACK
    const connectedEvent = target.tls === null ? 'connect' : 'secureConnect';
    socket.once(connectedEvent, () => {
      if (this.socket !== socket) return;
      this.state = ConnectionState.IDLE;
      this.idleSinceMs = performance.now();
      this.#counters.connects++;
      this.#owner.onConnectionIdle(this);
    });
    if (target.tls !== null) {
      socket.on('data', (chunk: Buffer) => {
        if (this.socket === socket) this.#onData(chunk, chunk.length);
      });
    }
    socket.on('end', () => {
      if (this.socket === socket) this.#onEnd();
    });
    socket.on('error', () => {
      // 'close' follows every 'error'; the outcome is decided there.
    });
    socket.on('close', () => {
      if (this.socket !== socket) return;
      const connected = this.state !== ConnectionState.CONNECTING;
      this.#teardown(connected ? DownReason.CLOSED : DownReason.CONNECT_FAILED, 'NET_DISCONNECTED');
    });
  }

  /**
   * Hot path: writes one request (state must be IDLE) with a single socket.write. The request is
   * in flight from here; its outcome arrives through `handler`.
   */
  writeRequest(handler: RawExchangeHandler, prefix: RequestPrefix, timestampText: string, signature: string, body: RequestBody, signedBytes: Uint8Array | null = null): void {
    const socket = this.socket!;
    // A request larger than the buffer, or bytes of the last one still queued in the socket (a
    // write the kernel did not take at once): this one goes as a string of its own.
    const length = this.assembleRequest(prefix, timestampText, signature, body, signedBytes);
    if (length < 0) {
      this.write(handler, assemble(prefix, timestampText, signature, body, signedBytes));
      return;
    }
    this.#handler = handler;
    this.state = ConnectionState.BUSY;
    this.sentMs = performance.now();
    if (writeStartChannel.hasSubscribers) writeStartChannel.publish(socket);
    socket.write(this.#out.subarray(0, length));
    if (writeChannel.hasSubscribers) writeChannel.publish(socket);
  }

  /**
   * The request's bytes in this connection's buffer (writeRequest's assembly; the pool's rehearse
   * stops here): their length, or -1 when the socket is gone or still has bytes queued (the buffer
   * may be in the kernel's hands then) or the request does not fit.
   */
  assembleRequest(prefix: RequestPrefix, timestampText: string, signature: string, body: RequestBody, signedBytes: Uint8Array | null): number {
    const socket = this.socket;
    if (socket === null || socket.writableLength !== 0) return -1;
    return assembleInto(this.#out, prefix, timestampText, signature, body, signedBytes);
  }

  /** As writeRequest, for a request already made one string (a queued one). */
  write(handler: RawExchangeHandler, request: string): void {
    const socket = this.socket!;
    this.#handler = handler;
    this.state = ConnectionState.BUSY;
    this.sentMs = performance.now();
    if (writeStartChannel.hasSubscribers) writeStartChannel.publish(socket);
    socket.write(request, 'utf8');
    if (writeChannel.hasSubscribers) writeChannel.publish(socket);
  }

  /** The pool's tick found the response late: the request is unknown, the socket spent. */
  timeOut(): void {
    this.#teardown(DownReason.TIMEOUT, 'NET_TIMEOUT');
  }

  /** Idle past its lifetime, or the pool is closing: close without an outcome of our own. */
  retire(reason: DownReason): void {
    this.#teardown(reason, 'NET_DISCONNECTED');
  }

  /** Request bytes handed to sockets, over every socket this connection has had. */
  get bytesWritten(): number {
    return this.#closedSocketsBytes + (this.socket?.bytesWritten ?? 0);
  }

  /** True once the response's status line arrived: from then the body timeout (gap between reads) applies. */
  get responseStarted(): boolean {
    return this.#parser.status !== 0;
  }

  /** chunk[0, length): the bytes of one read. */
  #onData(chunk: Buffer, length: number): void {
    if (this.state !== ConnectionState.BUSY) {
      // Bytes with no request in flight (a 408 before an idle close, or garbage): never read them
      // as the answer to the next request.
      this.#teardown(DownReason.PROTOCOL, 'NET_BAD_RESPONSE');
      return;
    }
    this.lastDataMs = performance.now();
    const parser = this.#parser;
    const state = parser.execute(chunk, 0, length);
    if (state === ParseState.NEED_MORE) return;
    if (state === ParseState.ERROR) {
      this.#teardown(DownReason.PROTOCOL, 'NET_BAD_RESPONSE');
      return;
    }
    // Bytes after a complete response: the server answered something we did not ask; the response
    // itself is whole, but the connection cannot be trusted for the next one.
    const reusable = parser.keepAlive && parser.consumed === length;
    this.#deliver(reusable);
  }

  #onEnd(): void {
    // FIN from the server. A body read until close ends here; anything else in flight is lost.
    if (this.state === ConnectionState.BUSY && this.#parser.end() === ParseState.COMPLETE) {
      this.#deliver(false);
      return;
    }
    this.#teardown(DownReason.CLOSED, 'NET_DISCONNECTED');
  }

  /** A complete response: hand it over, then either take the next request or close. */
  #deliver(reusable: boolean): void {
    const parser = this.#parser;
    const handler = this.#handler!;
    this.#handler = null;
    this.exchanges++;
    this.#counters.responses++;
    const hintMs = parser.keepAliveTimeoutMs;
    if (hintMs > 0) {
      // Close our side before the server's advertised idle limit (as undici's keepAliveTimeoutThreshold);
      // a hint shorter than twice the margin is halved instead, so the connection is still worth keeping.
      const lifetimeMs = hintMs > 2 * this.#keepAliveMarginMs ? hintMs - this.#keepAliveMarginMs : hintMs / 2;
      this.idleLifetimeMs = Math.min(this.#defaultIdleLifetimeMs, lifetimeMs);
    }
    if (reusable) {
      this.state = ConnectionState.IDLE;
      this.idleSinceMs = performance.now();
    } else {
      this.#closeSocket();
    }
    try {
      handler.onRawResponse(parser.status, parser.body, parser.bodyLength);
    } finally {
      parser.reset();
      if (reusable) {
        if (this.state === ConnectionState.IDLE) this.#owner.onConnectionIdle(this);
      } else {
        this.#owner.onConnectionDown(this, DownReason.RETIRED, true);
      }
    }
  }

  /** Ends the socket and the exchange in flight (reported with `code`, as sent). */
  #teardown(reason: DownReason, code: NetFailure): void {
    if (this.state === ConnectionState.DOWN) return;
    const handler = this.#handler;
    this.#handler = null;
    const hadExchange = this.exchanges > 0;
    this.#closeSocket();
    if (handler !== null) {
      if (reason === DownReason.TIMEOUT) this.#counters.timeouts++;
      else if (reason === DownReason.PROTOCOL) this.#counters.badResponses++;
      else this.#counters.disconnects++;
    } else if (reason === DownReason.PROTOCOL) {
      this.#counters.badResponses++; // unsolicited bytes on an idle connection
    }
    try {
      handler?.onRawFailure(code, true);
    } finally {
      this.#owner.onConnectionDown(this, reason, hadExchange);
    }
  }

  #closeSocket(): void {
    const socket = this.socket;
    this.socket = null;
    this.state = ConnectionState.DOWN;
    if (socket !== null) {
      this.#closedSocketsBytes += socket.bytesWritten;
      socket.destroy();
    }
  }
}
