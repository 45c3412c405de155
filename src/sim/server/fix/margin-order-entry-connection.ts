/**
 * One Margin order-entry connection (KalshiNR or KalshiRT on the Margin listeners, fix.md §1
 * "Margin exchange", §5): NewOrderSingle, OrderCancelRequest and OrderCancelReplaceRequest mapped
 * onto the margin engine as the REST routes map them (POST /margin/orders, DELETE
 * /margin/orders/{order_id}, amend): the same key, user, subaccount rules, funding and token
 * buckets. The Margin differences: prices are always dollars (21005 treated as on, whatever the
 * Logon says), OrderQty takes whole contracts only (a fraction is rejected, 103=13), ExDestination
 * is ignored, and a stale order is OrdRejReason 5 (Predictions: 8).
 *
 * Reports for the taker are written here right after the engine call (New, or one Trade per fill,
 * the last stating the final leaves; Canceled when the order ended at once without a fill); fills
 * of this session's resting orders by other orders come from margin-fix-hub.ts.
 *
 * Choices where fix.md is silent: a 35=D without 59 is GTC; 59=0 (Day) and 59=6 (GTD) are rejected
 * INVALID_ORDER 103=11 (the margin engine has no expiring orders); "stale" = TransactTime(60) more
 * than STALE_ORDER_MS before now, Text STALE_ORDER; a partly filled IOC's last Trade report has
 * leaves 0 and 39=4; OrderMassCancelRequest (35=q) and order groups are not served on Margin yet
 * (BusinessMessageReject 380=3). 8013=Y cancels the session's resting orders when it closes.
 */

import { BusinessRejectReason, INT_INVALID, MsgType, SessionRejectReason, Tag, type FixMessage, type SessionKind } from '../../../fix/index.ts';
import type { SimError } from '../../engine/index.ts';
import { CONTRACT, isMarginError, type MarginError, type MarginOrderRecord, type MarginSelfTradePrevention, type MarginTimeInForce } from '../../margin/index.ts';
import { allowedTags, ConnectionBase, type AcceptorContext } from './connection-base.ts';
import { newReport, writeExecutionReport, type ExecutionReportRecord } from './execution-report.ts';
import type { MarginFixHub, MarginReportSink } from './margin-fix-hub.ts';
import { cancelRejectOf, cancelTextOf, INVALID_ORDER, INVALID_PRICE_ORDER, orderRejectOf, PERMISSION_DENIED, type FixRejectText } from './reject-texts.ts';

const PARTY_TAGS = [Tag.NoPartyIDs, Tag.PartyID, 447, Tag.PartyRole];
const NEW_ORDER_TAGS = allowedTags([
  Tag.ClOrdID, Tag.Symbol, Tag.Side, Tag.OrderQty, Tag.OrdType, Tag.Price, Tag.TimeInForce, Tag.ExpireTime, Tag.ExecInst,
  Tag.ExDestination, Tag.AllocAccount, ...PARTY_TAGS, Tag.SecondaryClOrdID, Tag.SelfTradePreventionType, Tag.CancelOrderOnPause,
  Tag.TransactTime, Tag.Text,
]);
const CANCEL_TAGS = allowedTags([
  Tag.ClOrdID, Tag.OrigClOrdID, Tag.OrderID, Tag.Side, Tag.Symbol, Tag.ExDestination, Tag.AllocAccount, ...PARTY_TAGS,
  Tag.TransactTime, Tag.OrderQty, Tag.Text,
]);
const REPLACE_TAGS = allowedTags([
  Tag.ClOrdID, Tag.OrigClOrdID, Tag.OrderID, Tag.OrderQty, Tag.OrdType, Tag.Price, Tag.Side, Tag.Symbol, Tag.TimeInForce,
  Tag.ExpireTime, Tag.ExDestination, Tag.AllocAccount, ...PARTY_TAGS, Tag.TransactTime, Tag.ExecInst, Tag.Text,
]);

