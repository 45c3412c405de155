/**
 * V2 order entry (spec/rest.md §3): create (201), cancel, amend, decrease, batch create (201),
 * batch cancel, cancel-all (204), plus the legacy /portfolio/orders mutations, which answer 410
 * deprecated_v1_order_endpoint (rest.md §2). Bodies are decoded strictly (body.ts); restricted keys
 * are held to their subaccount, and a batch with any foreign entry is rejected whole before
 * anything is placed or cancelled (interface-spec Errors 5). Client order ids, exchange ids and
 * tickers are bounded (rest/bounds.ts); one bad entry fails a batch whole, before anything is
 * placed. The engine decides everything about the orders themselves; this file decodes, scopes and
 * renders.
 */

import type { BookSide, Count } from '../../../../core/index.ts';
import {
  amendOrderResultToJson,
  cancelOrderResultToJson,
  createOrderResultToJson,
  decreaseOrderResultToJson,
  errorToFlatJson,
  isSimError,
  type BatchCancelItem,
  type CreateOrderParams,
  type SelfTradePrevention,
  type TimeInForce,
} from '../../../engine/index.ts';
import { BodyReader } from '../body.ts';
import { emptyReply, invalidField, jsonReply, nestedError, simErrorReply, type RestReply } from '../reply.ts';
import { route, type RestContext, type RouteDef } from '../route.ts';
import { callerKey, querySubaccount, restrictedSubaccountError, writeSubaccount } from './caller.ts';
import { regionGate } from './region-gate.ts';

const SIDES: readonly BookSide[] = ['bid', 'ask'];
const TIME_IN_FORCE: readonly TimeInForce[] = ['fill_or_kill', 'good_till_canceled', 'immediate_or_cancel'];
const SELF_TRADE: readonly SelfTradePrevention[] = ['taker_at_cross', 'maker'];

/** Decodes one CreateOrderV2Request; `subaccount` is left as sent (null when omitted). */
function decodeCreate(value: unknown, prefix: string): { params: CreateOrderParams; subaccount: number | null } {
  const body = new BodyReader(value, prefix);
  const ticker = body.ticker('ticker', true);
  if (ticker === '') throw invalidField(`${prefix}ticker`, 'ticker must not be empty');
  const params: CreateOrderParams = {
    ticker,
    clientOrderId: body.clientOrderId('client_order_id'),
    side: body.oneOf('side', SIDES, true),
    count: body.count('count', true),
    price: body.price('price', true),
    timeInForce: body.oneOf('time_in_force', TIME_IN_FORCE, true),
    selfTradePrevention: body.oneOf('self_trade_prevention_type', SELF_TRADE, true),
    expirationTs: body.integer('expiration_time'),
    postOnly: body.boolean('post_only') ?? false,
    reduceOnly: body.boolean('reduce_only') ?? false,
    cancelOrderOnPause: body.boolean('cancel_order_on_pause') ?? false,
    orderGroupId: body.id('order_group_id', false),
    exchangeIndex: body.integer('exchange_index'),
  };
  if (params.orderGroupId === '') params.orderGroupId = null;
  return { params, subaccount: body.subaccount() };
}

function createOrder(ctx: RestContext): RestReply {
  const key = callerKey(ctx);
  const { params, subaccount } = decodeCreate(ctx.body, '');
  params.subaccount = writeSubaccount(ctx, subaccount);
  const gated = regionGate(ctx, key.userId, params.ticker);
  if (gated !== null) return simErrorReply(gated);
  const result = ctx.services.engine.createOrder(key.userId, params);
  if (isSimError(result)) return simErrorReply(result);
  return jsonReply(201, createOrderResultToJson(result));
}

function batchItems(ctx: RestContext): unknown[] {
  const body = new BodyReader(ctx.body);
  const items = body.array('orders', true)!;
  if (items.length === 0) throw invalidField('orders', 'orders must not be empty');
  return items;
}

function batchCreate(ctx: RestContext): RestReply {
  const key = callerKey(ctx);
  const items = batchItems(ctx);
  const decoded = items.map((item, index) => decodeCreate(item, `orders[${index}].`));
  // Restricted keys: one foreign entry rejects the whole batch before anything is placed.
  if (key.subaccount !== null && decoded.some((entry) => entry.subaccount !== null && entry.subaccount !== key.subaccount)) {
    throw restrictedSubaccountError(key);
  }
  const params = decoded.map((entry) => {
    entry.params.subaccount = writeSubaccount(ctx, entry.subaccount);
    return entry.params;
  });
  // Entries on markets the lapsed attestation gates fail alone; the others are placed.
  const gates = params.map((entry) => regionGate(ctx, key.userId, entry.ticker));
  const placed = ctx.services.engine.batchCreateOrders(key.userId, params.filter((_, index) => gates[index] === null));
  let next = 0;
  const results = gates.map((gate) => gate ?? placed[next++]);
  const orders = results.map((result, index) => {
    if (!isSimError(result)) return createOrderResultToJson(result);
    const clientOrderId = params[index].clientOrderId;
    return clientOrderId === null || clientOrderId === undefined
      ? { error: errorToFlatJson(result) }
      : { client_order_id: clientOrderId, error: errorToFlatJson(result) };
  });
  return jsonReply(201, { orders });
}

function cancelOrder(ctx: RestContext): RestReply {
  const key = callerKey(ctx);
  const requested = querySubaccount(ctx);
  const subaccount = key.subaccount !== null ? writeSubaccount(ctx, requested) : requested;
  const result = ctx.services.engine.cancelOrder(key.userId, ctx.params.order_id, subaccount);
  if (isSimError(result)) return simErrorReply(result);
  return jsonReply(200, cancelOrderResultToJson(result));
}

