/**
 * One KalshiRFQ connection (fix.md §7), mapped onto the engine's RFQ book exactly as the REST
 * routes of routes/communications.ts call it (same user, subaccount scoping, rules and token
 * costs; a throttled message gets BusinessMessageReject 380=8). 141=Y is the session layer's rule
 * (tags.ts: KalshiRFQ resets, no retransmission).
 *
 * Maker side: Quote (35=S, ExecInst 6 = post-only) answered by QuoteStatusReport (35=AI) PENDING
 * or REJECTED; QuoteCancel (35=Z) answered by QuoteCancelStatus (35=U9) and AI CANCELLED;
 * QuoteConfirm (35=U7) answered by QuoteConfirmStatus (35=U8), then the ExecutionReports of the
 * trade (rfq-hub.ts). Unsolicited: QuoteRequest (35=R) per new RFQ, QuoteRequestReject (35=AG,
 * 658=99) when an RFQ closes, AI ACCEPTED when the creator accepts (REST or FIX).
 * Requester side on the same session (fix.md §2: a subaccount-restricted key's "35=R and 35=UA
 * requests are refused" on RFQ, so an unrestricted key may send them): QuoteRequest (35=R)
 * answered by QuoteRequestAck (35=b) or QuoteRequestReject (35=AG; an invalid combo carries
 * 658=99, 20187 and the 20185/20186 group), AcceptQuote (35=UA) answered by AcceptQuoteStatus
 * (35=UC; 58=NOT_FOUND or EXPIRED), RFQCancel (35=UE) answered by RFQCancelStatus (35=UB); the
 * creator's sessions receive each quote as 35=S with the maker's communications id (453/448/452=35).
 *
 * IDs: the maker's 117 on 35=S is its own; every answer carries the server quote id in 117 (AI has
 * it empty on REJECTED, so it is the server's). Z, U7 and UA take the server id, or the QuoteID
 * this session sent. The requester's 131 on 35=R is its own; the server RFQ id is 21023 on the
 * ack and 131 on what makers receive, and UE takes either.
 */

import {
  BusinessRejectReason, FixGroup, INT_INVALID, MsgType, SessionRejectReason, Tag, type FixEncoder, type FixMessage, type FixSession,
  type SessionKind,
} from '../../../fix/index.ts';
import { FifoMap } from '../../../core/index.ts';
import type { Centicents, Count, Price } from '../../../core/index.ts';
import { resolveSubaccount, scopesAllow, SUBACCOUNT_FORBIDDEN } from '../../auth/index.ts';
import { isSimError, type MveLeg, type Quote, type QuoteSide, type Rfq, type SimError } from '../../engine/index.ts';
import { allowedTags, ConnectionBase, type AcceptorContext } from './connection-base.ts';
import { writeExecutionReport, type ExecutionReportRecord } from './execution-report.ts';
import type { ReportSink } from './report-hub.ts';
import { QuoteStatus, type RfqHub, type RfqSink } from './rfq-hub.ts';

const QUOTE_TAGS = allowedTags([
  Tag.QuoteID, Tag.QuoteReqID, Tag.Symbol, Tag.BidPx, Tag.OfferPx, Tag.ExecInst, Tag.AllocAccount, Tag.RestRemainder, Tag.RfqId,
]);
const QUOTE_CANCEL_TAGS = allowedTags([Tag.QuoteID, Tag.RfqId, Tag.AllocAccount]);
const QUOTE_CONFIRM_TAGS = allowedTags([Tag.QuoteID, Tag.RfqId, Tag.AllocAccount]);
const PARTY_TAGS = [Tag.NoPartyIDs, Tag.PartyID, 447, Tag.PartyRole];
const ACCEPT_TAGS = allowedTags([Tag.QuoteID, Tag.RfqId, Tag.Side, Tag.OrderQty, Tag.ClOrdID, Tag.PreferBetterQuote, Tag.AllocAccount, ...PARTY_TAGS]);
const RFQ_CANCEL_TAGS = allowedTags([Tag.QuoteReqID, Tag.RfqId, Tag.AllocAccount, ...PARTY_TAGS]);
const QUOTE_REQUEST_TAGS = allowedTags([
  Tag.QuoteReqID, Tag.NoRelatedSym, Tag.Symbol, Tag.OrderQty, Tag.CashOrderQty, Tag.RestRemainder, Tag.ReplaceExisting, Tag.AllocAccount,
  Tag.MultivariateCollectionTicker, Tag.NoMultivariateSelectedLegs, Tag.MultivariateSelectedEventTicker, Tag.MultivariateSelectedMarketTicker,
  Tag.MultivariateSelectedSide, ...PARTY_TAGS,
]);

