/**
 * One order-entry connection (KalshiNR or KalshiRT, fix.md §5, §6): NewOrderSingle,
 * OrderCancelRequest, OrderCancelReplaceRequest, OrderMassCancelRequest (NR only) and
 * OrderGroupRequest mapped onto the engine exactly as the REST routes call it (the same key, user,
 * subaccount scoping, funding and token buckets), answered with the venue's ExecutionReports,
 * OrderCancelReject, OrderMassCancelReport, OrderGroupResponse and BusinessMessageReject. Order
 * entry also obeys the REST order-entry fault rules of the equivalent route (rest_error: reject
 * EXCHANGE_UNAVAILABLE, not applied; ambiguous_order: applied, then EXCHANGE_UNAVAILABLE, or no
 * answer, or a dropped connection; rest_hang: no answer; rest_close: connection dropped).
 *
 * Report order per request (fix.md §5, §10): PendingNew / PendingCancel / PendingReplace unless
 * 21011=Y; New, or the first Trade when the order filled at once (New folded in unless 21026=Y);
 * Replaced before the fills an amend causes; a Canceled report for an order that ended at once
 * (IOC or FOK without fills, post-only cross, self-trade stop), and for a partly filled IOC only
 * with 21007=Y. The last Trade of a request states the order's final leaves (0 when the rest was
 * cancelled in the same cycle).
 *
 * KalshiRT also serves the RFQ requester (fix.md §7: R, UA and UE; b, S, UC, UB, AG and 8) through
 * rfq-requester.ts, the same code as KalshiRFQ. KalshiNR does not: fix.md lists R/UA/UE for RT only,
 * so NR answers them BusinessMessageReject 380=3 (unsupported message type), like every other
 * message it does not serve.
 */

import {
  BusinessRejectReason, INT_INVALID, MsgType, SessionRejectReason, Tag, type FixMessage,
} from '../../../fix/index.ts';
import type { Count, Price } from '../../../core/index.ts';
import { resolveSubaccount, SUBACCOUNT_FORBIDDEN } from '../../auth/index.ts';
import {
  isSimError, type CreateOrderParams, type Order, type SelfTradePrevention, type SimError, type TimeInForce,
} from '../../engine/index.ts';
import { CANCEL_TAGS, CL_ORD_ID_CHARS_MAX, PARTY_TAGS, REPLACE_TAGS, allowedTags, ConnectionBase, type AcceptorContext } from './connection-base.ts';
import { easternEndOfDayMs } from './eastern-time.ts';
import { newReport, writeExecutionReport, type ExecutionReportRecord } from './execution-report.ts';
import {
  cancelRejectOf, cancelTextOf, CxlRejReason, EXCHANGE_UNAVAILABLE, INVALID_ORDER, orderRejectOf, PERMISSION_DENIED,
  type FixRejectText,
} from './reject-texts.ts';
import type { OrderSnapshot, OwnedOrder, ReportSink } from './report-hub.ts';
import type { RfqHub } from './rfq-hub.ts';
import { RfqRequester } from './rfq-requester.ts';
import type { WireProbe } from '../probe.ts';

const NEW_ORDER_TAGS = allowedTags([
  Tag.ClOrdID, Tag.Symbol, Tag.Side, Tag.OrderQty, Tag.OrdType, Tag.Price, Tag.TimeInForce, Tag.ExpireTime, Tag.ExecInst,
  Tag.ExDestination, Tag.AllocAccount, ...PARTY_TAGS, Tag.SecondaryClOrdID, Tag.SelfTradePreventionType, Tag.CancelOrderOnPause,
  Tag.MaxExecutionCost, Tag.QuoteID, Tag.RfqId, Tag.TransactTime, Tag.Text,
]);

const ORDERS_PATH = '/portfolio/events/orders';
const ORDER_PATH = '/portfolio/events/orders/{order_id}';
const AMEND_PATH = '/portfolio/events/orders/{order_id}/amend';

export class OrderEntryConnection extends ConnectionBase implements ReportSink {
  /** The wire-to-wire probe (server/probe.ts), set by the acceptor; null when it is off. */
  wireProbe: WireProbe | null = null;
  /** The RFQ requester's side on KalshiRT (rfq-requester.ts); null on KalshiNR. */
  readonly #requester: RfqRequester | null;

