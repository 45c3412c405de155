/**
 * Goal: the simulator engine matches V2 orders like the exchange: a YES bid at p crosses a NO bid
 * at >= 1 - p (a YES ask <= p), price-time priority, partial fills, IOC/FOK, post-only (cancel
 * and the 400 switch), both self-trade-prevention modes, amend and decrease, reduce-only,
 * client_order_id uniqueness, price validation on the market's grid, balances, positions with
 * netting, fees, pagination, regrid and the order of emitted events.
 * Method: small scripted scenarios on an in-process engine with a manual clock and three funded
 * users; assertions read the engine's records and the events a recording listener captured.
 */

import { describe, expect, it } from 'vitest';
import type { Count, Price } from '../../../src/core/index.ts';
import { isSimError } from '../../../src/sim/engine/index.ts';
import type { Order, SimEngine, UpdateReason } from '../../../src/sim/engine/index.ts';
import { DECI, LINEAR, SHARD2, START_MS, UNOPENED, contracts, dollars, makeEngine, ok, order, price } from './fixtures.ts';

function record(engine: SimEngine): string[] {
  const log: string[] = [];
  engine.subscribe({
    onBookDelta: (_m, side, p: Price, delta: Count, o: Order, reason: UpdateReason) => log.push(`delta ${side} ${p} ${delta} ${o.userId} ${reason}`),
    onTrade: (_m, t) => log.push(`trade ${t.price} ${t.count} ${t.takerSide}`),
    onFill: (user, f) => log.push(`fill ${user} ${f.count} ${f.isTaker ? 'taker' : 'maker'}`),
    onUserOrder: (user, o) => log.push(`order ${user} ${o.status} ${o.remainingCount} ${o.lastUpdateReason}`),
    onPosition: (user, p) => log.push(`position ${user} ${p.position}`),
    onOrderGroup: (user, e) => log.push(`group ${user} ${e.eventType}`),
    onMarketLifecycle: (e) => log.push(`lifecycle ${e.market.ticker} ${e.eventType}`),
  });
  return log;
}

function balance(engine: SimEngine, user: string, exchangeIndex = 0): number {
  const view = engine.getBalance(user, { subaccount: 0, exchangeIndex });
  if (isSimError(view)) throw new Error(view.message);
  return view.balance;
}

describe('crossing and priority', () => {
  it('a YES bid at p crosses a NO bid at 1 - p (an ask at p), not one below', () => {
    const { engine } = makeEngine();
    ok(engine.createOrder('a', order(LINEAR, 'ask', '0.60', '10'))); // NO bid at 0.40
    const miss = ok(engine.createOrder('b', order(LINEAR, 'bid', '0.59', '5')));
    expect(miss.fillCount).toBe(0);
    expect(miss.order.status).toBe('resting');
    const hit = ok(engine.createOrder('c', order(LINEAR, 'bid', '0.60', '4')));
    expect(hit.fillCount).toBe(contracts('4'));
    expect(hit.order.status).toBe('executed');
    expect(hit.averageFillPrice).toBe(price('0.60'));
    const book = engine.orderbook(LINEAR);
    if (isSimError(book)) throw new Error('book');
    expect(book.yes).toEqual([[price('0.59'), contracts('5')]]);
    expect(book.no).toEqual([[price('0.40'), contracts('6')]]);
  });

  it('the taker gets the maker price and better levels fill first', () => {
    const { engine } = makeEngine();
    ok(engine.createOrder('a', order(LINEAR, 'ask', '0.55', '2')));
    ok(engine.createOrder('a', order(LINEAR, 'ask', '0.53', '2')));
    const taker = ok(engine.createOrder('b', order(LINEAR, 'bid', '0.56', '3', { timeInForce: 'immediate_or_cancel' })));
    const fills = engine.listFills('b', {});
    if (isSimError(fills)) throw new Error('fills');
    expect(fills.items.map((f) => [f.price, f.count])).toEqual([
      [price('0.55'), contracts('1')],
      [price('0.53'), contracts('2')],
    ]); // newest first
    expect(taker.fillCount).toBe(contracts('3'));
    expect(taker.averageFillPrice).toBe(Math.round((5300 * 200 + 5500 * 100) / 300));
    expect(fills.items.every((f) => f.orderId === taker.order.orderId)).toBe(true);
    expect(new Set(fills.items.map((f) => f.fillId)).size).toBe(2);
    const makerFills = engine.listFills('a', {});
    if (isSimError(makerFills)) throw new Error('fills');
    expect(makerFills.items.map((f) => f.fillId).sort()).toEqual(fills.items.map((f) => f.fillId).sort());
  });

  it('orders at one price fill in time order and queue positions count contracts ahead', () => {
    const { engine } = makeEngine();
    const first = ok(engine.createOrder('a', order(LINEAR, 'bid', '0.40', '3')));
    const second = ok(engine.createOrder('b', order(LINEAR, 'bid', '0.40', '5')));
    const q = engine.queuePosition('b', second.order.orderId);
    if (isSimError(q)) throw new Error('queue');
    expect(q.queuePosition).toBe(contracts('3'));
    ok(engine.createOrder('c', order(LINEAR, 'ask', '0.40', '4')));
    expect(first.order.status).toBe('executed');
    expect(second.order.remainingCount).toBe(contracts('4'));
    expect(second.order.fillCount).toBe(contracts('1'));
    const q2 = engine.queuePosition('b', second.order.orderId);
    if (isSimError(q2)) throw new Error('queue');
    expect(q2.queuePosition).toBe(0);
  });

  it('emits book deltas, trade and fills before the taker order update', () => {
    const { engine } = makeEngine();
    ok(engine.createOrder('a', order(LINEAR, 'ask', '0.52', '10')));
    const log = record(engine);
    ok(engine.createOrder('b', order(LINEAR, 'bid', '0.53', '4')));
    expect(log).toEqual([
      'delta no 4800 -400 a Trade',
      'trade 5200 400 bid',
      'fill a 400 maker',
      'position a -400',
      'order a resting 600 Trade',
      'fill b 400 taker',
      'position b 400',
      'order b executed 0 Trade',
    ]);
  });

  it('a partly filled GTC taker rests its remainder at its own price', () => {
    const { engine } = makeEngine();
    ok(engine.createOrder('a', order(LINEAR, 'ask', '0.52', '1')));
    const log = record(engine);
    const taker = ok(engine.createOrder('b', order(LINEAR, 'bid', '0.53', '4')));
    expect(taker.fillCount).toBe(contracts('1'));
    expect(taker.remainingCount).toBe(contracts('3'));
    expect(taker.order.status).toBe('resting');
    expect(log).toContain('delta yes 5300 300 b ');
    expect(log[log.length - 1]).toBe('order b resting 300 Trade');
  });
});