const ID_CHARS_MAX = 64;
const LEGS_MAX = 64;
/** PartyRole(452) on the quote a requester receives: liquidity provider (fix.md §7). */
const PARTY_ROLE_LIQUIDITY_PROVIDER = 35;
/** QuoteRequestRejectReason(658), fix.md §7. */
const QuoteRequestRejectReason = { UNKNOWN_SYMBOL: 1, EXCEEDS_LIMIT: 3, INSUFFICIENT_CREDIT: 11, OTHER: 99 } as const;

const QUOTES_PATH = '/communications/quotes';
const QUOTE_PATH = '/communications/rfqs/{rfq_id}/quotes/{quote_id}';
const ACCEPT_PATH = '/communications/rfqs/{rfq_id}/quotes/{quote_id}/accept';
const CONFIRM_PATH = '/communications/rfqs/{rfq_id}/quotes/{quote_id}/confirm';
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

export class RfqConnection extends ConnectionBase implements RfqSink, ReportSink {
  readonly #hub: RfqHub;
  /** QuoteIDs this session sent on 35=S -> server quote ids (bounded). */
  readonly #clientQuotes = new FifoMap<string, string>(IDS_REMEMBERED_MAX);
  /** QuoteReqIDs this session sent on 35=R -> server RFQ ids, and back (bounded). */
  readonly #clientRfqs = new FifoMap<string, string>(IDS_REMEMBERED_MAX);
  readonly #rfqClientIds = new FifoMap<string, string>(IDS_REMEMBERED_MAX);
  readonly #group = new FixGroup(LEGS_MAX);

  constructor(ctx: AcceptorContext, sessionName: string, hub: RfqHub) {
    super(ctx, sessionName);
    this.#hub = hub;
  }

  get lock(): number | null {
    return this.key?.subaccount ?? null;
  }

  override authorize(logon: FixMessage, keyId: string, kind: SessionKind): string | null {
    if (logon.getFlag(Tag.ListenerSession)) return 'ListenerSession(20126) is allowed on KalshiNR and KalshiRT only';
    return super.authorize(logon, keyId, kind);
  }

  protected override onLogon(): void {
    this.#hub.register(this);
    this.ctx.hub.register(this);
  }

  protected override onClosed(): void {
    this.#hub.unregister(this);
    this.ctx.hub.unregister(this);
  }

  protected handle(message: FixMessage, msgType: string): void {
    this.#hub.beginCall();
    try {
      switch (msgType) {
        case MsgType.Quote: return this.#quote(message);
        case MsgType.QuoteCancel: return this.#quoteCancel(message);
        case MsgType.QuoteConfirm: return this.#quoteConfirm(message);
        case MsgType.AcceptQuote: return this.#acceptQuote(message);
        case MsgType.QuoteRequest: return this.#quoteRequest(message);
        case MsgType.RFQCancel: return this.#rfqCancel(message);
        default:
          if (Object.values(MsgType).includes(msgType as MsgType)) {
            this.businessReject(message, BusinessRejectReason.UNSUPPORTED_MESSAGE_TYPE, `Unsupported message type ${msgType} on KalshiRFQ`, '');
          } else {
            this.sessionReject(message, SessionRejectReason.INVALID_MSG_TYPE, Tag.MsgType, msgType, 'Invalid MsgType');
          }
      }
    } finally {
      this.#hub.endCall();
    }
  }

  // ---- deliveries (rfq-hub.ts, report-hub.ts) ----

  deliver(record: ExecutionReportRecord): void {
    const session = this.#active();
    if (session === null) return;
    writeExecutionReport(session.begin(MsgType.ExecutionReport), record, this.flags);
    session.send();
  }

