/**
 * The quote book: our quotes on RFQs, beside the OMS rather than inside it. A quote is not an
 * order: it rests nowhere in a book, never fills (its execution makes two venue orders whose
 * fills arrive on `fill` like any other and move positions through the OMS), is accepted by the
 * counterparty and must then be confirmed by us; its ids (quote_id, rfq_id) and answers differ.
 * Kept apart, the OMS's order invariants (the gate's ledger equals the live orders, every order
 * has a client order id) stay untouched. It shares the OMS's journal.
 *
 * It owns: the RFQs open on `communications` (what a quote may answer), each quote's state
 * (quote-state.ts is the only place a state changes), the journal lines of each change, the
 * confirm window (a quote accepted and not confirmed within it is cancelled by the venue), the
 * count of quotes not yet closed (the gate's QUOTE_OPEN_LIMIT), and reconciliation from GET
 * /communications/quotes after a reconnect or a restart. It never decides a price and never
 * talks to the network itself (the route does, QuoteEntry).
 */

import { COUNT_INVALID, CENTICENTS_INVALID, FifoMap, PRICE_ONE } from '../core/index.ts';
import type { Clock, Count, Price } from '../core/index.ts';
import type { Journal, RecoveredQuote } from './journal.ts';
import { SILENT_LOGGER } from './oms-inputs.ts';
import type { OmsLogger } from './oms-inputs.ts';
import type { ExecErrorCode } from './order-route.ts';
import type { QuoteEntry, QuoteListener, WireQuote } from './quote-route.ts';
import { QUOTE_EVENT_NAMES, QUOTE_STATE_NAMES, QuoteEvent, QuoteState, isQuoteTerminal, nextQuoteState } from './quote-state.ts';
import type { QuoteStatusName } from './quote-state.ts';

/** interface-spec / fix.md §7: the quoter confirms within 30 s of the accept or the venue cancels. */
export const CONFIRM_WINDOW_MS = 30_000;
/** Open RFQs remembered (public channel: every RFQ of every user); the oldest is forgotten beyond it. */
const RFQS_MAX = 10_000;
/** Closed quotes kept for lookups before they are pruned (oldest first). */
const CLOSED_KEPT = 1_000;

/** An RFQ open on the venue, as `communications` announced it. */
export class Rfq {
  id = '';
  marketTicker = '';
  eventTicker = '';
  creatorId = '';
  /** 1/100 contract; 0 on a target-cost RFQ. */
  contracts: Count = 0 as Count;
  /** Centicents; CENTICENTS_INVALID on a contracts RFQ. */
  targetCost = CENTICENTS_INVALID as number;
  tsMs = 0;
}

/** What the quote book reads of an RFQ message (the feed's RfqRecord satisfies it). */
export interface RfqInput {
  readonly eventType: 'created' | 'deleted';
  readonly id: string;
  readonly creatorId: string;
  readonly marketTicker: string;
  readonly eventTicker: string;
  readonly contracts: Count;
  readonly targetCost: number;
  readonly tsMs: number;
}

/** What it reads of a quote message (the feed's QuoteMessageRecord satisfies it). */
export interface QuoteMessageInput {
  readonly eventType: 'created' | 'accepted' | 'executed';
  readonly quoteId: string;
  readonly rfqId: string;
  readonly acceptedSide: 'yes' | 'no' | '';
  readonly contractsAccepted: Count;
  readonly orderId: string;
  readonly clientOrderId: string;
  readonly subaccount: number;
}

export class Quote {
  readonly handle: number;
  quoteId = '';
  readonly rfqId: string;
  readonly ticker: string;
  /** Gate market handle. */
  readonly market: number;
  readonly yesBid: Price;
  readonly noBid: Price;
  /** Contracts we may buy on the side taken (1/100 contract). */
  readonly count: Count;
  readonly postOnly: boolean;
  readonly subaccount: number;
  readonly strategyId: number;
  state: QuoteState = QuoteState.PENDING_NEW;
  acceptedSide: 'yes' | 'no' | '' = '';
  acceptedMs = 0;
  createdMs: number;
  updatedMs: number;
  /** quote_executed: our order of the execution. */
  orderId = '';
  clientOrderId = '';
  /** The last venue error code, '' when none. */
  lastCode = '';
  /** A move the table did not expect, or a fate unknown: ask the venue. */
  needsReconcile = false;
  /** Position in the quote book's list of quotes not yet closed; -1 once closed (the book's to set). */
  liveIndex = -1;