describe('time in force', () => {
  it('IOC fills what it can and cancels the rest', () => {
    const { engine } = makeEngine();
    ok(engine.createOrder('a', order(LINEAR, 'ask', '0.50', '2')));
    const r = ok(engine.createOrder('b', order(LINEAR, 'bid', '0.50', '5', { timeInForce: 'immediate_or_cancel' })));
    expect(r.fillCount).toBe(contracts('2'));
    expect(r.remainingCount).toBe(0);
    expect(r.order.status).toBe('canceled');
    const empty = ok(engine.createOrder('b', order(LINEAR, 'bid', '0.50', '5', { timeInForce: 'immediate_or_cancel' })));
    expect(empty.fillCount).toBe(0);
    expect(empty.order.status).toBe('canceled');
    const book = engine.orderbook(LINEAR);
    if (isSimError(book)) throw new Error('book');
    expect(book.yes).toEqual([]);
  });

  it('FOK fills completely or not at all', () => {
    const { engine } = makeEngine();
    ok(engine.createOrder('a', order(LINEAR, 'ask', '0.50', '2')));
    ok(engine.createOrder('a', order(LINEAR, 'ask', '0.51', '2')));
    const killed = ok(engine.createOrder('b', order(LINEAR, 'bid', '0.51', '5', { timeInForce: 'fill_or_kill' })));
    expect(killed.fillCount).toBe(0);
    expect(killed.order.status).toBe('canceled');
    expect(killed.order.lastUpdateReason).toBe('FillOrKillCancel');
    const filled = ok(engine.createOrder('b', order(LINEAR, 'bid', '0.51', '4', { timeInForce: 'fill_or_kill' })));
    expect(filled.fillCount).toBe(contracts('4'));
    expect(filled.order.status).toBe('executed');
  });

  it('GTC with expiration_time is cancelled once the clock passes it', () => {
    const { engine, clock } = makeEngine();
    const r = ok(engine.createOrder('a', order(LINEAR, 'bid', '0.30', '1', { expirationTs: START_MS / 1000 + 60 })));
    const log = record(engine);
    clock.ms += 59_000;
    expect(engine.expireOrders()).toBe(0);
    clock.ms += 1_000;
    const again = engine.getOrder('a', r.order.orderId);
    if (isSimError(again)) throw new Error('order');
    expect(again.status).toBe('canceled');
    expect(again.lastUpdateReason).toBe('ExpiryCancel');
    expect(log).toEqual(['delta yes 3000 -100 a ExpiryCancel', 'order a canceled 0 ExpiryCancel']);
  });

  it('rejects expiration_time with IOC and in the past', () => {
    const { engine } = makeEngine();
    const ioc = engine.createOrder('a', order(LINEAR, 'bid', '0.30', '1', { timeInForce: 'immediate_or_cancel', expirationTs: START_MS / 1000 + 60 }));
    expect(isSimError(ioc) && ioc.code).toBe('invalid_order');
    const past = engine.createOrder('a', order(LINEAR, 'bid', '0.30', '1', { expirationTs: START_MS / 1000 - 1 }));
    expect(isSimError(past) && past.status).toBe(400);
  });
});