  /** `rfqs`: the RFQ hub on KalshiRT, where the requester is served; null on KalshiNR. */
  constructor(ctx: AcceptorContext, sessionName: string, rfqs: RfqHub | null = null) {
    super(ctx, sessionName);
    // KalshiRT never receives quotes of its own, so a QuoteID on 35=UA is the server's.
    this.#requester = rfqs === null ? null : new RfqRequester(this, rfqs, (given) => given);
  }

  deliver(record: ExecutionReportRecord): void {
    const session = this.session;
    if (session === null || session.state !== 'active') return;
    writeExecutionReport(session.begin(MsgType.ExecutionReport), record, this.flags);
    session.send();
  }

  protected override onLogon(): void {
    this.ctx.hub.register(this);
    this.#requester?.register();
  }

  protected override onClosed(): void {
    this.ctx.hub.unregister(this);
    this.#requester?.unregister();
    if (!this.cancelOnDisconnect || this.key === null) return;
    // fix.md §2 8013=Y: every open order of the session is cancelled, even on a graceful logout.
    for (const orderId of this.ctx.hub.restingOf(this.keyId)) this.ctx.engine.cancelOrder(this.userId, orderId, null);
  }

  protected handle(message: FixMessage, msgType: string): void {
    switch (msgType) {
      case MsgType.NewOrderSingle: return this.#newOrder(message);
      case MsgType.OrderCancelRequest: return this.#cancel(message);
      case MsgType.OrderCancelReplaceRequest: return this.#replace(message);
      case MsgType.OrderMassCancelRequest: return this.#massCancel(message);
      case MsgType.OrderGroupRequest: return this.#orderGroup(message);
      case MsgType.QuoteRequest:
      case MsgType.AcceptQuote:
      case MsgType.RFQCancel:
        if (this.#requester !== null) return this.#requester.handle(message, msgType);
        return this.businessReject(message, BusinessRejectReason.UNSUPPORTED_MESSAGE_TYPE, `Unsupported message type ${msgType} on ${this.sessionName}`, '');
      default:
        if (Object.values(MsgType).includes(msgType as MsgType)) {
          this.businessReject(message, BusinessRejectReason.UNSUPPORTED_MESSAGE_TYPE, `Unsupported message type ${msgType} on ${this.sessionName}`, '');
        } else {
          this.sessionReject(message, SessionRejectReason.INVALID_MSG_TYPE, Tag.MsgType, msgType, 'Invalid MsgType');
        }
    }
  }

  // ---- NewOrderSingle (35=D) ----

  #newOrder(message: FixMessage): void {
    this.wireProbe?.noteFixOrder(message); // wire-to-wire probe (probe.ts): arrival is the read of this message's chunk
    const msgType = MsgType.NewOrderSingle;
    if (!this.checkTags(message, msgType, NEW_ORDER_TAGS)) return;
    if (!this.checkRequired(message, msgType, [Tag.ClOrdID, Tag.Symbol, Tag.Side, Tag.OrderQty, Tag.OrdType, Tag.Price])) return;
    const clOrdId = this.text(message, Tag.ClOrdID, CL_ORD_ID_CHARS_MAX);
    if (clOrdId === null) return this.sessionReject(message, SessionRejectReason.VALUE_INCORRECT, Tag.ClOrdID, msgType, 'ClOrdID must be 1 to 64 printable characters');
    const symbol = this.text(message, Tag.Symbol, 200);
    if (symbol === null) return this.sessionReject(message, SessionRejectReason.VALUE_INCORRECT, Tag.Symbol, msgType, 'Symbol invalid');
    const side = sideOf(message);
    if (side === null) return this.sessionReject(message, SessionRejectReason.VALUE_INCORRECT, Tag.Side, msgType, 'Side must be 1 or 2');
    if (!this.mayTrade(message, clOrdId)) return;
    if (!this.admit(message, 'POST', ORDERS_PATH, clOrdId)) return;

    const reject = (why: FixRejectText): void => this.#sendOrderReject(clOrdId, symbol, side, message, why);
    const count = message.getCount(Tag.OrderQty);
    if (count === INT_INVALID || count <= 0) return reject(orderRejectOf(simErrorOf('invalid_order_size')));
    if (!message.valueEquals(Tag.OrdType, '2')) return reject(INVALID_ORDER); // limit orders only
    if (message.has(Tag.QuoteID)) return reject(INVALID_ORDER); // RFQ acceptance over 35=D: not simulated
    const price = this.flags.dollars ? message.getPrice(Tag.Price) : message.getPriceCents(Tag.Price);
    if (price === INT_INVALID) return reject(orderRejectOf(simErrorOf('invalid_price')));
    const subaccount = this.subaccountOf(message);
    if (subaccount === SUBACCOUNT_FORBIDDEN) return reject(PERMISSION_DENIED);
    const timing = timeInForceOf(message, this.ctx.now());
    if (timing === null) return reject(INVALID_ORDER);
    const execInst = message.getString(Tag.ExecInst) ?? '';
    const tokens = execInst === '' ? [] : execInst.split(' ');
    if (tokens.some((token) => token !== '6' && token !== 'E')) return reject(INVALID_ORDER);
    const reduceOnly = tokens.includes('E');
    if (reduceOnly && timing.timeInForce !== 'immediate_or_cancel') return reject(INVALID_ORDER); // fix.md §5: E only with IOC
    const stp = message.getString(Tag.SelfTradePreventionType);
    if (stp !== null && stp !== '1' && stp !== '2') return reject(INVALID_ORDER);
    const exDestination = message.getInt(Tag.ExDestination);
    if (message.has(Tag.ExDestination) && exDestination === INT_INVALID) return reject(INVALID_ORDER);
    const groupId = message.getString(Tag.SecondaryClOrdID);
    const params: CreateOrderParams = {
      ticker: symbol,
      clientOrderId: clOrdId,
      side: side === '1' ? 'bid' : 'ask',
      price: price as Price,
      count: count as Count,
      timeInForce: timing.timeInForce,
      selfTradePrevention: (stp === '2' ? 'maker' : 'taker_at_cross') as SelfTradePrevention,
      expirationTs: timing.expirationTs,
      postOnly: tokens.includes('6'),
      reduceOnly,
      cancelOrderOnPause: message.getFlag(Tag.CancelOrderOnPause),
      subaccount,
      orderGroupId: groupId === null || groupId === '' ? null : groupId,
      exchangeIndex: message.has(Tag.ExDestination) ? exDestination : null,
    };
    this.ctx.ensureFunded(this.userId, subaccount);
    const fault = this.#fault('POST', ORDERS_PATH);
    if (fault === 'reject') return reject(EXCHANGE_UNAVAILABLE);
    if (fault === 'silent') return;
    if (fault === 'close') return this.#drop();

    const hub = this.ctx.hub;
    hub.beginCall(this.userId);
    const result = this.ctx.engine.createOrder(this.userId, params);
    const events = hub.endCall();
    if (isSimError(result)) {
      hub.replayUnsolicited(events, '');
      return reject(orderRejectOf(result));
    }
    const order = result.order;
    const echo = message.has(Tag.AllocAccount) || subaccount !== 0 ? subaccount : -1;
    const owned = hub.own(order, this.keyId, clOrdId, echo, timing.expireTimeMs);
    if (fault === 'ambiguous') {
      // Applied, but the gateway could not confirm it (fix.md §5): later reports still come.
      this.#sendOrderReject(clOrdId, symbol, side, message, EXCHANGE_UNAVAILABLE);
      this.#settleSubject(owned, order, events, 0, 'create', true);
      hub.replayUnsolicited(events, order.orderId);
      return;
    }
    if (fault === 'ambiguous-silent' || fault === 'ambiguous-close') {
      this.#settleSubject(owned, order, events, 0, 'create', true);
      hub.replayUnsolicited(events, order.orderId);
      if (fault === 'ambiguous-close') this.#drop();
      return;
    }
    if (!this.skipPending) hub.deliverOnly(hub.base(owned, 'A', 'A', 0, order.initialCount, result.tsMs), this.keyId);
    this.#settleSubject(owned, order, events, 0, 'create', false);
    hub.replayUnsolicited(events, order.orderId);
  }

