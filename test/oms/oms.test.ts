// Goal: the OMS's behaviour around the state table: risk-gated sends with monotonic client order
// ids, the exposure seam with the gate, fill de-duplication across WS and reconciliation, orders
// of unknown fate reconciled by client order id until known (found resting, found filled, not
// found -> rejected after the grace period with the id never reused), positions and PnL from
// fills, venue positions adopted, order groups, queued cancels, 429 handling, and the kill switch.
// Method: a real RiskGate and Oms over a ManualClock and a fake OrderEntry (test/oms/fakes.ts);
// messages are produced through the ExecListener and feed entry points exactly as in production.

import { describe, expect, it } from 'vitest';
import { COUNT_INVALID } from '../../src/core/index.ts';
import type { Centicents } from '../../src/core/index.ts';
import { OmsResult, OrderState as S, parseClientOrderId } from '../../src/oms/index.ts';
import type { Order } from '../../src/oms/index.ts';
import { Deny, TradingState } from '../../src/risk/index.ts';
import { GRACE_MS, TICKER, c, fill, p, userOrder, wireFill, wireOrder, world } from './fakes.ts';

describe('Oms: sending through the gate', () => {
  it('sends a new order with a fresh monotonic id and books its exposure in the gate', () => {
    const w = world();
    expect(w.router.submit(w.intent)).toBe(Deny.NONE);
    expect(w.router.submit(w.intent)).toBe(Deny.NONE);
    expect(w.entry.creates.map((o) => o.clientOrderId)).toEqual([w.oms.order(w.entry.creates[0].clientOrderId)!.clientOrderId, w.oms.lastClientOrderId]);
    const [first, second] = w.entry.creates.map((o) => parseClientOrderId(o.clientOrderId)!);
    expect(first.prefix).toBe('tst');
    expect(second.counter).toBe(first.counter + 1);
    expect(w.entry.creates[0]).toMatchObject({ ticker: TICKER, side: 'bid', price: p('0.40'), count: c('10'), selfTradePrevention: 'taker_at_cross' });
    const slot = w.gate.exposure.slot(w.market, 0)!;
    expect(slot.restingBid).toBe(c('20'));
    expect(w.gate.exposure.openOrders).toBe(2);
    expect(w.oms.order(w.oms.lastClientOrderId)!.state).toBe(S.PENDING_NEW);
  });

  it('returns the deny code and sends nothing when the gate refuses', () => {
    const w = world({ limits: { orderCountMax: c('5') } });
    expect(w.router.submit(w.intent)).toBe(Deny.COUNT_ABOVE_MAX);
    expect(w.entry.creates).toEqual([]);
    expect(w.oms.liveOrderCount).toBe(0);
  });

  it('denies a bid crossing its own resting ask (self-cross from the OMS-fed ledger)', () => {
    const w = world();
    w.intent.side = 'ask';
    w.intent.price = p('0.45');
    expect(w.router.submit(w.intent)).toBe(Deny.NONE);
    w.intent.side = 'bid';
    w.intent.price = p('0.45');
    expect(w.router.submit(w.intent)).toBe(Deny.SELF_CROSS);
    w.intent.price = p('0.44');
    expect(w.router.submit(w.intent)).toBe(Deny.NONE);
  });

  it('treats a synchronous throw from OrderEntry.create as unknown fate (reconcile, never resend)', () => {
    const w = world();
    w.entry.create = () => {
      throw new Error('socket gone');
    };
    expect(w.router.submit(w.intent)).toBe(Deny.NONE);
    const order = w.oms.order(w.oms.lastClientOrderId)!;
    expect(order.state).toBe(S.UNKNOWN);
    expect(order.needsReconcile).toBe(true);
  });

  it('keeps the ledger exact through ack, partial fill, amend and cancel', () => {
    const w = world();
    w.router.submit(w.intent);
    const coid = w.oms.lastClientOrderId;
    w.entry.listener!.onCreateAck(coid, 'o-1', c('0'), c('10'), 0);
    w.oms.onFill(fill('o-1', coid, 'bid', p('0.40'), c('3')));
    const slot = w.gate.exposure.slot(w.market, 0)!;
    expect(slot.restingBid).toBe(c('7'));
    expect(slot.position).toBe(c('3'));
    expect(w.router.amend(coid, p('0.38'), c('5'))).toBe(OmsResult.OK);
    expect(w.entry.amends[0]).toMatchObject({ orderId: 'o-1', price: p('0.38'), count: c('8') }); // new total = 3 filled + 5
    expect(slot.restingBid).toBe(c('12')); // old 7 and new 5 both count while the amend is in flight
    w.entry.listener!.onAmendAck('o-1', c('3'), c('5'), 0);
    expect(slot.restingBid).toBe(c('5'));
    expect(slot.grid.priceAt(slot.bidBestLevel)).toBe(p('0.38'));
    expect(w.router.cancel(coid)).toBe(OmsResult.OK);
    w.entry.listener!.onCancelAck('o-1', c('5'), 0);
    expect(slot.restingBid).toBe(0);
    expect(w.gate.exposure.openOrders).toBe(0);
    expect(w.gate.exposure.restingMicro(0)).toBe(0);
  });
});

