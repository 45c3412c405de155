// Goal: every price grid (all 11 named structures and price_ranges) has exactly the tradable prices
// the spec describes, with O(1) level <-> price, validity, snapping and wire output that agree.
// Method: an independent reference predicate per structure written from the spec text (tick by
// band), compared exhaustively over every price 0..$1; snapping compared with a brute-force scan;
// price_ranges validation, sharing of instances and finer-grid inclusion tested directly.
import { describe, expect, it } from 'vitest';
import {
  GridError, PRICE_INVALID, PRICE_LEVEL_STRUCTURES, PRICE_ONE, PriceGrid, type Price, type PriceLevelStructure,
} from '../../src/core/index.ts';

const TICK = { whole: 100, half: 50, quint: 20, deci: 10 } as const;

// Reference from the spec wording: is integer price p (1/10,000 $) tradable under `structure`?
function referenceTradable(structure: PriceLevelStructure, p: number): boolean {
  if (p <= 0 || p >= PRICE_ONE) return false;
  const edge = p <= 1000 || p >= 9000; // $0.00-$0.10 and $0.90-$1.00, boundaries in both bands
  switch (structure) {
    case 'linear_cent': return p % 100 === 0;
    case 'deci_cent': return p % 10 === 0;
    case 'tapered_deci_cent': return edge ? p % 10 === 0 : p % 100 === 0;
    case 'center_deci_edge_centi_cent': return p <= 100 || p >= 9900 ? true : p % 10 === 0;
    default: {
      const match = /^center_(whole|half|quint|deci)_edge_(whole|half|quint|deci)_cent$/.exec(structure);
      if (match === null) throw new Error(`no reference for ${structure}`);
      const center = TICK[match[1] as keyof typeof TICK];
      const edgeTick = TICK[match[2] as keyof typeof TICK];
      return edge ? p % edgeTick === 0 : p % center === 0;
    }
  }
}

const EXPECTED_LEVELS: Record<PriceLevelStructure, number> = {
  linear_cent: 99,
  deci_cent: 999,
  tapered_deci_cent: 279, // 100 + 79 + 100
  center_deci_edge_centi_cent: 1179, // 100 + 979 + 100
  center_whole_edge_half_cent: 119,
  center_whole_edge_quint_cent: 179,
  center_half_edge_half_cent: 199,
  center_half_edge_quint_cent: 259,
  center_half_edge_deci_cent: 359,
  center_quint_edge_quint_cent: 499,
  center_quint_edge_deci_cent: 599,
};

function bruteSnap(grid: PriceGrid, price: number, direction: 'down' | 'up' | 'nearest'): number {
  let down = PRICE_INVALID as number;
  let up = PRICE_INVALID as number;
  for (let level = 0; level < grid.levelCount; level++) {
    const p = grid.priceAt(level);
    if (p <= price) down = p;
    if (p >= price && up === PRICE_INVALID) up = p;
  }
  if (direction === 'down') return down;
  if (direction === 'up') return up;
  if (down === PRICE_INVALID) return up;
  if (up === PRICE_INVALID) return down;
  return price - down <= up - price ? down : up;
}

