/**
 * Order entry on the Margin exchange (perpetuals; margin-api.openapi.yaml, spec/interface-spec.md
 * "Margin exchange"): the same OrderEntry port as the Predictions routes (src/oms/order-route.ts),
 * so the OMS and the router drive it unchanged, plus the OrderReads the OMS reconciles with.
 *
 *   create     POST   /margin/orders                      CreateMarginOrderRequest -> 201
 *   cancel     DELETE /margin/orders/{id}?subaccount=N    -> reduced_by
 *   amend      POST   /margin/orders/{id}/amend           -> remaining_count after immediate fills (null: unchanged)
 *   decrease   POST   /margin/orders/{id}/decrease        reduce_by -> remaining_count
 *   cancelAll  DELETE /margin/orders[?subaccount=N]       -> 204
 *   reads      GET    /margin/orders, /margin/fills, /margin/positions
 *
 * Transport: not a second HTTP client. The hot-path calls go through a RestOrderEntry built with
 * the Margin venue (RestOrderVenue: order path /margin/orders, no batched endpoints, the Margin
 * encoders and ack decoders), so they share its raw HTTP/1.1 pool (src/net), request slots,
 * presigned signatures (the constant create path, and the per-order cancel/amend/decrease paths
 * signed after a resting ack) and its outcome rules (2xx ack, 4xx reject, 5xx/timeout/disconnect
 * unknown, "not sent" status-0 rejects). Cancels take the per-order DELETE (the Margin exchange
 * has no batched cancel). The reads use a SignedRestClient (signedClientFor) on a pool of their
 * own, signed in the route's presign worker when it runs.
 *
 * The Margin rules this route enforces before anything is sent (margin-order-body.ts): whole
 * contracts only, prices as positive safe integers of 1/10,000 dollar (not capped at $1), a
 * subaccount in 0..63. A call breaking one throws ExecError EXEC_REJECTED with status 0 and the
 * rule in `reject.code` (MarginRefusal), synchronously, with nothing sent and no listener call: it
 * is a caller past the risk gate, which should have refused it with a deny code first (the gate's
 * Margin checks are in docs/margin.md). The tick size, reduce-only's
 * time-in-force rule and margin sufficiency are the venue's answers (400 invalid_price,
 * invalid_order, insufficient_balance), reported as rejects.
 *
 * Never: decides prices, keeps order state (the OMS does), retries a non-idempotent request.
 */

import { CENTICENTS_INVALID, assert, parseDollars, type BookSide, type Centicents, type Count, type Price } from '../../core/index.ts';
import {
  ExecError,
  type ExecListener,
  type FillsQuery,
  type NewOrder,
  type OrderEntry,
  type OrderReads,
  type OrdersQuery,
  type PositionsQuery,
} from '../../oms/index.ts';
import {
  REST_ORDER_ENTRY_DEFAULTS,
  RestOrderEntry,
  RestOrderEntryConfigError,
  type RestOrderEntryOptions,
  type RestOrderEntryStats,
  type RestOrderVenue,
} from '../rest/rest-order-entry.ts';
import type { OrderPathSignaturesStats } from '../rest/order-path-signatures.ts';
import { signedClientFor, type SignedRestClient } from '../rest/signed-rest-client.ts';
import { ExitTriggerClient } from './exit-trigger-client.ts';
import { readCancelAck } from '../rest/wire-parse.ts';
import {
  MarginRefusal,
  checkMarginAmend,
  checkMarginCreate,
  encodeMarginDecrease,
  marginAmendProblem,
  marginCountProblem,
  marginOrderProblem,
} from './margin-order-body.ts';
import {
  parseMarginFill,
  parseMarginOrder,
  parseMarginPosition,
  readMarginAmendAck,
  readMarginCreateAck,
  readMarginDecreaseAck,
  type MarginWireFill,
  type MarginWireOrder,
  type MarginWirePosition,
} from './margin-wire.ts';

/** The Margin exchange's order paths and wire for RestOrderEntry (relative to the API prefix /trade-api/v2). */
export const MARGIN_ORDER_VENUE: Readonly<RestOrderVenue> = Object.freeze({
  ordersPath: '/margin/orders',
  batched: false,
  checkCreate: checkMarginCreate,
  checkAmend: checkMarginAmend,
  encodeDecrease: encodeMarginDecrease,
  readCreateAck: readMarginCreateAck,
  readCancelAck, // CancelMarginOrderResponse: order_id, reduced_by (the Predictions shape)
  readAmendAck: readMarginAmendAck,
  readDecreaseAck: readMarginDecreaseAck,
});