describe('Oms: an amend the venue answers with a post-only cross cancel', () => {
  // The venue cancels a post-only order whose amended price crosses and answers the amend 200 with
  // fill_count 0 and remaining_count 0 (PostOnlyCrossCancel); its user_order "canceled" may come
  // before or after that answer. Either way: canceled, never filled, no table pair missing.
  function amendedResting(): { w: ReturnType<typeof world>; coid: string } {
    const w = world();
    w.router.submit(w.intent);
    const coid = w.oms.lastClientOrderId;
    w.entry.listener!.onCreateAck(coid, 'o-1', c('0'), c('10'), 0);
    expect(w.router.amend(coid, p('0.45'), c('10'))).toBe(OmsResult.OK);
    return { w, coid };
  }

  function expectCanceledNotFilled(w: ReturnType<typeof world>, coid: string): void {
    const order = w.oms.order(coid)!;
    expect(order.state).toBe(S.CANCELED);
    expect(order.filledCount).toBe(0);
    expect(order.remainingCount).toBe(0);
    expect(w.oms.stats.missingTransitions).toBe(0);
    expect(w.oms.positions.at(0, TICKER).position).toBe(0);
    expect(w.gate.exposure.openOrders).toBe(0);
  }

  it('ack first, then user_order canceled', () => {
    const { w, coid } = amendedResting();
    w.entry.listener!.onAmendAck('o-1', c('0'), c('0'), 0);
    expect(w.oms.order(coid)!.state).toBe(S.CANCELED);
    w.oms.onUserOrder(userOrder('o-1', coid, 'canceled', c('0'), c('0')));
    expectCanceledNotFilled(w, coid);
  });

  it('user_order canceled first, then the ack', () => {
    const { w, coid } = amendedResting();
    w.oms.onUserOrder(userOrder('o-1', coid, 'canceled', c('0'), c('0')));
    expect(w.oms.order(coid)!.state).toBe(S.CANCELED);
    w.entry.listener!.onAmendAck('o-1', c('0'), c('0'), 0);
    expectCanceledNotFilled(w, coid);
  });

  it('an amend that crossed and filled the rest is still booked as filled', () => {
    const { w, coid } = amendedResting();
    w.entry.listener!.onAmendAck('o-1', c('10'), c('0'), 0);
    expect(w.oms.order(coid)!.state).toBe(S.FILLED);
    expect(w.oms.stats.missingTransitions).toBe(0);
  });
});

describe('Oms: the ledger invariant', () => {
  it('holds through the order life and throws when the ledger and the live orders differ', () => {
    const w = world();
    w.router.submit(w.intent);
    const coid = w.oms.lastClientOrderId;
    w.entry.listener!.onCreateAck(coid, 'o-1', c('0'), c('10'), 0);
    w.oms.onFill(fill('o-1', coid, 'bid', p('0.40'), c('3')));
    expect(() => w.gate.assertLedger(w.oms.liveOrders())).not.toThrow();
    // Something books exposure behind the OMS's back: a bug, caught by the check.
    w.gate.exposure.addResting(w.market, 0, 'bid', p('0.40'), c('1'), 0);
    expect(() => w.gate.assertLedger(w.oms.liveOrders())).toThrow(/resting bids differ from the live orders/);
  });
});

