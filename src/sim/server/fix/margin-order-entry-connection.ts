/**
 * One Margin order-entry connection (KalshiNR or KalshiRT on the Margin listeners, fix.md §1
 * "Margin exchange", §5, §6): NewOrderSingle, OrderCancelRequest, OrderCancelReplaceRequest,
 * OrderMassCancelRequest (NR only) and OrderGroupRequest mapped onto the margin engine and its order
 * groups as the REST routes map them (POST /margin/orders, DELETE /margin/orders/{order_id}, amend,
 * /margin/order_groups/*): the same key, user, subaccount rules, funding and token buckets. The
 * Margin differences: prices are always dollars (21005 treated as on, whatever the Logon says),
 * OrderQty takes whole contracts only (a fraction is rejected, 103=13), ExDestination is ignored
 * (order groups are always bound to index 0, the Margin exchange's), and a stale order is
 * OrdRejReason 5 (Predictions: 8).
 *
 * Reports for the requester are written here right after the engine call (New, or one Trade per
 * fill, the last stating the final leaves; Canceled when the order ended at once without a fill),
 * through the hub so listener sessions and the Margin drop copy see them; everything else (fills of
 * resting orders, changes made over REST, expiries, group cancels, venue orders) comes from
 * margin-fix-hub.ts.
 *
 * TimeInForce (fix.md §5, as on Predictions): omitted or 1 GTC, 3 IOC, 4 FOK, 0 Day (to 23:59:59 ET
 * of the simulator clock), 6 GTD with ExpireTime(126) (required; a time in the past acts as IOC);
 * other values INVALID_ORDER 103=11. Expiry changes on 35=G are not simulated (59/126 ignored, as
 * on Predictions). Choices where fix.md is silent: a 35=D without 59 is GTC; "stale" =
 * TransactTime(60) more than STALE_ORDER_MS before now, Text STALE_ORDER; a partly filled IOC's last
 * Trade report has leaves 0 and 39=4; Margin order-group ids are the engine's (`mog-…`), not UUIDs,
 * so 20130 takes any 1-64 printable characters. 8013=Y cancels the session's resting orders when it
 * closes.
 */

import { BusinessRejectReason, INT_INVALID, MsgType, SessionRejectReason, Tag, type FixMessage, type SessionKind } from '../../../fix/index.ts';
import { resolveSubaccount, SUBACCOUNT_FORBIDDEN } from '../../auth/index.ts';
import type { SimError } from '../../engine/index.ts';
import {
  CONTRACT, isMarginError, MARGIN_EXCHANGE_INDEX, type MarginError, type MarginOrderGroup, type MarginOrderGroups, type MarginOrderRecord,
  type MarginSelfTradePrevention, type MarginTimeInForce,
} from '../../margin/index.ts';
import { CANCEL_TAGS, CL_ORD_ID_CHARS_MAX, PARTY_TAGS, REPLACE_TAGS, allowedTags, ConnectionBase, type AcceptorContext } from './connection-base.ts';
import { easternEndOfDayMs } from './eastern-time.ts';
import { newReport, writeExecutionReport, type ExecutionReportRecord } from './execution-report.ts';
import type { MarginFixHub, MarginReportSink } from './margin-fix-hub.ts';
import { cancelRejectOf, cancelTextOf, INVALID_ORDER, INVALID_PRICE_ORDER, orderRejectOf, PERMISSION_DENIED, type FixRejectText } from './reject-texts.ts';

const NEW_ORDER_TAGS = allowedTags([
  Tag.ClOrdID, Tag.Symbol, Tag.Side, Tag.OrderQty, Tag.OrdType, Tag.Price, Tag.TimeInForce, Tag.ExpireTime, Tag.ExecInst,
  Tag.ExDestination, Tag.AllocAccount, ...PARTY_TAGS, Tag.SecondaryClOrdID, Tag.SelfTradePreventionType, Tag.CancelOrderOnPause,
  Tag.TransactTime, Tag.Text,
]);

