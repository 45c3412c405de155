/**
 * API keys and API usage levels (interface-spec "Account and keys", rest.md §9): create a key from
 * a public key, generate one (the private key is returned once, never kept), list the user's keys
 * with their subaccount lock and the account's `api_key_region_expiration_ts`, delete one; the
 * Perps lane limits, trailing 30-day volume progress, and self-promotion to Advanced. Key rules:
 * `write` in scopes needs `read` too (OpenAPI CreateApiKeyRequest); a restricted key cannot
 * administer keys (403), so it cannot mint itself a wider one; POST /api_keys needs Premier or above
 * (OpenAPI: "Premier or Market Maker"). Volume is summed from the engine's fills; this file never
 * changes trading state.
 */

import { formatCount, asCount } from '../../../../core/index.ts';
import { isScope, SUBACCOUNT_MAX, ApiKeyError, type ApiKeyRecord, type Scope } from '../../../auth/index.ts';
import { isSimError } from '../../../engine/index.ts';
import { PERPS_TIER_BUDGETS, RATE_LIMIT_TIERS, VOLUME_GOALS, type RateLimitTier } from '../../../rate-limit/index.ts';
import { BodyReader } from '../body.ts';
import { emptyReply, invalidField, jsonReply, nestedError, RestError, type RestReply } from '../reply.ts';
import { route, type RestContext, type RouteDef } from '../route.ts';
import { callerKey } from './caller.ts';

/** Key names: printable, bounded like other ids a user labels. */
export const API_KEY_NAME_CHARS_MAX = 100;
/** PEM text of an RSA public key; 8192-bit keys stay well under this. */
const PUBLIC_KEY_CHARS_MAX = 4096;
/** Keys per user: an input bound (every create allocates a key pair or a parsed key). */
export const API_KEYS_PER_USER_MAX = 200;
const TRAILING_VOLUME_MS = 30 * 24 * 3600 * 1000;
/** Fill pages read for volume progress: 1000 fills each, so up to a million fills. */
const VOLUME_PAGES_MAX = 1000;

function requireUnrestricted(key: ApiKeyRecord): void {
  if (key.subaccount !== null) throw new RestError(nestedError(403, 'forbidden', 'a subaccount-restricted API key cannot manage API keys', 'subaccount_restricted'));
}

/** Decodes name, scopes (default read+write) and subaccount, shared by create and generate. */
function decodeKeySpec(body: BodyReader): { name: string; scopes: Scope[]; subaccount: number | null } {
  const name = body.string('name', true);
  if (name.length === 0 || name.length > API_KEY_NAME_CHARS_MAX) throw invalidField('name', `name must be 1-${API_KEY_NAME_CHARS_MAX} characters`);
  const raw = body.array('scopes', false);
  let scopes: Scope[] = ['read', 'write'];
  if (raw !== null) {
    if (raw.length === 0 || raw.length > 16) throw invalidField('scopes', 'scopes must list 1-16 scopes');
    scopes = [];
    for (const scope of raw) {
      if (!isScope(scope)) throw invalidField('scopes', `unknown scope ${JSON.stringify(scope).slice(0, 64)}`);
      if (!scopes.includes(scope)) scopes.push(scope);
    }
    if (scopes.includes('write') && !scopes.includes('read')) throw invalidField('scopes', 'the write scope requires the read scope');
  }
  const subaccount = body.integer('subaccount');
  if (subaccount !== null && (subaccount < 0 || subaccount > SUBACCOUNT_MAX)) throw invalidField('subaccount', `subaccount must be 0-${SUBACCOUNT_MAX}, got ${subaccount}`);
  return { name, scopes, subaccount };
}

function checkKeyCount(ctx: RestContext, userId: string): void {
  if (ctx.services.keys.listByUser(userId).length >= API_KEYS_PER_USER_MAX) {
    throw new RestError(nestedError(400, 'api_key_limit_reached', `at most ${API_KEYS_PER_USER_MAX} API keys per user`));
  }
}

function createKey(ctx: RestContext): RestReply {
  const key = callerKey(ctx);
  requireUnrestricted(key);
  if (RATE_LIMIT_TIERS.indexOf(key.tier) < RATE_LIMIT_TIERS.indexOf('premier')) {
    return nestedError(403, 'forbidden', 'creating an API key from a public key needs the Premier API usage level or above', 'insufficient_api_usage_level');
  }
  const body = new BodyReader(ctx.body);
  const spec = decodeKeySpec(body);
  const publicKey = body.string('public_key', true);
  if (publicKey.length > PUBLIC_KEY_CHARS_MAX) throw invalidField('public_key', `public_key must be at most ${PUBLIC_KEY_CHARS_MAX} characters`);
  checkKeyCount(ctx, key.userId);
  try {
    const record = ctx.services.keys.register({ ...spec, tier: key.tier, userId: key.userId }, publicKey);
    return jsonReply(201, { api_key_id: record.keyId });
  } catch (error) {
    // createPublicKey throws on text that is not a PEM key; ApiKeyError on a non-RSA key.
    const message = error instanceof ApiKeyError ? error.message : 'public_key is not a PEM RSA public key';
    return nestedError(400, 'bad_request', message, 'public_key');
  }
}

