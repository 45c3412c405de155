/**
 * The RFQ requester's side of FIX (fix.md §7: "The requester (RFQ creator) uses KalshiRT: sends R,
 * UA and UE; receives b, S, UC, UB, AG and 8"), one instance per connection, shared by the two
 * sessions that serve it: KalshiRT (order-entry-connection.ts, the venue's documented home) and
 * KalshiRFQ (rfq-connection.ts, kept because fix.md §2 refuses only a restricted key's 35=R and
 * 35=UA there, so an unrestricted key may act as requester on it too). It owns the requester's
 * message handlers and the requester's deliveries, so both sessions behave byte for byte alike;
 * it answers through the connection it serves and never keeps a socket of its own.
 *
 * - QuoteRequest (35=R) -> QuoteRequestAck (35=b, 21023 = server RFQ id, 100) or QuoteRequestReject
 *   (35=AG, 658 1/3/11/99; an invalid combo 99 plus 20187 and the 20185/20186 group).
 * - AcceptQuote (35=UA) -> AcceptQuoteStatus (35=UC, 21024 on success; 58 NOT_FOUND / EXPIRED).
 *   An accepted quote is recorded with the hub, so that once the maker confirms, the requester's
 *   side of the execution comes back as ExecutionReports (35=8) to this key (rfq-hub.ts).
 * - RFQCancel (35=UE) -> RFQCancelStatus (35=UB, 21013=0 or 1).
 * - Deliveries from the hub: each quote on the creator's RFQs as 35=S (dollars, 453=1 / 448 = the
 *   maker's communications id / 452=35), and an unprompted UB 21013=2 when the venue closes the RFQ.
 *
 * Mapped onto the RFQ book exactly as the REST routes (routes/communications.ts): same user,
 * subaccount scoping, funding and token costs (R = POST rfqs, UA = PUT accept, UE = DELETE rfq).
 * Refused with BusinessMessageReject 380=6: keys without a trading scope, listener sessions (fix.md
 * §3 "a listener sending D/F/G/q/R/UA"), and subaccount-restricted keys (fix.md §2; such a key
 * cannot open KalshiRT at all, so on RT this is a second line of defence).
 */

import {
  BusinessRejectReason, FixGroup, INT_INVALID, MsgType, SessionRejectReason, Tag, type FixEncoder, type FixMessage, type FixSession,
} from '../../../fix/index.ts';
import { FifoMap } from '../../../core/index.ts';
import type { Centicents, Count } from '../../../core/index.ts';
import { scopesAllow, SUBACCOUNT_FORBIDDEN } from '../../auth/index.ts';
import { isSimError, type MveLeg, type Quote, type QuoteSide, type Rfq, type SimError } from '../../engine/index.ts';
import { allowedTags, type ConnectionBase } from './connection-base.ts';
import type { RequesterSink, RfqHub } from './rfq-hub.ts';

const PARTY_TAGS = [Tag.NoPartyIDs, Tag.PartyID, 447, Tag.PartyRole];
const ACCEPT_TAGS = allowedTags([Tag.QuoteID, Tag.RfqId, Tag.Side, Tag.OrderQty, Tag.ClOrdID, Tag.PreferBetterQuote, Tag.AllocAccount, ...PARTY_TAGS]);
const RFQ_CANCEL_TAGS = allowedTags([Tag.QuoteReqID, Tag.RfqId, Tag.AllocAccount, ...PARTY_TAGS]);
const QUOTE_REQUEST_TAGS = allowedTags([
  Tag.QuoteReqID, Tag.NoRelatedSym, Tag.Symbol, Tag.OrderQty, Tag.CashOrderQty, Tag.RestRemainder, Tag.ReplaceExisting, Tag.AllocAccount,
  Tag.MultivariateCollectionTicker, Tag.NoMultivariateSelectedLegs, Tag.MultivariateSelectedEventTicker, Tag.MultivariateSelectedMarketTicker,
  Tag.MultivariateSelectedSide, ...PARTY_TAGS,
]);

