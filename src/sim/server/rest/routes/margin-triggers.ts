/**
 * Exit-trigger routes (margin-api.openapi.yaml, tag exit-triggers): PUT / GET / DELETE on
 * /margin/isolated/positions/{ticker}/exit_trigger and /margin/cross/positions/{ticker}/exit_trigger
 * (the latter take `subaccount`), PUT / DELETE on /margin/cross/positions/{ticker}/exit_trigger/{trigger_id}.
 * This file decodes and renders; the rules are src/sim/margin/triggers.ts.
 */

import { isMarginError, marginRender, type ExitTriggerRecord, type PositionSlot, type SetTriggerRequest, type TriggerSlot } from '../../../margin/index.ts';
import { BodyReader } from '../body.ts';
import { emptyReply, jsonReply, nestedError, type RestReply } from '../reply.ts';
import { route, type RestContext, type RouteDef } from '../route.ts';
import { callerKey, querySubaccount } from './caller.ts';
import { marginOf } from './margin-market.ts';
import { errorReply, oneSubaccount } from './margin-orders.ts';

const KINDS = ['bracket', 'trailing'] as const;
const CLIENT_TRIGGER_ID_CHARS_MAX = 64;

function slotOf(ctx: RestContext, slot: TriggerSlot): PositionSlot {
  // Isolated routes take no subaccount: the primary one (see triggers.ts).
  const subaccount = oneSubaccount(ctx, slot === 'cross' ? querySubaccount(ctx) : 0);
  return { userId: callerKey(ctx).userId, subaccount, ticker: ctx.params.ticker, slot };
}

function render(ctx: RestContext, trigger: ExitTriggerRecord): Record<string, unknown> {
  return marginRender.exitTriggerToJson(trigger, trigger.kind === 'trailing' ? marginOf(ctx).triggers.effectiveStop(trigger) : null);
}

function readSet(ctx: RestContext, slot: TriggerSlot): SetTriggerRequest | RestReply {
  const body = new BodyReader(ctx.body);
  if (slot === 'isolated') {
    for (const field of ['count', 'anchor_order_id', 'client_trigger_id']) {
      if (body.has(field)) return nestedError(400, 'bad_request', `${field} is not accepted on isolated exit triggers (they close in full)`, field);
    }
  }
  const trailBps = body.integer('trail_bps');
  if (trailBps !== null && (trailBps < 1 || trailBps > 9999)) return nestedError(400, 'bad_request', 'trail_bps must be 1-9999', 'trail_bps');
  const clientTriggerId = body.string('client_trigger_id', false);
  if (clientTriggerId !== null && (clientTriggerId === '' || clientTriggerId.length > CLIENT_TRIGGER_ID_CHARS_MAX)) {
    return nestedError(400, 'bad_request', `client_trigger_id must be 1-${CLIENT_TRIGGER_ID_CHARS_MAX} characters`, 'client_trigger_id');
  }
  return {
    kind: body.oneOf('kind', KINDS, false) ?? 'bracket',
    stopLoss: body.price('stop_loss_price', false),
    takeProfit: body.price('take_profit_price', false),
    trailAmount: body.price('trail_amount', false),
    trailBps,
    count: body.count('count', false),
    anchorOrderId: body.id('anchor_order_id', false),
    clientTriggerId,
  };
}

function setTrigger(slot: TriggerSlot) {
  return (ctx: RestContext): RestReply => {
    const at = slotOf(ctx, slot);
    const request = readSet(ctx, slot);
    if (!('kind' in request)) return request;
    const result = marginOf(ctx).triggers.set(at, request);
    if (isMarginError(result)) return errorReply(result);
    return jsonReply(200, render(ctx, result));
  };
}

function getTriggers(slot: TriggerSlot) {
  return (ctx: RestContext): RestReply => {
    const at = slotOf(ctx, slot);
    const kind = ctx.query.oneOf('kind', KINDS);
    return jsonReply(200, { exit_triggers: marginOf(ctx).triggers.list(at, kind).map((t) => render(ctx, t)) });
  };
}

function deleteTriggers(slot: TriggerSlot) {
  return (ctx: RestContext): RestReply => {
    const at = slotOf(ctx, slot);
    marginOf(ctx).triggers.cancel(at, ctx.query.oneOf('kind', KINDS));
    return emptyReply(204);
  };
}

function updateTrigger(ctx: RestContext): RestReply {
  const at = slotOf(ctx, 'cross');
  const body = new BodyReader(ctx.body);
  const result = marginOf(ctx).triggers.update(at, ctx.params.trigger_id, body.price('stop_loss_price', false), body.price('take_profit_price', false));
  if (isMarginError(result)) return errorReply(result);
  return jsonReply(200, render(ctx, result));
}

function deleteTrigger(ctx: RestContext): RestReply {
  const at = slotOf(ctx, 'cross');
  const result = marginOf(ctx).triggers.cancelOne(at, ctx.params.trigger_id);
  if (isMarginError(result)) return errorReply(result);
  return emptyReply(204);
}

const WRITE = { auth: true, scope: 'trade', orderEntry: true } as const;
const ISOLATED = '/margin/isolated/positions/{ticker}/exit_trigger';
const CROSS = '/margin/cross/positions/{ticker}/exit_trigger';

export const MARGIN_TRIGGER_ROUTES: readonly RouteDef[] = [
  route('PUT', ISOLATED, { ...WRITE, body: 'json' }, setTrigger('isolated')),
  route('GET', ISOLATED, { auth: true }, getTriggers('isolated')),
  route('DELETE', ISOLATED, WRITE, deleteTriggers('isolated')),
  route('PUT', CROSS, { ...WRITE, body: 'json' }, setTrigger('cross')),
  route('GET', CROSS, { auth: true }, getTriggers('cross')),
  route('DELETE', CROSS, WRITE, deleteTriggers('cross')),
  route('PUT', `${CROSS}/{trigger_id}`, { ...WRITE, body: 'json' }, updateTrigger),
  route('DELETE', `${CROSS}/{trigger_id}`, WRITE, deleteTrigger),
];
