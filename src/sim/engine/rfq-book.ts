/**
 * The RFQ book: requests for quote and the quotes that answer them (interface-spec communications;
 * OpenAPI /communications/*; docs "Request for Quote": accept, then confirm). It owns both
 * records, their states, who may see and move them, the public communications ids, the
 * housekeeping the clock drives (confirm window, execution delay, retention), the roll, and the
 * temporary rate limit of post-only quoters that cross the book. Execution goes through the
 * matching part as two real orders, so an executed quote leaves trades on the market, fills for
 * both parties, positions and balances exactly as any other match. It never renders wire JSON and
 * never authenticates (the routes pass the caller's user and subaccount lock).
 *
 * Quote states (only the last three are durable; a roll clears the others):
 *
 *   open --accept (RFQ creator)--> accepted --confirm (quoter, within the window)--> confirmed
 *    |                               |                                                  |
 *    | delete, replaced, RFQ closed  | window passed                 execution delay ends|
 *    v                               v                                                  v
 *   cancelled <----------------------+                                               executed
 *
 * Execution: the RFQ creator's order is placed first (a GTC limit at the accepted price, so it
 * rests unless better-priced liquidity is in the book), then the quoter's order at the same price
 * on the other side, which executes against it; the quoter is the taker. A remainder rests only
 * when that party asked for it (rest_remainder), else it is cancelled. accepted_side names the
 * side the RFQ creator takes: yes = the creator buys YES at 1 - no_bid from the quoter's NO bid
 * (fix.md §4: 54=1 "accepts the maker's NO quote (the creator buys YES)", AcceptedSide 1 = Yes);
 * no = the creator buys NO at 1 - yes_bid from the quoter's YES bid.
 *
 * Choices where the documents are silent are listed in the README ("RFQs and quotes").
 */

import { createHash } from 'node:crypto';
import type { Centicents, Count, Price } from '../../core/index.ts';
import type {
  CreateQuoteParams, CreateRfqParams, Page, Quote, QuoteQuery, QuoteSide, QuoteStatus, Rfq, RfqQuery, RfqStatus, SimEngineOptions,
  SimError, MveLeg,
} from './types.ts';
import { ERR_BAD_LIMIT, ERR_BAD_SUBACCOUNT, ERR_INSUFFICIENT_BALANCE, ERR_MARKET_NOT_FOUND, ERR_USER_NOT_FOUND, simError } from './errors.ts';
import { decodeCursor, newestFirst, pageLimit } from './pagination.ts';
import { PRICE_ONE } from './money.ts';
import { validSubaccount, type Accounts } from './accounts.ts';
import type { IdSource } from './ids.ts';
import type { Venue } from './venue.ts';
import type { Matching } from './matching.ts';
import type { EngineEvents } from './events.ts';
import type { MarketState } from './market-state.ts';

const ERR_QUOTE_NOT_FOUND = simError(404, 'not_found', 'quote not found', 'NOT_FOUND');
const ERR_RFQ_NOT_FOUND = simError(404, 'not_found', 'rfq not found');
const ERR_QUOTE_EXPIRED = simError(400, 'quote_expired', 'the quote was cancelled or has expired', 'EXPIRED');
const ERR_POST_ONLY_QUOTE_CROSS = simError(400, 'invalid_order', 'post-only quote would cross the book', 'post only cross');
const ERR_QUOTER_LIMITED = simError(429, 'too_many_requests', 'too many post-only quotes crossed the book; try again later');

class RfqState implements Rfq {
  rfqId: string;
  userId: string;
  creatorId: string;
  subaccount: number;
  marketTicker: string;
  eventTicker: string;
  contracts: Count;
  targetCost: Centicents | null;
  restRemainder: boolean;
  status: RfqStatus;
  createdMs: number;
  updatedMs: number;
  closedMs: number;
  cancellationReason: string;
  mveCollectionTicker: string | null;
  mveSelectedLegs: readonly MveLeg[] | null;
  seq: number;
  quotes: QuoteState[];

