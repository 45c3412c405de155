/**
 * Portfolio reads (spec/rest.md §4, §6): orders, one order, fills, positions, balance,
 * subaccount balances, resting order value and queue positions. Restricted keys see only their
 * subaccount: list filters are pinned to it, an explicit other subaccount is a 403, and a single
 * order outside it is a 404 (interface-spec Errors 2). This file decodes queries and renders.
 */

import {
  balanceToJson,
  eventPositionToJson,
  fillToJson,
  isSimError,
  orderToJson,
  positionToJson,
  queuePositionToJson,
  restingOrderValueToJson,
  subaccountBalanceToJson,
  type OrderStatus,
} from '../../../engine/index.ts';
import { ORDERS_EVENT_TICKERS_MAX } from '../bounds.ts';
import { jsonReply, simErrorReply, type RestReply } from '../reply.ts';
import { alias, route, type RestContext, type RouteDef } from '../route.ts';
import { callerKey, querySubaccount, readSubaccount } from './caller.ts';

const ORDER_STATUSES: readonly OrderStatus[] = ['resting', 'canceled', 'executed'];
const COUNT_FILTERS = ['position', 'total_traded'] as const;

function getOrders(ctx: RestContext): RestReply {
  const key = callerKey(ctx);
  const q = ctx.query;
  const limit = q.limit(100, 1000);
  const page = ctx.services.engine.listOrders(key.userId, {
    limit,
    cursor: q.cursor(),
    ticker: q.string('ticker'),
    eventTickers: q.list('event_ticker', ORDERS_EVENT_TICKERS_MAX),
    status: q.oneOf('status', ORDER_STATUSES),
    subaccount: readSubaccount(ctx, querySubaccount(ctx)),
    exchangeIndex: q.integer('exchange_index'),
    minTs: q.integer('min_ts'),
    maxTs: q.integer('max_ts'),
  });
  if (isSimError(page)) return simErrorReply(page);
  return jsonReply(200, { orders: page.items.map(orderToJson), cursor: page.cursor });
}

function getOrder(ctx: RestContext): RestReply {
  const key = callerKey(ctx);
  ctx.services.ensureUser(key.userId);
  const order = ctx.services.engine.getOrder(key.userId, ctx.params.order_id, key.subaccount);
  if (isSimError(order)) return simErrorReply(order);
  return jsonReply(200, { order: orderToJson(order) });
}

function getFills(ctx: RestContext): RestReply {
  const key = callerKey(ctx);
  const q = ctx.query;
  const limit = q.limit(100, 1000);
  const page = ctx.services.engine.listFills(key.userId, {
    limit,
    cursor: q.cursor(),
    ticker: q.string('ticker'),
    orderId: q.string('order_id'),
    subaccount: readSubaccount(ctx, querySubaccount(ctx)),
    exchangeIndex: q.integer('exchange_index'),
    minTs: q.integer('min_ts'),
    maxTs: q.integer('max_ts'),
  });
  if (isSimError(page)) return simErrorReply(page);
  return jsonReply(200, { fills: page.items.map(fillToJson), cursor: page.cursor });
}

function getPositions(ctx: RestContext): RestReply {
  const key = callerKey(ctx);
  const q = ctx.query;
  const limit = q.limit(100, 1000);
  const page = ctx.services.engine.listPositions(key.userId, {
    limit,
    cursor: q.cursor(),
    ticker: q.string('ticker'),
    eventTicker: q.string('event_ticker'),
    subaccount: readSubaccount(ctx, querySubaccount(ctx)),
    exchangeIndex: q.integer('exchange_index'),
    countFilter: q.oneOf('count_filter', COUNT_FILTERS),
  });
  if (isSimError(page)) return simErrorReply(page);
  return jsonReply(200, {
    market_positions: page.marketPositions.map(positionToJson),
    event_positions: page.eventPositions.map(eventPositionToJson),
    cursor: page.cursor,
  });
}

function getBalance(ctx: RestContext): RestReply {
  const key = callerKey(ctx);
  const subaccount = readSubaccount(ctx, querySubaccount(ctx));
  const balance = ctx.services.engine.getBalance(key.userId, { subaccount, exchangeIndex: ctx.query.integer('exchange_index') });
  if (isSimError(balance)) return simErrorReply(balance);
  // balance_breakdown is omitted for restricted keys (rest.md §6).
  return jsonReply(200, balanceToJson(balance, key.subaccount === null));
}

function getSubaccountBalances(ctx: RestContext): RestReply {
  const key = callerKey(ctx);
  readSubaccount(ctx, null);
  const balances = ctx.services.engine.listSubaccountBalances(key.userId);
  if (isSimError(balances)) return simErrorReply(balances);
  const visible = key.subaccount === null ? balances : balances.filter((entry) => entry.subaccount === key.subaccount);
  return jsonReply(200, { subaccount_balances: visible.map(subaccountBalanceToJson) });
}

function getRestingOrderValue(ctx: RestContext): RestReply {
  const key = callerKey(ctx);
  ctx.services.ensureUser(key.userId);
  const value = ctx.services.engine.restingOrderValue(key.userId);
  if (isSimError(value)) return simErrorReply(value);
  return jsonReply(200, restingOrderValueToJson(value));
}

function getQueuePositions(ctx: RestContext): RestReply {
  const key = callerKey(ctx);
  const views = ctx.services.engine.queuePositions(key.userId, {
    tickers: ctx.query.list('market_tickers'),
    eventTicker: ctx.query.string('event_ticker'),
    subaccount: readSubaccount(ctx, querySubaccount(ctx)),
  });
  if (isSimError(views)) return simErrorReply(views);
  return jsonReply(200, { queue_positions: views.map(queuePositionToJson) });
}

function getQueuePosition(ctx: RestContext): RestReply {
  const key = callerKey(ctx);
  ctx.services.ensureUser(key.userId);
  const view = ctx.services.engine.queuePosition(key.userId, ctx.params.order_id, key.subaccount);
  if (isSimError(view)) return simErrorReply(view);
  return jsonReply(200, { queue_position_fp: queuePositionToJson(view).queue_position_fp });
}

const GET_ORDER = route('GET', '/portfolio/orders/{order_id}', { auth: true }, getOrder);

export const PORTFOLIO_ROUTES: readonly RouteDef[] = [
  route('GET', '/portfolio/orders', { auth: true }, getOrders),
  route('GET', '/portfolio/orders/queue_positions', { auth: true }, getQueuePositions),
  GET_ORDER,
  // The seed spells it GET /portfolio/order/{orderId} (interface-spec Endpoints); served as an alias.
  alias('/portfolio/order/{order_id}', GET_ORDER),
  route('GET', '/portfolio/orders/{order_id}/queue_position', { auth: true }, getQueuePosition),
  route('GET', '/portfolio/fills', { auth: true }, getFills),
  route('GET', '/portfolio/positions', { auth: true }, getPositions),
  route('GET', '/portfolio/balance', { auth: true, scope: 'balance' }, getBalance),
  route('GET', '/portfolio/subaccounts/balances', { auth: true, scope: 'balance' }, getSubaccountBalances),
  route('GET', '/portfolio/summary/total_resting_order_value', { auth: true }, getRestingOrderValue),
];
