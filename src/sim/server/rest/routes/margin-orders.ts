/**
 * Margin order entry and account reads (margin-api.openapi.yaml): create, get, list, amend,
 * decrease, cancel, cancel-all (DELETE /margin/orders: path not shown in the seed, ours mirrors the
 * Predictions cancel-all), positions, risk, balance, fills, fee tiers, funding history, notional
 * risk limit, margin enabled. Signed requests; the subaccount rules of caller.ts apply (restricted
 * keys are pinned to their subaccount). Each account is funded on first touch like the other
 * exchange. This file decodes and renders; the engine decides.
 */

import { SUBACCOUNT_FORBIDDEN, resolveSubaccount } from '../../../auth/index.ts';
import { CONTRACT, isMarginError, marginRender, ppmToNumber, type AccountRecord, type MarginError } from '../../../margin/index.ts';
import type { ExecutionSummary } from '../../../margin/index.ts';
import { mulDivRound } from '../../../margin/arith.ts';
import { decodeCursor, encodeCursor } from '../../../engine/pagination.ts';
import { BodyReader } from '../body.ts';
import { emptyReply, jsonReply, nestedError, type RestReply } from '../reply.ts';
import { route, type RestContext, type RouteDef } from '../route.ts';
import { callerKey, querySubaccount, restrictedSubaccountError } from './caller.ts';
import { marginOf } from './margin-market.ts';

const TIME_IN_FORCE = ['fill_or_kill', 'good_till_canceled', 'immediate_or_cancel'] as const;
const STP = ['taker_at_cross', 'maker'] as const;
const SIDES = ['bid', 'ask'] as const;

export function errorReply(error: MarginError): RestReply {
  return nestedError(error.status, error.code, error.message, error.details);
}

/** The one subaccount a write or single read acts on: named, the key's locked one, or 0; funded. */
export function oneSubaccount(ctx: RestContext, requested: number | null): number {
  const key = callerKey(ctx);
  const subaccount = resolveSubaccount(key, requested, 0);
  if (subaccount === SUBACCOUNT_FORBIDDEN) throw restrictedSubaccountError(key);
  ctx.services.ensureMarginAccount(key.userId, subaccount);
  return subaccount;
}

/** A list filter: the locked subaccount, the named one, or null (all). */
export function filterSubaccount(ctx: RestContext, requested: number | null): number | null {
  const key = callerKey(ctx);
  if (key.subaccount !== null) {
    if (requested !== null && requested !== key.subaccount) throw restrictedSubaccountError(key);
    ctx.services.ensureMarginAccount(key.userId, key.subaccount);
    return key.subaccount;
  }
  ctx.services.ensureMarginAccount(key.userId, requested ?? 0);
  return requested;
}

function accountsFor(ctx: RestContext, subaccount: number | null): AccountRecord[] {
  const accounts = marginOf(ctx).accountsOf(callerKey(ctx).userId);
  return subaccount === null ? accounts : accounts.filter((a) => a.subaccount === subaccount);
}

function executionFields(execution: ExecutionSummary): { average_fill_price: string; average_fee_paid: string } | null {
  if (execution.filled === 0) return null;
  return {
    average_fill_price: marginRender.price(mulDivRound(execution.costUnits, 1, execution.filled)),
    average_fee_paid: marginRender.dollars(mulDivRound(execution.fees, CONTRACT, execution.filled)),
  };
}

