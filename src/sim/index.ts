/**
 * The simulator's public surface: startSim for tests and main.ts, plus the fault rule types tests
 * drive through the handle. Other folders import the simulator only through this file.
 */

export { startSim, SIM_DEFAULTS, type CreateApiKeyOptions, type SimFixEndpoints, type SimHandle, type StartSimOptions } from './start-sim.ts';
export { FaultController, FAULT_PROFILES, faultProfileNames, type FaultRule, type FaultTarget, type FaultKind, type WsActionFilter } from './faults/index.ts';
export { SCOPES, type Scope } from './auth/index.ts';
export { RATE_LIMIT_TIERS, type RateLimitTier } from './rate-limit/index.ts';
export { PROBE_PATH, PROBE_RESET_PATH, type ProbeSummary, type SimProbe } from './server/probe.ts';
