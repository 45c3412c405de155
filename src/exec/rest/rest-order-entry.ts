/**
 * Order entry over the exchange's REST V2 API (spec/rest.md §3): create, cancel, amend, decrease,
 * batches, cancel-all and order groups, plus the reads the OMS reconciles with. Implements the
 * OrderEntry contract: hot-path calls are synchronous and report through the ExecListener.
 *
 * One transport for order mutations: every create, amend, decrease, cancel (the batched DELETE
 * with cancelRoute 'batched', the per-order DELETE with 'single'), batch create and cancelBatch goes
 * through RawHttpPool (src/net/raw-http-pool.ts): `connections` persistent keep-alive sockets over node:net
 * (TLS for https), TCP_NODELAY, one request per socket, the request written with ONE socket.write
 * inside the call, so the bytes are in the kernel when create()/amend()/... return. Per-order
 * paths (amend, decrease, single cancel) are written with RawHttpPool.sendTo: the request target
 * carries `?subaccount=N`, the signature covers the path without it.
 *
 * Why not undici for them: undici 7.30 (read from its source) defers the write on a reused
 * keep-alive socket. pool.dispatch() builds the Request and queues it on an idle client before
 * returning; the socket write itself (writeH1: cork, head, body, uncork) happens inside dispatch()
 * only on a socket's first request. On a reused socket undici first runs "idle socket validation"
 * (GHSA-35p6-xmwp-9g52, client-h1.js scheduleIdleSocketValidation): one setImmediate so a FIN/RST
 * already pending on the idle socket is seen before writing, so the bytes leave in the check phase
 * of the loop turn, not inside the call. The raw client replaces that check by retiring idle
 * sockets before the server's idle limit (src/net/raw-http-connection.ts), and its CPU work before the
 * write is under 1 us. undici Pool.dispatch with a preallocated handler stays as a baseline in
 * bench/order-entry (undici-dispatch-create.ts), measured beside ours (figures in the README and
 * bench/RESULTS.md, not here).
 *
 * undici Pools carry only what is off the hot path: cancel-all (the kill switch) on a pool of
 * `connections` sockets kept warm for it, reads and order groups on a second small pool so a slow
 * page never holds a warm socket. All sockets (raw and undici) are opened and warmed by connect()
 * and kept warm by a periodic signed GET (one request in flight per undici socket: `pipelining: 1`;
 * 0 would make undici send `connection: close` on every request).
 *
 * One housekeeping tick (`tickMs`, one unref'd interval, no timer per request) ends late raw
 * requests, retires idle raw sockets and refreshes per-order signatures.
 *
 * Signing: presigned signatures (presigner.ts) for the constant paths; after a create ack that
 * leaves the order resting, the worker also signs its cancel (single route), amend and decrease
 * paths (order-path-signatures.ts), so those calls take a fresh signature (<= maxAgeMs old) when
 * one is ready and sign inline otherwise (counted in stats.presignFallbacks).
 *
 * Outcomes (order-entry.ts): 2xx with a parsable body -> ack; 4xx with the exchange's error body
 * -> reject (429: code EXEC_RATE_LIMITED); 5xx, timeout, disconnect or an unparsable 2xx body ->
 * unknown, never a reject (amend/decrease: onAmendUnknown/onDecreaseUnknown when the listener has
 * them, else a status-0 reject). A request refused
 * before it reached a socket (hot-path queue full:
 * EXEC_RATE_LIMITED; queued past headersTimeoutMs: EXEC_TIMEOUT; closed: EXEC_DISCONNECTED) is a
 * reject with status 0 and a message starting "not sent" (status 0: not an exchange answer; the
 * OMS takes it as a plain reject, since nothing reached the venue; stats.notSent counts them). Listener callbacks can run synchronously inside a
 * call when the transport fails the request at once (for example after close()).
 *
 * The order paths, bodies and ack decoders come from a RestOrderVenue (default the Predictions
 * V2 paths; src/exec/margin supplies the Margin exchange's /margin/orders on this same transport).
 *
 * Never: logs key material or signatures, retries a non-idempotent request, decides prices.
 */

import type { KeyObject } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import {
  INTENT_TOKEN_COST,
  IntentKind,
  assert,
  signRequest,
  type BookSide,
  type Clock,
  type Count,
  type Price,
} from '../../core/index.ts';
import {
  ExecError,
  type ExecErrorCode,
  type ExecListener,
  type ExecReject,
  type NewOrder,
  type OrderEntry,
  type OrderKey,
  type VenueOrderRef,
} from '../../oms/index.ts';
import {
  AmendBodyWriter,
  CreateBodyWriter,
  OneCancelBodyWriter,
  checkAmend,
  checkCreateOrder,
  encodeBatchCancel,
  encodeBatchCreate,
  encodeDecrease,
} from './order-body.ts';
import { MAX_DEPTH, OrderPathKind, OrderPathSignatures } from './order-path-signatures.ts';
import { Presigner, type PresignEndpoint, type PresignedSignature } from './presigner.ts';
import { apiPrefixOf, signedClientFor, type SignedRestClient } from './signed-rest-client.ts';
import { NetError, RawHttpPool, SendResult, type RawRequestHead, type RequestBody } from '../../net/index.ts';
import {
  RequestKind,
  RequestSlot,
  type SlotOwner,
} from './request-slot.ts';
import { netFailureCode } from './transport-error.ts';
import {
  newAckRecord,
  parseErrorBody,
  parseItemError,
  parseJsonObject,
  readAmendAck,
  readCancelAck,
  readCreateAck,
  readDecreaseAck,
  type AckRecord,
} from './wire-parse.ts';
import { warmIdleRawSockets } from './raw-keep-warm.ts';

export type SigningMode = 'presigned' | 'inline';

/**
 * What differs between the venues this transport carries orders to (the Predictions V2 order
 * paths, the Margin exchange's /margin/orders): the order path under the API prefix, whether the
 * venue has the batched endpoints, and the body encoders and ack decoders. The Predictions one is
 * the default, so a RestOrderEntry built without one behaves exactly as before.
 * src/exec/margin/margin-order-entry.ts supplies the Margin one.
 */
export interface RestOrderVenue {
  ordersPath: string; // relative to the API prefix: create and cancel-all; per-order paths are {ordersPath}/{id}[/amend|/decrease]
  batched: boolean; // {ordersPath}/batched exists (POST and DELETE); false: cancelRoute must be 'single', no batch calls, no batch signatures
  // The venue's rules for a create and an amend body, as asserts, before anything is sent: both
  // exchanges' bodies have one shape, written as bytes by order-body.ts's writers.
  checkCreate(order: Readonly<NewOrder>): void;
  checkAmend(side: BookSide, price: Price, count: Count): void;
  encodeDecrease(reduceBy: Count): string;
  readCreateAck(object: Record<string, unknown>, out: AckRecord): boolean;
  readCancelAck(object: Record<string, unknown>, out: AckRecord): boolean;
  readAmendAck(object: Record<string, unknown>, out: AckRecord): boolean;
  readDecreaseAck(object: Record<string, unknown>, out: AckRecord): boolean;
}

/** The ids of a cancelOrder's request: none (its order answers by handle). */
const NO_IDS: readonly string[] = Object.freeze([]);
// The venue's write-bucket costs (core's INTENT_TOKEN_COST, rest.md §9), per request or per batch item.
const CREATE_TOKENS = INTENT_TOKEN_COST[IntentKind.NEW]!;
const CANCEL_TOKENS = INTENT_TOKEN_COST[IntentKind.CANCEL]!;
const AMEND_TOKENS = INTENT_TOKEN_COST[IntentKind.AMEND]!;
const DECREASE_TOKENS = INTENT_TOKEN_COST[IntentKind.DECREASE]!;