  constructor(rfqId: string, userId: string, creatorId: string, market: MarketState, seq: number, nowMs: number) {
    this.rfqId = rfqId;
    this.userId = userId;
    this.creatorId = creatorId;
    this.subaccount = 0;
    this.marketTicker = market.ticker;
    this.eventTicker = market.eventTicker;
    this.contracts = 0 as Count;
    this.targetCost = null;
    this.restRemainder = false;
    this.status = 'open';
    this.createdMs = nowMs;
    this.updatedMs = nowMs;
    this.closedMs = 0;
    this.cancellationReason = '';
    this.mveCollectionTicker = market.mveCollectionTicker;
    this.mveSelectedLegs = market.mveSelectedLegs;
    this.seq = seq;
    this.quotes = [];
  }
}

class QuoteState implements Quote {
  quoteId: string;
  rfqId: string;
  userId: string;
  creatorId: string;
  subaccount: number;
  rfqUserId: string;
  rfqCreatorId: string;
  rfqSubaccount: number;
  marketTicker: string;
  eventTicker: string;
  yesBid: Price;
  noBid: Price;
  contracts: Count;
  yesContracts: Count;
  noContracts: Count;
  rfqTargetCost: Centicents | null;
  restRemainder: boolean;
  postOnly: boolean;
  status: QuoteStatus;
  acceptedSide: QuoteSide | null;
  createdMs: number;
  updatedMs: number;
  acceptedMs: number;
  confirmedMs: number;
  executedMs: number;
  cancelledMs: number;
  cancellationReason: string;
  creatorOrderId: string;
  creatorClientOrderId: string;
  rfqCreatorOrderId: string;
  rfqCreatorClientOrderId: string;
  seq: number;
  rfq: RfqState;
  /** When a confirmed quote executes (Unix ms). */
  executeAtMs: number;

  constructor(quoteId: string, userId: string, creatorId: string, rfq: RfqState, seq: number, nowMs: number) {
    this.quoteId = quoteId;
    this.rfqId = rfq.rfqId;
    this.userId = userId;
    this.creatorId = creatorId;
    this.subaccount = 0;
    this.rfqUserId = rfq.userId;
    this.rfqCreatorId = rfq.creatorId;
    this.rfqSubaccount = rfq.subaccount;
    this.marketTicker = rfq.marketTicker;
    this.eventTicker = rfq.eventTicker;
    this.yesBid = 0 as Price;
    this.noBid = 0 as Price;
    this.contracts = 0 as Count;
    this.yesContracts = 0 as Count;
    this.noContracts = 0 as Count;
    this.rfqTargetCost = rfq.targetCost;
    this.restRemainder = false;
    this.postOnly = false;
    this.status = 'open';
    this.acceptedSide = null;
    this.createdMs = nowMs;
    this.updatedMs = nowMs;
    this.acceptedMs = 0;
    this.confirmedMs = 0;
    this.executedMs = 0;
    this.cancelledMs = 0;
    this.cancellationReason = '';
    this.creatorOrderId = '';
    this.creatorClientOrderId = '';
    this.rfqCreatorOrderId = '';
    this.rfqCreatorClientOrderId = '';
    this.seq = seq;
    this.rfq = rfq;
    this.executeAtMs = 0;
  }
}

/** Contracts a target cost buys at `unit` (the per-contract price the requester pays), floored to 0.01. */
function contractsFor(targetCost: number, unit: number): Count {
  return (unit <= 0 ? 0 : Math.floor((targetCost * 100) / unit)) as Count;
}

function visibleTo(quote: QuoteState, userId: string, lock: number | null): boolean {
  if (quote.userId === userId && (lock === null || lock === quote.subaccount)) return true;
  return quote.rfqUserId === userId && (lock === null || lock === quote.rfqSubaccount);
}

export class RfqBook {
  readonly #now: () => number;
  readonly #options: Readonly<SimEngineOptions>;
  readonly #rfqIds: IdSource;
  readonly #quoteIds: IdSource;
  readonly #salt: string;
  readonly #venue: Venue;
  readonly #accounts: Accounts;
  readonly #matching: Matching;
  readonly #events: EngineEvents;
  readonly #rfqs = new Map<string, RfqState>();
  /** Every RFQ still retained, ascending seq (newest-first paging). */
  #rfqList: RfqState[] = [];
  readonly #quotes = new Map<string, QuoteState>();
  #quoteList: QuoteState[] = [];
  readonly #communicationsIds = new Map<string, string>();
  /** Post-only crossings per quoter (Unix ms, oldest first) and the end of a quoter's penalty. */
  readonly #crossings = new Map<string, number[]>();
  readonly #limitedUntil = new Map<string, number>();
  #seq = 0;
  /** Earliest deadline of any timer (confirm window, execution, retention); Infinity when none. */
  #nextDueMs = Number.POSITIVE_INFINITY;