  constructor(handle: number, rfqId: string, ticker: string, market: number, yesBid: Price, noBid: Price, count: Count, postOnly: boolean, subaccount: number, strategyId: number, nowMs: number) {
    this.handle = handle;
    this.rfqId = rfqId;
    this.ticker = ticker;
    this.market = market;
    this.yesBid = yesBid;
    this.noBid = noBid;
    this.count = count;
    this.postOnly = postOnly;
    this.subaccount = subaccount;
    this.strategyId = strategyId;
    this.createdMs = nowMs;
    this.updatedMs = nowMs;
  }

  get status(): QuoteStatusName {
    return QUOTE_STATE_NAMES[this.state];
  }

  /** Our bids that may still execute (1: YES, 2: NO; the gate's QUOTE_SIDE_*): both until a side is taken, none once closed. */
  get exposedSides(): number {
    if (isQuoteTerminal(this.state)) return 0;
    const yes = this.yesBid > 0 ? 1 : 0;
    const no = this.noBid > 0 ? 2 : 0;
    // The creator taking YES makes us buy NO at our NO bid, and the other way round.
    if (this.acceptedSide === 'yes') return no;
    if (this.acceptedSide === 'no') return yes;
    return yes | no;
  }
}

/** Told after every change of a quote (the strategy host's onQuoteUpdate) and of the open count (the gate). */
export interface QuoteUpdateSink {
  onQuoteUpdate(quote: Quote): void;
}

export const QuoteResult = {
  READY: 0,
  UNKNOWN: 1, //       no such handle, or another strategy's
  NOT_ACTIONABLE: 2, // wrong state for the action (or a request in flight)
} as const;
export type QuoteResult = (typeof QuoteResult)[keyof typeof QuoteResult];

export interface QuoteBookOptions {
  clock: Clock;
  journal: Journal | null;
  logger?: OmsLogger;
  /** The quotes an earlier run journaled (non-terminal ones are tracked again and reconciled). */
  recovered?: readonly RecoveredQuote[];
  /** Told the count of quotes not yet closed after every change (the gate's setOpenQuotes). */
  onOpenCount?: (count: number) => void;
  /** Told every new quote and every change of one (the gate's onQuoteChange: open quotes count as resting). */
  onExposure?: (quote: Quote) => void;
  confirmWindowMs?: number;
}

export class QuoteBookStats {
  created = 0;
  rejected = 0;
  accepted = 0;
  confirmed = 0;
  executed = 0;
  cancelled = 0;
  anomalies = 0;
  reconciles = 0;
}

export class QuoteBook implements QuoteListener {
  readonly stats = new QuoteBookStats();
  readonly #clock: Clock;
  readonly #journal: Journal | null;
  readonly #log: OmsLogger;
  readonly #onOpenCount: (count: number) => void;
  readonly #onExposure: (quote: Quote) => void;
  readonly #confirmWindowMs: number;
  readonly #rfqs = new FifoMap<string, Rfq>(RFQS_MAX);
  /** The RFQ announced last: the strategy quotes it from its onRfq with this very id string, so the router's rfq(id) is an identity check, not a second hash lookup. */
  #rfqLast: Rfq | null = null;
  readonly #byHandle = new Map<number, Quote>();
  readonly #byQuoteId = new Map<string, Quote>();
  /**
   * The quotes not yet closed, in handle order (live.length is the open count). Every scan that
   * only concerns open quotes (a strategy's open quotes per RFQ, rfq_deleted, the socket beating
   * the create's answer, a replaced quote, the confirm window) walks this list, at most
   * limits.openQuotesMax long, instead of every quote kept (up to CLOSED_KEPT more).
   */
  readonly #live: Quote[] = [];
  /** Handles of closed quotes, oldest first: a ring of CLOSED_KEPT (the oldest is pruned when full). */
  readonly #closedHandles = new Int32Array(CLOSED_KEPT);
  #closedHead = 0;
  #closedCount = 0;
  #nextHandle = 1;
  #sink: QuoteUpdateSink | null = null;
  #entry: QuoteEntry | null = null;

