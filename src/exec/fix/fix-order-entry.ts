/**
 * Order entry over the venue's FIX order-entry session (KalshiNR or KalshiRT, shared/spec/fix.md
 * §5), behind the OMS's order-entry port (src/oms/order-route.ts). One persistent connection
 * (node:tls against the venue, plain TCP against the local simulator) carries one FixSession
 * (src/fix) as initiator: signed Logon with 21005=Y (dollar prices) and 21011=Y (no pending
 * reports), heartbeats driven by one unref'd tick, the sequence store on file under var/ (mode
 * 0600) or in memory, and reconnection with doubling backoff after the first connect().
 *
 * Hot path: create/cancel/amend/decrease encode into the session's reused buffer and write to the
 * socket before they return; each request takes a pooled record keyed by its ClOrdID (a cancel or
 * replace gets a fresh ClOrdID of ours; a create uses the OMS's client order id, written from the
 * order's handle as bytes, its string never made: fix-requests.ts).
 *
 * Outcomes, by the port's rules:
 * - ExecutionReport for the request's ClOrdID -> ack. Reports of one read chunk are folded first, so
 *   an order that filled against several makers at once is acked with its final CumQty/LeavesQty
 *   (as the REST route's single response would); a later chunk's fills come through the feed.
 * - ExecutionReport 150=8, OrderCancelReject 35=9, BusinessMessageReject 35=j, session Reject 35=3
 *   about the request -> reject (nothing applied), as ExecReject with the HTTP status and REST code
 *   the REST route would have given for the same venue answer: Text ORDER_ALREADY_EXISTS -> 409
 *   order_already_exists, CxlRejReason 0/1 (too late, unknown order) -> 404 not_found, 380=8 -> 429
 *   EXEC_RATE_LIMITED, otherwise 400 with the Text lower-cased (insufficient_balance, invalid_price,
 *   market_not_found, ...); `message` keeps the FIX Text and `details` the FIX reason codes.
 * - Text EXCHANGE_UNAVAILABLE (fix.md §5: "the outcome is unknown") -> unknown with EXEC_HTTP_5XX,
 *   the port's code for the same answer over REST (503).
 * - No answer within requestTimeoutMs -> unknown EXEC_TIMEOUT; the connection lost with the request
 *   in flight -> unknown EXEC_DISCONNECTED. A request made while the session is down is not sent:
 *   reject with status 0 and a message starting "not sent" (the REST route's convention).
 *
 * What FIX needs that the port does not carry: 35=F needs OrigClOrdID, Side and Symbol, and 35=G
 * the order's current total. The route learns them from the reports of the orders it placed (and
 * replays on KalshiRT) and keeps one small record per live order; an order it never saw (placed by
 * another process) cannot be cancelled here ("not sent", status 0: the OMS reconciles). A replace
 * gives the order a new ClOrdID at the venue (standard FIX), so after an amend the venue's
 * client_order_id is ours, not the OMS's: reconciliation then matches by order id. decrease() is a
 * 35=G to the smaller total, or a 35=F when nothing would be left. cancelAll() is
 * OrderMassCancelRequest (KalshiNR only; AllocAccount 79 narrows it to one subaccount, our
 * extension, see the simulator's acceptor).
 *
 * Never: retries a request, logs key material, keeps order state beyond what FIX addressing needs.
 */

import type { KeyObject } from 'node:crypto';
import { assert, COUNT_INVALID, FifoMap, type BookSide, type Clock, type Count, type Price } from '../../core/index.ts';
import {
  FileSequenceStore, FixLink, FixLinkError, INT_INVALID, MemorySequenceStore, MsgType, Tag, type FixMessage, type FixSession,
  type FixSessionEvent, type SequenceStore,
} from '../../fix/index.ts';
import { ExecError, type ExecErrorCode, type ExecListener, type ExecReject, type NewOrder, type OrderEntry, type CreateKey } from '../../oms/index.ts';
import { FixRequests, Kind, type Pending } from './fix-requests.ts';