/** The Predictions exchange's V2 order entry (spec/rest.md §3): the default venue. */
export const PREDICTIONS_ORDER_VENUE: Readonly<RestOrderVenue> = Object.freeze({
  ordersPath: '/portfolio/events/orders',
  batched: true,
  checkCreate: checkCreateOrder,
  checkAmend,
  encodeDecrease,
  readCreateAck,
  readCancelAck,
  readAmendAck,
  readDecreaseAck,
});
export type CancelRoute = 'batched' | 'single';

export interface PresignSettings {
  createCapacity: number; // POST /portfolio/events/orders signatures kept ready (burst size)
  batchCapacity: number; // POST and DELETE .../batched signatures kept ready each
  maxAgeMs: number; // <= 5000 (presigner.ts)
  refreshLeadMs: number;
  tickMs: number;
  startTimeoutMs: number;
  // 'idle': ask the worker for replacements when no order request is in flight (after the last
  // ack), so on a machine with few cores the RSA work does not slow the round trip it follows.
  // 'take': right after each take (next loop turn). The tick tops up in both cases.
  // bench/order-entry on 2 cores: create->ack p50 453 us ('idle') vs 530 us ('take').
  refill: 'idle' | 'take';
  // Nice value of the signing worker thread (presigner.ts); null: the process's own.
  workerNice: number | null;
  // Per-order paths (cancel single route, amend, decrease) signed after a create ack: orders
  // tracked at once (0 = off), how long an order untouched keeps being refreshed, and signatures
  // kept per path (order-path-signatures.ts: 2 lets a quick second amend find one too), the
  // amend path's on its own: a requoting maker amends one order in bursts faster than the
  // worker, at nice 19, makes replacements.
  orderCapacity: number;
  orderIdleMs: number;
  orderDepth: number;
  orderAmendDepth: number;
  // An amend or a batch create with no signature ready: 'worker' signs it off the loop and writes
  // it when signed (a few ms later, nothing waits behind it); 'inline' signs it on the loop (~1 ms
  // that every other market waits, this one sooner). Cancels and decreases always sign inline when
  // nothing is ready: they take risk off, and the worker runs at nice 19 (a loaded host starves
  // it for seconds). A lone create is the router's to hold and batch (createReady).
  signWhenUnready: 'worker' | 'inline';
  // More constant-path endpoints to keep signatures ready for, paths relative to the API prefix:
  // other clients' hot-path requests signed by this presigner (RestQuoteRoute.presignEndpoint,
  // POST /communications/quotes). Their rings follow the same refill policy. Default none.
  extraEndpoints: readonly PresignEndpoint[];
}

export interface RestOrderEntryOptions {
  baseUrl: string; // origin + API prefix, e.g. http://127.0.0.1:9000/trade-api/v2 (prefix defaults to /trade-api/v2)
  keyId: string;
  privateKey: KeyObject;
  clock: Clock; // wall clock for signature timestamps
  connections: number; // raw hot-path sockets, and undici sockets kept warm for cancel-all; each carries one request at a time
  connectTimeoutMs: number;
  headersTimeoutMs: number; // no response headers within this: EXEC_TIMEOUT (create: unknown)
  bodyTimeoutMs: number; // gap between body chunks
  keepAliveTimeoutMs: number; // idle socket lifetime when the server sends no Keep-Alive hint
  // Every keepAliveIntervalMs (0 = off): `connections` concurrent signed GETs of warmPath on the
  // cancel-all pool, and one on each raw socket idle for half a beat, so no socket sits idle until
  // the server's idle limit closes it. A raw socket busy with a warm GET makes an order wait for
  // another (counted in stats.queued).
  keepAliveIntervalMs: number;
  signing: SigningMode;
  presign: PresignSettings;
  cancelRoute: CancelRoute; // 'batched' sends single cancels to the presignable batched DELETE
  slots: number; // request slots preallocated (requests in flight before the free list grows)
  warmPath: string; // signed GET used to open and keep sockets warm (relative to the prefix)
  hotPathQueueMax: number; // requests waiting for a free connection before refusal (EXEC_RATE_LIMITED)
  tickMs: number; // housekeeping tick: raw timeouts fire within headersTimeoutMs + tickMs
  reconnectMinMs: number; // raw: first retry delay after a failed reconnect, doubling ...
  reconnectMaxMs: number; // ... up to this
  tls: { ca?: string | Buffer } | null; // extra trust for https origins (tests, private CAs); null = system CAs
}

/** Defaults, each with its unit; callers pass what they mean and spread these for the rest. */
export const REST_ORDER_ENTRY_DEFAULTS: Readonly<Omit<RestOrderEntryOptions, 'baseUrl' | 'keyId' | 'privateKey' | 'clock'>> =
  Object.freeze({
    connections: 4,
    connectTimeoutMs: 2_000,
    headersTimeoutMs: 2_000,
    bodyTimeoutMs: 2_000,
    keepAliveTimeoutMs: 60_000,
    keepAliveIntervalMs: 2_000, // under the 4-5 s idle limit of common servers (Node's default 5 s)
    signing: 'presigned',
    presign: Object.freeze({
      createCapacity: 32,
      batchCapacity: 8,
      maxAgeMs: 3_000,
      refreshLeadMs: 1_000,
      tickMs: 250,
      startTimeoutMs: 10_000,
      refill: 'idle',
      workerNice: 19,
      orderCapacity: 64, // x (orderAmendDepth + orderDepth per other path) per refresh (every maxAgeMs - refreshLeadMs): ~192-256 RSA signs/s at most
      orderIdleMs: 30_000,
      orderDepth: 2,
      orderAmendDepth: 4,
      signWhenUnready: 'worker',
      extraEndpoints: Object.freeze([]) as readonly PresignEndpoint[],
    }),
    cancelRoute: 'batched',
    slots: 64,
    warmPath: '/portfolio/balance',
    hotPathQueueMax: 256,
    tickMs: 50, // timeouts fire up to 50 ms late against 2 s limits; fewer wake-ups of the trading loop
    reconnectMinMs: 50,
    reconnectMaxMs: 2_000,
    tls: null,
  });

export interface RestOrderEntryStats {
  requests: number; // hot-path requests dispatched
  presigned: number; // of which carried a presigned signature
  inlineSigned: number; // of which were signed on the calling thread
  workerSigned: number; // of which were amends or batch creates signed by the worker on demand, written when it answered
  presignFallbacks: number; // inline signatures on a presignable path (ring empty or worker down)
  queued: number; // sent while every raw socket was busy (bytes written later)
  notSent: number; // refused before reaching a socket (queue full, queued too long, closed)
  slotsGrown: number; // slots allocated beyond `slots`
  acks: number;
  rejects: number;
  unknowns: number;
  warmRequests: number;
}

/** Thrown by the constructor and connect() for bad options; carries every problem at once. */
export class RestOrderEntryConfigError extends Error {
  readonly code = 'EXEC_CONFIG_INVALID' as const;
  constructor(message: string) {
    super(message);
    this.name = 'RestOrderEntryConfigError';
  }
}


const NO_LISTENER: ExecListener = {
  onCreateAck: notWired,
  onCreateReject: notWired,
  onCreateUnknown: notWired,
  onCancelAck: notWired,
  onCancelReject: notWired,
  onCancelUnknown: notWired,
  onAmendAck: notWired,
  onAmendReject: notWired,
  onDecreaseAck: notWired,
  onDecreaseReject: notWired,
};
function notWired(): void {
  assert(false, 'RestOrderEntry: setListener() was not called before trading');
}

