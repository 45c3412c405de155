/**
 * The account-wide kill switch: one record under `fleet:kill` (persisted, so a runtime that starts
 * or reconnects later sees it) and the same record published on the `fleet:kill` channel (so every
 * runtime hears it at once). Each change carries a fresh id: a runtime acts on a record whose id it
 * has not seen, so a record read again (every renewal returns it) or its own echo is not acted on
 * twice, and a missing key (a Redis restarted without persistence) is never read as a release.
 * This file owns the record and its transport; what a runtime does with it is fleet-port.ts's.
 */

import { randomUUID } from 'node:crypto';
import type { Redis } from 'ioredis';
import { FleetKeys } from './redis-connection.ts';

export interface FleetKillRecord {
  /** Fresh per change. */
  id: string;
  /** Redis's clock (ms) when this change was stored (0 before it is): a lower one is older. */
  version: number;
  engaged: boolean;
  reason: string;
  /** Who engaged or released it: "runtime <name> (<local source>)" or "cli <user@host>". */
  by: string;
  tsMs: number;
}

export function killRecord(engaged: boolean, reason: string, by: string, tsMs: number): FleetKillRecord {
  return { id: randomUUID(), version: 0, engaged, reason, by, tsMs };
}

/**
 * Stamps the change with Redis's clock in ms (one clock that every runtime and the CLI agree on,
 * and that goes on across a restart without persistence, where a counter would start again),
 * stores it and publishes it, atomically. 13 digits: cjson keeps them exact.
 */
const STORE_SCRIPT = `
local now = redis.call('TIME')
local version = tonumber(now[1]) * 1000 + math.floor(tonumber(now[2]) / 1000)
local record = cjson.decode(ARGV[1])
record['version'] = version
local text = cjson.encode(record)
redis.call('SET', KEYS[1], text)
redis.call('PUBLISH', KEYS[1], text)
return version`;

/** Stores and publishes a change; returns its version; rejects when Redis does not answer. */
export async function publishKillRecord(redis: Redis, record: Readonly<FleetKillRecord>): Promise<number> {
  return Number(await redis.eval(STORE_SCRIPT, 1, FleetKeys.kill, JSON.stringify(record)));
}

export async function readKillRecord(redis: Redis): Promise<FleetKillRecord | null> {
  return parseKillRecord((await redis.get(FleetKeys.kill)) ?? '');
}

/** The stored or published text as a record; null for '' or anything malformed (logged by the caller). */
export function parseKillRecord(text: string): FleetKillRecord | null {
  if (text === '') return null;
  try {
    const value = JSON.parse(text) as Record<string, unknown>;
    if (typeof value.id !== 'string' || typeof value.engaged !== 'boolean') return null;
    return {
      id: value.id,
      version: typeof value.version === 'number' && Number.isSafeInteger(value.version) ? value.version : 0,
      engaged: value.engaged,
      reason: typeof value.reason === 'string' ? value.reason : '',
      by: typeof value.by === 'string' ? value.by : '',
      tsMs: typeof value.tsMs === 'number' ? value.tsMs : 0,
    };
  } catch {
    return null;
  }
}

/** Subscribes a dedicated connection (subscriber mode) to kill switch changes; ioredis resubscribes after a reconnect. */
export async function subscribeKill(subscriber: Redis, onRecord: (record: FleetKillRecord) => void): Promise<void> {
  subscriber.on('message', (channel: string, text: string) => {
    if (channel !== FleetKeys.kill) return;
    const record = parseKillRecord(text);
    if (record !== null) onRecord(record);
  });
  await subscriber.subscribe(FleetKeys.kill);
}