export interface FixOrderEntryOptions {
  host: string;
  port: number;
  /** TLS (the venue: TLS 1.2+ required, fix.md §1) or null for plain TCP (the local simulator). */
  tls: { ca?: string | Buffer; servername?: string; rejectUnauthorized?: boolean } | null;
  sessionName: 'KalshiNR' | 'KalshiRT';
  keyId: string;
  privateKey: KeyObject;
  clock: Clock;
  /** HeartBtInt(108), seconds, > 3 (fix.md §2). */
  heartbeatIntervalS: number;
  /** Sequence store files `<storePath>.seqnums` / `.messages` (mode 0600), e.g. var/fix/<key>-KalshiRT; null = memory. */
  storePath: string | null;
  /** 8013=Y: the venue cancels every open order of the session when it ends (fix.md §2). */
  cancelOrdersOnDisconnect: boolean;
  connectTimeoutMs: number; // TCP/TLS connect plus Logon answer
  requestTimeoutMs: number; // no answer within this: unknown EXEC_TIMEOUT
  reconnectMinMs: number; // first retry after a lost connection, doubling ...
  reconnectMaxMs: number; // ... up to this
  tickMs: number; // session heartbeats and request timeouts
  /** Orders remembered for 35=F/35=G addressing, ended ones included (oldest dropped beyond this). */
  ordersMax: number;
}

export const FIX_ORDER_ENTRY_DEFAULTS: Readonly<Omit<FixOrderEntryOptions, 'host' | 'port' | 'tls' | 'keyId' | 'privateKey' | 'clock' | 'storePath'>> =
  Object.freeze({
    sessionName: 'KalshiNR',
    heartbeatIntervalS: 30,
    cancelOrdersOnDisconnect: false,
    connectTimeoutMs: 5_000,
    requestTimeoutMs: 5_000,
    reconnectMinMs: 100,
    reconnectMaxMs: 5_000,
    tickMs: 100,
    ordersMax: 100_000,
  });

export interface FixOrderEntryStats {
  requests: number;
  notSent: number;
  acks: number;
  rejects: number;
  unknowns: number;
  timeouts: number;
  connects: number; // successful logons
  disconnects: number;
  unsolicitedReports: number; // execution reports no request of ours was waiting for
  resendRequests: number; // gaps we asked the venue to fill (KalshiRT)
  rehearsals: number; // creates and amends the keep-warm rehearsed: encoded, never sent (rehearseCreate, rehearseAmend)
}

export class FixOrderEntryConfigError extends Error {
  readonly code = 'EXEC_CONFIG_INVALID' as const;
  constructor(message: string) {
    super(message);
    this.name = 'FixOrderEntryConfigError';
  }
}

/** What FIX addressing needs about a live order. */
interface OrderRef {
  clOrdId: string;
  symbol: string;
  side: '1' | '2';
  price: number;
  cumQty: number;
  leavesQty: number;
  /** Ended (filled or cancelled): kept, bounded, so a late cancel still reaches the venue and is told "unknown order". */
  done: boolean;
}

const NO_LISTENER: ExecListener = {
  onCreateAck: notWired, onCreateReject: notWired, onCreateUnknown: notWired, onCancelAck: notWired, onCancelReject: notWired,
  onCancelUnknown: notWired, onAmendAck: notWired, onAmendReject: notWired, onDecreaseAck: notWired, onDecreaseReject: notWired,
};
function notWired(): void {
  assert(false, 'FixOrderEntry: setListener() was not called before trading');
}

export class FixOrderEntry implements OrderEntry {
  readonly stats: FixOrderEntryStats = {
    requests: 0, notSent: 0, acks: 0, rejects: 0, unknowns: 0, timeouts: 0, connects: 0, disconnects: 0, unsolicitedReports: 0, resendRequests: 0,
    rehearsals: 0,
  };
  readonly #options: FixOrderEntryOptions;
  readonly #link: FixLink;
  readonly #session: FixSession;
  readonly #store: SequenceStore;
  /** Requests in flight by ClOrdID and MsgSeqNum (fix-requests.ts: no id string on the way out). */
  readonly #requests: FixRequests;
  readonly #answered: Pending[] = [];
  readonly #orders: FifoMap<string, OrderRef>;
  #listener: ExecListener = NO_LISTENER;
  /** The order a report last showed live (rehearseAmend's order). */
  #lastLiveOrderId = '';
  #closed = false;
  #inChunk = false;