describe('Oms: cancels', () => {
  it('queues a cancel asked before the ack and sends it when the order id arrives', () => {
    const w = world();
    w.router.submit(w.intent);
    const coid = w.oms.lastClientOrderId;
    expect(w.router.cancel(coid)).toBe(OmsResult.QUEUED);
    expect(w.entry.cancels).toEqual([]);
    w.entry.listener!.onCreateAck(coid, 'o-9', c('0'), c('10'), 0);
    expect(w.entry.cancels).toEqual([{ orderId: 'o-9', subaccount: 0 }]);
    expect(w.oms.order(coid)!.state).toBe(S.PENDING_CANCEL);
  });

  it('answers for unknown and closed orders', () => {
    const w = world();
    expect(w.router.cancel('nope')).toBe(OmsResult.ORDER_UNKNOWN);
    w.router.submit(w.intent);
    const coid = w.oms.lastClientOrderId;
    w.entry.listener!.onCreateReject(coid, { status: 400, code: 'invalid_price', message: '', details: '' });
    expect(w.router.cancel(coid)).toBe(OmsResult.ORDER_NOT_LIVE);
    expect(w.router.amend(coid, p('0.3'), c('1'))).toBe(OmsResult.ORDER_NOT_LIVE);
  });

  it('retries a cancel the venue rate-limited, and drains the create budget', () => {
    const w = world({ limits: { rateTier: 'basic' } });
    w.router.submit(w.intent);
    const coid = w.oms.lastClientOrderId;
    w.entry.listener!.onCreateAck(coid, 'o-1', c('0'), c('10'), 0);
    w.router.cancel(coid);
    w.entry.listener!.onCancelReject('o-1', { status: 429, code: 'EXEC_RATE_LIMITED', message: '', details: '' });
    expect(w.oms.order(coid)!.state).toBe(S.RESTING);
    const creates = w.entry.creates.length;
    expect(w.router.submit(w.intent)).toBe(Deny.NONE); // creates wait for a refill: held, not sent
    expect(w.router.held.size).toBe(1);
    expect(w.entry.creates.length).toBe(creates);
    void w.oms.tick(); // the reserve pays for the retried cancel
    expect(w.entry.cancels.length).toBe(2);
    expect(w.oms.order(coid)!.state).toBe(S.PENDING_CANCEL);
  });
});