  /**
   * Reports for the order a request was about: `events` are the engine events of the call. For a
   * create, a New (or the first Trade), the Trades, then a Canceled when it ended at once; for a
   * replace the caller sent Replaced first and `cumBefore` is the fill count before the call.
   */
  #settleSubject(owned: OwnedOrder, order: Order, events: readonly OrderSnapshot[], cumBefore: number, kind: 'create' | 'replace',
    quiet: boolean): void {
    const hub = this.ctx.hub;
    const fills = events.filter((event) => event.fill && event.orderId === order.orderId);
    const send = (record: ExecutionReportRecord): void => {
      if (quiet) { // the answer is lost (fault), but the drop copy and later reports know the order
        hub.keep(record);
        return;
      }
      hub.emit(record, this.keyId);
    };
    if (kind === 'create' && (fills.length === 0 ? order.status === 'resting' : this.newBeforeTrade)) {
      send(hub.base(owned, '0', '0', cumBefore, order.initialCount, order.createdMs));
    }
    for (let i = 0; i < fills.length; i++) {
      const event = fills[i];
      if (i === fills.length - 1) { // the final state of this request (the rest may have been cancelled)
        event.remainingCount = order.remainingCount;
        event.status = order.status;
      }
      send(hub.trade(owned, event));
    }
    if (order.status === 'canceled' && (fills.length === 0 || this.iocCancelReport || order.lastUpdateReason !== 'ImmediateOrCancel')) {
      const text = order.lastUpdateReason === 'SelfTradeCancel' ? 'TAKER_CANCEL_FOR_SELF_TRADE_PREVENTION' : cancelTextOf(order.lastUpdateReason);
      const snapshotEvent = { ...(fills[fills.length - 1] ?? emptySnapshot(order)), fillCount: order.fillCount, tsMs: order.lastUpdateMs };
      send(hub.canceled(owned, snapshotEvent, text));
    }
    if (order.status !== 'resting') hub.release(owned, order.status);
  }

  #sendOrderReject(clOrdId: string, symbol: string, side: '1' | '2', message: FixMessage, why: FixRejectText): void {
    const record = newReport();
    record.clOrdId = clOrdId;
    record.execType = '8';
    record.ordStatus = '8';
    record.symbol = symbol;
    record.side = side;
    const qty = message.getCount(Tag.OrderQty);
    record.orderQty = qty === INT_INVALID || qty < 0 ? 0 : qty;
    record.originalQty = record.orderQty;
    record.transactTimeMs = this.ctx.now();
    record.ordRejReason = why.reason;
    record.text = why.text;
    record.userId = this.userId;
    const alloc = message.getInt(Tag.AllocAccount);
    if (alloc !== INT_INVALID) record.allocAccount = alloc;
    this.deliver(record);
  }

  // ---- OrderCancelRequest (35=F) ----

  #cancel(message: FixMessage): void {
    const msgType = MsgType.OrderCancelRequest;
    const ids = this.orderChangeIds(message, msgType, CANCEL_TAGS, [Tag.ClOrdID, Tag.OrigClOrdID, Tag.Side, Tag.Symbol], 'DELETE', ORDER_PATH);
    if (ids === null) return;
    const { clOrdId, origClOrdId } = ids;
    const target = this.#findOrder(message, origClOrdId);
    if (typeof target === 'number') return this.#cancelReject(message, clOrdId, origClOrdId, '', '1', target === CxlRejReason.TOO_LATE_TO_CANCEL ? { text: 'TOO_LATE_TO_CANCEL', reason: target } : { text: 'UNKNOWN_ORDER', reason: target });
    const fault = this.#fault('DELETE', ORDER_PATH);
    if (fault === 'reject') return this.#cancelReject(message, clOrdId, origClOrdId, target.orderId, '1', EXCHANGE_UNAVAILABLE);
    if (fault === 'silent') return;
    if (fault === 'close') return this.#drop();
    const hub = this.ctx.hub;
    hub.beginCall(this.userId);
    const result = this.ctx.engine.cancelOrder(this.userId, target.orderId, this.key?.subaccount ?? null);
    const events = hub.endCall();
    if (isSimError(result)) {
      hub.replayUnsolicited(events, '');
      return this.#cancelReject(message, clOrdId, origClOrdId, target.orderId, '1', cancelRejectOf(result));
    }
    const owned = target.owned ?? this.#transient(result.order);
    if (fault === 'ambiguous') this.#cancelReject(message, clOrdId, origClOrdId, target.orderId, '1', EXCHANGE_UNAVAILABLE);
    const quiet = fault !== 'none';
    if (!this.skipPending && !quiet) {
      const pending = hub.base(owned, '6', '6', result.order.fillCount, result.reducedBy, result.tsMs);
      pending.clOrdId = clOrdId;
      pending.origClOrdId = owned.clOrdId;
      hub.deliverOnly(pending, this.keyId);
    }
    const record = hub.base(owned, '4', '4', result.order.fillCount, 0, result.tsMs);
    record.clOrdId = clOrdId;
    record.origClOrdId = owned.clOrdId;
    if (quiet) hub.keep(record);
    else hub.emit(record, this.keyId);
    if (target.owned !== undefined) hub.release(target.owned, 'canceled');
    hub.replayUnsolicited(events, target.orderId);
    if (fault === 'ambiguous-close') this.#drop();
  }

  /** The order a cancel or replace is about: by OrderID(37) when sent, else by OrigClOrdID; a CxlRejReason when none. */
  #findOrder(message: FixMessage, origClOrdId: string): { orderId: string; owned: OwnedOrder | undefined } | number {
    const hub = this.ctx.hub;
    const orderId = this.text(message, Tag.OrderID, 64) ?? hub.orderIdOf(this.userId, origClOrdId);
    if (orderId === undefined) return CxlRejReason.UNKNOWN_ORDER;
    const owned = hub.owned(orderId);
    const finished = hub.finishedStatus(orderId);
    if (owned === undefined) {
      const found = this.ctx.engine.getOrder(this.userId, orderId, this.key?.subaccount ?? null);
      if (isSimError(found)) return finished === 'executed' ? CxlRejReason.TOO_LATE_TO_CANCEL : CxlRejReason.UNKNOWN_ORDER;
      if (found.status === 'executed') return CxlRejReason.TOO_LATE_TO_CANCEL;
      if (found.status !== 'resting') return CxlRejReason.UNKNOWN_ORDER;
      if (!message.valueEquals(Tag.Symbol, found.ticker) || !message.valueEquals(Tag.Side, found.side === 'bid' ? '1' : '2')) return CxlRejReason.UNKNOWN_ORDER;
      return { orderId, owned: undefined };
    }
    // fix.md §5: 54 and 55 must match the order ("an ID/side/ticker mismatch" is unknown order).
    if (!message.valueEquals(Tag.Symbol, owned.symbol) || !message.valueEquals(Tag.Side, owned.side)) return CxlRejReason.UNKNOWN_ORDER;
    return { orderId, owned };
  }

  /** A record owner for an order placed elsewhere (REST) but cancelled or replaced over FIX. */
  #transient(order: Order): OwnedOrder {
    return {
      orderId: order.orderId, keyId: this.keyId, userId: order.userId, clOrdId: order.clientOrderId === '' ? 'NONE' : order.clientOrderId,
      symbol: order.ticker, side: order.side === 'bid' ? '1' : '2', price: order.price, originalQty: order.initialCount,
      cumNotional: 0, allocAccount: order.subaccount !== 0 ? order.subaccount : -1, exchangeIndex: order.exchangeIndex, expireTimeMs: order.expirationTs * 1000,
    };
  }

  /** OrderCancelReject (35=9): 37, 11, 41, 39, 434, 102, 58 (fix.md §5; 434 = 1 cancel, 2 replace). */
  #cancelReject(message: FixMessage, clOrdId: string, origClOrdId: string, orderId: string, responseTo: '1' | '2', why: FixRejectText): void {
    const session = this.session;
    if (session === null || session.state !== 'active') return;
    let ordStatus = '8';
    if (orderId !== '') {
      const owned = this.ctx.hub.owned(orderId);
      const finished = this.ctx.hub.finishedStatus(orderId);
      ordStatus = owned !== undefined ? '0' : finished === 'executed' ? '2' : finished === 'canceled' ? '4' : '8';
    }
    session.begin(MsgType.OrderCancelReject).string(Tag.OrderID, orderId === '' ? 'NONE' : orderId).string(Tag.ClOrdID, clOrdId)
      .string(Tag.OrigClOrdID, origClOrdId).string(Tag.OrdStatus, ordStatus).string(Tag.CxlRejResponseTo, responseTo)
      .int(Tag.CxlRejReason, why.reason).string(Tag.Text, why.text);
    session.send();
    void message;
  }

  // ---- OrderCancelReplaceRequest (35=G) ----

  #replace(message: FixMessage): void {
    const msgType = MsgType.OrderCancelReplaceRequest;
    const ids = this.orderChangeIds(message, msgType, REPLACE_TAGS, [Tag.ClOrdID, Tag.OrigClOrdID, Tag.OrderQty, Tag.OrdType, Tag.Side, Tag.Symbol], 'POST', AMEND_PATH);
    if (ids === null) return;
    const { clOrdId, origClOrdId } = ids;
    const target = this.#findOrder(message, origClOrdId);
    if (typeof target === 'number') return this.#cancelReject(message, clOrdId, origClOrdId, '', '2', target === CxlRejReason.TOO_LATE_TO_CANCEL ? { text: 'CANNOT_UPDATE_FILLED_ORDER', reason: CxlRejReason.BROKER } : { text: 'UNKNOWN_ORDER', reason: target });
    const engine = this.ctx.engine;
    const current = engine.getOrder(this.userId, target.orderId, this.key?.subaccount ?? null);
    if (isSimError(current)) return this.#cancelReject(message, clOrdId, origClOrdId, target.orderId, '2', cancelRejectOf(current));
    const total = message.getCount(Tag.OrderQty);
    if (total === INT_INVALID || total < 0) return this.#cancelReject(message, clOrdId, origClOrdId, target.orderId, '2', { text: 'INVALID_AMEND_QTY_FOR_ORDER', reason: CxlRejReason.BROKER });
    if (!message.valueEquals(Tag.OrdType, '2')) return this.#cancelReject(message, clOrdId, origClOrdId, target.orderId, '2', { text: 'INVALID_ORDER', reason: CxlRejReason.OTHER });
    let price = current.price as number;
    if (message.has(Tag.Price)) {
      price = this.flags.dollars ? message.getPrice(Tag.Price) : message.getPriceCents(Tag.Price);
      if (price === INT_INVALID) return this.#cancelReject(message, clOrdId, origClOrdId, target.orderId, '2', { text: 'INVALID_PRICE', reason: CxlRejReason.OTHER });
    }
    const cumBefore = current.fillCount as number;
    if (total < cumBefore) return this.#cancelReject(message, clOrdId, origClOrdId, target.orderId, '2', { text: 'INVALID_AMEND_QTY_FOR_ORDER', reason: CxlRejReason.BROKER });
    const fault = this.#fault('POST', AMEND_PATH);
    if (fault === 'reject') return this.#cancelReject(message, clOrdId, origClOrdId, target.orderId, '2', EXCHANGE_UNAVAILABLE);
    if (fault === 'silent') return;
    if (fault === 'close') return this.#drop();
    const hub = this.ctx.hub;
    const owned = target.owned ?? this.#transient(current);
    const oldClOrdId = owned.clOrdId;
    const quiet = fault !== 'none';
    hub.beginCall(this.userId);
    // fix.md §5: a new total equal to the filled quantity cancels the order.
    const result = total === cumBefore
      ? engine.cancelOrder(this.userId, target.orderId, this.key?.subaccount ?? null)
      : engine.amendOrder(this.userId, target.orderId, {
        ticker: current.ticker, side: current.side, price: price as Price, count: total as Count,
        clientOrderId: current.clientOrderId, updatedClientOrderId: clOrdId, subaccount: this.key?.subaccount ?? null,
        exchangeIndex: message.has(Tag.ExDestination) ? message.getInt(Tag.ExDestination) : null,
      });
    const events = hub.endCall();
    if (isSimError(result)) {
      hub.replayUnsolicited(events, '');
      return this.#cancelReject(message, clOrdId, origClOrdId, target.orderId, '2', cancelRejectOf(result));
    }
    if (fault === 'ambiguous') this.#cancelReject(message, clOrdId, origClOrdId, target.orderId, '2', EXCHANGE_UNAVAILABLE);
    const order = result.order;
    if (target.owned !== undefined) hub.rename(target.owned, clOrdId);
    else owned.clOrdId = clOrdId;
    owned.price = order.price;
    if (!this.skipPending && !quiet) {
      const pending = hub.base(owned, 'E', 'E', cumBefore, current.remainingCount, result.tsMs);
      pending.clOrdId = clOrdId;
      pending.origClOrdId = oldClOrdId;
      hub.deliverOnly(pending, this.keyId);
    }
    if (total === cumBefore) {
      const record = hub.base(owned, '4', '4', cumBefore, 0, result.tsMs);
      record.origClOrdId = oldClOrdId;
      if (quiet) hub.keep(record);
      else hub.emit(record, this.keyId);
      if (target.owned !== undefined) hub.release(target.owned, 'canceled');
    } else {
      const replaced = hub.base(owned, '5', cumBefore > 0 ? '1' : '0', cumBefore, (total as number) - cumBefore, result.tsMs);
      replaced.origClOrdId = oldClOrdId;
      replaced.timeInForce = owned.expireTimeMs > 0 ? '6' : '1';
      replaced.expireTimeMs = owned.expireTimeMs;
      if (quiet) hub.keep(replaced);
      else hub.emit(replaced, this.keyId);
      if (target.owned !== undefined) this.#settleSubject(target.owned, order, events, cumBefore, 'replace', quiet);
    }
    hub.replayUnsolicited(events, target.orderId);
    if (fault === 'ambiguous-close') this.#drop();
  }

  // ---- OrderMassCancelRequest (35=q) ----

  #massCancel(message: FixMessage): void {
    const request = this.massCancelRequest(message, ORDERS_PATH, `mc-${this.ctx.hub.execIds.clock}`);
    if (request === null) return;
    const { clOrdId, operationId, subaccount } = request;
    const session = this.session!;
    const hub = this.ctx.hub;
    hub.beginCall(this.userId);
    this.ctx.engine.cancelAllOrders(this.userId, subaccount);
    const events = hub.endCall();
    session.begin(MsgType.OrderMassCancelReport).string(Tag.ClOrdID, clOrdId).string(Tag.OrderID, operationId)
      .string(Tag.MassCancelResponse, '6');
    session.send();
    hub.replayUnsolicited(events, ''); // one Canceled report per cancelled FIX order follows (fix.md §5)
  }

  // ---- OrderGroupRequest (35=UOG) ----

  #orderGroup(message: FixMessage): void {
    const request = this.orderGroupRequest(message, (id) => UUID.test(id), 'a UUID', '/portfolio/order_groups');
    if (request === null) return;
    const { action, groupId, limit, subaccount } = request;
    this.ctx.ensureFunded(this.userId, subaccount);
    const engine = this.ctx.engine;
    let id = groupId;
    let error: SimError | null = null;
    const hub = this.ctx.hub;
    hub.beginCall(this.userId);
    switch (action) {
      case 1: {
        const exDestination = message.has(Tag.ExDestination) ? message.getInt(Tag.ExDestination) : 0;
        const created = engine.createOrderGroup(this.userId, { subaccount, contractsLimit: limit as Count, exchangeIndex: exDestination });
        if (isSimError(created)) error = created;
        else id = created.orderGroupId;
        break;
      }
      case 2: error = engine.resetOrderGroup(this.userId, id, subaccount); break;
      case 3: error = engine.deleteOrderGroup(this.userId, id, subaccount); break;
      case 4: error = engine.triggerOrderGroup(this.userId, id, subaccount); break;
      default: error = engine.setOrderGroupLimit(this.userId, id, limit as Count, subaccount); break;
    }
    const events = hub.endCall();
    if (error !== null) {
      hub.replayUnsolicited(events, '');
      const text = error.code === 'not_found' ? 'ORDER_GROUP_NOT_FOUND' : error.code.toUpperCase();
      return this.businessReject(message, error.code === 'not_found' ? BusinessRejectReason.UNKNOWN_ID : BusinessRejectReason.OTHER, text, id);
    }
    const session = this.session!;
    const encoder = session.begin(MsgType.OrderGroupResponse).string(Tag.OrderGroupID, id);
    if (limit !== null) encoder.int(Tag.OrderGroupContractsLimit, limit / 100);
    encoder.int(Tag.AllocAccount, subaccount); // fix.md §6: always echoed since v1.0.24
    session.send();
    hub.replayUnsolicited(events, ''); // orders a delete or trigger cancelled
  }

  // ---- helpers ----

  /**
   * The FIX fault fix_exchange_unavailable (not applied: reject; applied: ambiguous), then the REST
   * order-entry fault rules, applied to the equivalent route.
   */
  #fault(method: string, template: string): 'none' | 'reject' | 'silent' | 'close' | 'ambiguous' | 'ambiguous-silent' | 'ambiguous-close' {
    const faults = this.ctx.faults;
    if (faults.fixActive) {
      const msgType = method === 'DELETE' ? MsgType.OrderCancelRequest : template === AMEND_PATH ? MsgType.OrderCancelReplaceRequest : MsgType.NewOrderSingle;
      const decision = faults.decideFix('order', this.sessionName, msgType, this.keyId);
      if (decision.kind === 'fix_exchange_unavailable') return decision.applied ? 'ambiguous' : 'reject';
    }
    if (!faults.restActive) return 'none';
    const decision = faults.decideRest({ method, routeTemplate: template, relativePath: template, keyId: this.keyId, orderEntry: true });
    switch (decision.kind) {
      case 'rest_error': return 'reject';
      case 'rest_hang': return 'silent';
      case 'rest_close': return 'close';
      case 'ambiguous_order': return decision.mode === 'error' ? 'ambiguous' : decision.mode === 'hang' ? 'ambiguous-silent' : 'ambiguous-close';
      default: return 'none'; // rest_delay: FIX answers at once
    }
  }

  /** Drops the TCP connection without a Logout (a fault). */
  #drop(): void {
    this.dropped = true;
    this.dropConnection();
  }
}

