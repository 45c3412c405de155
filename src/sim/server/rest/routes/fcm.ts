/**
 * GET /fcm/orders (interface-spec "Predictions, portfolio and orders" and Limits): an FCM member
 * reads its subtraders' orders by `subtrader_id`, by `client_order_ids` (comma-separated, up to
 * 100), or both (orders matching both). At least one is required (400). Lookups by client order
 * id search only the last 24 hours: an earlier `min_ts` is raised to 24 hours ago. The caller must
 * be an FCM (403) and the subtrader its own (404). Orders come from the engine; the FCM relation
 * from services.fcm.
 */

import { isSimError, orderToJson, type Order, type OrderStatus } from '../../../engine/index.ts';
import { CLIENT_ORDER_ID_CHARS_MAX } from '../bounds.ts';
import { jsonReply, msgError, nestedError, RestError, simErrorReply, type RestReply } from '../reply.ts';
import { route, type RestContext, type RouteDef } from '../route.ts';
import { callerKey } from './caller.ts';

export const FCM_CLIENT_ORDER_IDS_MAX = 100;
export const FCM_LOOKUP_WINDOW_MS = 24 * 3600 * 1000;
/** Order pages read per subtrader in a client-id lookup: 1000 orders each. */
const LOOKUP_PAGES_MAX = 100;
const ORDER_STATUSES: readonly OrderStatus[] = ['resting', 'canceled', 'executed'];

function getFcmOrders(ctx: RestContext): RestReply {
  const key = callerKey(ctx);
  const q = ctx.query;
  const subtraderId = q.string('subtrader_id');
  const clientOrderIds = q.list('client_order_ids', FCM_CLIENT_ORDER_IDS_MAX);
  if (subtraderId === null && clientOrderIds === null) {
    throw new RestError(msgError('at least one of subtrader_id and client_order_ids is required'));
  }
  for (const id of clientOrderIds ?? []) {
    if (id.length === 0 || id.length > CLIENT_ORDER_ID_CHARS_MAX) throw new RestError(msgError(`client_order_ids entries must be 1-${CLIENT_ORDER_ID_CHARS_MAX} characters`));
  }
  const limit = q.limit(100, 1000);
  const status = q.oneOf('status', ORDER_STATUSES);
  const ticker = q.string('ticker');
  const eventTicker = q.string('event_ticker');
  let minTs = q.integer('min_ts');
  const maxTs = q.integer('max_ts');
  if (!ctx.services.fcm.isFcm(key.userId)) return nestedError(403, 'forbidden', 'the caller is not an FCM member');
  const subtraders = ctx.services.fcm.subtraders(key.userId);
  let users: string[];
  if (subtraderId !== null) {
    const userId = ctx.services.fcm.subtraderUser(key.userId, subtraderId);
    if (userId === undefined) return nestedError(404, 'not_found', 'subtrader not found');
    users = [userId];
  } else users = [...new Set(subtraders.values())];
  for (const userId of users) ctx.services.ensureUser(userId);
  const base = { ticker, eventTickers: eventTicker === null ? null : [eventTicker], status, maxTs };
  if (clientOrderIds === null) {
    const page = ctx.services.engine.listOrders(users[0], { ...base, limit, cursor: q.cursor(), minTs });
    if (isSimError(page)) return simErrorReply(page);
    return jsonReply(200, { orders: page.items.map(orderToJson), cursor: page.cursor });
  }
  // client_order_ids: only the last 24 hours are searched (seed Limits).
  const windowStartTs = Math.floor((ctx.services.now() - FCM_LOOKUP_WINDOW_MS) / 1000);
  if (minTs === null || minTs < windowStartTs) minTs = windowStartTs;
  const wanted = new Set(clientOrderIds);
  const found: Order[] = [];
  for (const userId of users) {
    let cursor: string | null = null;
    for (let pageIndex = 0; pageIndex < LOOKUP_PAGES_MAX; pageIndex++) {
      const page = ctx.services.engine.listOrders(userId, { ...base, limit: 1000, cursor, minTs });
      if (isSimError(page)) return simErrorReply(page);
      for (const order of page.items) if (wanted.has(order.clientOrderId)) found.push(order);
      if (page.cursor === '') break;
      cursor = page.cursor;
    }
  }
  // At most one order per client order id per user, so `found` holds at most 100 x users; cap at limit.
  return jsonReply(200, { orders: found.slice(0, limit).map(orderToJson), cursor: '' });
}

export const FCM_ROUTES: readonly RouteDef[] = [route('GET', '/fcm/orders', { auth: true }, getFcmOrders)];