describe('Oms: fills', () => {
  it('counts a fill once whether it comes twice over WS or again from reconciliation', async () => {
    const w = world();
    w.router.submit(w.intent);
    const coid = w.oms.lastClientOrderId;
    w.entry.listener!.onCreateAck(coid, 'o-1', c('0'), c('10'), 0);
    const message = fill('o-1', coid, 'bid', p('0.40'), c('4'), { tradeId: 't-1', fee: 70 as Centicents });
    w.oms.onFill(message);
    w.oms.onFill(message);
    expect(w.oms.stats.duplicateFills).toBe(1);
    // Reconciliation reads the same fill (fill_id == trade_id) plus one the socket missed.
    w.oms.requestReconcile(coid);
    w.entry.orders = [wireOrder('o-1', coid, 'resting', c('6'), c('4'))];
    w.entry.fills = [wireFill('t-1', 'o-1', p('0.40'), c('4')), wireFill('t-2', 'o-1', p('0.40'), c('2'))];
    await w.oms.reconcile();
    const order = w.oms.order(coid)!;
    expect(order.filledCount).toBe(c('6'));
    expect(order.remainingCount).toBe(c('4'));
    expect(order.state).toBe(S.RESTING);
    expect(w.oms.position(0, TICKER)!.position).toBe(c('6'));
    expect(w.oms.position(0, TICKER)!.feesCenticents).toBe(70);
    expect(w.gate.exposure.position(w.market, 0)).toBe(c('6'));
    expect(w.oms.stats.duplicateFills).toBe(2);
  });

  it('does not subtract a fill already included in the ack', () => {
    const w = world();
    w.router.submit(w.intent);
    const coid = w.oms.lastClientOrderId;
    w.entry.listener!.onCreateAck(coid, 'o-1', c('3'), c('7'), 0); // 3 filled at once
    w.oms.onFill(fill('o-1', coid, 'bid', p('0.40'), c('3')));
    expect(w.oms.order(coid)!.remainingCount).toBe(c('7'));
    w.oms.onFill(fill('o-1', coid, 'bid', p('0.40'), c('7')));
    expect(w.oms.order(coid)!.state).toBe(S.FILLED);
  });

  it('books a fill that arrives before the ack, then attaches it to the order', () => {
    const w = world();
    w.router.submit(w.intent);
    const coid = w.oms.lastClientOrderId;
    w.oms.onFill(fill('o-7', '', 'bid', p('0.40'), c('2'))); // no client order id on this fill
    expect(w.oms.stats.orphanFills).toBe(1);
    expect(w.oms.position(0, TICKER)!.position).toBe(c('2'));
    w.entry.listener!.onCreateAck(coid, 'o-7', c('0'), c('10'), 0); // ack taken before the fill
    const order = w.oms.order(coid)!;
    expect(order.filledCount).toBe(c('2'));
    expect(order.remainingCount).toBe(c('8'));
  });

  it('computes positions, realized PnL and fees from fills, long and short', () => {
    const w = world();
    w.oms.onFill(fill('x', '', 'bid', p('0.40'), c('10'), { fee: 100 as Centicents }));
    w.oms.onFill(fill('x', '', 'ask', p('0.55'), c('4'), { fee: 50 as Centicents }));
    const position = w.oms.position(0, TICKER)!;
    expect(position.position).toBe(c('6'));
    expect(position.realizedPnlCenticents).toBe(6000); // 4 x $0.15 = $0.60
    expect(position.costCenticents).toBe(24000); // 6 x $0.40
    expect(position.feesCenticents).toBe(150);
    // Sell through zero: close 6 at 0.30 (-$0.60), open short 4 at 0.30.
    w.oms.onFill(fill('x', '', 'ask', p('0.30'), c('10')));
    expect(position.position).toBe(c('-4'));
    expect(position.realizedPnlCenticents).toBe(0);
    expect(position.costCenticents).toBe(-12000);
    // Cover the short at 0.20: +4 x $0.10.
    w.oms.onFill(fill('x', '', 'bid', p('0.20'), c('4')));
    expect(position.position).toBe(0);
    expect(position.realizedPnlCenticents).toBe(4000);
    expect(w.gate.exposure.position(w.market, 0)).toBe(0);
  });

  it('adopts the venue position from post_position and market_position when ours differs', () => {
    const w = world();
    w.oms.onFill(fill('x', '', 'bid', p('0.40'), c('1'), { postPosition: c('5') }));
    expect(w.oms.position(0, TICKER)!.position).toBe(c('5'));
    expect(w.oms.stats.positionMismatches).toBe(1);
    w.oms.onMarketPosition({ marketTicker: TICKER, position: c('-2'), realizedPnl: 1234 as Centicents, feesPaid: 55 as Centicents, subaccount: -1 });
    const position = w.oms.position(0, TICKER)!;
    expect(position.position).toBe(c('-2'));
    expect(position.venueRealizedPnlCenticents).toBe(1234);
    expect(w.gate.exposure.position(w.market, 0)).toBe(c('-2'));
    w.oms.onMarketPosition({ marketTicker: TICKER, position: COUNT_INVALID, realizedPnl: 1 as Centicents, feesPaid: 1 as Centicents, subaccount: 0 });
    expect(position.position).toBe(c('-2'));
  });
});

