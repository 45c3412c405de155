/** The fleet (opt-in, Redis): budget leases, the account-wide kill switch and the fleet view. */
export { FleetPort } from './fleet-port.ts';
export type { FleetHost, FleetPortOptions, FleetStatus } from './fleet-port.ts';
export { LEASABLE_PPM, PPM, WEIGHT_HUNGRY, WEIGHT_IDLE, giveBackLease, leaseBudget, shareOf } from './budget-lease.ts';
export type { Budgets, LeaseAnswer } from './budget-lease.ts';
export { LIMIT_KIND_COUNT, LIMIT_KIND_NAMES, LIMIT_STEP_PPM, LimitKind, giveBackLimits, leaseLimits, limitWant, limitsKey } from './limit-lease.ts';
export type { LimitAsk } from './limit-lease.ts';
export { killRecord, parseKillRecord, publishKillRecord, readKillRecord, subscribeKill } from './kill-switch.ts';
export type { FleetKillRecord } from './kill-switch.ts';
export { publishStatus, pruneDead, readFleetStatus } from './fleet-status.ts';
export type { FleetRuntimeView } from './fleet-status.ts';
export { FleetKeys, connectFleetRedis, openFleetRedis } from './redis-connection.ts';
export type { FleetRedisOptions } from './redis-connection.ts';