describe('post-only', () => {
  it('a crossing post-only order is cancelled with PostOnlyCrossCancel', () => {
    const { engine } = makeEngine();
    ok(engine.createOrder('a', order(LINEAR, 'ask', '0.50', '2')));
    const r = ok(engine.createOrder('b', order(LINEAR, 'bid', '0.50', '1', { postOnly: true })));
    expect(r.fillCount).toBe(0);
    expect(r.remainingCount).toBe(0);
    expect(r.order.status).toBe('canceled');
    expect(r.order.lastUpdateReason).toBe('PostOnlyCrossCancel');
    const rests = ok(engine.createOrder('b', order(LINEAR, 'bid', '0.49', '1', { postOnly: true })));
    expect(rests.order.status).toBe('resting');
  });

  it('with postOnlyCrossReject400 the order is rejected 400 invalid_order "post only cross"', () => {
    const { engine } = makeEngine({ postOnlyCrossReject400: true });
    ok(engine.createOrder('a', order(LINEAR, 'ask', '0.50', '2')));
    const r = engine.createOrder('b', order(LINEAR, 'bid', '0.55', '1', { postOnly: true, clientOrderId: 'po-1' }));
    expect(isSimError(r) && [r.status, r.code, r.details]).toEqual([400, 'invalid_order', 'post only cross']);
    // A rejected order never took its client_order_id.
    ok(engine.createOrder('b', order(LINEAR, 'bid', '0.45', '1', { postOnly: true, clientOrderId: 'po-1' })));
  });
});

describe('self-trade prevention', () => {
  it('taker_at_cross cancels the taker; fills already matched stand; the resting order stays', () => {
    const { engine } = makeEngine();
    ok(engine.createOrder('b', order(LINEAR, 'ask', '0.50', '1')));
    const own = ok(engine.createOrder('a', order(LINEAR, 'ask', '0.51', '3')));
    const r = ok(engine.createOrder('a', order(LINEAR, 'bid', '0.52', '5')));
    expect(r.fillCount).toBe(contracts('1'));
    expect(r.remainingCount).toBe(0);
    expect(r.order.status).toBe('canceled');
    expect(r.order.lastUpdateReason).toBe('SelfTradeCancel');
    expect(own.order.status).toBe('resting');
    expect(own.order.remainingCount).toBe(contracts('3'));
  });

  it('maker cancels the resting own order and keeps matching', () => {
    const { engine } = makeEngine();
    const own = ok(engine.createOrder('a', order(LINEAR, 'ask', '0.50', '3')));
    ok(engine.createOrder('b', order(LINEAR, 'ask', '0.51', '2')));
    const log = record(engine);
    const r = ok(engine.createOrder('a', order(LINEAR, 'bid', '0.52', '2', { selfTradePrevention: 'maker' })));
    expect(own.order.status).toBe('canceled');
    expect(own.order.lastUpdateReason).toBe('SelfTradeCancel');
    expect(r.fillCount).toBe(contracts('2'));
    expect(r.order.status).toBe('executed');
    expect(log[0]).toBe('delta no 5000 -300 a SelfTradeCancel');
    expect(log[1]).toBe('order a canceled 0 SelfTradeCancel');
  });
});

