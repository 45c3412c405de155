/**
 * The Margin route's counterpart of bench/hot-path/sink-order-entry.ts (SinkOrderEntry): an
 * OrderEntry that does, inside the call, the work MarginOrderEntry does up to the socket - the
 * pre-send Margin rules (marginOrderProblem), the Margin create body with exec's own encoder
 * (MARGIN_ORDER_VENUE.encodeCreate: CreateMarginOrderRequest), a ready signature taken from a ring,
 * the request assembled the way RawHttpPool.send does (POST /trade-api/v2/margin/orders), copied
 * into a reused byte buffer - then counts the bytes instead of writing them. Cancels are the Margin
 * exchange's per-order DELETE /margin/orders/{id}?subaccount=N (no batched cancel). Answers are
 * queued and delivered only when the driver calls deliverAnswers() between frames.
 *
 * Why not SinkOrderEntry itself: its create path and encoder are fixed to Predictions
 * (encodeCreateOrder, /portfolio/events/orders) and its request writer and answer queue are
 * private, so it cannot be pointed at another venue without editing bench/hot-path. The structure
 * here is the same on purpose, so the two lanes pay the same sink work apart from the venue's.
 * A model, not exec (see SinkOrderEntry's caveats). Also the OrderReads the OMS reconciles Margin
 * orders with (empty). Keeps the last create body for tests.
 */

import { COUNT_INVALID } from '../../src/core/index.ts';
import type { BookSide, Count, Price } from '../../src/core/index.ts';
import { MARGIN_ORDER_VENUE, marginOrderProblem } from '../../src/exec/index.ts';
import type { ExecListener, NewOrder, OrderEntry, OrderReads, WireFill, WireOrder, WirePosition } from '../../src/oms/index.ts';

const PREFIX = '/trade-api/v2';
const SIGNATURE_FIELD = '\r\nKALSHI-ACCESS-SIGNATURE: ';
const LENGTH_FIELD = '\r\nContent-Length: ';
const HEAD_END = '\r\n\r\n';
const SIGNATURES = 64;
const ANSWERS_MAX = 1024;

function head(method: string, path: string, hasBody: boolean): string {
  return `${method} ${path} HTTP/1.1\r\nHost: 127.0.0.1:9000\r\nKALSHI-ACCESS-KEY: bench-key-0000\r\n${hasBody ? 'Content-Type: application/json\r\n' : ''}KALSHI-ACCESS-TIMESTAMP: `;
}

export class MarginSinkOrderEntry implements OrderEntry, OrderReads {
  /** Requests "written", and their bytes; creates among them, and creates refused before sending. */
  requests = 0;
  bytes = 0;
  creates = 0;
  refused = 0;
  /** The request path and body of the last create (tests). */
  lastCreatePath = '';
  lastCreateBody = '';
  readonly #createPath = `${PREFIX}${MARGIN_ORDER_VENUE.ordersPath}`;
  readonly #createHead = head('POST', this.#createPath, true);
  readonly #cancelHead = `DELETE ${PREFIX}${MARGIN_ORDER_VENUE.ordersPath}/`;
  readonly #buffer = Buffer.allocUnsafe(16 * 1024);
  readonly #timestamps: string[] = [];
  readonly #signatures: string[] = [];
  #next = 0;
  #listener: ExecListener | null = null;
  // Answers waiting for deliverAnswers(): kind 0 create (key = client order id), 1 cancel (key = order id).
  readonly #answerKind = new Uint8Array(ANSWERS_MAX);
  readonly #answerKey: string[] = new Array<string>(ANSWERS_MAX).fill('');
  readonly #answerCount = new Float64Array(ANSWERS_MAX);
  #answers = 0;
  #orderIds = 0;

  constructor() {
    // RSA-2048 PKCS#1 PSS signatures are 344 base64 characters.
    for (let i = 0; i < SIGNATURES; i++) {
      this.#timestamps.push(String(1_798_761_600_000 + i));
      this.#signatures.push(Buffer.alloc(256, i + 1).toString('base64'));
    }
  }

  setListener(listener: ExecListener): void {
    this.#listener = listener;
  }

  create(order: Readonly<NewOrder>): void {
    // MarginOrderEntry.create's pre-send rules (whole contracts, positive price, subaccount 0..63).
    if (marginOrderProblem(order) !== null) {
      this.refused++;
      throw new Error(`margin sink: the gate let through an order the Margin route refuses (${order.clientOrderId})`);
    }
    const body = MARGIN_ORDER_VENUE.encodeCreate(order);
    this.#write(this.#createHead, body);
    this.creates++;
    this.lastCreatePath = this.#createPath;
    this.lastCreateBody = body;
    this.#queue(0, order.clientOrderId, order.count);
  }

  cancel(orderId: string, subaccount: number): void {
    // DELETE /margin/orders/{id}?subaccount=N, no body (the signature covers the path without the query).
    const query = subaccount === 0 ? '' : `?subaccount=${subaccount}`;
    this.#write(`${this.#cancelHead}${orderId}${query} HTTP/1.1\r\nHost: 127.0.0.1:9000\r\nKALSHI-ACCESS-KEY: bench-key-0000\r\nKALSHI-ACCESS-TIMESTAMP: `, '');
    this.#queue(1, orderId, 0);
  }

  amend(orderId: string, _ticker: string, _side: BookSide, _price: Price, _count: Count, _subaccount: number): void {
    this.#write(this.#createHead, `{"order_id":"${orderId}"}`);
  }

  decrease(orderId: string, _reduceBy: Count, _subaccount: number): void {
    this.#write(this.#createHead, `{"order_id":"${orderId}"}`);
  }

  /** Acks every request written since the last call (creates resting in full, cancels done). */
  deliverAnswers(tsMs: number): number {
    const listener = this.#listener;
    const n = this.#answers;
    this.#answers = 0;
    if (listener === null) return 0;
    for (let i = 0; i < n; i++) {
      const key = this.#answerKey[i];
      if (this.#answerKind[i] === 0) listener.onCreateAck(key, `margin-sink-${++this.#orderIds}`, 0 as Count, this.#answerCount[i] as Count, tsMs);
      else listener.onCancelAck(key, COUNT_INVALID, tsMs);
    }
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

  #write(prefix: string, body: string): void {
    const k = this.#next;
    this.#next = k + 1 === SIGNATURES ? 0 : k + 1;
    const request = prefix + this.#timestamps[k] + SIGNATURE_FIELD + this.#signatures[k] + LENGTH_FIELD + Buffer.byteLength(body) + HEAD_END + body;
    this.bytes += this.#buffer.write(request, 0, 'utf8');
    this.requests++;
  }

  #queue(kind: number, key: string, count: number): void {
    if (this.#answers === ANSWERS_MAX) return; // the driver delivers every frame; never reached
    const i = this.#answers++;
    this.#answerKind[i] = kind;
    this.#answerKey[i] = key;
    this.#answerCount[i] = count;
  }
}
