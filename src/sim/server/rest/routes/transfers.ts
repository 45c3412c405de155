/**
 * Transfer, subaccount and allocation routes (interface-spec "Predictions, portfolio and orders";
 * OpenAPI IntraExchangeInstanceTransfer*, ApplySubaccountTransfer*, CreateSubaccount*,
 * *TargetBalanceAllocation*): intra-exchange-instance transfers (up to three non-atomic steps,
 * treasury.ts), their history and one record; subaccount creation, subaccount transfers and their
 * history; the target balance allocation. Restricted keys cannot transfer between subaccounts or
 * create subaccounts (interface-spec Authentication 2): 403. Transfers need `write` or
 * `write::transfer`. A transfer that failed after a step completed answers the failing step's
 * error with the transfer id and the completed steps in `details`; its record stays `pending`.
 */

import { formatDollars, asCenticents } from '../../../../core/index.ts';
import { isSimError } from '../../../engine/index.ts';
import type { ExchangeInstance, Place, RestingMarginReservation } from '../../../treasury/index.ts';
import { decodeCursor, encodeCursor } from '../../../engine/index.ts';
import { BodyReader } from '../body.ts';
import { invalidField, jsonReply, nestedError, simErrorReply, type RestReply } from '../reply.ts';
import { route, type RestContext, type RouteDef } from '../route.ts';
import { callerKey, restrictedSubaccountError } from './caller.ts';

const INSTANCES: readonly ExchangeInstance[] = ['event_contract', 'margined'];
const RESERVATIONS: readonly RestingMarginReservation[] = ['max', 'sum'];
/** OpenAPI SetTargetBalanceAllocationRequest: allocations maxItems 101. */
const ALLOCATIONS_MAX = 101;
/** Largest transfer accepted, centicents ($10^11): far above any simulated balance, well inside int53. */
const TRANSFER_CENTICENTS_MAX = 1e15;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

function unrestricted(ctx: RestContext): string {
  const key = callerKey(ctx);
  if (key.subaccount !== null) throw restrictedSubaccountError(key);
  return key.userId;
}

function instance(body: BodyReader, name: string): ExchangeInstance {
  const value = body.string(name, true);
  if (!(INSTANCES as readonly string[]).includes(value)) throw invalidField(name, `${name} must be one of ${INSTANCES.join(', ')}`);
  return value as ExchangeInstance;
}

function intIn(body: BodyReader, name: string, min: number, max: number, fallback: number): number {
  const value = body.integer(name);
  if (value === null) return fallback;
  if (value < min || value > max) throw invalidField(name, `${name} must be ${min}-${max}, got ${value}`);
  return value;
}

function postIntraTransfer(ctx: RestContext): RestReply {
  const userId = unrestricted(ctx);
  const body = new BodyReader(ctx.body);
  const amount = body.integer('amount');
  if (amount === null) throw invalidField('amount', 'missing required field amount');
  if (amount <= 0 || amount > TRANSFER_CENTICENTS_MAX) throw invalidField('amount', `amount must be 1-${TRANSFER_CENTICENTS_MAX} centicents`);
  const source: Place = { instance: instance(body, 'source'), shard: intIn(body, 'source_exchange_shard', 0, 100, 0), subaccount: intIn(body, 'source_subaccount', 0, 63, 0) };
  const destination: Place = { instance: instance(body, 'destination'), shard: intIn(body, 'destination_exchange_shard', 0, 100, 0), subaccount: intIn(body, 'destination_subaccount', 0, 63, 0) };
  // The sim's funding rule: every subaccount a step touches (the primary passes money through) is funded first.
  ctx.services.ensureFunded(userId, 0);
  ctx.services.ensureFunded(userId, source.subaccount);
  ctx.services.ensureFunded(userId, destination.subaccount);
  ctx.services.ensureMarginAccount(userId, 0);
  const result = ctx.services.treasury.transferIntra(userId, source, destination, amount);
  if (isSimError(result)) return simErrorReply(result);
  if ('failedStep' in result) {
    const done = result.transfer.stepsDone.length === 0 ? 'none' : result.transfer.stepsDone.join(',');
    const details = `transfer_id=${result.transfer.transferId}; failed_step=${result.failedStep}; completed_steps=${done} (not undone)`;
    return nestedError(result.error.status, result.error.code, result.error.message, details);
  }
  return jsonReply(200, { transfer_id: result.transferId });
}