describe('named structures', () => {
  it('lists all 11 structures', () => {
    expect([...PRICE_LEVEL_STRUCTURES].sort()).toEqual(Object.keys(EXPECTED_LEVELS).sort());
  });

  describe.each(PRICE_LEVEL_STRUCTURES.map((s) => [s]))('%s', (structure) => {
    const grid = PriceGrid.fromStructure(structure);

    it('has the expected level count and edges', () => {
      expect(grid.levelCount).toBe(EXPECTED_LEVELS[structure]);
      expect(grid.structure).toBe(structure);
      expect(grid.minPrice).toBe(grid.priceAt(0));
      expect(grid.maxPrice).toBe(grid.priceAt(grid.levelCount - 1));
      expect(grid.priceAt(-1)).toBe(PRICE_INVALID);
      expect(grid.priceAt(grid.levelCount)).toBe(PRICE_INVALID);
    });

    it('tradable prices match the spec reference at every price 0..$1', () => {
      // Plain comparisons over the 10,001 prices, expect() only on a mismatch (an expect per price took seconds of CI).
      let level = 0;
      for (let p = 0; p <= PRICE_ONE; p++) {
        const tradable = referenceTradable(structure, p);
        const got = { contains: grid.contains(p as Price), levelOf: grid.levelOf(p as Price), priceAt: tradable ? grid.priceAt(level) : p };
        const want = { contains: tradable, levelOf: tradable ? level : -1, priceAt: p };
        if (got.contains !== want.contains || got.levelOf !== want.levelOf || got.priceAt !== want.priceAt) expect({ p, ...got }).toEqual({ p, ...want });
        if (tradable) level++;
      }
      expect(level).toBe(grid.levelCount);
    });

    it('is symmetric: p tradable iff 1 - p tradable (NO prices share the grid)', () => {
      for (let level = 0; level < grid.levelCount; level++) {
        if (!grid.contains((PRICE_ONE - grid.priceAt(level)) as Price)) expect({ level, mirrored: PRICE_ONE - grid.priceAt(level) }).toBe('tradable');
      }
    });

    it('rejects $0, $1, negatives, fractions and NaN', () => {
      for (const bad of [0, PRICE_ONE, -1, -100, PRICE_ONE + 100, 5000.5, Number.NaN, Number.POSITIVE_INFINITY]) {
        expect(grid.levelOf(bad as Price)).toBe(-1);
        expect(grid.contains(bad as Price)).toBe(false);
      }
    });

    it('snaps like a brute-force scan in every direction', () => {
      for (let p = -3; p <= PRICE_ONE + 3; p += 1) {
        for (const direction of ['down', 'up', 'nearest'] as const) {
          const got = grid.snap(p as Price, direction);
          const want = bruteSnap(grid, p, direction);
          if (got !== want) expect({ p, direction, got }).toEqual({ p, direction, got: want });
        }
      }
      expect(grid.snap(Number.NaN as Price, 'nearest')).toBe(PRICE_INVALID);
      expect(grid.snap(0 as Price, 'down')).toBe(PRICE_INVALID);
      expect(grid.snap(PRICE_ONE, 'up')).toBe(PRICE_INVALID);
      expect(grid.snap(PRICE_ONE, 'down')).toBe(grid.maxPrice);
      expect(grid.snap(0 as Price, 'up')).toBe(grid.minPrice);
    });

    it('round trips through toPriceRanges to the same shared instance', () => {
      const ranges = grid.toPriceRanges();
      for (const range of ranges) {
        for (const text of [range.start, range.end, range.step]) expect(text).toMatch(/^\d\.\d{4}$/);
      }
      expect(PriceGrid.fromPriceRanges(ranges)).toBe(grid);
      expect(PriceGrid.fromStructure(structure)).toBe(grid);
      expect(PriceGrid.forMarket(structure, null)).toBe(grid);
      expect(PriceGrid.forMarket(structure, [])).toBe(grid);
    });
  });

  it('spot checks from the spec text', () => {
    const tapered = PriceGrid.fromStructure('tapered_deci_cent');
    expect(tapered.contains(50 as Price)).toBe(true); // $0.005
    expect(tapered.contains(1050 as Price)).toBe(false); // $0.105 is centre band, cent ticks
    expect(tapered.contains(9950 as Price)).toBe(true);
    const combo = PriceGrid.fromStructure('center_deci_edge_centi_cent');
    expect(combo.contains(1 as Price)).toBe(true); // $0.0001
    expect(combo.contains(101 as Price)).toBe(false); // $0.0101: 0.001 ticks between $0.01 and $0.99
    expect(combo.contains(110 as Price)).toBe(true);
    expect(combo.contains(9999 as Price)).toBe(true);
    const halfEdge = PriceGrid.fromStructure('center_whole_edge_half_cent');
    expect(halfEdge.contains(950 as Price)).toBe(true);
    expect(halfEdge.contains(1050 as Price)).toBe(false);
    expect(halfEdge.contains(9050 as Price)).toBe(true);
  });

  it('finer grids include coarser ones', () => {
    const linear = PriceGrid.fromStructure('linear_cent');
    for (const structure of PRICE_LEVEL_STRUCTURES) {
      expect(PriceGrid.fromStructure(structure).includesGrid(linear)).toBe(true);
    }
    expect(linear.includesGrid(PriceGrid.fromStructure('deci_cent'))).toBe(false);
    expect(PriceGrid.fromStructure('deci_cent').includesGrid(PriceGrid.fromStructure('tapered_deci_cent'))).toBe(true);
    expect(PriceGrid.fromStructure('tapered_deci_cent').includesGrid(PriceGrid.fromStructure('deci_cent'))).toBe(false);
    expect(PriceGrid.fromStructure('center_quint_edge_deci_cent').includesGrid(PriceGrid.fromStructure('center_whole_edge_half_cent'))).toBe(true);
  });

  it('rejects an unknown structure name with GRID_INVALID', () => {
    expect(() => PriceGrid.fromStructure('milli_cent' as PriceLevelStructure)).toThrow(GridError);
    try {
      PriceGrid.fromStructure('milli_cent' as PriceLevelStructure);
    } catch (error) {
      expect((error as GridError).code).toBe('GRID_INVALID');
    }
  });
});

