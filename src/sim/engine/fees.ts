/**
 * Trade fees of the Predictions exchange, in integer arithmetic: fee = rate x C x P x (1 - P),
 * rounded up against the trader to the centicent ($0.0001; the exchange's fee_rounding page and
 * the recorded fill "0.017500" for 1 contract at $0.52) or, as a legacy option, to the cent.
 * Taker rate 0.07; maker rate 0.0175 only for fee_type quadratic_with_maker_fees, else 0. A fee
 * multiplier (series or event override) scales the rate. Owns arithmetic only.
 */

import type { Centicents, Count, Price } from '../../core/index.ts';

// Rates as integers over RATE_SCALE: 0.07 = 700 / 10_000, 0.0175 = 175 / 10_000.
export const TAKER_RATE = 700;
export const MAKER_RATE = 175;
/**
 * Combo fee rule (interface-spec Limits): a quoter executing against an order that rested under
 * five seconds pays the maker fee with multiplier 0.5 instead of 0.25, i.e. 0.07 x 0.5 = 0.035;
 * the resting party pays the taker fee.
 */
export const COMBO_QUOTER_RATE = 350;

/** Which fee one side of an execution pays (accounts.applyFill). */
export const FeeRole = {
  /** By its book role: taker rate when taking, maker rate (often 0) when resting. */
  BOOK: 0,
  /** The taker fee whatever its book role (the resting party of a combo quote execution). */
  TAKER: 1,
  /** The combo quoter's fee (COMBO_QUOTER_RATE). */
  COMBO_QUOTER: 2,
} as const;
export type FeeRole = (typeof FeeRole)[keyof typeof FeeRole];


/**
 * Multiplier text ("1", "0.5", "1.25"; at most 4 decimals) as an integer over 10_000, so the fee
 * numerator stays integral. Returns -1 for malformed text.
 */
export function parseMultiplier(text: string): number {
  let value = 0;
  let decimals = -1;
  let digits = 0;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code === 0x2e && decimals === -1) {
      decimals = 0;
      continue;
    }
    const digit = code - 0x30;
    if (digit < 0 || digit > 9 || decimals === 4) return -1;
    value = value * 10 + digit;
    digits++;
    if (decimals !== -1) decimals++;
  }
  if (digits === 0 || decimals === 0) return -1;
  return value * 10 ** (decimals === -1 ? 4 : 4 - decimals);
}

/**
 * Fee in centicents for `count` (1/100 contract) at YES price `price` (1/10,000 $), `rate`
 * (1/10,000) and `multiplier` (1/10,000; 10_000 = 1):
 *   fee = rate/1e4 * mult/1e4 * count/100 * p/1e4 * (1e4-p)/1e4 dollars
 *       = rate * mult * count * p * (1e4-p) / 1e14 centicents, rounded up.
 * Whole multipliers (the usual 1) stay in safe-integer arithmetic; others use BigInt.
 */
export function tradeFee(rate: number, multiplier: number, price: Price, count: Count, roundToCent: boolean): Centicents {
  if (rate === 0 || multiplier === 0 || count <= 0) return 0 as Centicents;
  const pq = price * (10_000 - price); // <= 2.5e7
  let fee: number;
  const whole = multiplier % 10_000 === 0 ? multiplier / 10_000 : 0;
  const numerator = whole > 0 ? rate * whole * pq * count : Number.NaN; // over 1e10
  if (Number.isSafeInteger(numerator)) {
    const remainder = numerator % 1e10; // exact on safe integers
    fee = (numerator - remainder) / 1e10 + (remainder > 0 ? 1 : 0);
  } else {
    const big = BigInt(rate) * BigInt(multiplier) * BigInt(pq) * BigInt(count);
    fee = Number((big + 99_999_999_999_999n) / 100_000_000_000_000n);
  }
  if (roundToCent) {
    const remainder = fee % 100;
    if (remainder !== 0) fee += 100 - remainder;
  }
  return fee as Centicents;
}