function intraToJson(record: { transferId: string; source: Place; destination: Place; amount: number; status: string; createdMs: number }): Record<string, unknown> {
  return {
    transfer_id: record.transferId,
    source: record.source.instance,
    destination: record.destination.instance,
    source_exchange_shard: record.source.shard,
    destination_exchange_shard: record.destination.shard,
    source_subaccount: record.source.subaccount,
    destination_subaccount: record.destination.subaccount,
    amount: formatDollars(asCenticents(record.amount)),
    status: record.status,
    created_ts: Math.floor(record.createdMs / 1000),
  };
}

/** Newest first, cursor = index of the last record returned (pagination.ts encoding). */
function page<T>(items: readonly T[], ctx: RestContext, defaultLimit: number, max: number): { items: T[]; cursor: string } {
  const limit = ctx.query.limit(defaultLimit, max);
  const after = decodeCursor(ctx.query.cursor()); // -1: first page
  const newest = items.length - 1;
  const start = after === -1 ? newest : Math.min(after - 1, newest);
  const out: T[] = [];
  let index = start;
  for (; index >= 0 && out.length < limit; index--) out.push(items[index]);
  return { items: out, cursor: index >= 0 ? encodeCursor(index + 1) : '' };
}

function listIntraTransfers(ctx: RestContext): RestReply {
  const key = callerKey(ctx);
  const result = page(ctx.services.treasury.intraTransfers(key.userId), ctx, 100, 500);
  return jsonReply(200, { transfers: result.items.map(intraToJson), cursor: result.cursor });
}

function getIntraTransfer(ctx: RestContext): RestReply {
  const key = callerKey(ctx);
  const record = ctx.services.treasury.intraTransfer(key.userId, ctx.params.transfer_id);
  if (record === undefined) return nestedError(404, 'not_found', 'transfer not found');
  return jsonReply(200, { transfer: intraToJson(record) });
}

function createSubaccount(ctx: RestContext): RestReply {
  const userId = unrestricted(ctx);
  const body = new BodyReader(ctx.body ?? {});
  const exchangeIndex = body.integer('exchange_index');
  if (exchangeIndex !== null && exchangeIndex !== 0 && exchangeIndex !== 2 && exchangeIndex !== 3) throw invalidField('exchange_index', `unknown exchange_index ${exchangeIndex}`);
  const number = ctx.services.treasury.createSubaccount(userId);
  if (isSimError(number)) return simErrorReply(number);
  ctx.services.ensureFunded(userId, number);
  return jsonReply(201, { subaccount_number: number });
}

function subaccountTransfer(ctx: RestContext): RestReply {
  const userId = unrestricted(ctx);
  const body = new BodyReader(ctx.body);
  const clientTransferId = body.string('client_transfer_id', true);
  if (!UUID.test(clientTransferId)) throw invalidField('client_transfer_id', 'client_transfer_id must be a UUID');
  const from = body.integer('from_subaccount');
  const to = body.integer('to_subaccount');
  const amountCents = body.integer('amount_cents');
  if (from === null || from < 0 || from > 63) throw invalidField('from_subaccount', 'from_subaccount must be 0-63');
  if (to === null || to < 0 || to > 63) throw invalidField('to_subaccount', 'to_subaccount must be 0-63');
  if (amountCents === null || amountCents <= 0 || amountCents > TRANSFER_CENTICENTS_MAX / 100) throw invalidField('amount_cents', 'amount_cents must be a positive integer');
  const exchangeIndex = intIn(body, 'exchange_index', 0, 3, 0);
  ctx.services.ensureFunded(userId, from);
  ctx.services.ensureFunded(userId, to);
  const record = ctx.services.treasury.transferSubaccounts(userId, clientTransferId, from, to, exchangeIndex, amountCents);
  if (isSimError(record)) return simErrorReply(record);
  return jsonReply(200, {});
}