describe('amend and decrease', () => {
  it('a size decrease at the same price keeps priority; a price change loses it', () => {
    const { engine } = makeEngine();
    const first = ok(engine.createOrder('a', order(LINEAR, 'bid', '0.40', '5')));
    const second = ok(engine.createOrder('b', order(LINEAR, 'bid', '0.40', '5')));
    const smaller = engine.amendOrder('a', first.order.orderId, { ticker: LINEAR, side: 'bid', price: price('0.40'), count: contracts('3') });
    if (isSimError(smaller)) throw new Error(smaller.message);
    expect(smaller.sizeChangedOrFilled).toBe(true);
    expect(smaller.remainingCount).toBe(contracts('3'));
    const q = engine.queuePosition('b', second.order.orderId);
    expect(!isSimError(q) && q.queuePosition).toBe(contracts('3'));
    // Price away and back: now behind b.
    engine.amendOrder('a', first.order.orderId, { ticker: LINEAR, side: 'bid', price: price('0.39'), count: contracts('3') });
    engine.amendOrder('a', first.order.orderId, { ticker: LINEAR, side: 'bid', price: price('0.40'), count: contracts('3') });
    const qa = engine.queuePosition('a', first.order.orderId);
    expect(!isSimError(qa) && qa.queuePosition).toBe(contracts('5'));
  });

  it('a size increase loses priority', () => {
    const { engine } = makeEngine();
    const first = ok(engine.createOrder('a', order(LINEAR, 'bid', '0.40', '1')));
    ok(engine.createOrder('b', order(LINEAR, 'bid', '0.40', '2')));
    engine.amendOrder('a', first.order.orderId, { ticker: LINEAR, side: 'bid', price: price('0.40'), count: contracts('4') });
    const q = engine.queuePosition('a', first.order.orderId);
    expect(!isSimError(q) && q.queuePosition).toBe(contracts('2'));
  });

  it('an amend that crosses fills at once; remaining_count is after fills, fill_count counts the amend', () => {
    const { engine } = makeEngine();
    const mine = ok(engine.createOrder('a', order(LINEAR, 'bid', '0.40', '5')));
    ok(engine.createOrder('b', order(LINEAR, 'ask', '0.45', '2')));
    // a already has 0 filled; new total 5 at 0.45: 2 fill now, 3 rest.
    const amended = engine.amendOrder('a', mine.order.orderId, { ticker: LINEAR, side: 'bid', price: price('0.45'), count: contracts('5') });
    if (isSimError(amended)) throw new Error(amended.message);
    expect(amended.fillCount).toBe(contracts('2'));
    expect(amended.remainingCount).toBe(contracts('3'));
    expect(amended.order.fillCount).toBe(contracts('2'));
    expect(amended.order.status).toBe('resting');
    // New total = filled (2) + desired remaining (1).
    const again = engine.amendOrder('a', mine.order.orderId, { ticker: LINEAR, side: 'bid', price: price('0.45'), count: contracts('3') });
    if (isSimError(again)) throw new Error(again.message);
    expect(again.remainingCount).toBe(contracts('1'));
    expect(again.fillCount).toBe(0);
    const tooSmall = engine.amendOrder('a', mine.order.orderId, { ticker: LINEAR, side: 'bid', price: price('0.45'), count: contracts('2') });
    expect(isSimError(tooSmall) && tooSmall.code).toBe('invalid_order');
  });

  it('amend checks ticker, side and grid and can rename the client order id', () => {
    const { engine } = makeEngine();
    const mine = ok(engine.createOrder('a', order(LINEAR, 'bid', '0.40', '5', { clientOrderId: 'amend-old' })));
    const wrongSide = engine.amendOrder('a', mine.order.orderId, { ticker: LINEAR, side: 'ask', price: price('0.40'), count: contracts('5') });
    expect(isSimError(wrongSide) && wrongSide.code).toBe('invalid_order');
    const offGrid = engine.amendOrder('a', mine.order.orderId, { ticker: LINEAR, side: 'bid', price: price('0.405'), count: contracts('5') });
    expect(isSimError(offGrid) && offGrid.code).toBe('invalid_price');
    const renamed = engine.amendOrder('a', mine.order.orderId, { ticker: LINEAR, side: 'bid', price: price('0.40'), count: contracts('5'), updatedClientOrderId: 'amend-new' });
    expect(!isSimError(renamed) && renamed.order.clientOrderId).toBe('amend-new');
    expect(!isSimError(renamed) && renamed.sizeChangedOrFilled).toBe(false);
    const reuse = engine.createOrder('a', order(LINEAR, 'bid', '0.30', '1', { clientOrderId: 'amend-old' }));
    expect(isSimError(reuse) && reuse.status).toBe(409);
  });

  it('decrease takes exactly one of reduce_by / reduce_to and keeps priority', () => {
    const { engine } = makeEngine();
    const mine = ok(engine.createOrder('a', order(LINEAR, 'bid', '0.40', '10')));
    const other = ok(engine.createOrder('b', order(LINEAR, 'bid', '0.40', '1')));
    const neither = engine.decreaseOrder('a', mine.order.orderId, {});
    expect(isSimError(neither) && neither.status).toBe(400);
    const both = engine.decreaseOrder('a', mine.order.orderId, { reduceBy: contracts('1'), reduceTo: contracts('5') });
    expect(isSimError(both) && both.status).toBe(400);
    const by = engine.decreaseOrder('a', mine.order.orderId, { reduceBy: contracts('3') });
    expect(!isSimError(by) && by.remainingCount).toBe(contracts('7'));
    const to = engine.decreaseOrder('a', mine.order.orderId, { reduceTo: contracts('2') });
    expect(!isSimError(to) && to.remainingCount).toBe(contracts('2'));
    const q = engine.queuePosition('b', other.order.orderId);
    expect(!isSimError(q) && q.queuePosition).toBe(contracts('2'));
    const zero = engine.decreaseOrder('a', mine.order.orderId, { reduceTo: 0 as Count });
    expect(!isSimError(zero) && zero.order.status).toBe('canceled');
    const gone = engine.decreaseOrder('a', mine.order.orderId, { reduceBy: contracts('1') });
    expect(isSimError(gone) && gone.status).toBe(404);
  });

  it('cancel returns reduced_by, then 404 not_found', () => {
    const { engine } = makeEngine();
    const mine = ok(engine.createOrder('a', order(LINEAR, 'bid', '0.40', '2.50')));
    const cancelled = engine.cancelOrder('a', mine.order.orderId);
    expect(!isSimError(cancelled) && cancelled.reducedBy).toBe(contracts('2.50'));
    const again = engine.cancelOrder('a', mine.order.orderId);
    expect(isSimError(again) && [again.status, again.code]).toEqual([404, 'not_found']);
    const foreign = ok(engine.createOrder('b', order(LINEAR, 'bid', '0.40', '1')));
    const stolen = engine.cancelOrder('a', foreign.order.orderId);
    expect(isSimError(stolen) && stolen.status).toBe(404);
  });

  it('batch create / cancel and cancel-all by subaccount', () => {
    const { engine } = makeEngine();
    engine.deposit('a', 5, 0, dollars(100));
    const results = engine.batchCreateOrders('a', [
      order(LINEAR, 'bid', '0.10', '1'),
      order(LINEAR, 'bid', '0.11', '1', { subaccount: 5 }),
      order(LINEAR, 'bid', '1.00', '1'),
    ]);
    expect(results.map((r) => (isSimError(r) ? r.code : r.order.status))).toEqual(['resting', 'resting', 'invalid_price']);
    const ids = results.filter((r) => !isSimError(r)).map((r) => (r as { order: Order }).order.orderId);
    const cancelled = engine.batchCancelOrders('a', [{ orderId: ids[0] }, { orderId: 'nope' }]);
    expect(cancelled.map((r) => (isSimError(r) ? r.code : 'ok'))).toEqual(['ok', 'not_found']);
    ok(engine.createOrder('a', order(LINEAR, 'bid', '0.12', '1')));
    expect(engine.cancelAllOrders('a', 5)).toBe(1);
    expect(engine.restingOrders('a').length).toBe(1);
    expect(engine.cancelAllOrders('a', null)).toBe(1);
    expect(engine.restingOrders('a').length).toBe(0);
  });
});

