/**
 * An OrderEntry for the in-process hot-path benches: create/cancel/amend/decrease do the work
 * RestOrderEntry (or MarginOrderEntry, with MARGIN_SINK) does inside the call up to the socket -
 * the route's pre-send rules and body checks, the route's own body writers (exec's, the bytes
 * written straight into the request), a ready signature from a ring (the presigner's take is a
 * ring read; its timestamp and signature as head bytes, as the presigner makes them), request line, headers and body assembled into a reused byte buffer with the pool's
 * own assembleInto (src/net/request-bytes.ts, what RawHttpPool.send does on an idle connection) -
 * then count the bytes instead of writing them to a socket. Answers are queued and delivered only
 * when the driver calls deliverAnswers() between frames, so they never run inside a timed frame;
 * a create's venue id is handed over as bytes (onCreateAckBytes), as it lies in a response's bytes
 * (RestOrderEntry parses its answers with JSON.parse: that garbage is the response side's, measured
 * live by bench/tick-to-trade), and cancels go by the order (cancelOrder), as RestOrderEntry's.
 *
 * A model, not exec: the request assembly is the pool's own function, the route's bookkeeping
 * around it is modelled; the syscall and the response side are left out on purpose
 * (bench/tick-to-trade has them).
 * Also the (empty) OrderReads the OMS reconciles with. Owns the sink's counters only; never
 * decides anything for the OMS.
 */

import { COUNT_INVALID, writeAscii, writeInteger } from '../../src/core/index.ts';
import type { BookSide, Count, Price } from '../../src/core/index.ts';
import { AmendBodyWriter, CreateBodyWriter, writeCreateBody, MARGIN_ORDER_VENUE, OneCancelBodyWriter, PREDICTIONS_ORDER_VENUE, marginOrderProblem } from '../../src/exec/index.ts';
import type { ExecListener, NewOrder, OrderEntry, OrderReads, VenueOrderRef, WireFill, WireOrder, WirePosition } from '../../src/oms/index.ts';
import { assembleInto, signedFieldsBytes } from '../../src/net/index.ts';
import type { RequestBody, RequestPrefix } from '../../src/net/index.ts';

const PREFIX = '/trade-api/v2';

/**
 * The exchange whose route the sink models: its order path and create checks, whether cancels
 * take the batched DELETE (Predictions) or the per-order one (Margin), and the pre-send rules its
 * route applies (Margin: marginOrderProblem) or none.
 */
export interface SinkVenue {
  readonly name: string;
  readonly ordersPath: string;
  readonly batched: boolean;
  checkCreate(order: Readonly<NewOrder>): void;
  /** A refusal the route would throw before sending; null to send. */
  problem(order: Readonly<NewOrder>): string | null;
}

export const PREDICTIONS_SINK: SinkVenue = Object.freeze({ name: 'predictions', ordersPath: PREDICTIONS_ORDER_VENUE.ordersPath, batched: true, checkCreate: PREDICTIONS_ORDER_VENUE.checkCreate, problem: () => null });
export const MARGIN_SINK: SinkVenue = Object.freeze({ name: 'margin', ordersPath: MARGIN_ORDER_VENUE.ordersPath, batched: false, checkCreate: MARGIN_ORDER_VENUE.checkCreate, problem: marginOrderProblem });

const SIGNATURES = 64;
const ANSWERS_MAX = 1024;

function head(method: string, path: string, hasBody: boolean): string {
  return `${method} ${path} HTTP/1.1\r\nHost: 127.0.0.1:9000\r\nKALSHI-ACCESS-KEY: bench-key-0000\r\n${hasBody ? 'Content-Type: application/json\r\n' : ''}KALSHI-ACCESS-TIMESTAMP: `;
}