describe('Oms: orders of unknown fate', () => {
  it('reconciles an unknown order found resting at the venue', async () => {
    const w = world();
    w.router.submit(w.intent);
    const coid = w.oms.lastClientOrderId;
    w.entry.listener!.onCreateUnknown(coid, 'EXEC_TIMEOUT');
    expect(w.oms.order(coid)!.state).toBe(S.UNKNOWN);
    w.entry.orders = [wireOrder('o-5', coid, 'resting', c('0'), c('10'))];
    await w.oms.tick();
    const order = w.oms.order(coid)!;
    expect(order.state).toBe(S.RESTING);
    expect(order.orderId).toBe('o-5');
    expect(w.oms.orderByOrderId('o-5')).toBe(order);
    expect(w.entry.creates.length).toBe(1); // never resent
  });

  it('reconciles an unknown order found executed, pulling its fills into the position', async () => {
    const w = world();
    w.router.submit(w.intent);
    const coid = w.oms.lastClientOrderId;
    w.entry.listener!.onCreateUnknown(coid, 'EXEC_HTTP_5XX');
    w.entry.orders = [wireOrder('o-6', coid, 'executed', c('10'), c('0'))];
    w.entry.fills = [wireFill('f-1', 'o-6', p('0.40'), c('6')), wireFill('f-2', 'o-6', p('0.39'), c('4'))];
    await w.oms.tick();
    expect(w.oms.order(coid)!.state).toBe(S.FILLED);
    expect(w.entry.listFillsCalls).toBe(1);
    expect(w.oms.position(0, TICKER)!.position).toBe(c('10'));
    expect(w.gate.exposure.slot(w.market, 0)!.restingBid).toBe(0);
  });

  it('never counts a fill twice when the venue position adopted before already includes fills then read over REST', async () => {
    const w = world();
    w.router.submit(w.intent);
    const coid = w.oms.lastClientOrderId;
    w.entry.listener!.onCreateUnknown(coid, 'EXEC_DISCONNECTED');
    // While we were disconnected the order filled; the venue's market_position (10) already counts it.
    w.oms.onMarketPosition({ marketTicker: TICKER, position: c('10'), realizedPnl: 0 as Centicents, feesPaid: 0 as Centicents, subaccount: 0 });
    expect(w.oms.position(0, TICKER)!.position).toBe(c('10'));
    // Reconciliation then finds the order executed and reads its fills (no post-position over REST).
    w.entry.orders = [wireOrder('o-7', coid, 'executed', c('10'), c('0'))];
    w.entry.fills = [wireFill('f-7', 'o-7', p('0.40'), c('10'))];
    w.entry.positions = [{ ticker: TICKER, position: c('10'), subaccount: 0 }];
    await w.oms.tick();
    expect(w.oms.order(coid)!.state).toBe(S.FILLED);
    expect(w.oms.position(0, TICKER)!.position).toBe(c('10'));
    expect(w.gate.exposure.position(w.market, 0)).toBe(c('10'));
  });

  it('keeps an order nobody lists UNKNOWN until the grace period, then REJECTED; its id is never reused', async () => {
    const w = world();
    w.router.submit(w.intent);
    const coid = w.oms.lastClientOrderId;
    w.entry.listener!.onCreateUnknown(coid, 'EXEC_DISCONNECTED');
    await w.oms.tick();
    expect(w.oms.order(coid)!.state).toBe(S.UNKNOWN);
    w.clock.advance(GRACE_MS - 1);
    await w.oms.tick();
    expect(w.oms.order(coid)!.state).toBe(S.UNKNOWN);
    expect(w.gate.exposure.openOrders).toBe(1); // still counted while unknown
    w.clock.advance(1);
    w.book.updatedAtMs = w.clock.nowMs();
    await w.oms.tick();
    expect(w.oms.order(coid)!.state).toBe(S.REJECTED);
    expect(w.gate.exposure.openOrders).toBe(0);
    expect(w.entry.listOrdersCalls).toBe(3);
    w.router.submit(w.intent);
    expect(w.oms.lastClientOrderId).not.toBe(coid);
    expect(parseClientOrderId(w.oms.lastClientOrderId)!.counter).toBeGreaterThan(parseClientOrderId(coid)!.counter);
    expect(new Set(w.entry.creates.map((o) => o.clientOrderId)).size).toBe(2);
  });

  it('treats 409 order_already_exists as unknown fate, not as a reject', () => {
    const w = world();
    w.router.submit(w.intent);
    const coid = w.oms.lastClientOrderId;
    w.entry.listener!.onCreateReject(coid, { status: 409, code: 'order_already_exists', message: '', details: '' });
    expect(w.oms.order(coid)!.state).toBe(S.UNKNOWN);
  });

  it('turns a pending request without an answer into UNKNOWN at the pending timeout', async () => {
    const w = world();
    w.router.submit(w.intent);
    const coid = w.oms.lastClientOrderId;
    w.clock.advance(9_999);
    expect(w.oms.tick()).toBeNull();
    expect(w.oms.order(coid)!.state).toBe(S.PENDING_NEW);
    w.clock.advance(1);
    await w.oms.tick();
    expect(w.oms.order(coid)!.state).toBe(S.UNKNOWN);
  });

  it('skips a reconciliation read older than a WS message that settled the order meanwhile', async () => {
    const w = world();
    w.router.submit(w.intent);
    const coid = w.oms.lastClientOrderId;
    w.entry.listener!.onCreateUnknown(coid, 'EXEC_TIMEOUT');
    w.entry.orders = [wireOrder('o-1', coid, 'resting', c('0'), c('10'))];
    const round = w.oms.reconcile();
    w.oms.onUserOrder(userOrder('o-1', coid, 'canceled', c('0'), c('0'))); // arrives while the read is in flight
    await round;
    expect(w.oms.order(coid)!.state).toBe(S.CANCELED);
  });
});

