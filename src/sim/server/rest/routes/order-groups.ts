/**
 * Order group routes (spec/rest.md §7): create (201, with subaccount), list, get, delete, reset,
 * trigger and limit. A limit arrives as whole contracts (`contracts_limit`), a fixed-point count
 * (`contracts_limit_fp`) or both, which must agree. The 200 answers of delete, reset, trigger and
 * limit are `{}` (rest.md §7 gap). Restricted keys act on their subaccount only. The engine owns
 * the rolling window and the per-user cap.
 */

import { asCount, type Count } from '../../../../core/index.ts';
import { isSimError, orderGroupToJson, type SimError } from '../../../engine/index.ts';
import { BodyReader } from '../body.ts';
import { invalidField, jsonReply, simErrorReply, type RestReply } from '../reply.ts';
import { route, type RestContext, type RouteDef } from '../route.ts';
import { callerKey, querySubaccount, readSubaccount, writeSubaccount } from './caller.ts';

/** The limit in Count units; undefined when neither field was sent. */
function decodeLimit(body: BodyReader): Count | undefined {
  const whole = body.integer('contracts_limit');
  const fixed = body.count('contracts_limit_fp', false);
  if (whole !== null && whole < 1) throw invalidField('contracts_limit', 'contracts_limit must be >= 1');
  const fromWhole = whole === null ? null : asCount(whole * 100);
  if (fromWhole !== null && fixed !== null && fromWhole !== fixed) {
    throw invalidField('contracts_limit_fp', 'contracts_limit and contracts_limit_fp disagree');
  }
  const limit = fixed ?? fromWhole;
  if (limit === null) return undefined;
  if (limit <= 0) throw invalidField('contracts_limit_fp', 'contracts_limit_fp must be positive');
  return limit;
}

/** Subaccount for an existing group: restricted keys are pinned; others pass what they named. */
function groupSubaccount(ctx: RestContext): number | null {
  return readSubaccount(ctx, querySubaccount(ctx));
}

function done(result: SimError | null): RestReply {
  return result === null ? { status: 200, body: '{}' } : simErrorReply(result);
}

function createGroup(ctx: RestContext): RestReply {
  const key = callerKey(ctx);
  const body = new BodyReader(ctx.body ?? {});
  const contractsLimit = decodeLimit(body);
  const subaccount = writeSubaccount(ctx, body.subaccount());
  const group = ctx.services.engine.createOrderGroup(key.userId, {
    subaccount,
    contractsLimit: contractsLimit ?? null,
    exchangeIndex: body.integer('exchange_index'),
  });
  if (isSimError(group)) return simErrorReply(group);
  return jsonReply(201, { order_group_id: group.orderGroupId, subaccount: group.subaccount, exchange_index: group.exchangeIndex });
}

function listGroups(ctx: RestContext): RestReply {
  const key = callerKey(ctx);
  const groups = ctx.services.engine.listOrderGroups(key.userId, groupSubaccount(ctx));
  if (isSimError(groups)) return simErrorReply(groups);
  return jsonReply(200, { order_groups: groups.map(orderGroupToJson) });
}

function getGroup(ctx: RestContext): RestReply {
  const key = callerKey(ctx);
  const found = ctx.services.engine.getOrderGroup(key.userId, ctx.params.order_group_id, groupSubaccount(ctx));
  if (isSimError(found)) return simErrorReply(found);
  const rendered = orderGroupToJson(found.group);
  const reply: Record<string, unknown> = { is_auto_cancel_enabled: rendered.is_auto_cancel_enabled };
  if (rendered.contracts_limit_fp !== undefined) reply.contracts_limit_fp = rendered.contracts_limit_fp;
  reply.orders = found.orderIds;
  reply.exchange_index = found.group.exchangeIndex;
  return jsonReply(200, reply);
}

function deleteGroup(ctx: RestContext): RestReply {
  const key = callerKey(ctx);
  return done(ctx.services.engine.deleteOrderGroup(key.userId, ctx.params.order_group_id, groupSubaccount(ctx)));
}

function resetGroup(ctx: RestContext): RestReply {
  const key = callerKey(ctx);
  return done(ctx.services.engine.resetOrderGroup(key.userId, ctx.params.order_group_id, groupSubaccount(ctx)));
}

function triggerGroup(ctx: RestContext): RestReply {
  const key = callerKey(ctx);
  return done(ctx.services.engine.triggerOrderGroup(key.userId, ctx.params.order_group_id, groupSubaccount(ctx)));
}

function limitGroup(ctx: RestContext): RestReply {
  const key = callerKey(ctx);
  const limit = decodeLimit(new BodyReader(ctx.body ?? {}));
  if (limit === undefined) throw invalidField('contracts_limit_fp', 'contracts_limit or contracts_limit_fp is required');
  return done(ctx.services.engine.setOrderGroupLimit(key.userId, ctx.params.order_group_id, limit, groupSubaccount(ctx)));
}

const GROUP_WRITE = { auth: true, scope: 'trade' as const, body: 'optional' as const };

export const ORDER_GROUP_ROUTES: readonly RouteDef[] = [
  route('POST', '/portfolio/order_groups/create', GROUP_WRITE, createGroup),
  route('GET', '/portfolio/order_groups', { auth: true }, listGroups),
  route('GET', '/portfolio/order_groups/{order_group_id}', { auth: true }, getGroup),
  route('DELETE', '/portfolio/order_groups/{order_group_id}', { auth: true, scope: 'trade' }, deleteGroup),
  route('PUT', '/portfolio/order_groups/{order_group_id}/reset', GROUP_WRITE, resetGroup),
  route('PUT', '/portfolio/order_groups/{order_group_id}/trigger', GROUP_WRITE, triggerGroup),
  route('PUT', '/portfolio/order_groups/{order_group_id}/limit', GROUP_WRITE, limitGroup),
];
