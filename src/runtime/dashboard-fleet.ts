/**
 * The dashboard's fleet page source: when this runtime is in a fleet (config fleet.redisUrl), a
 * FleetView over its own Redis connection, separate from the fleet port's (a slow page read never
 * delays a lease renewal) and with every command bounded. The connection is opened here and
 * closed when the view stops (the dashboard server stops it). Wiring only.
 */

import { hostname } from 'node:os';
import { FleetView, FLEET_READ_INTERVAL_MS } from '../dashboard/index.ts';
import { connectFleetRedis, openFleetRedis, readFleetStatus } from '../fleet/index.ts';
import type { FleetRuntimeView } from '../fleet/index.ts';
import type { Logger } from '../telemetry/index.ts';
import type { FleetConfig } from './config.ts';

/** One command's bound, ms: a read is two commands, well inside the view's own read timeout. */
const COMMAND_TIMEOUT_MS = 1_000;
/** Reconnection attempts at most this far apart while Redis is away, ms. */
const RECONNECT_MAX_MS = 1_000;

/** The fleet view of the dashboard, or null when this runtime is not in a fleet. */
export function dashboardFleetView(fleet: Readonly<FleetConfig>, logger: Logger, intervalMs = FLEET_READ_INTERVAL_MS): FleetView | null {
  if (fleet.redisUrl === null) return null;
  // Errors of each connection attempt are not logged: the view reports a failed read once per outage.
  const redis = openFleetRedis(fleet.redisUrl, { commandTimeoutMs: COMMAND_TIMEOUT_MS, connectTimeoutMs: COMMAND_TIMEOUT_MS, reconnectMaxMs: RECONNECT_MAX_MS, onError: () => {} });
  void connectFleetRedis(redis); // never rejects; ioredis keeps reconnecting in the background
  const read = (): Promise<FleetRuntimeView[]> =>
    redis.status === 'ready' ? readFleetStatus(redis) : Promise.reject(new Error(`fleet Redis not connected (${redis.status})`));
  return new FleetView({
    read,
    intervalMs,
    runtimeName: fleet.runtimeName ?? `${hostname()}-${process.pid}`,
    onError: (error, what) => logger.warn({ err: error }, what),
    onEvent: (message) => logger.info(message),
    onStop: () => redis.disconnect(),
  });
}
