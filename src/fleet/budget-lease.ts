/**
 * Budget leases: how runtimes on one account share its REST budgets (rest.md §9) without ever
 * asking the venue for more than it gives. One Lua script (atomic in Redis) grants each runtime a
 * share of the account's read and write budgets, in parts per million, from one hash per API key:
 *
 *   fleet:budget:<keyId>   '@born' -> when the table was created (Redis ms)
 *                          <runtime> -> "weight:grantPpm:previousPpm:expiresMs"
 *
 * The rule (demand-weighted shares):
 * - a runtime asks with a weight: 4 when its demand is held (the router holds intents, or its
 *   bucket ran dry in the last period), 1 when idle; its target is weight / (sum of live weights)
 *   of LEASABLE_PPM, so hungry runtimes take over what idle ones leave;
 * - it is granted min(target, LEASABLE_PPM - what the others reserve), never less than 0. A
 *   runtime reserves max(grant, previous grant) until its next renewal: it may still be spending
 *   the previous grant until the answer reaches it, and it renews only after applying an answer;
 * - a lease lives leaseTtlMs on Redis's clock; the runtime counts it from before it asked, so it
 *   stops spending before Redis hands its share to another (no clock sync needed). Expired leases
 *   are dropped on the next call: a dead runtime's share returns within one TTL;
 * - a table just (re)created grants nothing for one TTL: after a Redis restart the leases of the
 *   old table are unknown but expire within a TTL on their runtimes' clocks;
 * - LEASABLE_PPM keeps 2% unleased for runtimes without a lease, which still refill their cancel
 *   reserve at the least rate a bucket can have (1 token a second).
 *
 * So the sum of what runtimes may spend never exceeds the account's budget while Redis answers.
 * Local buckets start empty when a lease starts (fleet-port.ts): tokens a runtime holds were
 * always leased. This file owns the script and the arithmetic; it never touches a gate.
 */

import type { Redis } from 'ioredis';
import { FleetKeys } from './redis-connection.ts';

/** Parts per million of a whole budget. */
export const PPM = 1_000_000;
/** What leases may add up to: 98% (the rest covers lapsed runtimes' 1 token/s refills). */
export const LEASABLE_PPM = 980_000;
export const WEIGHT_IDLE = 1;
export const WEIGHT_HUNGRY = 4;

const LEASE_SCRIPT = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local name, weight, ttl, leasable, giveBack = ARGV[1], tonumber(ARGV[2]), tonumber(ARGV[3]), tonumber(ARGV[4]), ARGV[5]
local born = tonumber(redis.call('HGET', KEYS[1], '@born') or '0')
if born == 0 then
  born = now
  redis.call('HSET', KEYS[1], '@born', string.format('%.0f', now))
end
local fields = redis.call('HGETALL', KEYS[1])
local othersReserved, othersWeight, live, previous = 0, 0, 0, 0
for i = 1, #fields, 2 do
  local field = fields[i]
  if string.sub(field, 1, 1) ~= '@' then
    local w, g, p, e = string.match(fields[i + 1], '^(%d+):(%d+):(%d+):(%d+)$')
    if w == nil or tonumber(e) <= now then
      redis.call('HDEL', KEYS[1], field)
    elseif field == name then
      previous = tonumber(g)
    else
      othersReserved = othersReserved + math.max(tonumber(g), tonumber(p))
      othersWeight = othersWeight + tonumber(w)
      live = live + 1
    end
  end
end
if giveBack == '1' then
  redis.call('HDEL', KEYS[1], name)
  return {0, live, redis.call('GET', KEYS[2]) or ''}
end
local grant = 0
if now >= born + ttl then
  grant = math.floor(leasable * weight / (weight + othersWeight))
  if grant > leasable - othersReserved then grant = leasable - othersReserved end
  if grant < 0 then grant = 0 end
end
redis.call('HSET', KEYS[1], name, string.format('%d:%d:%d:%.0f', weight, grant, previous, now + ttl))
redis.call('PEXPIRE', KEYS[1], ttl * 10)
return {grant, live + 1, redis.call('GET', KEYS[2]) or ''}
`;

export interface LeaseAnswer {
  /** This runtime's share of the account's budgets, ppm (0: none, e.g. the table's first TTL). */
  sharePpm: number;
  /** Runtimes holding a live lease, this one included (0 after a give-back). */
  runtimes: number;
  /** The kill switch record as stored (JSON), '' when none. */
  killRecord: string;
}

/** Asks for (or renews) this runtime's lease. Rejects when Redis does not answer within the command timeout. */
export async function leaseBudget(redis: Redis, keyId: string, runtimeName: string, weight: number, ttlMs: number): Promise<LeaseAnswer> {
  return answerOf(await redis.eval(LEASE_SCRIPT, 2, FleetKeys.budget(keyId), FleetKeys.kill, runtimeName, weight, ttlMs, LEASABLE_PPM, '0'));
}

/** Gives the lease back at once (a clean stop, after this runtime stopped spending). */
export async function giveBackLease(redis: Redis, keyId: string, runtimeName: string, ttlMs: number): Promise<void> {
  await redis.eval(LEASE_SCRIPT, 2, FleetKeys.budget(keyId), FleetKeys.kill, runtimeName, WEIGHT_IDLE, ttlMs, LEASABLE_PPM, '1');
}

function answerOf(reply: unknown): LeaseAnswer {
  const [share, runtimes, kill] = reply as [number, number, string];
  return { sharePpm: Number(share), runtimes: Number(runtimes), killRecord: String(kill) };
}

/** The account's budgets in whole tokens (AccountBudgets' shape). */
export interface Budgets {
  readPerSecond: number;
  readCapacity: number;
  writePerSecond: number;
  writeCapacity: number;
}

/**
 * A share of the account's budgets, rounded down. Rates are at least 1 (a token bucket's least
 * refill; LEASABLE_PPM's margin pays for it); capacities at least one thousandth of a token.
 */
export function shareOf(account: Readonly<Budgets>, sharePpm: number): Budgets {
  return {
    readPerSecond: Math.max(1, Math.floor((account.readPerSecond * sharePpm) / PPM)),
    readCapacity: Math.max(0.001, Math.floor((account.readCapacity * sharePpm) / 1000) / 1000),
    writePerSecond: Math.max(1, Math.floor((account.writePerSecond * sharePpm) / PPM)),
    writeCapacity: Math.max(0.001, Math.floor((account.writeCapacity * sharePpm) / 1000) / 1000),
  };
}