/** Text(58) of the Canceled reports of a group's orders (the Predictions reason OrderGroupCancel's text). */
const ORDER_GROUP_CANCEL_TEXT = 'ORDER_GROUP_CANCEL';

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
  readonly #groups: MarginOrderGroups;
  readonly #placed = new Set<string>();
  readonly #ensureAccount: (userId: string, subaccount: number) => void;

  constructor(ctx: AcceptorContext, sessionName: string, hub: MarginFixHub, groups: MarginOrderGroups, ensureAccount: (userId: string, subaccount: number) => void) {
    super(ctx, sessionName);
    this.#hub = hub;
    this.#groups = groups;
    this.#ensureAccount = ensureAccount;
  }

  get subaccountLock(): number | null {
    return this.key?.subaccount ?? null;
  }

  protected override onLogon(): void {
    this.#hub.register(this);
  }

  override authorize(logon: FixMessage, keyId: string, kind: SessionKind): string | null {
    const refusal = super.authorize(logon, keyId, kind);
    if (refusal !== null) return refusal;
    this.flags.dollars = true; // fix.md §1 Margin: prices are always dollars
    return null;
  }

  protected override onClosed(): void {
    this.#hub.unregister(this);
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
      case MsgType.OrderGroupRequest: return this.#orderGroup(message);
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
    const timing = timeInForceOf(message, this.ctx.now());
    if (timing === null) return reject(INVALID_ORDER);
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
    // SecondaryClOrdID(526) joins an order group (fix.md §5, §6): checked as POST /margin/orders checks order_group_id.
    const groupId = message.getString(Tag.SecondaryClOrdID);
    let group: MarginOrderGroup | null = null;
    if (groupId !== null && groupId !== '') {
      group = this.#groups.get(this.userId, groupId, null);
      if (group === null) return reject(orderRejectOf(simErrorOf('not_found')));
      const refused = this.#groups.admit(group, subaccount, symbol);
      if (refused !== null) return reject(orderRejectOf(simErrorOf(refused.code)));
    }
    const engine = this.#hub.engine;
    engine.advance(); // expiries and funding due before this order are reported as such, not as part of it
    const fillsBefore = engine.fills.length;
    const userId = this.userId;
    this.#hub.beginCall((order) => order.userId === userId && order.clientOrderId === clOrdId);
    const result = engine.create(this.userId, subaccount, {
      ticker: symbol, clientOrderId: clOrdId, side: sideText === '1' ? 'bid' : 'ask', count, price, timeInForce: timing.timeInForce, selfTradePrevention,
      postOnly: tokens.includes('6'), reduceOnly: tokens.includes('E'), cancelOrderOnPause: message.getFlag(Tag.CancelOrderOnPause), expirationTs: timing.expirationTs,
    });
    if (isMarginError(result)) {
      reject(orderRejectOf(asSimError(result)));
      return this.#hub.endCall();
    }
    const order = result.order;
    this.#hub.track(order, clOrdId, this);
    this.#remember(order);
    this.#reportTaker(order, clOrdId, '', fillsBefore, '0', count);
    this.#hub.endCall();
    if (group !== null) {
      // The group counts the fills at entry; at its cap it cancels its resting orders (this one too), reported after.
      this.#hub.beginCall(() => false, ORDER_GROUP_CANCEL_TEXT);
      this.#groups.joined(group, order.orderId, result.execution.filled, this.ctx.now());
      this.#hub.endCall();
    }
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
      if (firstType === '5') {
        record.timeInForce = order.expirationTs === null ? '1' : '6'; // fix.md §5: Replaced carries 59=6 with 126, or 59=1
        record.expireTimeMs = order.expirationTs === null ? 0 : order.expirationTs * 1000;
      }
      this.#hub.emit(record, this, order.subaccount);
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
      this.#hub.emit(record, this, order.subaccount);
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
    this.#hub.engine.advance(); // an order that expired meanwhile is reported expired, then unknown here
    const order = this.#target(message, origClOrdId);
    if (order === null) return this.#cancelReject(clOrdId, origClOrdId, null, '1', { text: 'UNKNOWN_ORDER', reason: 1 });
    this.#hub.beginCall((changed) => changed === order);
    const result = this.#hub.engine.cancel(this.userId, order.subaccount, order.orderId);
    if (isMarginError(result)) {
      this.#cancelReject(clOrdId, origClOrdId, order, '1', cancelRejectOf(asSimError(result)));
      return this.#hub.endCall();
    }
    this.#hub.track(order, clOrdId, this);
    const record = this.#hub.orderReport(order, '4', '4', clOrdId);
    record.origClOrdId = origClOrdId;
    this.#hub.emit(record, this, order.subaccount);
    this.#hub.endCall();
  }

  // ---- OrderMassCancelRequest (35=q), KalshiNR only, as on Predictions ----

  #massCancel(message: FixMessage): void {
    const request = this.massCancelRequest(message, '/margin/orders', 'mmc');
    if (request === null) return;
    const { clOrdId, operationId, subaccount } = request;
    const session = this.session!;
    const engine = this.#hub.engine;
    engine.advance();
    // The hub holds a Canceled report per cancelled order (to the session that placed it, fix.md §5) until after 35=r.
    this.#hub.beginCall(() => false);
    engine.cancelAll(this.userId, subaccount);
    session.begin(MsgType.OrderMassCancelReport).string(Tag.ClOrdID, clOrdId).string(Tag.OrderID, operationId).string(Tag.MassCancelResponse, '6');
    session.send();
    this.#hub.endCall();
  }

  // ---- OrderCancelReplaceRequest (35=G) ----

  #replace(message: FixMessage): void {
    const msgType = MsgType.OrderCancelReplaceRequest;
    const ids = this.orderChangeIds(message, msgType, REPLACE_TAGS, [Tag.ClOrdID, Tag.OrigClOrdID, Tag.OrderQty, Tag.OrdType, Tag.Side, Tag.Symbol], 'POST', '/margin/orders/{order_id}/amend');
    if (ids === null) return;
    const { clOrdId, origClOrdId } = ids;
    this.#hub.engine.advance(); // an order that expired meanwhile is reported expired, then unknown here
    const order = this.#target(message, origClOrdId);
    if (order === null) return this.#cancelReject(clOrdId, origClOrdId, null, '2', { text: 'UNKNOWN_ORDER', reason: 1 });
    const count = message.getCount(Tag.OrderQty);
    if (count === INT_INVALID || count <= 0 || count % CONTRACT !== 0) return this.#cancelReject(clOrdId, origClOrdId, order, '2', { text: 'INVALID_AMEND_QTY_FOR_ORDER', reason: 2 });
    const price = message.has(Tag.Price) ? message.getPrice(Tag.Price) : order.price;
    if (price === INT_INVALID || price <= 0) return this.#cancelReject(clOrdId, origClOrdId, order, '2', { text: 'INVALID_PRICE', reason: 99 });
    const engine = this.#hub.engine;
    const fillsBefore = engine.fills.length;
    const side = message.getString(Tag.Side) === '1' ? 'bid' : 'ask';
    this.#hub.beginCall((changed) => changed === order);
    const result = engine.amend(this.userId, order.subaccount, order.orderId, message.getString(Tag.Symbol) ?? '', side, price, count, clOrdId);
    if (isMarginError(result)) {
      this.#cancelReject(clOrdId, origClOrdId, order, '2', cancelRejectOf(asSimError(result)));
      return this.#hub.endCall();
    }
    this.#hub.track(order, clOrdId, this);
    this.#reportTaker(result.order, clOrdId, origClOrdId, fillsBefore, '5', count);
    this.#hub.endCall();
  }

  // ---- OrderGroupRequest (35=UOG), fix.md §6, on the Margin engine's groups (margin/order-groups.ts) ----

  #orderGroup(message: FixMessage): void {
    // Margin group ids are the engine's own strings (not UUIDs): 1 to 64 printable characters.
    const request = this.orderGroupRequest(message, (id) => id.length <= CL_ORD_ID_CHARS_MAX && /^[\x20-\x7e]+$/.test(id), '1 to 64 printable characters', '/margin/order_groups');
    if (request === null) return;
    const { action, groupId, limit, subaccount } = request;
    this.#ensureAccount(this.userId, subaccount);
    const groups = this.#groups;
    let id = groupId;
    this.#hub.beginCall(() => false, ORDER_GROUP_CANCEL_TEXT); // a delete or trigger cancels orders: reported after 35=UOH
    try {
      if (action === 1) {
        // ExDestination is ignored on Margin (fix.md §1): the group is bound to the Margin exchange's index.
        const created = groups.create(this.userId, subaccount, MARGIN_EXCHANGE_INDEX, limit);
        if ('code' in created) return this.businessReject(message, BusinessRejectReason.OTHER, created.code.toUpperCase(), '');
        id = created.id;
      } else {
        const group = groups.get(this.userId, id, subaccount);
        if (group === null) return this.businessReject(message, BusinessRejectReason.UNKNOWN_ID, 'ORDER_GROUP_NOT_FOUND', id);
        switch (action) {
          case 2: groups.reset(group); break;
          case 3: groups.delete(group); break;
          case 4: groups.trigger(group); break;
          default: groups.setLimit(group, limit as number, this.ctx.now()); break;
        }
      }
      const session = this.session!;
      const encoder = session.begin(MsgType.OrderGroupResponse).string(Tag.OrderGroupID, id);
      if (limit !== null) encoder.int(Tag.OrderGroupContractsLimit, limit / CONTRACT);
      encoder.int(Tag.AllocAccount, subaccount); // fix.md §6: always echoed since v1.0.24
      session.send();
    } finally {
      this.#hub.endCall();
    }
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