const CL_ORD_ID_CHARS_MAX = 64; // fix.md §5
/** An order whose TransactTime(60) is older than this is stale (the SendingTime tolerance of fix.md §1; ours). */
export const STALE_ORDER_MS = 30_000;
/** OrdRejReason(103) "Stale order" on the Margin exchange (fix.md §1: 5 there, 8 on Predictions). */
export const MARGIN_ORD_REJ_STALE = 5;
const STALE_ORDER: FixRejectText = Object.freeze({ text: 'STALE_ORDER', reason: MARGIN_ORD_REJ_STALE });
const INVALID_QUANTITY: FixRejectText = Object.freeze({ text: 'INVALID_ORDER', reason: 13 }); // 103=13 incorrect quantity

/** A margin engine error read as the Predictions tables read a SimError (same codes where shared). */
function asSimError(error: MarginError): SimError {
  return { code: error.code, details: error.details ?? '' } as unknown as SimError;
}

/** Orders this session placed, kept for 8013 (pruned of finished orders past this size). */
const PLACED_PRUNE_SIZE = 10_000;

export class MarginOrderEntryConnection extends ConnectionBase implements MarginReportSink {
  readonly #hub: MarginFixHub;
  readonly #placed = new Set<string>();
  readonly #ensureAccount: (userId: string, subaccount: number) => void;

  constructor(ctx: AcceptorContext, sessionName: string, hub: MarginFixHub, ensureAccount: (userId: string, subaccount: number) => void) {
    super(ctx, sessionName);
    this.#hub = hub;
    this.#ensureAccount = ensureAccount;
  }

  override authorize(logon: FixMessage, keyId: string, kind: SessionKind): string | null {
    const refusal = super.authorize(logon, keyId, kind);
    if (refusal !== null) return refusal;
    this.flags.dollars = true; // fix.md §1 Margin: prices are always dollars
    return null;
  }

  protected override onClosed(): void {
    if (!this.cancelOnDisconnect || this.key === null) return;
    // fix.md §2 8013=Y: every open order of the session is cancelled, even on a graceful logout.
    for (const orderId of this.#placed) {
      const order = this.#hub.engine.orders.get(orderId);
      if (order !== undefined && order.status === 'resting') this.#hub.engine.cancel(this.userId, order.subaccount, orderId);
    }
    this.#placed.clear();
  }

  #remember(order: MarginOrderRecord): void {
    if (order.status !== 'resting') return;
    if (this.#placed.size >= PLACED_PRUNE_SIZE) {
      for (const orderId of this.#placed) if (this.#hub.engine.orders.get(orderId)?.status !== 'resting') this.#placed.delete(orderId);
    }
    this.#placed.add(order.orderId);
  }

  deliverMargin(record: ExecutionReportRecord): void {
    const session = this.session;
    if (session === null || session.state !== 'active') return;
    writeExecutionReport(session.begin(MsgType.ExecutionReport), record, this.flags);
    session.send();
  }

  protected handle(message: FixMessage, msgType: string): void {
    switch (msgType) {
      case MsgType.NewOrderSingle: return this.#newOrder(message);
      case MsgType.OrderCancelRequest: return this.#cancel(message);
      case MsgType.OrderCancelReplaceRequest: return this.#replace(message);
      case MsgType.OrderMassCancelRequest: return this.#massCancel(message);
      default:
        if (Object.values(MsgType).includes(msgType as MsgType)) {
          this.businessReject(message, BusinessRejectReason.UNSUPPORTED_MESSAGE_TYPE, `Unsupported message type ${msgType} on the Margin ${this.sessionName}`, '');
        } else {
          this.sessionReject(message, SessionRejectReason.INVALID_MSG_TYPE, Tag.MsgType, msgType, 'Invalid MsgType');
        }
    }
  }



  // ---- NewOrderSingle (35=D) ----

