/**
 * The REST quote route (rest.md, OpenAPI /communications/*): creates, withdraws and confirms our
 * quotes on RFQs and lists them for reconciliation. The create is on the RFQ hot path (RFQ
 * received -> quote bytes on the socket): its path is constant, so, like an order create
 * (rest-order-entry.ts), it carries a signature the presigner's worker made ahead (the exchange
 * signs timestamp + method + path, never the body), taken synchronously from a ring, and the
 * request is written on a raw HTTP/1.1 connection (src/net RawHttpPool, `createConnections` kept
 * open) before create() returns: no await, no promise, no handler allocated per quote
 * (preallocated slots). Cancel, confirm and list are off that path and stay on a signed undici pool
 * (SignedRestClient), signed in the presigner's worker when one runs. Answers go to the quote book
 * (QuoteListener). Owns the paths, the bodies and the parsing of answers; keeps no quote state.
 *
 *   create  POST   /communications/quotes {rfq_id, yes_bid, no_bid, rest_remainder, post_only, subaccount} -> 201 {id}
 *   cancel  DELETE /communications/rfqs/{rfq_id}/quotes/{quote_id}                                          -> 204
 *   confirm PUT    /communications/rfqs/{rfq_id}/quotes/{quote_id}/confirm {}                               -> 204
 *   list    GET    /communications/quotes?user_filter=self (paged by cursor)
 *
 * Create's answers, as they were on undici: 2xx with a non-empty string `id` -> ack; any other 2xx
 * (no body, not JSON, no id) -> unknown EXEC_BAD_RESPONSE; 4xx -> reject with the venue's code (the
 * body's, else EXEC_REJECTED / EXEC_RATE_LIMITED for 429) and the status; 5xx -> unknown
 * EXEC_HTTP_5XX; 1xx/3xx -> unknown EXEC_BAD_RESPONSE; timeout, disconnect, queue full or closed ->
 * unknown with the transport's code (reconciled; never a reject). Always reported after create()
 * returned.
 *
 * Signing of the create: the ring of the presigner endpoint RestQuoteRoute.presignEndpoint (the
 * REST route registers it with presign.extraEndpoints); when the presigner has no such ring, none
 * is ready, or signing is inline, it is signed on this thread (~1 ms of RSA, counted in
 * stats.inlineSigned / stats.presignFallbacks).
 */

import { performance } from 'node:perf_hooks';
import { formatPrice, parsePrice, PRICE_INVALID, signRequest, type Price } from '../../core/index.ts';
import { ExecError } from '../../oms/index.ts';
import type { ExecErrorCode, QuoteEntry, QuoteListener, QuoteRequest, WireQuote } from '../../oms/index.ts';
import { NetError, RawHttpPool, SendResult, type RawRequestHead } from '../../net/index.ts';
import { jsonString } from './order-body.ts';
import type { PresignEndpoint, PresignedSignature, Presigner } from './presigner.ts';
import { RequestSlot, type SlotOwner } from './request-slot.ts';
import { signedClientFor, type SignedRestClient, type VenueClientOptions } from './signed-rest-client.ts';
import { netFailureCode, statusErrorCode } from './transport-error.ts';
import { parseErrorBody, parseJsonObject } from './wire-parse.ts';
import { warmIdleRawSockets } from './raw-keep-warm.ts';

const STATUSES = ['open', 'accepted', 'confirmed', 'executed', 'cancelled'] as const;

export interface RestQuoteRouteOptions extends VenueClientOptions {
  /** The venue keeps a remainder of an executed quote resting for us when true. */
  restRemainder: boolean;
  readPageLimit: number;
  readPagesMax: number;
  /** Raw sockets kept open for creates, each carrying one request at a time (undici's `connections` serve the rest). */
  createConnections: number;
  /** Creates waiting for a free raw socket before refusal (unknown EXEC_RATE_LIMITED). */
  createQueueMax: number;
  /** Create slots preallocated (creates in flight before the free list grows). */
  createSlots: number;
  /** Housekeeping tick, ms: raw timeouts fire within headersTimeoutMs + tickMs. */
  tickMs: number;
  /** Every keepWarmIntervalMs (0 = off), a signed GET /communications/id on each raw socket idle for half of it, so none sits idle until the server closes it. */
  keepWarmIntervalMs: number;
  /** Raw: first retry delay after a failed reconnect, doubling up to reconnectMaxMs. */
  reconnectMinMs: number;
  reconnectMaxMs: number;
}

