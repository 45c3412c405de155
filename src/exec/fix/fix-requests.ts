/**
 * The FIX route's requests in flight, found by their ClOrdID(11) without an id string on the way
 * out (issue 29). A ClOrdID is one of:
 * - ours, for a cancel, replace or mass cancel: `<prefix><counter>`, the prefix unique to this
 *   process start; written as bytes from the prefix and the counter, found by the counter;
 * - the OMS's client order id of a create placed by handle (NewOrder.handle > 0): written by the
 *   order itself (NewOrder.writeClientOrderId), found by the handle. The id's head (all but the
 *   counter's digits) is learned from the first such create and read back in reports;
 * - any other create's id (an order of an earlier session, a held create): text, in a Map.
 * Every request is also found by its MsgSeqNum (a session Reject or BusinessMessageReject names
 * only that). Counters, handles and sequence numbers rise, so each sits in a CounterRing: no
 * allocation per request. Owns the pooled records and the indexes; never sends or answers.
 */

import { CounterRing, decimalDigits, writeInteger } from '../../core/index.ts';
import { Tag, type FixMessage } from '../../fix/index.ts';
import type { NewOrder } from '../../oms/index.ts';

export const enum Kind { CREATE, CANCEL, AMEND, DECREASE, MASS_CANCEL }

const enum IdForm { TEXT, OWN, HANDLE }

/** The longest ClOrdID written as bytes here (the OMS's ids are at most 64 characters). */
const ID_BYTES_MAX = 96;

/** One request in flight, pooled. */
export class Pending {
  kind: Kind = Kind.CREATE;
  /** How its ClOrdID is held: text (`clOrdIdText`), our counter or the create's handle (`idNumber`). */
  idForm: IdForm = IdForm.TEXT;
  idNumber = 0;
  clOrdIdText = '';
  /** The port's key: the create's client order id text ('' when placed by handle), the order id otherwise. */
  key = '';
  /** The create's handle (> 0 when placed by handle): the key the OMS is answered with. */
  handle = 0;
  seq = 0;
  sentMs = 0;
  answered = false; // an ack is folded until the end of the read chunk
  orderId = '';
  cumQty = 0;
  leavesQty = 0;
  reducedBy = 0;
  tsMs = 0;
  resolve: (() => void) | null = null;
  reject: ((error: Error) => void) | null = null;
  reset(): void {
    this.idForm = IdForm.TEXT;
    this.idNumber = 0;
    this.clOrdIdText = '';
    this.key = '';
    this.handle = 0;
    this.seq = 0;
    this.answered = false;
    this.orderId = '';
    this.cumQty = 0;
    this.leavesQty = 0;
    this.reducedBy = 0;
    this.tsMs = 0;
    this.resolve = null;
    this.reject = null;
  }
}

export class FixRequests {
  /** The ClOrdID just written by ownId / createId, bytes [0, end). */
  readonly scratch = Buffer.alloc(ID_BYTES_MAX + 32);
  readonly #ownPrefix: Buffer;
  #ownCounter = 0;
  /** The OMS's id head as learned from the first create by handle; null until then. */
  #createHead: Buffer | null = null;
  readonly #own = new CounterRing<Pending>();
  readonly #byHandle = new CounterRing<Pending>();
  readonly #byText = new Map<string, Pending>();
  readonly #bySeq = new CounterRing<Pending>();
  readonly #free: Pending[] = [];
  #inFlight = 0;

  /** `ownPrefix`: visible ASCII without '=' or SOH, unique to this process start. */
  constructor(ownPrefix: string) {
    this.#ownPrefix = Buffer.from(ownPrefix, 'latin1');
  }

  get inFlight(): number {
    return this.#inFlight;
  }

  /** A record for a new request (tracked by track()). */
  take(kind: Kind): Pending {
    const pending = this.#free.pop() ?? new Pending();
    pending.kind = kind;
    return pending;
  }

