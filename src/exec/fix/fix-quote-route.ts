/**
 * The quote route over the venue's KalshiRFQ session (shared/spec/fix.md §7), behind the quote
 * book's port (src/oms/quote-route.ts), and the session's RFQ feed: the maker's side of the RFQ
 * flow in FIX. One FixLink (reconnecting initiator, 141=Y at every logon, 21005=Y dollar prices).
 *
 *   out  Quote (35=S)          create: 117 our QuoteID, 131 the RFQ, 55, 132 YES / 133 NO, 18=6 post-only, 79, 21015
 *        QuoteCancel (35=Z)    cancel: 117 the venue's quote id, 21023 the RFQ, 79
 *        QuoteConfirm (35=U7)  confirm: 117, 21023
 *   in   QuoteRequest (35=R)        -> RFQ created (onRfq): 131 id, 55, 38 contracts or 152 cash, 448 the requester's public id
 *        QuoteRequestReject (35=AG) -> RFQ closed (onRfq deleted)
 *        QuoteStatusReport (35=AI)  PENDING -> create ack (117 the venue's id), REJECTED -> create reject (58),
 *                                   ACCEPTED -> quote accepted (onQuote, 54 the side taken), CANCELLED -> nothing
 *                                   (the cancel's own answer is U9; an RFQ close comes as AG)
 *        QuoteCancelStatus (35=U9)  298 0 -> cancel ack, 1 -> cancel reject (58)
 *        QuoteConfirmStatus (35=U8) 21010 0 -> confirm ack, 1 -> confirm reject (58)
 *        ExecutionReport (35=8)     11 = our QuoteID: the quote executed (onQuote executed, once); the
 *                                   fills themselves reach the OMS on the `fill` channel like any other
 *        BusinessMessageReject (35=j), Reject (35=3) about a request -> its reject (380=8: rate limited, 429)
 *
 * A rejected AI carries no QuoteID (fix.md: "117 empty if rejected"), so creates are matched to
 * their answers by RFQ in send order (one session answers in order). No answer within
 * requestTimeoutMs, or the connection lost first: a create's fate is unknown (the quote book
 * reconciles from the REST list, as FIX has none), a cancel or confirm is rejected with status 0.
 * A request while the session is down is not sent (reject, status 0), told a microtask later so
 * the quote book never hears of a quote inside its own call.
 */

import type { KeyObject } from 'node:crypto';
import { CENTICENTS_INVALID, COUNT_INVALID, FifoMap, type Clock, type Count } from '../../core/index.ts';
import { FixGroup, FixLink, INT_INVALID, MemorySequenceStore, MsgType, Tag, type FixEncoder, type FixMessage, type FixSessionEvent } from '../../fix/index.ts';
import type { ExecErrorCode, QuoteEntry, QuoteListener, QuoteMessageInput, QuoteRequest, RfqInput, WireQuote } from '../../oms/index.ts';

export interface FixQuoteRouteOptions {
  host: string;
  port: number;
  tls: { ca?: string | Buffer; servername?: string; rejectUnauthorized?: boolean } | null;
  keyId: string;
  privateKey: KeyObject;
  clock: Clock;
  heartbeatIntervalS: number;
  connectTimeoutMs: number;
  requestTimeoutMs: number;
  reconnectMinMs: number;
  reconnectMaxMs: number;
  tickMs: number;
  /** 21015=Y on every quote: the venue keeps an executed quote's remainder resting for us. */
  restRemainder: boolean;
  /** FIX has no quote list: reconciliation reads GET /communications/quotes. */
  reads: { listQuotes(): Promise<WireQuote[]> };
}

export const FIX_QUOTE_ROUTE_DEFAULTS: Readonly<Omit<FixQuoteRouteOptions, 'host' | 'port' | 'tls' | 'keyId' | 'privateKey' | 'clock' | 'reads'>> =
  Object.freeze({
    heartbeatIntervalS: 30,
    connectTimeoutMs: 5_000,
    requestTimeoutMs: 5_000,
    reconnectMinMs: 100,
    reconnectMaxMs: 5_000,
    tickMs: 100,
    restRemainder: false,
  });

/** Where RFQ and quote events of the session go (the runtime's feed listener: the quote book, then the strategies). */
export interface RfqEventListener {
  onRfq(record: RfqInput): void;
  onQuote(record: QuoteMessageInput): void;
}

