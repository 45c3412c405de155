// Goal: fixed-point parsing and formatting of prices, counts and money are exact and strict.
// Method: table tests of accepted and rejected text (including the malformed forms we decided to
// reject: "", ".", ".5", "1.", " 1", "1e3", "-0.1" for prices, too many decimals), seeded random
// round trips integer -> text -> integer over each unit's range, and checked casts / throwing
// variants asserting the UnitError code and field.
import { describe, expect, it } from 'vitest';
import {
  asCenticents, asCents, asCount, asPrice, CENTICENTS_INVALID, COUNT_INVALID, formatCount, formatDollars,
  formatPrice, notionalCenticents, parseCount, parseDollars, parsePrice, parseSignedCount, PRICE_INVALID,
  PRICE_ONE, priceFromCents, requireCount, requireDollars, requirePrice, requireSignedCount, UnitError,
  type Centicents, type Count, type Price,
  seededRandom,
} from '../../src/core/index.ts';

// Reproducible random cases: core's seeded PRNG.
const rng = seededRandom;

const MALFORMED_COMMON = ['', '.', '.5', '1.', ' 1', '1 ', '+1', '1e3', '1E3', '0x1', '0.5.6', '1,5', 'abc', '0.5a', '--1', 'NaN', 'Infinity', '١'];

describe('parsePrice', () => {
  it.each([
    ['0.56', 5600], ['0.5600', 5600], ['0.96', 9600], ['0.960', 9600], ['1', 10_000], ['0', 0], ['1.0000', 10_000],
    ['0.0001', 1], ['0.9999', 9999], ['00.50', 5000], ['0.1', 1000], ['12.3456', 123_456],
  ])('parses %j as %i', (text, expected) => {
    expect(parsePrice(text)).toBe(expected);
  });

  it.each([...MALFORMED_COMMON, '-0.1', '-1', '0.12345', '0.00001', '1.00000'])('rejects %j', (text) => {
    expect(parsePrice(text)).toBe(PRICE_INVALID);
  });

  it('rejects values that are not safe integers', () => {
    expect(parsePrice('9007199254740.9920')).toBe(PRICE_INVALID);
    expect(parsePrice('1'.repeat(41))).toBe(PRICE_INVALID);
  });

  it('round trips every grid-range price and random large prices', () => {
    for (let price = 0; price <= PRICE_ONE; price++) {
      expect(parsePrice(formatPrice(price as Price))).toBe(price);
    }
    const random = rng(1);
    for (let i = 0; i < 2000; i++) {
      const price = Math.floor(random() * 1e12) as Price;
      expect(parsePrice(formatPrice(price))).toBe(price);
    }
  });
});

describe('formatPrice', () => {
  it('always writes 4 decimals', () => {
    expect(formatPrice(5600 as Price)).toBe('0.5600');
    expect(formatPrice(1 as Price)).toBe('0.0001');
    expect(formatPrice(0 as Price)).toBe('0.0000');
    expect(formatPrice(10_000 as Price)).toBe('1.0000');
    expect(formatPrice(123_456 as Price)).toBe('12.3456');
  });
  it('throws UnitError for negative, fractional or unsafe prices', () => {
    for (const bad of [-1, 0.5, Number.NaN, 2 ** 53]) {
      expect(() => formatPrice(bad as Price)).toThrow(UnitError);
    }
  });
});

describe('counts', () => {
  it.each([['10', 1000], ['10.0', 1000], ['10.00', 1000], ['54.00', 5400], ['0.01', 1], ['0', 0], ['0.5', 50]])(
    'parseCount(%j) = %i', (text, expected) => {
      expect(parseCount(text)).toBe(expected);
      expect(parseSignedCount(text)).toBe(expected);
    },
  );
  it.each([...MALFORMED_COMMON, '-1', '1.001', '0.123'])('parseCount rejects %j', (text) => {
    expect(parseCount(text)).toBe(COUNT_INVALID);
  });
  it('parseSignedCount accepts one leading minus and never yields -0', () => {
    expect(parseSignedCount('-40.00')).toBe(-4000);
    expect(parseSignedCount('-0.01')).toBe(-1);
    expect(Object.is(parseSignedCount('-0.00'), 0)).toBe(true);
    for (const bad of ['-', '--1', '-.5', '+1', '1-', '-1.', '- 1', '-1.001']) expect(parseSignedCount(bad)).toBe(COUNT_INVALID);
  });
  it('formatCount writes 2 decimals and a minus sign', () => {
    expect(formatCount(5400 as Count)).toBe('54.00');
    expect(formatCount(-4000 as Count)).toBe('-40.00');
    expect(formatCount(-1 as Count)).toBe('-0.01');
    expect(formatCount(0 as Count)).toBe('0.00');
    expect(() => formatCount(1.5 as Count)).toThrow(UnitError);
  });
  it('round trips random signed counts', () => {
    const random = rng(2);
    for (let i = 0; i < 5000; i++) {
      const count = Math.floor((random() - 0.5) * 2e13) as Count;
      expect(parseSignedCount(formatCount(count))).toBe(count);
    }
  });
});

