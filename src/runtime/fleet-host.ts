/**
 * The runtime's side of the fleet (src/fleet): what a lease, a lapse and a fleet kill switch do to
 * this runtime's gate, read pacer and router. Wiring only; called from the fleet's timer and
 * subscription, never from the hot path.
 */

import { hostname } from 'node:os';
import type { Clock } from '../core/index.ts';
import type { ReadPacer } from '../exec/index.ts';
import { FleetPort } from '../fleet/index.ts';
import type { Budgets, FleetHost, LimitAsk } from '../fleet/index.ts';
import { Deny, DENY_CODE_COUNT, SUBACCOUNT_COUNT, TradingState } from '../risk/index.ts';
import type { RiskGate } from '../risk/index.ts';
import type { Router } from '../router/index.ts';
import type { StrategyHost } from '../strategy/index.ts';
import type { Logger } from '../telemetry/index.ts';
import type { DeepReadonly, RuntimeConfig } from './config.ts';

/** A cancel's write cost (rest.md §9): a lapsed runtime keeps at least one. */
const CANCEL_COST = 2;
/** A read's default cost: a lapsed runtime may still reconcile, one read at a time. */
const READ_COST = 10;
/** A create's write cost: a bucket below reserve + this cannot send the next create (demand). */
const CREATE_COST = 10;

export interface FleetWiring {
  config: DeepReadonly<RuntimeConfig>;
  keyId: string;
  gate: RiskGate;
  router: Router;
  host: StrategyHost;
  pacer: () => ReadPacer;
  clock: Clock;
  logger: Logger;
  snapshot: () => Record<string, unknown>;
  /** The trading state a released kill switch returns to. */
  configuredState: TradingState;
}

/** The fleet port of a runtime, or null when config.fleet.redisUrl is null. */
export function createFleetPort(wiring: FleetWiring): FleetPort | null {
  const fleet = wiring.config.fleet;
  if (fleet.redisUrl === null) return null;
  return new FleetPort(
    {
      redisUrl: fleet.redisUrl,
      runtimeName: fleet.runtimeName ?? `${hostname()}-${process.pid}`,
      keyId: wiring.keyId,
      leaseTtlMs: fleet.leaseTtlMs,
      renewMs: fleet.renewMs,
      statusEveryRenewals: Math.max(1, Math.round(1_000 / fleet.renewMs)),
    },
    fleetHost(wiring),
  );
}

function fleetHost(wiring: FleetWiring): FleetHost {
  const { gate, router, clock, logger } = wiring;
  const denies = new Float64Array(DENY_CODE_COUNT);
  let rateLimitedSeen = 0;
  /** The trading state a lapse replaced (restored when a lease returns), -1 when not lapsed. */
  let savedState = -1;
  return {
    applyBudget(budget: Readonly<Budgets>, fromEmpty: boolean) {
      const nowMs = clock.nowMs();
      const pacer = wiring.pacer();
      if (fromEmpty) {
        // Through a near-zero capacity: the buckets keep min(held, capacity), so they start empty.
        gate.budget.setBudget(budget.writePerSecond, 0.001, budget.readPerSecond, 0.001, nowMs);
        pacer.setBudget(budget.readPerSecond, 0.001);
      }
      gate.budget.setBudget(budget.writePerSecond, budget.writeCapacity, budget.readPerSecond, budget.readCapacity, nowMs);
      pacer.setBudget(budget.readPerSecond, budget.readCapacity);
    },
    applyLapsedBudget() {
      const reserve = Math.max(CANCEL_COST, gate.budget.writeReserve);
      gate.budget.setBudget(1, reserve, 1, READ_COST, clock.nowMs());
      wiring.pacer().setBudget(1, READ_COST);
    },
    setLapsed(lapsed: boolean) {
      if (lapsed) {
        if (savedState === -1) savedState = gate.tradingState;
        gate.setTradingState(TradingState.HALTED);
      } else if (savedState !== -1) {
        if (!gate.killed) gate.setTradingState(savedState as TradingState);
        savedState = -1;
      }
    },
    limitUsage: (asks: LimitAsk[]) => limitUsage(gate, asks),
    applyLimitShares(shares: readonly number[]) {
      gate.setLimitShares(shares[0]!, shares[1]!, shares[2]!, shares[3]!);
    },
    demandHeld() {
      const rateLimited = wiring.host.denyCounts(denies)[Deny.RATE_LIMITED] ?? 0;
      const refused = rateLimited > rateLimitedSeen;
      rateLimitedSeen = rateLimited;
      const dry = gate.budget.writeTokens(clock.nowMs()) < gate.budget.writeReserve + CREATE_COST;
      return router.held.size > 0 || refused || dry;
    },
    killEngaged: () => gate.killed,
    engageKill: (reason, source) => router.killSwitch(reason, source),
    releaseKill(by: string) {
      router.releaseKillSwitch(by);
      if (savedState !== -1) savedState = wiring.configuredState; // still lapsed: restored with the lease
      else gate.setTradingState(wiring.configuredState);
    },
    snapshot: wiring.snapshot,
    nowMs: () => clock.nowMs(),
    onError: (error, what) => logger.warn({ err: error }, what),
    onEvent: (message, fields) => logger.info(fields, message),
  };
}

/**
 * This runtime's largest exposure against each leased limit (LimitKind order; the gate's units):
 * worst-case |position| of one (market, subaccount) slot, the worst-case sum of one subaccount,
 * and the worst-case losses of the last portfolio snapshot plus the resting cost added since (as
 * the gate counts them). Walks every slot: on the fleet's timer, never per message.
 */
function limitUsage(gate: RiskGate, asks: LimitAsk[]): void {
  const limits = gate.limits;
  const exposure = gate.exposure;
  let marketWorst = 0;
  for (let i = 0; i < exposure.slotCount; i++) marketWorst = Math.max(marketWorst, exposure.slotAt(i).worst);
  let subaccountWorst = 0;
  let lossSubaccountMicro = 0;
  const view = gate.portfolio;
  for (let sub = 0; sub < SUBACCOUNT_COUNT; sub++) {
    subaccountWorst = Math.max(subaccountWorst, exposure.worstSum(sub), gate.marginExposure.worstSum(sub));
    for (const slot of gate.marginExposure.slotsOf(sub)) marketWorst = Math.max(marketWorst, slot.worst);
    if (view !== null && view.generation > 0) {
      const since = exposure.addedMicro(sub) - view.addedAtPackMicro(sub);
      lossSubaccountMicro = Math.max(lossSubaccountMicro, view.subaccountLossMicro(sub) + (since > 0 ? since : 0));
    }
  }
  let lossEventMicro = 0;
  if (view !== null && view.generation > 0) {
    const since = exposure.addedMicroTotal - view.addedTotalAtPackMicro;
    for (let event = 0; event < view.eventCount; event++) lossEventMicro = Math.max(lossEventMicro, view.eventLossMicro(event) + (since > 0 ? since : 0));
  }
  fill(asks[0]!, limits.marketPositionMax, marketWorst);
  fill(asks[1]!, limits.subaccountPositionMax, subaccountWorst);
  fill(asks[2]!, limits.worstLossSubaccountMax, Math.ceil(lossSubaccountMicro / 100));
  fill(asks[3]!, limits.worstLossEventMax, Math.ceil(lossEventMicro / 100));
}

function fill(ask: LimitAsk, limit: number, used: number): void {
  ask.limit = limit;
  ask.used = used;
}