export interface FixQuoteRouteStats {
  quotesSent: number;
  cancelsSent: number;
  confirmsSent: number;
  notSent: number;
  rfqs: number;
  timeouts: number;
  unmatched: number; // answers no request of ours was waiting for
}

const enum Kind { CREATE, CANCEL, CONFIRM }

/** One request in flight. */
interface Pending {
  kind: Kind;
  handle: number;
  rfqId: string;
  /** CREATE: our QuoteID; CANCEL / CONFIRM: the venue's quote id. */
  quoteId: string;
  seq: number;
  sentMs: number;
}

/** QuoteStatus(297), fix.md §7. */
const QUOTE_STATUS_ACCEPTED = 0;
const QUOTE_STATUS_REJECTED = 5;
const QUOTE_STATUS_PENDING = 10;
/** Our QuoteIDs remembered to match execution reports (11) to quotes; oldest dropped beyond it. */
const QUOTES_REMEMBERED_MAX = 10_000;
const PARTY_MEMBERS: ReadonlySet<number> = new Set([Tag.PartyID, 447, Tag.PartyRole]);

const NO_LISTENER: QuoteListener = {
  onQuoteCreateAck() {}, onQuoteCreateReject() {}, onQuoteCreateUnknown() {}, onQuoteCancelAck() {},
  onQuoteCancelReject() {}, onQuoteConfirmAck() {}, onQuoteConfirmReject() {},
};
const NO_RFQ_LISTENER: RfqEventListener = { onRfq() {}, onQuote() {} };

/** The quote a QuoteID of ours stands for (execution reports name it in ClOrdID). */
interface Sent {
  handle: number;
  rfqId: string;
  subaccount: number;
  venueId: string;
  executed: boolean;
}

/** The RFQ a QuoteRequest (35=R) to a maker announces, or null without its id or symbol (the route's, and the keep-warm rehearsal's). */
export function readQuoteRequest(message: FixMessage, group: FixGroup): RfqInput | null {
  const id = message.getString(Tag.QuoteReqID);
  const ticker = message.getString(Tag.Symbol);
  if (id === null || ticker === null) return null;
  const cash = message.getDollars(Tag.CashOrderQty);
  const contracts = message.getCount(Tag.OrderQty);
  let creatorId = '';
  if (message.readGroup(Tag.NoPartyIDs, Tag.PartyID, group, PARTY_MEMBERS) > 0) creatorId = message.stringAt(group.start(0)) ?? '';
  return {
    eventType: 'created', id, creatorId, marketTicker: ticker, eventTicker: '',
    contracts: (cash !== INT_INVALID ? 0 : contracts === INT_INVALID ? COUNT_INVALID : contracts) as Count,
    targetCost: cash !== INT_INVALID ? cash : CENTICENTS_INVALID, tsMs: message.getTimestamp(Tag.SendingTime),
  };
}

/** The body of a Quote (35=S) for `quote` under our QuoteID (the route's, and the keep-warm rehearsal's). */
export function writeQuoteBody(encoder: FixEncoder, quote: QuoteRequest, quoteId: string, restRemainder: boolean): FixEncoder {
  encoder.string(Tag.QuoteID, quoteId).string(Tag.QuoteReqID, quote.rfqId).string(Tag.Symbol, quote.ticker);
  if (quote.yesBid !== 0) encoder.price(Tag.BidPx, quote.yesBid);
  if (quote.noBid !== 0) encoder.price(Tag.OfferPx, quote.noBid);
  if (quote.postOnly) encoder.string(Tag.ExecInst, '6');
  if (quote.subaccount !== 0) encoder.int(Tag.AllocAccount, quote.subaccount);
  if (restRemainder) encoder.flag(Tag.RestRemainder, true);
  return encoder;
}

export class FixQuoteRoute implements QuoteEntry {
  readonly stats: FixQuoteRouteStats = { quotesSent: 0, cancelsSent: 0, confirmsSent: 0, notSent: 0, rfqs: 0, timeouts: 0, unmatched: 0 };
  readonly #options: FixQuoteRouteOptions;
  readonly #link: FixLink;
  #listener: QuoteListener = NO_LISTENER;
  #rfqListener: RfqEventListener = NO_RFQ_LISTENER;
  /** Creates waiting for their AI, per RFQ in send order. */
  readonly #creates = new Map<string, Pending[]>();
  /** Cancels and confirms waiting, by the venue's quote id. */
  readonly #byQuote = new Map<string, Pending>();
  readonly #bySeq = new Map<number, Pending>();
  readonly #sent = new FifoMap<string, Sent>(QUOTES_REMEMBERED_MAX);
  readonly #group = new FixGroup(8);
  readonly #idPrefix: string;
  #idCounter = 0;

