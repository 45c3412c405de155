/**
 * The dashboard folder's public surface: the operator snapshot (one view of a running runtime,
 * built on a timer, shared by the Prometheus text and the dashboard's pushes), the fleet view (every
 * runtime of a fleet, read from Redis while a client watches) and the dashboard server (a
 * token-guarded page and WebSocket with the kill switch). Other folders import the
 * dashboard only through this file. It reads the runtime; it never trades.
 */

import { randomBytes } from 'node:crypto';

export { OperatorSnapshots, BOOKS_MAX, LADDER_LEVELS, POSITIONS_MAX, LATENCY_REFRESH_MS, ORDERS_MAX, PNL_HISTORY_POINTS } from './operator-snapshot.ts';
export type { BookView, HopView, LadderLevel, OperatorView, OrderView, PositionView, SnapshotSource } from './operator-snapshot.ts';
export { HopDigest, DIGEST_PERCENTILES } from './hop-digest.ts';
export { DashboardServer, DASHBOARD_DEFAULTS } from './dashboard-server.ts';
export { FleetView, FLEET_READ_INTERVAL_MS, FLEET_ROWS_MAX, FLEET_STRATEGIES_MAX, FLEET_TEXT_MAX, FLEET_TOP_POSITIONS, fleetRow, fleetState } from './fleet-view.ts';
export type { FleetKillState, FleetPositionRow, FleetRow, FleetState, FleetViewOptions } from './fleet-view.ts';
export type { DashboardServerOptions, DashboardStats } from './dashboard-server.ts';

/** The configured token, or a random one for this run (192 bits, URL-safe). */
export function dashboardToken(configured: string | null): string {
  return configured ?? randomBytes(24).toString('base64url');
}
