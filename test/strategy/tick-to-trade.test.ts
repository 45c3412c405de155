/**
 * Goal: the bench strategy (strategies/tick-to-trade.ts) sends exactly one intent per book update
 * while its order is idle: a post-only bid offsetTicks under the touch, then amends alternating
 * between two adjacent levels; nothing while a request is in flight.
 * Method: the plugin over a BoundStrategyContext with the real RiskGate and a fake OMS that acks
 * when the test says so.
 */

import { describe, expect, it } from 'vitest';
import { BoundStrategyContext, validateParams } from '../../src/strategy/index.ts';
import { createLogger } from '../../src/telemetry/index.ts';
import plugin, { TickToTrade } from '../../strategies/tick-to-trade.ts';
import { harness, setBook } from './fake-ports.ts';
import { IntentKind, ORDER_STATE_HELD } from '../../src/core/index.ts';

const TICKER = 'KXT2T-1';

/** The plugin with `params` on one market whose book is 0.40 / 0.45, bound to a fake OMS through a real strategy context. */
function started(strategyParams: Record<string, unknown>) {
  const h = harness();
  const book = h.markets.addBook(TICKER);
  setBook(book, [['0.4000', '10']], [['0.4500', '10']]);
  const params = validateParams({ id: 't2t', plugin: 'strategies/tick-to-trade.ts', subaccount: 0, orderGroup: null, markets: [TICKER], params: strategyParams }, plugin);
  const strategy = plugin.create(params) as TickToTrade;
  const ctx = new BoundStrategyContext({ id: 't2t', strategyId: 1, subaccount: 0, orderGroup: -1, markets: [TICKER], params: params as unknown as Record<string, unknown>, log: createLogger({ level: 'silent' }) }, h.oms, h.markets, h.clock);
  ctx.setActive(true);
  return { h, book, strategy, ctx };
}