describe('validation', () => {
  it('client_order_id is unique per user forever, also after cancel; other users may reuse it', () => {
    const { engine } = makeEngine();
    const r = ok(engine.createOrder('a', order(LINEAR, 'bid', '0.40', '1', { clientOrderId: 'dup' })));
    const twice = engine.createOrder('a', order(LINEAR, 'bid', '0.41', '1', { clientOrderId: 'dup' }));
    expect(isSimError(twice) && [twice.status, twice.code]).toEqual([409, 'order_already_exists']);
    engine.cancelOrder('a', r.order.orderId);
    const afterCancel = engine.createOrder('a', order(LINEAR, 'bid', '0.41', '1', { clientOrderId: 'dup' }));
    expect(isSimError(afterCancel) && afterCancel.status).toBe(409);
    ok(engine.createOrder('b', order(LINEAR, 'bid', '0.41', '1', { clientOrderId: 'dup' })));
  });

  it('prices must be on the grid: off-tick, $0, $1 and out of band are invalid_price', () => {
    const { engine } = makeEngine();
    for (const text of ['0.405', '0', '1', '0.0001', '0.9999']) {
      const r = engine.createOrder('a', order(LINEAR, 'bid', text, '1'));
      expect(isSimError(r) && [r.status, r.code]).toEqual([400, 'invalid_price']);
    }
    // deci_cent accepts 0.1 cent ticks.
    ok(engine.createOrder('a', order(DECI, 'bid', '0.405', '1')));
    const finer = engine.createOrder('a', order(DECI, 'bid', '0.4055', '1'));
    expect(isSimError(finer) && finer.code).toBe('invalid_price');
  });

  it('counts must be positive multiples of 0.01', () => {
    const { engine } = makeEngine();
    const zero = engine.createOrder('a', { ...order(LINEAR, 'bid', '0.40', '1'), count: 0 as Count });
    expect(isSimError(zero) && zero.status).toBe(400);
    const fraction = engine.createOrder('a', { ...order(LINEAR, 'bid', '0.40', '1'), count: 1.5 as Count });
    expect(isSimError(fraction) && fraction.status).toBe(400);
    ok(engine.createOrder('a', order(LINEAR, 'bid', '0.40', '0.01')));
  });

  it('markets that are not active reject orders with market_closed; unknown ones with 404', () => {
    const { engine } = makeEngine();
    const r = engine.createOrder('a', order(UNOPENED, 'bid', '0.40', '1'));
    expect(isSimError(r) && [r.status, r.code]).toEqual([400, 'market_closed']);
    const unknown = engine.createOrder('a', order('NOPE-1', 'bid', '0.40', '1'));
    expect(isSimError(unknown) && unknown.status).toBe(404);
  });

  it('insufficient balance: bids reserve p x count, asks (1 - p) x count', () => {
    const { engine } = makeEngine();
    engine.addUser('poor');
    engine.deposit('poor', 0, 0, dollars(10));
    ok(engine.createOrder('poor', order(LINEAR, 'bid', '0.50', '10'))); // reserves $5
    const tooMuch = engine.createOrder('poor', order(LINEAR, 'ask', '0.40', '10')); // needs $6
    expect(isSimError(tooMuch) && [tooMuch.status, tooMuch.code]).toEqual([400, 'insufficient_balance']);
    ok(engine.createOrder('poor', order(LINEAR, 'ask', '0.60', '10'))); // needs $4
    expect(balance(engine, 'poor')).toBe(dollars(1));
    const value = engine.restingOrderValue('poor');
    expect(!isSimError(value) && value.total).toBe(dollars(9));
    const last = engine.createOrder('poor', order(LINEAR, 'bid', '0.11', '10'));
    expect(isSimError(last) && last.code).toBe('insufficient_balance');
  });

  it('exchange_index must match the market; shard 2 uses its own balance', () => {
    const { engine } = makeEngine();
    const wrong = engine.createOrder('a', order(SHARD2, 'bid', '0.40', '1', { exchangeIndex: 0 }));
    expect(isSimError(wrong) && wrong.status).toBe(400);
    const r = ok(engine.createOrder('a', order(SHARD2, 'bid', '0.40', '1', { exchangeIndex: -1 })));
    expect(r.order.exchangeIndex).toBe(2);
    expect(balance(engine, 'a', 2)).toBe(dollars(1000) - 4000);
    expect(balance(engine, 'a', 0)).toBe(dollars(1000));
  });
});

