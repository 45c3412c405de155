/**
 * HttpRequest and HttpResponse of the uWS.js fallback (uws-fallback.ts), on node:http. A response
 * writes through node's ServerResponse for an ordinary request, or straight to the socket for a
 * request that arrived as an upgrade (node hands those over detached from its HTTP machinery): a
 * refused WebSocket handshake, or an upgrade to a path with no WebSocket route. Semantics kept
 * from uWS.js: `getMethod()` is lower case, `getUrl()` is the raw path without the query,
 * `getQuery(key)` percent-decodes, `getHeader` takes a lower-case name and gives '' when absent,
 * `onData` streams ArrayBuffers and says which is last (an empty last one for an empty body),
 * `close()` runs the abort handler, and an answered or aborted response refuses further writes.
 */

import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';

const EMPTY = new ArrayBuffer(0);
const encoder = new TextEncoder();

export type RecognizedString = string | ArrayBuffer | ArrayBufferView;

export function toBuffer(data: RecognizedString): Buffer {
  if (typeof data === 'string') return Buffer.from(data, 'utf8');
  if (data instanceof ArrayBuffer) return Buffer.from(data);
  return Buffer.from(data.buffer, data.byteOffset, data.byteLength);
}

export class FallbackHttpRequest {
  readonly #request: IncomingMessage;
  readonly #path: string;
  readonly #query: string | undefined;
  #parameters: string[];
  #parameterNames: readonly string[];
  yielded: boolean;

  constructor(request: IncomingMessage) {
    this.#request = request;
    const url = request.url ?? '/';
    const mark = url.indexOf('?');
    this.#path = mark === -1 ? url : url.slice(0, mark);
    this.#query = mark === -1 ? undefined : url.slice(mark + 1);
    this.#parameters = [];
    this.#parameterNames = [];
    this.yielded = false;
  }

  /** The matched route's parameters (set by the app before each handler it tries). */
  setRoute(parameterNames: readonly string[], parameters: string[]): void {
    this.#parameterNames = parameterNames;
    this.#parameters = parameters;
  }

  getHeader(lowerCaseKey: RecognizedString): string {
    const value = this.#request.headers[String(lowerCaseKey)];
    if (value === undefined) return '';
    return Array.isArray(value) ? value.join(', ') : value;
  }

  getParameter(index: number | RecognizedString): string | undefined {
    if (typeof index === 'number') return this.#parameters[index];
    const at = this.#parameterNames.indexOf(String(index));
    return at === -1 ? undefined : this.#parameters[at];
  }

  getUrl(): string {
    return this.#path;
  }

