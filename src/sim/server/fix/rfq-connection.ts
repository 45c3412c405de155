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
 * requests are refused" on RFQ, so an unrestricted key may send them): R, UA and UE and the
 * requester's deliveries (35=S, unprompted UB, its ExecutionReports) are rfq-requester.ts, the very
 * code KalshiRT runs (fix.md §7 names RT as the requester's session; the simulator serves both).
 *
 * IDs: the maker's 117 on 35=S is its own; every answer carries the server quote id in 117 (AI has
 * it empty on REJECTED, so it is the server's). Z, U7 and UA take the server id, or the QuoteID
 * this session sent. The requester's 131 on 35=R is its own; the server RFQ id is 21023 on the
 * ack and 131 on what makers receive, and UE takes either.
 */

import {
  BusinessRejectReason, INT_INVALID, MsgType, SessionRejectReason, Tag, type FixEncoder, type FixMessage, type FixSession,
  type SessionKind,
} from '../../../fix/index.ts';
import { FifoMap } from '../../../core/index.ts';
import type { Price } from '../../../core/index.ts';
import { SUBACCOUNT_FORBIDDEN } from '../../auth/index.ts';
import { isSimError, type Quote, type Rfq } from '../../engine/index.ts';
import { allowedTags, ConnectionBase, type AcceptorContext } from './connection-base.ts';
import { writeExecutionReport, type ExecutionReportRecord } from './execution-report.ts';
import type { ReportSink } from './report-hub.ts';
import { QuoteStatus, type RfqHub, type RfqSink } from './rfq-hub.ts';
import {
  ID_CHARS_MAX, IDS_REMEMBERED_MAX, QuoteRequestRejectReason, RfqRequester, rfqTextOf, writeQuoteSizes,
} from './rfq-requester.ts';

const QUOTE_TAGS = allowedTags([
  Tag.QuoteID, Tag.QuoteReqID, Tag.Symbol, Tag.BidPx, Tag.OfferPx, Tag.ExecInst, Tag.AllocAccount, Tag.RestRemainder, Tag.RfqId,
]);
const QUOTE_CANCEL_TAGS = allowedTags([Tag.QuoteID, Tag.RfqId, Tag.AllocAccount]);
const QUOTE_CONFIRM_TAGS = allowedTags([Tag.QuoteID, Tag.RfqId, Tag.AllocAccount]);
const QUOTES_PATH = '/communications/quotes';
const QUOTE_PATH = '/communications/rfqs/{rfq_id}/quotes/{quote_id}';
const CONFIRM_PATH = '/communications/rfqs/{rfq_id}/quotes/{quote_id}/confirm';
export class RfqConnection extends ConnectionBase implements RfqSink, ReportSink {
  readonly #hub: RfqHub;
  /** QuoteIDs this session sent on 35=S -> server quote ids (bounded). */
  readonly #clientQuotes = new FifoMap<string, string>(IDS_REMEMBERED_MAX);
  /** The requester's side (R, UA, UE; 35=S and unprompted UB to the creator), shared with KalshiRT. */
  readonly #requester: RfqRequester;

  constructor(ctx: AcceptorContext, sessionName: string, hub: RfqHub) {
    super(ctx, sessionName);
    this.#hub = hub;
    // UA names the server quote id, or a QuoteID this session sent as a maker (the lookup is harmless for a requester).
    this.#requester = new RfqRequester(this, hub, (given) => this.#clientQuotes.get(given) ?? given);
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
    this.#requester.register();
    this.ctx.hub.register(this);
  }

  protected override onClosed(): void {
    this.#hub.unregister(this);
    this.#requester.unregister();
    this.ctx.hub.unregister(this);
  }

  protected handle(message: FixMessage, msgType: string): void {
    this.#hub.beginCall();
    try {
      switch (msgType) {
        case MsgType.Quote: return this.#quote(message);
        case MsgType.QuoteCancel: return this.#quoteCancel(message);
        case MsgType.QuoteConfirm: return this.#quoteConfirm(message);
        case MsgType.AcceptQuote:
        case MsgType.QuoteRequest:
        case MsgType.RFQCancel:
          return this.#requester.handle(message, msgType);
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

  sendQuoteStatus(quote: Quote, status: number, text: string): void {
    const session = this.#active();
    if (session === null) return;
    const encoder = session.begin(MsgType.QuoteStatusReport).string(Tag.QuoteID, quote.quoteId).string(Tag.QuoteReqID, quote.rfqId)
      .string(Tag.Symbol, quote.marketTicker).int(Tag.AllocAccount, quote.subaccount).int(Tag.QuoteStatus, status)
      .count(Tag.OrderQty, quote.contracts);
    this.#writeQuotePrice(encoder, Tag.BidPx, quote.yesBid);
    this.#writeQuotePrice(encoder, Tag.OfferPx, quote.noBid);
    writeQuoteSizes(encoder, quote);
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
    if (!this.mayTrade(message, clientQuoteId)) return;
    if (!this.admit(message, 'POST', QUOTES_PATH, clientQuoteId)) return;
    const reject = (text: string): void => this.#sendQuoteRejected(rfqId, symbol, text);
    const yesBid = this.#quotePrice(message, Tag.BidPx);
    const noBid = this.#quotePrice(message, Tag.OfferPx);
    if (yesBid === INT_INVALID || noBid === INT_INVALID) return reject('INVALID_PRICE');
    if (yesBid >= 10_000 || noBid >= 10_000) return reject('INVALID_PRICE');
    const execInst = message.getString(Tag.ExecInst) ?? '';
    if (execInst !== '' && execInst !== '6') return reject('INVALID_ORDER'); // only 6 (post-only) is documented on 35=S
    const subaccount = this.subaccountOf(message);
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
    this.#clientQuotes.set(clientQuoteId, quote.quoteId); // the oldest forgotten beyond IDS_REMEMBERED_MAX
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
    if (!this.mayTrade(message, given)) return;
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
    if (!this.mayTrade(message, given)) return;
    if (!this.admit(message, 'PUT', CONFIRM_PATH, given)) return;
    const quoteId = this.#clientQuotes.get(given) ?? given;
    this.#fundMakerOf(quoteId);
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

  // ---- helpers ----

  #active(): FixSession | null {
    const session = this.session;
    return session !== null && session.state === 'active' ? session : null;
  }


  /** Funds the maker's subaccount on the quote, as REST funds its caller. */
  #fundMakerOf(quoteId: string): void {
    const quote = this.ctx.engine.getQuote(this.userId, quoteId, null, this.lock);
    if (!isSimError(quote)) this.ctx.ensureFunded(this.userId, quote.subaccount);
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