describe('money', () => {
  it('taker fee = ceil to the centicent of 0.07 C P (1-P); no maker fee on a quadratic event', () => {
    const { engine } = makeEngine();
    ok(engine.createOrder('a', order(LINEAR, 'ask', '0.52', '1')));
    ok(engine.createOrder('b', order(LINEAR, 'bid', '0.52', '1')));
    const [takerFill] = (engine.listFills('b', {}) as { items: Array<{ fee: number }> }).items;
    const [makerFill] = (engine.listFills('a', {}) as { items: Array<{ fee: number }> }).items;
    expect(takerFill.fee).toBe(175); // $0.017472 -> $0.0175
    expect(makerFill.fee).toBe(0);
    // b paid 0.52 + fee; a paid 0.48 for the NO.
    expect(balance(engine, 'b')).toBe(dollars(1000) - 5200 - 175);
    expect(balance(engine, 'a')).toBe(dollars(1000) - 4800);
  });

  it('maker fee 0.0175 on quadratic_with_maker_fees events; cent rounding as an option', () => {
    const { engine } = makeEngine({ feeRounding: 'cent' });
    ok(engine.createOrder('a', order(DECI, 'ask', '0.50', '10')));
    ok(engine.createOrder('b', order(DECI, 'bid', '0.50', '10')));
    const maker = (engine.listFills('a', {}) as { items: Array<{ fee: number }> }).items[0];
    const taker = (engine.listFills('b', {}) as { items: Array<{ fee: number }> }).items[0];
    expect(taker.fee).toBe(1800); // 0.07 x 10 x 0.25 = $0.175 -> $0.18
    expect(maker.fee).toBe(500); // 0.0175 x 10 x 0.25 = $0.04375 -> $0.05
  });

  it('netting YES against NO pays $1 per pair and realizes PnL', () => {
    const { engine } = makeEngine();
    ok(engine.createOrder('a', order(LINEAR, 'ask', '0.40', '10')));
    ok(engine.createOrder('b', order(LINEAR, 'bid', '0.40', '10'))); // b long 10 YES at 0.40
    const before = balance(engine, 'b');
    ok(engine.createOrder('c', order(LINEAR, 'bid', '0.55', '4')));
    ok(engine.createOrder('b', order(LINEAR, 'ask', '0.55', '4'))); // b sells 4 YES at 0.55 (buys NO at 0.45)
    const position = engine.getPosition('b', LINEAR);
    expect(position?.position).toBe(contracts('6'));
    expect(position?.positionCost).toBe(24_000); // 6 x $0.40
    expect(position?.realizedPnl).toBe(6_000); // 4 x ($0.55 - $0.40)
    const fee = (engine.listFills('b', { limit: 1 }) as { items: Array<{ fee: number }> }).items[0].fee;
    expect(balance(engine, 'b')).toBe(before + 4 * 5500 - fee);
    // Flip through zero: sell 10 more at 0.50 -> short 4 (long 4 NO at 0.50).
    ok(engine.createOrder('c', order(LINEAR, 'bid', '0.50', '10')));
    ok(engine.createOrder('b', order(LINEAR, 'ask', '0.50', '10')));
    expect(engine.getPosition('b', LINEAR)?.position).toBe(-contracts('4'));
    expect(engine.getPosition('b', LINEAR)?.positionCost).toBe(20_000);
    const market = engine.getMarket(LINEAR);
    expect(market?.openInterest).toBe(contracts('14')); // c holds 14 YES
  });

  it('settlement pays winners $1 per contract', () => {
    const { engine } = makeEngine();
    ok(engine.createOrder('a', order(LINEAR, 'ask', '0.30', '10')));
    ok(engine.createOrder('b', order(LINEAR, 'bid', '0.30', '10')));
    const a0 = balance(engine, 'a');
    const b0 = balance(engine, 'b');
    const log = record(engine);
    expect(engine.settleMarket(LINEAR, 'yes')).toBeNull();
    expect(balance(engine, 'b')).toBe(b0 + dollars(10));
    expect(balance(engine, 'a')).toBe(a0);
    expect(engine.getPosition('b', LINEAR)?.realizedPnl).toBe(dollars(10) - 30_000);
    expect(log.filter((l) => l.startsWith('lifecycle'))).toEqual([`lifecycle ${LINEAR} determined`, `lifecycle ${LINEAR} settled`]);
  });

  it('reduce_only caps the count at the position and rejects orders that would not reduce', () => {
    const { engine } = makeEngine();
    const none = engine.createOrder('b', order(LINEAR, 'ask', '0.40', '1', { reduceOnly: true }));
    expect(isSimError(none) && none.code).toBe('invalid_order');
    ok(engine.createOrder('a', order(LINEAR, 'ask', '0.40', '3')));
    ok(engine.createOrder('b', order(LINEAR, 'bid', '0.40', '3')));
    const capped = ok(engine.createOrder('b', order(LINEAR, 'ask', '0.45', '10', { reduceOnly: true })));
    expect(capped.order.initialCount).toBe(contracts('3'));
    const wrongWay = engine.createOrder('b', order(LINEAR, 'bid', '0.45', '1', { reduceOnly: true }));
    expect(isSimError(wrongWay)).toBe(true);
  });

  it('balance: explicit subaccount vs aggregate, exchange_index scope and breakdown', () => {
    const { engine } = makeEngine();
    engine.deposit('a', 3, 0, dollars(7));
    const all = engine.getBalance('a', {});
    const sub3 = engine.getBalance('a', { subaccount: 3 });
    const shard2 = engine.getBalance('a', { exchangeIndex: 2 });
    if (isSimError(all) || isSimError(sub3) || isSimError(shard2)) throw new Error('balance');
    expect(all.balance).toBe(dollars(2007));
    expect(sub3.balance).toBe(dollars(7));
    expect(shard2.balance).toBe(dollars(1000));
    expect(all.breakdown.map((b) => b.exchangeIndex)).toEqual([0, 2, 3]);
    const subs = engine.listSubaccountBalances('a');
    expect(!isSimError(subs) && subs.filter((s) => s.subaccount === 3 && s.exchangeIndex === 0)[0].balance).toBe(dollars(7));
  });
});