describe('dollars (centicents)', () => {
  it.each([
    ['0.0175', 175], ['0.017500', 175], ['-12.5', -125_000], ['0', 0], ['100.00', 1_000_000], ['0.00001' + '0', CENTICENTS_INVALID],
  ])('parseDollars(%j) = %i', (text, expected) => {
    expect(parseDollars(text)).toBe(expected);
  });
  it.each([...MALFORMED_COMMON, '0.01755', '0.017501', '0.0000001', '0.1234567'])('rejects %j', (text) => {
    expect(parseDollars(text)).toBe(CENTICENTS_INVALID);
  });
  it('formats 4 or 6 decimals', () => {
    expect(formatDollars(175 as Centicents)).toBe('0.0175');
    expect(formatDollars(175 as Centicents, 6)).toBe('0.017500');
    expect(formatDollars(-125_000 as Centicents)).toBe('-12.5000');
  });
  it('round trips random money', () => {
    const random = rng(3);
    for (let i = 0; i < 5000; i++) {
      const value = Math.floor((random() - 0.5) * 2e14) as Centicents;
      expect(parseDollars(formatDollars(value))).toBe(value);
      expect(parseDollars(formatDollars(value, 6))).toBe(value);
    }
  });
});

describe('checked casts and throwing variants', () => {
  it('casts pass safe integers and throw UnitError otherwise', () => {
    expect(asPrice(5600)).toBe(5600);
    expect(asCount(-5)).toBe(-5);
    expect(asCents(7)).toBe(7);
    expect(asCenticents(0)).toBe(0);
    for (const cast of [asPrice, asCount, asCents, asCenticents]) {
      for (const bad of [0.5, Number.NaN, Number.POSITIVE_INFINITY, 2 ** 53]) {
        expect(() => cast(bad)).toThrow(UnitError);
      }
    }
  });
  it('priceFromCents converts legacy integer cents', () => {
    expect(priceFromCents(56)).toBe(5600);
    expect(priceFromCents(1)).toBe(100);
    expect(priceFromCents(99)).toBe(9900);
    expect(() => priceFromCents(5.5)).toThrow(UnitError);
    expect(() => priceFromCents(-1)).toThrow(UnitError);
    expect(() => priceFromCents(2 ** 53)).toThrow(UnitError);
  });
  it('require* name the field and the bad text', () => {
    expect(requirePrice('0.42', 'limits.price')).toBe(4200);
    expect(requireCount('3', 'limits.count')).toBe(300);
    expect(requireSignedCount('-3', 'position')).toBe(-300);
    expect(requireDollars('1.5', 'balance')).toBe(15_000);
    const cases: Array<() => unknown> = [
      () => requirePrice('0.5.6', 'limits.price'),
      () => requireCount('-1', 'limits.price'),
      () => requireSignedCount('x', 'limits.price'),
      () => requireDollars('1e3', 'limits.price'),
      () => requirePrice(42 as unknown as string, 'limits.price'),
    ];
    for (const run of cases) {
      try {
        run();
        expect.unreachable('should throw');
      } catch (error) {
        expect(error).toBeInstanceOf(UnitError);
        expect((error as UnitError).code).toBe('UNIT_INVALID');
        expect((error as UnitError).field).toBe('limits.price');
        expect((error as UnitError).message).toContain('limits.price');
      }
    }
    expect(() => requirePrice('0.5.6', 'f')).toThrow(/"0\.5\.6"/);
  });
});

describe('notionalCenticents', () => {
  it('is exact when divisible and rounds toward +infinity otherwise', () => {
    expect(notionalCenticents(5600 as Price, 100 as Count)).toBe(5600); // 1 contract at $0.56 = 0.5600 $
    expect(notionalCenticents(5600 as Price, 5400 as Count)).toBe(302_400); // 54 contracts = $30.24
    expect(notionalCenticents(5601 as Price, 1 as Count)).toBe(57); // 56.01 -> 57
    expect(notionalCenticents(5601 as Price, -1 as Count)).toBe(-56); // -56.01 -> -56
    expect(Object.is(notionalCenticents(1 as Price, -1 as Count), 0)).toBe(true); // -0.01 -> 0, not -0
    expect(() => notionalCenticents(2 ** 40 as Price, 2 ** 20 as Count)).toThrow(UnitError);
  });
  it('matches BigInt arithmetic on random inputs', () => {
    const random = rng(4);
    for (let i = 0; i < 5000; i++) {
      const price = Math.floor(random() * 1e6) as Price;
      const count = Math.floor((random() - 0.5) * 1e9) as Count;
      const product = BigInt(price) * BigInt(count);
      let expected = product / 100n; // truncates toward zero
      if (product % 100n > 0n) expected += 1n;
      expect(notionalCenticents(price, count)).toBe(Number(expected));
    }
  });
});