export class SinkOrderEntry implements OrderEntry, OrderReads {
  /** Requests "written", and their bytes; creates among them, and creates the route's rules refused. */
  requests = 0;
  bytes = 0;
  creates = 0;
  refused = 0;
  /** The request path of the last create (tests). */
  lastCreatePath = '';
  readonly venue: SinkVenue;
  readonly #createPath: string;
  /** The create's head as bytes made once, as the pool's RawRequestHead keeps a constant path's. */
  readonly #createHead: Uint8Array;
  /** Batched: the whole request head; per order: the line up to the order id. */
  readonly #cancelHead: string;
  /** Batched: the head as bytes made once (a constant path, as the pool sends it). */
  readonly #cancelHeadBytes: Uint8Array;
  readonly #buffer = Buffer.allocUnsafe(16 * 1024);
  /** The last create's order, for lastCreateBody (tests, read right after the create). */
  #lastCreate: Readonly<NewOrder> | null = null;
  readonly #createBody = new CreateBodyWriter();
  readonly #cancelBody = new OneCancelBodyWriter();
  readonly #amendBody = new AmendBodyWriter();
  readonly #timestamps: string[] = [];
  readonly #signatures: string[] = [];
  /** Each signature's timestamp and signature as head bytes, as the presigner makes them when a signature arrives. */
  readonly #signedBytes: Uint8Array[] = [];
  #next = 0;
  #listener: ExecListener | null = null;
  // Answers waiting for deliverAnswers(): kind 0 create (the order's handle, else key = client order id), 1 cancel (the order's handle, else key = order id).
  readonly #answerKind = new Uint8Array(ANSWERS_MAX);
  readonly #answerHandle = new Float64Array(ANSWERS_MAX);
  readonly #answerKey: string[] = new Array<string>(ANSWERS_MAX).fill('');
  readonly #answerCount = new Float64Array(ANSWERS_MAX);
  #answers = 0;
  #orderIds = 0;
  /**
   * An answer's venue order id is written here: handed over as bytes to a listener that takes them
   * (onCreateAckBytes, as the id lies in a response's bytes), else read out in one piece, a flat
   * string as a parsed response's is (a template literal would leave a rope: garbage a real answer
   * does not make).
   */
  readonly #orderIdScratch = Buffer.alloc(64);

  constructor(venue: SinkVenue = PREDICTIONS_SINK) {
    this.venue = venue;
    this.#createPath = `${PREFIX}${venue.ordersPath}`;
    this.#createHead = new Uint8Array(Buffer.from(head('POST', this.#createPath, true), 'latin1'));
    this.#cancelHead = venue.batched ? head('DELETE', `${this.#createPath}/batched`, true) : `DELETE ${this.#createPath}/`;
    this.#cancelHeadBytes = new Uint8Array(Buffer.from(this.#cancelHead, 'latin1'));
    // RSA-2048 PKCS#1 PSS signatures are 344 base64 characters.
    for (let i = 0; i < SIGNATURES; i++) {
      this.#timestamps.push(String(1_798_761_600_000 + i));
      this.#signatures.push(Buffer.alloc(256, i + 1).toString('base64'));
      this.#signedBytes.push(signedFieldsBytes(this.#timestamps[i]!, this.#signatures[i]!));
    }
  }

  setListener(listener: ExecListener): void {
    this.#listener = listener;
  }

  create(order: Readonly<NewOrder>): void {
    // The route's pre-send rules (MarginOrderEntry.create throws on them): the gate should have denied first.
    if (this.venue.problem(order) !== null) {
      this.refused++;
      throw new Error(`${this.venue.name} sink: the gate let through an order the route refuses (${order.clientOrderId})`);
    }
    this.venue.checkCreate(order);
    const body = this.#createBody;
    body.order = order;
    this.#write(this.#createHead, body);
    body.order = null;
    this.#lastCreate = order;
    this.creates++;
    this.lastCreatePath = this.#createPath;
    // As RestOrderEntry keys a create: by the OMS order's handle, its id string never made.
    const handle = order.handle ?? 0;
    this.#queue(0, handle > 0 ? '' : order.clientOrderId, order.count, handle);
  }

  /** The body of the last create (tests), as the writer wrote it. */
  get lastCreateBody(): string {
    return this.#lastCreate === null ? '' : writeCreateBody(this.#lastCreate);
  }

