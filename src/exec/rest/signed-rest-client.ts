/**
 * Signed REST calls off the hot path on an undici Pool: cancel-all, reads, order groups. Each
 * request is signed in the presigner's worker when one runs (no 1 ms stall of the event loop),
 * else (or when asked: the kill switch must not wait behind a refill batch) on this thread.
 * Resolves with the parsed JSON object (null for an empty body); rejects with ExecError for a
 * transport failure or a non-2xx status. Owns the pool, the signing choice, paging and warming.
 */

import type { KeyObject } from 'node:crypto';
import { Pool } from 'undici';
import { signRequest, type Clock } from '../../core/index.ts';
import { ExecError } from '../../oms/index.ts';
import type { Presigner, PresignedSignature } from './presigner.ts';
import { statusErrorCode, transportErrorCode } from './transport-error.ts';
import { parseErrorBody, parseJsonObject, readAllPages } from './wire-parse.ts';

/** A client's own options: the venue options with the origin resolved and the presigner required. */
export type SignedRestClientOptions = Omit<VenueClientOptions, 'baseUrl' | 'presigner'> & {
  origin: string;
  /** The presigner that signs off the event loop, when one runs (null: sign inline). */
  presigner: () => Presigner | null;
};


/** The API prefix every signed path starts with: the URL's path, '/trade-api/v2' when it has none. */
export function apiPrefixOf(url: URL): string {
  const prefix = url.pathname.replace(/\/+$/, '');
  return prefix === '' ? '/trade-api/v2' : prefix;
}

/** What every off-path client of the venue (account reads, quotes) is built from. */
export interface VenueClientOptions {
  baseUrl: string; // origin + API prefix, e.g. http://127.0.0.1:9000/trade-api/v2
  keyId: string;
  privateKey: KeyObject;
  clock: Clock;
  connections: number;
  connectTimeoutMs: number;
  headersTimeoutMs: number;
  bodyTimeoutMs: number;
  keepAliveTimeoutMs: number;
  tls: { ca?: string | Buffer } | null;
  /** Signs in this presigner's worker when it runs (the REST route's); default inline. */
  presigner?: () => Presigner | null;
}

/** A signed client for `options.baseUrl`'s origin and the API prefix its paths start with. */
export function signedClientFor(options: VenueClientOptions): { client: SignedRestClient; prefix: string } {
  const url = new URL(options.baseUrl);
  const client = new SignedRestClient({
    origin: url.origin,
    keyId: options.keyId,
    privateKey: options.privateKey,
    clock: options.clock,
    connections: options.connections,
    connectTimeoutMs: options.connectTimeoutMs,
    headersTimeoutMs: options.headersTimeoutMs,
    bodyTimeoutMs: options.bodyTimeoutMs,
    keepAliveTimeoutMs: options.keepAliveTimeoutMs,
    tls: options.tls,
    presigner: options.presigner ?? (() => null),
  });
  return { client, prefix: apiPrefixOf(url) };
}

export class SignedRestClient {
  readonly #options: SignedRestClientOptions;
  readonly #pool: Pool;
  #closed = false;