export interface MarginReadSettings {
  connections: number; // sockets of the reads pool
  headersTimeoutMs: number;
  bodyTimeoutMs: number;
  pageLimit: number; // `limit` of paged reads (orders: <= 10,000 on the sim; fills: <= 1,000)
  pagesMax: number; // bound on cursor paging per list call
}

/** The REST route's options without cancelRoute (always 'single': no batched cancel on Margin), plus the reads'. */
export interface MarginOrderEntryOptions extends Omit<RestOrderEntryOptions, 'cancelRoute'> {
  reads: MarginReadSettings;
}

/** Defaults, each with its unit; the transport's are the REST route's, the keep-warm GET a Margin one. */
export const MARGIN_ORDER_ENTRY_DEFAULTS: Readonly<Omit<MarginOrderEntryOptions, 'baseUrl' | 'keyId' | 'privateKey' | 'clock'>> = Object.freeze({
  ...(({ cancelRoute: _unused, ...rest }) => rest)(REST_ORDER_ENTRY_DEFAULTS),
  warmPath: '/margin/enabled', // signed, cheap, no side effect; /portfolio/balance is the other exchange's
  reads: Object.freeze({ connections: 1, headersTimeoutMs: 5_000, bodyTimeoutMs: 5_000, pageLimit: 1_000, pagesMax: 1_000 }),
});

/** Messages of the pre-send refusals (constant: the throw path allocates only the error). */
const REFUSAL_MESSAGES: Readonly<Record<MarginRefusal, string>> = Object.freeze({
  margin_count_not_whole: 'not sent: margin orders take whole contracts (count a multiple of 100 count units)',
  margin_count_not_positive: 'not sent: margin count must be a positive safe integer',
  margin_price_invalid: 'not sent: margin price must be a positive safe integer of 1/10,000 dollar',
  margin_subaccount_invalid: 'not sent: subaccount must be in 0..63',
});

function refuse(refusal: MarginRefusal, details: string): never {
  const message = REFUSAL_MESSAGES[refusal];
  throw new ExecError('EXEC_REJECTED', message, 0, { status: 0, code: refusal, message, details });
}

export class MarginOrderEntry implements OrderEntry, OrderReads {
  readonly #rest: RestOrderEntry;
  readonly #reads: SignedRestClient;
  readonly #prefix: string;
  readonly #options: MarginOrderEntryOptions;

  constructor(options: MarginOrderEntryOptions) {
    const problems: string[] = [];
    const reads = options.reads;
    for (const [name, value] of [['connections', reads.connections], ['headersTimeoutMs', reads.headersTimeoutMs], ['bodyTimeoutMs', reads.bodyTimeoutMs], ['pageLimit', reads.pageLimit], ['pagesMax', reads.pagesMax]] as const) {
      if (!(Number.isInteger(value) && value > 0)) problems.push(`reads.${name} must be a positive integer`);
    }
    if (problems.length > 0) throw new RestOrderEntryConfigError(`MarginOrderEntry options: ${problems.join('; ')}`);
    this.#options = options;
    const { reads: _reads, ...transport } = options;
    this.#rest = new RestOrderEntry({ ...transport, cancelRoute: 'single' }, MARGIN_ORDER_VENUE);
    const { client, prefix } = signedClientFor({
      ...transport,
      connections: reads.connections,
      headersTimeoutMs: reads.headersTimeoutMs,
      bodyTimeoutMs: reads.bodyTimeoutMs,
      presigner: () => this.#rest.presigner,
    });
    this.#reads = client;
    this.#prefix = prefix;
  }

  /** The transport's counters (requests, presigned, acks, rejects, unknowns, ...). */
  get stats(): Readonly<RestOrderEntryStats> {
    return this.#rest.stats;
  }

  /** The per-order signatures' counters (RestOrderEntry.orderPathStats); null when they are off. */
  get orderPathStats(): Readonly<OrderPathSignaturesStats> | null {
    return this.#rest.orderPathStats;
  }