function createOrder(ctx: RestContext): RestReply {
  const body = new BodyReader(ctx.body);
  const subaccount = oneSubaccount(ctx, body.subaccount());
  const clientOrderId = body.clientOrderId('client_order_id');
  if (clientOrderId === null) return nestedError(400, 'bad_request', 'missing required field client_order_id', 'client_order_id');
  const expiration = body.integer('expiration_time');
  const ticker = body.ticker('ticker', true);
  // order_group_id: the group must be the caller's, on this subaccount, on the market's index (order-groups.ts).
  const groupId = body.id('order_group_id', false);
  const groups = ctx.services.marginOrderGroups;
  const group = groupId === null ? null : groups.get(callerKey(ctx).userId, groupId, null);
  if (groupId !== null && group === null) return nestedError(404, 'not_found', 'order group not found', 'order_group_id');
  if (group !== null) {
    const refused = groups.admit(group, subaccount, ticker);
    if (refused !== null) return nestedError(refused.status, refused.code, refused.message, 'order_group_id');
  }
  const result = marginOf(ctx).create(callerKey(ctx).userId, subaccount, {
    ticker,
    clientOrderId,
    side: body.oneOf('side', SIDES, true),
    count: body.count('count', true),
    price: body.price('price', true),
    timeInForce: body.oneOf('time_in_force', TIME_IN_FORCE, true),
    selfTradePrevention: body.oneOf('self_trade_prevention_type', STP, true),
    postOnly: body.boolean('post_only') ?? false,
    reduceOnly: body.boolean('reduce_only') ?? false,
    cancelOrderOnPause: body.boolean('cancel_order_on_pause') ?? false,
    expirationTs: expiration,
  });
  if (isMarginError(result)) return errorReply(result);
  if (group !== null) groups.joined(group, result.order.orderId, result.execution.filled, ctx.services.now());
  return jsonReply(201, {
    order_id: result.order.orderId,
    client_order_id: result.order.clientOrderId,
    fill_count: marginRender.count(result.execution.filled),
    remaining_count: marginRender.count(result.order.remaining),
    ...executionFields(result.execution),
  });
}

function getOrder(ctx: RestContext): RestReply {
  const key = callerKey(ctx);
  const order = marginOf(ctx).orders.get(ctx.params.order_id);
  if (order === undefined || order.userId !== key.userId || (key.subaccount !== null && order.subaccount !== key.subaccount)) {
    return nestedError(404, 'not_found', 'order not found');
  }
  return jsonReply(200, { order: marginRender.orderToJson(order) });
}

function getOrders(ctx: RestContext): RestReply {
  const q = ctx.query;
  const key = callerKey(ctx);
  const subaccount = filterSubaccount(ctx, querySubaccount(ctx));
  const limit = q.limit(10_000, 10_000);
  const ticker = q.string('ticker');
  const status = q.oneOf('status', ['resting', 'canceled', 'executed'] as const);
  const minTs = q.integer('min_ts');
  const maxTs = q.integer('max_ts');
  const after = decodeCursor(q.cursor());
  const list = marginOf(ctx).orderList;
  const out = [];
  let cursor = '';
  for (let i = list.length - 1; i >= 0; i--) {
    const order = list[i];
    if (after !== -1 && order.seq >= after) continue;
    if (order.userId !== key.userId || (subaccount !== null && order.subaccount !== subaccount)) continue;
    if ((ticker !== null && order.ticker !== ticker) || (status !== null && order.status !== status)) continue;
    if ((minTs !== null && order.createdMs < minTs * 1000) || (maxTs !== null && order.createdMs > maxTs * 1000)) continue;
    if (out.length === limit) {
      cursor = encodeCursor(out[out.length - 1].seq);
      break;
    }
    out.push(order);
  }
  return jsonReply(200, { orders: out.map(marginRender.orderToJson), cursor });
}

function amendOrder(ctx: RestContext): RestReply {
  const body = new BodyReader(ctx.body);
  const subaccount = oneSubaccount(ctx, ctx.query.integer('subaccount'));
  const result = marginOf(ctx).amend(
    callerKey(ctx).userId,
    subaccount,
    ctx.params.order_id,
    body.ticker('ticker', true),
    body.oneOf('side', SIDES, true),
    body.price('price', true),
    body.count('count', true),
    body.clientOrderId('updated_client_order_id'),
  );
  if (isMarginError(result)) return errorReply(result);
  const fills = executionFields(result.execution);
  return jsonReply(200, {
    order_id: result.order.orderId,
    client_order_id: result.order.clientOrderId,
    // After immediate fills (seed); null when the amend neither filled nor changed the size.
    remaining_count: result.sizeChanged ? marginRender.count(result.order.remaining) : null,
    fill_count: result.sizeChanged ? marginRender.count(result.execution.filled) : null,
    average_fill_price: fills?.average_fill_price ?? null,
    average_fee_paid: fills?.average_fee_paid ?? null,
  });
}

function decreaseOrder(ctx: RestContext): RestReply {
  const body = new BodyReader(ctx.body);
  const subaccount = oneSubaccount(ctx, ctx.query.integer('subaccount'));
  const reduceBy = body.count('reduce_by', false);
  const reduceTo = body.count('reduce_to', false);
  if ((reduceBy === null) === (reduceTo === null)) return nestedError(400, 'bad_request', 'exactly one of reduce_by or reduce_to must be provided');
  const result = marginOf(ctx).decrease(callerKey(ctx).userId, subaccount, ctx.params.order_id, reduceBy, reduceTo);
  if (isMarginError(result)) return errorReply(result);
  return jsonReply(200, { order_id: result.orderId, client_order_id: result.clientOrderId, remaining_count: marginRender.count(result.remaining) });
}

