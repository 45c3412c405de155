/**
 * One KalshiMD connection (fix.md §8): MarketDataRequest (35=V) for a snapshot (263=0), a snapshot
 * plus updates (263=1) or a cancel (263=2, of the listed symbols or, without 146, of all),
 * answered with MarketDataSnapshotFullRefresh (W), MarketDataIncrementalRefresh (X) as the book
 * and trades move, and MarketDataRequestReject (Y: 281=4 an unsupported 263, 281=2 the symbol limit);
 * SecurityStatusRequest (35=e, 263=1/2, exactly one 55) answered by SecurityStatus (f) on changes
 * only (no initial status). 141=Y is the session layer's rule (tags.ts: KalshiMD resets).
 *
 * Choices where fix.md is silent (§12 item 9): MDReqID(262) is ignored except that W and Y echo it
 * when the request carried one; 264/265/267/269 on V are ignored; an X carries one entry per book
 * change; 271 on a book entry is the level's new total (279=0 new, 1 change, 2 delete with 271=0);
 * Offer prices are YES-scale asks (market-data-hub.ts). Book entries carry 11 and 79 when the
 * receiver's own order caused the change (interface-spec). A V is billed like GET of the market's
 * order book (fix.md §1: same buckets and costs as REST), and counts one message per symbol in the
 * connection's message-rate bound (its answer grows with them).
 *
 * Output budget (fix-acceptor.ts): a V whose answer finds the connection's unsent output at or
 * above the budget is cut there: the symbols already answered stay answered (and subscribed), the
 * rest get one 35=Y 281=2 "insufficient bandwidth" (fix.md §8). An increment or status that finds
 * the budget full is never dropped silently (a subscriber's book would be wrong without telling it):
 * the subscriber is logged out ("Slow consumer") and reconnects for fresh snapshots.
 *
 * SecurityStatusRequest: Symbol 1 to 128 printable characters (as on V), an unknown market is
 * BusinessMessageReject 380=2 (unknown security; our reading, V answers an empty snapshot instead),
 * billed like GET of the market, and counted with the books against the subscription limit.
 */

import {
  BusinessRejectReason, FixGroup, MsgType, SessionRejectReason, Tag, type FixEncoder, type FixMessage,
} from '../../../fix/index.ts';
import type { Count, Price } from '../../../core/index.ts';
import { allowedTags, ConnectionBase, type AcceptorContext } from './connection-base.ts';
import type { LevelCause, MarketDataSink, MarketDataSource, TradeEntry } from './market-data-hub.ts';

const MD_REQUEST_TAGS = allowedTags([
  Tag.MDReqID, Tag.SubscriptionRequestType, Tag.MarketDepth, Tag.MDUpdateType, Tag.NoRelatedSym, Tag.Symbol,
  267, Tag.MDEntryType, // NoMDEntryTypes / MDEntryType: standard engines send them; ignored
]);
const STATUS_REQUEST_TAGS = allowedTags([Tag.SubscriptionRequestType, Tag.Symbol, 324]); // 324 SecurityStatusReqID: ignored

/** MDReqRejReason(281), fix.md §8. */
export const MDReqRejReason = { INSUFFICIENT_BANDWIDTH: 2, UNSUPPORTED_SUBSCRIPTION_REQUEST_TYPE: 4 } as const;

const SYMBOLS_PER_REQUEST_MAX = 1024;
const SYMBOL_CHARS_MAX = 128;

export class MarketDataConnection extends ConnectionBase implements MarketDataSink {
  readonly #hub: MarketDataSource;
  readonly #subscriptionsMax: number;
  readonly #books = new Set<string>();
  readonly #statuses = new Set<string>();
  readonly #group = new FixGroup(SYMBOLS_PER_REQUEST_MAX);

  constructor(ctx: AcceptorContext, sessionName: string, hub: MarketDataSource, subscriptionsMax: number) {
    super(ctx, sessionName);
    this.#hub = hub;
    this.#subscriptionsMax = subscriptionsMax;
  }

  /** Active subscriptions (books and security status). */
  get subscriptionCount(): number {
    return this.#books.size + this.#statuses.size;
  }

