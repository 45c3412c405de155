/**
 * Exact integer arithmetic for the Margin exchange: rates are integer parts per million (ppm, so
 * 0.0012 = 1200), money is centicents, prices are 1/10,000 dollar and counts 1/100 contract (core
 * units). Products that can pass 2^53 (notional x rate, cost x count) go through BigInt here and
 * come back as checked safe integers; nothing in the margin engine divides money through a float.
 */

import { asCenticents, type Centicents, type Count, type Price } from '../../core/index.ts';

export const PPM = 1_000_000;

/** a * b / c rounded toward +infinity (c > 0). */
export function mulDivCeil(a: number, b: number, c: number): number {
  const product = BigInt(a) * BigInt(b);
  const divisor = BigInt(c);
  let quotient = product / divisor; // truncates toward zero
  if (product % divisor !== 0n && product > 0n) quotient += 1n;
  return checked(quotient);
}

/** a * b / c rounded toward zero (c > 0). */
export function mulDivTrunc(a: number, b: number, c: number): number {
  return checked((BigInt(a) * BigInt(b)) / BigInt(c));
}

/** a * b / c rounded toward -infinity (c > 0). */
export function mulDivFloor(a: number, b: number, c: number): number {
  const product = BigInt(a) * BigInt(b);
  const divisor = BigInt(c);
  let quotient = product / divisor;
  if (product % divisor !== 0n && product < 0n) quotient -= 1n;
  return checked(quotient);
}

/** a * b / c rounded half away from zero (c > 0). */
export function mulDivRound(a: number, b: number, c: number): number {
  const product = BigInt(a) * BigInt(b);
  const divisor = BigInt(c);
  const half = divisor / 2n;
  const quotient = product >= 0n ? (product + half) / divisor : (product - half) / divisor;
  return checked(quotient);
}

function checked(value: bigint): number {
  const n = Number(value);
  if (!Number.isSafeInteger(n)) throw new RangeError(`margin arithmetic: ${value} is not a safe integer`);
  return n === 0 ? 0 : n; // never -0
}

/** |count| contracts at `price`, in centicents, rounded up (costs and requirements). */
export function notionalOf(price: Price, count: Count): Centicents {
  return asCenticents(mulDivCeil(price, Math.abs(count), 100));
}

/** Signed notional (count keeps its sign), rounded toward zero. */
export function signedNotionalOf(price: Price, count: Count): Centicents {
  return asCenticents(mulDivTrunc(price, count, 100));
}

/** `value` x ppm rate, rounded up: fees and margin requirements. */
export function applyRateCeil(value: number, ratePpm: number): Centicents {
  return asCenticents(mulDivCeil(value, ratePpm, PPM));
}

/** A ppm rate as the decimal fraction the wire shows (1200 -> 0.0012); display only. */
export function ppmToNumber(ratePpm: number): number {
  return Number((ratePpm / PPM).toFixed(6));
}

/** `value` limited to [low, high]. */
export function clamp(value: number, low: number, high: number): number {
  return value < low ? low : value > high ? high : value;
}
