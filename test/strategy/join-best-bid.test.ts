/**
 * Goal: the README's example plugin (strategies/join-best-bid.ts) does what the README says: while
 * flat and without an order, it joins the best YES bid post-only once; an empty book places
 * nothing. Method: the plugin over a BoundStrategyContext with the real RiskGate and a fake OMS.
 */

import { describe, expect, it } from 'vitest';
import { BoundStrategyContext, Deny, validateParams } from '../../src/strategy/index.ts';
import { createLogger } from '../../src/telemetry/index.ts';
import plugin, { JoinBestBid } from '../../strategies/join-best-bid.ts';
import { harness, setBook } from './fake-ports.ts';

const TICKER = 'KXJOIN-1';

function setup(params: Record<string, unknown>) {
  const h = harness();
  const book = h.markets.addBook(TICKER);
  const validated = validateParams({ id: 'join', plugin: 'strategies/join-best-bid.ts', subaccount: 0, orderGroup: null, markets: [TICKER], params }, plugin);
  const strategy = plugin.create(validated) as JoinBestBid;
  const ctx = new BoundStrategyContext(
    { id: 'join', strategyId: 1, subaccount: 0, orderGroup: -1, markets: [TICKER], params: validated as unknown as Record<string, unknown>, log: createLogger({ level: 'silent' }) },
    h.oms, h.markets, h.clock,
  );
  ctx.setActive(true);
  return { ...h, book, ctx, strategy };
}

describe('join-best-bid example plugin', () => {
  it('joins the best bid post-only, once', () => {
    const { strategy, ctx, oms, book } = setup({ size: '3.00' });
    setBook(book, [['0.4100', '10']], [['0.4500', '10']]);
    strategy.onBook(book, ctx);
    strategy.onBook(book, ctx);
    expect(strategy.lastDeny).toBe(Deny.NONE);
    expect(oms.sent.map((r) => [r.side, r.price, r.count, r.postOnly])).toEqual([['bid', 4100, 300, true]]);
  });

  it('places nothing on an empty book', () => {
    const { strategy, ctx, oms, book } = setup({});
    setBook(book, [], []);
    strategy.onBook(book, ctx);
    expect(oms.sent).toHaveLength(0);
  });
});