function generateKey(ctx: RestContext): RestReply {
  const key = callerKey(ctx);
  requireUnrestricted(key);
  const spec = decodeKeySpec(new BodyReader(ctx.body));
  checkKeyCount(ctx, key.userId);
  const { record, privateKeyPem } = ctx.services.keys.create({ ...spec, tier: key.tier, userId: key.userId });
  return jsonReply(201, { api_key_id: record.keyId, private_key: privateKeyPem });
}

function listKeys(ctx: RestContext): RestReply {
  const key = callerKey(ctx);
  const apiKeys = ctx.services.keys.listByUser(key.userId).map((record) => {
    const out: Record<string, unknown> = { api_key_id: record.keyId, name: record.name, scopes: [...record.scopes] };
    if (record.subaccount !== null) out.subaccount = record.subaccount; // absent when unrestricted
    return out;
  });
  const body: Record<string, unknown> = { api_keys: apiKeys };
  const expiration = ctx.services.keys.regionExpiration(key.userId);
  if (expiration !== null) body.api_key_region_expiration_ts = expiration; // absent if never attested
  return jsonReply(200, body);
}

function deleteKey(ctx: RestContext): RestReply {
  const key = callerKey(ctx);
  requireUnrestricted(key);
  const target = ctx.services.keys.get(ctx.params.api_key);
  if (target === undefined || target.userId !== key.userId) return nestedError(404, 'not_found', 'API key not found');
  ctx.services.keys.remove(target.keyId);
  return emptyReply(204);
}

function perpsLimits(ctx: RestContext): RestReply {
  const key = callerKey(ctx);
  const budget = PERPS_TIER_BUDGETS[key.tier];
  return jsonReply(200, {
    usage_tier: key.tier,
    read: { refill_rate: budget.read.refillPerSecond, bucket_capacity: budget.read.capacity },
    write: { refill_rate: budget.write.refillPerSecond, bucket_capacity: budget.write.capacity },
    grants: key.tier === 'basic' ? [] : [{ exchange_instance: 'margined', level: key.tier, source: 'manual' }],
  });
}

/** The user's traded contracts over the trailing 30 days, Count units, from the engine's fills. */
export function trailingVolume(ctx: RestContext, userId: string): number {
  const nowMs = ctx.services.now();
  let total = 0;
  let cursor: string | null = null;
  for (let page = 0; page < VOLUME_PAGES_MAX; page++) {
    const result = ctx.services.engine.listFills(userId, { limit: 1000, cursor, minTs: Math.floor((nowMs - TRAILING_VOLUME_MS) / 1000) });
    if (isSimError(result)) break;
    for (const fill of result.items) total += fill.count;
    if (result.cursor === '') break;
    cursor = result.cursor;
  }
  return total;
}

function volumeProgress(ctx: RestContext): RestReply {
  const key = callerKey(ctx);
  ctx.services.ensureUser(key.userId);
  return jsonReply(200, {
    volume_progress: [
      {
        computed_ts: Math.floor(ctx.services.now() / 1000),
        trailing_30d_volume_fp: formatCount(asCount(trailingVolume(ctx, key.userId))),
        goals: VOLUME_GOALS.map((goal) => ({
          level: goal.level,
          earn_volume_goal_fp: formatCount(asCount(goal.earnCount)),
          keep_volume_goal_fp: formatCount(asCount(goal.keepCount)),
        })),
      },
    ],
  });
}

/** The user's last 100 Predictions orders: every order the simulator holds came through its API. */
const UPGRADE_ORDERS_LOOKBACK = 100;
const ADVANCED: RateLimitTier = 'advanced';

function upgrade(ctx: RestContext): RestReply {
  const key = callerKey(ctx);
  ctx.services.ensureUser(key.userId);
  const recent = ctx.services.engine.listOrders(key.userId, { limit: UPGRADE_ORDERS_LOOKBACK });
  if (isSimError(recent) || recent.items.length === 0) {
    return nestedError(403, 'forbidden', 'no API-created order among your latest 100 Predictions orders', 'upgrade_criteria_not_met');
  }
  ctx.services.keys.raiseUserTier(key.userId, ADVANCED);
  return emptyReply(201);
}

export const ACCOUNT_KEY_ROUTES: readonly RouteDef[] = [
  route('POST', '/api_keys', { auth: true, scope: 'write', body: 'json' }, createKey),
  route('POST', '/api_keys/generate', { auth: true, scope: 'write', body: 'json' }, generateKey),
  route('GET', '/api_keys', { auth: true }, listKeys),
  route('DELETE', '/api_keys/{api_key}', { auth: true, scope: 'write' }, deleteKey),
  route('GET', '/account/limits/perps', { auth: true }, perpsLimits),
  route('GET', '/account/api_usage_level/volume_progress', { auth: true }, volumeProgress),
  route('POST', '/account/api_usage_level/upgrade', { auth: true, scope: 'write', body: 'optional' }, upgrade),
];