export class RestOrderEntry implements OrderEntry {
  readonly stats: RestOrderEntryStats = {
    requests: 0, presigned: 0, inlineSigned: 0, workerSigned: 0, presignFallbacks: 0, queued: 0, notSent: 0, slotsGrown: 0,
    acks: 0, rejects: 0, unknowns: 0, warmRequests: 0,
  };
  readonly #options: RestOrderEntryOptions;
  readonly #venue: Readonly<RestOrderVenue>;
  readonly #origin: string;
  readonly #prefix: string;
  readonly #createPath: string;
  readonly #batchPath: string;
  readonly #cancelAllPath: string;
  readonly #cancelAllClient: SignedRestClient; // cancel-all on undici sockets kept warm
  readonly #raw: RawHttpPool; // every order mutation
  readonly #rawCreate: RawRequestHead;
  readonly #rawBatchCreate: RawRequestHead;
  readonly #rawBatchCancel: RawRequestHead;
  readonly #rawWarm: RawRequestHead;
  readonly #free: RequestSlot[] = [];
  readonly #slotOwner: SlotOwner; // bound once; keeps finish/fail off the public surface
  readonly #ack: AckRecord = newAckRecord();
  readonly #signed: PresignedSignature = { timestampText: '', signature: '', signedBytes: null }; // scratch: the signature of the request being sent
  readonly #rehearsalSigned: PresignedSignature = { timestampText: '', signature: '', signedBytes: null }; // scratch: rehearseCreate's peeked signature
  // The hot path's bodies, written as bytes into the connection's buffer (one request at a time: set, sent, cleared).
  readonly #createBody = new CreateBodyWriter();
  readonly #amendBody = new AmendBodyWriter();
  readonly #cancelBody = new OneCancelBodyWriter();
  readonly #tickBound: () => void;
  readonly #flushOrderPathsBound: () => void;
  #listener: ExecListener = NO_LISTENER;
  #presigner: Presigner | null = null;
  #orderPaths: OrderPathSignatures | null = null;
  #createEndpoint = -1;
  #batchCreateEndpoint = -1;
  #batchCancelEndpoint = -1;
  #inflight = 0; // hot-path requests in flight (idle refill)
  /** Write tokens of the hot-path requests sent (or queued) and not yet ended: the venue may not have charged them yet. */
  #writeTokensInFlight = 0;
  #onWriteAnswer: (() => void) | null = null;
  #warmTimer: NodeJS.Timeout | null = null;
  /** Takes one read's tokens from the runtime's read budget (the fleet's lease with a fleet); null: unmetered. */
  #takeReadToken: (() => boolean) | null = null;
  #readSettled: (() => void) | null = null;
  #tickTimer: NodeJS.Timeout | null = null;
  #ticks = 0;
  #orderPathsFlushScheduled = false;
  #rawOpened = false;
  #warming = false;
  #closed = false;

