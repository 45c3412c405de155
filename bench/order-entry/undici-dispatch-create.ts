/**
 * Baseline for bench/order-entry (not used by the runtime): a V2 create sent through an undici Pool
 * with pool.dispatch and a preallocated handler, the variant of the hot path RestOrderEntry carried
 * as `hotPathTransport: 'undici'` before every order mutation went to its raw client
 * (src/exec/rest/rest-order-entry.ts says why: undici defers the write on a reused keep-alive
 * socket by one setImmediate). The same body (encodeCreateOrder) and the same signing: a signature
 * taken from a Presigner ring (refilled when nothing is in flight, as RestOrderEntry's 'idle'
 * refill) or made inline; `connections` sockets, one request each at a time (pipelining 1), opened
 * and warmed by open() with a signed GET each so the first create finds a warm socket.
 *
 * Outcomes go to an ExecListener's create callbacks: 2xx with an order_id -> ack; 4xx -> reject
 * with the status (the body's error code when it has one); 5xx, a bad body or a transport error ->
 * unknown. Enough for latency rows; not the runtime's full mapping (wire-parse.ts).
 *
 * Write timing (undici 7.30, read from its source; test/bench/undici-dispatch-create.test.ts pins
 * it): dispatch() queues the request on an idle client and returns; the socket write (its
 * `undici:client:sendHeaders` diagnostics event, then writeH1) happens inside dispatch() only on a
 * socket's first request. On a reused keep-alive socket undici first runs idle socket validation
 * (GHSA-35p6-xmwp-9g52, client-h1.js scheduleIdleSocketValidation): one setImmediate, so the bytes
 * leave in the check phase of the same loop turn.
 */

import type { KeyObject } from 'node:crypto';
import { Pool, type Dispatcher } from 'undici';
import { signRequest, type Clock, type Count } from '../../src/core/index.ts';
import {
  Presigner,
  encodeCreateOrder,
  signatureText,
  type PresignedSignature,
} from '../../src/exec/index.ts';
import type { ExecErrorCode, ExecListener, NewOrder } from '../../src/oms/index.ts';

export interface UndiciDispatchCreateOptions {
  baseUrl: string; // origin + API prefix, e.g. http://127.0.0.1:9000/trade-api/v2
  keyId: string;
  privateKey: KeyObject;
  clock: Clock;
  connections: number;
  signing: 'presigned' | 'inline';
  presignCapacity: number;
  headersTimeoutMs: number;
  bodyTimeoutMs: number;
  warmPath: string; // signed GET used to open the sockets (relative to the prefix)
}

export const UNDICI_DISPATCH_CREATE_DEFAULTS: Readonly<Omit<UndiciDispatchCreateOptions, 'baseUrl' | 'keyId' | 'privateKey' | 'clock'>> =
  Object.freeze({
    connections: 2,
    signing: 'presigned',
    presignCapacity: 32,
    headersTimeoutMs: 2_000,
    bodyTimeoutMs: 2_000,
    warmPath: '/portfolio/balance',
  });

// Header array layout (name, value pairs); undici copies the array inside dispatch(), so reusing it is safe.
const TIMESTAMP_INDEX = 5;
const SIGNATURE_INDEX = 7;

/** One request in flight: a dispatch handler (undici's legacy methods, run natively) and its options. */
class Slot {
  clientOrderId = '';
  status = 0;
  active = false;
  readonly chunks: Buffer[] = [];
  readonly headers: string[];
  readonly options: Dispatcher.DispatchOptions;
  readonly #owner: UndiciDispatchCreate;

  constructor(owner: UndiciDispatchCreate, keyId: string, createPath: string, headersTimeoutMs: number, bodyTimeoutMs: number) {
    this.#owner = owner;
    this.headers = ['content-type', 'application/json', 'kalshi-access-key', keyId, 'kalshi-access-timestamp', '', 'kalshi-access-signature', ''];
    this.options = { method: 'POST', path: createPath, body: null, headers: this.headers, headersTimeout: headersTimeoutMs, bodyTimeout: bodyTimeoutMs };
  }