  sendQuoteRequest(rfq: Rfq): void {
    const session = this.#active();
    if (session === null) return;
    const encoder = session.begin(MsgType.QuoteRequest).string(Tag.QuoteReqID, rfq.rfqId);
    writeComboLegs(encoder, rfq);
    encoder.int(Tag.NoRelatedSym, 1).string(Tag.Symbol, rfq.marketTicker);
    if (rfq.targetCost === null) encoder.count(Tag.OrderQty, rfq.contracts);
    else encoder.dollars(Tag.CashOrderQty, rfq.targetCost, 2);
    encoder.int(Tag.NoPartyIDs, 1).string(Tag.PartyID, rfq.creatorId);
    session.send();
  }

  sendRfqClosed(rfq: Rfq): void {
    const session = this.#active();
    if (session === null) return;
    session.begin(MsgType.QuoteRequestReject).string(Tag.QuoteReqID, rfq.rfqId)
      .int(Tag.QuoteRequestRejectReason, QuoteRequestRejectReason.OTHER).string(Tag.Text, `RFQ closed: ${rfq.cancellationReason}`);
    session.send();
  }

  sendRfqExpired(rfq: Rfq): void {
    const session = this.#active();
    if (session === null) return;
    session.begin(MsgType.RFQCancelStatus).string(Tag.QuoteReqID, this.#rfqClientIds.get(rfq.rfqId) ?? rfq.rfqId)
      .int(Tag.RFQCancelStatus, 2).string(Tag.RfqId, rfq.rfqId).string(Tag.Text, rfq.cancellationReason);
    session.send();
  }

  sendQuoteToRequester(quote: Quote): void {
    const session = this.#active();
    if (session === null) return;
    const encoder = session.begin(MsgType.Quote).string(Tag.QuoteID, quote.quoteId).string(Tag.QuoteReqID, quote.rfqId)
      .string(Tag.Symbol, quote.marketTicker);
    if (quote.yesBid !== 0) encoder.price(Tag.BidPx, quote.yesBid); // dollars whatever 21005 (fix.md §4)
    if (quote.noBid !== 0) encoder.price(Tag.OfferPx, quote.noBid);
    encoder.count(Tag.OrderQty, quote.contracts);
    writeSizes(encoder, quote);
    encoder.int(Tag.NoPartyIDs, 1).string(Tag.PartyID, quote.creatorId).int(Tag.PartyRole, PARTY_ROLE_LIQUIDITY_PROVIDER);
    session.send();
  }

  sendQuoteStatus(quote: Quote, status: number, text: string): void {
    const session = this.#active();
    if (session === null) return;
    const encoder = session.begin(MsgType.QuoteStatusReport).string(Tag.QuoteID, quote.quoteId).string(Tag.QuoteReqID, quote.rfqId)
      .string(Tag.Symbol, quote.marketTicker).int(Tag.AllocAccount, quote.subaccount).int(Tag.QuoteStatus, status)
      .count(Tag.OrderQty, quote.contracts);
    this.#writeQuotePrice(encoder, Tag.BidPx, quote.yesBid);
    this.#writeQuotePrice(encoder, Tag.OfferPx, quote.noBid);
    writeSizes(encoder, quote);
    if (status === QuoteStatus.ACCEPTED && quote.acceptedSide !== null) encoder.string(Tag.Side, quote.acceptedSide === 'yes' ? '1' : '2');
    if (text !== '') encoder.string(Tag.Text, text);
    session.send();
  }

  // ---- Quote (35=S) ----

  #quote(message: FixMessage): void {
    const msgType = MsgType.Quote;
    if (!this.checkTags(message, msgType, QUOTE_TAGS)) return;
    if (!this.checkRequired(message, msgType, [Tag.QuoteID, Tag.QuoteReqID, Tag.Symbol])) return;
    const clientQuoteId = this.text(message, Tag.QuoteID, ID_CHARS_MAX);
    if (clientQuoteId === null) return this.sessionReject(message, SessionRejectReason.VALUE_INCORRECT, Tag.QuoteID, msgType, 'QuoteID must be 1 to 64 printable characters');
    const rfqId = this.text(message, Tag.QuoteReqID, ID_CHARS_MAX);
    const symbol = this.text(message, Tag.Symbol, 200);
    if (rfqId === null || symbol === null) return this.sessionReject(message, SessionRejectReason.VALUE_INCORRECT, rfqId === null ? Tag.QuoteReqID : Tag.Symbol, msgType, 'Invalid value');
    if (!this.#mayTrade(message, clientQuoteId)) return;
    if (!this.admit(message, 'POST', QUOTES_PATH, clientQuoteId)) return;
    const reject = (text: string): void => this.#sendQuoteRejected(rfqId, symbol, text);
    const yesBid = this.#quotePrice(message, Tag.BidPx);
    const noBid = this.#quotePrice(message, Tag.OfferPx);
    if (yesBid === INT_INVALID || noBid === INT_INVALID) return reject('INVALID_PRICE');
    if (yesBid >= 10_000 || noBid >= 10_000) return reject('INVALID_PRICE');
    const execInst = message.getString(Tag.ExecInst) ?? '';
    if (execInst !== '' && execInst !== '6') return reject('INVALID_ORDER'); // only 6 (post-only) is documented on 35=S
    const subaccount = this.#subaccountOf(message);
    if (subaccount === SUBACCOUNT_FORBIDDEN) return reject('PERMISSION_DENIED');
    const rfqScoped = message.getString(Tag.RfqId);
    if (rfqScoped !== null && rfqScoped !== rfqId) return reject('NOT_FOUND');
    const rfq = this.ctx.engine.getRfq(rfqId);
    if (rfq !== undefined && rfq.marketTicker !== symbol) return reject('MARKET_NOT_FOUND'); // 55 must be the RFQ's market
    this.ctx.ensureFunded(this.userId, subaccount); // as REST funds its caller (routes/caller.ts)
    const quote = this.ctx.engine.createQuote(this.userId, {
      rfqId, yesBid: yesBid as Price, noBid: noBid as Price, restRemainder: message.getFlag(Tag.RestRemainder), postOnly: execInst === '6', subaccount,
    });
    if (isSimError(quote)) {
      // The venue's temporary limit on post-only quoters that cross repeatedly is a rate limit (380=8).
      if (quote.status === 429) return this.businessReject(message, BusinessRejectReason.RATE_LIMIT_EXCEEDED, 'Rate limit exceeded', clientQuoteId);
      return reject(rfqTextOf(quote));
    }
    this.#hub.own(quote, this.keyId, clientQuoteId);
    remember(this.#clientQuotes, clientQuoteId, quote.quoteId);
    this.sendQuoteStatus(quote, QuoteStatus.PENDING, '');
  }

  #sendQuoteRejected(rfqId: string, symbol: string, text: string): void {
    const session = this.#active();
    if (session === null) return;
    // fix.md §7 "117 (empty if rejected)": no quote exists; an empty field is not valid FIX, so 117 is left out.
    session.begin(MsgType.QuoteStatusReport).string(Tag.QuoteReqID, rfqId).string(Tag.Symbol, symbol)
      .int(Tag.QuoteStatus, QuoteStatus.REJECTED).string(Tag.Text, text);
    session.send();
  }

  // ---- QuoteCancel (35=Z) ----

  #quoteCancel(message: FixMessage): void {
    const msgType = MsgType.QuoteCancel;
    if (!this.checkTags(message, msgType, QUOTE_CANCEL_TAGS)) return;
    if (!this.checkRequired(message, msgType, [Tag.QuoteID])) return;
    const given = this.text(message, Tag.QuoteID, ID_CHARS_MAX);
    if (given === null) return this.sessionReject(message, SessionRejectReason.VALUE_INCORRECT, Tag.QuoteID, msgType, 'Invalid QuoteID');
    if (!this.#mayTrade(message, given)) return;
    if (!this.admit(message, 'DELETE', QUOTE_PATH, given)) return;
    const quoteId = this.#clientQuotes.get(given) ?? given;
    const error = this.ctx.engine.deleteQuote(this.userId, quoteId, message.getString(Tag.RfqId), this.lock);
    const session = this.#active();
    if (session === null) return;
    const encoder = session.begin(MsgType.QuoteCancelStatus).string(Tag.QuoteID, quoteId).int(Tag.QuoteCancelStatus, error === null ? 0 : 1);
    if (error !== null) encoder.string(Tag.Text, rfqTextOf(error));
    session.send();
    if (error !== null) return;
    const quote = this.ctx.engine.getQuote(this.userId, quoteId, null, this.lock);
    if (!isSimError(quote)) this.sendQuoteStatus(quote, QuoteStatus.CANCELLED, '');
  }

  // ---- QuoteConfirm (35=U7) ----

  #quoteConfirm(message: FixMessage): void {
    const msgType = MsgType.QuoteConfirm;
    if (!this.checkTags(message, msgType, QUOTE_CONFIRM_TAGS)) return;
    if (!this.checkRequired(message, msgType, [Tag.QuoteID])) return;
    const given = this.text(message, Tag.QuoteID, ID_CHARS_MAX);
    if (given === null) return this.sessionReject(message, SessionRejectReason.VALUE_INCORRECT, Tag.QuoteID, msgType, 'Invalid QuoteID');
    if (!this.#mayTrade(message, given)) return;
    if (!this.admit(message, 'PUT', CONFIRM_PATH, given)) return;
    const quoteId = this.#clientQuotes.get(given) ?? given;
    this.#fundPartyOf(quoteId, false);
    const quote = this.ctx.engine.confirmQuote(this.userId, quoteId, message.getString(Tag.RfqId), this.lock);
    const session = this.#active();
    if (session === null) return;
    const failed = isSimError(quote);
    const encoder = session.begin(MsgType.QuoteConfirmStatus).string(Tag.QuoteID, quoteId)
      .int(Tag.QuoteConfirmStatus, failed ? 1 : 0).int(Tag.QuoteStatus, failed ? 1 : 0); // 297: the legacy copy (fix.md §7)
    if (failed) encoder.string(Tag.Text, rfqTextOf(quote));
    session.send();
    // Executed at once (no execution delay) but cancelled on the way (post-only cross, a closed market).
    if (!failed && quote.status === 'cancelled') this.sendQuoteStatus(quote, QuoteStatus.CANCELLED, quote.cancellationReason);
  }

  // ---- requester side: AcceptQuote (35=UA), QuoteRequest (35=R), RFQCancel (35=UE) ----

  #acceptQuote(message: FixMessage): void {
    const msgType = MsgType.AcceptQuote;
    if (!this.checkTags(message, msgType, ACCEPT_TAGS)) return;
    if (!this.checkRequired(message, msgType, [Tag.QuoteID, Tag.Side])) return;
    const given = this.text(message, Tag.QuoteID, ID_CHARS_MAX);
    if (given === null) return this.sessionReject(message, SessionRejectReason.VALUE_INCORRECT, Tag.QuoteID, msgType, 'Invalid QuoteID');
    const sideCode = message.getString(Tag.Side);
    if (sideCode !== '1' && sideCode !== '2') return this.sessionReject(message, SessionRejectReason.VALUE_INCORRECT, Tag.Side, msgType, 'Side must be 1 or 2');
    if (!this.#mayRequest(message, given)) return;
    if (!this.admit(message, 'PUT', ACCEPT_PATH, given)) return;
    // fix.md §4: 54=1 accepts the maker's NO quote (the creator buys YES), 54=2 the YES quote.
    const side: QuoteSide = sideCode === '1' ? 'yes' : 'no';
    const quoteId = this.#clientQuotes.get(given) ?? given;
    this.#fundPartyOf(quoteId, true);
    const result = this.ctx.engine.acceptQuote(this.userId, quoteId, message.getString(Tag.RfqId), side, this.lock);
    const session = this.#active();
    if (session === null) return;
    const encoder = session.begin(MsgType.AcceptQuoteStatus).string(Tag.QuoteID, quoteId);
    if (isSimError(result)) encoder.int(Tag.AcceptQuoteStatus, 1);
    else encoder.int(Tag.AcceptQuoteStatus, 0).string(Tag.AcceptedQuoteId, result.quoteId);
    const clOrdId = message.getString(Tag.ClOrdID);
    if (clOrdId !== null) encoder.string(Tag.ClOrdID, clOrdId);
    if (isSimError(result)) encoder.string(Tag.Text, rfqTextOf(result));
    session.send();
  }

  #quoteRequest(message: FixMessage): void {
    const msgType = MsgType.QuoteRequest;
    if (!this.checkTags(message, msgType, QUOTE_REQUEST_TAGS)) return;
    if (!this.checkRequired(message, msgType, [Tag.QuoteReqID, Tag.NoRelatedSym])) return;
    const reqId = this.text(message, Tag.QuoteReqID, ID_CHARS_MAX);
    if (reqId === null) return this.sessionReject(message, SessionRejectReason.VALUE_INCORRECT, Tag.QuoteReqID, msgType, 'Invalid QuoteReqID');
    if (message.getInt(Tag.NoRelatedSym) !== 1) return this.sessionReject(message, SessionRejectReason.VALUE_INCORRECT, Tag.NoRelatedSym, msgType, 'NoRelatedSym must be 1');
    if (!this.#mayRequest(message, reqId)) return;
    if (!this.admit(message, 'POST', RFQS_PATH, reqId)) return;
    const reject = (reason: number, text: string, error: SimError | null = null): void => this.#sendRequestRejected(reqId, reason, text, error);
    const subaccount = this.#subaccountOf(message);
    if (subaccount === SUBACCOUNT_FORBIDDEN) return reject(QuoteRequestRejectReason.OTHER, 'PERMISSION_DENIED');
    let marketTicker = message.getString(Tag.Symbol);
    const collection = message.getString(Tag.MultivariateCollectionTicker);
    if (collection !== null) {
      const legs = this.#legsOf(message);
      if (legs === null) return this.sessionReject(message, SessionRejectReason.VALUE_INCORRECT, Tag.NoMultivariateSelectedLegs, msgType, 'Invalid multivariate legs');
      const combo = this.ctx.engine.createComboMarket(collection, legs);
      if (isSimError(combo)) return reject(QuoteRequestRejectReason.OTHER, combo.message, combo);
      marketTicker = combo.market.ticker;
    }
    if (marketTicker === null || marketTicker === '') return reject(QuoteRequestRejectReason.UNKNOWN_SYMBOL, 'MARKET_NOT_FOUND');
    const hasQty = message.has(Tag.OrderQty);
    const hasCash = message.has(Tag.CashOrderQty);
    const contracts = hasQty ? message.getCount(Tag.OrderQty) : null;
    const targetCost = hasCash ? message.getDollars(Tag.CashOrderQty) : null;
    if (contracts === INT_INVALID || targetCost === INT_INVALID) return reject(QuoteRequestRejectReason.OTHER, 'INVALID_ORDER');
    this.ctx.ensureFunded(this.userId, subaccount);
    const rfq = this.ctx.engine.createRfq(this.userId, {
      marketTicker, contracts: contracts as Count | null, targetCost: targetCost as Centicents | null,
      restRemainder: message.getFlag(Tag.RestRemainder), replaceExisting: message.getFlag(Tag.ReplaceExisting), subaccount,
    });
    if (isSimError(rfq)) {
      const reason = rfq.code === 'market_not_found' ? QuoteRequestRejectReason.UNKNOWN_SYMBOL
        : rfq.code === 'insufficient_balance' ? QuoteRequestRejectReason.INSUFFICIENT_CREDIT
          : rfq.status === 409 ? QuoteRequestRejectReason.EXCEEDS_LIMIT : QuoteRequestRejectReason.OTHER;
      return reject(reason, rfqTextOf(rfq));
    }
    remember(this.#clientRfqs, reqId, rfq.rfqId);
    remember(this.#rfqClientIds, rfq.rfqId, reqId);
    const session = this.#active();
    if (session === null) return;
    const market = this.ctx.engine.getMarket(rfq.marketTicker);
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

  #rfqCancel(message: FixMessage): void {
    const msgType = MsgType.RFQCancel;
    if (!this.checkTags(message, msgType, RFQ_CANCEL_TAGS)) return;
    const reqId = message.getString(Tag.QuoteReqID);
    const serverId = message.getString(Tag.RfqId);
    if (reqId === null && serverId === null) return this.sessionReject(message, SessionRejectReason.REQUIRED_TAG_MISSING, Tag.RfqId, msgType, 'QuoteReqID or RfqId required');
    if (!this.#mayRequest(message, reqId ?? serverId ?? '')) return;
    if (!this.admit(message, 'DELETE', RFQ_PATH, reqId ?? serverId ?? '')) return;
    const rfqId = serverId ?? this.#clientRfqs.get(reqId as string) ?? (reqId as string);
    let error: SimError | null = null;
    this.#hub.closingByCreator(rfqId, () => {
      error = this.ctx.engine.deleteRfq(this.userId, rfqId, this.lock);
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
    const session = this.session;
    return session !== null && session.state === 'active' ? session : null;
  }

  /** Keys without a trading scope may not quote (fix.md §3, 380=6). */
  #mayTrade(message: FixMessage, refId: string): boolean {
    if (this.key !== null && scopesAllow(this.key.scopes, 'trade')) return true;
    this.businessReject(message, BusinessRejectReason.NOT_AUTHORIZED, 'API key lacks a trading scope', refId);
    return false;
  }

  /** Requester messages: a trading scope and an unrestricted key (fix.md §2: a restricted key's R and UA are refused). */
  #mayRequest(message: FixMessage, refId: string): boolean {
    if (!this.#mayTrade(message, refId)) return false;
    if (this.lock === null) return true;
    this.businessReject(message, BusinessRejectReason.NOT_AUTHORIZED, 'A subaccount-restricted API key may only quote (maker side)', refId);
    return false;
  }

  /** Funds the caller's subaccount on the quote (the RFQ's when `requester`), as REST funds its caller. */
  #fundPartyOf(quoteId: string, requester: boolean): void {
    const quote = this.ctx.engine.getQuote(this.userId, quoteId, null, this.lock);
    if (!isSimError(quote)) this.ctx.ensureFunded(this.userId, requester ? quote.rfqSubaccount : quote.subaccount);
  }

  #subaccountOf(message: FixMessage): number {
    let requested: number | null = null;
    if (message.has(Tag.AllocAccount)) {
      const value = message.getInt(Tag.AllocAccount);
      if (value === INT_INVALID || value < 0 || value > 63) return SUBACCOUNT_FORBIDDEN;
      requested = value;
    }
    return resolveSubaccount(this.key, requested, 0);
  }

  /** BidPx/OfferPx on 35=S: cents (or dollars with 21005=Y); absent = 0 (that side not quoted). */
  #quotePrice(message: FixMessage, tag: number): number {
    if (!message.has(tag)) return 0;
    return this.flags.dollars ? message.getPrice(tag) : message.getPriceCents(tag);
  }