  constructor(options: FixQuoteRouteOptions) {
    this.#options = options;
    this.#link = new FixLink({
      host: options.host, port: options.port, tls: options.tls, clock: options.clock, connectTimeoutMs: options.connectTimeoutMs,
      reconnectMinMs: options.reconnectMinMs, reconnectMaxMs: options.reconnectMaxMs, tickMs: options.tickMs,
      session: {
        role: 'initiator', sessionName: 'KalshiRFQ', keyId: options.keyId, privateKey: options.privateKey,
        heartbeatIntervalS: options.heartbeatIntervalS, clock: options.clock, handshakeTimeoutMs: options.connectTimeoutMs,
        store: new MemorySequenceStore(), resetSeqNum: true, // KalshiRFQ: 141=Y at every logon, nothing kept across connections
        logonFields: [[Tag.UseDollars, 'Y']],
      },
    }, {
      onMessage: (message) => this.#onMessage(message),
      onEvent: (event) => this.#onEvent(event),
      onTick: (nowMs) => this.#expire(nowMs),
    });
    // Our QuoteIDs: unique per process start (time and random prefix) and per quote.
    this.#idPrefix = `fq${options.clock.nowMs().toString(36)}${Math.floor(Math.random() * 36 ** 4).toString(36)}-`;
  }

  get sessionState(): string {
    return this.#link.state;
  }

  setListener(listener: QuoteListener): void {
    this.#listener = listener;
  }

  setRfqListener(listener: RfqEventListener | null): void {
    this.#rfqListener = listener ?? NO_RFQ_LISTENER;
  }

  /** Connects and logs on; rejects when the logon is refused or the connection fails first. */
  connect(): Promise<void> {
    return this.#link.connect();
  }

  /** Logs out and stops reconnecting; requests in flight end as unknown (creates) or rejected. */
  async close(): Promise<void> {
    await this.#link.close();
    this.#failAll('EXEC_DISCONNECTED');
  }

  /** Drops the connection (it comes back with backoff); for fault drills and tests. */
  drop(): void {
    this.#link.drop();
  }

  create(quote: QuoteRequest): void {
    const handle = quote.handle;
    if (!this.#active()) return this.#notSent(() => this.#listener.onQuoteCreateReject(handle, 'EXEC_DISCONNECTED', 0));
    const quoteId = this.#idPrefix + (++this.#idCounter).toString(36);
    writeQuoteBody(this.#link.session.begin(MsgType.Quote), quote, quoteId, this.#options.restRemainder);
    const pending = this.#track(Kind.CREATE, handle, quote.rfqId, quoteId, this.#link.session.send());
    let queue = this.#creates.get(quote.rfqId);
    if (queue === undefined) {
      queue = [];
      this.#creates.set(quote.rfqId, queue);
    }
    queue.push(pending);
    this.#sent.set(quoteId, { handle, rfqId: quote.rfqId, subaccount: quote.subaccount, venueId: '', executed: false });
    this.stats.quotesSent++;
  }

  cancel(quote: QuoteRequest): void {
    const handle = quote.handle;
    if (!this.#active() || quote.quoteId === '') {
      return this.#notSent(() => this.#listener.onQuoteCancelReject(handle, quote.quoteId === '' ? 'EXEC_REJECTED' : 'EXEC_DISCONNECTED', 0));
    }
    const encoder = this.#link.session.begin(MsgType.QuoteCancel).string(Tag.QuoteID, quote.quoteId).string(Tag.RfqId, quote.rfqId);
    if (quote.subaccount !== 0) encoder.int(Tag.AllocAccount, quote.subaccount);
    this.#byQuote.set(quote.quoteId, this.#track(Kind.CANCEL, handle, quote.rfqId, quote.quoteId, this.#link.session.send()));
    this.stats.cancelsSent++;
  }

  confirm(quote: QuoteRequest): void {
    const handle = quote.handle;
    if (!this.#active() || quote.quoteId === '') {
      return this.#notSent(() => this.#listener.onQuoteConfirmReject(handle, quote.quoteId === '' ? 'EXEC_REJECTED' : 'EXEC_DISCONNECTED', 0));
    }
    this.#link.session.begin(MsgType.QuoteConfirm).string(Tag.QuoteID, quote.quoteId).string(Tag.RfqId, quote.rfqId);
    this.#byQuote.set(quote.quoteId, this.#track(Kind.CONFIRM, handle, quote.rfqId, quote.quoteId, this.#link.session.send()));
    this.stats.confirmsSent++;
  }

  listQuotes(): Promise<WireQuote[]> {
    return this.#options.reads.listQuotes();
  }

  // ---- inbound ----

  #onMessage(message: FixMessage): void {
    switch (message.msgType()) {
      case MsgType.QuoteRequest: return this.#onQuoteRequest(message);
      case MsgType.QuoteRequestReject: return this.#onRfqClosed(message);
      case MsgType.QuoteStatusReport: return this.#onQuoteStatus(message);
      case MsgType.QuoteCancelStatus: return this.#onCancelStatus(message);
      case MsgType.QuoteConfirmStatus: return this.#onConfirmStatus(message);
      case MsgType.ExecutionReport: return this.#onExecution(message);
      case MsgType.BusinessMessageReject: return this.#onBusinessReject(message);
      default: return;
    }
  }

  #onQuoteRequest(message: FixMessage): void {
    const rfq = readQuoteRequest(message, this.#group);
    if (rfq === null) return;
    this.stats.rfqs++;
    this.#rfqListener.onRfq(rfq);
  }

  #onRfqClosed(message: FixMessage): void {
    const id = message.getString(Tag.QuoteReqID);
    if (id === null) return;
    // A create still waiting on a closed RFQ gets its REJECTED AI from the venue; nothing to do here.
    this.#rfqListener.onRfq({
      eventType: 'deleted', id, creatorId: '', marketTicker: message.getString(Tag.Symbol) ?? '', eventTicker: '',
      contracts: COUNT_INVALID, targetCost: CENTICENTS_INVALID, tsMs: message.getTimestamp(Tag.SendingTime),
    });
  }

  #onQuoteStatus(message: FixMessage): void {
    const status = message.getInt(Tag.QuoteStatus);
    const rfqId = message.getString(Tag.QuoteReqID) ?? '';
    if (status === QUOTE_STATUS_PENDING || status === QUOTE_STATUS_REJECTED) {
      const pending = this.#creates.get(rfqId)?.[0];
      if (pending === undefined) {
        this.stats.unmatched++;
        return;
      }
      this.#release(pending);
      if (status === QUOTE_STATUS_REJECTED) return this.#listener.onQuoteCreateReject(pending.handle, message.getString(Tag.Text) ?? 'REJECTED', 0);
      const venueId = message.getString(Tag.QuoteID) ?? '';
      const sent = this.#sent.get(pending.quoteId);
      if (sent !== undefined) sent.venueId = venueId;
      return this.#listener.onQuoteCreateAck(pending.handle, venueId);
    }
    if (status === QUOTE_STATUS_ACCEPTED) {
      const side = message.valueEquals(Tag.Side, '1') ? 'yes' : message.valueEquals(Tag.Side, '2') ? 'no' : '';
      const count = message.getCount(Tag.OrderQty);
      const subaccount = message.getInt(Tag.AllocAccount);
      this.#rfqListener.onQuote({
        eventType: 'accepted', quoteId: message.getString(Tag.QuoteID) ?? '', rfqId, acceptedSide: side,
        contractsAccepted: (count === INT_INVALID ? COUNT_INVALID : count) as Count, orderId: '', clientOrderId: '',
        subaccount: subaccount === INT_INVALID ? 0 : subaccount,
      });
    }
    // CANCELLED: the cancel's answer is U9; a close by the venue arrives as AG.
  }

  #onCancelStatus(message: FixMessage): void {
    const pending = this.#answered(message, Kind.CANCEL);
    if (pending === null) return;
    if (message.getInt(Tag.QuoteCancelStatus) === 0) this.#listener.onQuoteCancelAck(pending.handle);
    else this.#listener.onQuoteCancelReject(pending.handle, message.getString(Tag.Text) ?? 'REJECTED', 0);
  }

  #onConfirmStatus(message: FixMessage): void {
    const pending = this.#answered(message, Kind.CONFIRM);
    if (pending === null) return;
    const status = message.has(Tag.QuoteConfirmStatus) ? message.getInt(Tag.QuoteConfirmStatus) : message.getInt(Tag.QuoteStatus);
    if (status === 0) this.#listener.onQuoteConfirmAck(pending.handle);
    else this.#listener.onQuoteConfirmReject(pending.handle, message.getString(Tag.Text) ?? 'REJECTED', 0);
  }

  #onExecution(message: FixMessage): void {
    const clOrdId = message.getString(Tag.ClOrdID);
    const sent = clOrdId === null ? undefined : this.#sent.get(clOrdId);
    if (sent === undefined || sent.executed) return;
    sent.executed = true;
    this.#rfqListener.onQuote({
      eventType: 'executed', quoteId: sent.venueId, rfqId: sent.rfqId, acceptedSide: '', contractsAccepted: COUNT_INVALID,
      orderId: message.getString(Tag.OrderID) ?? '', clientOrderId: clOrdId ?? '', subaccount: sent.subaccount,
    });
  }

  #onBusinessReject(message: FixMessage): void {
    const pending = this.#bySeq.get(message.getInt(Tag.RefSeqNum));
    if (pending === undefined) return;
    const rateLimited = message.getInt(Tag.BusinessRejectReason) === 8;
    this.#rejectPending(pending, rateLimited ? 'EXEC_RATE_LIMITED' : (message.getString(Tag.Text) ?? 'EXEC_REJECTED'), rateLimited ? 429 : 400);
  }

  #onEvent(event: FixSessionEvent): void {
    if (event.type === 'closed') this.#failAll('EXEC_DISCONNECTED');
    else if (event.type === 'reject-received') {
      const pending = this.#bySeq.get(event.seq);
      if (pending !== undefined) this.#rejectPending(pending, event.text === '' ? 'EXEC_REJECTED' : event.text, 400);
    }
  }

  // ---- bookkeeping ----

  #active(): boolean {
    return !this.#link.closed && this.#link.state === 'active';
  }

  #notSent(tell: () => void): void {
    this.stats.notSent++;
    queueMicrotask(tell);
  }

  #track(kind: Kind, handle: number, rfqId: string, quoteId: string, seq: number): Pending {
    const pending: Pending = { kind, handle, rfqId, quoteId, seq, sentMs: this.#link.session.lastSentMs };
    this.#bySeq.set(seq, pending);
    return pending;
  }

  /** The cancel or confirm this U9 / U8 answers (117 is the venue's quote id), released; null when none. */
  #answered(message: FixMessage, kind: Kind): Pending | null {
    const pending = this.#byQuote.get(message.getString(Tag.QuoteID) ?? '');
    if (pending === undefined || pending.kind !== kind) {
      this.stats.unmatched++;
      return null;
    }
    this.#release(pending);
    return pending;
  }

  #release(pending: Pending): void {
    this.#bySeq.delete(pending.seq);
    if (pending.kind !== Kind.CREATE) {
      if (this.#byQuote.get(pending.quoteId) === pending) this.#byQuote.delete(pending.quoteId);
      return;
    }
    const queue = this.#creates.get(pending.rfqId);
    if (queue === undefined) return;
    const at = queue.indexOf(pending);
    if (at !== -1) queue.splice(at, 1);
    if (queue.length === 0) this.#creates.delete(pending.rfqId);
  }

  #rejectPending(pending: Pending, code: string, status: number): void {
    this.#release(pending);
    if (pending.kind === Kind.CREATE) this.#listener.onQuoteCreateReject(pending.handle, code, status);
    else if (pending.kind === Kind.CANCEL) this.#listener.onQuoteCancelReject(pending.handle, code, status);
    else this.#listener.onQuoteConfirmReject(pending.handle, code, status);
  }

  #unknown(pending: Pending, code: ExecErrorCode): void {
    this.#release(pending);
    if (pending.kind === Kind.CREATE) this.#listener.onQuoteCreateUnknown(pending.handle, code);
    else if (pending.kind === Kind.CANCEL) this.#listener.onQuoteCancelReject(pending.handle, code, 0);
    else this.#listener.onQuoteConfirmReject(pending.handle, code, 0);
  }

  #expire(nowMs: number): void {
    const limit = this.#options.requestTimeoutMs;
    for (const pending of [...this.#bySeq.values()]) {
      if (nowMs - pending.sentMs < limit) continue;
      this.stats.timeouts++;
      this.#unknown(pending, 'EXEC_TIMEOUT');
    }
  }

  #failAll(code: ExecErrorCode): void {
    for (const pending of [...this.#bySeq.values()]) this.#unknown(pending, code);
  }
}