/** TimeInForce(59) and ExpireTime(126) of a 35=D (fix.md §5), read as the Predictions connection reads them; null when unsupported. */
function timeInForceOf(message: FixMessage, nowMs: number): { timeInForce: MarginTimeInForce; expirationTs: number | null } | null {
  switch (message.getString(Tag.TimeInForce) ?? '1') { // default when omitted: not documented (§12 item 10); GTC, ours
    case '1': return { timeInForce: 'good_till_canceled', expirationTs: null };
    case '3': return { timeInForce: 'immediate_or_cancel', expirationTs: null };
    case '4': return { timeInForce: 'fill_or_kill', expirationTs: null };
    case '0': return { timeInForce: 'good_till_canceled', expirationTs: Math.floor(easternEndOfDayMs(nowMs) / 1000) }; // Day: to 23:59:59 ET
    case '6': {
      const expire = message.getTimestamp(Tag.ExpireTime);
      if (expire < 0) return null; // 126 is required with 59=6
      // A GTD time in the past acts as IOC (fix.md §5).
      if (expire <= nowMs + 1000) return { timeInForce: 'immediate_or_cancel', expirationTs: null };
      return { timeInForce: 'good_till_canceled', expirationTs: Math.ceil(expire / 1000) };
    }
    default: return null;
  }
}

function simErrorOf(code: string): SimError {
  return { code, details: '' } as unknown as SimError;
}
