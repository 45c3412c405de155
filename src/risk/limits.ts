/**
 * The gate's limits: one plain, typed, frozen object built once from the `risk` section of the
 * validated configuration and passed to the gate (STYLE §8: defaults live in one place, each with
 * its unit). This file owns the shape, the defaults, the rate-limit tier budgets (rest.md §9) and a
 * validator that reports every violation at once; it never reads files or the environment.
 */

import { asCenticents, asCount } from '../core/index.ts';
import type { Centicents, Count } from '../core/index.ts';

/** Documented tiers (rest.md §9); `custom` takes writeTokensPerSecond / writeCapacityTokens from the limits. */
export type RiskRateTier = 'basic' | 'advanced' | 'premier' | 'paragon' | 'prime' | 'custom';

export interface TierWriteBudget {
  readonly readTokensPerSecond: number;
  readonly writeTokensPerSecond: number;
  /** Seconds of budget the write bucket holds. */
  readonly writeCapacitySeconds: number;
}

/**
 * rest.md §9 budgets. Write capacity is two seconds of budget, which the docs state for non-Basic
 * tiers only; for Basic we keep one second, as the simulator does (src/sim/rate-limit/tiers.ts),
 * because admitting a burst the venue would answer with 429 is the worse error for a gate.
 */
export const TIER_WRITE_BUDGETS: Readonly<Record<Exclude<RiskRateTier, 'custom'>, TierWriteBudget>> = Object.freeze({
  basic: { readTokensPerSecond: 200, writeTokensPerSecond: 100, writeCapacitySeconds: 1 },
  advanced: { readTokensPerSecond: 300, writeTokensPerSecond: 300, writeCapacitySeconds: 2 },
  premier: { readTokensPerSecond: 1000, writeTokensPerSecond: 1000, writeCapacitySeconds: 2 },
  paragon: { readTokensPerSecond: 2000, writeTokensPerSecond: 2000, writeCapacitySeconds: 2 },
  prime: { readTokensPerSecond: 4000, writeTokensPerSecond: 4000, writeCapacitySeconds: 2 },
});

export interface RiskLimits {
  /** Largest count of one order (1/100 contract). */
  readonly orderCountMax: Count;
  /** Largest cost of one order in centicents (bid: price x count; ask: (1 - price) x count, the NO cost). */
  readonly orderNotionalMax: Centicents;
  /** Worst-case |position| per (subaccount, market), counting every resting order of one side as filled. */
  readonly marketPositionMax: Count;
  /** Sum over markets of the worst-case |position| of one subaccount. */
  readonly subaccountPositionMax: Count;
  /** Cost of all resting (and in-flight) orders of one subaccount, centicents. */
  readonly subaccountNotionalMax: Centicents;
  /** Live orders of the user (rest.md §3: the venue caps open orders at 200,000). */
  readonly openOrdersMax: number;
  /** Order groups per user (interface-spec Limits: 100,000). */
  readonly orderGroupsMax: number;
  /** Our quotes on RFQs not yet closed (pending, open, accepted, confirmed) at once; a new quote above it is QUOTE_OPEN_LIMIT. */
  readonly openQuotesMax: number;
  /** Counts must be whole contracts (multiples of 100) unless a market says otherwise. */
  readonly wholeContractsOnly: boolean;
  /** A book not updated for longer than this is stale; 0 disables the check. Milliseconds. */
  readonly bookStaleMs: number;
  /** The subaccount a restricted API key is locked to, or -1 for a full-account key. */
  readonly restrictedSubaccount: number;
  readonly rateTier: RiskRateTier;
  /** Only for rateTier 'custom': tokens per second and bucket capacity in tokens. */
  readonly writeTokensPerSecond: number;
  readonly writeCapacityTokens: number;
  readonly readTokensPerSecond: number;
  /** Share of the write bucket (0..1) only cancels and cancel-all may spend, so they are never starved. */
  readonly cancelReserveShare: number;
  /**
   * Both buckets keep this many ms of refill unspent (core's mirrorHeadroom), so requests reaching
   * the venue bunched still find tokens there. 0 (the library default, exact arithmetic) spends to
   * the last token; the runtime's config default is 100.
   */
  readonly arrivalSkewMs: number;
  /**
   * Worst-case loss of one subaccount over every outcome (positions at cost plus every resting
   * order that would lose filled), centicents; 0: no limit. Read from the portfolio snapshot.
   */
  readonly worstLossSubaccountMax: Centicents;
  /** Worst-case loss on one event over its outcomes, all subaccounts together, centicents; 0: no limit. */
  readonly worstLossEventMax: Centicents;
  /**
   * A portfolio snapshot older than this denies orders that add risk (PORTFOLIO_RISK_STALE), ms;
   * 0: never stale. Only checked while a portfolio view is attached to the gate.
   */
  readonly portfolioStaleMs: number;
  /**
   * Margin exchange: largest worst-case notional (every resting order of one side filled, at the
   * mark) over the subaccount's Margin balance, summed over its Margin markets; a plain ratio
   * (10 = 10x). Above it: LEVERAGE_ABOVE_MAX.
   */
  readonly marginLeverageMax: number;
  /**
   * Margin exchange: a limit price further than this from the mark, in basis points of the mark,
   * is PRICE_AWAY_FROM_MARK (a fat-finger band); 0 turns the band off.
   */
  readonly marginPriceBandBps: number;
  /**
   * Margin exchange: the initial-margin requirement of a market the runtime has not yet set one for
   * (RiskGate.setMarginRate, from the market's leverage estimates / risk parameters), parts per
   * million of notional; 0 derives it from marginLeverageMax (ceil(1e6 / marginLeverageMax)).
   */
  readonly marginDefaultInitialMarginPpm: number;
}

