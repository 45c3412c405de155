/**
 * Where the KalshiRFQ sessions (rfq-connection.ts) hear about RFQs and quotes: the hub listens to
 * the engine's RFQ book events and hands each to the live sessions that must see it (fix.md §7):
 *
 * - rfq_created: QuoteRequest (35=R) to every live RFQ session of another user (makers; the
 *   creator cannot quote on its own RFQ, so its own sessions are skipped).
 * - rfq_deleted: QuoteRequestReject (35=AG, 658=99) to those makers; RFQCancelStatus 21013=2
 *   (unprompted close) to the creator's sessions unless the creator closed it itself; and a
 *   QuoteStatusReport CANCELLED for every FIX quote the close cancelled.
 * - quote_created: Quote (35=S) to the RFQ creator's sessions, with the maker's public
 *   communications id in NoPartyIDs (452=35).
 * - quote_accepted: QuoteStatusReport ACCEPTED (297=0, 54 = AcceptedSide) to the session that sent
 *   the quote.
 * - quote_executed: ExecutionReports (35=8, 150=F) of the maker's order to the session that sent
 *   the quote, through the ReportHub (so listener sessions and drop copy see them too); a remainder
 *   left resting is owned by the ReportHub, so its later fills arrive as unsolicited reports.
 *
 * Fills of the maker's order come before quote_executed in engine order: they are kept (bounded)
 * until that event names the order. While a session handles a request (beginCall/endCall) the
 * hub's own sends are deferred, so the session's direct answer (U8, AI, UC) comes first.
 */

import { FifoMap } from '../../../core/index.ts';
import type { Fill, Order, Quote, QuoteEvent, Rfq, RfqEvent, SimEngine } from '../../engine/index.ts';
import type { OrderSnapshot, OwnedOrder, ReportHub } from './report-hub.ts';

/** What an RFQ session offers the hub. */
export interface RfqSink {
  readonly keyId: string;
  readonly userId: string;
  /** The key's subaccount lock, null when unrestricted. */
  readonly lock: number | null;
  sendQuoteRequest(rfq: Rfq): void;
  sendRfqClosed(rfq: Rfq): void;
  sendRfqExpired(rfq: Rfq): void;
  sendQuoteToRequester(quote: Quote): void;
  sendQuoteStatus(quote: Quote, status: number, text: string): void;
}

/** A quote sent over KalshiRFQ: the key that sent it and the maker's own QuoteID(117). */
export interface OwnedQuote {
  keyId: string;
  clientQuoteId: string;
  rfqId: string;
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

  #creatorSinks(rfq: Rfq): RfqSink[] {
    const out: RfqSink[] = [];
    for (const sink of this.#sinks) if (sink.userId === rfq.userId && (sink.lock === null || sink.lock === rfq.subaccount)) out.push(sink);
    return out;
  }

  #onRfq(event: RfqEvent): void {
    if (this.#sinks.size === 0 && event.type !== 'rfq_deleted') return;
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
    const pending = this.#fills.get(quote.creatorOrderId);
    this.#fills.delete(quote.creatorOrderId);
    if (owned === undefined || pending === undefined) return;
    const order = pending.order;
    const record: OwnedOrder = {
      orderId: order.orderId, keyId: owned.keyId, userId: order.userId, clOrdId: owned.clientQuoteId, symbol: order.ticker,
      side: order.side === 'bid' ? '1' : '2', price: order.price, originalQty: order.initialCount, cumNotional: 0,
      allocAccount: quote.subaccount !== 0 ? quote.subaccount : -1, exchangeIndex: order.exchangeIndex, expireTimeMs: 0,
    };
    const reports = pending.events.map((fill) => this.#reports.trade(record, fill));
    if (order.status === 'resting') {
      // A rest_remainder order keeps resting: later fills become the ReportHub's unsolicited reports.
      const kept = this.#reports.own(order, owned.keyId, owned.clientQuoteId, record.allocAccount, 0);
      kept.cumNotional = record.cumNotional;
    }
    this.#send(() => {
      for (const report of reports) this.#reports.emit(report, owned.keyId);
    });
  }

  #onFill(userId: string, fill: Fill, order: Order): void {
    // The Order facade does not say which order is a quote execution: keep recent fills of users
    // with FIX quotes (bounded); quote_executed names the maker's order right after its fills.
    if (!this.#quoters.has(userId)) return;
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
