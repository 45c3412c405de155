/**
 * The raw hot-path HTTP/1.1 client: a small fixed set of persistent keep-alive connections
 * (raw-http-connection.ts) to one origin, opened before trading, each carrying one request at a
 * time (no pipelining). send() writes a request at once on an idle connection, chosen round-robin
 * so every connection stays in use; when none is idle it waits in a bounded FIFO queue (counted)
 * and is written when a connection frees. Only the hot-path requests use it (RestOrderEntry:
 * create, amend, decrease, single cancel and the batched POST/DELETE); everything else stays on
 * undici.
 *
 * Request bytes: for a constant path (send), a per-endpoint head made once (request line, Host,
 * KALSHI-ACCESS-KEY, Content-Type, up to the timestamp value); for a per-order path (sendTo), the
 * method and request target written in parts before a per-pool tail made once as bytes
 * (everything after the target up to the timestamp value: RequestLine, no head string). Then per
 * request the timestamp, signature, Content-Length and body, assembled into the connection's
 * reused buffer and written with one socket.write (a request that waits in the queue is made one
 * string).
 *
 * Time: one tick (tick(), driven by the owner's coarse timer) ends requests whose response is
 * late, queued requests that waited too long, connects that hang, and retires idle connections
 * before the server's idle limit; there is no timer per request. A request's timeout therefore
 * fires between timeoutMs and timeoutMs + one tick period after it was written.
 *
 * Failures, as RawExchangeHandler.onRawFailure(code, sent):
 *   written, no full response: peer closed or reset   -> NET_DISCONNECTED, sent
 *   written, response late                           -> NET_TIMEOUT, sent
 *   written, response cannot be framed               -> NET_BAD_RESPONSE, sent
 *   queue full                                       -> NET_QUEUE_FULL, not sent
 *   queued longer than headersTimeoutMs              -> NET_TIMEOUT, not sent
 *   pool closed                                      -> NET_DISCONNECTED, not sent (queued) / sent (in flight)
 * A dropped connection is reopened: at once after a clean close of a used connection, else with
 * exponential backoff (reconnectMinMs doubling to reconnectMaxMs) while connects keep failing.
 *
 * Owns: connections, queue, reconnect timers (one per connection, never per request), counters.
 * Never: retries a request, signs, interprets a status or body.
 */

import type { ConnectionOptions } from 'node:tls';
import { performance } from 'node:perf_hooks';
import { InvariantError, asciiConst, assert } from '../core/index.ts';
import { NetError } from './net-error.ts';
import { RequestLine, assemble } from './request-bytes.ts';
import type { RequestBody, RequestPrefix } from './request-bytes.ts';
import {
  ConnectionState,
  DownReason,
  RawHttpConnection,
  type ConnectionOwner,
  type RawExchangeHandler,
} from './raw-http-connection.ts';

export interface RawHttpPoolOptions {
  origin: string; // http://host:port or https://host:port
  keyId: string; // KALSHI-ACCESS-KEY, constant per pool
  connections: number;
  queueMax: number; // requests waiting for a connection before send() refuses (NET_QUEUE_FULL)
  connectTimeoutMs: number;
  headersTimeoutMs: number; // written -> first response byte; also the longest wait in the queue
  bodyTimeoutMs: number; // longest gap between response reads once the response started
  idleLifetimeMs: number; // retire an idle connection after this when the server sends no Keep-Alive hint
  keepAliveMarginMs: number; // retire this long before the server's `Keep-Alive: timeout=N`
  reconnectMinMs: number;
  reconnectMaxMs: number;
  tickMs: number; // period of the owner's tick(); the timeout slack
  tls: ConnectionOptions | null; // extra TLS options (ca, ...) for https origins
}

export interface RawHttpPoolStats {
  requests: number; // send() calls
  written: number; // requests written to a socket (at once or from the queue)
  queued: number; // requests that found no idle connection and waited
  queueFull: number; // refused: the queue held queueMax
  queueTimeouts: number; // refused after waiting headersTimeoutMs in the queue
  responses: number; // complete responses
  timeouts: number; // written requests with no response in time
  disconnects: number; // written requests whose connection closed before a full response
  badResponses: number; // responses that could not be framed (or unsolicited bytes)
  connects: number; // sockets established
  connectFailures: number;
  retired: number; // idle connections closed by us before the server's idle limit (or Connection: close)
}