export const DEFAULT_RISK_LIMITS: RiskLimits = Object.freeze({
  orderCountMax: asCount(100_000), //              1,000 contracts
  orderNotionalMax: asCenticents(10_000_000), //  $1,000
  marketPositionMax: asCount(500_000), //         5,000 contracts
  subaccountPositionMax: asCount(5_000_000), //   50,000 contracts
  subaccountNotionalMax: asCenticents(500_000_000), // $50,000
  openOrdersMax: 200_000,
  orderGroupsMax: 100_000,
  openQuotesMax: 100,
  wholeContractsOnly: false,
  bookStaleMs: 0,
  restrictedSubaccount: -1,
  rateTier: 'basic',
  writeTokensPerSecond: 0,
  writeCapacityTokens: 0,
  readTokensPerSecond: 0,
  cancelReserveShare: 0.2,
  arrivalSkewMs: 0,
  worstLossSubaccountMax: asCenticents(0),
  worstLossEventMax: asCenticents(0),
  portfolioStaleMs: 0,
  marginLeverageMax: 10,
  marginPriceBandBps: 0, //                       off
  marginDefaultInitialMarginPpm: 0, //            from marginLeverageMax: 100,000 ppm (10%)
});

/** Merges `overrides` onto the defaults and validates; throws RiskLimitsError listing every violation. */
export function riskLimits(overrides: Partial<RiskLimits> = {}): RiskLimits {
  const limits: RiskLimits = { ...DEFAULT_RISK_LIMITS, ...overrides };
  const problems = validateRiskLimits(limits);
  if (problems.length > 0) throw new RiskLimitsError(problems);
  return Object.freeze(limits);
}

export class RiskLimitsError extends Error {
  readonly code: 'RISK_LIMITS_INVALID' = 'RISK_LIMITS_INVALID';
  readonly problems: readonly string[];
  constructor(problems: readonly string[]) {
    super(`invalid risk limits: ${problems.join('; ')}`);
    this.name = 'RiskLimitsError';
    this.problems = problems;
  }
}

function nonNegativeInteger(problems: string[], name: string, value: number): void {
  if (!Number.isSafeInteger(value) || value < 0) problems.push(`${name}: expected a non-negative integer, got ${String(value)}`);
}

/**
 * The `risk` section of the loaded runtime configuration (src/runtime/config.ts RiskConfig, already
 * converted to units by the loader); declared structurally so risk does not import runtime.
 */
export interface RiskConfigSection {
  readonly maxOrderCount: Count;
  readonly maxOrderNotionalDollars: Centicents;
  readonly maxPositionPerMarket: Count;
  readonly maxPositionPerSubaccount: Count;
  readonly maxRestingExposureDollars: Centicents;
  readonly rateLimitTier: Exclude<RiskRateTier, 'custom'>;
  readonly cancelReserveFraction: number;
}

/**
 * Limits from the config's risk section; fields the section does not carry (open-order and group
 * caps, whole contracts, book staleness, the restricted key's subaccount, the Margin fields
 * marginLeverageMax / marginPriceBandBps / marginDefaultInitialMarginPpm) come from `overrides`
 * or the defaults. maxRestingExposureDollars is applied per subaccount (one instance trades one).
 */
export function riskLimitsFromConfig(section: RiskConfigSection, overrides: Partial<RiskLimits> = {}): RiskLimits {
  return riskLimits({
    orderCountMax: section.maxOrderCount,
    orderNotionalMax: section.maxOrderNotionalDollars,
    marketPositionMax: section.maxPositionPerMarket,
    subaccountPositionMax: section.maxPositionPerSubaccount,
    subaccountNotionalMax: section.maxRestingExposureDollars,
    rateTier: section.rateLimitTier,
    cancelReserveShare: section.cancelReserveFraction,
    ...overrides,
  });
}

