/**
 * Limit leases: how runtimes on one account share its risk limits (max worst-case position per
 * market and per subaccount, worst-case loss per subaccount and per event) so that what they hold
 * together never exceeds the account's limit. Each runtime's gate checks locally against its
 * leased share (RiskGate.setLimitShares); Redis is asked off the hot path, on the fleet's timer.
 * One Lua script (atomic) keeps one hash per API key:
 *
 *   fleet:limits:<keyId>   '@born' -> when the table was created (Redis ms)
 *                          <runtime>|<kind> -> "grantUnits:usedUnits:expiresMs"
 *
 * The rule (units are the limit's own: 1/100 contract for positions, centicents for losses):
 * - a runtime reports what it uses (its largest worst-case exposure against the limit) and what it
 *   wants: one step more when its exposure is near its share, back down to use + a step when it
 *   holds far more than it uses (LimitWant below);
 * - a live lease reserves max(grant, used); an expired one (a runtime that died or stopped) gives
 *   back its unused part but keeps reserving what it last reported using, because its positions
 *   are still at the venue; it is dropped once it reports 0, and a runtime restarting under the
 *   same name replaces it with what it uses now;
 * - a grant never shrinks on Redis's initiative: a runtime lowers its local share *before* asking
 *   for less, so local share <= stored grant at every moment. It grows only from the unleased
 *   remainder: grant = max(previous, min(want, limit - what the others reserve));
 * - a table just (re)created grants nothing new for one TTL, only records what runtimes use:
 *   after a Redis restart the old grants are unknown but lapse (share 0: no new risk) within a
 *   TTL on their runtimes' clocks, and by then every live runtime has reported its use.
 *
 * So the sum of what live runtimes may hold never exceeds the limit while Redis answers. The gap:
 * a runtime that crashes between a report and its next one may have filled up to its grant; the
 * table then reserves its last report only until it restarts. This file owns the script and the
 * arithmetic; it never touches a gate.
 */

import type { Redis } from 'ioredis';

/** The leased limits, in the order the script takes and answers them. */
export const LimitKind = {
  MARKET_POSITION: 0,
  SUBACCOUNT_POSITION: 1,
  WORST_LOSS_SUBACCOUNT: 2,
  WORST_LOSS_EVENT: 3,
} as const;
export type LimitKind = (typeof LimitKind)[keyof typeof LimitKind];
export const LIMIT_KIND_COUNT = 4;
export const LIMIT_KIND_NAMES: readonly string[] = ['marketPositionMax', 'subaccountPositionMax', 'worstLossSubaccountMax', 'worstLossEventMax'];

/** One ask is this share of the limit (a tenth): few renewals to the whole, fine enough to split it. */
export const LIMIT_STEP_PPM = 100_000;

export const limitsKey = (keyId: string): string => `fleet:limits:${keyId}`;

const LIMIT_SCRIPT = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local name, ttl, giveBack, kinds = ARGV[1], tonumber(ARGV[2]), ARGV[3], tonumber(ARGV[4])
local born = tonumber(redis.call('HGET', KEYS[1], '@born') or '0')
if born == 0 then
  born = now
  redis.call('HSET', KEYS[1], '@born', string.format('%.0f', now))
end
local reserved, previous = {}, {}
for k = 0, kinds - 1 do reserved[k] = 0; previous[k] = 0 end
local fields = redis.call('HGETALL', KEYS[1])
for i = 1, #fields, 2 do
  local field = fields[i]
  if string.sub(field, 1, 1) ~= '@' then
    local owner, kind = string.match(field, '^(.*)|(%d+)$')
    local g, u, e = string.match(fields[i + 1], '^(%d+):(%d+):(%d+)$')
    kind = tonumber(kind)
    if owner == nil or g == nil or kind == nil or kind >= kinds then
      redis.call('HDEL', KEYS[1], field)
    elseif owner == name then
      if tonumber(e) > now then previous[kind] = tonumber(g) end
    elseif tonumber(e) > now then
      reserved[kind] = reserved[kind] + math.max(tonumber(g), tonumber(u))
    elseif tonumber(u) > 0 then
      reserved[kind] = reserved[kind] + tonumber(u)
    else
      redis.call('HDEL', KEYS[1], field)
    end
  end
end
local grants = {}
for k = 0, kinds - 1 do
  local limit, want, used = tonumber(ARGV[5 + k * 3]), tonumber(ARGV[6 + k * 3]), tonumber(ARGV[7 + k * 3])
  local field = name .. '|' .. k
  local grant = 0
  if giveBack == '1' then
    if used > 0 then
      redis.call('HSET', KEYS[1], field, string.format('0:%.0f:%.0f', used, now))
    else
      redis.call('HDEL', KEYS[1], field)
    end
  else
    if want <= previous[k] then
      grant = want
    elseif now < born + ttl then
      grant = previous[k]
    else
      grant = math.min(want, limit - reserved[k])
      if grant < previous[k] then grant = previous[k] end
    end
    if grant < 0 then grant = 0 end
    redis.call('HSET', KEYS[1], field, string.format('%.0f:%.0f:%.0f', grant, used, now + ttl))
  end
  grants[k + 1] = grant
end
return grants
`;

/** What one runtime reports and asks for one limit (units of the limit). */
export interface LimitAsk {
  /** The account's limit; 0: not limited (not leased, the share stays 0 = off). */
  limit: number;
  want: number;
  used: number;
}

/**
 * Asks for (or renews) this runtime's shares; answers the grants in LimitKind order (0 for a
 * limit of 0). Rejects when Redis does not answer within the command timeout.
 */
export async function leaseLimits(redis: Redis, keyId: string, runtimeName: string, asks: readonly LimitAsk[], ttlMs: number): Promise<number[]> {
  return grantsOf(await redis.eval(LIMIT_SCRIPT, 1, limitsKey(keyId), runtimeName, ttlMs, '0', asks.length, ...argsOf(asks)));
}

/** Gives back every unused share at once (a clean stop); what is still used stays reserved. */
export async function giveBackLimits(redis: Redis, keyId: string, runtimeName: string, asks: readonly LimitAsk[], ttlMs: number): Promise<void> {
  await redis.eval(LIMIT_SCRIPT, 1, limitsKey(keyId), runtimeName, ttlMs, '1', asks.length, ...argsOf(asks));
}

function argsOf(asks: readonly LimitAsk[]): number[] {
  const args: number[] = [];
  for (const ask of asks) args.push(ask.limit, ask.limit === 0 ? 0 : ask.want, ask.used);
  return args;
}

function grantsOf(reply: unknown): number[] {
  return (reply as unknown[]).map((grant) => Number(grant));
}

/**
 * What a runtime asks for, given its local share and its use: a step more when the headroom is
 * under half a step (demand), down to use + a step when the headroom is over two steps (idle), else
 * the same share. Never above the limit; a limit of 0 asks nothing.
 */
export function limitWant(limit: number, share: number, used: number): number {
  if (limit === 0) return 0;
  const step = Math.max(1, Math.floor((limit * LIMIT_STEP_PPM) / 1_000_000));
  let want = share;
  if (share - used < step / 2) want = share + step;
  else if (share - used > 2 * step) want = used + step;
  return want > limit ? limit : want;
}