  constructor(options: QuoteBookOptions) {
    this.#clock = options.clock;
    this.#journal = options.journal;
    this.#log = options.logger ?? SILENT_LOGGER;
    this.#onOpenCount = options.onOpenCount ?? (() => {});
    this.#onExposure = options.onExposure ?? (() => {});
    this.#confirmWindowMs = options.confirmWindowMs ?? CONFIRM_WINDOW_MS;
    for (const r of options.recovered ?? []) {
      if (isQuoteTerminal(r.state) || r.quoteId === '') continue; // a create without an answer: found by reconcile() if it exists
      const quote = new Quote(this.#nextHandle++, r.rfqId, r.ticker, -1, r.yesBid as Price, r.noBid as Price, r.count as Count, r.postOnly, r.subaccount, r.strategyId, r.tsMs);
      quote.quoteId = r.quoteId;
      quote.state = r.state;
      quote.acceptedSide = r.acceptedSide;
      quote.needsReconcile = true;
      this.#byHandle.set(quote.handle, quote);
      this.#byQuoteId.set(quote.quoteId, quote);
      this.#addLive(quote);
    }
  }

  /** The route the book's reconcile reads from (set once at wiring). */
  setEntry(entry: QuoteEntry): void {
    this.#entry = entry;
  }

  setUpdateSink(sink: QuoteUpdateSink | null): void {
    this.#sink = sink;
  }

  /** Quotes not yet closed (pending, open, accepted, confirmed). */
  get openCount(): number {
    return this.#live.length;
  }

  /** The i-th quote not yet closed (0 <= i < openCount), in handle order: walks them without an array or iterator. */
  openQuoteAt(index: number): Quote {
    return this.#live[index]!;
  }

  // ---- RFQs ------------------------------------------------------------------------------------

  /** rfq_created remembers the RFQ; rfq_deleted forgets it and closes our quotes on it. */
  onRfq(message: RfqInput): Rfq | null {
    if (message.eventType === 'deleted') {
      const known = this.#rfqs.get(message.id) ?? null;
      this.#rfqs.delete(message.id);
      if (known !== null && known === this.#rfqLast) this.#rfqLast = null;
      const live = this.#live;
      for (let i = 0; i < live.length;) {
        const quote = live[i]!;
        // Executed closes the RFQ too (after quote_executed); confirmed quotes are the venue's to finish.
        if (quote.rfqId === message.id && quote.state !== QuoteState.CONFIRMED && quote.state !== QuoteState.PENDING_CONFIRM) {
          this.#apply(quote, QuoteEvent.EXPIRED, 'rfq_deleted');
        }
        i = nextLive(live, i, quote);
      }
      return known;
    }
    const rfq = new Rfq();
    rfq.id = message.id;
    rfq.marketTicker = message.marketTicker;
    rfq.eventTicker = message.eventTicker;
    rfq.creatorId = message.creatorId;
    rfq.contracts = (message.contracts === COUNT_INVALID ? 0 : message.contracts) as Count;
    rfq.targetCost = message.targetCost;
    rfq.tsMs = message.tsMs;
    this.#rfqs.set(rfq.id, rfq);
    this.#rfqLast = rfq;
    return rfq;
  }

  rfq(id: string): Rfq | undefined {
    const last = this.#rfqLast;
    if (last !== null && last.id === id) return last; // the newest entry: never the one evicted
    return this.#rfqs.get(id);
  }

  /**
   * Contracts a quote at these bids may have to buy: the RFQ's size, or on a target-cost RFQ the
   * larger of what the cost buys at either price the creator would pay (1 - noBid, 1 - yesBid),
   * floored to 0.01 contract as the venue does. 0 when nothing.
   */
  static quoteCount(rfq: Rfq, yesBid: Price, noBid: Price): Count {
    if (rfq.contracts > 0) return rfq.contracts;
    if (rfq.targetCost <= 0) return 0 as Count;
    const yes = noBid > 0 ? Math.floor((rfq.targetCost * 100) / (PRICE_ONE - noBid)) : 0;
    const no = yesBid > 0 ? Math.floor((rfq.targetCost * 100) / (PRICE_ONE - yesBid)) : 0;
    return (yes > no ? yes : no) as Count;
  }

  // ---- our requests (the quote router, after the gate) -------------------------------------------

  /** A new quote the gate allowed: tracked as PENDING_NEW and journaled before the route sends it. */
  accept(rfqId: string, ticker: string, market: number, yesBid: Price, noBid: Price, count: Count, postOnly: boolean, subaccount: number, strategyId: number): Quote {
    const quote = new Quote(this.#nextHandle++, rfqId, ticker, market, yesBid, noBid, count, postOnly, subaccount, strategyId, this.#clock.nowMs());
    this.#byHandle.set(quote.handle, quote);
    this.#addLive(quote);
    this.stats.created++;
    this.#journal?.appendQuote(quote, -1, quote.createdMs, '');
    this.#onOpenCount(this.#live.length);
    this.#onExposure(quote);
    return quote;
  }

  quote(handle: number): Quote | undefined {
    return this.#byHandle.get(handle);
  }

  quoteById(quoteId: string): Quote | undefined {
    return this.#byQuoteId.get(quoteId);
  }

  /** Every quote tracked (closed ones until pruned). */
  quotes(): IterableIterator<Quote> {
    return this.#byHandle.values();
  }

  readyToCancel(handle: number, strategyId: number): QuoteResult {
    const quote = this.#byHandle.get(handle);
    if (quote === undefined || quote.strategyId !== strategyId) return QuoteResult.UNKNOWN;
    return quote.state === QuoteState.OPEN && quote.quoteId !== '' ? QuoteResult.READY : QuoteResult.NOT_ACTIONABLE;
  }

  readyToConfirm(handle: number, strategyId: number): QuoteResult {
    const quote = this.#byHandle.get(handle);
    if (quote === undefined || quote.strategyId !== strategyId) return QuoteResult.UNKNOWN;
    return quote.state === QuoteState.ACCEPTED && quote.quoteId !== '' ? QuoteResult.READY : QuoteResult.NOT_ACTIONABLE;
  }

  cancelSent(quote: Quote): void {
    this.#apply(quote, QuoteEvent.CANCEL_SENT, '', true);
  }

  confirmSent(quote: Quote): void {
    this.#apply(quote, QuoteEvent.CONFIRM_SENT, '', true);
  }

  // ---- the route's answers (QuoteListener) --------------------------------------------------------

  onQuoteCreateAck(handle: number, quoteId: string): void {
    const quote = this.#byHandle.get(handle);
    if (quote === undefined) return;
    this.#setQuoteId(quote, quoteId);
    this.#replaceEarlier(quote);
    this.#apply(quote, QuoteEvent.CREATE_ACK, '');
  }

  onQuoteCreateReject(handle: number, code: string, _status: number): void {
    const quote = this.#byHandle.get(handle);
    if (quote === undefined) return;
    this.stats.rejected++;
    this.#apply(quote, QuoteEvent.CREATE_REJECT, code);
  }

  onQuoteCreateUnknown(handle: number, code: ExecErrorCode): void {
    const quote = this.#byHandle.get(handle);
    if (quote === undefined) return;
    quote.lastCode = code;
    quote.needsReconcile = true;
    this.#log.warn({ handle, rfqId: quote.rfqId, code }, 'quote book: create fate unknown; reconciling');
  }

  onQuoteCancelAck(handle: number): void {
    const quote = this.#byHandle.get(handle);
    if (quote !== undefined) this.#apply(quote, QuoteEvent.CANCEL_ACK, '');
  }

  onQuoteCancelReject(handle: number, code: string, status: number): void {
    const quote = this.#byHandle.get(handle);
    if (quote === undefined) return;
    // quote_expired (400) and not_found (404): the venue closed or cleared it already.
    if (code === 'quote_expired' || status === 404) this.#apply(quote, QuoteEvent.EXPIRED, code);
    else {
      quote.needsReconcile = true;
      this.#apply(quote, QuoteEvent.CANCEL_REJECT, code);
    }
  }

  onQuoteConfirmAck(handle: number): void {
    const quote = this.#byHandle.get(handle);
    if (quote === undefined) return;
    this.stats.confirmed++;
    this.#apply(quote, QuoteEvent.CONFIRM_ACK, '');
  }

  onQuoteConfirmReject(handle: number, code: string, status: number): void {
    const quote = this.#byHandle.get(handle);
    if (quote === undefined) return;
    if (code === 'quote_expired' || status === 404) this.#apply(quote, QuoteEvent.EXPIRED, code);
    else this.#apply(quote, QuoteEvent.CONFIRM_REJECT, code);
  }

  // ---- the channel ------------------------------------------------------------------------------

  /** quote_created / quote_accepted / quote_executed for one of our quotes (others are ignored). */
  onQuoteMessage(message: QuoteMessageInput): Quote | null {
    let quote = this.#byQuoteId.get(message.quoteId);
    if (quote === undefined) {
      // The socket may beat the HTTP answer: our pending create on the same RFQ is this quote.
      quote = this.#pendingOn(message.rfqId, message.subaccount);
      if (quote === undefined) return null; // a quote on our own RFQ, or another session's
      this.#setQuoteId(quote, message.quoteId);
      this.#replaceEarlier(quote);
    }
    switch (message.eventType) {
      case 'created':
        this.#apply(quote, QuoteEvent.WS_CREATED, '');
        break;
      case 'accepted':
        quote.acceptedSide = message.acceptedSide;
        quote.acceptedMs = this.#clock.nowMs();
        this.stats.accepted++;
        this.#apply(quote, QuoteEvent.WS_ACCEPTED, '');
        break;
      case 'executed':
        quote.orderId = message.orderId;
        quote.clientOrderId = message.clientOrderId;
        this.stats.executed++;
        this.#apply(quote, QuoteEvent.WS_EXECUTED, '');
        break;
    }
    return quote;
  }

  // ---- time and reconciliation --------------------------------------------------------------------

  /** The coarse tick: accepted quotes past the confirm window are cancelled (the venue has done so). */
  tick(): void {
    const nowMs = this.#clock.nowMs();
    const live = this.#live;
    for (let i = 0; i < live.length;) {
      const quote = live[i]!;
      if (quote.state === QuoteState.ACCEPTED && quote.acceptedMs > 0 && nowMs - quote.acceptedMs > this.#confirmWindowMs) {
        this.#apply(quote, QuoteEvent.EXPIRED, 'confirm window passed');
      }
      i = nextLive(live, i, quote);
    }
  }

  /**
   * Asks the venue for our quotes and applies its statuses to every quote not closed here; a
   * tracked quote the venue no longer lists was cleared (a roll: 404 afterwards) and is cancelled.
   * A create whose answer never came is matched by RFQ id.
   */
  async reconcile(): Promise<number> {
    const entry = this.#entry;
    if (entry === null) return 0;
    let pending = 0;
    for (const quote of this.#byHandle.values()) if (!isQuoteTerminal(quote.state)) pending++;
    if (pending === 0) return 0;
    const listed = await entry.listQuotes();
    this.stats.reconciles++;
    const byId = new Map<string, WireQuote>();
    for (const wire of listed) byId.set(wire.quoteId, wire);
    let changed = 0;
    for (const quote of [...this.#byHandle.values()]) {
      if (isQuoteTerminal(quote.state)) continue;
      let wire = quote.quoteId === '' ? undefined : byId.get(quote.quoteId);
      if (quote.quoteId === '') {
        if (!quote.needsReconcile) continue; // the answer is still on its way
        wire = listed.find((w) => w.rfqId === quote.rfqId && w.subaccount === quote.subaccount && !this.#byQuoteId.has(w.quoteId));
        if (wire !== undefined) this.#setQuoteId(quote, wire.quoteId);
      }
      const before = quote.state;
      if (wire === undefined) this.#apply(quote, QuoteEvent.VENUE_CANCELLED, 'reconciled: absent');
      else {
        if (wire.acceptedSide !== '') quote.acceptedSide = wire.acceptedSide;
        if (wire.acceptedMs > 0 && quote.acceptedMs === 0) quote.acceptedMs = wire.acceptedMs;
        this.#apply(quote, venueEvent(wire.status), 'reconciled');
      }
      quote.needsReconcile = false;
      if (quote.state !== before) changed++;
    }
    return changed;
  }

  /** The journaled ids of quotes not closed (tests, status). */
  liveQuotes(): Quote[] {
    return this.#live.slice();
  }

  // ---- internals -----------------------------------------------------------------------------------

  #setQuoteId(quote: Quote, quoteId: string): void {
    if (quote.quoteId === quoteId || quoteId === '') return;
    quote.quoteId = quoteId;
    this.#byQuoteId.set(quoteId, quote);
  }

  /** A newer quote of ours on the same RFQ and subaccount replaces the earlier open one at the venue. */
  #replaceEarlier(quote: Quote): void {
    const live = this.#live;
    for (let i = 0; i < live.length;) {
      const other = live[i]!;
      if (other !== quote && other.rfqId === quote.rfqId && other.subaccount === quote.subaccount && other.state === QuoteState.OPEN) {
        this.#apply(other, QuoteEvent.EXPIRED, 'replaced');
      }
      i = nextLive(live, i, other);
    }
  }

  #pendingOn(rfqId: string, subaccount: number): Quote | undefined {
    const live = this.#live;
    for (let i = 0; i < live.length; i++) {
      const quote = live[i]!;
      if (quote.state === QuoteState.PENDING_NEW && quote.quoteId === '' && quote.rfqId === rfqId && (subaccount < 0 || quote.subaccount === subaccount)) return quote;
    }
    return undefined;
  }

  #addLive(quote: Quote): void {
    quote.liveIndex = this.#live.length;
    this.#live.push(quote);
  }

  /** Takes a closed quote out of the live list, keeping handle order (the list is at most openQuotesMax long). */
  #removeLive(quote: Quote): void {
    const live = this.#live;
    const at = quote.liveIndex;
    if (at < 0 || live[at] !== quote) return;
    for (let i = at + 1; i < live.length; i++) {
      const next = live[i]!;
      next.liveIndex = i - 1;
      live[i - 1] = next;
    }
    live.length--;
    quote.liveIndex = -1;
  }

  /** The one place a quote's state changes: table, journal, open count, the strategy (unless its own request). */
  #apply(quote: Quote, event: QuoteEvent, code: string, own = false): void {
    const before = quote.state;
    const next = nextQuoteState(before, event);
    const nowMs = this.#clock.nowMs();
    quote.updatedMs = nowMs;
    if (code !== '') quote.lastCode = code;
    if (next === -1) {
      this.stats.anomalies++;
      quote.needsReconcile = true;
      this.#log.warn({ quoteId: quote.quoteId, rfqId: quote.rfqId, state: QUOTE_STATE_NAMES[before], event: QUOTE_EVENT_NAMES[event] }, 'quote book: no transition for this event; kept and reconciled');
      return;
    }
    quote.state = next;
    this.#journal?.appendQuote(quote, event, nowMs, code);
    this.#onExposure(quote); // the taken side (acceptedSide, set before) or nothing once closed
    const closedNow = isQuoteTerminal(next) && !isQuoteTerminal(before);
    if (closedNow) {
      this.#removeLive(quote);
      if (next === QuoteState.CANCELLED) this.stats.cancelled++;
      this.#onOpenCount(this.#live.length);
      this.#noteClosed(quote.handle);
    }
    if (!own && (next !== before || event === QuoteEvent.WS_ACCEPTED)) this.#sink?.onQuoteUpdate(quote);
  }

