/**
 * Shared fixtures for the engine tests: a small catalog (a linear_cent market, a deci_cent market
 * in a maker-fee event, a market on shard 2, an unopened market), a manual clock and helpers that
 * build order params in units. Not a test file itself.
 */

import type { Centicents, Count, Price } from '../../../src/core/index.ts';
import { parseCount, parsePrice } from '../../../src/core/index.ts';
import { SimEngine, isSimError, parseCatalog } from '../../../src/sim/engine/index.ts';
import type { CreateOrderParams, CreateOrderResult, SimEngineOptions, SimError } from '../../../src/sim/engine/index.ts';

export const LINEAR = 'KXT-26DEC31-LIN';
export const DECI = 'KXM-26DEC31-DECI';
export const SHARD2 = 'KXG-26DEC31-S2';
export const UNOPENED = 'KXT-26DEC31-NEW';

export function testCatalog() {
  return parseCatalog({
    series: [
      { ticker: 'KXT', title: 'Test', fee_type: 'quadratic', exchange_index: 0 },
      { ticker: 'KXM', title: 'Maker fees', fee_type: 'quadratic_with_maker_fees', exchange_index: 0 },
      { ticker: 'KXG', title: 'Shard 2', fee_type: 'quadratic', exchange_index: 2 },
    ],
    events: [
      { event_ticker: 'KXT-26DEC31', series_ticker: 'KXT', title: 'Test event', mutually_exclusive: false },
      { event_ticker: 'KXM-26DEC31', series_ticker: 'KXM', title: 'Maker fee event' },
      { event_ticker: 'KXG-26DEC31', series_ticker: 'KXG', title: 'Shard 2 event' },
    ],
    markets: [
      { ticker: LINEAR, event_ticker: 'KXT-26DEC31', status: 'active', price_level_structure: 'linear_cent', close_time: '2026-12-31T23:59:59Z' },
      { ticker: DECI, event_ticker: 'KXM-26DEC31', status: 'active', price_level_structure: 'deci_cent', close_time: '2026-12-31T23:59:59Z' },
      { ticker: SHARD2, event_ticker: 'KXG-26DEC31', status: 'active', price_level_structure: 'linear_cent', close_time: '2026-12-31T23:59:59Z' },
      { ticker: UNOPENED, event_ticker: 'KXT-26DEC31', status: 'initialized', price_level_structure: 'linear_cent', close_time: '2026-12-31T23:59:59Z' },
    ],
  }, 'test catalog');
}

export const START_MS = 1_790_000_000_000;

export interface TestEngine {
  engine: SimEngine;
  clock: { ms: number };
}

/** An engine on the test catalog with users a, b, c holding $1,000 each on subaccount 0 of shards 0 and 2. */
export function makeEngine(options: Partial<SimEngineOptions> = {}): TestEngine {
  const clock = { ms: START_MS };
  const engine = new SimEngine({ now: () => clock.ms, seed: 7, catalog: testCatalog(), options });
  for (const user of ['a', 'b', 'c']) {
    engine.addUser(user);
    engine.deposit(user, 0, 0, dollars(1000));
    engine.deposit(user, 0, 2, dollars(1000));
  }
  return { engine, clock };
}

export function dollars(n: number): Centicents {
  return (n * 10_000) as Centicents;
}

export function price(text: string): Price {
  return parsePrice(text);
}

/** Whole or 0.01-step contract counts written as text: "2.50" -> 250. */
export function contracts(text: string): Count {
  return parseCount(text);
}

let clientCounter = 0;

export function order(ticker: string, side: 'bid' | 'ask', priceText: string, countText: string, extra: Partial<CreateOrderParams> = {}): CreateOrderParams {
  clientCounter++;
  return {
    ticker,
    side,
    price: price(priceText),
    count: contracts(countText),
    timeInForce: 'good_till_canceled',
    selfTradePrevention: 'taker_at_cross',
    clientOrderId: `cid-${clientCounter}`,
    ...extra,
  };
}

export function ok(result: CreateOrderResult | SimError): CreateOrderResult {
  if (isSimError(result)) throw new Error(`expected success, got ${result.status} ${result.code}: ${result.message}`);
  return result;
}