function batchCancel(ctx: RestContext): RestReply {
  const key = callerKey(ctx);
  const items = batchItems(ctx);
  const cancels: BatchCancelItem[] = items.map((item, index) => {
    const body = new BodyReader(item, `orders[${index}].`);
    const orderId = body.id('order_id', true);
    return {
      orderId,
      subaccount: body.subaccount(),
      exchangeIndex: body.integer('exchange_index'),
      ticker: body.ticker('market_ticker', false),
    };
  });
  if (key.subaccount !== null) {
    if (cancels.some((item) => item.subaccount !== null && item.subaccount !== key.subaccount)) throw restrictedSubaccountError(key);
    for (const item of cancels) item.subaccount = key.subaccount;
  }
  const results = ctx.services.engine.batchCancelOrders(key.userId, cancels);
  const orders = results.map((result, index) =>
    isSimError(result) ? { order_id: cancels[index].orderId, reduced_by: '0.00', error: errorToFlatJson(result) } : cancelOrderResultToJson(result),
  );
  return jsonReply(200, { orders });
}

function amendOrder(ctx: RestContext): RestReply {
  const key = callerKey(ctx);
  const requested = querySubaccount(ctx);
  const subaccount = key.subaccount !== null ? writeSubaccount(ctx, requested) : requested;
  const body = new BodyReader(ctx.body);
  const result = ctx.services.engine.amendOrder(key.userId, ctx.params.order_id, {
    ticker: body.ticker('ticker', true),
    side: body.oneOf('side', SIDES, true),
    price: body.price('price', true),
    count: body.count('count', true),
    clientOrderId: body.clientOrderId('client_order_id'),
    updatedClientOrderId: body.clientOrderId('updated_client_order_id'),
    subaccount,
    exchangeIndex: body.integer('exchange_index'),
  });
  if (isSimError(result)) return simErrorReply(result);
  return jsonReply(200, amendOrderResultToJson(result));
}

function decreaseOrder(ctx: RestContext): RestReply {
  const key = callerKey(ctx);
  const requested = querySubaccount(ctx);
  const subaccount = key.subaccount !== null ? writeSubaccount(ctx, requested) : requested;
  const body = new BodyReader(ctx.body);
  const reduceBy: Count | null = body.count('reduce_by', false);
  const reduceTo: Count | null = body.count('reduce_to', false);
  if ((reduceBy === null) === (reduceTo === null)) {
    return nestedError(400, 'bad_request', 'exactly one of reduce_by and reduce_to is required', 'reduce_by,reduce_to');
  }
  const result = ctx.services.engine.decreaseOrder(key.userId, ctx.params.order_id, {
    reduceBy,
    reduceTo,
    subaccount,
    exchangeIndex: body.integer('exchange_index'),
    ticker: body.ticker('market_ticker', false),
  });
  if (isSimError(result)) return simErrorReply(result);
  return jsonReply(200, decreaseOrderResultToJson(result));
}

function cancelAll(ctx: RestContext): RestReply {
  const key = callerKey(ctx);
  const requested = querySubaccount(ctx);
  let subaccount: number | null = requested;
  if (key.subaccount !== null) {
    if (requested !== null && requested !== key.subaccount) throw restrictedSubaccountError(key);
    subaccount = key.subaccount;
  }
  ctx.services.ensureUser(key.userId);
  ctx.services.engine.cancelAllOrders(key.userId, subaccount);
  return emptyReply(204);
}

function deprecated(): RestReply {
  return nestedError(
    410,
    'deprecated_v1_order_endpoint',
    'This order endpoint is deprecated and no longer accepts requests; switch to the V2 endpoints under /portfolio/events/orders',
  );
}

function countItems(ctx: RestContext): number {
  const body = ctx.body as { orders?: unknown } | undefined;
  return body !== undefined && body !== null && Array.isArray(body.orders) ? body.orders.length : 1;
}

const TRADE = { auth: true, scope: 'trade' as const, orderEntry: true };

export const ORDER_ROUTES: readonly RouteDef[] = [
  route('POST', '/portfolio/events/orders', { ...TRADE, body: 'json' }, createOrder),
  route('DELETE', '/portfolio/events/orders', { ...TRADE }, cancelAll),
  route('POST', '/portfolio/events/orders/batched', { ...TRADE, body: 'json', billedItems: countItems }, batchCreate),
  route('DELETE', '/portfolio/events/orders/batched', { ...TRADE, body: 'json', billedItems: countItems }, batchCancel),
  route('DELETE', '/portfolio/events/orders/{order_id}', { ...TRADE }, cancelOrder),
  route('POST', '/portfolio/events/orders/{order_id}/amend', { ...TRADE, body: 'json' }, amendOrder),
  route('POST', '/portfolio/events/orders/{order_id}/decrease', { ...TRADE, body: 'json' }, decreaseOrder),
  // Legacy mutations: billed at the legacy cost, then 410 (rest.md §2, §3).
  route('POST', '/portfolio/orders', { auth: true, scope: 'trade', body: 'optional' }, deprecated),
  route('POST', '/portfolio/orders/batched', { auth: true, scope: 'trade', body: 'optional', billedItems: countItems }, deprecated),
  route('DELETE', '/portfolio/orders/batched', { auth: true, scope: 'trade', body: 'optional', billedItems: countItems }, deprecated),
  route('DELETE', '/portfolio/orders/{order_id}', { auth: true, scope: 'trade' }, deprecated),
  route('POST', '/portfolio/orders/{order_id}/amend', { auth: true, scope: 'trade', body: 'optional' }, deprecated),
  route('POST', '/portfolio/orders/{order_id}/decrease', { auth: true, scope: 'trade', body: 'optional' }, deprecated),
];

