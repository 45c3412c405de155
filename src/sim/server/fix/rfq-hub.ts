/**
 * Where the FIX RFQ sessions hear about RFQs and quotes: the hub listens to the engine's RFQ book
 * events and hands each to the live sessions that must see it (fix.md §7). Two kinds of sink:
 * makers (KalshiRFQ sessions, rfq-connection.ts) and requesters (the RfqRequester of a KalshiRT
 * session, order-entry-connection.ts, or of a KalshiRFQ session; rfq-requester.ts).
 *
 * - rfq_created: QuoteRequest (35=R) to every maker of another user (the creator cannot quote on
 *   its own RFQ, so its own sessions are skipped).
 * - rfq_deleted: QuoteRequestReject (35=AG, 658=99) to those makers; RFQCancelStatus 21013=2
 *   (unprompted close) to the creator's requesters unless the creator closed it itself or it
 *   executed; and a QuoteStatusReport CANCELLED for every FIX quote the close cancelled.
 * - quote_created: Quote (35=S) to the RFQ creator's requesters, with the maker's public
 *   communications id in NoPartyIDs (452=35).
 * - quote_accepted: QuoteStatusReport ACCEPTED (297=0, 54 = AcceptedSide) to the maker session
 *   that sent the quote.
 * - quote_executed: ExecutionReports (35=8, 150=F) of each party's order, through the ReportHub (so
 *   listener sessions, drop copy and an offline KalshiRT key's resend store see them too): the
 *   maker's to the key that sent the quote over FIX (11 = its QuoteID), the requester's to the key
 *   that accepted it over FIX with 35=UA (11 = the UA's ClOrdID, else the venue's client order id).
 *   A remainder left resting is owned by the ReportHub, so its later fills arrive as unsolicited
 *   reports. Quotes sent or accepted over REST get no FIX reports.
 *
 * Fills come before quote_executed in engine order: they are kept (bounded) for users with FIX
 * quotes or FIX accepts until that event names the order. While a session handles a request
 * (beginCall/endCall) the hub's own sends are deferred, so the session's direct answer (U8, AI,
 * UC, b, UB) comes first.
 */

import { FifoMap } from '../../../core/index.ts';
import type { Fill, Order, Quote, QuoteEvent, Rfq, RfqEvent, SimEngine } from '../../engine/index.ts';
import type { OrderSnapshot, OwnedOrder, ReportHub } from './report-hub.ts';

/** What a maker's session (KalshiRFQ) offers the hub. */
export interface RfqSink {
  readonly keyId: string;
  readonly userId: string;
  /** The key's subaccount lock, null when unrestricted. */
  readonly lock: number | null;
  sendQuoteRequest(rfq: Rfq): void;
  sendRfqClosed(rfq: Rfq): void;
  sendQuoteStatus(quote: Quote, status: number, text: string): void;
}

/** What a requester's session (KalshiRT, or KalshiRFQ) offers the hub (rfq-requester.ts). */
export interface RequesterSink {
  readonly keyId: string;
  readonly userId: string;
  /** The key's subaccount lock, null when unrestricted. */
  readonly lock: number | null;
  sendRfqExpired(rfq: Rfq): void;
  sendQuoteToRequester(quote: Quote): void;
}

/** A quote sent over KalshiRFQ: the key that sent it and the maker's own QuoteID(117). */
export interface OwnedQuote {
  keyId: string;
  clientQuoteId: string;
  rfqId: string;
}

/** A quote accepted over FIX (35=UA): the key that accepted it and the ClOrdID(11) it sent, or null. */
interface AcceptedQuote {
  keyId: string;
  clOrdId: string | null;
}

/** QuoteStatus(297), fix.md §7. */
export const QuoteStatus = { ACCEPTED: 0, REJECTED: 5, PENDING: 10, CANCELLED: 17 } as const;

const QUOTES_REMEMBERED_MAX = 100_000;
const PENDING_FILLS_MAX = 1_024;