  /** Remembers a closed quote; beyond CLOSED_KEPT the oldest closed one is forgotten (ring: no shifting). */
  #noteClosed(handle: number): void {
    const ring = this.#closedHandles;
    if (this.#closedCount < CLOSED_KEPT) {
      ring[(this.#closedHead + this.#closedCount) % CLOSED_KEPT] = handle;
      this.#closedCount++;
      return;
    }
    const oldest = ring[this.#closedHead]!;
    ring[this.#closedHead] = handle;
    this.#closedHead = this.#closedHead + 1 === CLOSED_KEPT ? 0 : this.#closedHead + 1;
    this.#prune(oldest);
  }

  #prune(handle: number): void {
    const quote = this.#byHandle.get(handle);
    if (quote === undefined || !isQuoteTerminal(quote.state)) return;
    this.#byHandle.delete(handle);
    if (quote.quoteId !== '' && this.#byQuoteId.get(quote.quoteId) === quote) this.#byQuoteId.delete(quote.quoteId);
  }
}

/**
 * The index to visit after `visited`, which was at `index` of the open list: the same index when it
 * closed (and left the list) meanwhile, the next one otherwise. The walks visit open quotes in
 * handle order, quotes opened meanwhile included, as they did over the map of every quote.
 */
function nextLive(live: readonly Quote[], index: number, visited: Quote): number {
  return live[index] === visited ? index + 1 : index;
}

function venueEvent(status: WireQuote['status']): QuoteEvent {
  switch (status) {
    case 'open':
      return QuoteEvent.VENUE_OPEN;
    case 'accepted':
      return QuoteEvent.VENUE_ACCEPTED;
    case 'confirmed':
      return QuoteEvent.VENUE_CONFIRMED;
    case 'executed':
      return QuoteEvent.VENUE_EXECUTED;
    default:
      return QuoteEvent.VENUE_CANCELLED;
  }
}