  constructor(options: FixOrderEntryOptions) {
    validate(options);
    this.#options = options;
    this.#orders = new FifoMap(options.ordersMax);
    this.#store = options.storePath === null ? new MemorySequenceStore() : new FileSequenceStore(options.storePath);
    const logonFields: [number, string][] = [[Tag.UseDollars, 'Y'], [Tag.SkipPendingExecReports, 'Y']];
    if (options.cancelOrdersOnDisconnect) logonFields.push([Tag.CancelOrdersOnDisconnect, 'Y']);
    this.#link = new FixLink({
      host: options.host, port: options.port, tls: options.tls, clock: options.clock, connectTimeoutMs: options.connectTimeoutMs,
      reconnectMinMs: options.reconnectMinMs, reconnectMaxMs: options.reconnectMaxMs, tickMs: options.tickMs,
      session: {
        role: 'initiator', sessionName: options.sessionName, keyId: options.keyId, privateKey: options.privateKey,
        heartbeatIntervalS: options.heartbeatIntervalS, store: this.#store, clock: options.clock, logonFields,
        handshakeTimeoutMs: options.connectTimeoutMs,
      },
    }, {
      onMessage: (message) => this.#onMessage(message),
      onEvent: (event) => this.#onEvent(event),
      receive: (chunk, session) => {
        // Reports of one read chunk are folded before the acks go out (see the file comment).
        this.#inChunk = true;
        try {
          session.receive(chunk);
        } finally {
          this.#inChunk = false;
          this.#flushAnswered();
        }
      },
      onTick: (nowMs) => this.#expire(nowMs),
    });
    this.#session = this.#link.session;
    // ClOrdIDs of our cancels and replaces: unique per process start (random prefix) and per request (a counter).
    this.#requests = new FixRequests(`fx${options.clock.nowMs().toString(36)}${Math.floor(Math.random() * 36 ** 4).toString(36)}-`);
  }

  get sessionState(): string {
    return this.#session.state;
  }

  /** The MsgSeqNum the next message on the session takes (status, tests). */
  get nextOutgoing(): number {
    return this.#session.nextOutgoing;
  }

  setListener(listener: ExecListener): void {
    this.#listener = listener;
  }

  /** Connects and logs on; resolves once active. Rejects with ExecError (refused logon, timeout, no route). */
  async connect(): Promise<void> {
    assert(!this.#closed, 'FixOrderEntry.connect after close');
    try {
      await this.#link.connect();
    } catch (error) {
      if (error instanceof FixLinkError) throw new ExecError(error.code === 'FIX_LOGON_REFUSED' ? 'EXEC_REJECTED' : 'EXEC_DISCONNECTED', error.message);
      throw error;
    }
  }

  /** Logs out, stops reconnecting and closes the store: requests in flight end as unknown (EXEC_DISCONNECTED). */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    await this.#link.close();
    this.#failAll('EXEC_DISCONNECTED');
    this.#store.close();
  }

  // ---- hot path ----

  create(order: Readonly<NewOrder>): void {
    if (!this.#ready()) return this.#notSent(Kind.CREATE, (order.handle ?? 0) > 0 ? '' : order.clientOrderId, order.handle ?? 0);
    const requests = this.#requests;
    const pending = requests.take(Kind.CREATE);
    const idEnd = requests.createId(pending, order);
    // By handle: the id's bytes, its string never made; otherwise the text the record kept.
    this.#encodeCreate(order, idEnd, pending.clOrdIdText);
    this.#track(pending, this.#session.send());
  }

  /**
   * The keep-warm's rehearsal of create() on this route's own state: the NewOrderSingle encoded
   * in the session's buffer as create() encodes it (the session's next MsgSeqNum, the id written
   * as the order's bytes) and handed to the transport's rehearsal, then dropped: nothing is sent,
   * numbered, counted or tracked, and no request record is taken. A strategy on route 'fix' then
   * finds this code and these buffers warm. Returns the message's length, or -1 when the session
   * is not logged on.
   */
  rehearseCreate(order: Readonly<NewOrder>): number {
    if (this.#closed || this.#session.state !== 'active') return -1;
    const idEnd = this.#requests.rehearseCreateId(order);
    this.#encodeCreate(order, idEnd, idEnd > 0 ? '' : order.clientOrderId);
    this.stats.rehearsals++;
    return this.#session.rehearseSend();
  }

  /**
   * The keep-warm's rehearsal of amend(): an OrderCancelReplaceRequest for this session's live order
   * noted last (its OrderID and ClOrdID; the price and size the caller's), our next ClOrdID written
   * without taking it, encoded and dropped as rehearseCreate does. Returns its length, or -1 when
   * the session is not logged on or no live order is known.
   */
  rehearseAmend(ticker: string, side: BookSide, price: Price, count: Count, subaccount: number): number {
    if (this.#closed || this.#session.state !== 'active') return -1;
    const orderId = this.#lastLiveOrderId;
    const ref = orderId === '' ? undefined : this.#orders.get(orderId);
    if (ref === undefined || ref.done) return -1;
    this.#encodeReplace(this.#requests.rehearseOwnId(), orderId, ref.clOrdId, ticker, side === 'bid' ? '1' : '2', price, count, subaccount);
    this.stats.rehearsals++;
    return this.#session.rehearseSend();
  }

  /** Begins a NewOrderSingle for `order` on the session: ClOrdID the scratch's bytes [0, idEnd), or `idText` when idEnd is -1. */
  #encodeCreate(order: Readonly<NewOrder>, idEnd: number, idText: string): void {
    const encoder = this.#session.begin(MsgType.NewOrderSingle);
    if (idEnd > 0) encoder.bytes(Tag.ClOrdID, this.#requests.scratch, 0, idEnd);
    else encoder.string(Tag.ClOrdID, idText);
    encoder.string(Tag.Symbol, order.ticker).string(Tag.Side, order.side === 'bid' ? '1' : '2')
      .count(Tag.OrderQty, order.count, 2).string(Tag.OrdType, '2').price(Tag.Price, order.price);
    if (order.timeInForce === 'good_till_canceled') {
      if (order.expirationTs > 0) encoder.string(Tag.TimeInForce, '6').timestamp(Tag.ExpireTime, order.expirationTs * 1000);
      else encoder.string(Tag.TimeInForce, '1');
    } else {
      encoder.string(Tag.TimeInForce, order.timeInForce === 'immediate_or_cancel' ? '3' : '4');
    }
    if (order.postOnly) encoder.string(Tag.ExecInst, order.reduceOnly ? '6 E' : '6');
    else if (order.reduceOnly) encoder.string(Tag.ExecInst, 'E');
    encoder.int(Tag.ExDestination, -1);
    if (order.subaccount !== 0) encoder.int(Tag.AllocAccount, order.subaccount);
    if (order.orderGroupId !== null) encoder.string(Tag.SecondaryClOrdID, order.orderGroupId);
    encoder.string(Tag.SelfTradePreventionType, order.selfTradePrevention === 'maker' ? '2' : '1');
  }

  cancel(orderId: string, subaccount: number): void {
    this.#sendCancel(Kind.CANCEL, orderId, subaccount);
  }

  amend(orderId: string, ticker: string, side: BookSide, price: Price, count: Count, subaccount: number): void {
    if (!this.#ready()) return this.#notSent(Kind.AMEND, orderId);
    const ref = this.#orders.get(orderId);
    this.#sendReplace(Kind.AMEND, orderId, ref?.clOrdId ?? orderId, ticker, side === 'bid' ? '1' : '2', price, count, subaccount);
  }

  decrease(orderId: string, reduceBy: Count, subaccount: number): void {
    if (!this.#ready()) return this.#notSent(Kind.DECREASE, orderId);
    const ref = this.#orders.get(orderId);
    if (ref === undefined) return this.#notSent(Kind.DECREASE, orderId, 0, 'not sent: order unknown to this FIX session (35=G needs its total)');
    // OrderQty on 35=G is the new total (CumQty + LeavesQty), which fills never change.
    const total = ref.cumQty + ref.leavesQty - reduceBy;
    if (total <= ref.cumQty) return this.#sendCancel(Kind.DECREASE, orderId, subaccount);
    this.#sendReplace(Kind.DECREASE, orderId, ref.clOrdId, ref.symbol, ref.side, ref.price, total, subaccount);
  }

  /** Kill switch: OrderMassCancelRequest (KalshiNR only); resolves on OrderMassCancelReport 531=6. */
  cancelAll(subaccount: number | null): Promise<void> {
    if (this.#options.sessionName !== 'KalshiNR') {
      return Promise.reject(new ExecError('EXEC_REJECTED', 'cancelAll: OrderMassCancelRequest (35=q) exists on KalshiNR only'));
    }
    if (!this.#ready()) return Promise.reject(new ExecError('EXEC_DISCONNECTED', 'cancelAll: not sent, FIX session not logged on'));
    const pending = this.#requests.take(Kind.MASS_CANCEL);
    const encoder = this.#session.begin(MsgType.OrderMassCancelRequest).bytes(Tag.ClOrdID, this.#requests.scratch, 0, this.#requests.ownId(pending))
      .string(Tag.MassCancelRequestType, '6');
    if (subaccount !== null) encoder.int(Tag.AllocAccount, subaccount);
    this.#track(pending, this.#session.send());
    return new Promise<void>((resolve, reject) => {
      pending.resolve = resolve;
      pending.reject = reject;
    });
  }

  #sendCancel(kind: Kind, orderId: string, subaccount: number): void {
    if (!this.#ready()) return this.#notSent(kind, orderId);
    const ref = this.#orders.get(orderId);
    if (ref === undefined) return this.#notSent(kind, orderId, 0, 'not sent: order unknown to this FIX session (35=F needs its Symbol and Side)');
    const pending = this.#requests.take(kind);
    pending.key = orderId;
    const encoder = this.#session.begin(MsgType.OrderCancelRequest).bytes(Tag.ClOrdID, this.#requests.scratch, 0, this.#requests.ownId(pending))
      .string(Tag.OrigClOrdID, ref.clOrdId).string(Tag.OrderID, orderId).string(Tag.Side, ref.side).string(Tag.Symbol, ref.symbol);
    if (subaccount !== 0) encoder.int(Tag.AllocAccount, subaccount);
    this.#track(pending, this.#session.send());
    pending.reducedBy = ref.leavesQty;
  }

  #sendReplace(kind: Kind, orderId: string, origClOrdId: string, symbol: string, side: '1' | '2', price: number, total: number, subaccount: number): void {
    const pending = this.#requests.take(kind);
    pending.key = orderId;
    this.#encodeReplace(this.#requests.ownId(pending), orderId, origClOrdId, symbol, side, price, total, subaccount);
    this.#track(pending, this.#session.send());
  }

  /** Begins an OrderCancelReplaceRequest on the session, its ClOrdID the scratch's bytes [0, idEnd). */
  #encodeReplace(idEnd: number, orderId: string, origClOrdId: string, symbol: string, side: '1' | '2', price: number, total: number, subaccount: number): void {
    const encoder = this.#session.begin(MsgType.OrderCancelReplaceRequest).bytes(Tag.ClOrdID, this.#requests.scratch, 0, idEnd)
      .string(Tag.OrigClOrdID, origClOrdId).string(Tag.OrderID, orderId).count(Tag.OrderQty, total, 2).string(Tag.OrdType, '2').price(Tag.Price, price)
      .string(Tag.Side, side).string(Tag.Symbol, symbol);
    if (subaccount !== 0) encoder.int(Tag.AllocAccount, subaccount);
  }

  /**
   * False after close() too: the stop path's failed requests reach the OMS, which may answer one
   * with a cancel; that cancel is a not-sent reject like any other, not a crash mid-stop.
   */
  #ready(): boolean {
    return !this.#closed && this.#session.state === 'active';
  }

  #track(pending: Pending, seq: number): void {
    this.#requests.track(pending, seq, this.#session.lastSentMs); // the message's SendingTime, just written
    this.stats.requests++;
  }

  #notSent(kind: Kind, key: string, handle = 0, message = this.#closed ? 'not sent: order entry closed' : 'not sent: FIX session not logged on'): void {
    this.stats.notSent++;
    const reject: ExecReject = { status: 0, code: 'EXEC_DISCONNECTED', message, details: '' };
    const listener = this.#listener;
    switch (kind) {
      case Kind.CREATE: return listener.onCreateReject(handle > 0 ? handle : key, reject);
      case Kind.CANCEL: return listener.onCancelReject(key, reject);
      case Kind.AMEND: return listener.onAmendReject(key, reject);
      case Kind.DECREASE: return listener.onDecreaseReject(key, reject);
      default: return;
    }
  }

  // ---- inbound ----

  #onMessage(message: FixMessage): void {
    switch (message.msgType()) {
      case MsgType.ExecutionReport: return this.#onExecutionReport(message);
      case MsgType.OrderCancelReject: return this.#onCancelReject(message);
      case MsgType.BusinessMessageReject: return this.#onBusinessReject(message);
      case MsgType.OrderMassCancelReport: return this.#onMassCancelReport(message);
      default: return; // OrderGroupResponse and others: not this port's business
    }
  }

  #onExecutionReport(message: FixMessage): void {
    const clOrdId = message.getString(Tag.ClOrdID) ?? '';
    const orderId = message.getString(Tag.OrderID) ?? 'NONE';
    const execType = message.getString(Tag.ExecType) ?? '';
    const cumQty = message.getCount(Tag.CumQty);
    const leavesQty = message.getCount(Tag.LeavesQty);
    const tsMs = message.getTimestamp(Tag.TransactTime);
    const previousLeaves = this.#orders.get(orderId)?.leavesQty ?? 0;
    if (orderId !== 'NONE' && execType !== '8') this.#noteOrder(orderId, clOrdId, message, cumQty, leavesQty);
    if (execType === 'A' || execType === '6' || execType === 'E') return; // pending reports (21011=Y asks for none)
    const pending = this.#requests.byClOrdId(message);
    if (pending === undefined || pending.kind === Kind.MASS_CANCEL) {
      this.stats.unsolicitedReports++;
      return;
    }
    if (execType === '8') return this.#rejected(pending, message, false);
    if (cumQty === INT_INVALID || leavesQty === INT_INVALID) return this.#unknown(pending, 'EXEC_BAD_RESPONSE');
    if (!pending.answered) {
      pending.answered = true;
      pending.orderId = orderId;
      if ((pending.kind === Kind.CANCEL || pending.kind === Kind.DECREASE) && execType === '4' && previousLeaves > 0) pending.reducedBy = previousLeaves;
      this.#answered.push(pending);
    }
    pending.cumQty = cumQty;
    pending.leavesQty = leavesQty;
    pending.tsMs = tsMs < 0 ? this.#options.clock.nowMs() : tsMs;
    if (!this.#inChunk) this.#flushAnswered();
  }

  /** Keeps what 35=F/35=G need about an order (ended ones marked done, kept within ordersMax). */
  #noteOrder(orderId: string, clOrdId: string, message: FixMessage, cumQty: number, leavesQty: number): void {
    const status = message.getString(Tag.OrdStatus);
    const done = leavesQty === 0 && (status === '2' || status === '4' || status === 'C' || status === '8');
    let ref = this.#orders.get(orderId);
    if (ref === undefined) {
      const side = message.valueEquals(Tag.Side, '2') ? '2' : '1';
      ref = { clOrdId, symbol: message.getString(Tag.Symbol) ?? '', side, price: 0, cumQty: 0, leavesQty: 0, done: false };
      this.#orders.set(orderId, ref); // the oldest order evicted beyond ordersMax
    }
    if (clOrdId !== '') ref.clOrdId = clOrdId;
    const price = message.getPrice(Tag.Price);
    if (price !== INT_INVALID) ref.price = price;
    if (cumQty !== INT_INVALID) ref.cumQty = cumQty;
    if (leavesQty !== INT_INVALID) ref.leavesQty = leavesQty;
    if (done) ref.done = true;
    else this.#lastLiveOrderId = orderId;
  }

  #onCancelReject(message: FixMessage): void {
    const pending = this.#requests.byClOrdId(message);
    if (pending === undefined) return;
    this.#rejected(pending, message, true);
  }

  #onBusinessReject(message: FixMessage): void {
    const refId = message.getString(Tag.BusinessRejectRefID);
    const pending = (refId !== null ? this.#requests.byClOrdIdText(refId) : undefined) ?? this.#requests.bySeq(message.getInt(Tag.RefSeqNum));
    if (pending === undefined) return;
    const reason = message.getInt(Tag.BusinessRejectReason);
    const text = message.getString(Tag.Text) ?? '';
    const reject: ExecReject = reason === 8
      ? { status: 429, code: 'EXEC_RATE_LIMITED', message: text, details: '380=8' }
      : { status: 400, code: text !== '' ? text.toLowerCase() : 'EXEC_REJECTED', message: text, details: `380=${reason}` };
    this.#reject(pending, reject);
  }

  #onMassCancelReport(message: FixMessage): void {
    const pending = this.#requests.byClOrdId(message);
    if (pending === undefined || pending.kind !== Kind.MASS_CANCEL) return;
    const resolve = pending.resolve;
    const reject = pending.reject;
    const ok = message.valueEquals(Tag.MassCancelResponse, '6');
    const text = message.getString(Tag.Text) ?? '';
    this.#requests.release(pending);
    if (ok) {
      this.stats.acks++;
      resolve?.();
    } else {
      this.stats.rejects++;
      reject?.(new ExecError('EXEC_REJECTED', `OrderMassCancelRequest rejected: ${text}`, 400,
        { status: 400, code: 'mass_cancel_rejected', message: text, details: `532=${message.getString(Tag.MassCancelRejectReason) ?? ''}` }));
    }
  }

  /** An ExecutionReport 150=8 or an OrderCancelReject about `pending`. */
  #rejected(pending: Pending, message: FixMessage, cancelReject: boolean): void {
    const text = message.getString(Tag.Text) ?? '';
    if (text === 'EXCHANGE_UNAVAILABLE') return this.#unknown(pending, 'EXEC_HTTP_5XX'); // fix.md §5: outcome unknown
    const reason = message.getInt(cancelReject ? Tag.CxlRejReason : Tag.OrdRejReason);
    let status = 400;
    let code = text !== '' ? text.toLowerCase() : 'EXEC_REJECTED';
    if (text === 'ORDER_ALREADY_EXISTS') {
      status = 409;
      code = 'order_already_exists';
    } else if (cancelReject && (reason === 0 || reason === 1)) {
      status = 404; // too late to cancel, or unknown order: the order is gone
      code = 'not_found';
    } else if (text === 'MARKET_NOT_FOUND') {
      status = 404;
    }
    this.#reject(pending, { status, code, message: text, details: `${cancelReject ? '102' : '103'}=${reason === INT_INVALID ? '' : reason}` });
  }

  #reject(pending: Pending, reject: ExecReject): void {
    const kind = pending.kind;
    const key = pending.key;
    const createKey: CreateKey = pending.handle > 0 ? pending.handle : key; // a create by handle is answered by it
    const promiseReject = pending.reject;
    this.#dropAnswered(pending);
    this.#requests.release(pending);
    this.stats.rejects++;
    const listener = this.#listener;
    switch (kind) {
      case Kind.CREATE: return listener.onCreateReject(createKey, reject);
      case Kind.CANCEL: return listener.onCancelReject(key, reject);
      case Kind.AMEND: return listener.onAmendReject(key, reject);
      case Kind.DECREASE: return listener.onDecreaseReject(key, reject);
      case Kind.MASS_CANCEL:
        promiseReject?.(new ExecError(reject.status === 429 ? 'EXEC_RATE_LIMITED' : 'EXEC_REJECTED', `cancelAll rejected: ${reject.message}`, reject.status, reject));
        return;
    }
  }

  #unknown(pending: Pending, code: ExecErrorCode): void {
    const kind = pending.kind;
    const key = pending.key;
    const createKey: CreateKey = pending.handle > 0 ? pending.handle : key; // a create by handle is answered by it
    const promiseReject = pending.reject;
    this.#dropAnswered(pending);
    this.#requests.release(pending);
    this.stats.unknowns++;
    const listener = this.#listener;
    switch (kind) {
      case Kind.CREATE: return listener.onCreateUnknown(createKey, code);
      case Kind.CANCEL: return listener.onCancelUnknown(key, code);
      case Kind.AMEND:
        if (listener.onAmendUnknown !== undefined) return listener.onAmendUnknown(key, code);
        return listener.onAmendReject(key, { status: 0, code, message: 'fate unknown: reconcile', details: '' });
      case Kind.DECREASE:
        if (listener.onDecreaseUnknown !== undefined) return listener.onDecreaseUnknown(key, code);
        return listener.onDecreaseReject(key, { status: 0, code, message: 'fate unknown: reconcile', details: '' });
      case Kind.MASS_CANCEL:
        promiseReject?.(new ExecError(code, 'cancelAll: outcome unknown'));
        return;
    }
  }

  #dropAnswered(pending: Pending): void {
    const at = this.#answered.indexOf(pending);
    if (at !== -1) this.#answered.splice(at, 1);
  }

  /** Acks of the reports of one read chunk, each with the last state its reports gave. */
  #flushAnswered(): void {
    const answered = this.#answered;
    if (answered.length === 0) return;
    const listener = this.#listener;
    listener.answersBegin?.();
    try {
      while (answered.length > 0) {
        const pending = answered.shift() as Pending;
        const { kind, key, handle, orderId, cumQty, leavesQty, reducedBy, tsMs } = pending;
        this.#requests.release(pending);
        this.stats.acks++;
        switch (kind) {
          case Kind.CREATE: listener.onCreateAck(handle > 0 ? handle : key, orderId, cumQty as Count, leavesQty as Count, tsMs); break;
          case Kind.CANCEL: listener.onCancelAck(key, reducedBy as Count, tsMs); break;
          case Kind.AMEND: listener.onAmendAck(key, cumQty as Count, leavesQty as Count, tsMs); break;
          case Kind.DECREASE: listener.onDecreaseAck(key, (leavesQty === INT_INVALID ? COUNT_INVALID : leavesQty) as Count, tsMs); break;
          default: break;
        }
      }
    } finally {
      listener.answersEnd?.(); // the read chunk's acks are applied: the OMS tells the strategies (ExecListener)
    }
  }

  #onEvent(event: FixSessionEvent): void {
    switch (event.type) {
      case 'logon':
        this.stats.connects++; // FixLink resolves connect() and resets its backoff
        return;
      case 'reject-received': {
        const pending = this.#requests.bySeq(event.seq);
        if (pending !== undefined) this.#reject(pending, { status: 400, code: 'EXEC_REJECTED', message: event.text, details: '35=3' });
        return;
      }
      case 'closed':
        this.stats.disconnects++; // FixLink reconnects after the first logon
        this.#failAll('EXEC_DISCONNECTED');
        return;
      case 'resend-requested':
        this.stats.resendRequests++;
        return;
      default:
        return;
    }
  }

  /** Every request in flight: fate unknown (the connection went away with them). */
  #failAll(code: ExecErrorCode): void {
    this.#flushAnswered(); // answers already read are acks, not unknowns
    for (const pending of this.#requests.all()) this.#unknown(pending, code);
  }

  /** Requests with no answer within requestTimeoutMs: fate unknown (FixLink's tick calls this). */
  #expire(now: number): void {
    const limit = this.#options.requestTimeoutMs;
    if (this.#requests.inFlight === 0) return;
    for (const pending of this.#requests.all()) {
      if (now - pending.sentMs < limit || pending.answered) continue;
      this.stats.timeouts++;
      this.#unknown(pending, 'EXEC_TIMEOUT');
    }
  }
}