  /** Writes a fresh ClOrdID of ours into `scratch` for `pending`; returns its end. */
  ownId(pending: Pending): number {
    const counter = ++this.#ownCounter;
    pending.idForm = IdForm.OWN;
    pending.idNumber = counter;
    return this.#writeOwnId(counter);
  }

  /**
   * The keep-warm's rehearsal of ownId(): writes the ClOrdID the next ownId() would into `scratch`
   * and returns its end; the counter does not move.
   */
  rehearseOwnId(): number {
    return this.#writeOwnId(this.#ownCounter + 1);
  }

  /** Our ClOrdID with `counter` into `scratch`; its end. */
  #writeOwnId(counter: number): number {
    this.#ownPrefix.copy(this.scratch, 0);
    return writeInteger(this.scratch, this.#ownPrefix.length, counter);
  }

  /**
   * The keep-warm's rehearsal of createId(): writes the order's id bytes into `scratch` when it was
   * placed by handle and returns their end, or -1 (the id goes as text). Nothing is learned (the
   * rehearsal's orders carry another head than the real ones) and no record is touched.
   */
  rehearseCreateId(order: Readonly<NewOrder>): number {
    const handle = order.handle ?? 0;
    if (handle <= 0 || order.writeClientOrderId === undefined) return -1;
    const end = order.writeClientOrderId(this.scratch, 0);
    return end > 0 && end <= ID_BYTES_MAX ? end : -1;
  }

  /**
   * Writes a create's ClOrdID (the OMS's client order id) into `scratch` from the order's bytes
   * when it was placed by handle and its head is the one learned; returns its end, or -1 when the
   * id goes as text (`order.clientOrderId`: the record keeps that text).
   */
  createId(pending: Pending, order: Readonly<NewOrder>): number {
    const handle = order.handle ?? 0;
    if (handle > 0 && order.writeClientOrderId !== undefined) {
      const end = order.writeClientOrderId(this.scratch, 0);
      const headEnd = end - decimalDigits(handle);
      // The id must be <head><handle in decimal>, as the OMS writes it: only then can a report's
      // ClOrdID be read back to the handle. Anything else goes as text.
      if (end > 0 && end <= ID_BYTES_MAX && headEnd > 0 && decimalAt(this.scratch, headEnd, end) === handle && this.#headIs(headEnd)) {
        pending.idForm = IdForm.HANDLE;
        pending.idNumber = handle;
        pending.handle = handle;
        return end;
      }
    }
    pending.idForm = IdForm.TEXT;
    pending.clOrdIdText = order.clientOrderId;
    pending.key = pending.clOrdIdText;
    return -1;
  }

  /** Indexes `pending` (its ClOrdID set by ownId/createId) under that id and `seq`. */
  track(pending: Pending, seq: number, sentMs: number): void {
    pending.seq = seq;
    pending.sentMs = sentMs;
    switch (pending.idForm) {
      case IdForm.OWN: this.#own.set(pending.idNumber, pending); break;
      case IdForm.HANDLE: this.#byHandle.set(pending.idNumber, pending); break;
      default: this.#byText.set(pending.clOrdIdText, pending); break;
    }
    this.#bySeq.set(seq, pending);
    this.#inFlight++;
  }