export const REST_QUOTE_ROUTE_DEFAULTS: Readonly<Omit<RestQuoteRouteOptions, 'baseUrl' | 'keyId' | 'privateKey' | 'clock' | 'presigner'>> = Object.freeze({
  connections: 1,
  connectTimeoutMs: 2_000,
  headersTimeoutMs: 5_000,
  bodyTimeoutMs: 5_000,
  keepAliveTimeoutMs: 60_000,
  restRemainder: false,
  readPageLimit: 500, // the venue's maximum for this list
  readPagesMax: 100,
  tls: null,
  createConnections: 2, // ~10 RFQs/s, ~1 ms a round trip: a second socket covers a burst
  createQueueMax: 64,
  createSlots: 16,
  tickMs: 50, // as RestOrderEntry's: timeouts up to 50 ms late against 5 s limits
  keepWarmIntervalMs: 2_000, // under the 4-5 s idle limit of common servers, as RestOrderEntry's
  reconnectMinMs: 50,
  reconnectMaxMs: 2_000,
});

/** The constant path of the create, relative to the API prefix. */
const CREATE_PATH = '/communications/quotes';
/** The signed GET that opens and keeps the raw sockets warm (our communications id: cheap, read-only). */
const WARM_PATH = '/communications/id';

export interface RestQuoteRouteStats {
  creates: number; // create() calls
  presigned: number; // of which carried a presigned signature
  inlineSigned: number; // of which were signed on this thread
  presignFallbacks: number; // inline although the presigner runs (no ring for the path, or it was empty)
  queued: number; // found every raw socket busy (written when one freed)
  slotsGrown: number; // slots allocated beyond createSlots
  acks: number;
  rejects: number;
  unknowns: number;
  warmRequests: number;
}

/** A create in flight: the quote's handle on a preallocated request slot. */
class QuoteSlot extends RequestSlot {
  handle = -1;
}

const NO_LISTENER: QuoteListener = {
  onQuoteCreateAck() {}, onQuoteCreateReject() {}, onQuoteCreateUnknown() {}, onQuoteCancelAck() {},
  onQuoteCancelReject() {}, onQuoteConfirmAck() {}, onQuoteConfirmReject() {},
};

/** The body of POST /communications/quotes (prices as 4-decimal dollar strings). */
export function encodeCreateQuote(quote: QuoteRequest, restRemainder: boolean): string {
  return `{"rfq_id":${jsonString(quote.rfqId)},"yes_bid":"${formatPrice(quote.yesBid)}","no_bid":"${formatPrice(quote.noBid)}","rest_remainder":${restRemainder},"post_only":${quote.postOnly},"subaccount":${quote.subaccount}}`;
}

export class RestQuoteRoute implements QuoteEntry {
  /** The presigned endpoint of the create (path relative to the API prefix): the REST route's presign.extraEndpoints takes it. */
  static readonly presignEndpoint: Readonly<PresignEndpoint> = Object.freeze({ method: 'POST', path: CREATE_PATH, capacity: 8 });

  readonly stats: RestQuoteRouteStats = {
    creates: 0, presigned: 0, inlineSigned: 0, presignFallbacks: 0, queued: 0, slotsGrown: 0, acks: 0, rejects: 0, unknowns: 0, warmRequests: 0,
  };
  readonly #options: RestQuoteRouteOptions;
  readonly #prefix: string;
  readonly #createPath: string;
  readonly #client: SignedRestClient;
  readonly #raw: RawHttpPool;
  readonly #rawCreate: RawRequestHead;
  readonly #rawWarm: RawRequestHead;
  readonly #free: QuoteSlot[] = [];
  readonly #slotOwner: SlotOwner;
  readonly #signed: PresignedSignature = { timestampText: '', signature: '', signedBytes: null }; // scratch: the signature of the create being sent
  readonly #tickBound: () => void;
  #listener: QuoteListener = NO_LISTENER;
  #presigner: Presigner | null = null;
  #endpoint = -1; // the presigner's ring for the create, -1: none
  #inflight = 0;
  #sending = false; // inside create(): a failure reported now is deferred past the return
  #tickTimer: NodeJS.Timeout | null = null;
  #warmTimer: NodeJS.Timeout | null = null;
  #warming = false;
  #rawOpened = false;
  #closed = false;