  /** 132/133 on AI: whole cents (fix.md §4: only the integer part is used), dollars with 21005=Y (ours). */
  #writeQuotePrice(encoder: FixEncoder, tag: number, price: number): void {
    if (this.flags.dollars) encoder.price(tag, price);
    else encoder.int(tag, Math.floor(price / 100));
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

/** BidSize(134) / OfferSize(135): contracts the maker trades at BidPx (its YES bid, taken when the creator accepts NO) and at OfferPx. */
function writeSizes(encoder: FixEncoder, quote: Quote): void {
  if (quote.yesBid !== 0) encoder.count(Tag.BidSize, quote.noContracts);
  if (quote.noBid !== 0) encoder.count(Tag.OfferSize, quote.yesContracts);
}

/** The combo tags of a QuoteRequest to makers (fix.md §7: in the body). */
function writeComboLegs(encoder: FixEncoder, rfq: Rfq): void {
  const legs = rfq.mveSelectedLegs;
  if (rfq.mveCollectionTicker === null || legs === null) return;
  encoder.string(Tag.MultivariateCollectionTicker, rfq.mveCollectionTicker).int(Tag.NoMultivariateSelectedLegs, legs.length);
  for (const leg of legs) {
    encoder.string(Tag.MultivariateSelectedEventTicker, leg.eventTicker).string(Tag.MultivariateSelectedMarketTicker, leg.marketTicker)
      .string(Tag.MultivariateSelectedSide, leg.side);
  }
}

const IDS_REMEMBERED_MAX = 10_000;

function remember(map: FifoMap<string, string>, key: string, value: string): void {
  map.set(key, value); // the oldest id forgotten beyond IDS_REMEMBERED_MAX
}