describe('tick-to-trade plugin', () => {
  it('amend mode: places once, then amends between two far levels on each update, skipping while pending', () => {
    const { h, book, strategy, ctx } = started({ mode: 'amend', trigger: 'every', offsetTicks: 10, maxIntents: 5 });

    strategy.onBook(book, ctx);
    expect(h.oms.sent.map((r) => [r.kind, r.price, r.postOnly])).toEqual([[IntentKind.NEW, 3000, true]]);
    strategy.onBook(book, ctx); // create in flight
    expect(strategy.skipped).toBe(1);
    for (let i = 0; i < 10; i++) {
      h.oms.ackAll();
      strategy.onBook(book, ctx);
    }
    const prices = h.oms.sent.map((r) => r.price);
    expect(h.oms.sent).toHaveLength(5); // bounded by maxIntents
    expect(h.oms.sent.slice(1).every((r) => r.kind === IntentKind.AMEND)).toBe(true);
    for (let i = 1; i < prices.length; i++) {
      expect(prices[i]).not.toBe(prices[i - 1]);
      expect(prices[i] <= 3000 && prices[i] >= 2900).toBe(true);
    }
    expect(strategy.intents).toBe(5);
    expect(strategy.denied).toBe(0);
  });

  it('replace mode: places a new bid on every update and cancels the previous one once the new one is acknowledged', () => {
    const { h, book, strategy, ctx } = started({ trigger: 'every', offsetTicks: 10, maxIntents: 3 });
    for (let i = 0; i < 5; i++) {
      strategy.onBook(book, ctx);
      const newest = h.oms.sent.filter((r) => r.kind === IntentKind.NEW).at(-1)!.clientOrderId;
      h.oms.ackAll();
      strategy.onOrderUpdate?.(h.oms.orders.get(newest)!, ctx);
      h.oms.ackAll();
    }
    expect(h.oms.sent.map((r) => [r.kind, r.price])).toEqual([
      [IntentKind.NEW, 3000],
      [IntentKind.NEW, 2900],
      [IntentKind.CANCEL, 3000],
      [IntentKind.NEW, 3000],
      [IntentKind.CANCEL, 2900],
    ]);
    expect(strategy.intents).toBe(3);
    expect(h.oms.live(1)).toHaveLength(1);
  });

  it('replace mode: a book update that sees the newest bid acknowledged before its onOrderUpdate still has the previous bid cancelled', () => {
    // Under load a user_order message and a book delta arrive in one read: the OMS applies the ack
    // at once but tells the strategy a microtask later, after onBook has run on the delta.
    const { h, book, strategy, ctx } = started({ trigger: 'every', offsetTicks: 10 });
    const newest = (): string => h.oms.sent.filter((r) => r.kind === IntentKind.NEW).at(-1)!.clientOrderId;
    const late: string[] = [];
    for (let i = 0; i < 20; i++) {
      strategy.onBook(book, ctx);
      h.oms.ackAll(); // the create (and any cancel) is applied...
      late.push(newest());
      if (i % 2 === 1) {
        // ...and its update comes after the next book update, not before it.
        for (const id of late.splice(0)) strategy.onOrderUpdate?.(h.oms.orders.get(id)!, ctx);
      }
      h.oms.ackAll();
    }
    for (const id of late.splice(0)) strategy.onOrderUpdate?.(h.oms.orders.get(id)!, ctx);
    h.oms.ackAll();
    expect(strategy.denied).toBe(0);
    expect(h.oms.live(1).length).toBeLessThanOrEqual(2);
  });

  it('replace mode: sends nothing while its newest create is held by the router for the write budget', () => {
    const { h, book, strategy, ctx } = started({ trigger: 'every', offsetTicks: 10 });
    strategy.onBook(book, ctx);
    const first = h.oms.sent[0]!.clientOrderId;
    h.oms.ack(first);
    strategy.onOrderUpdate?.(h.oms.orders.get(first)!, ctx);
    strategy.onBook(book, ctx); // the second create: held (the router's state HELD, not pending)
    const second = h.oms.orders.get(h.oms.sent[1]!.clientOrderId)!;
    second.state = ORDER_STATE_HELD;
    for (let i = 0; i < 5; i++) strategy.onBook(book, ctx);
    expect(h.oms.sent.map((r) => r.kind)).toEqual([IntentKind.NEW, IntentKind.NEW]);
    expect(strategy.skipped).toBe(5);
    // Released and acknowledged: the first bid is cancelled, and placing resumes.
    second.state = 0; // PENDING_NEW
    h.oms.ack(second.clientOrderId);
    strategy.onOrderUpdate?.(second, ctx);
    expect(h.oms.sent.map((r) => [r.kind, r.clientOrderId])).toEqual([[IntentKind.NEW, first], [IntentKind.NEW, second.clientOrderId], [IntentKind.CANCEL, first]]);
  });

  it('touch trigger (default): an update that leaves the best bid and ask where they were sends nothing', () => {
    const { h, book, strategy, ctx } = started({ mode: 'amend', offsetTicks: 10 });

    strategy.onBook(book, ctx);
    h.oms.ackAll();
    strategy.onBook(book, ctx); // same touch: our own order's update, say
    strategy.onBook(book, ctx);
    expect(h.oms.sent).toHaveLength(1);
    setBook(book, [['0.4100', '10']], [['0.4500', '10']]); // the best bid moves up a cent
    strategy.onBook(book, ctx);
    expect(h.oms.sent.map((r) => r.kind)).toEqual([IntentKind.NEW, IntentKind.AMEND]);
    // 10 ticks under the new best bid, or the level beside it: never the resting price.
    expect([3000, 3100]).toContain(h.oms.sent[1]!.price);
    expect(h.oms.sent[1]!.price).not.toBe(h.oms.sent[0]!.price);
    setBook(book, [['0.4100', '10']], [['0.4400', '10']]); // the best ask moves down
    h.oms.ackAll();
    strategy.onBook(book, ctx);
    expect(h.oms.sent).toHaveLength(3);
    expect(strategy.intents).toBe(3);
  });
});
