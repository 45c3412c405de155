/**
 * Goal: the StrategyContext is a plugin's only way to an order, and every action goes through the
 * real risk gate before the (fake) OMS sees it, with the gate's Deny code returned as a value.
 * Method: a BoundStrategyContext over a real RiskGate and real OrderBooks (fake-ports.ts); each
 * test places, cancels, amends or decreases and checks the code returned and what reached the OMS.
 */

import { describe, expect, it } from 'vitest';
import { asCount, IntentKind, parsePrice } from '../../src/core/index.ts';
import { ApplyStatus } from '../../src/book/index.ts';
import { BoundStrategyContext, Deny, OrderFlags, OrderState } from '../../src/strategy/index.ts';
import { createLogger } from '../../src/telemetry/index.ts';
import { harness, setBook } from './fake-ports.ts';

const TICKER = 'KXTEST-1';
const OTHER = 'KXTEST-2';

function setup(strategyId = 1, subaccount = 3) {
  const h = harness();
  const book = h.markets.addBook(TICKER);
  h.markets.addBook(OTHER);
  setBook(book, [['0.4000', '10']], [['0.4500', '10']]);
  const ctx = new BoundStrategyContext(
    { id: 'ctx-test', strategyId, subaccount, orderGroup: -1, markets: [TICKER], params: Object.freeze({ a: 1 }), log: createLogger({ level: 'silent' }) },
    h.oms,
    h.markets,
    h.clock,
  );
  ctx.setActive(true);
  return { ...h, book, ctx };
}