  /** Unindexes `pending` and returns its record to the pool. */
  release(pending: Pending): void {
    switch (pending.idForm) {
      case IdForm.OWN:
        if (this.#own.get(pending.idNumber) === pending) this.#own.delete(pending.idNumber);
        break;
      case IdForm.HANDLE:
        if (this.#byHandle.get(pending.idNumber) === pending) this.#byHandle.delete(pending.idNumber);
        break;
      default:
        if (this.#byText.get(pending.clOrdIdText) === pending) this.#byText.delete(pending.clOrdIdText);
        break;
    }
    if (this.#bySeq.get(pending.seq) === pending) this.#bySeq.delete(pending.seq);
    this.#inFlight--;
    pending.reset();
    this.#free.push(pending);
  }

  /** The request a message's ClOrdID(11) names, read from its bytes (a string only for a text id). */
  byClOrdId(message: FixMessage): Pending | undefined {
    const index = message.indexOf(Tag.ClOrdID);
    if (index === -1) return undefined;
    const bytes = message.bytes;
    const start = message.valueStartAt(index);
    const end = message.valueEndAt(index);
    const own = counterAfter(bytes, start, end, this.#ownPrefix);
    if (own > 0) {
      const pending = this.#own.get(own);
      if (pending !== undefined) return pending;
    }
    const head = this.#createHead;
    if (head !== null) {
      const handle = counterAfter(bytes, start, end, head);
      const pending = handle > 0 ? this.#byHandle.get(handle) : undefined;
      if (pending !== undefined) return pending;
    }
    return this.#byText.size === 0 ? undefined : this.#byText.get(message.stringAt(index) ?? '');
  }

  /** The request a ClOrdID's text names (a BusinessMessageReject's BusinessRejectRefID). */
  byClOrdIdText(text: string): Pending | undefined {
    const fromText = this.#byText.get(text);
    if (fromText !== undefined) return fromText;
    const bytes = Buffer.from(text, 'latin1');
    const own = counterAfter(bytes, 0, bytes.length, this.#ownPrefix);
    const ownPending = own > 0 ? this.#own.get(own) : undefined;
    if (ownPending !== undefined) return ownPending;
    const head = this.#createHead;
    const handle = head === null ? -1 : counterAfter(bytes, 0, bytes.length, head);
    return handle > 0 ? this.#byHandle.get(handle) : undefined;
  }

  bySeq(seq: number): Pending | undefined {
    return this.#bySeq.get(seq);
  }

  /** Every request in flight (off the hot path: allocates). */
  all(): Pending[] {
    return this.#bySeq.values();
  }

  /** The ClOrdID of `pending` as text (logs, tests). */
  clOrdIdOf(pending: Pending): string {
    switch (pending.idForm) {
      case IdForm.OWN: return `${this.#ownPrefix.toString('latin1')}${pending.idNumber}`;
      case IdForm.HANDLE: return `${this.#createHead?.toString('latin1') ?? ''}${pending.idNumber}`;
      default: return pending.clOrdIdText;
    }
  }

  /** Whether scratch[0, headEnd) is the learned head (learning it on the first call). */
  #headIs(headEnd: number): boolean {
    const head = this.#createHead;
    if (head === null) {
      this.#createHead = Buffer.from(this.scratch.subarray(0, headEnd));
      return true;
    }
    if (head.length !== headEnd) return false;
    const scratch = this.scratch;
    for (let i = 0; i < headEnd; i++) if (scratch[i] !== head[i]) return false;
    return true;
  }
}

/** The decimal counter after `prefix` in bytes[start, end) (no leading zero, at most 16 digits, safe), or -1. */
function counterAfter(bytes: Uint8Array, start: number, end: number, prefix: Uint8Array): number {
  const digits = end - start - prefix.length;
  if (digits <= 0 || digits > 16) return -1;
  for (let i = 0; i < prefix.length; i++) if (bytes[start + i] !== prefix[i]) return -1;
  if (bytes[start + prefix.length] === 0x30) return -1;
  const counter = decimalAt(bytes, start + prefix.length, end);
  return counter <= Number.MAX_SAFE_INTEGER ? counter : -1;
}

/** The decimal number in bytes[start, end) (digits only), or -1. */
function decimalAt(bytes: Uint8Array, start: number, end: number): number {
  let value = 0;
  for (let at = start; at < end; at++) {
    const code = bytes[at]!;
    if (code < 0x30 || code > 0x39) return -1;
    value = value * 10 + (code - 0x30);
  }
  return value;
}