  constructor(options: RestQuoteRouteOptions) {
    this.#options = options;
    const { client, prefix } = signedClientFor(options);
    this.#client = client;
    this.#prefix = prefix;
    this.#createPath = `${prefix}${CREATE_PATH}`;
    this.#raw = new RawHttpPool({
      origin: new URL(options.baseUrl).origin,
      keyId: options.keyId,
      connections: options.createConnections,
      queueMax: options.createQueueMax,
      connectTimeoutMs: options.connectTimeoutMs,
      headersTimeoutMs: options.headersTimeoutMs,
      bodyTimeoutMs: options.bodyTimeoutMs,
      idleLifetimeMs: options.keepAliveTimeoutMs,
      keepAliveMarginMs: 1_000, // as SignedRestClient's keepAliveTimeoutThreshold
      reconnectMinMs: options.reconnectMinMs,
      reconnectMaxMs: options.reconnectMaxMs,
      tickMs: options.tickMs,
      tls: options.tls !== null ? { ...options.tls } : null,
    });
    this.#rawCreate = this.#raw.head('POST', this.#createPath, true);
    this.#rawWarm = this.#raw.head('GET', `${prefix}${WARM_PATH}`, false);
    this.#slotOwner = {
      finish: (slot) => this.#onFinish(slot as QuoteSlot),
      failCode: (slot, code) => this.#onFail(slot as QuoteSlot, code),
    };
    this.#tickBound = () => this.#tick();
    for (let i = 0; i < options.createSlots; i++) this.#free.push(new QuoteSlot(this.#slotOwner));
  }

  setListener(listener: QuoteListener): void {
    this.#listener = listener;
  }

  /** The raw create sockets' counters. */
  get rawStats(): Readonly<RawHttpPool['stats']> {
    return this.#raw.stats;
  }

  /**
   * Before quoting: finds the create's presigned ring (connect the REST route first), opens the
   * raw create sockets and the undici pool, each with a signed GET of our communications id (a bad
   * key fails here), and starts the tick and the keep-warm timer. Rejects with ExecError.
   */
  async connect(): Promise<void> {
    if (this.#closed) throw new ExecError('EXEC_DISCONNECTED', 'RestQuoteRoute is closed');
    this.#findPresigned();
    if (this.#tickTimer === null) {
      // Started before the raw connects so a hung connect is ended by connectTimeoutMs.
      this.#tickTimer = setInterval(this.#tickBound, this.#options.tickMs);
      this.#tickTimer.unref();
    }
    if (!this.#rawOpened) {
      this.#rawOpened = true;
      try {
        await this.#raw.connect();
      } catch (error) {
        if (error instanceof NetError) throw new ExecError(netFailureCode(error.code), error.message);
        throw error;
      }
    }
    await Promise.all([this.#client.warm(`${this.#prefix}${WARM_PATH}`, this.#options.connections), this.#warmRaw(0)]);
    if (this.#options.keepWarmIntervalMs > 0 && this.#warmTimer === null) {
      this.#warmTimer = setInterval(() => {
        if (this.#warming) return;
        this.#warming = true;
        this.#warmRaw(this.#options.keepWarmIntervalMs / 2)
          .catch(() => {
            // A failed keep-warm GET is not a quote outcome; the next create reports its own failure.
          })
          .finally(() => {
            this.#warming = false;
          });
      }, this.#options.keepWarmIntervalMs);
      this.#warmTimer.unref();
    }
  }

  /** Stops the timers and closes the sockets: creates in flight end as unknown (EXEC_DISCONNECTED). */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    if (this.#tickTimer !== null) clearInterval(this.#tickTimer);
    this.#tickTimer = null;
    if (this.#warmTimer !== null) clearInterval(this.#warmTimer);
    this.#warmTimer = null;
    this.#raw.close();
    await this.#client.close();
  }

  /**
   * Hot path: the body, a presigned signature taken from the ring (else signed here), one write
   * on an idle raw socket (else queued) before returning. The answer comes later to the listener.
   */
  create(quote: QuoteRequest): void {
    const body = encodeCreateQuote(quote, this.#options.restRemainder);
    let slot = this.#free.pop();
    if (slot === undefined) {
      slot = new QuoteSlot(this.#slotOwner);
      this.stats.slotsGrown++;
    }
    slot.handle = quote.handle;
    const signed = this.#signed;
    const presigner = this.#presigner;
    this.stats.creates++;
    if (this.#endpoint >= 0 && presigner !== null && presigner.take(this.#endpoint, signed)) {
      this.stats.presigned++;
    } else {
      const timestampMs = this.#options.clock.nowMs();
      signed.timestampText = String(timestampMs);
      signed.signature = signRequest(this.#options.privateKey, timestampMs, 'POST', this.#createPath);
      signed.signedBytes = null;
      this.stats.inlineSigned++;
      if (this.#presignerNow() !== null) this.stats.presignFallbacks++;
    }
    slot.active = true;
    this.#inflight++;
    this.#sending = true;
    const sent = this.#raw.send(slot, this.#rawCreate, signed.timestampText, signed.signature, body, signed.signedBytes ?? null);
    this.#sending = false;
    if (sent === SendResult.QUEUED) this.stats.queued++;
  }

  cancel(quote: QuoteRequest): void {
    const handle = quote.handle;
    this.#client.call('DELETE', this.#quotePath(quote, ''), null).then(
      () => this.#listener.onQuoteCancelAck(handle),
      (error: unknown) => this.#listener.onQuoteCancelReject(handle, rejectCode(error), error instanceof ExecError ? error.status : 0),
    );
  }

  confirm(quote: QuoteRequest): void {
    const handle = quote.handle;
    this.#client.call('PUT', this.#quotePath(quote, '/confirm'), '{}').then(
      () => this.#listener.onQuoteConfirmAck(handle),
      (error: unknown) => this.#listener.onQuoteConfirmReject(handle, rejectCode(error), error instanceof ExecError ? error.status : 0),
    );
  }

  async listQuotes(): Promise<WireQuote[]> {
    const params = new URLSearchParams();
    params.set('user_filter', 'self');
    const items = await this.#client.pages(`${this.#prefix}/communications/quotes`, params, 'quotes', this.#options.readPageLimit, this.#options.readPagesMax);
    return items.map(parseWireQuote);
  }

  // ---- create's answers (the slots' owner) ----

  #onFinish(slot: QuoteSlot): void {
    try {
      this.#finish(slot.handle, slot.status, slot.bodyText());
    } catch (error) {
      // A listener that throws is a bug: re-thrown off the socket's read path.
      queueMicrotask(() => {
        throw error;
      });
    } finally {
      this.#release(slot);
    }
  }

  /** Transport failure, written or not: the fate is left unknown and reconciled (as on undici). */
  #onFail(slot: QuoteSlot, code: ExecErrorCode): void {
    const handle = slot.handle;
    this.#release(slot);
    if (this.#sending) {
      // Refused inside create() (queue full, closed): reported after create() returned, as every answer.
      queueMicrotask(() => this.#unknown(handle, code));
      return;
    }
    try {
      this.#unknown(handle, code);
    } catch (error) {
      queueMicrotask(() => {
        throw error;
      });
    }
  }

  #finish(handle: number, status: number, text: string): void {
    if (status < 200 || status >= 300) {
      const code = statusErrorCode(status);
      if (status >= 400 && status < 500) {
        const reject = parseErrorBody(status, text);
        this.stats.rejects++;
        this.#listener.onQuoteCreateReject(handle, reject.code !== '' ? reject.code : code, status);
        return;
      }
      return this.#unknown(handle, code);
    }
    const answer = text === '' ? null : parseJsonObject(text);
    const id = answer?.['id'];
    if (typeof id !== 'string' || id === '') return this.#unknown(handle, 'EXEC_BAD_RESPONSE');
    this.stats.acks++;
    this.#listener.onQuoteCreateAck(handle, id);
  }

  #unknown(handle: number, code: ExecErrorCode): void {
    this.stats.unknowns++;
    this.#listener.onQuoteCreateUnknown(handle, code);
  }

  #release(slot: QuoteSlot): void {
    this.#inflight--;
    slot.reset();
    slot.handle = -1;
    this.#free.push(slot);
    // As the REST route's 'idle' refill: the worker re-signs when no create waits for its answer.
    if (this.#inflight === 0 && this.#endpoint >= 0) this.#presigner?.refill();
  }

  /** The presigner as the REST route has it now (null: inline signing, or not connected yet). */
  #presignerNow(): Presigner | null {
    const presigner = this.#options.presigner?.() ?? null;
    return presigner !== null && presigner.alive ? presigner : null;
  }

  /** Resolves the create's ring (at connect, and on the tick until found: the REST route may connect later). */
  #findPresigned(): void {
    const presigner = this.#presignerNow();
    if (presigner === this.#presigner && this.#endpoint >= 0) return;
    this.#presigner = presigner;
    this.#endpoint = presigner === null ? -1 : presigner.endpointIndex('POST', this.#createPath);
  }

  #tick(): void {
    this.#raw.tick(performance.now());
    if (this.#endpoint < 0 && this.#options.presigner !== undefined) this.#findPresigned();
  }

  /**
   * One signed GET of our communications id on each raw socket idle for at least `minIdleMs` (0 at
   * connect: every socket). Signed first (the presigner's worker when it runs), then written
   * together so each lands on its own socket; one that became busy meanwhile is skipped.
   */
  async #warmRaw(minIdleMs: number): Promise<void> {
    this.stats.warmRequests += await warmIdleRawSockets(this.#raw, this.#rawWarm, this.#client, minIdleMs);
  }

  #quotePath(quote: QuoteRequest, suffix: string): string {
    return `${this.#prefix}/communications/rfqs/${encodeURIComponent(quote.rfqId)}/quotes/${encodeURIComponent(quote.quoteId)}${suffix}`;
  }
}

