/**
 * Who a signed request acts for: the key's user and the subaccount it may touch (spec
 * interface-spec Authentication 2, rest.md §10). A restricted key that omits the subaccount acts
 * on its locked one; naming another is a 403. An unrestricted key acts on what it names, or on the
 * route's default (0 for writes, "all" = null for list reads). Funding happens here, the first
 * time a subaccount is touched. This file never calls the engine's trading methods.
 */

import { SUBACCOUNT_FORBIDDEN, resolveSubaccount, type ApiKeyRecord } from '../../../auth/index.ts';
import { nestedError, RestError } from '../reply.ts';
import type { RestContext } from '../route.ts';

export function callerKey(ctx: RestContext): ApiKeyRecord {
  const key = ctx.key;
  if (key === null) throw new RestError(nestedError(401, 'authentication_error', 'authentication required'));
  return key;
}

export function restrictedSubaccountError(key: ApiKeyRecord): RestError {
  return new RestError(nestedError(403, 'forbidden', `API key is restricted to subaccount ${key.subaccount}`, 'subaccount_restricted'));
}

/** The subaccount a write acts on (omitted: the locked one, or 0); 403 for a foreign one. Funds it. */
export function writeSubaccount(ctx: RestContext, requested: number | null): number {
  const key = callerKey(ctx);
  const subaccount = resolveSubaccount(key, requested, 0);
  if (subaccount === SUBACCOUNT_FORBIDDEN) throw restrictedSubaccountError(key);
  ctx.services.ensureFunded(key.userId, subaccount);
  return subaccount;
}

/**
 * The subaccount filter of a read: the locked one for restricted keys (403 if another is named),
 * else what was named, or null (all subaccounts).
 */
export function readSubaccount(ctx: RestContext, requested: number | null): number | null {
  const key = callerKey(ctx);
  ctx.services.ensureUser(key.userId);
  if (key.subaccount === null) {
    if (requested !== null) ctx.services.ensureFunded(key.userId, requested);
    return requested;
  }
  if (requested !== null && requested !== key.subaccount) throw restrictedSubaccountError(key);
  ctx.services.ensureFunded(key.userId, key.subaccount);
  return key.subaccount;
}

/** The `subaccount` query parameter, 0-63. */
export function querySubaccount(ctx: RestContext): number | null {
  const value = ctx.query.integer('subaccount');
  if (value !== null && value > 63) throw new RestError(nestedError(400, 'bad_request', `subaccount must be 0-63, got ${value}`, 'subaccount'));
  return value;
}