/** QuoteID(117), QuoteReqID(131) and friends: at most 64 printable characters (ours, as ClOrdID). */
export const ID_CHARS_MAX = 64;
/** Client ids remembered per session (QuoteReqID <-> server RFQ id, QuoteID -> server quote id); the oldest forgotten first. */
export const IDS_REMEMBERED_MAX = 10_000;
const LEGS_MAX = 64;
/** PartyRole(452) on the quote a requester receives: liquidity provider (fix.md §7). */
const PARTY_ROLE_LIQUIDITY_PROVIDER = 35;
/** QuoteRequestRejectReason(658), fix.md §7. */
export const QuoteRequestRejectReason = { UNKNOWN_SYMBOL: 1, EXCEEDS_LIMIT: 3, INSUFFICIENT_CREDIT: 11, OTHER: 99 } as const;

const ACCEPT_PATH = '/communications/rfqs/{rfq_id}/quotes/{quote_id}/accept';
const RFQS_PATH = '/communications/rfqs';
const RFQ_PATH = '/communications/rfqs/{rfq_id}';

/** Text(58) for an RFQ book error: the venue's NOT_FOUND / EXPIRED, else the error code in capitals. */
export function rfqTextOf(error: SimError): string {
  if (error.details === 'NOT_FOUND' || error.details === 'EXPIRED') return error.details;
  if (error.details === 'post only cross') return 'POST_ONLY_CROSS';
  if (error.status === 403) return 'PERMISSION_DENIED';
  if (error.status === 404) return 'NOT_FOUND';
  return error.code.toUpperCase();
}

/** BidSize(134) / OfferSize(135): contracts the maker trades at BidPx (its YES bid, taken when the creator accepts NO) and at OfferPx. */
export function writeQuoteSizes(encoder: FixEncoder, quote: Quote): void {
  if (quote.yesBid !== 0) encoder.count(Tag.BidSize, quote.noContracts);
  if (quote.noBid !== 0) encoder.count(Tag.OfferSize, quote.yesContracts);
}

/** True for the message types this module serves. */
export function isRequesterMsgType(msgType: string): boolean {
  return msgType === MsgType.QuoteRequest || msgType === MsgType.AcceptQuote || msgType === MsgType.RFQCancel;
}

export class RfqRequester implements RequesterSink {
  readonly #connection: ConnectionBase;
  readonly #hub: RfqHub;
  /** The server quote id a QuoteID on 35=UA names (KalshiRFQ: also the maker's own ids; KalshiRT: itself). */
  readonly #quoteIdOf: (given: string) => string;
  /** QuoteReqIDs this session sent on 35=R -> server RFQ ids, and back (bounded). */
  readonly #clientRfqs = new FifoMap<string, string>(IDS_REMEMBERED_MAX);
  readonly #rfqClientIds = new FifoMap<string, string>(IDS_REMEMBERED_MAX);
  readonly #group = new FixGroup(LEGS_MAX);

  constructor(connection: ConnectionBase, hub: RfqHub, quoteIdOf: (given: string) => string) {
    this.#connection = connection;
    this.#hub = hub;
    this.#quoteIdOf = quoteIdOf;
  }

  get keyId(): string {
    return this.#connection.keyId;
  }

  get userId(): string {
    return this.#connection.userId;
  }

  get lock(): number | null {
    return this.#connection.key?.subaccount ?? null;
  }

