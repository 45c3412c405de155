/**
 * Goal: a market's grid and tradability come from its REST Market object: price_ranges win over
 * price_level_structure, an unusable grid is a coded error, and the live simulator's answer parses.
 * Method: marketFacts on hand-written objects; fetchMarket against an in-process simulator.
 */

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parsePrice } from '../../src/core/index.ts';
import { startSim } from '../../src/sim/index.ts';
import type { SimHandle } from '../../src/sim/index.ts';
import { MarketLookupError, fetchMarket, marketFacts } from '../../src/runtime/market-directory.ts';

let sim: SimHandle;
const keysDir = mkdtempSync(join(tmpdir(), 'market-directory-'));

beforeAll(async () => {
  sim = await startSim({ keysDir, logger: pino({ level: 'silent' }) });
});

afterAll(async () => {
  await sim.close();
  rmSync(keysDir, { recursive: true, force: true });
});

describe('marketFacts', () => {
  it('uses price_ranges when present', () => {
    const facts = marketFacts('X', { status: 'active', price_level_structure: 'linear_cent', price_ranges: [{ start: '0.0000', end: '1.0000', step: '0.0010' }] });
    expect(facts.open).toBe(true);
    expect(facts.grid.contains(parsePrice('0.4150'))).toBe(true);
  });

  it('falls back on price_level_structure', () => {
    const facts = marketFacts('X', { status: 'initialized', price_level_structure: 'linear_cent' });
    expect(facts.open).toBe(false);
    expect(facts.grid.contains(parsePrice('0.4150'))).toBe(false);
    expect(facts.grid.levelCount).toBe(99);
  });

  it('refuses a market without a usable grid', () => {
    expect(() => marketFacts('X', { status: 'active', price_level_structure: 'nonsense' })).toThrowError(MarketLookupError);
    try {
      marketFacts('X', { status: 'active', price_level_structure: 'nonsense' });
    } catch (error) {
      expect((error as MarketLookupError).code).toBe('MARKET_GRID_INVALID');
    }
  });
});

describe('fetchMarket', () => {
  it('reads a listed market from the simulator', async () => {
    const facts = await fetchMarket(`${sim.httpUrl}/trade-api/v2`, 'KXDEMO-26DEC31-T50');
    expect(facts).toMatchObject({ ticker: 'KXDEMO-26DEC31-T50', status: 'active', open: true });
    expect(facts.grid.levelCount).toBe(99);
  });

  it('reports an unknown market with MARKET_NOT_FOUND', async () => {
    await expect(fetchMarket(`${sim.httpUrl}/trade-api/v2`, 'KXNOPE-1')).rejects.toMatchObject({ code: 'MARKET_NOT_FOUND' });
  });
});