  protected override onClosed(): void {
    for (const ticker of this.#books) this.#hub.unsubscribeBook(this, ticker);
    for (const ticker of this.#statuses) this.#hub.unsubscribeStatus(this, ticker);
    this.#books.clear();
    this.#statuses.clear();
  }

  protected handle(message: FixMessage, msgType: string): void {
    switch (msgType) {
      case MsgType.MarketDataRequest:
        this.#onMarketDataRequest(message, msgType);
        return;
      case MsgType.SecurityStatusRequest:
        this.#onSecurityStatusRequest(message, msgType);
        return;
      default:
        this.businessReject(message, BusinessRejectReason.UNSUPPORTED_MESSAGE_TYPE, 'Unsupported message type on KalshiMD', '');
    }
  }

  #onMarketDataRequest(message: FixMessage, msgType: string): void {
    if (!this.checkTags(message, msgType, MD_REQUEST_TAGS)) return;
    if (!this.checkRequired(message, msgType, [Tag.SubscriptionRequestType])) return;
    const requestId = message.getString(Tag.MDReqID);
    const type = message.getInt(Tag.SubscriptionRequestType);
    if (type !== 0 && type !== 1 && type !== 2) {
      this.#reject(requestId, MDReqRejReason.UNSUPPORTED_SUBSCRIPTION_REQUEST_TYPE, 'Unsupported SubscriptionRequestType');
      return;
    }
    if (!this.admit(message, 'GET', '/markets/{ticker}/orderbook', requestId ?? '')) return;
    const count = message.readGroup(Tag.NoRelatedSym, Tag.Symbol, this.#group, null);
    if (count === -1) {
      this.sessionReject(message, SessionRejectReason.VALUE_INCORRECT, Tag.NoRelatedSym, msgType, 'Incorrect NumInGroup count for repeating group');
      return;
    }
    if (count > 1 && !this.chargeMessages(count - 1)) return; // the message itself was counted on arrival
    if (type === 2 && count === 0) { // cancel all
      this.onClosed();
      return;
    }
    if (count === 0) {
      this.sessionReject(message, SessionRejectReason.REQUIRED_TAG_MISSING, Tag.NoRelatedSym, msgType, 'Conditionally required field missing');
      return;
    }
    const symbols: string[] = [];
    for (let k = 0; k < count; k++) {
      const index = message.indexOf(Tag.Symbol, this.#group.start(k), this.#group.end(k));
      const symbol = message.stringAt(index);
      if (symbol === null || symbol.length === 0 || symbol.length > SYMBOL_CHARS_MAX || !/^[\x21-\x7e]+$/.test(symbol)) {
        this.sessionReject(message, SessionRejectReason.VALUE_INCORRECT, Tag.Symbol, msgType, 'Invalid Symbol');
        return;
      }
      symbols.push(symbol);
    }
    if (type === 2) {
      for (const symbol of symbols) this.#dropBook(symbol);
      return;
    }
    if (type === 1) {
      let added = 0;
      for (const symbol of new Set(symbols)) if (!this.#books.has(symbol) && this.#hub.known(symbol)) added++;
      if (this.subscriptionCount + added > this.#subscriptionsMax) {
        this.#reject(requestId, MDReqRejReason.INSUFFICIENT_BANDWIDTH, `Subscription limit of ${this.#subscriptionsMax} exceeded`);
        return;
      }
    }
    for (let k = 0; k < symbols.length; k++) {
      const symbol = symbols[k];
      if (this.outputFull()) {
        this.#reject(requestId, MDReqRejReason.INSUFFICIENT_BANDWIDTH, `Output budget exceeded: ${symbols.length - k} of ${symbols.length} symbols not served`);
        return;
      }
      // Subscribe first, then read the levels in the same turn: the snapshot and the updates meet exactly.
      if (type === 1 && this.#hub.known(symbol) && !this.#books.has(symbol)) {
        this.#books.add(symbol);
        this.#hub.subscribeBook(this, symbol);
      }
      this.#sendSnapshot(symbol, requestId);
    }
  }

  #onSecurityStatusRequest(message: FixMessage, msgType: string): void {
    if (!this.checkTags(message, msgType, STATUS_REQUEST_TAGS)) return;
    if (!this.checkRequired(message, msgType, [Tag.SubscriptionRequestType, Tag.Symbol])) return;
    let symbols = 0;
    for (let i = 0; i < message.fieldCount; i++) if (message.tagAt(i) === Tag.Symbol) symbols++;
    if (symbols !== 1) {
      this.sessionReject(message, SessionRejectReason.VALUE_INCORRECT, Tag.Symbol, msgType, 'Exactly one Symbol required');
      return;
    }
    const symbol = message.getString(Tag.Symbol) as string;
    if (symbol.length === 0 || symbol.length > SYMBOL_CHARS_MAX || !/^[\x21-\x7e]+$/.test(symbol)) {
      this.sessionReject(message, SessionRejectReason.VALUE_INCORRECT, Tag.Symbol, msgType, 'Invalid Symbol');
      return;
    }
    const type = message.getInt(Tag.SubscriptionRequestType);
    if (type === 1) {
      if (this.#statuses.has(symbol)) return;
      if (!this.admit(message, 'GET', '/markets/{ticker}', symbol)) return;
      if (!this.#hub.known(symbol)) {
        this.businessReject(message, BusinessRejectReason.UNKNOWN_SECURITY, 'Unknown symbol', symbol);
        return;
      }
      if (this.subscriptionCount + 1 > this.#subscriptionsMax) {
        this.businessReject(message, BusinessRejectReason.OTHER, `Subscription limit of ${this.#subscriptionsMax} exceeded`, symbol);
        return;
      }
      this.#statuses.add(symbol);
      this.#hub.subscribeStatus(this, symbol);
      return; // §8: no initial status on subscribe
    }
    if (type === 2) {
      this.#statuses.delete(symbol);
      this.#hub.unsubscribeStatus(this, symbol);
      return;
    }
    this.sessionReject(message, SessionRejectReason.VALUE_INCORRECT, Tag.SubscriptionRequestType, msgType, 'SubscriptionRequestType must be 1 or 2');
  }

  #dropBook(symbol: string): void {
    if (!this.#books.delete(symbol)) return;
    this.#hub.unsubscribeBook(this, symbol);
  }

  #sendSnapshot(symbol: string, requestId: string | null): void {
    const session = this.#live();
    if (session === null) return;
    const { bids, offers } = this.#hub.levels(symbol);
    const now = this.ctx.now();
    const encoder = session.begin(MsgType.MarketDataSnapshotFullRefresh);
    if (requestId !== null) encoder.string(Tag.MDReqID, requestId);
    encoder.string(Tag.Symbol, symbol).int(Tag.NoMDEntries, bids.length + offers.length);
    for (const [price, size] of bids) writeEntry(encoder, '0', price, size, now);
    for (const [price, size] of offers) writeEntry(encoder, '1', price, size, now);
    session.send();
  }

  #reject(requestId: string | null, reason: number, text: string): void {
    const session = this.#live();
    if (session === null) return;
    const encoder = session.begin(MsgType.MarketDataRequestReject);
    if (requestId !== null) encoder.string(Tag.MDReqID, requestId);
    encoder.int(Tag.MDReqRejReason, reason).string(Tag.Text, text);
    session.send();
  }

  #live(): NonNullable<ConnectionBase['session']> | null {
    const session = this.session;
    return session !== null && session.state === 'active' && !this.dropped ? session : null;
  }

  /** The session, or null when it is gone or its output budget is full (then the subscriber is logged out). */
  #liveForUpdate(): NonNullable<ConnectionBase['session']> | null {
    const session = this.#live();
    if (session === null || !this.outputFull()) return session;
    this.dropped = true;
    this.ctx.logger.debug({ keyId: this.keyId, unsentBytes: this.outputBytes() }, 'fix: market-data subscriber not reading, logging out');
    session.logout('Slow consumer: output budget exceeded');
    return null;
  }

