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
  engaged: boolean;
  reason: string;
  /** Who engaged or released it: "runtime <name> (<local source>)" or "cli <user@host>". */
  by: string;
  tsMs: number;
}

export function killRecord(engaged: boolean, reason: string, by: string, tsMs: number): FleetKillRecord {
  return { id: randomUUID(), engaged, reason, by, tsMs };
}

/** Stores and publishes a change; rejects when Redis does not answer. */
export async function publishKillRecord(redis: Redis, record: Readonly<FleetKillRecord>): Promise<void> {
  const text = JSON.stringify(record);
  await redis.multi().set(FleetKeys.kill, text).publish(FleetKeys.kill, text).exec();
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