describe('price_ranges', () => {
  it('win over the structure and are shared when equal', () => {
    const ranges = [
      { start: '0.0000', end: '0.2000', step: '0.0050' },
      { start: '0.2000', end: '0.8000', step: '0.0100' },
      { start: '0.8000', end: '1.0000', step: '0.0050' },
    ];
    const grid = PriceGrid.forMarket('linear_cent', ranges);
    expect(grid).not.toBe(PriceGrid.fromStructure('linear_cent'));
    expect(grid.structure).toBeNull();
    expect(grid.levelCount).toBe(40 + 59 + 40);
    expect(grid.contains(1950 as Price)).toBe(true);
    expect(grid.contains(2050 as Price)).toBe(false);
    expect(PriceGrid.fromPriceRanges(ranges.map((r) => ({ ...r })))).toBe(grid);
    expect(grid.toPriceRanges()).toEqual(ranges);
    // Same bands written differently ("0.2" vs "0.2000") are the same grid.
    expect(PriceGrid.fromPriceRanges([{ start: '0', end: '0.2', step: '0.005' }, ranges[1], ranges[2]])).toBe(grid);
  });

  it('may leave gaps and start above $0; snapping crosses the gap', () => {
    const grid = PriceGrid.fromPriceRanges([
      { start: '0.2000', end: '0.3000', step: '0.0100' },
      { start: '0.7000', end: '0.8000', step: '0.0100' },
    ]);
    expect(grid.levelCount).toBe(22);
    expect(grid.minPrice).toBe(2000);
    expect(grid.maxPrice).toBe(8000);
    expect(grid.snap(5000 as Price, 'down')).toBe(3000);
    expect(grid.snap(5000 as Price, 'up')).toBe(7000);
    expect(grid.snap(5100 as Price, 'nearest')).toBe(7000);
    expect(grid.snap(1000 as Price, 'down')).toBe(PRICE_INVALID);
  });

  it('equal to a structure gives the structure instance', () => {
    expect(PriceGrid.fromPriceRanges([{ start: '0', end: '1', step: '0.01' }])).toBe(PriceGrid.fromStructure('linear_cent'));
  });

  it.each([
    ['empty', []],
    ['not an object', [null]],
    ['bad start', [{ start: 'x', end: '1', step: '0.01' }]],
    ['missing step', [{ start: '0', end: '1' }]],
    ['numeric bound', [{ start: 0, end: '1', step: '0.01' }]],
    ['zero step', [{ start: '0', end: '1', step: '0' }]],
    ['start >= end', [{ start: '0.5', end: '0.5', step: '0.01' }]],
    ['end above $1', [{ start: '0', end: '1.01', step: '0.01' }]],
    ['step does not divide band', [{ start: '0', end: '1', step: '0.03' }]],
    ['overlap', [{ start: '0', end: '0.5', step: '0.01' }, { start: '0.4', end: '1', step: '0.01' }]],
    ['descending', [{ start: '0.5', end: '1', step: '0.01' }, { start: '0', end: '0.5', step: '0.01' }]],
    ['negative', [{ start: '-0.1', end: '1', step: '0.01' }]],
    ['nothing strictly inside (0,1)', [{ start: '0', end: '1', step: '1' }]],
  ])('rejects %s with GRID_INVALID', (_name, ranges) => {
    let caught: unknown;
    try {
      PriceGrid.fromPriceRanges(ranges as never);
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(GridError);
    expect((caught as GridError).code).toBe('GRID_INVALID');
  });

  it('names the bad band in the message', () => {
    expect(() => PriceGrid.fromPriceRanges([{ start: '0', end: '1', step: '0.01' }, { start: '0.5', end: '1', step: 'x' }])).toThrow(
      /price_ranges\[1\]\.step/,
    );
  });
});