  constructor(options: RestOrderEntryOptions, venue: Readonly<RestOrderVenue> = PREDICTIONS_ORDER_VENUE) {
    validate(options);
    if (!venue.batched && options.cancelRoute !== 'single') throw new RestOrderEntryConfigError("RestOrderEntry options: cancelRoute must be 'single' on a venue without batched endpoints");
    if (!/^\/[\x21-\x7e]*$/.test(venue.ordersPath) || venue.ordersPath.includes('?')) throw new RestOrderEntryConfigError("RestOrderEntry: venue.ordersPath must start with '/' and be visible ASCII without a query");
    this.#options = options;
    this.#venue = venue;
    const url = new URL(options.baseUrl);
    this.#origin = url.origin;
    this.#prefix = apiPrefixOf(url);
    this.#createPath = `${this.#prefix}${venue.ordersPath}`;
    this.#batchPath = `${this.#prefix}/portfolio/events/orders/batched`;
    this.#cancelAllPath = this.#createPath;
    this.#cancelAllClient = signedClientFor({ ...options, presigner: () => this.#presigner }).client;
    const raw = new RawHttpPool({
      origin: this.#origin,
      keyId: options.keyId,
      connections: options.connections,
      queueMax: options.hotPathQueueMax,
      connectTimeoutMs: options.connectTimeoutMs,
      headersTimeoutMs: options.headersTimeoutMs,
      bodyTimeoutMs: options.bodyTimeoutMs,
      idleLifetimeMs: options.keepAliveTimeoutMs,
      keepAliveMarginMs: 1_000, // as undici's keepAliveTimeoutThreshold above
      reconnectMinMs: options.reconnectMinMs,
      reconnectMaxMs: options.reconnectMaxMs,
      tickMs: options.tickMs,
      tls: options.tls !== null ? { ...options.tls } : null,
    });
    this.#raw = raw;
    this.#rawCreate = raw.head('POST', this.#createPath, true);
    this.#rawBatchCreate = raw.head('POST', this.#batchPath, true);
    this.#rawBatchCancel = raw.head('DELETE', this.#batchPath, true);
    this.#rawWarm = raw.head('GET', `${this.#prefix}${options.warmPath}`, false);
    this.#slotOwner = {
      finish: (slot) => this.#onFinish(slot),
      failCode: (slot, code, sent) => this.#onFailCode(slot, code, sent),
    };
    this.#tickBound = () => this.#tick();
    this.#flushOrderPathsBound = () => {
      this.#orderPathsFlushScheduled = false;
      this.#orderPaths?.flush();
    };
    for (let i = 0; i < options.slots; i++) this.#free.push(this.#newSlot());
  }

  /** The API prefix every signed path starts with. */
  get prefix(): string {
    return this.#prefix;
  }

  get presigner(): Presigner | null {
    return this.#presigner;
  }

  /** The raw hot-path client's counters. */
  get rawStats(): Readonly<RawHttpPool['stats']> {
    return this.#raw.stats;
  }

  /** Per-order signature counters (null when signing is inline or presign.orderCapacity is 0). */
  get orderPathStats(): Readonly<OrderPathSignatures['stats']> | null {
    return this.#orderPaths?.stats ?? null;
  }

  setListener(listener: ExecListener): void {
    this.#listener = listener;
  }

  /**
   * Before trading: starts the presigner (signing 'presigned') and opens every socket (raw
   * hot-path and undici cancel-all pools) with a signed GET of `warmPath`, so the first order pays
   * no TCP (or TLS) handshake and a bad key fails here, not on the first order. Starts the
   * keep-warm timer and the housekeeping tick. Rejects with ExecError (a 401 carries the exchange's
   * reject) or PresignerError.
   */
  async connect(): Promise<void> {
    assert(!this.#closed, 'RestOrderEntry.connect after close');
    if (this.#options.signing === 'presigned' && this.#presigner === null) {
      const settings = this.#options.presign;
      this.#presigner = await Presigner.start({
        privateKey: this.#options.privateKey,
        clock: this.#options.clock,
        endpoints: [
          { method: 'POST', path: this.#createPath, capacity: settings.createCapacity },
          ...(this.#venue.batched ? [
            { method: 'POST', path: this.#batchPath, capacity: settings.batchCapacity },
            { method: 'DELETE', path: this.#batchPath, capacity: settings.batchCapacity },
          ] : []),
          ...(settings.extraEndpoints ?? []).map((endpoint) => ({ method: endpoint.method, path: `${this.#prefix}${endpoint.path}`, capacity: endpoint.capacity })),
        ],
        maxAgeMs: settings.maxAgeMs,
        refreshLeadMs: settings.refreshLeadMs,
        tickMs: settings.tickMs,
        startTimeoutMs: settings.startTimeoutMs,
        refillOnTake: settings.refill === 'take',
        workerNice: settings.workerNice,
      });
      this.#createEndpoint = 0;
      this.#batchCreateEndpoint = this.#venue.batched ? 1 : -1;
      this.#batchCancelEndpoint = this.#venue.batched ? 2 : -1;
      if (settings.orderCapacity > 0) {
        const kinds: OrderPathKind[] = [OrderPathKind.AMEND, OrderPathKind.DECREASE];
        if (this.#options.cancelRoute === 'single') kinds.push(OrderPathKind.CANCEL);
        this.#orderPaths = new OrderPathSignatures({
          presigner: this.#presigner,
          clock: this.#options.clock,
          ordersPath: this.#createPath,
          kinds,
          capacity: settings.orderCapacity,
          maxAgeMs: settings.maxAgeMs,
          refreshLeadMs: settings.refreshLeadMs,
          idleLifetimeMs: settings.orderIdleMs,
          depth: settings.orderDepth,
          amendDepth: settings.orderAmendDepth,
        });
      }
    }
    if (this.#tickTimer === null) {
      // Started before the raw connects so a hung connect is ended by connectTimeoutMs.
      this.#tickTimer = setInterval(this.#tickBound, this.#options.tickMs);
      this.#tickTimer.unref();
    }
    if (!this.#rawOpened) {
      this.#rawOpened = true; // a second connect() only warms again
      try {
        await this.#raw.connect();
      } catch (error) {
        // The port's callers match ExecError codes; the net layer's failure is mapped, not leaked.
        if (error instanceof NetError) throw new ExecError(netFailureCode(error.code), error.message);
        throw error;
      }
    }
    // Paid from the read budget like every beat's: the venue bills them, and a mirror that starts
    // full cannot record what they spent, so a read burst right after connect (the market
    // lookups) found the venue's bucket a few tokens short of ours (a 429 on GET /markets, cost
    // 10, with 9 left, at 5,000 markets: bench/scale's basic:5000:50000, 1 run in 3).
    await Promise.all([
      this.#warm(this.#readAllowance(this.#options.connections), true),
      this.#warmRaw(0, true),
    ]);
    if (this.#options.keepAliveIntervalMs > 0 && this.#warmTimer === null) {
      this.#warmTimer = setInterval(() => {
        if (this.#warming) return; // the previous beat is still out: never stack them
        this.#warming = true;
        // Raw sockets used within half a beat are warm already; only the others get a GET.
        // Each keep-warm GET is a read the venue bills: it spends the read budget, and a beat the
        // budget cannot pay for warms fewer sockets (an order on a cold one pays a reconnect).
        Promise.all([this.#warm(this.#readAllowance(this.#options.connections), true), this.#warmRaw(this.#options.keepAliveIntervalMs / 2, true)])
          .catch(() => {
            // A failed keep-warm GET is not an order outcome; the next order reports its own failure.
          })
          .finally(() => {
            this.#warming = false;
          });
      }, this.#options.keepAliveIntervalMs);
      this.#warmTimer.unref();
    }
  }

  /** Stops timers and the presigner and destroys the sockets: requests in flight end as unknown (EXEC_DISCONNECTED). */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    if (this.#warmTimer !== null) clearInterval(this.#warmTimer);
    this.#warmTimer = null;
    if (this.#tickTimer !== null) clearInterval(this.#tickTimer);
    this.#tickTimer = null;
    this.#raw.close();
    await Promise.all([this.#cancelAllClient.close(), this.#presigner?.close()]);
  }

  // ---- hot path ----

  /**
   * True when a create goes out without signing on the event loop (a presigned signature is
   * ready, or signing is inline by configuration). False tells the router to hold creates for a
   * batch, which signs once for up to 20: an RSA signature costs about a millisecond of the loop.
   */
  createReady(): boolean {
    const presigner = this.#presigner;
    return presigner === null || this.#createEndpoint < 0 || presigner.size(this.#createEndpoint) > 0;
  }

  /** True while a request per connection already waits for one: more would only wait longer (each connection stays busy meanwhile). */
  saturated(): boolean {
    return this.#raw.queueLength >= this.#options.connections;
  }

  /**
   * The read budget keep-warm GETs spend (set once the risk gate exists; the runtime wires it):
   * a read taken, and the same read answered or failed.
   */
  setReadBudget(takeReadToken: () => boolean, readSettled: () => void): void {
    this.#takeReadToken = takeReadToken;
    this.#readSettled = readSettled;
  }

  /**
   * Write tokens of the hot-path requests sent or queued whose exchange has not ended: the venue
   * may not have charged them yet (the gate's write budget reads it, RateBudget.countWritesInFlight).
   */
  get writeTokensInFlight(): number {
    return this.#writeTokensInFlight;
  }

  /**
   * Called when a hot-path exchange ends, before its tokens leave writeTokensInFlight (the runtime
   * wires the gate's RateBudget.onWriteAnswer): the venue's bucket was capped while they were on
   * the way, and the mirror must be capped the same before they stop counting.
   */
  setWriteAnswerHook(onWriteAnswer: () => void): void {
    this.#onWriteAnswer = onWriteAnswer;
  }

  /** How many of `wanted` reads the read budget pays for now (each taken). */
  #readAllowance(wanted: number): number {
    const take = this.#takeReadToken;
    if (take === null) return wanted;
    let allowed = 0;
    while (allowed < wanted && take()) allowed++;
    return allowed;
  }

  /**
   * True when a cancel of `order` goes out without signing on the event loop (or signing is inline
   * by configuration). Takes the order, not its id's text: the batched route's answer needs no id,
   * so none is made for it.
   */
  cancelReady(order: Readonly<VenueOrderRef>): boolean {
    const presigner = this.#presigner;
    if (presigner === null) return true;
    if (this.#options.cancelRoute === 'batched') return this.#batchCancelEndpoint < 0 || presigner.size(this.#batchCancelEndpoint) > 0;
    return this.#orderPaths !== null && this.#orderPaths.ready(order.orderId, OrderPathKind.CANCEL);
  }

  create(order: Readonly<NewOrder>): void {
    this.#venue.checkCreate(order);
    const slot = this.#acquire(RequestKind.CREATE);
    const handle = order.handle ?? 0;
    slot.orderHandle = handle;
    slot.key = handle > 0 ? '' : order.clientOrderId; // an OMS order's id is answered by its handle: its string never made
    slot.writeTokens = CREATE_TOKENS;
    const body = this.#createBody;
    body.order = order;
    this.#send(slot, 'POST', this.#createPath, this.#createPath, this.#createEndpoint, -1, '', body, this.#rawCreate);
    body.order = null;
  }

  /**
   * The keep-warm's rehearsal of create() on this route's own state: the venue's create checks,
   * the next presigned signature read without being taken (Presigner.peek), the request assembled
   * into the buffer of the connection the next create would write on (RawHttpPool.rehearse), and
   * nothing sent, counted or taken. Returns the request's length, -1 when it could not be
   * assembled (no presigner or signature ready, no idle connection). The order is the keep-warm's
   * shadow order: its bytes never leave the process.
   */
  rehearseCreate(order: Readonly<NewOrder>): number {
    if (this.#createEndpoint < 0 || this.#presigner === null) return -1;
    this.#venue.checkCreate(order);
    const signed = this.#rehearsalSigned;
    if (!this.#presigner.peek(this.#createEndpoint, signed)) return -1;
    const body = this.#createBody;
    body.order = order;
    const length = this.#raw.rehearse(this.#rawCreate, signed.timestampText, signed.signature, body, signed.signedBytes ?? null);
    body.order = null;
    return length;
  }

  /**
   * The keep-warm's rehearsal of amend() on this route's own state, as rehearseCreate does for a
   * create: the venue's amend checks, the amend path and the next per-order signature of the
   * order tracked last read without being taken (OrderPathSignatures.peek), the request assembled
   * into the buffer of the connection the next request would write on, and nothing sent, counted
   * or taken. The body is the caller's (the keep-warm's shadow order's price and size); the path
   * and signature are the real order's, so a market maker's next amend finds them in cache.
   * Returns the request's length, -1 when nothing could be assembled (no per-order signatures,
   * no order tracked or none of its signatures fresh, no idle connection).
   */
  rehearseAmend(ticker: string, side: BookSide, price: Price, count: Count, subaccount: number): number {
    const paths = this.#orderPaths;
    if (paths === null) return -1;
    const orderId = paths.lastTracked;
    const path = orderId === '' ? null : paths.path(orderId, OrderPathKind.AMEND);
    if (path === null) return -1;
    checkSubaccount(subaccount);
    this.#venue.checkAmend(side, price, count);
    const signed = this.#rehearsalSigned;
    if (!paths.peek(orderId, OrderPathKind.AMEND, signed)) return -1;
    const body = this.#amendBodyOf(ticker, side, price, count);
    const length = this.#raw.rehearseTo('POST', subaccountQuery(path, subaccount), signed.timestampText, signed.signature, body, signed.signedBytes ?? null);
    body.ticker = '';
    return length;
  }

  /** The reused amend body writer, filled (the caller clears its ticker after the request). */
  #amendBodyOf(ticker: string, side: BookSide, price: Price, count: Count): AmendBodyWriter {
    const body = this.#amendBody;
    body.ticker = ticker;
    body.side = side;
    body.price = price;
    body.count = count;
    return body;
  }

  cancel(orderId: string, subaccount: number): void {
    if (this.#options.cancelRoute === 'batched') {
      checkSubaccount(subaccount);
      const slot = this.#acquire(RequestKind.CANCEL_VIA_BATCH);
      slot.key = orderId;
      slot.writeTokens = CANCEL_TOKENS;
      const body = this.#cancelBody;
      body.orderId = orderId;
      body.subaccount = subaccount;
      this.#send(slot, 'DELETE', this.#batchPath, this.#batchPath, this.#batchCancelEndpoint, -1, '', body, this.#rawBatchCancel);
      body.orderId = '';
      return;
    }
    checkSubaccount(subaccount);
    const path = this.#orderPaths?.path(orderId, OrderPathKind.CANCEL) ?? `${this.#createPath}/${encodeURIComponent(orderId)}`;
    const slot = this.#acquire(RequestKind.CANCEL);
    slot.key = orderId;
    slot.writeTokens = CANCEL_TOKENS;
    this.#send(slot, 'DELETE', subaccountQuery(path, subaccount), path, -1, OrderPathKind.CANCEL, orderId, null, null);
  }

  /**
   * cancel() by the order: on the batched route its id's bytes go into the body and the answer is
   * keyed by its handle (no id string made); an order without a handle or bytes, or the single
   * route (its path holds the id's text), goes through cancel().
   */
  cancelOrder(order: Readonly<VenueOrderRef>): void {
    if (this.#options.cancelRoute !== 'batched' || order.handle <= 0) return this.cancel(order.orderId, order.subaccount);
    checkSubaccount(order.subaccount);
    const slot = this.#acquire(RequestKind.CANCEL_VIA_BATCH);
    slot.orderHandle = order.handle;
    slot.order = order;
    slot.writeTokens = CANCEL_TOKENS;
    const body = this.#cancelBody;
    body.order = order;
    body.subaccount = order.subaccount;
    this.#send(slot, 'DELETE', this.#batchPath, this.#batchPath, this.#batchCancelEndpoint, -1, '', body, this.#rawBatchCancel);
    body.order = null;
  }

  amend(orderId: string, ticker: string, side: BookSide, price: Price, count: Count, subaccount: number): void {
    checkSubaccount(subaccount);
    this.#venue.checkAmend(side, price, count);
    const path = this.#orderPaths?.path(orderId, OrderPathKind.AMEND) ?? `${this.#createPath}/${encodeURIComponent(orderId)}/amend`;
    const slot = this.#acquire(RequestKind.AMEND);
    slot.key = orderId;
    slot.writeTokens = AMEND_TOKENS;
    const body = this.#amendBodyOf(ticker, side, price, count);
    this.#send(slot, 'POST', subaccountQuery(path, subaccount), path, -1, OrderPathKind.AMEND, orderId, body, null);
    body.ticker = '';
  }

  decrease(orderId: string, reduceBy: Count, subaccount: number): void {
    checkSubaccount(subaccount);
    const body = this.#venue.encodeDecrease(reduceBy);
    const path = this.#orderPaths?.path(orderId, OrderPathKind.DECREASE) ?? `${this.#createPath}/${encodeURIComponent(orderId)}/decrease`;
    const slot = this.#acquire(RequestKind.DECREASE);
    slot.key = orderId;
    slot.writeTokens = DECREASE_TOKENS;
    this.#send(slot, 'POST', subaccountQuery(path, subaccount), path, -1, OrderPathKind.DECREASE, orderId, body, null);
  }

  /** Batch create: each order's outcome is reported as for create(); a whole-request failure applies to every order. */
  createBatch(orders: readonly Readonly<NewOrder>[]): void {
    assert(this.#venue.batched, 'RestOrderEntry.createBatch: the venue has no batched endpoint');
    const body = encodeBatchCreate(orders);
    const slot = this.#acquire(RequestKind.BATCH_CREATE);
    slot.keys = orders.map((order) => order.clientOrderId);
    slot.writeTokens = CREATE_TOKENS * orders.length; // the venue bills a batch per item
    this.#send(slot, 'POST', this.#batchPath, this.#batchPath, this.#batchCreateEndpoint, -1, '', body, this.#rawBatchCreate);
  }

  /** Batch cancel of orders of one subaccount: each outcome is reported as for cancel(). */
  cancelBatch(orderIds: readonly string[], subaccount: number): void {
    assert(this.#venue.batched, 'RestOrderEntry.cancelBatch: the venue has no batched endpoint');
    const body = encodeBatchCancel(orderIds, subaccount);
    const slot = this.#acquire(RequestKind.BATCH_CANCEL);
    slot.keys = orderIds.slice();
    slot.writeTokens = CANCEL_TOKENS * orderIds.length;
    this.#send(slot, 'DELETE', this.#batchPath, this.#batchPath, this.#batchCancelEndpoint, -1, '', body, this.#rawBatchCancel);
  }

  #acquire(kind: RequestKind): RequestSlot {
    let slot = this.#free.pop();
    if (slot === undefined) {
      slot = this.#newSlot();
      this.stats.slotsGrown++;
    }
    slot.kind = kind;
    return slot;
  }

  #newSlot(): RequestSlot {
    return new RequestSlot(this.#slotOwner);
  }

  /**
   * Signs `signedPath` (never the query: spec/rest.md §1) with a presigned ring entry for
   * `endpoint` >= 0, a per-order signature for `orderPath` >= 0, else inline, into this.#signed;
   * then writes on the raw client `rawHead` (a constant path) or, when it is null (a per-order
   * request), `method` + `path` (the target with its query). An amend or a batch create with no
   * signature ready is signed by the worker and written when it answers (#sendWhenSigned), not on
   * the loop.
   */
  #send(
    slot: RequestSlot, method: string, path: string, signedPath: string, endpoint: number,
    orderPath: number, orderId: string, body: RequestBody, rawHead: RawRequestHead | null,
  ): void {
    if (this.#closed) {
      // The stop path: close() fails the queued requests, and the OMS may answer one with a
      // cancel. Not sent, reported at once (as a full queue is), never signed: not a crash mid-stop.
      this.#dispatched(slot);
      return slot.onRawFailure('NET_DISCONNECTED', false);
    }
    const signed = this.#signed;
    if (endpoint >= 0 && this.#presigner !== null && this.#presigner.take(endpoint, signed)) {
      this.stats.presigned++;
    } else if (orderPath >= 0 && this.#orderPaths !== null && this.#orderPaths.take(orderId, orderPath as OrderPathKind, signed)) {
      this.stats.presigned++;
      this.#scheduleOrderPathsFlush();
    } else if (this.#signsInWorker(endpoint, orderPath)) {
      if (orderPath >= 0) this.#scheduleOrderPathsFlush();
      this.#sendWhenSigned(slot, method, path, signedPath, body);
      return;
    } else {
      this.#signInline(signed, method, signedPath);
      if (endpoint >= 0 || (orderPath >= 0 && this.#orderPaths !== null)) this.stats.presignFallbacks++;
      if (orderPath >= 0) this.#scheduleOrderPathsFlush();
    }
    this.#dispatched(slot);
    const sent = rawHead !== null
      ? this.#raw.send(slot, rawHead, signed.timestampText, signed.signature, body, signed.signedBytes ?? null)
      : this.#raw.sendTo(slot, method, path, signed.timestampText, signed.signature, body, signed.signedBytes ?? null);
    if (sent === SendResult.QUEUED) this.stats.queued++;
  }

  #signInline(signed: PresignedSignature, method: string, signedPath: string): void {
    const timestampMs = this.#options.clock.nowMs();
    signed.timestampText = String(timestampMs);
    signed.signature = signRequest(this.#options.privateKey, timestampMs, method, signedPath);
    signed.signedBytes = null;
    this.stats.inlineSigned++;
  }

  /**
   * Whether a request with no signature ready goes to the worker (presign.signWhenUnready): an
   * amend (its path holds the order id: only the orders acked last are signed ahead; at 1,000
   * markets nearly every amend signed on the loop) or a batch create (it already waited for the
   * turn's end: ~80 a run at 1,000 markets). Never a cancel or a decrease: they take risk off and
   * must not wait on a nice-19 thread that a loaded host starves (with batch cancels signed
   * there, a loaded CI run's crash test found a faulted plugin's order still resting at the venue
   * when the status already said faulted).
   */
  #signsInWorker(endpoint: number, orderPath: number): boolean {
    const presigner = this.#presigner;
    if (presigner === null || !presigner.alive || this.#options.presign.signWhenUnready !== 'worker') return false;
    if (orderPath >= 0) return orderPath === OrderPathKind.AMEND && this.#orderPaths !== null;
    return endpoint >= 0 && endpoint === this.#batchCreateEndpoint;
  }

  /** The slot counts as in flight from here: its tokens, and #release's count. */
  #dispatched(slot: RequestSlot): void {
    slot.active = true;
    this.stats.requests++;
    this.#inflight++;
    // Before the send: a refusal inside it ends the slot at once, and #release takes them back.
    this.#writeTokensInFlight += slot.writeTokens;
  }

  /**
   * An amend whose path has no signature ready (an order beyond the tracked ones, or its
   * signatures used up), or a batch create past its ring: the worker signs it and the request is
   * written when it answers, a few milliseconds later, instead of ~1 ms of RSA on this loop that
   * every other market would wait behind (at 1,000 markets nearly every amend was such a one). A
   * worker that never answers leaves the request pending until the OMS's timeout reconciles it,
   * as a request whose answer never comes. The slot is in flight
   * meanwhile, as a queued request's is. The body is kept as text (the route's writers are
   * reused). The worker gone: signed inline then; the route closed: not sent.
   */
  #sendWhenSigned(slot: RequestSlot, method: string, path: string, signedPath: string, body: RequestBody): void {
    this.#dispatched(slot);
    this.stats.workerSigned++;
    const text = body === null || typeof body === 'string' ? body : body.text();
    const write = (timestampText: string, signature: string): void => {
      if (this.#raw.sendTo(slot, method, path, timestampText, signature, text, null) === SendResult.QUEUED) this.stats.queued++;
    };
    this.#presigner!.signAsync(method, signedPath).then(
      (signed) => write(signed.timestampText, signed.signature),
      () => {
        if (this.#closed) return slot.onRawFailure('NET_DISCONNECTED', false);
        const signed = this.#signed;
        this.#signInline(signed, method, signedPath);
        write(signed.timestampText, signed.signature);
      },
    );
  }

  #release(slot: RequestSlot): void {
    this.#inflight--;
    this.#writeTokensInFlight -= slot.writeTokens;
    slot.reset();
    this.#free.push(slot);
    if (this.#inflight === 0 && this.#presigner !== null && this.#options.presign.refill === 'idle') {
      this.#presigner.refill();
      this.#orderPaths?.flush();
    }
  }

  /**
   * A resting order's paths to sign ahead, asked for on the next turn whatever presign.refill says.
   * Waiting for the route to go idle (or for the tick) left a quick cancel unsigned: with a
   * request in flight at every release, a new order's cancel was asked for only by the 250 ms tick,
   * and its cancel ~16-24 ms after the ack was signed on the loop (bench/tick-to-trade's margin
   * run). One setImmediate per turn at most.
   */
  #track(orderId: string): void {
    const paths = this.#orderPaths;
    if (paths === null) return;
    paths.track(orderId);
    if (this.#orderPathsFlushScheduled) return;
    this.#orderPathsFlushScheduled = true;
    setImmediate(this.#flushOrderPathsBound);
  }

  /** Per-order signatures wanted: made when idle ('idle' refill, in #release) or next turn ('take'). */
  #scheduleOrderPathsFlush(): void {
    if (this.#options.presign.refill !== 'take' || this.#orderPathsFlushScheduled || this.#orderPaths === null) return;
    this.#orderPathsFlushScheduled = true;
    setImmediate(this.#flushOrderPathsBound);
  }

  /** The housekeeping tick: raw timeouts and idle lifetimes every tick; per-order signatures every presign.tickMs. */
  #tick(): void {
    this.#raw.tick(performance.now());
    if (this.#orderPaths === null) return;
    this.#ticks++;
    if (this.#ticks * this.#options.tickMs >= this.#options.presign.tickMs) {
      this.#ticks = 0;
      this.#orderPaths.flush();
    }
  }

  // ---- outcomes (the slots' owner) ----

  /**
   * A full response. The slot goes back to the free list after the listener returns, so a
   * listener that sends a new request from its callback gets another slot. A listener that throws
   * is a bug: it is re-thrown from a microtask so the transport's read path is not unwound by it.
   */
  #onFinish(slot: RequestSlot): void {
    this.#onWriteAnswer?.();
    this.#listener.answersBegin?.();
    try {
      this.#finish(slot);
    } catch (error) {
      throwOutsideReadPath(error);
    } finally {
      this.#release(slot);
      this.#answersEnd();
    }
  }

  /** After the slot is free: the listener tells the strategies (ExecListener.answersEnd). */
  #answersEnd(): void {
    try {
      this.#listener.answersEnd?.();
    } catch (error) {
      throwOutsideReadPath(error);
    }
  }

  /** Transport failure: written (sent) -> unknown; never written -> reject with status 0 ("not sent"). */
  #onFailCode(slot: RequestSlot, code: ExecErrorCode, sent: boolean): void {
    this.#onWriteAnswer?.();
    this.#listener.answersBegin?.();
    try {
      if (sent) {
        this.#unknownAll(slot, code);
      } else {
        this.stats.notSent++;
        this.#rejectAll(slot, { status: 0, code, message: NOT_SENT_MESSAGES[code], details: '' });
      }
    } catch (listenerError) {
      throwOutsideReadPath(listenerError);
    } finally {
      this.#release(slot);
      this.#answersEnd();
    }
  }

  #finish(slot: RequestSlot): void {
    const status = slot.status;
    if (status >= 500) return this.#unknownAll(slot, 'EXEC_HTTP_5XX');
    if (status >= 400) return this.#rejectAll(slot, parseErrorBody(status, slot.bodyText()));
    if (status < 200 || status >= 300) return this.#unknownAll(slot, 'EXEC_BAD_RESPONSE');
    const body = parseJsonObject(slot.bodyText());
    if (body === null) return this.#unknownAll(slot, 'EXEC_BAD_RESPONSE');
    const listener = this.#listener;
    const ack = this.#ack;
    switch (slot.kind) {
      case RequestKind.CREATE:
        if (!this.#venue.readCreateAck(body, ack)) return this.#unknownAll(slot, 'EXEC_BAD_RESPONSE');
        this.stats.acks++;
        if (ack.remainingCount > 0) this.#track(ack.orderId); // resting: sign its cancel/amend/decrease paths ahead
        return listener.onCreateAck(slot.createKey(), ack.orderId, ack.fillCount, ack.remainingCount, ack.tsMs);
      case RequestKind.CANCEL:
        if (!this.#venue.readCancelAck(body, ack)) return this.#unknownAll(slot, 'EXEC_BAD_RESPONSE');
        this.stats.acks++;
        this.#orderPaths?.forget(slot.key);
        return listener.onCancelAck(slot.key, ack.reducedBy, ack.tsMs);
      case RequestKind.AMEND:
        if (!this.#venue.readAmendAck(body, ack)) return this.#unknownAll(slot, 'EXEC_BAD_RESPONSE');
        this.stats.acks++;
        if (ack.remainingCount === 0) this.#orderPaths?.forget(slot.key); // filled by the amend (COUNT_INVALID: unchanged)
        return listener.onAmendAck(slot.key, ack.fillCount, ack.remainingCount, ack.tsMs);
      case RequestKind.DECREASE:
        if (!this.#venue.readDecreaseAck(body, ack)) return this.#unknownAll(slot, 'EXEC_BAD_RESPONSE');
        this.stats.acks++;
        if (ack.remainingCount === 0) this.#orderPaths?.forget(slot.key);
        return listener.onDecreaseAck(slot.key, ack.remainingCount, ack.tsMs);
      case RequestKind.CANCEL_VIA_BATCH:
        return this.#finishCancelItems(status, body, slot.order === null ? [slot.key] : NO_IDS, slot.order, slot.orderHandle);
      case RequestKind.BATCH_CANCEL:
        return this.#finishCancelItems(status, body, slot.keys);
      case RequestKind.BATCH_CREATE:
        return this.#finishCreateItems(slot, status, body);
    }
  }

  /**
   * Batch create items: matched by client_order_id when echoed, else by position. An item error is
   * a reject carrying the batch's HTTP status (branch on `code`); a missing or unparsable item is
   * unknown.
   */
  #finishCreateItems(slot: RequestSlot, status: number, body: Record<string, unknown>): void {
    const items = Array.isArray(body['orders']) ? (body['orders'] as unknown[]) : [];
    const ids = slot.keys;
    const done = new Array<boolean>(ids.length).fill(false);
    for (let i = 0; i < items.length; i++) {
      const item = items[i];
      if (typeof item !== 'object' || item === null) continue;
      const object = item as Record<string, unknown>;
      const echoed = typeof object['client_order_id'] === 'string' ? (object['client_order_id'] as string) : '';
      const index = echoed !== '' ? ids.indexOf(echoed) : i < ids.length ? i : -1;
      if (index === -1 || done[index]) continue;
      done[index] = true;
      const reject = parseItemError(status, object);
      if (reject !== null) {
        this.stats.rejects++;
        this.#listener.onCreateReject(ids[index]!, reject);
      } else if (this.#venue.readCreateAck(object, this.#ack)) {
        this.stats.acks++;
        if (this.#ack.remainingCount > 0) this.#track(this.#ack.orderId);
        this.#listener.onCreateAck(ids[index]!, this.#ack.orderId, this.#ack.fillCount, this.#ack.remainingCount, this.#ack.tsMs);
      } else {
        done[index] = false;
      }
    }
    for (let i = 0; i < ids.length; i++) {
      if (done[i]) continue;
      this.stats.unknowns++;
      this.#listener.onCreateUnknown(ids[i]!, 'EXEC_BAD_RESPONSE');
    }
  }

  /**
   * The per-order signatures of a cancelled order, forgotten by the echoed id when there is one (the
   * parse made that string already), so the order's own id string is not made for it.
   */
  #forgetOrderPaths(echoed: string, order: string | Readonly<VenueOrderRef>): void {
    const paths = this.#orderPaths;
    if (paths === null) return;
    paths.forget(echoed !== '' ? echoed : typeof order === 'string' ? order : order.orderId);
  }

  /**
   * Batch cancel items: matched by order_id (by position when not echoed); item errors are
   * rejects, missing items unknown. A cancelOrder's one item (`order` given, `ids` empty) is
   * matched against the order's id without making its string and answered by `handle`.
   */
  #finishCancelItems(status: number, body: Record<string, unknown>, ids: readonly string[], order: Readonly<VenueOrderRef> | null = null, handle = 0): void {
    const count = order === null ? ids.length : 1;
    const items = Array.isArray(body['orders']) ? (body['orders'] as unknown[]) : [];
    const done = new Array<boolean>(count).fill(false);
    for (let i = 0; i < items.length; i++) {
      const item = items[i];
      if (typeof item !== 'object' || item === null) continue;
      const object = item as Record<string, unknown>;
      const echoed = typeof object['order_id'] === 'string' ? (object['order_id'] as string) : '';
      const index = echoed === '' ? (i < count ? i : -1) : order === null ? ids.indexOf(echoed) : order.orderIdIs(echoed) ? 0 : -1;
      if (index === -1 || done[index]) continue;
      const key: OrderKey = order === null ? ids[index]! : handle;
      const reject = parseItemError(status, object);
      if (reject !== null) {
        done[index] = true;
        this.stats.rejects++;
        if (reject.code.startsWith('not_found')) this.#forgetOrderPaths(echoed, order === null ? ids[index]! : order);
        this.#listener.onCancelReject(key, reject);
      } else if (this.#venue.readCancelAck(object, this.#ack)) {
        done[index] = true;
        this.stats.acks++;
        this.#forgetOrderPaths(echoed, order === null ? ids[index]! : order);
        this.#listener.onCancelAck(key, this.#ack.reducedBy, this.#ack.tsMs);
      }
    }
    for (let i = 0; i < count; i++) {
      if (done[i]) continue;
      this.stats.unknowns++;
      this.#listener.onCancelUnknown(order === null ? ids[i]! : handle, 'EXEC_BAD_RESPONSE');
    }
  }

  #rejectAll(slot: RequestSlot, reject: ExecReject): void {
    const listener = this.#listener;
    switch (slot.kind) {
      case RequestKind.CREATE:
        this.stats.rejects++;
        return listener.onCreateReject(slot.createKey(), reject);
      case RequestKind.CANCEL:
      case RequestKind.CANCEL_VIA_BATCH:
        this.stats.rejects++;
        if (reject.status === 404) this.#orderPaths?.forget(slot.order !== null ? slot.order.orderId : slot.key); // already gone
        return listener.onCancelReject(slot.orderKey(), reject);
      case RequestKind.AMEND:
        this.stats.rejects++;
        return listener.onAmendReject(slot.key, reject);
      case RequestKind.DECREASE:
        this.stats.rejects++;
        return listener.onDecreaseReject(slot.key, reject);
      case RequestKind.BATCH_CREATE:
        for (const id of slot.keys) {
          this.stats.rejects++;
          listener.onCreateReject(id, reject);
        }
        return;
      case RequestKind.BATCH_CANCEL:
        for (const id of slot.keys) {
          this.stats.rejects++;
          listener.onCancelReject(id, reject);
        }
        return;
    }
  }

  #unknownAll(slot: RequestSlot, code: ExecErrorCode): void {
    const listener = this.#listener;
    switch (slot.kind) {
      case RequestKind.CREATE:
        this.stats.unknowns++;
        return listener.onCreateUnknown(slot.createKey(), code);
      case RequestKind.CANCEL:
      case RequestKind.CANCEL_VIA_BATCH:
        this.stats.unknowns++;
        return listener.onCancelUnknown(slot.orderKey(), code);
      case RequestKind.AMEND:
        this.stats.unknowns++;
        if (listener.onAmendUnknown !== undefined) return listener.onAmendUnknown(slot.key, code);
        return listener.onAmendReject(slot.key, unknownAsReject(code));
      case RequestKind.DECREASE:
        this.stats.unknowns++;
        if (listener.onDecreaseUnknown !== undefined) return listener.onDecreaseUnknown(slot.key, code);
        return listener.onDecreaseReject(slot.key, unknownAsReject(code));
      case RequestKind.BATCH_CREATE:
        for (const id of slot.keys) {
          this.stats.unknowns++;
          listener.onCreateUnknown(id, code);
        }
        return;
      case RequestKind.BATCH_CANCEL:
        for (const id of slot.keys) {
          this.stats.unknowns++;
          listener.onCancelUnknown(id, code);
        }
        return;
    }
  }

  // ---- off the hot path: promise-returning calls on the warm sockets or the read pool ----

  /** Kill switch: DELETE {ordersPath} (/portfolio/events/orders; all subaccounts when null). Resolves on 204/200. */
  async cancelAll(subaccount: number | null): Promise<void> {
    if (subaccount !== null) checkSubaccount(subaccount);
    if (this.#closed) throw new ExecError('EXEC_DISCONNECTED', 'RestOrderEntry is closed');
    const path = subaccount === null ? this.#cancelAllPath : `${this.#cancelAllPath}?subaccount=${subaccount}`;
    // Signed inline: the kill switch must not wait behind a refill batch in the presigner's worker.
    await this.#cancelAllClient.call('DELETE', path, null, true);
  }

  /**
   * One signed GET of warmPath on each raw connection idle for at least `minIdleMs` (0 at connect:
   * every connection). Signed first, then written together so each lands on its own connection;
   * one that became busy meanwhile is skipped (it is warm). Rejects like #callSigned.
   */
  async #warmRaw(minIdleMs: number, metered = false): Promise<void> {
    const idle = this.#raw.idleLongerThan(minIdleMs);
    const allowed = metered ? this.#readAllowance(idle) : idle;
    if (allowed === 0) return;
    try {
      this.stats.warmRequests += await warmIdleRawSockets(this.#raw, this.#rawWarm, this.#cancelAllClient, minIdleMs, allowed);
    } finally {
      if (metered) this.#settleReads(allowed);
    }
  }

  /** `count` signed GETs of warmPath on the cancel-all pool, so it opens (or reuses) that many sockets; `metered`: paid from the read budget, settled when done. */
  async #warm(count: number, metered = false): Promise<void> {
    if (count === 0) return;
    this.stats.warmRequests += count;
    try {
      await this.#cancelAllClient.warm(`${this.#prefix}${this.#options.warmPath}`, count);
    } finally {
      if (metered) this.#settleReads(count);
    }
  }

  /** `count` reads #readAllowance paid for were answered or failed. */
  #settleReads(count: number): void {
    const settle = this.#readSettled;
    if (settle !== null) for (let i = 0; i < count; i++) settle();
  }
}

/** Messages of the status-0 rejects for raw requests that never reached a socket (constant: no allocation). */
const NOT_SENT_MESSAGES: Readonly<Record<ExecErrorCode, string>> = Object.freeze({
  EXEC_RATE_LIMITED: 'not sent: hot-path queue full (hotPathQueueMax)',
  EXEC_TIMEOUT: 'not sent: no connection free within headersTimeoutMs',
  EXEC_DISCONNECTED: 'not sent: order entry closed',
  EXEC_HTTP_5XX: 'not sent',
  EXEC_REJECTED: 'not sent',
  EXEC_BAD_RESPONSE: 'not sent',
});

function unknownAsReject(code: ExecErrorCode): ExecReject {
  return { status: 0, code, message: 'fate unknown: reconcile', details: '' };
}

function checkSubaccount(subaccount: number): void {
  assert(Number.isInteger(subaccount) && subaccount >= 0 && subaccount <= 63, 'RestOrderEntry: subaccount must be in 0..63');
}

function subaccountQuery(path: string, subaccount: number): string {
  return subaccount === 0 ? path : `${path}?subaccount=${subaccount}`;
}

function validate(options: RestOrderEntryOptions): void {
  const problems: string[] = [];
  let url: URL | null = null;
  try {
    url = new URL(options.baseUrl);
  } catch {
    problems.push('baseUrl must be an absolute http(s) URL');
  }
  if (url !== null && url.protocol !== 'http:' && url.protocol !== 'https:') problems.push('baseUrl must be http or https');
  if (url !== null && url.search !== '') problems.push('baseUrl must carry no query');
  if (options.keyId === '') problems.push('keyId must not be empty');
  if (options.privateKey.type !== 'private') problems.push('privateKey must be a private KeyObject');
  const positive: [string, number][] = [
    ['connections', options.connections],
    ['connectTimeoutMs', options.connectTimeoutMs],
    ['headersTimeoutMs', options.headersTimeoutMs],
    ['bodyTimeoutMs', options.bodyTimeoutMs],
    ['keepAliveTimeoutMs', options.keepAliveTimeoutMs],
    ['slots', options.slots],
  ];
  for (const [name, value] of positive) {
    if (!(Number.isInteger(value) && value > 0)) problems.push(`${name} must be a positive integer`);
  }
  if (!(Number.isInteger(options.keepAliveIntervalMs) && options.keepAliveIntervalMs >= 0)) {
    problems.push('keepAliveIntervalMs must be an integer >= 0 (0 = off)');
  }
  if (options.signing !== 'presigned' && options.signing !== 'inline') problems.push("signing must be 'presigned' or 'inline'");
  if (options.cancelRoute !== 'batched' && options.cancelRoute !== 'single') problems.push("cancelRoute must be 'batched' or 'single'");
  if (options.presign.refill !== 'idle' && options.presign.refill !== 'take') problems.push("presign.refill must be 'idle' or 'take'");
  if (!/^\/[\x21-\x7e]*$/.test(options.warmPath) || options.warmPath.includes('?')) problems.push("warmPath must start with '/' and be visible ASCII without a query");
  if (!/^[\x21-\x7e]+$/.test(options.keyId)) problems.push('keyId must be visible ASCII (it is written as a header)');
  for (const [name, value] of [['hotPathQueueMax', options.hotPathQueueMax], ['tickMs', options.tickMs], ['reconnectMinMs', options.reconnectMinMs], ['reconnectMaxMs', options.reconnectMaxMs]] as const) {
    if (!(Number.isInteger(value) && value > 0)) problems.push(`${name} must be a positive integer`);
  }
  if (options.reconnectMaxMs < options.reconnectMinMs) problems.push('reconnectMaxMs must be >= reconnectMinMs');
  if (!(Number.isInteger(options.presign.orderCapacity) && options.presign.orderCapacity >= 0)) problems.push('presign.orderCapacity must be an integer >= 0 (0 = off)');
  if (!(Number.isInteger(options.presign.orderIdleMs) && options.presign.orderIdleMs > 0)) problems.push('presign.orderIdleMs must be a positive integer');
  if (!(Number.isInteger(options.presign.orderDepth) && options.presign.orderDepth >= 1 && options.presign.orderDepth <= MAX_DEPTH)) problems.push(`presign.orderDepth must be an integer in 1..${MAX_DEPTH}`);
  const extra = options.presign.extraEndpoints ?? []; // absent (an untyped caller): none
  if (!Array.isArray(extra)) problems.push('presign.extraEndpoints must be an array');
  else {
    for (const endpoint of extra) {
      if (!/^\/[\x21-\x7e]*$/.test(endpoint.path) || endpoint.path.includes('?')) problems.push(`presign.extraEndpoints: path ${endpoint.path} must start with '/' and be visible ASCII without a query`);
      if (!/^[A-Z]+$/.test(endpoint.method)) problems.push(`presign.extraEndpoints: method ${endpoint.method} must be an upper-case HTTP verb`);
      if (!(Number.isInteger(endpoint.capacity) && endpoint.capacity > 0)) problems.push(`presign.extraEndpoints: ${endpoint.method} ${endpoint.path}: capacity must be a positive integer`);
    }
  }
  if (problems.length > 0) throw new RestOrderEntryConfigError(`RestOrderEntry options: ${problems.join('; ')}`);
}

/** A listener's error, re-thrown from a microtask: the transport's read path is not unwound by it. */
function throwOutsideReadPath(error: unknown): void {
  queueMicrotask(() => {
    throw error;
  });
}