/** A request head made once per (method, path): everything up to the timestamp value. */
export class RawRequestHead {
  readonly method: string;
  readonly path: string;
  readonly hasBody: boolean;
  readonly prefix: string;
  /** The prefix's bytes, made once: a request copies them instead of writing the text. */
  readonly prefixBytes: Uint8Array;
  constructor(method: string, path: string, hasBody: boolean, host: string, keyId: string) {
    assert(/^[A-Z]+$/.test(method), 'RawRequestHead: method must be an upper-case token');
    assert(/^\/[\x21-\x7e]*$/.test(path), 'RawRequestHead: path must be visible ASCII starting with /');
    this.method = method;
    this.path = path;
    this.hasBody = hasBody;
    this.prefix = `${method} ${path}${headTail(host, keyId, hasBody)}`;
    this.prefixBytes = new Uint8Array(Buffer.from(this.prefix, 'latin1'));
  }
}

/** Everything of a request head after the request target, up to the timestamp value. */
function headTail(host: string, keyId: string, hasBody: boolean): string {
  // Header values are visible ASCII (the key id is checked with the options): assembleInto writes the head one byte a character.
  assert(/^[\x21-\x7e]+$/.test(host), 'RawHttpPool: the host must be visible ASCII');
  return ` HTTP/1.1\r\nHost: ${host}\r\nKALSHI-ACCESS-KEY: ${keyId}\r\n` +
    `${hasBody ? 'Content-Type: application/json\r\n' : ''}KALSHI-ACCESS-TIMESTAMP: `;
}

/** What send() did with the request. */
export const SendResult = {
  WRITTEN: 0, // on a socket before send() returned
  QUEUED: 1, // waiting for a connection (written when one frees)
  REFUSED: 2, // not sent: the handler was already told (queue full or pool closed)
} as const;
export type SendResult = (typeof SendResult)[keyof typeof SendResult];


export class RawHttpPool implements ConnectionOwner {
  readonly stats: RawHttpPoolStats = {
    requests: 0, written: 0, queued: 0, queueFull: 0, queueTimeouts: 0, responses: 0, timeouts: 0,
    disconnects: 0, badResponses: 0, connects: 0, connectFailures: 0, retired: 0,
  };
  readonly #options: RawHttpPoolOptions;
  readonly #host: string; // Host header value (host[:port] as in the origin)
  readonly #tailWithBody: Uint8Array; // sendTo: headTail()'s bytes, made once per pool
  readonly #tailNoBody: Uint8Array;
  /** sendTo's head and rehearseTo's, filled per call (read only inside it). */
  readonly #line = new RequestLine();
  readonly #rehearsalLine = new RequestLine();
  readonly #connections: RawHttpConnection[] = [];
  // Queue: a ring of queueMax (handler, request, enqueued at) entries.
  readonly #queueHandlers: (RawExchangeHandler | null)[];
  readonly #queueRequests: string[];
  readonly #queueSinceMs: Float64Array;
  #queueHead = 0;
  #queueCount = 0;
  #next = 0; // round-robin start
  #closed = false;
  #opened = false;
  #connectWait: { resolve: () => void; reject: (error: Error) => void } | null = null;

  constructor(options: RawHttpPoolOptions) {
    validate(options);
    this.#options = options;
    const url = new URL(options.origin);
    this.#host = url.host;
    this.#tailWithBody = asciiConst(headTail(url.host, options.keyId, true));
    this.#tailNoBody = asciiConst(headTail(url.host, options.keyId, false));
    const secure = url.protocol === 'https:';
    const port = url.port === '' ? (secure ? 443 : 80) : Number(url.port);
    const hostname = url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname;
    const target = { host: hostname, port, tls: secure ? (options.tls ?? {}) : null };
    for (let i = 0; i < options.connections; i++) {
      this.#connections.push(new RawHttpConnection(i, target, this, this.stats, options.idleLifetimeMs, options.keepAliveMarginMs));
    }
    this.#queueHandlers = new Array<RawExchangeHandler | null>(options.queueMax).fill(null);
    this.#queueRequests = new Array<string>(options.queueMax).fill('');
    this.#queueSinceMs = new Float64Array(options.queueMax);
  }