function cancelOrder(ctx: RestContext): RestReply {
  const subaccount = oneSubaccount(ctx, ctx.query.integer('subaccount'));
  const result = marginOf(ctx).cancel(callerKey(ctx).userId, subaccount, ctx.params.order_id);
  if (isMarginError(result)) return errorReply(result);
  return jsonReply(200, { order_id: result.order.orderId, client_order_id: result.order.clientOrderId, reduced_by: marginRender.count(result.reducedBy) });
}

function cancelAll(ctx: RestContext): RestReply {
  const subaccount = filterSubaccount(ctx, querySubaccount(ctx));
  marginOf(ctx).cancelAll(callerKey(ctx).userId, subaccount);
  return emptyReply(204);
}

function getPositions(ctx: RestContext): RestReply {
  const subaccount = filterSubaccount(ctx, querySubaccount(ctx));
  const ticker = ctx.query.string('ticker');
  const margin = marginOf(ctx);
  const positions = [];
  for (const account of accountsFor(ctx, subaccount)) {
    for (const position of account.positions.values()) {
      if (position.count === 0 || (ticker !== null && position.ticker !== ticker)) continue;
      positions.push(marginRender.positionToJson(margin, account, position));
    }
  }
  return jsonReply(200, { positions });
}

function getRisk(ctx: RestContext): RestReply {
  filterSubaccount(ctx, null);
  const margin = marginOf(ctx);
  let notional = 0;
  let maintenance = 0;
  const positions = [];
  for (const account of accountsFor(ctx, callerKey(ctx).subaccount)) {
    maintenance += margin.maintenanceOf(account);
    for (const position of account.positions.values()) {
      if (position.count === 0) continue;
      notional += mulDivRound(Math.abs(position.count), margin.markets.get(position.ticker)!.mark, 100);
      positions.push(marginRender.riskPositionToJson(margin, account, position));
    }
  }
  return jsonReply(200, {
    account_leverage: maintenance === 0 ? null : Number((notional / maintenance).toFixed(4)),
    total_position_notional: marginRender.dollars(notional),
    total_maintenance_margin: marginRender.dollars(maintenance),
    positions,
  });
}

function getBalance(ctx: RestContext): RestReply {
  filterSubaccount(ctx, null);
  const compute = ctx.query.boolean('compute_available_balance') ?? false;
  const margin = marginOf(ctx);
  let settled = 0;
  const balances = [];
  for (const account of accountsFor(ctx, callerKey(ctx).subaccount)) {
    settled += account.cash;
    let unrealized = 0;
    for (const position of account.positions.values()) unrealized += margin.unrealizedOf(position);
    const equity = account.cash + unrealized;
    const initial = margin.initialOf(account);
    const resting = compute ? margin.restingOrdersMarginOf(account) : 0;
    balances.push({
      subaccount: account.subaccount,
      position_value: marginRender.dollars(unrealized),
      account_equity: marginRender.dollars(equity),
      maintenance_margin: marginRender.dollars(margin.maintenanceOf(account)),
      initial_margin: marginRender.dollars(initial),
      resting_orders_margin: marginRender.dollars(resting),
      available_balance: marginRender.dollars(compute ? Math.max(0, equity - initial - resting) : 0),
    });
  }
  return jsonReply(200, { subaccount_balances: balances, settled_funds: marginRender.dollars(settled) });
}

function getFills(ctx: RestContext): RestReply {
  const q = ctx.query;
  const key = callerKey(ctx);
  // GetMarginFills documents subaccount default 0.
  const subaccount = filterSubaccount(ctx, querySubaccount(ctx) ?? (key.subaccount ?? 0));
  const limit = q.limit(100, 1000);
  const minTs = q.integer('min_ts');
  const maxTs = q.integer('max_ts');
  const after = decodeCursor(q.cursor());
  const fills = marginOf(ctx).fills;
  const out = [];
  let cursor = '';
  for (let i = fills.length - 1; i >= 0; i--) {
    const fill = fills[i];
    if (after !== -1 && fill.seq >= after) continue;
    if (fill.userId !== key.userId || (subaccount !== null && fill.subaccount !== subaccount)) continue;
    if ((minTs !== null && fill.createdMs < minTs * 1000) || (maxTs !== null && fill.createdMs > maxTs * 1000)) continue;
    if (out.length === limit) {
      cursor = encodeCursor(out[out.length - 1].seq);
      break;
    }
    out.push(fill);
  }
  return jsonReply(200, { fills: out.map(marginRender.fillToJson), cursor });
}