  /** Starts the deliveries (after Logon). Listener sessions cannot request, so they get none. */
  register(): void {
    if (!this.#connection.listener) this.#hub.registerRequester(this);
  }

  unregister(): void {
    this.#hub.unregisterRequester(this);
  }

  /** Handles R, UA or UE (isRequesterMsgType); the hub's own sends wait until the direct answer is out. */
  handle(message: FixMessage, msgType: string): void {
    this.#hub.beginCall();
    try {
      if (msgType === MsgType.QuoteRequest) this.#quoteRequest(message);
      else if (msgType === MsgType.AcceptQuote) this.#acceptQuote(message);
      else this.#rfqCancel(message);
    } finally {
      this.#hub.endCall();
    }
  }

  // ---- deliveries (rfq-hub.ts) ----

  sendQuoteToRequester(quote: Quote): void {
    const session = this.#active();
    if (session === null) return;
    const encoder = session.begin(MsgType.Quote).string(Tag.QuoteID, quote.quoteId).string(Tag.QuoteReqID, quote.rfqId)
      .string(Tag.Symbol, quote.marketTicker);
    if (quote.yesBid !== 0) encoder.price(Tag.BidPx, quote.yesBid); // dollars whatever 21005 (fix.md §4)
    if (quote.noBid !== 0) encoder.price(Tag.OfferPx, quote.noBid);
    encoder.count(Tag.OrderQty, quote.contracts);
    writeQuoteSizes(encoder, quote);
    encoder.int(Tag.NoPartyIDs, 1).string(Tag.PartyID, quote.creatorId).int(Tag.PartyRole, PARTY_ROLE_LIQUIDITY_PROVIDER);
    session.send();
  }

  sendRfqExpired(rfq: Rfq): void {
    const session = this.#active();
    if (session === null) return;
    session.begin(MsgType.RFQCancelStatus).string(Tag.QuoteReqID, this.#rfqClientIds.get(rfq.rfqId) ?? rfq.rfqId)
      .int(Tag.RFQCancelStatus, 2).string(Tag.RfqId, rfq.rfqId).string(Tag.Text, rfq.cancellationReason);
    session.send();
  }

  // ---- QuoteRequest (35=R) ----

  #quoteRequest(message: FixMessage): void {
    const connection = this.#connection;
    const msgType = MsgType.QuoteRequest;
    if (!connection.checkTags(message, msgType, QUOTE_REQUEST_TAGS)) return;
    if (!connection.checkRequired(message, msgType, [Tag.QuoteReqID, Tag.NoRelatedSym])) return;
    const reqId = connection.text(message, Tag.QuoteReqID, ID_CHARS_MAX);
    if (reqId === null) return connection.sessionReject(message, SessionRejectReason.VALUE_INCORRECT, Tag.QuoteReqID, msgType, 'Invalid QuoteReqID');
    if (message.getInt(Tag.NoRelatedSym) !== 1) return connection.sessionReject(message, SessionRejectReason.VALUE_INCORRECT, Tag.NoRelatedSym, msgType, 'NoRelatedSym must be 1');
    if (!this.#mayRequest(message, reqId)) return;
    if (!connection.admit(message, 'POST', RFQS_PATH, reqId)) return;
    const reject = (reason: number, text: string, error: SimError | null = null): void => this.#sendRequestRejected(reqId, reason, text, error);
    const subaccount = connection.subaccountOf(message);
    if (subaccount === SUBACCOUNT_FORBIDDEN) return reject(QuoteRequestRejectReason.OTHER, 'PERMISSION_DENIED');
    const engine = connection.ctx.engine;
    let marketTicker = message.getString(Tag.Symbol);
    const collection = message.getString(Tag.MultivariateCollectionTicker);
    if (collection !== null) {
      const legs = this.#legsOf(message);
      if (legs === null) return connection.sessionReject(message, SessionRejectReason.VALUE_INCORRECT, Tag.NoMultivariateSelectedLegs, msgType, 'Invalid multivariate legs');
      const combo = engine.createComboMarket(collection, legs);
      if (isSimError(combo)) return reject(QuoteRequestRejectReason.OTHER, combo.message, combo);
      marketTicker = combo.market.ticker;
    }
    if (marketTicker === null || marketTicker === '') return reject(QuoteRequestRejectReason.UNKNOWN_SYMBOL, 'MARKET_NOT_FOUND');
    const contracts = message.has(Tag.OrderQty) ? message.getCount(Tag.OrderQty) : null;
    const targetCost = message.has(Tag.CashOrderQty) ? message.getDollars(Tag.CashOrderQty) : null;
    if (contracts === INT_INVALID || targetCost === INT_INVALID) return reject(QuoteRequestRejectReason.OTHER, 'INVALID_ORDER');
    connection.ctx.ensureFunded(connection.userId, subaccount);
    const rfq = engine.createRfq(connection.userId, {
      marketTicker, contracts: contracts as Count | null, targetCost: targetCost as Centicents | null,
      restRemainder: message.getFlag(Tag.RestRemainder), replaceExisting: message.getFlag(Tag.ReplaceExisting), subaccount,
    });
    if (isSimError(rfq)) {
      const reason = rfq.code === 'market_not_found' ? QuoteRequestRejectReason.UNKNOWN_SYMBOL
        : rfq.code === 'insufficient_balance' ? QuoteRequestRejectReason.INSUFFICIENT_CREDIT
          : rfq.status === 409 ? QuoteRequestRejectReason.EXCEEDS_LIMIT : QuoteRequestRejectReason.OTHER;
      return reject(reason, rfqTextOf(rfq));
    }
    this.#clientRfqs.set(reqId, rfq.rfqId);
    this.#rfqClientIds.set(rfq.rfqId, reqId);
    const session = this.#active();
    if (session === null) return;
    const market = engine.getMarket(rfq.marketTicker);
    const encoder = session.begin(MsgType.QuoteRequestAck).string(Tag.QuoteReqID, reqId).int(Tag.QuoteRequestType, 1)
      .string(Tag.RfqId, rfq.rfqId).string(Tag.Symbol, rfq.marketTicker);
    if (market !== undefined) encoder.int(Tag.ExDestination, market.exchangeIndex);
    session.send();
  }

  #sendRequestRejected(reqId: string, reason: number, text: string, error: SimError | null): void {
    const session = this.#active();
    if (session === null) return;
    const encoder = session.begin(MsgType.QuoteRequestReject).string(Tag.QuoteReqID, reqId).int(Tag.QuoteRequestRejectReason, reason)
      .string(Tag.Text, text);
    const mve = error !== null && (error.code === 'conflicting_leg_outcomes' || error.code === 'duplicated_legs' || error.code === 'invalid_market_combination');
    if (mve) {
      // fix.md §7: an invalid combo keeps 658=99 and adds the reason code and, when known, the offending legs.
      encoder.string(Tag.MVEValidationReasonCode, error.code);
      const tickers = (error.details ?? '').split(',').filter((ticker) => ticker !== '');
      if (tickers.length > 0) {
        encoder.int(Tag.NoMVEOffendingLegs, tickers.length);
        for (const ticker of tickers) encoder.string(Tag.MVEOffendingMarketTicker, ticker);
      }
    }
    session.send();
  }

  // ---- AcceptQuote (35=UA) ----

  #acceptQuote(message: FixMessage): void {
    const connection = this.#connection;
    const msgType = MsgType.AcceptQuote;
    if (!connection.checkTags(message, msgType, ACCEPT_TAGS)) return;
    if (!connection.checkRequired(message, msgType, [Tag.QuoteID, Tag.Side])) return;
    const given = connection.text(message, Tag.QuoteID, ID_CHARS_MAX);
    if (given === null) return connection.sessionReject(message, SessionRejectReason.VALUE_INCORRECT, Tag.QuoteID, msgType, 'Invalid QuoteID');
    const sideCode = message.getString(Tag.Side);
    if (sideCode !== '1' && sideCode !== '2') return connection.sessionReject(message, SessionRejectReason.VALUE_INCORRECT, Tag.Side, msgType, 'Side must be 1 or 2');
    const clOrdId = message.getString(Tag.ClOrdID);
    if (!this.#mayRequest(message, given)) return;
    if (!connection.admit(message, 'PUT', ACCEPT_PATH, given)) return;
    // fix.md §4: 54=1 accepts the maker's NO quote (the creator buys YES), 54=2 the YES quote.
    const side: QuoteSide = sideCode === '1' ? 'yes' : 'no';
    const quoteId = this.#quoteIdOf(given);
    const engine = connection.ctx.engine;
    const lock = this.lock;
    // Funds the RFQ's subaccount, as REST funds its caller (routes/caller.ts).
    const known = engine.getQuote(connection.userId, quoteId, null, lock);
    if (!isSimError(known)) connection.ctx.ensureFunded(connection.userId, known.rfqSubaccount);
    const result = engine.acceptQuote(connection.userId, quoteId, message.getString(Tag.RfqId), side, lock);
    // The requester's side of the execution is reported to this key (11 = this ClOrdID when sent).
    if (!isSimError(result)) this.#hub.accepted(result, connection.keyId, clOrdId);
    const session = this.#active();
    if (session === null) return;
    const encoder = session.begin(MsgType.AcceptQuoteStatus).string(Tag.QuoteID, quoteId);
    if (isSimError(result)) encoder.int(Tag.AcceptQuoteStatus, 1);
    else encoder.int(Tag.AcceptQuoteStatus, 0).string(Tag.AcceptedQuoteId, result.quoteId);
    if (clOrdId !== null) encoder.string(Tag.ClOrdID, clOrdId);
    if (isSimError(result)) encoder.string(Tag.Text, rfqTextOf(result));
    session.send();
  }

  // ---- RFQCancel (35=UE) ----

  #rfqCancel(message: FixMessage): void {
    const connection = this.#connection;
    const msgType = MsgType.RFQCancel;
    if (!connection.checkTags(message, msgType, RFQ_CANCEL_TAGS)) return;
    const reqId = message.getString(Tag.QuoteReqID);
    const serverId = message.getString(Tag.RfqId);
    if (reqId === null && serverId === null) return connection.sessionReject(message, SessionRejectReason.REQUIRED_TAG_MISSING, Tag.RfqId, msgType, 'QuoteReqID or RfqId required');
    if (!this.#mayRequest(message, reqId ?? serverId ?? '')) return;
    if (!connection.admit(message, 'DELETE', RFQ_PATH, reqId ?? serverId ?? '')) return;
    const rfqId = serverId ?? this.#clientRfqs.get(reqId as string) ?? (reqId as string);
    let error: SimError | null = null;
    this.#hub.closingByCreator(rfqId, () => {
      error = connection.ctx.engine.deleteRfq(connection.userId, rfqId, this.lock);
    });
    const session = this.#active();
    if (session === null) return;
    const failed = error as SimError | null;
    const encoder = session.begin(MsgType.RFQCancelStatus).string(Tag.QuoteReqID, reqId ?? this.#rfqClientIds.get(rfqId) ?? rfqId)
      .int(Tag.RFQCancelStatus, failed === null ? 0 : 1).string(Tag.RfqId, rfqId);
    if (failed !== null) encoder.string(Tag.Text, rfqTextOf(failed));
    session.send();
  }