/** Every violation at once, each naming its field. */
export function validateRiskLimits(limits: RiskLimits): string[] {
  const problems: string[] = [];
  nonNegativeInteger(problems, 'orderCountMax', limits.orderCountMax);
  nonNegativeInteger(problems, 'orderNotionalMax', limits.orderNotionalMax);
  nonNegativeInteger(problems, 'marketPositionMax', limits.marketPositionMax);
  nonNegativeInteger(problems, 'subaccountPositionMax', limits.subaccountPositionMax);
  nonNegativeInteger(problems, 'subaccountNotionalMax', limits.subaccountNotionalMax);
  nonNegativeInteger(problems, 'openOrdersMax', limits.openOrdersMax);
  nonNegativeInteger(problems, 'orderGroupsMax', limits.orderGroupsMax);
  nonNegativeInteger(problems, 'openQuotesMax', limits.openQuotesMax);
  nonNegativeInteger(problems, 'bookStaleMs', limits.bookStaleMs);
  nonNegativeInteger(problems, 'worstLossSubaccountMax', limits.worstLossSubaccountMax);
  nonNegativeInteger(problems, 'worstLossEventMax', limits.worstLossEventMax);
  nonNegativeInteger(problems, 'portfolioStaleMs', limits.portfolioStaleMs);
  const leverage = limits.marginLeverageMax;
  if (!(typeof leverage === 'number' && Number.isFinite(leverage) && leverage > 0)) problems.push(`marginLeverageMax: expected a finite number > 0, got ${String(leverage)}`);
  nonNegativeInteger(problems, 'marginPriceBandBps', limits.marginPriceBandBps);
  const ppm = limits.marginDefaultInitialMarginPpm;
  if (!Number.isSafeInteger(ppm) || ppm < 0 || ppm > 1_000_000) problems.push(`marginDefaultInitialMarginPpm: expected an integer 0-1,000,000, got ${String(ppm)}`);
  if (typeof limits.wholeContractsOnly !== 'boolean') problems.push('wholeContractsOnly: expected a boolean');
  const sub = limits.restrictedSubaccount;
  if (!Number.isSafeInteger(sub) || sub < -1 || sub > 63) problems.push(`restrictedSubaccount: expected -1 or 0-63, got ${String(sub)}`);
  if (limits.rateTier === 'custom') {
    if (!(limits.writeTokensPerSecond > 0)) problems.push('writeTokensPerSecond: expected > 0 with rateTier custom');
    if (!(limits.writeCapacityTokens > 0)) problems.push('writeCapacityTokens: expected > 0 with rateTier custom');
    if (!(limits.readTokensPerSecond > 0)) problems.push('readTokensPerSecond: expected > 0 with rateTier custom');
  } else if (!Object.hasOwn(TIER_WRITE_BUDGETS, limits.rateTier)) {
    problems.push(`rateTier: expected one of ${Object.keys(TIER_WRITE_BUDGETS).join(', ')}, custom; got ${String(limits.rateTier)}`);
  }
  const share = limits.cancelReserveShare;
  if (!(share >= 0 && share < 1)) problems.push(`cancelReserveShare: expected 0 <= share < 1, got ${String(share)}`);
  const skew = limits.arrivalSkewMs;
  if (!(Number.isSafeInteger(skew) && skew >= 0 && skew <= 1_000)) problems.push(`arrivalSkewMs: expected an integer 0..1000, got ${String(skew)}`);
  return problems;
}

/** The initial-margin rate (ppm of notional) of a Margin market the runtime has not set one for. */
export function defaultInitialMarginPpm(limits: RiskLimits): number {
  if (limits.marginDefaultInitialMarginPpm > 0) return limits.marginDefaultInitialMarginPpm;
  const ppm = Math.ceil(1_000_000 / limits.marginLeverageMax);
  return ppm > 1_000_000 ? 1_000_000 : ppm;
}

/** The write/read budget the limits select. */
export function budgetOf(limits: RiskLimits): { readPerSecond: number; writePerSecond: number; writeCapacity: number } {
  if (limits.rateTier === 'custom') {
    return {
      readPerSecond: limits.readTokensPerSecond,
      writePerSecond: limits.writeTokensPerSecond,
      writeCapacity: limits.writeCapacityTokens,
    };
  }
  const tier = TIER_WRITE_BUDGETS[limits.rateTier];
  return {
    readPerSecond: tier.readTokensPerSecond,
    writePerSecond: tier.writeTokensPerSecond,
    writeCapacity: tier.writeTokensPerSecond * tier.writeCapacitySeconds,
  };
}