/** A 4xx answer: the venue decided (nothing applied). 5xx, timeouts and transport failures leave the fate unknown. */
function isApplied(error: unknown): boolean {
  return error instanceof ExecError && error.status >= 400 && error.status < 500;
}

function rejectCode(error: unknown): string {
  if (error instanceof ExecError) return error.reject !== null && error.reject.code !== '' ? error.reject.code : error.code;
  return 'EXEC_DISCONNECTED';
}

function price(value: unknown): Price {
  return typeof value === 'string' ? parsePrice(value) : PRICE_INVALID;
}

/** One item of GET /communications/quotes in core units. */
export function parseWireQuote(item: Record<string, unknown>): WireQuote {
  const id = item['id'];
  const status = item['status'];
  if (typeof id !== 'string' || typeof status !== 'string' || !(STATUSES as readonly string[]).includes(status)) {
    throw new ExecError('EXEC_BAD_RESPONSE', 'bad response: quote without id or status');
  }
  const side = item['accepted_side'];
  const sub = item['creator_subaccount'];
  const accepted = item['accepted_ts'];
  const acceptedMs = typeof accepted === 'string' ? Date.parse(accepted) : Number.NaN;
  return {
    quoteId: id,
    rfqId: typeof item['rfq_id'] === 'string' ? item['rfq_id'] : '',
    marketTicker: typeof item['market_ticker'] === 'string' ? item['market_ticker'] : '',
    status: status as WireQuote['status'],
    yesBid: price(item['yes_bid_dollars']),
    noBid: price(item['no_bid_dollars']),
    acceptedSide: side === 'yes' || side === 'no' ? side : '',
    subaccount: typeof sub === 'number' && Number.isSafeInteger(sub) ? sub : 0,
    acceptedMs: Number.isNaN(acceptedMs) ? 0 : acceptedMs,
  };
}