  setListener(listener: ExecListener): void {
    this.#rest.setListener(listener);
  }

  /** Starts the presigner, opens and warms the hot-path sockets and the reads pool; rejects with ExecError or PresignerError. */
  async connect(): Promise<void> {
    await this.#rest.connect();
    await this.#reads.warm(`${this.#prefix}${this.#options.warmPath}`, this.#options.reads.connections);
  }

  async close(): Promise<void> {
    await Promise.all([this.#rest.close(), this.#reads.close()]);
  }

  // ---- hot path (OrderEntry) ----

  /** Refuses (throws ExecError, nothing sent) an order breaking a Margin rule; else as RestOrderEntry.create. */
  create(order: Readonly<NewOrder>): void {
    const refusal = marginOrderProblem(order);
    if (refusal !== null) refuse(refusal, order.clientOrderId);
    this.#rest.create(order);
  }

  /**
   * The keep-warm's rehearsal of create() (RestOrderEntry.rehearseCreate on the Margin venue: the
   * create path's next presigned signature peeked, the request assembled into the next
   * connection's buffer, nothing sent). -1 when an order breaks a Margin rule (nothing assembled) or nothing could be assembled.
   */
  rehearseCreate(order: Readonly<NewOrder>): number {
    return marginOrderProblem(order) === null ? this.#rest.rehearseCreate(order) : -1;
  }

  /** The keep-warm's rehearsal of amend() on this route's order tracked last (RestOrderEntry.rehearseAmend); -1 as rehearseCreate. */
  rehearseAmend(ticker: string, side: BookSide, price: Price, count: Count, subaccount: number): number {
    return marginAmendProblem(price, count, subaccount) === null ? this.#rest.rehearseAmend(ticker, side, price, count, subaccount) : -1;
  }

  cancel(orderId: string, subaccount: number): void {
    this.#rest.cancel(orderId, subaccount);
  }

  /** `count` is the new total (filled + resting), whole contracts; the ack's remainingCount is after immediate fills. */
  amend(orderId: string, ticker: string, side: BookSide, price: Price, count: Count, subaccount: number): void {
    const refusal = marginAmendProblem(price, count, subaccount);
    if (refusal !== null) refuse(refusal, orderId);
    this.#rest.amend(orderId, ticker, side, price, count, subaccount);
  }

  decrease(orderId: string, reduceBy: Count, subaccount: number): void {
    const refusal = marginCountProblem(reduceBy);
    if (refusal !== null) refuse(refusal, orderId);
    this.#rest.decrease(orderId, reduceBy, subaccount);
  }

  /** Kill switch: DELETE /margin/orders (every subaccount when null). Resolves on 2xx; rejects with ExecError. */
  cancelAll(subaccount: number | null): Promise<void> {
    return this.#rest.cancelAll(subaccount);
  }

  // ---- reads (OrderReads), off the hot path ----

  async listOrders(query: OrdersQuery): Promise<MarginWireOrder[]> {
    const params = new URLSearchParams();
    if (query.ticker !== undefined) params.set('ticker', query.ticker);
    if (query.status !== undefined) params.set('status', query.status);
    if (query.subaccount !== undefined) params.set('subaccount', String(checkSubaccount(query.subaccount)));
    if (query.minTs !== undefined) params.set('min_ts', String(query.minTs));
    const items = await this.#pages('/margin/orders', params, 'orders');
    return items.map((item) => parseMarginOrder(item, query.subaccount ?? 0, query.status ?? null));
  }

  /** GET /margin/fills takes no ticker or order filter: those are applied here, after paging. */
  async listFills(query: FillsQuery): Promise<MarginWireFill[]> {
    const params = new URLSearchParams();
    if (query.subaccount !== undefined) params.set('subaccount', String(checkSubaccount(query.subaccount)));
    if (query.minTs !== undefined) params.set('min_ts', String(query.minTs));
    const items = await this.#pages('/margin/fills', params, 'fills');
    const fills = items.map((item) => parseMarginFill(item, query.subaccount ?? 0));
    return fills.filter((fill) => (query.ticker === undefined || fill.ticker === query.ticker) && (query.orderId === undefined || fill.orderId === query.orderId));
  }

  /** GET /margin/positions: one page (the endpoint has no cursor); zero positions are not listed by the venue. */
  async listPositions(query: PositionsQuery): Promise<MarginWirePosition[]> {
    const params = new URLSearchParams();
    if (query.ticker !== undefined) params.set('ticker', query.ticker);
    if (query.subaccount !== undefined) params.set('subaccount', String(checkSubaccount(query.subaccount)));
    const text = params.toString();
    const path = `${this.#prefix}/margin/positions${text === '' ? '' : `?${text}`}`;
    const body = await this.#reads.call('GET', path, null);
    const list = body?.['positions'];
    if (list === undefined || list === null) return [];
    if (!Array.isArray(list)) throw new ExecError('EXEC_BAD_RESPONSE', 'bad response: positions must be an array');
    return list.map((item: unknown) => {
      if (typeof item !== 'object' || item === null || Array.isArray(item)) throw new ExecError('EXEC_BAD_RESPONSE', 'bad response: positions items must be objects');
      return parseMarginPosition(item as Record<string, unknown>, query.subaccount ?? 0);
    });
  }

  /** The exit-trigger client on this route's signed reads pool (one pool, one presigner). */
  exitTriggers(): ExitTriggerClient {
    return new ExitTriggerClient(this.#reads, this.#prefix);
  }

  /**
   * GET /margin/balance?compute_available_balance=true: per subaccount, the balance an order may
   * still margin (available) and the equity, centicents. For the gate's margin checks (off the path).
   */
  async balances(): Promise<MarginBalance[]> {
    const body = await this.#reads.call('GET', `${this.#prefix}/margin/balance?compute_available_balance=true`, null);
    const list = body?.['subaccount_balances'];
    if (!Array.isArray(list)) throw new ExecError('EXEC_BAD_RESPONSE', 'bad response: subaccount_balances must be an array');
    return list.map((item: unknown) => {
      const row = (typeof item === 'object' && item !== null ? item : {}) as Record<string, unknown>;
      const subaccount = row.subaccount;
      if (typeof subaccount !== 'number' || !Number.isInteger(subaccount)) throw new ExecError('EXEC_BAD_RESPONSE', 'bad response: subaccount_balances[].subaccount');
      return { subaccount, availableCenticents: dollarsField(row, 'available_balance'), equityCenticents: dollarsField(row, 'account_equity') };
    });
  }

  /** GET /margin/notional_risk_limit: the default limit and the per-ticker ones that override it, centicents. */
  async notionalRiskLimits(): Promise<{ defaultCenticents: Centicents; byTicker: Map<string, Centicents> }> {
    const body = await this.#reads.call('GET', `${this.#prefix}/margin/notional_risk_limit`, null);
    const row = body ?? {};
    const byTicker = new Map<string, Centicents>();
    const map = row['notional_value_risk_limits_by_market_ticker'];
    if (typeof map === 'object' && map !== null && !Array.isArray(map)) {
      for (const [ticker, value] of Object.entries(map as Record<string, unknown>)) byTicker.set(ticker, dollarsField({ value }, 'value'));
    }
    return { defaultCenticents: dollarsField(row, 'default_notional_value_risk_limit'), byTicker };
  }

  #pages(relativePath: string, params: URLSearchParams, listName: string): Promise<Record<string, unknown>[]> {
    return this.#reads.pages(`${this.#prefix}${relativePath}`, params, listName, this.#options.reads.pageLimit, this.#options.reads.pagesMax);
  }
}

/** One subaccount's margin balance (GET /margin/balance). */
export interface MarginBalance {
  subaccount: number;
  availableCenticents: Centicents;
  equityCenticents: Centicents;
}

function dollarsField(row: Record<string, unknown>, name: string): Centicents {
  const value = row[name];
  const parsed = typeof value === 'string' ? parseDollars(value) : CENTICENTS_INVALID;
  if (parsed === CENTICENTS_INVALID) throw new ExecError('EXEC_BAD_RESPONSE', `bad response: ${name} must be a dollar string`);
  return parsed;
}

function checkSubaccount(subaccount: number): number {
  assert(Number.isInteger(subaccount) && subaccount >= 0 && subaccount <= 63, 'MarginOrderEntry: subaccount must be in 0..63');
  return subaccount;
}