  constructor(
    now: () => number, options: Readonly<SimEngineOptions>, rfqIds: IdSource, quoteIds: IdSource, salt: string,
    venue: Venue, accounts: Accounts, matching: Matching, events: EngineEvents,
  ) {
    this.#now = now;
    this.#options = options;
    this.#rfqIds = rfqIds;
    this.#quoteIds = quoteIds;
    this.#salt = salt;
    this.#venue = venue;
    this.#accounts = accounts;
    this.#matching = matching;
    this.#events = events;
  }

  /** The user's public communications id: a salted hash, stable for the run, never the user id. */
  communicationsId(userId: string): string {
    let id = this.#communicationsIds.get(userId);
    if (id === undefined) {
      id = createHash('sha256').update(`${this.#salt}:${userId}`).digest('hex').slice(0, 32);
      this.#communicationsIds.set(userId, id);
    }
    return id;
  }

  // ---------------------------------------------------------------------------------------------
  // RFQs.

  createRfq(userId: string, params: CreateRfqParams): Rfq | SimError {
    const nowMs = this.#housekeep();
    const user = this.#accounts.user(userId);
    if (user === undefined) return ERR_USER_NOT_FOUND;
    const subaccount = params.subaccount ?? 0;
    if (!validSubaccount(subaccount)) return ERR_BAD_SUBACCOUNT;
    const market = this.#venue.market(params.marketTicker);
    if (market === undefined) return ERR_MARKET_NOT_FOUND;
    const hasContracts = params.contracts !== undefined && params.contracts !== null;
    const hasCost = params.targetCost !== undefined && params.targetCost !== null;
    if (hasContracts === hasCost) return simError(400, 'bad_request', 'exactly one of contracts_fp (or contracts) and target_cost_dollars is required', 'contracts_fp,target_cost_dollars');
    if (hasContracts) {
      const count = params.contracts as number;
      if (!Number.isSafeInteger(count) || count <= 0 || count > this.#options.maxOrderCount) {
        return simError(400, 'invalid_order_size', 'contracts must be a positive multiple of 0.01 contract within the maximum order size', 'contracts_fp');
      }
    } else {
      const cost = params.targetCost as number;
      if (!Number.isSafeInteger(cost) || cost <= 0 || cost > this.#options.maxOrderCount * 100) {
        return simError(400, 'bad_request', 'target_cost_dollars must be a positive dollar amount', 'target_cost_dollars');
      }
    }
    const gate = this.#venue.tradingGate(market);
    if (gate !== null) return gate;
    if (params.replaceExisting === true) {
      for (const rfq of this.#rfqList) {
        if (rfq.status === 'open' && rfq.userId === userId && rfq.subaccount === subaccount && rfq.marketTicker === market.ticker) this.#closeRfq(rfq, 'replaced', nowMs);
      }
    }
    let open = 0;
    for (const rfq of this.#rfqList) if (rfq.status === 'open' && rfq.userId === userId) open++;
    if (open >= this.#options.maxOpenRfqsPerUser) {
      return simError(409, 'too_many_open_rfqs', `at most ${this.#options.maxOpenRfqsPerUser} RFQs may be open at a time`);
    }
    const rfq = new RfqState(this.#rfqIds.next(), userId, this.communicationsId(userId), market, ++this.#seq, nowMs);
    rfq.subaccount = subaccount;
    rfq.contracts = (hasContracts ? params.contracts : 0) as Count;
    rfq.targetCost = hasCost ? (params.targetCost as Centicents) : null;
    rfq.restRemainder = params.restRemainder;
    this.#rfqs.set(rfq.rfqId, rfq);
    this.#rfqList.push(rfq);
    this.#events.rfq('rfq_created', rfq, nowMs);
    return rfq;
  }

  getRfq(rfqId: string): Rfq | undefined {
    this.#housekeep();
    return this.#rfqs.get(rfqId);
  }

  listRfqs(userId: string, lock: number | null, query: RfqQuery): Page<Rfq> | SimError {
    this.#housekeep();
    const limit = pageLimit(query.limit, 100, 100);
    if (limit === -1) return ERR_BAD_LIMIT;
    const own = (rfq: RfqState): boolean => rfq.userId === userId && (lock === null || rfq.subaccount === lock);
    const match = (rfq: RfqState): boolean =>
      (query.self !== true || own(rfq)) &&
      (query.subaccount === undefined || query.subaccount === null || (own(rfq) && rfq.subaccount === query.subaccount)) &&
      (query.marketTicker === undefined || query.marketTicker === null || rfq.marketTicker === query.marketTicker) &&
      (query.eventTicker === undefined || query.eventTicker === null || rfq.eventTicker === query.eventTicker) &&
      (query.status === undefined || query.status === null || rfq.status === query.status) &&
      (query.creatorUserId === undefined || query.creatorUserId === null || rfq.userId === query.creatorUserId);
    return newestFirst<RfqState>(this.#rfqList, decodeCursor(query.cursor), limit, match);
  }

  /** Closes the caller's open RFQ (and cancels its open quotes). 404: unknown, another's, or closed. */
  deleteRfq(userId: string, rfqId: string, lock: number | null): SimError | null {
    const nowMs = this.#housekeep();
    const rfq = this.#rfqs.get(rfqId);
    if (rfq === undefined || rfq.userId !== userId || (lock !== null && rfq.subaccount !== lock) || rfq.status !== 'open') return ERR_RFQ_NOT_FOUND;
    this.#closeRfq(rfq, 'cancelled', nowMs);
    return null;
  }

  // ---------------------------------------------------------------------------------------------
  // Quotes.

  createQuote(userId: string, params: CreateQuoteParams): Quote | SimError {
    const nowMs = this.#housekeep();
    const user = this.#accounts.user(userId);
    if (user === undefined) return ERR_USER_NOT_FOUND;
    const subaccount = params.subaccount ?? 0;
    if (!validSubaccount(subaccount)) return ERR_BAD_SUBACCOUNT;
    const rfq = this.#rfqs.get(params.rfqId);
    if (rfq === undefined) return ERR_RFQ_NOT_FOUND;
    if (rfq.status !== 'open') return simError(400, 'invalid_order', 'the RFQ is closed', 'rfq_closed');
    if (rfq.userId === userId) return simError(400, 'invalid_order', 'cannot quote on your own RFQ', 'rfq_id');
    const market = this.#venue.market(rfq.marketTicker);
    if (market === undefined) return ERR_MARKET_NOT_FOUND;
    const gate = this.#venue.tradingGate(market);
    if (gate !== null) return gate;
    const yesBid = params.yesBid as number;
    const noBid = params.noBid as number;
    if (yesBid === 0 && noBid === 0) return simError(400, 'invalid_price', 'yes_bid and no_bid cannot both be zero', 'yes_bid,no_bid');
    if (yesBid !== 0 && market.book.levelOf(params.yesBid) === -1) return simError(400, 'invalid_price', 'yes_bid is not a valid price for this market', 'yes_bid');
    if (noBid !== 0 && market.book.levelOf((PRICE_ONE - noBid) as Price) === -1) return simError(400, 'invalid_price', 'no_bid is not a valid price for this market', 'no_bid');
    // A quoter whose post-only quotes crossed the book repeatedly is refused for a while (any quote).
    if ((this.#limitedUntil.get(userId) ?? 0) > nowMs) return ERR_QUOTER_LIMITED;
    const postOnly = params.postOnly === true;
    if (postOnly) {
      if ((yesBid !== 0 && this.#crosses(market, 0, yesBid)) || (noBid !== 0 && this.#crosses(market, 1, PRICE_ONE - noBid))) {
        this.#noteCrossing(userId, nowMs);
        return ERR_POST_ONLY_QUOTE_CROSS;
      }
    }
    // A new quote on the same RFQ replaces the maker's earlier open one (docs "Quotes").
    for (const earlier of rfq.quotes) {
      if (earlier.userId === userId && earlier.status === 'open') this.#cancelQuote(earlier, 'replaced', nowMs);
    }
    const quote = new QuoteState(this.#quoteIds.next(), userId, this.communicationsId(userId), rfq, ++this.#seq, nowMs);
    quote.subaccount = subaccount;
    quote.yesBid = params.yesBid;
    quote.noBid = params.noBid;
    quote.restRemainder = params.restRemainder;
    quote.postOnly = postOnly;
    if (rfq.targetCost === null) {
      quote.yesContracts = (noBid !== 0 ? rfq.contracts : 0) as Count;
      quote.noContracts = (yesBid !== 0 ? rfq.contracts : 0) as Count;
      quote.contracts = rfq.contracts;
    } else {
      // Sized by cost: the requester buys YES at 1 - no_bid, NO at 1 - yes_bid (docs "Sizing").
      quote.yesContracts = noBid !== 0 ? contractsFor(rfq.targetCost, PRICE_ONE - noBid) : (0 as Count);
      quote.noContracts = yesBid !== 0 ? contractsFor(rfq.targetCost, PRICE_ONE - yesBid) : (0 as Count);
      quote.contracts = (quote.yesContracts > quote.noContracts ? quote.yesContracts : quote.noContracts) as Count;
      if (quote.contracts === 0) return simError(400, 'invalid_order_size', 'the target cost buys less than 0.01 contract at these prices', 'target_cost_dollars');
    }
    rfq.quotes.push(quote);
    this.#quotes.set(quote.quoteId, quote);
    this.#quoteList.push(quote);
    this.#events.quote('quote_created', quote, rfq, nowMs);
    return quote;
  }

  /** The quote if the caller is one of its parties (and, with rfqId, it belongs to that RFQ); else 404. */
  getQuote(userId: string, quoteId: string, rfqId: string | null, lock: number | null): Quote | SimError {
    this.#housekeep();
    return this.#visibleQuote(userId, quoteId, rfqId, lock);
  }

  listQuotes(userId: string, lock: number | null, query: QuoteQuery): Page<Quote> | SimError {
    this.#housekeep();
    const limit = pageLimit(query.limit, 500, 500);
    if (limit === -1) return ERR_BAD_LIMIT;
    const minMs = query.minTs !== undefined && query.minTs !== null ? query.minTs * 1000 : Number.NEGATIVE_INFINITY;
    const maxMs = query.maxTs !== undefined && query.maxTs !== null ? query.maxTs * 1000 + 999 : Number.POSITIVE_INFINITY;
    const match = (q: QuoteState): boolean =>
      visibleTo(q, userId, lock) &&
      (query.self !== true || q.userId === userId) &&
      (query.rfqSelf !== true || q.rfqUserId === userId) &&
      (query.rfqId === undefined || query.rfqId === null || q.rfqId === query.rfqId) &&
      (query.status === undefined || query.status === null || q.status === query.status) &&
      (query.quoteCreatorUserId === undefined || query.quoteCreatorUserId === null || q.userId === query.quoteCreatorUserId) &&
      (query.rfqCreatorUserId === undefined || query.rfqCreatorUserId === null || q.rfqUserId === query.rfqCreatorUserId) &&
      q.updatedMs >= minMs &&
      q.updatedMs <= maxMs;
    return newestFirst<QuoteState>(this.#quoteList, decodeCursor(query.cursor), limit, match);
  }

  /** The quoter withdraws an open quote. 404 unknown/foreign/cleared; 400 when no longer open. */
  deleteQuote(userId: string, quoteId: string, rfqId: string | null, lock: number | null): SimError | null {
    const nowMs = this.#housekeep();
    const quote = this.#visibleQuote(userId, quoteId, rfqId, lock);
    if (!(quote instanceof QuoteState)) return quote;
    if (quote.userId !== userId || (lock !== null && quote.subaccount !== lock)) return simError(403, 'forbidden', 'only the quote creator may delete a quote');
    if (quote.status === 'cancelled') return ERR_QUOTE_EXPIRED;
    if (quote.status !== 'open') return simError(400, 'invalid_quote_status', `the quote is ${quote.status} and can no longer be deleted`);
    this.#cancelQuote(quote, 'deleted', nowMs);
    return null;
  }

  /** The RFQ creator accepts one side of an open quote; the quoter must then confirm. */
  acceptQuote(userId: string, quoteId: string, rfqId: string | null, side: QuoteSide, lock: number | null): Quote | SimError {
    const nowMs = this.#housekeep();
    const quote = this.#visibleQuote(userId, quoteId, rfqId, lock);
    if (!(quote instanceof QuoteState)) return quote;
    if (quote.rfqUserId !== userId || (lock !== null && quote.rfqSubaccount !== lock)) return simError(403, 'forbidden', 'only the RFQ creator may accept a quote');
    if (quote.status === 'cancelled') return ERR_QUOTE_EXPIRED;
    if (quote.status !== 'open') return simError(400, 'invalid_quote_status', `the quote is already ${quote.status}`);
    const rfq = quote.rfq;
    if (rfq.quotes.some((q) => q.status === 'accepted' || q.status === 'confirmed')) {
      return simError(400, 'invalid_quote_status', 'another quote of this RFQ is already accepted');
    }
    if ((side === 'yes' ? quote.noBid : quote.yesBid) === 0) return simError(400, 'bad_request', `the quote declines the ${side} side`, 'accepted_side');
    const market = this.#venue.market(quote.marketTicker);
    if (market === undefined) return ERR_MARKET_NOT_FOUND;
    const gate = this.#venue.tradingGate(market);
    if (gate !== null) return gate;
    const terms = this.#terms(quote, side);
    const user = this.#accounts.user(userId)!;
    if (this.#accounts.collateral(terms.creatorSide, terms.price, terms.count) > this.#accounts.available(user, quote.rfqSubaccount, market.exchangeIndex)) {
      return ERR_INSUFFICIENT_BALANCE;
    }
    quote.status = 'accepted';
    quote.acceptedSide = side;
    quote.acceptedMs = nowMs;
    quote.updatedMs = nowMs;
    this.#due(nowMs + this.#options.rfqConfirmWindowMs);
    this.#events.quote('quote_accepted', quote, rfq, nowMs);
    return quote;
  }

  /** The quoter confirms an accepted quote within the window; execution follows after the delay. */
  confirmQuote(userId: string, quoteId: string, rfqId: string | null, lock: number | null): Quote | SimError {
    const nowMs = this.#housekeep();
    const quote = this.#visibleQuote(userId, quoteId, rfqId, lock);
    if (!(quote instanceof QuoteState)) return quote;
    if (quote.userId !== userId || (lock !== null && quote.subaccount !== lock)) return simError(403, 'forbidden', 'only the quote creator may confirm a quote');
    if (quote.status === 'cancelled') return ERR_QUOTE_EXPIRED;
    if (quote.status !== 'accepted') return simError(400, 'invalid_quote_status', quote.status === 'open' ? 'the quote has not been accepted' : `the quote is already ${quote.status}`);
    const market = this.#venue.market(quote.marketTicker);
    if (market === undefined) return ERR_MARKET_NOT_FOUND;
    const terms = this.#terms(quote, quote.acceptedSide!);
    const user = this.#accounts.user(userId)!;
    if (this.#accounts.collateral(1 - terms.creatorSide, terms.price, terms.count) > this.#accounts.available(user, quote.subaccount, market.exchangeIndex)) {
      return ERR_INSUFFICIENT_BALANCE;
    }
    quote.status = 'confirmed';
    quote.confirmedMs = nowMs;
    quote.updatedMs = nowMs;
    quote.executeAtMs = nowMs + this.#options.rfqExecutionDelayMs;
    if (this.#options.rfqExecutionDelayMs <= 0) this.#execute(quote, nowMs);
    else this.#due(quote.executeAtMs);
    return quote;
  }

  /**
   * A server roll (or restart): open quotes are cleared (later requests for them are 404), and
   * so are cancelled ones; only accepted, confirmed and executed quotes are durable. Returns how
   * many quotes were cleared.
   */
  roll(): number {
    let cleared = 0;
    const kept: QuoteState[] = [];
    for (const quote of this.#quoteList) {
      if (quote.status === 'open' || quote.status === 'cancelled') {
        this.#quotes.delete(quote.quoteId);
        removeQuote(quote);
        cleared++;
      } else kept.push(quote);
    }
    this.#quoteList = kept;
    return cleared;
  }

  /** Runs the timers that are due now (confirm windows, executions, retention); every call runs it first. */
  runDue(): void {
    this.#housekeep();
  }

  // ---------------------------------------------------------------------------------------------
  // Internals.

  #visibleQuote(userId: string, quoteId: string, rfqId: string | null, lock: number | null): QuoteState | SimError {
    const quote = this.#quotes.get(quoteId);
    if (quote === undefined || !visibleTo(quote, userId, lock)) return ERR_QUOTE_NOT_FOUND;
    if (rfqId !== null && quote.rfqId !== rfqId) return ERR_QUOTE_NOT_FOUND; // a quote not of this RFQ is 404
    return quote;
  }

  /** Book side of the RFQ creator's order (0 bid, 1 ask), the YES price and count both orders use. */
  #terms(quote: QuoteState, side: QuoteSide): { creatorSide: number; price: Price; count: Count } {
    return side === 'yes'
      ? { creatorSide: 0, price: (PRICE_ONE - quote.noBid) as Price, count: quote.yesContracts }
      : { creatorSide: 1, price: quote.yesBid, count: quote.noContracts };
  }

  /** True when an order on `sideCode` at YES price `price` would take liquidity from the book now. */
  #crosses(market: MarketState, sideCode: number, price: number): boolean {
    const book = market.book;
    const level = book.levelOf(price as Price);
    if (level === -1) return false;
    return sideCode === 0 ? book.bestAsk !== -1 && book.bestAsk <= level : book.bestBid !== -1 && book.bestBid >= level;
  }

  /** One post-only crossing by `userId`; the limit-th within the window starts a penalty. */
  #noteCrossing(userId: string, nowMs: number): void {
    let list = this.#crossings.get(userId);
    if (list === undefined) this.#crossings.set(userId, (list = []));
    list.push(nowMs);
    const from = nowMs - this.#options.postOnlyCrossWindowMs;
    while (list.length > 0 && list[0] <= from) list.shift();
    if (list.length >= this.#options.postOnlyCrossLimit) {
      this.#limitedUntil.set(userId, nowMs + this.#options.postOnlyCrossPenaltyMs);
      list.length = 0;
    }
  }

  #execute(quote: QuoteState, nowMs: number): void {
    const rfq = quote.rfq;
    const side = quote.acceptedSide!;
    const terms = this.#terms(quote, side);
    const market = this.#venue.market(quote.marketTicker);
    if (market === undefined || this.#venue.tradingGate(market) !== null) {
      this.#cancelQuote(quote, 'market_closed', nowMs);
      return;
    }
    const quoterSide = 1 - terms.creatorSide;
    // Post-only: the quoter's order is cancelled rather than take liquidity other than the
    // requester's (checked before the requester's order enters the book).
    if (quote.postOnly && this.#crosses(market, quoterSide, terms.price)) {
      this.#noteCrossing(quote.userId, nowMs);
      this.#cancelQuote(quote, 'PostOnlyCrossCancel', nowMs);
      return;
    }
    const creatorClientId = this.#quoteIds.next();
    const creator = this.#matching.createOrder(rfq.userId, {
      ticker: market.ticker,
      clientOrderId: creatorClientId,
      side: terms.creatorSide === 0 ? 'bid' : 'ask',
      price: terms.price,
      count: terms.count,
      timeInForce: 'good_till_canceled',
      selfTradePrevention: 'taker_at_cross',
      subaccount: rfq.subaccount,
    });
    if (creator.isError) {
      this.#cancelQuote(quote, `execution_failed:${creator.code}`, nowMs);
      return;
    }
    const quoterClientId = this.#quoteIds.next();
    const quoter = this.#matching.createOrder(quote.userId, {
      ticker: market.ticker,
      clientOrderId: quoterClientId,
      side: quoterSide === 0 ? 'bid' : 'ask',
      price: terms.price,
      count: terms.count,
      timeInForce: 'good_till_canceled',
      selfTradePrevention: 'taker_at_cross',
      subaccount: quote.subaccount,
      quoteExecution: true,
    });
    if (quoter.isError) {
      if (creator.order.status === 'resting') this.#matching.cancelOrder(rfq.userId, creator.order.orderId, rfq.subaccount);
      this.#cancelQuote(quote, `execution_failed:${quoter.code}`, nowMs);
      return;
    }
    // Remainders rest only for the party that asked for it.
    if (!rfq.restRemainder && creator.order.status === 'resting') this.#matching.cancelOrder(rfq.userId, creator.order.orderId, rfq.subaccount);
    if (!quote.restRemainder && quoter.order.status === 'resting') this.#matching.cancelOrder(quote.userId, quoter.order.orderId, quote.subaccount);
    quote.status = 'executed';
    quote.executedMs = nowMs;
    quote.updatedMs = nowMs;
    quote.creatorOrderId = quoter.order.orderId;
    quote.creatorClientOrderId = quoterClientId;
    quote.rfqCreatorOrderId = creator.order.orderId;
    quote.rfqCreatorClientOrderId = creatorClientId;
    this.#events.quote('quote_executed', quote, rfq, nowMs);
    this.#closeRfq(rfq, 'executed', nowMs);
  }