const UUID = /^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$/;

function sideOf(message: FixMessage): '1' | '2' | null {
  if (message.valueEquals(Tag.Side, '1')) return '1';
  if (message.valueEquals(Tag.Side, '2')) return '2';
  return null;
}

function simErrorOf(code: 'invalid_order_size' | 'invalid_price'): SimError {
  return { isError: true, status: 400, code, message: code };
}

/** TimeInForce(59) and ExpireTime(126) of a 35=D (fix.md §5); null when unsupported. */
function timeInForceOf(message: FixMessage, nowMs: number): { timeInForce: TimeInForce; expirationTs: number; expireTimeMs: number } | null {
  const tif = message.getString(Tag.TimeInForce) ?? '1'; // default when omitted: not documented (§12 item 10); GTC, ours
  switch (tif) {
    case '1': return { timeInForce: 'good_till_canceled', expirationTs: 0, expireTimeMs: 0 };
    case '3': return { timeInForce: 'immediate_or_cancel', expirationTs: 0, expireTimeMs: 0 };
    case '4': return { timeInForce: 'fill_or_kill', expirationTs: 0, expireTimeMs: 0 };
    case '0': {
      const end = easternEndOfDayMs(nowMs); // Day: to 23:59:59.999 ET
      return { timeInForce: 'good_till_canceled', expirationTs: Math.floor(end / 1000), expireTimeMs: end };
    }
    case '6': {
      const expire = message.getTimestamp(Tag.ExpireTime);
      if (expire < 0) return null;
      // A GTD date in the past acts as IOC (fix.md §5).
      if (expire <= nowMs + 1000) return { timeInForce: 'immediate_or_cancel', expirationTs: 0, expireTimeMs: 0 };
      return { timeInForce: 'good_till_canceled', expirationTs: Math.ceil(expire / 1000), expireTimeMs: expire };
    }
    default: return null;
  }
}

function emptySnapshot(order: Order): OrderSnapshot {
  return {
    fill: false, orderId: order.orderId, userId: order.userId, clientOrderId: order.clientOrderId, ticker: order.ticker, side: order.side,
    price: order.price, fillCount: order.fillCount, remainingCount: 0, status: order.status, reason: order.lastUpdateReason,
    exchangeIndex: order.exchangeIndex, subaccount: order.subaccount, tsMs: order.lastUpdateMs, fillId: '', fillPrice: 0, fillQty: 0,
    isTaker: false, fee: 0, postPosition: 0,
  };
}