function getFeeTiers(ctx: RestContext): RestReply {
  filterSubaccount(ctx, null);
  const maker: Record<string, number> = {};
  const taker: Record<string, number> = {};
  for (const market of marginOf(ctx).markets.values()) {
    maker[market.spec.ticker] = ppmToNumber(market.spec.makerFeePpm);
    taker[market.spec.ticker] = ppmToNumber(market.spec.takerFeePpm);
  }
  return jsonReply(200, { maker_fee_rates: maker, taker_fee_rates: taker });
}

function getFundingHistory(ctx: RestContext): RestReply {
  const q = ctx.query;
  const key = callerKey(ctx);
  const subaccount = filterSubaccount(ctx, querySubaccount(ctx));
  const start = dateMs(q.string('start_date'), 'start_date');
  const end = dateMs(q.string('end_date'), 'end_date');
  if (typeof start !== 'number') return start;
  if (typeof end !== 'number') return end;
  const ticker = q.string('ticker');
  const rows = marginOf(ctx).fundingPayments.filter(
    (p) => p.userId === key.userId && (subaccount === null || p.subaccount === subaccount) && (ticker === null || p.ticker === ticker) && p.fundingMs >= start && p.fundingMs < end + 86_400_000,
  );
  return jsonReply(200, { funding_history: rows.map(marginRender.fundingHistoryToJson) });
}

function dateMs(text: string | null, field: string): number | RestReply {
  if (text === null) return nestedError(400, 'bad_request', `${field} is required (YYYY-MM-DD)`, field);
  if (!/^\d{4}-\d{2}-\d{2}$/.test(text)) return nestedError(400, 'bad_request', `${field} must be YYYY-MM-DD`, field);
  const ms = Date.parse(`${text}T00:00:00Z`);
  return Number.isNaN(ms) ? nestedError(400, 'bad_request', `${field} is not a date`, field) : ms;
}

function getNotionalRiskLimit(ctx: RestContext): RestReply {
  filterSubaccount(ctx, null);
  return jsonReply(200, { default_notional_value_risk_limit: marginRender.dollars(marginOf(ctx).catalog.notionalRiskLimit), notional_value_risk_limits_by_market_ticker: {} });
}

export const MARGIN_ORDER_ROUTES: readonly RouteDef[] = [
  route('POST', '/margin/orders', { auth: true, scope: 'trade', body: 'json', orderEntry: true }, createOrder),
  route('GET', '/margin/orders', { auth: true }, getOrders),
  route('DELETE', '/margin/orders', { auth: true, scope: 'trade', orderEntry: true }, cancelAll),
  route('GET', '/margin/orders/{order_id}', { auth: true }, getOrder),
  route('DELETE', '/margin/orders/{order_id}', { auth: true, scope: 'trade', orderEntry: true }, cancelOrder),
  route('POST', '/margin/orders/{order_id}/amend', { auth: true, scope: 'trade', body: 'json', orderEntry: true }, amendOrder),
  route('POST', '/margin/orders/{order_id}/decrease', { auth: true, scope: 'trade', body: 'json', orderEntry: true }, decreaseOrder),
  route('GET', '/margin/positions', { auth: true }, getPositions),
  route('GET', '/margin/risk', { auth: true }, getRisk),
  route('GET', '/margin/balance', { auth: true, scope: 'balance' }, getBalance),
  route('GET', '/margin/fills', { auth: true }, getFills),
  route('GET', '/margin/fee_tiers', { auth: true }, getFeeTiers),
  route('GET', '/margin/fee_tier_rates', { auth: true }, getFeeTiers),
  route('GET', '/margin/funding_history', { auth: true }, getFundingHistory),
  route('GET', '/margin/notional_risk_limit', { auth: true }, getNotionalRiskLimit),
  route('GET', '/margin/enabled', { auth: true }, (ctx) => (callerKey(ctx), jsonReply(200, { enabled: true }))),
];