  // ---- MarketDataSink ----

  onLevel(ticker: string, entryType: 0 | 1, price: Price, size: Count, previous: Count, order: LevelCause, tsMs: number): void {
    const session = this.#liveForUpdate();
    if (session === null) return;
    const action = previous === 0 ? '0' : size === 0 ? '2' : '1';
    const encoder = session.begin(MsgType.MarketDataIncrementalRefresh).int(Tag.NoMDEntries, 1)
      .string(Tag.MDUpdateAction, action).string(Tag.Symbol, ticker).string(Tag.MDEntryType, entryType === 0 ? '0' : '1')
      .price(Tag.MDEntryPx, price).count(Tag.MDEntrySize, size).utcDate(Tag.MDEntryDate, tsMs).utcTime(Tag.MDEntryTime, tsMs);
    if (order.userId === this.userId && this.userId !== '') {
      encoder.string(Tag.ClOrdID, order.clientOrderId).int(Tag.AllocAccount, order.subaccount);
    }
    session.send();
  }

  onTrade(ticker: string, trade: TradeEntry): void {
    const session = this.#liveForUpdate();
    if (session === null) return;
    const encoder = session.begin(MsgType.MarketDataIncrementalRefresh).int(Tag.NoMDEntries, 1)
      .string(Tag.MDUpdateAction, '0').string(Tag.Symbol, ticker).string(Tag.MDEntryType, '2')
      .price(Tag.MDEntryPx, trade.price).count(Tag.MDEntrySize, trade.count).utcDate(Tag.MDEntryDate, trade.tsMs).utcTime(Tag.MDEntryTime, trade.tsMs)
      .string(Tag.AggressorSide, trade.takerSide === 'bid' ? '1' : '2');
    if (trade.isBlockTrade) encoder.string(Tag.TrdType, '1');
    session.send();
  }

  onStatus(ticker: string, status: number): void {
    if (!this.#statuses.has(ticker)) return;
    const session = this.#liveForUpdate();
    if (session === null) return;
    session.begin(MsgType.SecurityStatus).string(Tag.Symbol, ticker).int(Tag.SecurityTradingStatus, status);
    session.send();
  }

  onDropped(ticker: string): void {
    this.#books.delete(ticker);
    this.#statuses.delete(ticker);
  }
}

function writeEntry(encoder: FixEncoder, entryType: '0' | '1', price: number, size: number, nowMs: number): void {
  encoder.string(Tag.MDEntryType, entryType).price(Tag.MDEntryPx, price).count(Tag.MDEntrySize, size)
    .utcDate(Tag.MDEntryDate, nowMs).utcTime(Tag.MDEntryTime, nowMs);
}