export class RfqHub {
  readonly #engine: SimEngine;
  readonly #reports: ReportHub;
  readonly #sinks = new Set<RfqSink>();
  readonly #quotes = new FifoMap<string, OwnedQuote>(QUOTES_REMEMBERED_MAX); // server quote id -> owner, insertion order
  readonly #quoters = new Set<string>(); // users that sent a quote over KalshiRFQ
  readonly #requesters = new Set<RequesterSink>();
  readonly #accepted = new FifoMap<string, AcceptedQuote>(QUOTES_REMEMBERED_MAX); // server quote id -> who accepted it over FIX
  readonly #acceptors = new Set<string>(); // users that accepted a quote over FIX
  readonly #fills = new FifoMap<string, { order: Order; events: OrderSnapshot[] }>(PENDING_FILLS_MAX); // maker order id -> fills
  #calls = 0;
  #deferred: Array<() => void> = [];
  /** RFQ ids a creator is closing itself (no unprompted 21013=2). */
  readonly #closing = new Set<string>();

  constructor(engine: SimEngine, reports: ReportHub) {
    this.#engine = engine;
    this.#reports = reports;
  }

  attach(): () => void {
    return this.#engine.subscribe({
      onRfq: (event: RfqEvent) => this.#onRfq(event),
      onQuote: (event: QuoteEvent) => this.#onQuote(event),
      onFill: (userId: string, fill: Fill, order: Order) => this.#onFill(userId, fill, order),
    });
  }

  register(sink: RfqSink): void {
    this.#sinks.add(sink);
  }

  unregister(sink: RfqSink): void {
    this.#sinks.delete(sink);
  }

  registerRequester(sink: RequesterSink): void {
    this.#requesters.add(sink);
  }

  unregisterRequester(sink: RequesterSink): void {
    this.#requesters.delete(sink);
  }

  /** Records that `quote` was accepted over FIX by `keyId` (the requester's execution reports go there). */
  accepted(quote: Quote, keyId: string, clOrdId: string | null): void {
    this.#acceptors.add(quote.rfqUserId);
    this.#accepted.set(quote.quoteId, { keyId, clOrdId });
  }

  /** Records that `quoteId` was sent by `keyId` as its `clientQuoteId`. */
  own(quote: Quote, keyId: string, clientQuoteId: string): void {
    this.#quoters.add(quote.userId);
    this.#quotes.set(quote.quoteId, { keyId, clientQuoteId, rfqId: quote.rfqId });
  }

  owner(quoteId: string): OwnedQuote | undefined {
    return this.#quotes.get(quoteId);
  }

  /** A session request starts: the hub's sends wait until endCall. */
  beginCall(): void {
    this.#calls++;
  }

  endCall(): void {
    if (--this.#calls > 0) return;
    const deferred = this.#deferred;
    this.#deferred = [];
    for (const send of deferred) send();
  }

  /** The creator closes `rfqId` itself during `run` (its session answers UB 21013=0 instead). */
  closingByCreator(rfqId: string, run: () => void): void {
    this.#closing.add(rfqId);
    try {
      run();
    } finally {
      this.#closing.delete(rfqId);
    }
  }

  #send(send: () => void): void {
    if (this.#calls > 0) this.#deferred.push(send);
    else send();
  }

  #sinkOf(keyId: string): RfqSink | undefined {
    for (const sink of this.#sinks) if (sink.keyId === keyId) return sink;
    return undefined;
  }

  #creatorSinks(rfq: Rfq): RequesterSink[] {
    const out: RequesterSink[] = [];
    for (const sink of this.#requesters) if (sink.userId === rfq.userId && (sink.lock === null || sink.lock === rfq.subaccount)) out.push(sink);
    return out;
  }

  #onRfq(event: RfqEvent): void {
    if (this.#sinks.size === 0 && this.#requesters.size === 0 && event.type !== 'rfq_deleted') return;
    const rfq = event.rfq;
    if (event.type === 'rfq_created') {
      for (const sink of this.#sinks) if (sink.userId !== rfq.userId) this.#send(() => sink.sendQuoteRequest(rfq));
      return;
    }
    if (event.type !== 'rfq_deleted') return;
    for (const sink of this.#sinks) if (sink.userId !== rfq.userId) this.#send(() => sink.sendRfqClosed(rfq));
    if (!this.#closing.has(rfq.rfqId) && rfq.cancellationReason !== 'executed') {
      for (const sink of this.#creatorSinks(rfq)) this.#send(() => sink.sendRfqExpired(rfq));
    }
    // Quotes the close cancelled (the RFQ book raises no quote event for them).
    for (const [quoteId, owned] of this.#quotes) {
      if (owned.rfqId !== rfq.rfqId) continue; // a linear scan per close; the simulator is not a hot path
      const sink = this.#sinkOf(owned.keyId);
      if (sink === undefined) continue;
      const quote = this.#engine.getQuote(sink.userId, quoteId, rfq.rfqId, null);
      if ('isError' in quote || quote.status !== 'cancelled' || quote.cancelledMs !== rfq.closedMs) continue;
      this.#send(() => sink.sendQuoteStatus(quote, QuoteStatus.CANCELLED, quote.cancellationReason));
    }
  }

  #onQuote(event: QuoteEvent): void {
    const quote = event.quote;
    if (event.type === 'quote_created') {
      for (const sink of this.#creatorSinks(event.rfq)) this.#send(() => sink.sendQuoteToRequester(quote));
      return;
    }
    const owned = this.#quotes.get(quote.quoteId);
    if (event.type === 'quote_accepted') {
      const sink = owned === undefined ? undefined : this.#sinkOf(owned.keyId);
      if (sink !== undefined) this.#send(() => sink.sendQuoteStatus(quote, QuoteStatus.ACCEPTED, ''));
      return;
    }
    if (event.type !== 'quote_executed') return;
    const makerFills = this.#fills.get(quote.creatorOrderId);
    this.#fills.delete(quote.creatorOrderId);
    const requesterFills = this.#fills.get(quote.rfqCreatorOrderId);
    this.#fills.delete(quote.rfqCreatorOrderId);
    const accepted = this.#accepted.get(quote.quoteId);
    this.#accepted.delete(quote.quoteId);
    if (owned !== undefined && makerFills !== undefined) {
      this.#reportExecution(makerFills, owned.keyId, owned.clientQuoteId, quote.subaccount);
    }
    if (accepted !== undefined && requesterFills !== undefined) {
      this.#reportExecution(requesterFills, accepted.keyId, accepted.clOrdId ?? quote.rfqCreatorClientOrderId, quote.rfqSubaccount);
    }
  }

  /** The Trade reports of one party's execution order, to `keyId` (as if that key had placed the order with `clOrdId`). */
  #reportExecution(pending: { order: Order; events: OrderSnapshot[] }, keyId: string, clOrdId: string, subaccount: number): void {
    const order = pending.order;
    const record: OwnedOrder = {
      orderId: order.orderId, keyId, userId: order.userId, clOrdId, symbol: order.ticker,
      side: order.side === 'bid' ? '1' : '2', price: order.price, originalQty: order.initialCount, cumNotional: 0,
      allocAccount: subaccount !== 0 ? subaccount : -1, exchangeIndex: order.exchangeIndex, expireTimeMs: 0,
    };
    const reports = pending.events.map((fill) => this.#reports.trade(record, fill));
    if (order.status === 'resting') {
      // A rest_remainder order keeps resting: later fills become the ReportHub's unsolicited reports.
      const kept = this.#reports.own(order, keyId, clOrdId, record.allocAccount, 0);
      kept.cumNotional = record.cumNotional;
    }
    this.#send(() => {
      for (const report of reports) this.#reports.emit(report, keyId);
    });
  }

  #onFill(userId: string, fill: Fill, order: Order): void {
    // The Order facade does not say which order is a quote execution: keep recent fills of users
    // with FIX quotes or FIX accepts (bounded); quote_executed names both parties' orders right after their fills.
    if (!this.#quoters.has(userId) && !this.#acceptors.has(userId)) return;
    let pending = this.#fills.get(order.orderId);
    if (pending === undefined) {
      pending = { order, events: [] };
      this.#fills.set(order.orderId, pending);
    }
    pending.events.push({
      fill: true, orderId: order.orderId, userId, clientOrderId: order.clientOrderId, ticker: order.ticker, side: order.side,
      price: order.price, fillCount: order.fillCount, remainingCount: order.remainingCount, status: order.status,
      reason: order.lastUpdateReason, exchangeIndex: order.exchangeIndex, subaccount: order.subaccount, tsMs: fill.tsMs,
      fillId: fill.fillId, fillPrice: fill.price, fillQty: fill.count, isTaker: fill.isTaker, fee: fill.fee, postPosition: fill.postPosition,
    });
  }
}
