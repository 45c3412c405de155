/**
 * The fleet's Redis connections and key names. A fleet connection never queues a command while
 * disconnected (enableOfflineQueue false) and times every command out: a renewal that cannot reach
 * Redis fails within a period instead of piling up, and the lease then lapses on its own clock.
 * Reconnection is ioredis's, with a short capped backoff. Owns no fleet logic.
 */

import { Redis } from 'ioredis';

/** Key names of one fleet (one account); every runtime and the CLI agree on them. */
export const FleetKeys = {
  /** Hash: '@born' (when the lease table was created, Redis ms) and one field per runtime's lease. */
  budget: (keyId: string): string => `fleet:budget:${keyId}`,
  /** The account-wide kill switch record (JSON), also the pub/sub channel its changes go on. */
  kill: 'fleet:kill',
  /** A runtime's status snapshot (JSON) with a TTL: present means alive. */
  status: (runtimeName: string): string => `fleet:status:${runtimeName}`,
  /** Hash: runtime name -> its last status snapshot (JSON), kept after it dies. */
  runtimes: 'fleet:runtimes',
} as const;

export interface FleetRedisOptions {
  /** Bound of one command, ms (renewals use the renewal period); 0: none (the subscriber). */
  commandTimeoutMs: number;
  /** Bound of one connection attempt, ms. */
  connectTimeoutMs: number;
  /** Longest wait between reconnection attempts, ms. */
  reconnectMaxMs: number;
  /** Told of connection errors (ioredis emits one per failed attempt); never throws. */
  onError: (error: Error) => void;
}

export function openFleetRedis(url: string, options: FleetRedisOptions): Redis {
  const redis = new Redis(url, {
    lazyConnect: true,
    enableOfflineQueue: false,
    maxRetriesPerRequest: 0,
    // ioredis arms a timer for any number, 0 included: a 0 ms timeout would fail the subscriber's
    // SUBSCRIBE, and the re-SUBSCRIBE ioredis sends itself after a reconnect has no catch (an
    // unhandled rejection once Redis comes back).
    commandTimeout: options.commandTimeoutMs > 0 ? options.commandTimeoutMs : undefined,
    connectTimeout: options.connectTimeoutMs,
    // Keep trying for as long as the runtime lives: the lease lapses meanwhile (fail safe).
    retryStrategy: (attempt: number) => Math.min(25 * attempt, options.reconnectMaxMs),
  });
  redis.on('error', options.onError);
  return redis;
}

/** Connects once, bounded by the connect timeout; false when Redis did not answer (retries go on in the background). */
export async function connectFleetRedis(redis: Redis): Promise<boolean> {
  try {
    await redis.connect();
    return true;
  } catch {
    return false;
  }
}