  constructor(options: SignedRestClientOptions) {
    this.#options = options;
    this.#pool = new Pool(options.origin, {
      pipelining: 1, // one request per socket at a time; 0 would mean "connection: close" in undici
      connections: options.connections,
      connectTimeout: options.connectTimeoutMs,
      headersTimeout: options.headersTimeoutMs,
      bodyTimeout: options.bodyTimeoutMs,
      keepAliveTimeout: options.keepAliveTimeoutMs,
      keepAliveMaxTimeout: Math.max(options.keepAliveTimeoutMs, 600_000),
      keepAliveTimeoutThreshold: 1_000, // close our side 1 s before the server's advertised idle limit
      ...(options.tls !== null ? { connect: { ...options.tls } } : {}),
    });
  }

  /** One signed request; `signInline` skips the presigner (the kill switch). */
  async call(method: string, path: string, body: string | null, signInline = false): Promise<Record<string, unknown> | null> {
    const signed = await this.sign(method, path, signInline);
    return this.callSigned(method, path, body, signed);
  }

  /** Follows `cursor` until it is empty (or repeats), at most pagesMax pages of `limit` items. */
  async pages(path: string, params: URLSearchParams, listName: string, limit: number, pagesMax: number): Promise<Record<string, unknown>[]> {
    return readAllPages((target) => this.call('GET', target, null), path, params, listName, limit, pagesMax);
  }

  /**
   * `count` concurrent signed GETs of `path`, so the pool opens (or reuses) that many sockets. All
   * are signed first and dispatched together: sent one by one as signatures arrive, a fast answer
   * frees the first socket before the next GET and the pool would reuse it instead of opening another.
   */
  async warm(path: string, count: number): Promise<void> {
    const signatures: Promise<PresignedSignature>[] = [];
    for (let i = 0; i < count; i++) signatures.push(this.sign('GET', path, false));
    const signed = await Promise.all(signatures);
    await Promise.all(signed.map((one) => this.callSigned('GET', path, null, one)));
  }

  /** Timestamp and signature for a request (worker when running, else inline). */
  async sign(method: string, path: string, signInline: boolean): Promise<PresignedSignature> {
    if (this.#closed) throw new ExecError('EXEC_DISCONNECTED', 'closed');
    const query = path.indexOf('?');
    const signedPath = query === -1 ? path : path.slice(0, query);
    const presigner = this.#options.presigner();
    if (!signInline && presigner !== null && presigner.alive) return presigner.signAsync(method, signedPath);
    const timestampMs = this.#options.clock.nowMs();
    return { timestampText: String(timestampMs), signature: signRequest(this.#options.privateKey, timestampMs, method, signedPath) };
  }

  async callSigned(method: string, path: string, body: string | null, signed: PresignedSignature): Promise<Record<string, unknown> | null> {
    const { status, text } = await this.send(method, path, body, signed);
    return answerOf(method, path, status, text);
  }

  /**
   * One signed request, its status, Retry-After header (null when absent) and body text, whatever
   * the status; rejects with ExecError on a transport failure only. The budgeted reads
   * (budgeted-rest-client.ts) read the status themselves to retry a 429.
   */
  async send(method: string, path: string, body: string | null, signed: PresignedSignature): Promise<{ status: number; retryAfter: string | null; text: string }> {
    if (this.#closed) throw new ExecError('EXEC_DISCONNECTED', 'closed');
    const headers: Record<string, string> = {
      'kalshi-access-key': this.#options.keyId,
      'kalshi-access-timestamp': signed.timestampText,
      'kalshi-access-signature': signed.signature,
    };
    if (body !== null) headers['content-type'] = 'application/json';
    try {
      const response = await this.#pool.request({
        method: method as 'GET',
        path,
        body,
        headers,
        headersTimeout: this.#options.headersTimeoutMs,
        bodyTimeout: this.#options.bodyTimeoutMs,
      });
      const retryAfter = response.headers['retry-after'];
      return { status: response.statusCode, retryAfter: typeof retryAfter === 'string' ? retryAfter : null, text: await response.body.text() };
    } catch (error) {
      const code = transportErrorCode(error);
      throw new ExecError(code, `${method} ${pathOnly(path)}: ${code} (${(error as Error).message})`);
    }
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    await this.#pool.destroy();
  }
}

function pathOnly(path: string): string {
  const query = path.indexOf('?');
  return query === -1 ? path : path.slice(0, query);
}

/** A response's parsed JSON object (null for an empty body), or ExecError for a non-2xx status or a body that is not an object. */
export function answerOf(method: string, path: string, status: number, text: string): Record<string, unknown> | null {
  if (status < 200 || status >= 300) {
    const reject = parseErrorBody(status, text);
    throw new ExecError(statusErrorCode(status), `${method} ${pathOnly(path)}: HTTP ${status} ${reject.code}`, status, reject);
  }
  if (text === '') return null;
  const parsed = parseJsonObject(text);
  if (parsed === null) throw new ExecError('EXEC_BAD_RESPONSE', `${method} ${pathOnly(path)}: body is not a JSON object`, status);
  return parsed;
}
