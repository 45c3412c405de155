/**
 * The fleet view: every runtime writes its status snapshot twice, under `fleet:status:<name>` with
 * a TTL (present means alive) and into the `fleet:runtimes` hash without one (so a dead runtime's
 * last words stay visible). `readFleetStatus` joins both for the CLI and the dashboard. Owns the
 * snapshot's transport, never its content (the runtime's status plus the fleet's own fields).
 */

import type { Redis } from 'ioredis';
import { FleetKeys } from './redis-connection.ts';

export interface FleetRuntimeView {
  name: string;
  alive: boolean;
  /** The last snapshot it published (parsed JSON), or null when unreadable. */
  snapshot: Record<string, unknown> | null;
}

export async function publishStatus(redis: Redis, runtimeName: string, snapshot: Readonly<Record<string, unknown>>, ttlMs: number): Promise<void> {
  const text = JSON.stringify(snapshot);
  await redis.multi().set(FleetKeys.status(runtimeName), text, 'PX', ttlMs).hset(FleetKeys.runtimes, runtimeName, text).exec();
}

/** Every runtime that ever published (alive or not), by name. */
export async function readFleetStatus(redis: Redis): Promise<FleetRuntimeView[]> {
  const all = await redis.hgetall(FleetKeys.runtimes);
  const names = Object.keys(all).sort();
  if (names.length === 0) return [];
  const alive = await redis.mget(...names.map((name) => FleetKeys.status(name)));
  return names.map((name, index) => {
    const text = alive[index] ?? all[name]!;
    let snapshot: Record<string, unknown> | null = null;
    try {
      snapshot = JSON.parse(text) as Record<string, unknown>;
    } catch {
      snapshot = null;
    }
    return { name, alive: alive[index] !== null, snapshot };
  });
}

/** Forgets runtimes that are not alive (the CLI's `status --prune`). Returns how many went. */
export async function pruneDead(redis: Redis): Promise<number> {
  const views = await readFleetStatus(redis);
  const dead = views.filter((view) => !view.alive).map((view) => view.name);
  if (dead.length > 0) await redis.hdel(FleetKeys.runtimes, ...dead);
  return dead.length;
}
