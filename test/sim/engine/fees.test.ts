/**
 * Goal: trade fees are exact integer arithmetic rounded up against the trader: taker 0.07 and
 * maker 0.0175 x C x P x (1 - P), to the centicent (or cent), scaled by a fee multiplier, with no
 * float drift for large counts.
 * Method: known values (including the recorded wire fill, 1 contract at $0.52 -> "0.017500"),
 * then a bounded sweep against a BigInt reference.
 */

import { describe, expect, it } from 'vitest';
import type { Count, Price } from '../../../src/core/index.ts';
import { MAKER_RATE, TAKER_RATE, parseMultiplier, tradeFee } from '../../../src/sim/engine/fees.ts';

function reference(rate: number, multiplier: number, price: number, count: number, cent: boolean): number {
  const numerator = BigInt(rate) * BigInt(multiplier) * BigInt(price) * BigInt(10_000 - price) * BigInt(count);
  const scale = 100_000_000_000_000n;
  let fee = (numerator + scale - 1n) / scale;
  if (cent) fee = ((fee + 99n) / 100n) * 100n;
  return Number(fee);
}

describe('tradeFee', () => {
  it('matches known values', () => {
    expect(tradeFee(TAKER_RATE, 10_000, 5200 as Price, 100 as Count, false)).toBe(175);
    expect(tradeFee(TAKER_RATE, 10_000, 5000 as Price, 100 as Count, true)).toBe(200);
    expect(tradeFee(TAKER_RATE, 10_000, 5000 as Price, 10_000 as Count, true)).toBe(17_500);
    expect(tradeFee(MAKER_RATE, 10_000, 5000 as Price, 10_000 as Count, false)).toBe(4_375);
    expect(tradeFee(TAKER_RATE, 5_000, 5000 as Price, 100 as Count, false)).toBe(88); // 0.00875 -> 0.0088
    expect(tradeFee(0, 10_000, 5000 as Price, 100 as Count, false)).toBe(0);
  });

  it('agrees with a BigInt reference across prices, counts and multipliers', () => {
    const multipliers = [10_000, 5_000, 20_000, 12_345];
    for (let price = 1; price < 10_000; price += 37) {
      for (const count of [1, 7, 100, 12_345, 10_000_000, 9_999_999_999]) {
        for (const multiplier of multipliers) {
          for (const cent of [false, true]) {
            expect(tradeFee(TAKER_RATE, multiplier, price as Price, count as Count, cent)).toBe(reference(TAKER_RATE, multiplier, price, count, cent));
          }
        }
      }
    }
  });

  it('parses multipliers as text', () => {
    expect(parseMultiplier('1')).toBe(10_000);
    expect(parseMultiplier('0.5')).toBe(5_000);
    expect(parseMultiplier('1.2345')).toBe(12_345);
    expect(parseMultiplier('1.23456')).toBe(-1);
    expect(parseMultiplier('x')).toBe(-1);
    expect(parseMultiplier('1.')).toBe(-1);
  });
});