  cancel(orderId: string, subaccount: number): void {
    if (this.venue.batched) {
      const body = this.#cancelBody;
      body.orderId = orderId;
      body.subaccount = subaccount;
      this.#write(this.#cancelHeadBytes, body);
    } else {
      // DELETE {ordersPath}/{id}?subaccount=N, no body (the Margin exchange has no batched cancel).
      const query = subaccount === 0 ? '' : `?subaccount=${subaccount}`;
      this.#write(`${this.#cancelHead}${orderId}${query} HTTP/1.1\r\nHost: 127.0.0.1:9000\r\nKALSHI-ACCESS-KEY: bench-key-0000\r\nKALSHI-ACCESS-TIMESTAMP: `, null);
    }
    this.#queue(1, orderId, 0, 0);
  }

  /** As RestOrderEntry.cancelOrder: on the batched route the order's id bytes go into the body and the answer is keyed by its handle. */
  cancelOrder(order: Readonly<VenueOrderRef>): void {
    if (!this.venue.batched || order.handle <= 0) return this.cancel(order.orderId, order.subaccount);
    const body = this.#cancelBody;
    body.order = order;
    body.subaccount = order.subaccount;
    this.#write(this.#cancelHeadBytes, body);
    body.order = null;
    this.#queue(1, '', 0, order.handle);
  }

  amend(_orderId: string, ticker: string, side: BookSide, price: Price, count: Count, _subaccount: number): void {
    const body = this.#amendBody;
    body.ticker = ticker;
    body.side = side;
    body.price = price;
    body.count = count;
    this.#write(this.#createHead, body);
  }

  decrease(orderId: string, _reduceBy: Count, _subaccount: number): void {
    this.#write(this.#createHead, `{"order_id":"${orderId}"}`);
  }

  /** The next venue id written into the scratch buffer; its length. */
  #nextOrderId(): number {
    const scratch = this.#orderIdScratch;
    let at = writeAscii(scratch, 0, this.venue.name);
    at = writeAscii(scratch, at, '-sink-');
    return writeInteger(scratch, at, ++this.#orderIds);
  }

  /** Acks every request written since the last call (creates resting in full, cancels done). */
  deliverAnswers(tsMs: number): number {
    const listener = this.#listener;
    const n = this.#answers;
    this.#answers = 0;
    if (listener === null) return 0;
    listener.answersBegin?.();
    for (let i = 0; i < n; i++) {
      const key = this.#answerKey[i];
      const handle = this.#answerHandle[i]!;
      const answerKey = handle > 0 ? handle : key;
      if (this.#answerKind[i] === 0) {
        const idLength = this.#nextOrderId();
        if (listener.onCreateAckBytes !== undefined) listener.onCreateAckBytes(answerKey, this.#orderIdScratch, 0, idLength, 0 as Count, this.#answerCount[i] as Count, tsMs);
        else listener.onCreateAck(answerKey, this.#orderIdScratch.toString('latin1', 0, idLength), 0 as Count, this.#answerCount[i] as Count, tsMs);
      } else {
        listener.onCancelAck(answerKey, COUNT_INVALID, tsMs);
      }
    }
    listener.answersEnd?.(); // as RestOrderEntry ends a response
    return n;
  }

  cancelAll(): Promise<void> {
    return Promise.resolve();
  }

  listOrders(): Promise<WireOrder[]> {
    return Promise.resolve([]);
  }

  listFills(): Promise<WireFill[]> {
    return Promise.resolve([]);
  }

  listPositions(): Promise<WirePosition[]> {
    return Promise.resolve([]);
  }

  #write(prefix: RequestPrefix, body: RequestBody): number {
    const k = this.#next;
    this.#next = k + 1 === SIGNATURES ? 0 : k + 1;
    const bytes = assembleInto(this.#buffer, prefix, this.#timestamps[k]!, this.#signatures[k]!, body, this.#signedBytes[k]!);
    this.bytes += bytes;
    this.requests++;
    return bytes;
  }

  #queue(kind: number, key: string, count: number, handle: number): void {
    if (this.#answers === ANSWERS_MAX) return; // the driver delivers every frame; never reached
    const i = this.#answers++;
    this.#answerKind[i] = kind;
    this.#answerHandle[i] = handle;
    this.#answerKey[i] = key;
    this.#answerCount[i] = count;
  }
}