describe('Oms: requests the transport never wrote ("not sent")', () => {
  const NOT_SENT = { status: 0, code: 'EXEC_TIMEOUT', message: 'not sent: no connection free within headersTimeoutMs', details: '' };

  it('a create not sent is rejected at once (the venue never saw it), not left unknown for the grace period', () => {
    const w = world();
    w.router.submit(w.intent);
    const coid = w.oms.lastClientOrderId;
    w.entry.listener!.onCreateReject(coid, NOT_SENT);
    expect(w.oms.order(coid)!.state).toBe(S.REJECTED);
    w.gate.assertLedger(w.oms.liveOrders());
    // A transport failure after the write is still unknown.
    w.router.submit(w.intent);
    const sent = w.oms.lastClientOrderId;
    w.entry.listener!.onCreateReject(sent, { status: 0, code: 'EXEC_DISCONNECTED', message: 'fate unknown: reconcile', details: '' });
    expect(w.oms.order(sent)!.state).toBe(S.UNKNOWN);
  });

  it('an amend not sent leaves the old price standing; a cancel not sent stays wanted and the tick sends it again', () => {
    const w = world();
    w.router.submit(w.intent);
    const coid = w.oms.lastClientOrderId;
    w.entry.listener!.onCreateAck(coid, 'o-1', c('0'), c('10'), 0);
    const price = w.oms.order(coid)!.price;
    expect(w.router.amend(coid, p('0.3'), c('10'))).toBe(OmsResult.OK);
    w.entry.listener!.onAmendReject('o-1', NOT_SENT);
    expect(w.oms.order(coid)!.state).toBe(S.RESTING);
    expect(w.oms.order(coid)!.price).toBe(price);
    expect(w.router.cancel(coid)).toBe(OmsResult.OK);
    w.entry.listener!.onCancelReject('o-1', NOT_SENT);
    expect(w.oms.order(coid)!.state).toBe(S.RESTING);
    const cancels = w.entry.cancels.length;
    void w.oms.tick();
    expect(w.entry.cancels.length).toBe(cancels + 1);
    expect(w.oms.order(coid)!.state).toBe(S.PENDING_CANCEL);
  });
});

describe('Oms: order groups', () => {
  it('follows order_group_updates and counts group fills against the rolling limit', () => {
    const w = world();
    w.gate.applyOrderGroupUpdate({ eventType: 'created', orderGroupId: 'g-1', contractsLimit: c('15') });
    const group = w.gate.groupHandle('g-1');
    w.intent.orderGroup = group;
    expect(w.router.submit(w.intent)).toBe(Deny.NONE);
    expect(w.entry.creates[0].orderGroupId).toBe('g-1');
    const coid = w.oms.lastClientOrderId;
    w.entry.listener!.onCreateAck(coid, 'o-1', c('0'), c('10'), 0);
    w.oms.onFill(fill('o-1', coid, 'bid', p('0.40'), c('8')));
    expect(w.router.submit(w.intent)).toBe(Deny.ORDER_GROUP_LIMIT); // 8 matched + 10 > 15
    w.gate.applyOrderGroupUpdate({ eventType: 'limit_updated', orderGroupId: 'g-1', contractsLimit: c('100') });
    w.gate.applyOrderGroupUpdate({ eventType: 'triggered', orderGroupId: 'g-1', contractsLimit: COUNT_INVALID });
    expect(w.router.submit(w.intent)).toBe(Deny.ORDER_GROUP_TRIGGERED);
    w.gate.applyOrderGroupUpdate({ eventType: 'reset', orderGroupId: 'g-1', contractsLimit: COUNT_INVALID });
    expect(w.router.submit(w.intent)).toBe(Deny.NONE);
    w.gate.applyOrderGroupUpdate({ eventType: 'deleted', orderGroupId: 'g-1', contractsLimit: COUNT_INVALID });
    expect(w.router.submit(w.intent)).toBe(Deny.ORDER_GROUP_UNKNOWN);
  });
});