function listSubaccountTransfers(ctx: RestContext): RestReply {
  const key = callerKey(ctx);
  const result = page(ctx.services.treasury.subaccountTransfers(key.userId), ctx, 100, 1000);
  // A restricted key sees only transfers touching its subaccount.
  const visible = key.subaccount === null ? result.items : result.items.filter((t) => t.fromSubaccount === key.subaccount || t.toSubaccount === key.subaccount);
  return jsonReply(200, {
    transfers: visible.map((t) => ({
      transfer_id: t.transferId,
      from_subaccount: t.fromSubaccount,
      to_subaccount: t.toSubaccount,
      amount_cents: t.amountCents,
      created_ts: Math.floor(t.createdMs / 1000),
      exchange_index: t.exchangeIndex,
    })),
    cursor: result.cursor,
  });
}

function getAllocation(ctx: RestContext): RestReply {
  const key = callerKey(ctx);
  const allocation = ctx.services.treasury.allocation(key.userId);
  return jsonReply(200, {
    allocations: allocation.allocations.map((a) => ({ exchange_index: a.exchangeIndex, percent: a.percent })),
    resting_margin_reservation: allocation.reservation,
  });
}

function setAllocation(ctx: RestContext): RestReply {
  const userId = unrestricted(ctx);
  const body = new BodyReader(ctx.body);
  const raw = body.array('allocations', true)!;
  if (raw.length === 0 || raw.length > ALLOCATIONS_MAX) throw invalidField('allocations', `allocations must hold 1-${ALLOCATIONS_MAX} entries`);
  const allocations = raw.map((entry, i) => {
    const item = new BodyReader(entry, `allocations[${i}].`);
    const exchangeIndex = item.integer('exchange_index');
    const percent = item.integer('percent');
    if (exchangeIndex === null || exchangeIndex < 0) throw invalidField(`allocations[${i}].exchange_index`, 'exchange_index is required and must be >= 0');
    if (percent === null || percent < 0 || percent > 100) throw invalidField(`allocations[${i}].percent`, 'percent is required and must be 0-100');
    return { exchangeIndex, percent };
  });
  const reservationText = body.string('resting_margin_reservation', false) ?? 'sum';
  if (!(RESERVATIONS as readonly string[]).includes(reservationText)) throw invalidField('resting_margin_reservation', 'resting_margin_reservation must be max or sum');
  const error = ctx.services.treasury.setAllocation(userId, { allocations, reservation: reservationText as RestingMarginReservation });
  if (error !== null) return simErrorReply(error);
  return jsonReply(200, {});
}

export const TRANSFER_ROUTES: readonly RouteDef[] = [
  route('POST', '/portfolio/intra_exchange_instance_transfer', { auth: true, scope: 'transfer', body: 'json' }, postIntraTransfer),
  route('GET', '/portfolio/intra_exchange_instance_transfers', { auth: true }, listIntraTransfers),
  route('GET', '/portfolio/intra_exchange_instance_transfers/{transfer_id}', { auth: true }, getIntraTransfer),
  route('POST', '/portfolio/subaccounts', { auth: true, scope: 'transfer', body: 'optional' }, createSubaccount),
  route('POST', '/portfolio/subaccounts/transfer', { auth: true, scope: 'transfer', body: 'json' }, subaccountTransfer),
  route('GET', '/portfolio/subaccounts/transfers', { auth: true }, listSubaccountTransfers),
  route('GET', '/portfolio/target_balance_allocation', { auth: true }, getAllocation),
  route('POST', '/portfolio/target_balance_allocation', { auth: true, scope: 'transfer', body: 'json' }, setAllocation),
];