  /** A head for requests to `path` (no query) with this pool's Host and key id. */
  head(method: string, path: string, hasBody: boolean): RawRequestHead {
    return new RawRequestHead(method, path, hasBody, this.#host, this.#options.keyId);
  }

  /** Opens every connection; resolves when all are connected, rejects (NetError) if one fails. */
  connect(): Promise<void> {
    assert(!this.#closed, 'RawHttpPool.connect after close');
    assert(!this.#opened, 'RawHttpPool.connect twice');
    this.#opened = true;
    return new Promise<void>((resolve, reject) => {
      this.#connectWait = { resolve, reject };
      for (const connection of this.#connections) connection.open();
    });
  }

  /** Connections connected and not carrying a request. */
  get idleCount(): number {
    let count = 0;
    for (const connection of this.#connections) if (connection.state === ConnectionState.IDLE) count++;
    return count;
  }

  get connectedCount(): number {
    let count = 0;
    for (const connection of this.#connections) {
      if (connection.state === ConnectionState.IDLE || connection.state === ConnectionState.BUSY) count++;
    }
    return count;
  }

  get queueLength(): number {
    return this.#queueCount;
  }

  /** Request bytes handed to sockets so far, all connections. */
  get bytesWritten(): number {
    let total = 0;
    for (const connection of this.#connections) total += connection.bytesWritten;
    return total;
  }

  /**
   * Hot path: writes the request on an idle connection before returning, assembled into that
   * connection's reused buffer (no request string), else queues it as one string. `signedBytes`:
   * signedFieldsBytes(timestampText, signature) when the caller has it (a presigned signature).
   */
  send(handler: RawExchangeHandler, head: RawRequestHead, timestampText: string, signature: string, body: RequestBody, signedBytes: Uint8Array | null = null): SendResult {
    this.stats.requests++;
    if (this.#closed) {
      handler.onRawFailure('NET_DISCONNECTED', false);
      return SendResult.REFUSED;
    }
    return this.#dispatch(handler, head.prefixBytes, timestampText, signature, body, signedBytes);
  }

  /**
   * Hot path, for a request target made per request (a per-order path such as
   * `/trade-api/v2/portfolio/events/orders/{id}/amend?subaccount=2`): as send(), the request
   * line built here from `method` and `target` and the pool's tail. `target` must be visible
   * ASCII starting with '/' (percent-encode ids first): it is checked, since a space, CR or LF
   * would split the request line. A body sets Content-Type; null sends none.
   */
  sendTo(handler: RawExchangeHandler, method: string, target: string, timestampText: string, signature: string, body: RequestBody, signedBytes: Uint8Array | null = null): SendResult {
    assert(method === 'POST' || method === 'DELETE' || method === 'PUT' || method === 'GET', 'RawHttpPool.sendTo: method must be GET, POST, PUT or DELETE');
    assert(isRequestTarget(target), 'RawHttpPool.sendTo: target must be visible ASCII starting with /');
    this.stats.requests++;
    if (this.#closed) {
      handler.onRawFailure('NET_DISCONNECTED', false);
      return SendResult.REFUSED;
    }
    return this.#dispatch(handler, this.#lineOf(this.#line, method, target, body), timestampText, signature, body, signedBytes);
  }

  /** `line` filled with `method`, `target` and the pool's tail (the headers before the signed ones). */
  #lineOf(line: RequestLine, method: string, target: string, body: RequestBody): RequestLine {
    line.method = method;
    line.target = target;
    line.tail = body === null ? this.#tailNoBody : this.#tailWithBody;
    return line;
  }

  /** Writes the request on an idle connection now, else queues it (bounded), else refuses it. */
  #dispatch(handler: RawExchangeHandler, prefix: RequestPrefix, timestampText: string, signature: string, body: RequestBody, signedBytes: Uint8Array | null): SendResult {
    const connection = this.#pickIdle();
    if (connection !== null) {
      this.stats.written++;
      connection.writeRequest(handler, prefix, timestampText, signature, body, signedBytes);
      return SendResult.WRITTEN;
    }
    if (this.#queueCount === this.#options.queueMax) {
      this.stats.queueFull++;
      handler.onRawFailure('NET_QUEUE_FULL', false);
      return SendResult.REFUSED;
    }
    const tail = (this.#queueHead + this.#queueCount) % this.#options.queueMax;
    this.#queueHandlers[tail] = handler;
    this.#queueRequests[tail] = assemble(prefix, timestampText, signature, body, signedBytes);
    this.#queueSinceMs[tail] = performance.now();
    this.#queueCount++;
    this.stats.queued++;
    return SendResult.QUEUED;
  }

  /** Connections idle for at least `minIdleMs` now. */
  idleLongerThan(minIdleMs: number): number {
    const nowMs = performance.now();
    let count = 0;
    for (const connection of this.#connections) {
      if (connection.state === ConnectionState.IDLE && nowMs - connection.idleSinceMs >= minIdleMs) count++;
    }
    return count;
  }

  /**
   * Writes the request only on a connection idle for at least `minIdleMs` (keep-warm requests:
   * they never queue and never take a connection that was just used). False when there is none.
   */
  sendIfIdle(handler: RawExchangeHandler, head: RawRequestHead, timestampText: string, signature: string, body: RequestBody, minIdleMs = 0, signedBytes: Uint8Array | null = null): boolean {
    if (this.#closed || this.#queueCount > 0) return false;
    const nowMs = performance.now();
    for (const connection of this.#connections) {
      if (connection.state !== ConnectionState.IDLE || nowMs - connection.idleSinceMs < minIdleMs) continue;
      this.stats.requests++;
      this.stats.written++;
      connection.writeRequest(handler, head.prefixBytes, timestampText, signature, body, signedBytes);
      return true;
    }
    return false;
  }

  /**
   * The coarse tick: late responses, stale queue entries, hung connects, idle lifetimes. `nowMs`
   * is monotonic (performance.now()).
   */
  tick(nowMs: number = performance.now()): void {
    if (this.#closed) return;
    const options = this.#options;
    const slackMs = options.tickMs;
    for (const connection of this.#connections) {
      switch (connection.state) {
        case ConnectionState.BUSY: {
          const late = connection.responseStarted
            ? nowMs - connection.lastDataMs > options.bodyTimeoutMs
            : nowMs - connection.sentMs > options.headersTimeoutMs;
          if (late) connection.timeOut();
          break;
        }
        case ConnectionState.CONNECTING:
          if (nowMs - connection.connectStartedMs > options.connectTimeoutMs) connection.retire(DownReason.CONNECT_FAILED);
          break;
        case ConnectionState.IDLE:
          if (nowMs - connection.idleSinceMs > connection.idleLifetimeMs - slackMs) {
            this.stats.retired++;
            connection.retire(DownReason.RETIRED);
          }
          break;
        default:
          break;
      }
    }
    while (this.#queueCount > 0 && nowMs - this.#queueSinceMs[this.#queueHead]! > options.headersTimeoutMs) {
      const handler = this.#dequeueHandler();
      this.stats.queueTimeouts++;
      handler.onRawFailure('NET_TIMEOUT', false);
    }
  }

  /** Closes every connection: in-flight requests fail as sent (NET_DISCONNECTED), queued ones as not sent. */
  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    for (const connection of this.#connections) {
      if (connection.reconnectTimer !== null) clearTimeout(connection.reconnectTimer);
      connection.reconnectTimer = null;
      connection.retire(DownReason.SHUTDOWN);
    }
    while (this.#queueCount > 0) this.#dequeueHandler().onRawFailure('NET_DISCONNECTED', false);
    this.#settleConnect(new NetError('NET_DISCONNECTED', 'raw http: closed while connecting'));
  }

  // ---- ConnectionOwner ----

  onConnectionIdle(connection: RawHttpConnection): void {
    if (connection.exchanges === 0 && this.#connectWait !== null && this.connectedCount === this.#connections.length) {
      this.#settleConnect(null);
    }
    if (this.#queueCount === 0 || this.#closed) return;
    const request = this.#queueRequests[this.#queueHead]!;
    const handler = this.#dequeueHandler();
    this.stats.written++;
    connection.write(handler, request);
  }

  onConnectionDown(connection: RawHttpConnection, reason: DownReason, hadExchange: boolean): void {
    if (reason === DownReason.CONNECT_FAILED) this.stats.connectFailures++;
    if (this.#closed) return;
    if (this.#connectWait !== null) {
      // Before trading, a connection that cannot be opened is an error for the caller, not a retry loop.
      this.#settleConnect(new NetError('NET_DISCONNECTED', `raw http: connection ${connection.index} to ${this.#options.origin} failed while connecting`));
      this.close();
      return;
    }
    // A used connection closed cleanly (server idle close, our retirement, Connection: close)
    // reopens at once; deaths without a completed exchange back off so a refusing server is not hammered.
    const clean = hadExchange || reason === DownReason.RETIRED;
    connection.failures = clean ? 0 : connection.failures + 1;
    const delayMs = connection.failures === 0
      ? 0
      : Math.min(this.#options.reconnectMaxMs, this.#options.reconnectMinMs * 2 ** Math.min(connection.failures - 1, 20));
    connection.reconnectTimer = setTimeout(() => {
      connection.reconnectTimer = null;
      if (!this.#closed) connection.open();
    }, delayMs);
    connection.reconnectTimer.unref();
  }

  /**
   * The keep-warm's rehearsal of send(): the request assembled into the buffer of the connection
   * the next send() would write on, and nothing written. That buffer is the connection's own
   * scratch, rewritten by its next request before any write, and only used while its socket has
   * nothing queued (as writeRequest checks), so the rehearsal changes nothing a request sees; the
   * next pick is unchanged. Returns the request's length, or -1 with no idle connection (or a
   * socket still draining, or a request larger than the buffer).
   */
  rehearse(head: RawRequestHead, timestampText: string, signature: string, body: RequestBody, signedBytes: Uint8Array | null): number {
    return this.#rehearse(head.prefixBytes, timestampText, signature, body, signedBytes);
  }

  /**
   * rehearse() for a request target made per request, as sendTo() sends it (its checks included),
   * its head written in parts (RequestLine) as sendTo's: no head string is made.
   */
  rehearseTo(method: string, target: string, timestampText: string, signature: string, body: RequestBody, signedBytes: Uint8Array | null): number {
    if (!(method === 'POST' || method === 'DELETE' || method === 'PUT' || method === 'GET') || !isRequestTarget(target)) return -1;
    return this.#rehearse(this.#lineOf(this.#rehearsalLine, method, target, body), timestampText, signature, body, signedBytes);
  }

  #rehearse(prefix: RequestPrefix, timestampText: string, signature: string, body: RequestBody, signedBytes: Uint8Array | null): number {
    if (this.#closed) return -1;
    const index = this.#idleIndex();
    return index === -1 ? -1 : this.#connections[index]!.assembleRequest(prefix, timestampText, signature, body, signedBytes);
  }

  #pickIdle(): RawHttpConnection | null {
    const index = this.#idleIndex();
    if (index === -1) return null;
    this.#next = index + 1 === this.#connections.length ? 0 : index + 1;
    return this.#connections[index]!;
  }

  /** The idle connection the next pick takes (round robin from #next), -1 when none. */
  #idleIndex(): number {
    const connections = this.#connections;
    const count = connections.length;
    for (let k = 0; k < count; k++) {
      let index = this.#next + k;
      if (index >= count) index -= count;
      if (connections[index]!.state === ConnectionState.IDLE) return index;
    }
    return -1;
  }

  #dequeueHandler(): RawExchangeHandler {
    const head = this.#queueHead;
    const handler = this.#queueHandlers[head]!;
    this.#queueHandlers[head] = null;
    this.#queueRequests[head] = '';
    this.#queueHead = head + 1 === this.#options.queueMax ? 0 : head + 1;
    this.#queueCount--;
    return handler;
  }

  #settleConnect(error: Error | null): void {
    const wait = this.#connectWait;
    if (wait === null) return;
    this.#connectWait = null;
    if (error === null) wait.resolve();
    else wait.reject(error);
  }
}

/** '/' then visible ASCII only (0x21-0x7e): no allocation, unlike a RegExp test on a fresh string. */
function isRequestTarget(target: string): boolean {
  if (target.length === 0 || target.charCodeAt(0) !== 0x2f) return false;
  for (let i = 1; i < target.length; i++) {
    const code = target.charCodeAt(i);
    if (code < 0x21 || code > 0x7e) return false;
  }
  return true;
}

function validate(options: RawHttpPoolOptions): void {
  const problems: string[] = [];
  let url: URL | null = null;
  try {
    url = new URL(options.origin);
  } catch {
    problems.push('origin must be an absolute URL');
  }
  if (url !== null && url.protocol !== 'http:' && url.protocol !== 'https:') problems.push('origin must be http or https');
  if (url !== null && (url.pathname !== '/' || url.search !== '')) problems.push('origin must carry no path or query');
  if (!/^[\x21-\x7e]+$/.test(options.keyId)) problems.push('keyId must be visible ASCII');
  const positive: [string, number][] = [
    ['connections', options.connections], ['queueMax', options.queueMax], ['connectTimeoutMs', options.connectTimeoutMs],
    ['headersTimeoutMs', options.headersTimeoutMs], ['bodyTimeoutMs', options.bodyTimeoutMs], ['idleLifetimeMs', options.idleLifetimeMs],
    ['reconnectMinMs', options.reconnectMinMs], ['reconnectMaxMs', options.reconnectMaxMs], ['tickMs', options.tickMs],
  ];
  for (const [name, value] of positive) {
    if (!(Number.isInteger(value) && value > 0)) problems.push(`${name} must be a positive integer`);
  }
  if (!(Number.isInteger(options.keepAliveMarginMs) && options.keepAliveMarginMs >= 0)) problems.push('keepAliveMarginMs must be an integer >= 0');
  // RestOrderEntry validates what it passes here: a problem is a caller bug.
  if (problems.length > 0) throw new InvariantError(`RawHttpPool options: ${problems.join('; ')}`);
}