  onConnect(_abort: (error?: Error) => void): void {}

  onHeaders(statusCode: number, _headers: Buffer[] | string[] | null, _resume: () => void, _statusText: string): boolean {
    this.status = statusCode;
    return true;
  }

  onData(chunk: Buffer): boolean {
    this.chunks.push(chunk);
    return true;
  }

  onComplete(_trailers: string[] | null): void {
    if (!this.active) return;
    this.active = false;
    this.#owner.finish(this);
  }

  onError(error: Error): void {
    if (!this.active) return;
    this.active = false;
    this.#owner.fail(this, error);
  }
}

export class UndiciDispatchCreate {
  readonly stats = { requests: 0, presigned: 0, inlineSigned: 0, queued: 0, acks: 0, rejects: 0, unknowns: 0 };
  readonly #options: UndiciDispatchCreateOptions;
  readonly #pool: Pool;
  readonly #prefix: string;
  readonly #createPath: string;
  readonly #free: Slot[] = [];
  readonly #signed: PresignedSignature = { timestampText: '', signature: '' };
  #listener: ExecListener;
  #presigner: Presigner | null = null;
  #inflight = 0;

  private constructor(options: UndiciDispatchCreateOptions, listener: ExecListener) {
    this.#options = options;
    this.#listener = listener;
    const url = new URL(options.baseUrl);
    this.#prefix = url.pathname.replace(/\/+$/, '');
    this.#createPath = `${this.#prefix}/portfolio/events/orders`;
    this.#pool = new Pool(url.origin, {
      connections: options.connections,
      pipelining: 1, // one request per socket at a time; 0 would mean "connection: close" in undici
      headersTimeout: options.headersTimeoutMs,
      bodyTimeout: options.bodyTimeoutMs,
      keepAliveTimeout: 60_000,
      keepAliveTimeoutThreshold: 1_000,
    });
    for (let i = 0; i < 4; i++) this.#free.push(this.#newSlot());
  }

  /** Starts the presigner (signing 'presigned') and opens and warms every socket. */
  static async open(options: UndiciDispatchCreateOptions, listener: ExecListener): Promise<UndiciDispatchCreate> {
    const one = new UndiciDispatchCreate(options, listener);
    try {
      if (options.signing === 'presigned') {
        one.#presigner = await Presigner.start({
          privateKey: options.privateKey,
          clock: options.clock,
          endpoints: [{ method: 'POST', path: one.#createPath, capacity: options.presignCapacity }],
          maxAgeMs: 3_000,
          refreshLeadMs: 1_000,
          tickMs: 250,
          startTimeoutMs: 10_000,
          refillOnTake: false,
          workerNice: 19, // as REST_ORDER_ENTRY_DEFAULTS.presign
        });
      }
      await one.#warm();
    } catch (error) {
      await one.close();
      throw error;
    }
    return one;
  }

  setListener(listener: ExecListener): void {
    this.#listener = listener;
  }

  /** Encodes, signs (ring or inline) and dispatches; outcomes go to the listener. */
  create(order: Readonly<NewOrder>): void {
    const body = encodeCreateOrder(order);
    const signed = this.#signed;
    if (this.#presigner !== null && this.#presigner.take(0, signed)) {
      this.stats.presigned++;
    } else {
      const timestampMs = this.#options.clock.nowMs();
      signed.timestampText = String(timestampMs);
      signed.signature = signRequest(this.#options.privateKey, timestampMs, 'POST', this.#createPath);
      this.stats.inlineSigned++;
    }
    const slot = this.#free.pop() ?? this.#newSlot();
    slot.clientOrderId = order.clientOrderId;
    slot.active = true;
    slot.headers[TIMESTAMP_INDEX] = signed.timestampText;
    // undici takes headers as strings: a ring's signature comes as head bytes, read out here.
    slot.headers[SIGNATURE_INDEX] = signatureText(signed);
    slot.options.body = body;
    this.stats.requests++;
    if (this.#inflight >= this.#options.connections) this.stats.queued++;
    this.#inflight++;
    this.#pool.dispatch(slot.options, slot);
  }

  async close(): Promise<void> {
    await Promise.all([this.#pool.destroy(), this.#presigner?.close()]);
  }

  /** Called by a slot with a full response. */
  finish(slot: Slot): void {
    const status = slot.status;
    const text = slot.chunks.length === 1 ? slot.chunks[0]!.toString('utf8') : Buffer.concat(slot.chunks).toString('utf8');
    const id = slot.clientOrderId;
    this.#release(slot);
    if (status >= 500) return this.#unknown(id, 'EXEC_HTTP_5XX');
    let body: Record<string, unknown> | null = null;
    try {
      const parsed: unknown = JSON.parse(text);
      if (typeof parsed === 'object' && parsed !== null) body = parsed as Record<string, unknown>;
    } catch {
      // not JSON: unknown (2xx) or a reject without a code (4xx)
    }
    if (status >= 400) {
      const error = body?.['error'];
      const code = typeof error === 'object' && error !== null && typeof (error as { code?: unknown }).code === 'string' ? (error as { code: string }).code : `http_${status}`;
      this.stats.rejects++;
      return this.#listener.onCreateReject(id, { status, code, message: '', details: '' });
    }
    const orderId = body?.['order_id'];
    if (status < 200 || status >= 300 || typeof orderId !== 'string') return this.#unknown(id, 'EXEC_BAD_RESPONSE');
    this.stats.acks++;
    this.#listener.onCreateAck(id, orderId, 0 as Count, 0 as Count, 0); // counts not read: latency rows only
  }

  /** Called by a slot on a transport error. */
  fail(slot: Slot, error: Error): void {
    const id = slot.clientOrderId;
    this.#release(slot);
    const code = (error as { code?: string }).code;
    this.#unknown(id, code === 'UND_ERR_HEADERS_TIMEOUT' || code === 'UND_ERR_BODY_TIMEOUT' ? 'EXEC_TIMEOUT' : 'EXEC_DISCONNECTED');
  }

  #unknown(id: string, code: ExecErrorCode): void {
    this.stats.unknowns++;
    this.#listener.onCreateUnknown(id, code);
  }

  #release(slot: Slot): void {
    slot.chunks.length = 0;
    slot.status = 0;
    slot.options.body = null;
    this.#free.push(slot);
    this.#inflight--;
    if (this.#inflight === 0) this.#presigner?.refill();
  }

  #newSlot(): Slot {
    return new Slot(this, this.#options.keyId, this.#createPath, this.#options.headersTimeoutMs, this.#options.bodyTimeoutMs);
  }

  /** `connections` concurrent signed GETs, signed first and sent together so each opens its own socket. */
  async #warm(): Promise<void> {
    const path = `${this.#prefix}${this.#options.warmPath}`;
    const requests: Promise<void>[] = [];
    for (let i = 0; i < this.#options.connections; i++) {
      const timestampMs = this.#options.clock.nowMs();
      const headers = {
        'kalshi-access-key': this.#options.keyId,
        'kalshi-access-timestamp': String(timestampMs),
        'kalshi-access-signature': signRequest(this.#options.privateKey, timestampMs, 'GET', path),
      };
      requests.push((async () => {
        const response = await this.#pool.request({ method: 'GET', path, headers });
        await response.body.text();
        if (response.statusCode < 200 || response.statusCode >= 300) throw new Error(`undici baseline: GET ${path}: HTTP ${response.statusCode}`);
      })());
    }
    await Promise.all(requests);
  }
}
