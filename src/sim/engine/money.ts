/**
 * Integer money arithmetic shared by the engine's parts: what a buyer pays and a seller receives
 * for a count at a unit price, and exact pro-rata shares of a cost. Prices are 1/10,000 dollar,
 * counts 1/100 contract, money centicents, so price x count / 100 is centicents. Owns arithmetic
 * only; rounding always favours the exchange (buyer pays the ceiling, seller gets the floor).
 */

/** $1 in price units: a YES and a NO of one contract pay this together. */
export const PRICE_ONE = 10_000;

/** ceil(unitPrice x count / 100): what a buyer pays, centicents. */
export function costOf(unitPrice: number, count: number): number {
  const product = unitPrice * count;
  const remainder = product % 100;
  return (product - remainder) / 100 + (remainder > 0 ? 1 : 0);
}

/** floor(unitPrice x count / 100): what a seller receives, centicents. */
export function proceedsOf(unitPrice: number, count: number): number {
  const product = unitPrice * count;
  return (product - (product % 100)) / 100;
}

/** floor(value x part / whole) for non-negative safe integers, exact. */
export function share(value: number, part: number, whole: number): number {
  if (part >= whole) return value;
  const product = value * part;
  if (Number.isSafeInteger(product)) return (product - (product % whole)) / whole;
  return Number((BigInt(value) * BigInt(part)) / BigInt(whole));
}
