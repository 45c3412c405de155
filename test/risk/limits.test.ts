// Goal: limits are validated with every violation reported at once, and tiers map to the
// documented write budgets (rest.md §9) with the cancel reserve carved out of the write bucket.
// Method: build limits with bad fields and read the error; build budgets per tier.

import { describe, expect, it } from 'vitest';
import { DEFAULT_RISK_LIMITS, RateBudget, RiskLimitsError, budgetOf, riskLimits, validateRiskLimits } from '../../src/risk/index.ts';

describe('risk limits', () => {
  it('defaults are valid and frozen', () => {
    expect(validateRiskLimits(DEFAULT_RISK_LIMITS)).toEqual([]);
    expect(Object.isFrozen(riskLimits())).toBe(true);
  });

  it('reports every violation with its field', () => {
    try {
      riskLimits({ orderCountMax: -1 as never, restrictedSubaccount: 64, cancelReserveShare: 1, rateTier: 'gold' as never });
      expect.unreachable();
    } catch (error) {
      expect(error).toBeInstanceOf(RiskLimitsError);
      const problems = (error as RiskLimitsError).problems.join('\n');
      expect(problems).toMatch(/orderCountMax/);
      expect(problems).toMatch(/restrictedSubaccount/);
      expect(problems).toMatch(/cancelReserveShare/);
      expect(problems).toMatch(/rateTier/);
      expect((error as RiskLimitsError).code).toBe('RISK_LIMITS_INVALID');
    }
  });

  it('maps tiers to rest.md §9 budgets', () => {
    expect(budgetOf(riskLimits({ rateTier: 'basic' }))).toEqual({ readPerSecond: 200, writePerSecond: 100, writeCapacity: 100 });
    expect(budgetOf(riskLimits({ rateTier: 'advanced' }))).toEqual({ readPerSecond: 300, writePerSecond: 300, writeCapacity: 600 });
    expect(budgetOf(riskLimits({ rateTier: 'premier' })).writeCapacity).toBe(2000);
    expect(budgetOf(riskLimits({ rateTier: 'paragon' })).writePerSecond).toBe(2000);
    expect(budgetOf(riskLimits({ rateTier: 'prime' })).writeCapacity).toBe(8000);
    expect(budgetOf(riskLimits({ rateTier: 'custom', writeTokensPerSecond: 50, writeCapacityTokens: 70, readTokensPerSecond: 9 }))).toEqual({
      readPerSecond: 9,
      writePerSecond: 50,
      writeCapacity: 70,
    });
  });

  it('rate budget: reserve, refill, read bucket, no minting on a clock step back', () => {
    const budget = new RateBudget(100, 200, 0.25, 10, 0);
    expect(budget.writeReserve).toBe(50);
    let creates = 0;
    while (creates < 100 && budget.tryTakeWrite(10, false, 0)) creates++;
    expect(creates).toBe(15);
    expect(budget.canTakeWrite(2, true, 0)).toBe(true);
    expect(budget.tryTakeWrite(10, false, -1000)).toBe(false);
    expect(budget.tryTakeWrite(10, false, 100)).toBe(true); // +10 tokens in 100 ms
    expect(budget.writeTokens(100)).toBe(50);
    expect(budget.tryTakeRead(10, 100)).toBe(true);
    expect(budget.tryTakeRead(1, 100)).toBe(false);
    expect(budget.readTokens(200)).toBe(1);
  });
});

describe('risk limits from the runtime config', () => {
  it('maps the loaded risk section (already in units) onto RiskLimits, and the trading state name', async () => {
    const { riskLimitsFromConfig, tradingStateOf, TradingState } = await import('../../src/risk/index.ts');
    const limits = riskLimitsFromConfig(
      {
        maxOrderCount: 10_000 as never,
        maxOrderNotionalDollars: 1_000_000 as never,
        maxPositionPerMarket: 50_000 as never,
        maxPositionPerSubaccount: 200_000 as never,
        maxRestingExposureDollars: 10_000_000 as never,
        rateLimitTier: 'advanced',
        cancelReserveFraction: 0.3,
      },
      { restrictedSubaccount: 2 },
    );
    expect(limits).toMatchObject({
      orderCountMax: 10_000,
      orderNotionalMax: 1_000_000,
      marketPositionMax: 50_000,
      subaccountPositionMax: 200_000,
      subaccountNotionalMax: 10_000_000,
      rateTier: 'advanced',
      cancelReserveShare: 0.3,
      restrictedSubaccount: 2,
      openOrdersMax: 200_000,
    });
    expect(tradingStateOf('reducing')).toBe(TradingState.REDUCING);
    expect(tradingStateOf('halted')).toBe(TradingState.HALTED);
    expect(tradingStateOf('active')).toBe(TradingState.ACTIVE);
  });
});