  #cancelQuote(quote: QuoteState, reason: string, nowMs: number): void {
    quote.status = 'cancelled';
    quote.cancelledMs = nowMs;
    quote.updatedMs = nowMs;
    quote.cancellationReason = reason;
    this.#due(nowMs + this.#options.rfqRetentionMs);
  }

  /** An open RFQ closes: its open and accepted quotes are cancelled; makers hear rfq_deleted. */
  #closeRfq(rfq: RfqState, reason: string, nowMs: number): void {
    if (rfq.status !== 'open') return;
    rfq.status = 'closed';
    rfq.closedMs = nowMs;
    rfq.updatedMs = nowMs;
    rfq.cancellationReason = reason;
    for (const quote of rfq.quotes) if (quote.status === 'open' || quote.status === 'accepted') this.#cancelQuote(quote, 'rfq_closed', nowMs);
    this.#due(nowMs + this.#options.rfqRetentionMs);
    this.#events.rfq('rfq_deleted', rfq, nowMs);
  }

  #due(atMs: number): void {
    if (atMs < this.#nextDueMs) this.#nextDueMs = atMs;
  }

  /** Runs due timers; returns now. A scan only when the earliest deadline has passed. */
  #housekeep(): number {
    const nowMs = this.#now();
    if (nowMs < this.#nextDueMs) return nowMs;
    this.#nextDueMs = Number.POSITIVE_INFINITY;
    const window = this.#options.rfqConfirmWindowMs;
    const retention = this.#options.rfqRetentionMs;
    for (const quote of this.#quoteList.slice()) {
      if (quote.status === 'accepted') {
        if (nowMs - quote.acceptedMs > window) this.#cancelQuote(quote, 'confirm_timeout', nowMs);
        else this.#due(quote.acceptedMs + window + 1);
      } else if (quote.status === 'confirmed') {
        if (quote.executeAtMs <= nowMs) this.#execute(quote, nowMs);
        else this.#due(quote.executeAtMs);
      }
    }
    // Retention: closed RFQs and cancelled quotes leave 7 days after their last update.
    const quotes: QuoteState[] = [];
    for (const quote of this.#quoteList) {
      if (quote.status === 'cancelled' && quote.updatedMs + retention <= nowMs) {
        this.#quotes.delete(quote.quoteId);
        removeQuote(quote);
      } else {
        quotes.push(quote);
        if (quote.status === 'cancelled') this.#due(quote.updatedMs + retention);
      }
    }
    this.#quoteList = quotes;
    const rfqs: RfqState[] = [];
    for (const rfq of this.#rfqList) {
      if (rfq.status === 'closed' && rfq.updatedMs + retention <= nowMs) this.#rfqs.delete(rfq.rfqId);
      else {
        rfqs.push(rfq);
        if (rfq.status === 'closed') this.#due(rfq.updatedMs + retention);
      }
    }
    this.#rfqList = rfqs;
    return nowMs;
  }
}

/** Drops a quote from its RFQ's list. */
function removeQuote(quote: QuoteState): void {
  const list = quote.rfq.quotes;
  const at = list.indexOf(quote);
  if (at !== -1) list.splice(at, 1);
}