  getMethod(): string {
    return (this.#request.method ?? 'GET').toLowerCase();
  }

  getCaseSensitiveMethod(): string {
    return this.#request.method ?? 'GET';
  }

  /** Without a key: the raw query after '?' (undefined without one); with a key: its decoded value. */
  getQuery(): string | undefined;
  getQuery(key: string): string | undefined;
  getQuery(key?: string): string | undefined {
    if (key === undefined) return this.#query;
    if (this.#query === undefined) return undefined;
    for (const pair of this.#query.split('&')) {
      const equals = pair.indexOf('=');
      const name = equals === -1 ? pair : pair.slice(0, equals);
      if (percentDecode(name) === key) return equals === -1 ? '' : percentDecode(pair.slice(equals + 1));
    }
    return undefined;
  }

  forEach(callback: (key: string, value: string) => void): void {
    const raw = this.#request.rawHeaders;
    for (let i = 0; i + 1 < raw.length; i += 2) callback(raw[i].toLowerCase(), raw[i + 1]);
  }

  setYield(yieldRequest: boolean): FallbackHttpRequest {
    this.yielded = yieldRequest;
    return this;
  }
}

/** %XX escapes only, as uWS decodes ('+' stays '+'); a malformed escape stays as it is. */
function percentDecode(text: string): string {
  if (!text.includes('%')) return text;
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

/** Where a fallback response's bytes go: node's response, or the raw socket of an upgrade request. */
interface ResponseTarget {
  readonly reply: ServerResponse | null;
  readonly socket: Duplex;
}

export class FallbackHttpResponse {
  readonly #target: ResponseTarget;
  readonly #request: IncomingMessage;
  #statusCode: number;
  #statusMessage: string;
  readonly #headers: Array<[string, string]> = [];
  #done: boolean;
  #aborted: boolean;
  #onAborted: (() => void) | null;
  #dataHandler: ((chunk: ArrayBuffer, isLast: boolean) => void) | null;
  /** Set by `upgrade()` for a request that came as a WebSocket upgrade (uws-fallback.ts). */
  upgradeHandler: ((userData: unknown, context: unknown) => void) | null;

  constructor(request: IncomingMessage, reply: ServerResponse | null, socket: Duplex) {
    this.#target = { reply, socket };
    this.#request = request;
    this.#statusCode = 200;
    this.#statusMessage = 'OK';
    this.#done = false;
    this.#aborted = false;
    this.#onAborted = null;
    this.#dataHandler = null;
    this.upgradeHandler = null;
    const closed = (): void => {
      if (this.#done || this.#aborted) return;
      this.#aborted = true;
      this.#onAborted?.();
    };
    if (reply !== null) reply.on('close', closed);
    else socket.on('close', closed);
  }

  /** True once answered, upgraded or aborted. */
  get finished(): boolean {
    return this.#done || this.#aborted;
  }

  writeStatus(status: RecognizedString): this {
    this.#assertOpen();
    const text = typeof status === 'string' ? status : toBuffer(status).toString('latin1');
    const space = text.indexOf(' ');
    this.#statusCode = Number.parseInt(space === -1 ? text : text.slice(0, space), 10);
    this.#statusMessage = space === -1 ? '' : text.slice(space + 1);
    return this;
  }

  writeHeader(key: RecognizedString, value: RecognizedString): this {
    this.#assertOpen();
    this.#headers.push([typeof key === 'string' ? key : toBuffer(key).toString('latin1'), typeof value === 'string' ? value : toBuffer(value).toString('latin1')]);
    return this;
  }

  end(body?: RecognizedString, closeConnection = false): this {
    this.#assertOpen();
    this.#done = true;
    const bytes = body === undefined ? null : toBuffer(body);
    this.#send(bytes, bytes === null ? 0 : bytes.length, closeConnection);
    return this;
  }

  endWithoutBody(reportedContentLength?: number, closeConnection = false): this {
    this.#assertOpen();
    this.#done = true;
    this.#send(null, reportedContentLength ?? 0, closeConnection);
    return this;
  }

  /** Streams a chunk (chunked encoding via node; never used by the simulator, kept for the subset). */
  write(chunk: RecognizedString): boolean {
    this.#assertOpen();
    const reply = this.#target.reply;
    if (reply === null) throw new Error('uWS fallback: write() on an upgrade request is not supported');
    if (!reply.headersSent) this.#writeHead(reply, false);
    return reply.write(toBuffer(chunk));
  }

  /** tryEnd: the whole body in one go (the fallback has no partial writes). */
  tryEnd(body: RecognizedString, totalSize: number): [boolean, boolean] {
    const bytes = toBuffer(body);
    this.#assertOpen();
    this.#done = true;
    this.#send(bytes, totalSize, false);
    return [true, true];
  }

  getWriteOffset(): number {
    return 0;
  }

  onWritable(): this {
    return this;
  }

  onAborted(handler: () => void): this {
    this.#onAborted = handler;
    return this;
  }

  /** Streams the body; an empty body gives one empty last chunk, as uWS does. */
  onData(handler: (chunk: ArrayBuffer, isLast: boolean) => void): this {
    this.#dataHandler = handler;
    if (this.#target.reply === null) {
      queueMicrotask(() => this.#deliver(EMPTY, true)); // an upgrade request: its body is not read
      return this;
    }
    let held: Buffer | null = null; // one chunk held back, so the last one says it is last
    this.#request.on('data', (chunk: Buffer) => {
      if (held !== null) this.#deliver(copyOf(held), false);
      held = chunk;
    });
    this.#request.on('end', () => this.#deliver(held === null ? EMPTY : copyOf(held), true));
    return this;
  }

  cork(callback: () => void): this {
    const socket = this.#target.socket;
    socket.cork();
    try {
      callback();
    } finally {
      socket.uncork();
    }
    return this;
  }

  getRemoteAddressAsText(): ArrayBuffer {
    return encoder.encode(this.#request.socket.remoteAddress ?? '').buffer as ArrayBuffer;
  }

  getRemotePort(): number {
    return this.#request.socket.remotePort ?? 0;
  }

  /** Ends the connection at once; the abort handler runs (uWS does the same). */
  close(): this {
    if (!this.#done && !this.#aborted) {
      this.#aborted = true;
      this.#onAborted?.();
    }
    this.#target.socket.destroy();
    return this;
  }

  upgrade<UserData>(userData: UserData, _secWebSocketKey: RecognizedString, _secWebSocketProtocol: RecognizedString, _secWebSocketExtensions: RecognizedString, context: unknown): void {
    this.#assertOpen();
    if (this.upgradeHandler === null) throw new Error('uWS fallback: upgrade() on a request that is not a WebSocket upgrade');
    this.#done = true;
    this.upgradeHandler(userData, context);
  }

  #deliver(chunk: ArrayBuffer, isLast: boolean): void {
    if (this.#aborted || this.#dataHandler === null) return;
    this.#dataHandler(chunk, isLast);
  }

  #assertOpen(): void {
    // uWS's wording: writing to an answered or aborted response is a bug in the caller.
    if (this.#done || this.#aborted) throw new Error('Invalid access of discarded or aborted uWS.HttpResponse');
  }

  #send(body: Buffer | null, contentLength: number, closeConnection: boolean): void {
    const reply = this.#target.reply;
    if (reply === null) {
      this.#sendRaw(body);
      return;
    }
    if (reply.headersSent) {
      reply.end(body ?? undefined);
      return;
    }
    const withLength = !hasHeader(this.#headers, 'content-length') && this.#statusCode !== 204 && this.#statusCode !== 304;
    this.#writeHead(reply, closeConnection, withLength ? contentLength : -1);
    reply.end(body ?? undefined);
  }

  /** `contentLength` -1: none (node then chunks what write() streams). */
  #writeHead(reply: ServerResponse, closeConnection: boolean, contentLength = -1): void {
    const headers: string[] = [];
    for (const [name, value] of this.#headers) headers.push(name, value);
    if (contentLength >= 0) headers.push('Content-Length', String(contentLength));
    if (closeConnection) {
      headers.push('Connection', 'close');
      reply.shouldKeepAlive = false;
    }
    reply.writeHead(this.#statusCode, this.#statusMessage === '' ? undefined : this.#statusMessage, headers);
  }

  /** An answer on an upgrade request's socket: node no longer parses it, so the connection ends after it. */
  #sendRaw(body: Buffer | null): void {
    let head = `HTTP/1.1 ${this.#statusCode} ${this.#statusMessage}\r\n`;
    for (const [name, value] of this.#headers) head += `${name}: ${value}\r\n`;
    if (!hasHeader(this.#headers, 'content-length')) head += `Content-Length: ${body === null ? 0 : body.length}\r\n`;
    head += 'Connection: close\r\n\r\n';
    const socket = this.#target.socket;
    socket.end(body === null ? Buffer.from(head, 'latin1') : Buffer.concat([Buffer.from(head, 'latin1'), body]));
  }
}

function hasHeader(headers: ReadonlyArray<[string, string]>, lowerCaseName: string): boolean {
  return headers.some(([name]) => name.toLowerCase() === lowerCaseName);
}

/** A chunk as its own ArrayBuffer (uWS hands one per chunk; node's Buffers may share a pool). */
function copyOf(chunk: Buffer): ArrayBuffer {
  return chunk.buffer.slice(chunk.byteOffset, chunk.byteOffset + chunk.byteLength) as ArrayBuffer;
}
