/**
 * Goal: the runtime reads a perpetual's facts right (tick, mark, the most conservative initial
 * margin from the leverage estimates; a bad tick is a coded error), and the account sync hands the
 * gate the equity (not the venue's available balance, which has the margin the gate counts itself
 * already taken out) and the notional risk limits, keeps the last figures when a read fails, and
 * reports a failure streak once.
 * Method: the parsers on hand-written MarginMarket objects; the sync over fake reads and sink.
 */

import { describe, expect, it } from 'vitest';
import type { Centicents } from '../../src/core/index.ts';
import { MarketLookupError } from '../../src/runtime/market-directory.ts';
import { MarginAccountSync, marginMarketFacts } from '../../src/runtime/margin-venue.ts';

describe('marginMarketFacts', () => {
  it('reads tick, mark and 1 / the lowest leverage quoted', () => {
    const facts = marginMarketFacts('KXBTCPERP', {
      tick_size: '0.01', status: 'active', settlement_mark_price: { price: '100.2500', ts_ms: 1 },
      leverage_estimates: { '1000': 10, '100000': 5, '1000000': 2.5 },
    });
    expect(facts).toEqual({ ticker: 'KXBTCPERP', status: 'active', open: true, tick: 100, markPrice: 1_002_500, initialMarginPpm: 400_000 });
  });

  it('without estimates or a mark: 0 (the gate default) and PRICE_INVALID; a bad tick is MARKET_GRID_INVALID', () => {
    expect(marginMarketFacts('X', { tick_size: '0.10', status: 'paused' })).toMatchObject({ tick: 1_000, markPrice: -1, initialMarginPpm: 0, open: false });
    expect(() => marginMarketFacts('X', { tick_size: '0' })).toThrow(MarketLookupError);
    expect(() => marginMarketFacts('X', { tick_size: 0.01 })).toThrow(expect.objectContaining({ code: 'MARKET_GRID_INVALID' }));
  });
});

describe('MarginAccountSync', () => {
  function fixture() {
    const calls: string[] = [];
    const errors: unknown[] = [];
    let fail = false;
    const reads = {
      balances: async () => {
        if (fail) throw new Error('down');
        return [{ subaccount: 0, availableCenticents: 10 as Centicents, equityCenticents: 5_000 as Centicents }, { subaccount: 3, availableCenticents: 0 as Centicents, equityCenticents: 70 as Centicents }];
      },
      notionalRiskLimits: async () => ({ defaultCenticents: 900 as Centicents, byTicker: new Map([['KXETHPERP', 400 as Centicents]]) }),
    };
    const sink = {
      setMarginBalance: (subaccount: number, centicents: number) => calls.push(`balance ${subaccount} ${centicents}`),
      setDefaultNotionalRiskLimit: (centicents: number) => calls.push(`default ${centicents}`),
      setNotionalRiskLimit: (ticker: string, centicents: number) => calls.push(`limit ${ticker} ${centicents}`),
    };
    const sync = new MarginAccountSync(reads, sink, () => ['KXBTCPERP', 'KXETHPERP'], (error) => errors.push(error));
    return { sync, calls, errors, setFail: (value: boolean) => (fail = value) };
  }

  it('hands the gate each subaccount\'s equity and each market\'s limit (its own, else the default)', async () => {
    const f = fixture();
    await f.sync.refresh();
    expect(f.calls).toEqual(['balance 0 5000', 'balance 3 70', 'default 900', 'limit KXBTCPERP 900', 'limit KXETHPERP 400']);
    expect(f.sync.refreshes).toBe(1);
  });

  it('a failed read keeps the last figures and is reported once per streak; concurrent refreshes share one read', async () => {
    const f = fixture();
    f.setFail(true);
    await Promise.all([f.sync.refresh(), f.sync.refresh()]);
    await f.sync.refresh();
    expect(f.calls).toEqual([]);
    expect(f.errors).toHaveLength(1);
    f.setFail(false);
    await f.sync.refresh();
    f.setFail(true);
    await f.sync.refresh();
    expect(f.errors).toHaveLength(2);
    expect(f.sync.refreshes).toBe(1);
  });
});
