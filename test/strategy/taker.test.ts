/**
 * Goal: the test taker (strategies/taker.ts) crosses the spread with IOC orders exactly when its
 * condition holds (every N book updates, or spread <= X ticks), alternates sides and respects its
 * bounds. Method: the plugin over a BoundStrategyContext with the real RiskGate and a fake OMS.
 */

import { describe, expect, it } from 'vitest';
import { BoundStrategyContext, validateParams } from '../../src/strategy/index.ts';
import { createLogger } from '../../src/telemetry/index.ts';
import plugin, { Taker } from '../../strategies/taker.ts';
import { harness, setBook } from './fake-ports.ts';

const TICKER = 'KXTAKE-1';

function setup(params: Record<string, unknown>) {
  const h = harness();
  const book = h.markets.addBook(TICKER);
  setBook(book, [['0.4000', '10']], [['0.4500', '10']]);
  const validated = validateParams({ id: 'taker', plugin: 'strategies/taker.ts', subaccount: 0, orderGroup: null, markets: [TICKER], params }, plugin);
  const strategy = plugin.create(validated) as Taker;
  const ctx = new BoundStrategyContext(
    { id: 'taker', strategyId: 1, subaccount: 0, orderGroup: -1, markets: [TICKER], params: validated as unknown as Record<string, unknown>, log: createLogger({ level: 'silent' }) },
    h.oms, h.markets, h.clock,
  );
  ctx.setActive(true);
  return { ...h, book, ctx, strategy };
}

describe('taker plugin', () => {
  it('takes on every N-th book update with IOC at the opposite touch, alternating sides', () => {
    const { strategy, ctx, oms, book } = setup({ everyBookUpdates: 3, size: '2.00' });
    for (let i = 0; i < 9; i++) strategy.onBook(book, ctx);
    expect(oms.sent.map((r) => [r.side, r.price, r.timeInForce, r.count])).toEqual([
      ['bid', 4500, 'immediate_or_cancel', 200],
      ['ask', 4000, 'immediate_or_cancel', 200],
      ['bid', 4500, 'immediate_or_cancel', 200],
    ]);
  });

  it('takes when the spread is at most maxSpreadTicks, up to maxOrders', () => {
    const { strategy, ctx, oms, book } = setup({ maxSpreadTicks: 2, side: 'bid', maxOrders: 2 });
    strategy.onBook(book, ctx); // spread 5 ticks
    expect(oms.sent).toHaveLength(0);
    setBook(book, [['0.4300', '10']], [['0.4500', '10']]);
    for (let i = 0; i < 5; i++) strategy.onBook(book, ctx);
    expect(oms.sent).toHaveLength(2);
    expect(strategy.sent).toBe(2);
  });

  it('waits minIntervalMs between orders', () => {
    const { strategy, ctx, oms, book, clock } = setup({ everyBookUpdates: 1, minIntervalMs: 100 });
    strategy.onBook(book, ctx);
    strategy.onBook(book, ctx);
    expect(oms.sent).toHaveLength(1);
    clock.advance(100);
    strategy.onBook(book, ctx);
    expect(oms.sent).toHaveLength(2);
  });

  it('skips a side with nothing to take', () => {
    const { strategy, ctx, oms, book } = setup({ everyBookUpdates: 1, side: 'bid' });
    setBook(book, [['0.4000', '10']], []);
    strategy.onBook(book, ctx);
    expect(oms.sent).toHaveLength(0);
  });
});