describe('StrategyContext', () => {
  it('places through the gate and the OMS, filling the intent from the binding', () => {
    const { ctx, oms } = setup();
    expect(ctx.place(TICKER, 'bid', parsePrice('0.41'), asCount(500), OrderFlags.POST_ONLY)).toBe(Deny.NONE);
    expect(ctx.lastClientOrderId).toBe('t-1');
    expect(oms.sent).toHaveLength(1);
    expect(oms.sent[0]).toMatchObject({ kind: IntentKind.NEW, ticker: TICKER, side: 'bid', price: 4100, count: 500, postOnly: true, timeInForce: 'good_till_canceled', subaccount: 3, orderGroup: -1, strategyId: 1 });
    expect(ctx.accepted[IntentKind.NEW]).toBe(1);
  });

  it('maps IOC and FOK flags to the time in force', () => {
    const { ctx, oms } = setup();
    expect(ctx.place(TICKER, 'bid', parsePrice('0.45'), asCount(100), OrderFlags.IOC)).toBe(Deny.NONE);
    expect(ctx.place(TICKER, 'ask', parsePrice('0.40'), asCount(100), OrderFlags.FOK)).toBe(Deny.NONE);
    expect(oms.sent.map((record) => record.timeInForce)).toEqual(['immediate_or_cancel', 'fill_or_kill']);
  });

  it('returns POST_ONLY_CROSS for a post-only bid at the ask and sends nothing', () => {
    const { ctx, oms } = setup();
    expect(ctx.place(TICKER, 'bid', parsePrice('0.45'), asCount(100), OrderFlags.POST_ONLY)).toBe(Deny.POST_ONLY_CROSS);
    expect(ctx.place(TICKER, 'ask', parsePrice('0.40'), asCount(100), OrderFlags.POST_ONLY)).toBe(Deny.POST_ONLY_CROSS);
    expect(oms.sent).toHaveLength(0);
    expect(ctx.denies[Deny.POST_ONLY_CROSS]).toBe(2);
    expect(ctx.lastClientOrderId).toBe('');
  });

  it('returns BOOK_NOT_SYNCED on a book that lost sequence, and accepts again after a snapshot', () => {
    const { ctx, oms, book } = setup();
    book.breakSync(ApplyStatus.SEQ_GAP);
    expect(ctx.place(TICKER, 'bid', parsePrice('0.41'), asCount(100), OrderFlags.POST_ONLY)).toBe(Deny.BOOK_NOT_SYNCED);
    expect(oms.sent).toHaveLength(0);
    setBook(book, [['0.4000', '10']], [['0.4500', '10']]);
    expect(ctx.place(TICKER, 'bid', parsePrice('0.41'), asCount(100), OrderFlags.POST_ONLY)).toBe(Deny.NONE);
  });

  it('refuses markets outside its configuration with MARKET_UNKNOWN', () => {
    const { ctx, oms } = setup();
    expect(ctx.place(OTHER, 'bid', parsePrice('0.41'), asCount(100))).toBe(Deny.MARKET_UNKNOWN);
    expect(ctx.book(OTHER)).toBeUndefined();
    expect(ctx.book(TICKER)?.ticker).toBe(TICKER);
    expect(oms.sent).toHaveLength(0);
  });

  it('returns the gate code for an off-grid price', () => {
    const { ctx } = setup();
    expect(ctx.place(TICKER, 'bid', parsePrice('0.4150'), asCount(100))).toBe(Deny.PRICE_OFF_GRID);
  });

  it('cancels, amends and decreases its own orders with the order facts filled in', () => {
    const { ctx, oms } = setup();
    ctx.place(TICKER, 'bid', parsePrice('0.41'), asCount(500), OrderFlags.POST_ONLY);
    const id = ctx.lastClientOrderId;
    oms.ack(id);
    expect(ctx.amend(id, parsePrice('0.42'), asCount(300))).toBe(Deny.NONE);
    expect(oms.sent[1]).toMatchObject({ kind: IntentKind.AMEND, clientOrderId: id, price: 4200, count: 300, postOnly: true, side: 'bid' });
    oms.ack(id);
    expect(ctx.decrease(id, asCount(100))).toBe(Deny.NONE);
    expect(oms.sent[2]).toMatchObject({ kind: IntentKind.DECREASE, clientOrderId: id, count: 100 });
    oms.ack(id);
    expect(ctx.cancel(id)).toBe(Deny.NONE);
    expect(oms.sent[3]).toMatchObject({ kind: IntentKind.CANCEL, clientOrderId: id });
    expect(oms.orders.get(id)?.state).toBe(OrderState.PENDING_CANCEL);
  });

  it('amend of a post-only order to a crossing price is denied POST_ONLY_CROSS', () => {
    const { ctx, oms } = setup();
    ctx.place(TICKER, 'bid', parsePrice('0.41'), asCount(100), OrderFlags.POST_ONLY);
    oms.ack(ctx.lastClientOrderId);
    expect(ctx.amend(ctx.lastClientOrderId, parsePrice('0.46'), asCount(100))).toBe(Deny.POST_ONLY_CROSS);
  });

  it('refuses to touch another strategy\'s order or an unknown one with ORDER_UNKNOWN', () => {
    const a = setup(1);
    a.ctx.place(TICKER, 'bid', parsePrice('0.41'), asCount(100));
    const id = a.ctx.lastClientOrderId;
    const other = new BoundStrategyContext(
      { id: 'other', strategyId: 2, subaccount: 3, orderGroup: -1, markets: [TICKER], params: {}, log: createLogger({ level: 'silent' }) },
      a.oms, a.markets, a.clock,
    );
    other.setActive(true);
    expect(other.cancel(id)).toBe(Deny.ORDER_UNKNOWN);
    expect(other.order(id)).toBeNull();
    expect(a.ctx.order(id)?.clientOrderId).toBe(id);
    expect(a.ctx.cancel('nope')).toBe(Deny.ORDER_UNKNOWN);
  });

  it('lists and cancels only its own open orders', () => {
    const { ctx, oms } = setup();
    ctx.place(TICKER, 'bid', parsePrice('0.41'), asCount(100));
    ctx.place(TICKER, 'bid', parsePrice('0.39'), asCount(100));
    oms.ackAll();
    const out: never[] = [];
    expect(ctx.openOrders(TICKER, out)).toBe(2);
    expect(ctx.openOrders(OTHER, out)).toBe(0);
    expect(ctx.cancelAll(null)).toBe(2);
  });

  it('refuses every action once inactive with TRADING_HALTED', () => {
    const { ctx, oms } = setup();
    ctx.place(TICKER, 'bid', parsePrice('0.41'), asCount(100));
    const id = ctx.lastClientOrderId;
    oms.ack(id);
    ctx.setActive(false);
    expect(ctx.place(TICKER, 'bid', parsePrice('0.41'), asCount(100))).toBe(Deny.TRADING_HALTED);
    expect(ctx.cancel(id)).toBe(Deny.TRADING_HALTED);
    // The host can still take the orders down.
    expect(ctx.cancelAllForShutdown()).toBe(1);
  });

  it('reports positions of its subaccount and exposes params and the clock', () => {
    const { ctx, oms, clock } = setup();
    oms.setPosition(3, TICKER, -700);
    expect(ctx.position(TICKER)).toBe(-700);
    expect(ctx.params).toEqual({ a: 1 });
    expect(ctx.nowMs()).toBe(clock.nowMs());
  });
});