  #newOrder(message: FixMessage): void {
    const msgType = MsgType.NewOrderSingle;
    if (!this.checkTags(message, msgType, NEW_ORDER_TAGS)) return;
    if (!this.checkRequired(message, msgType, [Tag.ClOrdID, Tag.Symbol, Tag.Side, Tag.OrderQty, Tag.OrdType, Tag.Price])) return;
    const clOrdId = this.text(message, Tag.ClOrdID, CL_ORD_ID_CHARS_MAX);
    if (clOrdId === null) return this.sessionReject(message, SessionRejectReason.VALUE_INCORRECT, Tag.ClOrdID, msgType, 'ClOrdID must be 1 to 64 printable characters');
    const symbol = this.text(message, Tag.Symbol, 200);
    if (symbol === null) return this.sessionReject(message, SessionRejectReason.VALUE_INCORRECT, Tag.Symbol, msgType, 'Invalid Symbol');
    const sideText = message.getString(Tag.Side);
    if (sideText !== '1' && sideText !== '2') return this.sessionReject(message, SessionRejectReason.VALUE_INCORRECT, Tag.Side, msgType, 'Side must be 1 or 2');
    if (!this.mayTrade(message, clOrdId)) return;
    if (!this.admit(message, 'POST', '/margin/orders', clOrdId)) return;
    const count = message.getCount(Tag.OrderQty);
    const price = message.getPrice(Tag.Price); // dollars always (fix.md §1 Margin)
    const reject = (why: FixRejectText): void => this.#rejectOrder(clOrdId, symbol, sideText, count === INT_INVALID ? 0 : count, price === INT_INVALID ? -1 : price, why);
    if (message.getString(Tag.OrdType) !== '2') return reject(INVALID_ORDER); // limit orders only
    if (count === INT_INVALID || count <= 0 || count % CONTRACT !== 0) return reject(INVALID_QUANTITY); // whole contracts only
    if (price === INT_INVALID || price <= 0) return reject(INVALID_PRICE_ORDER);
    const tif = timeInForceOf(message.getString(Tag.TimeInForce));
    if (tif === null) return reject(INVALID_ORDER);
    const tokens = (message.getString(Tag.ExecInst) ?? '').split(' ').filter((token) => token !== '');
    if (tokens.some((token) => token !== '6' && token !== 'E')) return reject(INVALID_ORDER);
    const stpText = message.getString(Tag.SelfTradePreventionType);
    if (stpText !== null && stpText !== '1' && stpText !== '2') return reject(INVALID_ORDER);
    const selfTradePrevention: MarginSelfTradePrevention = stpText === '2' ? 'maker' : 'taker_at_cross';
    const transactMs = message.getTimestamp(Tag.TransactTime);
    if (transactMs > 0 && this.ctx.now() - transactMs > STALE_ORDER_MS) return reject(STALE_ORDER);
    const subaccount = this.subaccountOf(message);
    if (subaccount < 0) return reject(PERMISSION_DENIED);
    this.#ensureAccount(this.userId, subaccount);
    const engine = this.#hub.engine;
    const fillsBefore = engine.fills.length;
    const result = engine.create(this.userId, subaccount, {
      ticker: symbol, clientOrderId: clOrdId, side: sideText === '1' ? 'bid' : 'ask', count, price, timeInForce: tif, selfTradePrevention,
      postOnly: tokens.includes('6'), reduceOnly: tokens.includes('E'), cancelOrderOnPause: message.getFlag(Tag.CancelOrderOnPause), expirationTs: null,
    });
    if (isMarginError(result)) return reject(orderRejectOf(asSimError(result)));
    const order = result.order;
    this.#hub.track(order, clOrdId, this);
    this.#remember(order);
    this.#reportTaker(order, clOrdId, '', fillsBefore, '0', count);
  }

  /**
   * The reports of a request that may have traded: one Trade per fill of `order` since `fillsBefore`
   * (cumulative quantities as they grew; the last with the final state), else `firstType` (New or
   * Replaced) for a resting order or Canceled for one that ended at once. `requestedTotal` is the
   * order's total quantity as asked (the engine zeroes the remaining of a cancelled rest).
   */
  #reportTaker(order: MarginOrderRecord, clOrdId: string, origClOrdId: string, fillsBefore: number, firstType: '0' | '5', requestedTotal: number): void {
    const fills = this.#hub.engine.fills;
    const own = [];
    for (let i = fillsBefore; i < fills.length; i++) if (fills[i].orderId === order.orderId) own.push(fills[i]);
    const finalStatus = order.status === 'resting' ? (order.filled > 0 ? '1' : '0') : order.status === 'executed' ? '2' : '4';
    if (firstType === '5' || own.length === 0) {
      const ended = own.length === 0 && order.status === 'canceled';
      const record = this.#hub.orderReport(order, ended ? '4' : firstType, ended ? '4' : finalStatus, clOrdId);
      record.origClOrdId = origClOrdId;
      if (ended) record.text = order.lastUpdateReason === 'PostOnlyCrossCancel' ? 'POST_ONLY_CROSS' : cancelTextOf(order.timeInForce === 'fill_or_kill' ? 'FillOrKillCancel' : order.lastUpdateReason === 'SelfTradeCancel' ? 'SelfTradeCancel' : 'ImmediateOrCancel');
      if (firstType === '5') record.timeInForce = '1';
      this.deliverMargin(record);
    }
    let cum = order.filled;
    for (const fill of own) cum -= fill.count; // the order's cumulative quantity before this request's fills
    let cost = this.#hub.costOf(order.orderId); // what earlier requests filled (an amend that trades)
    for (let k = 0; k < own.length; k++) {
      const fill = own[k];
      this.#hub.noteFill(fill, order);
      cum += fill.count;
      cost += fill.price * (fill.count / 100);
      const record = this.#hub.tradeReport(order, fill, Math.round(cost / (cum / 100)));
      record.clOrdId = clOrdId;
      if (k < own.length - 1) {
        record.cumQty = cum;
        record.leavesQty = Math.max(requestedTotal - cum, 0);
        record.orderQty = record.cumQty + record.leavesQty;
        record.ordStatus = '1';
      } else {
        record.ordStatus = finalStatus;
      }
      this.deliverMargin(record);
    }
  }

  #rejectOrder(clOrdId: string, symbol: string, side: '1' | '2', count: number, price: number, why: FixRejectText): void {
    const record = newReport();
    record.clOrdId = clOrdId;
    record.execType = '8';
    record.ordStatus = '8';
    record.symbol = symbol;
    record.side = side;
    record.orderQty = Math.max(count, 0);
    record.originalQty = record.orderQty;
    record.price = price;
    record.ordRejReason = why.reason;
    record.text = why.text;
    record.transactTimeMs = this.ctx.now();
    record.userId = this.userId;
    this.deliverMargin(record);
  }

  // ---- OrderCancelRequest (35=F) ----

  #cancel(message: FixMessage): void {
    const msgType = MsgType.OrderCancelRequest;
    const ids = this.orderChangeIds(message, msgType, CANCEL_TAGS, [Tag.ClOrdID, Tag.OrigClOrdID, Tag.Side, Tag.Symbol], 'DELETE', '/margin/orders/{order_id}');
    if (ids === null) return;
    const { clOrdId, origClOrdId } = ids;
    const order = this.#target(message, origClOrdId);
    if (order === null) return this.#cancelReject(clOrdId, origClOrdId, null, '1', { text: 'UNKNOWN_ORDER', reason: 1 });
    const result = this.#hub.engine.cancel(this.userId, order.subaccount, order.orderId);
    if (isMarginError(result)) return this.#cancelReject(clOrdId, origClOrdId, order, '1', cancelRejectOf(asSimError(result)));
    this.#hub.track(order, clOrdId, this);
    const record = this.#hub.orderReport(order, '4', '4', clOrdId);
    record.origClOrdId = origClOrdId;
    this.deliverMargin(record);
  }

  // ---- OrderMassCancelRequest (35=q), KalshiNR only, as on Predictions ----

  #massCancel(message: FixMessage): void {
    const request = this.massCancelRequest(message, '/margin/orders', 'mmc');
    if (request === null) return;
    const { clOrdId, operationId, subaccount } = request;
    const session = this.session!;
    const engine = this.#hub.engine;
    const resting = engine.orderList.filter((order) => order.status === 'resting' && order.userId === this.userId && (subaccount === null || order.subaccount === subaccount));
    engine.cancelAll(this.userId, subaccount);
    session.begin(MsgType.OrderMassCancelReport).string(Tag.ClOrdID, clOrdId).string(Tag.OrderID, operationId).string(Tag.MassCancelResponse, '6');
    session.send();
    // Then a Canceled report per cancelled order placed over FIX, to the session that placed it (fix.md §5).
    for (const order of resting) {
      if (order.status === 'resting') continue; // not cancelled after all
      const owner = this.#hub.ownerOf(order.orderId);
      owner?.deliverMargin(this.#hub.orderReport(order, '4', '4', order.clientOrderId));
    }
  }

  // ---- OrderCancelReplaceRequest (35=G) ----

  #replace(message: FixMessage): void {
    const msgType = MsgType.OrderCancelReplaceRequest;
    const ids = this.orderChangeIds(message, msgType, REPLACE_TAGS, [Tag.ClOrdID, Tag.OrigClOrdID, Tag.OrderQty, Tag.OrdType, Tag.Side, Tag.Symbol], 'POST', '/margin/orders/{order_id}/amend');
    if (ids === null) return;
    const { clOrdId, origClOrdId } = ids;
    const order = this.#target(message, origClOrdId);
    if (order === null) return this.#cancelReject(clOrdId, origClOrdId, null, '2', { text: 'UNKNOWN_ORDER', reason: 1 });
    const count = message.getCount(Tag.OrderQty);
    if (count === INT_INVALID || count <= 0 || count % CONTRACT !== 0) return this.#cancelReject(clOrdId, origClOrdId, order, '2', { text: 'INVALID_AMEND_QTY_FOR_ORDER', reason: 2 });
    const price = message.has(Tag.Price) ? message.getPrice(Tag.Price) : order.price;
    if (price === INT_INVALID || price <= 0) return this.#cancelReject(clOrdId, origClOrdId, order, '2', { text: 'INVALID_PRICE', reason: 99 });
    const engine = this.#hub.engine;
    const fillsBefore = engine.fills.length;
    const side = message.getString(Tag.Side) === '1' ? 'bid' : 'ask';
    const result = engine.amend(this.userId, order.subaccount, order.orderId, message.getString(Tag.Symbol) ?? '', side, price, count, clOrdId);
    if (isMarginError(result)) return this.#cancelReject(clOrdId, origClOrdId, order, '2', cancelRejectOf(asSimError(result)));
    this.#hub.track(order, clOrdId, this);
    this.#reportTaker(result.order, clOrdId, origClOrdId, fillsBefore, '5', count);
  }

  /** The caller's order named by OrigClOrdID (or OrderID), on the Symbol and Side given; null otherwise. */
  #target(message: FixMessage, origClOrdId: string): MarginOrderRecord | null {
    let order = this.#hub.orderByClOrdId(this.userId, origClOrdId);
    const orderId = message.getString(Tag.OrderID);
    if (order === null && orderId !== null) {
      const byId = this.#hub.engine.orders.get(orderId);
      order = byId !== undefined && byId.userId === this.userId ? byId : null;
    }
    if (order === null) return null;
    const side = message.getString(Tag.Side) === '1' ? 'bid' : 'ask';
    if (order.ticker !== message.getString(Tag.Symbol) || order.side !== side) return null; // fix.md §5: a mismatch is "unknown order"
    if (this.key?.subaccount !== null && this.key?.subaccount !== undefined && order.subaccount !== this.key.subaccount) return null;
    return order;
  }

  /** OrderCancelReject (35=9): 37, 11, 41, 39, 434, 102, 58. */
  #cancelReject(clOrdId: string, origClOrdId: string, order: MarginOrderRecord | null, responseTo: '1' | '2', why: FixRejectText): void {
    const session = this.session;
    if (session === null || session.state !== 'active') return;
    const ordStatus = order === null ? '8' : order.status === 'resting' ? (order.filled > 0 ? '1' : '0') : order.status === 'executed' ? '2' : '4';
    session.begin(MsgType.OrderCancelReject).string(Tag.OrderID, order === null ? 'NONE' : order.orderId).string(Tag.ClOrdID, clOrdId)
      .string(Tag.OrigClOrdID, origClOrdId).string(Tag.OrdStatus, ordStatus).string(Tag.CxlRejResponseTo, responseTo)
      .int(Tag.CxlRejReason, why.reason).string(Tag.Text, why.text);
    session.send();
  }
}

function timeInForceOf(text: string | null): MarginTimeInForce | null {
  switch (text) {
    case null:
    case '1': return 'good_till_canceled';
    case '3': return 'immediate_or_cancel';
    case '4': return 'fill_or_kill';
    default: return null; // 0 Day and 6 GTD: the margin engine keeps no expiring orders
  }
}
