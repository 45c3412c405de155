/**
 * Goal: the market catalog loader accepts config/markets.json (the shipped catalog meets the
 * coverage the simulator promises) and rejects bad catalogs naming the file, every bad JSON path
 * and what was expected, all at once.
 * Method: load the real file; parse hand-written bad catalogs and inspect CatalogError.problems.
 */

import { describe, expect, it } from 'vitest';
import { CatalogError, loadCatalog, parseCatalog } from '../../../src/sim/engine/index.ts';

describe('config/markets.json', () => {
  const catalog = loadCatalog('config/markets.json');

  it('has the coverage the simulator promises', () => {
    expect(catalog.markets.length).toBeGreaterThanOrEqual(8);
    const structures = new Set(catalog.markets.map((m) => m.priceLevelStructure));
    for (const s of ['linear_cent', 'deci_cent', 'tapered_deci_cent']) expect(structures.has(s as never)).toBe(true);
    expect([...structures].some((s) => s.startsWith('center_'))).toBe(true);
    expect(catalog.markets.some((m) => m.priceRanges !== null)).toBe(true);
    expect(new Set(catalog.markets.map((m) => m.exchangeIndex))).toEqual(new Set([0, 2, 3]));
    expect(catalog.markets.some((m) => m.status !== 'active')).toBe(true);
    const exclusive = catalog.events.filter((e) => e.mutuallyExclusive).map((e) => e.eventTicker);
    expect(exclusive.some((t) => catalog.markets.filter((m) => m.eventTicker === t).length >= 3)).toBe(true);
    const demo = catalog.markets.find((m) => m.ticker === 'KXDEMO-26DEC31-T50');
    expect(demo && [demo.priceLevelStructure, demo.exchangeIndex, demo.status]).toEqual(['linear_cent', 0, 'active']);
  });
});

describe('catalog validation', () => {
  it('reports every problem with its path', () => {
    let error: unknown;
    try {
      parseCatalog({
        series: [{ ticker: 'S', title: 'x', fee_type: 'cheap', colour: 'red' }],
        events: [{ event_ticker: 'E', series_ticker: 'MISSING', title: 'e' }],
        markets: [
          { ticker: 'M', event_ticker: 'E', status: 'open', price_level_structure: 'linear_cent' },
          { ticker: 'N', event_ticker: 'E', status: 'active', price_level_structure: 'penny', close_time: '2026-01-01T00:00:00Z',
            price_ranges: [{ start: '0.5', end: '0.4', step: '0.01' }], exchange_index: 7 },
        ],
      }, 'bad.json');
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(CatalogError);
    const problems = (error as CatalogError).problems.join('\n');
    expect((error as CatalogError).message).toContain('bad.json');
    for (const fragment of [
      '$.series[0].fee_type', '$.series[0].colour: unknown key', '$.events[0].series_ticker: no series MISSING',
      '$.markets[0].status', '$.markets[0].close_time', '$.markets[1].price_level_structure', '$.markets[1].price_ranges',
      '$.markets[1].exchange_index',
    ]) expect(problems).toContain(fragment);
  });

  it('rejects duplicates and a missing file clearly', () => {
    const base = { series: [{ ticker: 'S', title: 's' }], events: [{ event_ticker: 'E', series_ticker: 'S', title: 'e' }] };
    const market = { ticker: 'M', event_ticker: 'E', status: 'active', price_level_structure: 'linear_cent', close_time: '2026-01-01T00:00:00Z' };
    expect(() => parseCatalog({ ...base, markets: [market, market] })).toThrow(/duplicate M/);
    expect(() => loadCatalog('config/does-not-exist.json')).toThrow(/cannot read file/);
  });
});
