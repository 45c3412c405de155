/**
 * A preallocated request handler: one slot per hot-path request in flight, taken from a free list
 * and returned when the raw client (src/net/raw-http-pool.ts) reports the end of the exchange, so a
 * hot-path request allocates no handler of ours. The response body is read in place, in the
 * parser's buffer, before the slot is released, without a copy.
 *
 * The slot owns: status, body bytes, the request kind and the ids it answers for. It never
 * interprets a response (the owner's `finish` does) and never calls a listener itself.
 */

import type { CreateKey, ExecErrorCode, OrderKey, VenueOrderRef } from '../../oms/index.ts';
import type { NetFailure, RawExchangeHandler } from '../../net/index.ts';
import { netFailureCode } from './transport-error.ts';

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
  failCode(slot: RequestSlot, code: ExecErrorCode, sent: boolean): void; // failure with its code; sent false = never written
}

const NO_KEYS: readonly string[] = Object.freeze([]);

export class RequestSlot implements RawExchangeHandler {
  kind: RequestKind = RequestKind.CREATE;
  key = ''; // clientOrderId (create) or orderId (cancel, amend, decrease)
  orderHandle = 0; // create, cancelOrder: the order's handle when > 0, its answer's key instead of `key` (no id string made)
  order: Readonly<VenueOrderRef> | null = null; // cancelOrder: the order, to match the answer's echoed id without making its own
  keys: readonly string[] = NO_KEYS; // batch: clientOrderIds or orderIds, in request order
  status = 0;
  writeTokens = 0; // what the venue's write bucket charges for this request (counted in flight until it ends)
  active = false; // between send and the terminal callback
  rawBody: Buffer | null = null; // the parser's buffer, valid during finish() only
  rawBodyLength = 0;
  readonly #owner: SlotOwner;

  constructor(owner: SlotOwner) {
    this.#owner = owner;
  }

  /** The response body as text (decoded from the parser's buffer: no copy beyond the decode). */
  bodyText(): string {
    if (this.rawBody === null || this.rawBodyLength === 0) return '';
    return this.rawBody.toString('utf8', 0, this.rawBodyLength);
  }

  /** Which order a create's answer is for (ExecListener's CreateKey). */
  createKey(): CreateKey {
    return this.orderHandle > 0 ? this.orderHandle : this.key;
  }

  /** Which order a cancel's answer is for (ExecListener's OrderKey). */
  orderKey(): OrderKey {
    return this.orderHandle > 0 ? this.orderHandle : this.key;
  }

  /** Clears per-request state before reuse. */
  reset(): void {
    this.orderHandle = 0;
    this.order = null;
    this.status = 0;
    this.rawBody = null;
    this.rawBodyLength = 0;
    this.key = '';
    this.keys = NO_KEYS; // shared: no allocation per request
    this.writeTokens = 0;
  }

  onRawResponse(status: number, body: Buffer, bodyLength: number): void {
    if (!this.active) return;
    this.active = false;
    this.status = status;
    this.rawBody = body;
    this.rawBodyLength = bodyLength;
    this.#owner.finish(this);
  }

  onRawFailure(code: NetFailure, sent: boolean): void {
    if (!this.active) return;
    this.active = false;
    this.#owner.failCode(this, netFailureCode(code), sent);
  }
}