  // ---- helpers ----

  #active(): FixSession | null {
    const session = this.#connection.session;
    return session !== null && session.state === 'active' ? session : null;
  }

  /**
   * Requester messages need a trading scope, a session that is not a listener (fix.md §3) and an
   * unrestricted key (fix.md §2: a restricted key's R and UA are refused; UE with them, having no
   * RFQ of its own to cancel). Refusals are BusinessMessageReject 380=6.
   */
  #mayRequest(message: FixMessage, refId: string): boolean {
    const connection = this.#connection;
    const key = connection.key;
    let why = '';
    if (connection.listener) why = 'Listener session cannot trade';
    else if (key === null || !scopesAllow(key.scopes, 'trade')) why = 'API key lacks a trading scope';
    else if (key.subaccount !== null) why = 'A subaccount-restricted API key may only quote (maker side)';
    if (why === '') return true;
    connection.businessReject(message, BusinessRejectReason.NOT_AUTHORIZED, why, refId);
    return false;
  }

  #legsOf(message: FixMessage): MveLeg[] | null {
    const count = message.readGroup(Tag.NoMultivariateSelectedLegs, Tag.MultivariateSelectedEventTicker, this.#group, null);
    if (count <= 0) return null;
    const legs: MveLeg[] = [];
    for (let k = 0; k < count; k++) {
      const from = this.#group.start(k);
      const to = this.#group.end(k);
      const eventTicker = message.stringAt(message.indexOf(Tag.MultivariateSelectedEventTicker, from, to));
      const marketTicker = message.stringAt(message.indexOf(Tag.MultivariateSelectedMarketTicker, from, to));
      const side = message.stringAt(message.indexOf(Tag.MultivariateSelectedSide, from, to));
      if (eventTicker === null || marketTicker === null || (side !== 'yes' && side !== 'no')) return null;
      legs.push({ eventTicker, marketTicker, side });
    }
    return legs;
  }
}
