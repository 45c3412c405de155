/**
 * An OrderEntry for the in-process hot-path benches: create/cancel/amend/decrease do the work
 * RestOrderEntry (or MarginOrderEntry, with MARGIN_SINK) does inside the call up to the socket -
 * the route's pre-send rules, the body from exec's own encoder of that exchange, a ready signature from a ring (the presigner's take is a ring read),
 * assemble request line, headers and body into a reused byte buffer with the pool's own
 * assembleInto (src/net/request-bytes.ts, what RawHttpPool.send does on an idle connection) -
 * then count the bytes instead of writing them to a socket. Answers are queued and delivered only
 * when the driver calls deliverAnswers() between frames, so they never run inside a timed frame.
 *
 * A model, not exec: the request assembly is the pool's own function, the route's bookkeeping
 * around it is modelled; the syscall and the response side are left out on purpose
 * (bench/tick-to-trade has them).
 * Also the (empty) OrderReads the OMS reconciles with. Owns the sink's counters only; never
 * decides anything for the OMS.
 */

import { COUNT_INVALID } from '../../src/core/index.ts';
import type { BookSide, Count, Price } from '../../src/core/index.ts';
import { MARGIN_ORDER_VENUE, PREDICTIONS_ORDER_VENUE, marginOrderProblem } from '../../src/exec/index.ts';
import type { ExecListener, NewOrder, OrderEntry, OrderReads, WireFill, WireOrder, WirePosition } from '../../src/oms/index.ts';
import { assembleInto } from '../../src/net/request-bytes.ts';

const PREFIX = '/trade-api/v2';

/**
 * The exchange whose route the sink models: its order path and create encoder, whether cancels
 * take the batched DELETE (Predictions) or the per-order one (Margin), and the pre-send rules its
 * route applies (Margin: marginOrderProblem) or none.
 */
export interface SinkVenue {
  readonly name: string;
  readonly ordersPath: string;
  readonly batched: boolean;
  encodeCreate(order: Readonly<NewOrder>): string;
  /** A refusal the route would throw before sending; null to send. */
  problem(order: Readonly<NewOrder>): string | null;
}

export const PREDICTIONS_SINK: SinkVenue = Object.freeze({ name: 'predictions', ordersPath: PREDICTIONS_ORDER_VENUE.ordersPath, batched: true, encodeCreate: PREDICTIONS_ORDER_VENUE.encodeCreate, problem: () => null });
export const MARGIN_SINK: SinkVenue = Object.freeze({ name: 'margin', ordersPath: MARGIN_ORDER_VENUE.ordersPath, batched: false, encodeCreate: MARGIN_ORDER_VENUE.encodeCreate, problem: marginOrderProblem });

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
  /** The request path and body of the last create (tests). */
  lastCreatePath = '';
  lastCreateBody = '';
  readonly venue: SinkVenue;
  readonly #createPath: string;
  readonly #createHead: string;
  /** Batched: the whole request head; per order: the line up to the order id. */
  readonly #cancelHead: string;
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

  constructor(venue: SinkVenue = PREDICTIONS_SINK) {
    this.venue = venue;
    this.#createPath = `${PREFIX}${venue.ordersPath}`;
    this.#createHead = head('POST', this.#createPath, true);
    this.#cancelHead = venue.batched ? head('DELETE', `${this.#createPath}/batched`, true) : `DELETE ${this.#createPath}/`;
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
    // The route's pre-send rules (MarginOrderEntry.create throws on them): the gate should have denied first.
    if (this.venue.problem(order) !== null) {
      this.refused++;
      throw new Error(`${this.venue.name} sink: the gate let through an order the route refuses (${order.clientOrderId})`);
    }
    const body = this.venue.encodeCreate(order);
    this.#write(this.#createHead, body);
    this.creates++;
    this.lastCreatePath = this.#createPath;
    this.lastCreateBody = body;
    this.#queue(0, order.clientOrderId, order.count);
  }

  cancel(orderId: string, subaccount: number): void {
    if (this.venue.batched) {
      this.#write(this.#cancelHead, `{"orders":[{"order_id":"${orderId}","subaccount":${subaccount}}]}`);
    } else {
      // DELETE {ordersPath}/{id}?subaccount=N, no body (the Margin exchange has no batched cancel).
      const query = subaccount === 0 ? '' : `?subaccount=${subaccount}`;
      this.#write(`${this.#cancelHead}${orderId}${query} HTTP/1.1\r\nHost: 127.0.0.1:9000\r\nKALSHI-ACCESS-KEY: bench-key-0000\r\nKALSHI-ACCESS-TIMESTAMP: `, '');
    }
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
      if (this.#answerKind[i] === 0) listener.onCreateAck(key, `${this.venue.name}-sink-${++this.#orderIds}`, 0 as Count, this.#answerCount[i] as Count, tsMs);
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
    this.bytes += assembleInto(this.#buffer, prefix, this.#timestamps[k]!, this.#signatures[k]!, body);
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
