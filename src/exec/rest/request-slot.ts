/**
 * A preallocated request handler plus the request record it sends: one slot per request in
 * flight, taken from a free list and returned when the transport reports the end of the exchange,
 * so a hot-path request allocates no handler, options object or header array of ours. A slot
 * serves both transports: undici's dispatch handler methods, and RawExchangeHandler for the raw
 * hot-path client (raw-http-pool.ts), whose response body is read in place, before the slot is
 * released, without a copy.
 *
 * Why the legacy handler methods (onConnect/onHeaders/onData/onComplete/onError): undici 7 runs them
 * natively; a handler with the newer onRequestStart/onResponse* methods is wrapped per request in an
 * UnwrapHandler + UnwrapController and gets its headers parsed into an object
 * (undici/lib/handler/unwrap-handler.js), all allocation we do not need.
 *
 * The slot owns: status, body bytes, the request kind and the ids it answers for. It never
 * interprets a response (the owner's `finish` does) and never calls a listener itself.
 */

import type { Dispatcher } from 'undici';
import type { ExecErrorCode } from '../order-entry.ts';
import type { RawExchangeHandler } from './raw-http-connection.ts';

export const RequestKind = {
  CREATE: 0,
  CANCEL: 1, // DELETE /portfolio/events/orders/{id}
  CANCEL_VIA_BATCH: 2, // one cancel routed through DELETE .../batched (presignable constant path)
  AMEND: 3,
  DECREASE: 4,
  BATCH_CREATE: 5,
  BATCH_CANCEL: 6,
} as const;
export type RequestKind = (typeof RequestKind)[keyof typeof RequestKind];

/** What the owner does when a slot's exchange ends. */
export interface SlotOwner {
  finish(slot: RequestSlot): void; // full response received: slot.status, slot.bodyText()
  fail(slot: RequestSlot, error: Error): void; // undici: transport failure before a full response
  failCode(slot: RequestSlot, code: ExecErrorCode, sent: boolean): void; // raw: failure with its code; sent false = never written
}

const NO_KEYS: readonly string[] = Object.freeze([]);
const BODY_BYTES_MAX = 1 << 20; // 1 MiB: far above any order response; more is a broken peer

// Header array layouts (name, value pairs). Values at TIMESTAMP/SIGNATURE are set per request;
// undici copies the array inside dispatch(), so reusing it is safe.
export const HEADER_TIMESTAMP_INDEX = 3;
export const HEADER_SIGNATURE_INDEX = 5;

export class RequestSlot implements RawExchangeHandler {
  kind: RequestKind = RequestKind.CREATE;
  key = ''; // clientOrderId (create) or orderId (cancel, amend, decrease)
  keys: readonly string[] = NO_KEYS; // batch: clientOrderIds or orderIds, in request order
  status = 0;
  active = false; // between dispatch and the terminal callback
  viaRaw = false; // sent on the raw hot-path client (else the undici order pool)
  readonly chunks: Buffer[] = [];
  bodyBytes = 0;
  bodyTooLarge = false;
  rawBody: Buffer | null = null; // raw transport: the parser's buffer, valid during finish() only
  rawBodyLength = 0;
  readonly headersWithBody: string[];
  readonly headersNoBody: string[];
  readonly options: Dispatcher.DispatchOptions;
  readonly #owner: SlotOwner;

  constructor(owner: SlotOwner, keyId: string, headersTimeoutMs: number, bodyTimeoutMs: number) {
    this.#owner = owner;
    this.headersNoBody = [
      'kalshi-access-key', keyId,
      'kalshi-access-timestamp', '',
      'kalshi-access-signature', '',
    ];
    this.headersWithBody = [...this.headersNoBody, 'content-type', 'application/json'];
    this.options = {
      method: 'POST',
      path: '/',
      body: null,
      headers: this.headersNoBody,
      headersTimeout: headersTimeoutMs,
      bodyTimeout: bodyTimeoutMs,
    };
  }

  /** The response body as text (one chunk: no copy beyond the decode). */
  bodyText(): string {
    if (this.rawBody !== null) return this.rawBodyLength === 0 ? '' : this.rawBody.toString('utf8', 0, this.rawBodyLength);
    const chunks = this.chunks;
    if (chunks.length === 0) return '';
    if (chunks.length === 1) return chunks[0]!.toString('utf8');
    return Buffer.concat(chunks, this.bodyBytes).toString('utf8');
  }

  /** Clears per-request state before reuse (the header arrays are overwritten by the next send). */
  reset(): void {
    this.status = 0;
    this.chunks.length = 0;
    this.bodyBytes = 0;
    this.bodyTooLarge = false;
    this.rawBody = null;
    this.rawBodyLength = 0;
    this.viaRaw = false;
    this.key = '';
    this.keys = NO_KEYS; // shared: no allocation per request
    this.options.body = null;
  }

  // ---- raw transport handler ----

  onRawResponse(status: number, body: Buffer, bodyLength: number): void {
    if (!this.active) return;
    this.active = false;
    this.status = status;
    this.rawBody = body;
    this.rawBodyLength = bodyLength;
    this.#owner.finish(this);
  }

  onRawFailure(code: ExecErrorCode, sent: boolean): void {
    if (!this.active) return;
    this.active = false;
    this.#owner.failCode(this, code, sent);
  }

  // ---- undici handler (legacy, native API) ----

  onConnect(_abort: (error?: Error) => void): void {}

  onHeaders(statusCode: number, _headers: Buffer[] | string[] | null, _resume: () => void, _statusText: string): boolean {
    this.status = statusCode; // 1xx informational headers come first and are overwritten
    return true;
  }

  onData(chunk: Buffer): boolean {
    this.bodyBytes += chunk.length;
    if (this.bodyBytes > BODY_BYTES_MAX) this.bodyTooLarge = true;
    else this.chunks.push(chunk);
    return true;
  }

  onComplete(_trailers: string[] | null): void {
    if (!this.active) return;
    this.active = false;
    this.#owner.finish(this);
  }

  onError(error: Error): void {
    if (!this.active) return; // undici reports an error after onComplete only when finish() threw
    this.active = false;
    this.#owner.fail(this, error);
  }
}