function validate(options: FixOrderEntryOptions): void {
  const problems: string[] = [];
  if (options.host === '') problems.push('host must not be empty');
  if (!(Number.isInteger(options.port) && options.port > 0 && options.port < 65_536)) problems.push('port must be 1-65535');
  if (options.sessionName !== 'KalshiNR' && options.sessionName !== 'KalshiRT') problems.push("sessionName must be 'KalshiNR' or 'KalshiRT'");
  if (!/^[\x21-\x7e]+$/.test(options.keyId)) problems.push('keyId must be visible ASCII');
  if (options.privateKey.type !== 'private') problems.push('privateKey must be a private KeyObject');
  if (!(Number.isInteger(options.heartbeatIntervalS) && options.heartbeatIntervalS > 3)) problems.push('heartbeatIntervalS must be an integer > 3');
  for (const [name, value] of [['connectTimeoutMs', options.connectTimeoutMs], ['requestTimeoutMs', options.requestTimeoutMs],
    ['reconnectMinMs', options.reconnectMinMs], ['reconnectMaxMs', options.reconnectMaxMs], ['tickMs', options.tickMs], ['ordersMax', options.ordersMax]] as const) {
    if (!(Number.isInteger(value) && value > 0)) problems.push(`${name} must be a positive integer`);
  }
  if (options.reconnectMaxMs < options.reconnectMinMs) problems.push('reconnectMaxMs must be >= reconnectMinMs');
  if (problems.length > 0) throw new FixOrderEntryConfigError(`FixOrderEntry options: ${problems.join('; ')}`);
}