describe('queries', () => {
  it('orders paginate newest first with opaque cursors and "" on the last page, filters apply', () => {
    const { engine, clock } = makeEngine();
    const ids: string[] = [];
    for (let i = 0; i < 7; i++) {
      clock.ms += 1000;
      ids.push(ok(engine.createOrder('a', order(LINEAR, 'bid', `0.${10 + i}`, '1'))).order.orderId);
    }
    engine.cancelOrder('a', ids[0]);
    const seen: string[] = [];
    let cursor: string | undefined;
    for (let page = 0; page < 10; page++) {
      const result = engine.listOrders('a', { limit: 3, cursor });
      if (isSimError(result)) throw new Error('list');
      seen.push(...result.items.map((o) => o.orderId));
      if (result.cursor === '') break;
      cursor = result.cursor;
    }
    expect(seen).toEqual([...ids].reverse());
    const resting = engine.listOrders('a', { status: 'resting' });
    expect(!isSimError(resting) && resting.items.length).toBe(6);
    const window = engine.listOrders('a', { minTs: START_MS / 1000 + 3, maxTs: START_MS / 1000 + 4 });
    expect(!isSimError(window) && window.items.map((o) => o.orderId)).toEqual([ids[3], ids[2]]);
    const tooBig = engine.listOrders('a', { limit: 5000 });
    expect(isSimError(tooBig) && tooBig.status).toBe(400);
    const garbage = engine.listOrders('a', { cursor: '%%%' });
    expect(!isSimError(garbage) && garbage.items.length).toBe(7);
  });

  it('positions and fills paginate; markets list with status filters', () => {
    const { engine } = makeEngine();
    ok(engine.createOrder('a', order(LINEAR, 'ask', '0.40', '1')));
    ok(engine.createOrder('b', order(LINEAR, 'bid', '0.40', '1')));
    ok(engine.createOrder('a', order(SHARD2, 'ask', '0.40', '1')));
    ok(engine.createOrder('b', order(SHARD2, 'bid', '0.40', '1')));
    const first = engine.listPositions('b', { limit: 1 });
    if (isSimError(first)) throw new Error('positions');
    expect(first.marketPositions.map((p) => p.ticker)).toEqual([LINEAR]);
    expect(first.cursor).not.toBe('');
    const second = engine.listPositions('b', { limit: 1, cursor: first.cursor });
    if (isSimError(second)) throw new Error('positions');
    expect(second.marketPositions.map((p) => p.ticker)).toEqual([SHARD2]);
    expect(second.cursor).toBe('');
    const shard = engine.listPositions('b', { exchangeIndex: 2 });
    expect(!isSimError(shard) && shard.marketPositions.length).toBe(1);
    const open = engine.listMarkets({ status: 'open' });
    expect(!isSimError(open) && open.items.length).toBe(3);
    const unopened = engine.listMarkets({ status: 'unopened' });
    expect(!isSimError(unopened) && unopened.items.map((m) => m.ticker)).toEqual([UNOPENED]);
    const trades = engine.listTrades({ ticker: LINEAR });
    expect(!isSimError(trades) && trades.items.length).toBe(1);
  });

  it('orderbook levels ascend per side; depth keeps the best levels', () => {
    const { engine } = makeEngine();
    ok(engine.createOrder('a', order(LINEAR, 'bid', '0.40', '1')));
    ok(engine.createOrder('a', order(LINEAR, 'bid', '0.42', '2')));
    ok(engine.createOrder('a', order(LINEAR, 'bid', '0.41', '3')));
    ok(engine.createOrder('b', order(LINEAR, 'ask', '0.45', '4'))); // NO 0.55
    ok(engine.createOrder('b', order(LINEAR, 'ask', '0.47', '5'))); // NO 0.53
    const full = engine.orderbook(LINEAR);
    if (isSimError(full)) throw new Error('book');
    expect(full.yes).toEqual([[4000, 100], [4100, 300], [4200, 200]]);
    expect(full.no).toEqual([[5300, 500], [5500, 400]]);
    const top = engine.orderbook(LINEAR, 1);
    if (isSimError(top)) throw new Error('book');
    expect(top.yes).toEqual([[4200, 200]]);
    expect(top.no).toEqual([[5500, 400]]);
  });

  it('exchange status lists indexes 0, 2, 3; pausing trading on a shard rejects its orders', () => {
    const { engine } = makeEngine();
    expect(engine.exchangeStatus().exchangeIndexStatuses.map((s) => s.exchangeIndex)).toEqual([0, 2, 3]);
    engine.setExchangeIndexStatus(2, { tradingActive: false });
    const r = engine.createOrder('a', order(SHARD2, 'bid', '0.40', '1'));
    expect(isSimError(r) && r.code).toBe('trading_paused');
    ok(engine.createOrder('a', order(LINEAR, 'bid', '0.40', '1')));
  });
});

