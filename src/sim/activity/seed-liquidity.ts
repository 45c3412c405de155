/**
 * Resting liquidity laid once at start-up so a crossing order fills on a fresh simulator
 * (`npm run sim` turns it on; the tests' embedded simulator keeps empty books unless asked). One
 * synthetic user per exchange quotes LEVELS price levels each side of every active market: on
 * Predictions around the catalog's initial fair price (grid levels below and above it), on Margin
 * around the catalog's starting mark (whole ticks). Sizes grow with distance from the fair value.
 * Deterministic: no randomness, so a seed and catalog give the same books. Public engine APIs only.
 */

import { asCenticents, asCount, type Count, type Price } from '../../core/index.ts';
import { isSimError, type SimEngine } from '../engine/index.ts';
import type { MarginEngine } from '../margin/index.ts';

export const LIQUIDITY_USER_ID = 'sim-liquidity';
/** Levels per side per market. */
export const LIQUIDITY_LEVELS = 5;
/** Contracts at the best level; each level further out adds as many again. */
const LEVEL_CONTRACTS = 50;
/** Cash per exchange index: large enough never to run dry ($1,000,000,000). */
const LIQUIDITY_CASH = asCenticents(10_000_000_000_000);

export interface SeededLiquidity {
  /** Orders placed on Predictions and Margin books. */
  predictionsOrders: number;
  marginOrders: number;
}

export function seedLiquidity(engine: SimEngine, margin: MarginEngine | null): SeededLiquidity {
  const out: SeededLiquidity = { predictionsOrders: 0, marginOrders: 0 };
  if (!engine.hasUser(LIQUIDITY_USER_ID)) engine.addUser(LIQUIDITY_USER_ID, { keepHistory: false });
  for (const index of [0, 2, 3]) engine.deposit(LIQUIDITY_USER_ID, 0, index, LIQUIDITY_CASH);
  for (const market of engine.markets()) {
    if (market.status !== 'active') continue;
    const grid = market.grid;
    const fairLevel = grid.levelOf(grid.snap(market.spec.initialFairPrice, 'nearest'));
    const center = fairLevel === -1 ? grid.levelCount >> 1 : fairLevel;
    for (let k = 0; k < LIQUIDITY_LEVELS; k++) {
      for (const side of ['bid', 'ask'] as const) {
        const level = side === 'bid' ? center - 1 - k : center + 1 + k;
        if (level < 0 || level >= grid.levelCount) continue;
        const result = engine.createOrder(LIQUIDITY_USER_ID, {
          ticker: market.ticker,
          clientOrderId: `liquidity-${market.ticker}-${side}-${k}`,
          side,
          price: grid.priceAt(level) as Price,
          count: asCount(LEVEL_CONTRACTS * (k + 1) * 100) as Count,
          timeInForce: 'good_till_canceled',
          selfTradePrevention: 'maker',
          postOnly: true,
          subaccount: 0,
        });
        if (!isSimError(result) && result.order.status === 'resting') out.predictionsOrders++;
      }
    }
  }
  if (margin === null) return out;
  margin.ensureAccount(LIQUIDITY_USER_ID, 0, LIQUIDITY_CASH);
  for (const spec of margin.catalog.markets) {
    for (let k = 0; k < LIQUIDITY_LEVELS; k++) {
      for (const side of ['bid', 'ask'] as const) {
        const price = side === 'bid' ? spec.markPrice - spec.tickSize * (1 + k) : spec.markPrice + spec.tickSize * (1 + k);
        if (price <= 0) continue;
        const result = margin.create(LIQUIDITY_USER_ID, 0, {
          ticker: spec.ticker,
          clientOrderId: `liquidity-${spec.ticker}-${side}-${k}`,
          side,
          count: (k + 1) * 100, // whole contracts, count units
          price,
          timeInForce: 'good_till_canceled',
          selfTradePrevention: 'maker',
          postOnly: true,
          reduceOnly: false,
          cancelOrderOnPause: false,
          expirationTs: null,
        });
        if (!('isError' in result)) out.marginOrders++;
      }
    }
  }
  return out;
}