describe('Oms: kill switch', () => {
  it('halts the gate and calls cancelAll for every subaccount in use; cancels still pass', async () => {
    const w = world({ oms: { subaccounts: [5] } });
    w.router.submit(w.intent);
    const coid = w.oms.lastClientOrderId;
    w.entry.listener!.onCreateAck(coid, 'o-1', c('0'), c('10'), 0);
    w.intent.subaccount = 3;
    w.router.submit(w.intent);
    w.oms.onFill(fill('z', '', 'bid', p('0.40'), c('1'), { subaccount: 7 }));
    await w.router.killSwitch('test');
    expect(w.oms.killSwitchState).toMatchObject({ reason: 'test', source: 'operator' });
    expect(w.entry.cancelAlls).toEqual([0, 3, 5, 7]);
    expect(w.gate.killed).toBe(true);
    expect(w.gate.tradingState).toBe(TradingState.HALTED);
    expect(w.oms.order(coid)!.needsReconcile).toBe(true); // confirmed closed by the next reconciliation
    w.intent.subaccount = 0;
    expect(w.router.submit(w.intent)).toBe(Deny.KILL_SWITCH);
    expect(w.router.cancel(coid)).toBe(OmsResult.OK);
  });

  it('retries a failed cancel-all from the tick until it succeeds', async () => {
    const w = world();
    w.router.submit(w.intent);
    w.entry.cancelAllFailures = 1;
    await w.router.killSwitch('test');
    expect(w.oms.killSwitchState).toMatchObject({ reason: 'test', source: 'operator' });
    expect(w.entry.cancelAlls).toEqual([0]);
    w.oms.tick();
    await Promise.resolve();
    await new Promise((resolve) => setImmediate(resolve));
    expect(w.entry.cancelAlls).toEqual([0, 0]);
    w.oms.tick();
    await new Promise((resolve) => setImmediate(resolve));
    expect(w.entry.cancelAlls).toEqual([0, 0]); // succeeded: no more retries
  });
});

describe('Oms: reconciliation budget and change notifications', () => {
  it('stops a round when the read bucket is empty and resumes when it refills', async () => {
    const w = world({ limits: { rateTier: 'custom', writeTokensPerSecond: 1000, writeCapacityTokens: 2000, readTokensPerSecond: 10 } });
    w.intent.count = c('1');
    const ids: string[] = [];
    for (const ticker of ['A', 'B']) {
      const market = w.gate.addMarket(ticker, w.gate.markets.at(w.market)!.grid, w.book);
      w.intent.market = market;
      w.router.submit(w.intent);
      ids.push(w.oms.lastClientOrderId);
      w.entry.listener!.onCreateUnknown(w.oms.lastClientOrderId, 'EXEC_TIMEOUT');
    }
    await w.oms.reconcile(); // 10 read tokens: one listOrders, then the bucket is empty
    expect(w.entry.listOrdersCalls).toBe(1);
    w.clock.advance(1000);
    await w.oms.reconcile();
    expect(w.entry.listOrdersCalls).toBe(2);
  });

  it('tells its listener after every applied event, including tick-driven ones', async () => {
    const changes: string[] = [];
    const listener = {
      onOrderChange: (order: Readonly<Order>): void => void changes.push(`${order.clientOrderId}:${order.state}`),
      onFill: (): void => {},
      onPosition: (): void => {},
      onVenueRateLimited: (): void => {},
    };
    const w = world({ oms: { listener } });
    w.router.submit(w.intent);
    const coid = w.oms.lastClientOrderId;
    w.entry.listener!.onCreateAck(coid, 'o-1', c('0'), c('10'), 0);
    w.clock.advance(1);
    w.router.cancel(coid);
    w.clock.advance(20_000);
    w.oms.tick(); // pending cancel times out
    expect(changes).toEqual([`${coid}:${S.RESTING}`, `${coid}:${S.PENDING_CANCEL}`, `${coid}:${S.UNKNOWN}`]);
  });
});