describe('market operations', () => {
  it('regrid to a finer grid keeps resting orders and their priority, then accepts finer prices', () => {
    const { engine } = makeEngine();
    const first = ok(engine.createOrder('a', order(LINEAR, 'bid', '0.40', '1')));
    const second = ok(engine.createOrder('b', order(LINEAR, 'bid', '0.40', '2')));
    ok(engine.createOrder('b', order(LINEAR, 'ask', '0.60', '1')));
    const log = record(engine);
    expect(engine.setPriceLevelStructure(LINEAR, 'deci_cent')).toBeNull();
    expect(log).toEqual([`lifecycle ${LINEAR} price_level_structure_updated`]);
    const q = engine.queuePosition('b', second.order.orderId);
    expect(!isSimError(q) && q.queuePosition).toBe(contracts('1'));
    ok(engine.createOrder('c', order(LINEAR, 'bid', '0.405', '1')));
    const book = engine.orderbook(LINEAR);
    if (isSimError(book)) throw new Error('book');
    expect(book.yes).toEqual([[4000, 300], [4050, 100]]);
    expect(book.no).toEqual([[4000, 100]]);
    engine.addUser('d');
    engine.deposit('d', 0, 0, dollars(10));
    ok(engine.createOrder('d', order(LINEAR, 'ask', '0.40', '2')));
    expect(first.order.status).toBe('executed');
    expect(engine.getMarket(LINEAR)?.wirePriceRanges()).toEqual([{ start: '0.0000', end: '1.0000', step: '0.0010' }]);
    // Coarser is refused.
    const coarser = engine.setPriceLevelStructure(LINEAR, 'linear_cent');
    expect(coarser !== null && coarser.status).toBe(400);
  });

  it('closing a market cancels resting orders and emits lifecycle; reopening activates', () => {
    const { engine } = makeEngine();
    const r = ok(engine.createOrder('a', order(LINEAR, 'bid', '0.40', '1')));
    const log = record(engine);
    engine.setMarketStatus(LINEAR, 'closed');
    expect(r.order.status).toBe('canceled');
    expect(log).toEqual(['delta yes 4000 -100 a MarketCloseCancel', 'order a canceled 0 MarketCloseCancel', `lifecycle ${LINEAR} close_date_updated`]);
    engine.setMarketStatus(LINEAR, 'active');
    expect(log[log.length - 1]).toBe(`lifecycle ${LINEAR} activated`);
    engine.updateMarketMetadata(LINEAR, { yesSubTitle: 'Above 40', floorStrike: 40 });
    expect(log[log.length - 1]).toBe(`lifecycle ${LINEAR} metadata_updated`);
    expect(engine.getMarket(LINEAR)?.yesSubTitle).toBe('Above 40');
  });
});
