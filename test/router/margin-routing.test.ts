/**
 * Goal: with a Margin route beside the Predictions ones, the router sends a Margin market's orders
 * (and every later request about them) on the Margin route and a Predictions market's on its own,
 * refuses a route named for the wrong exchange, and a cancel-all or kill reaches both exchanges;
 * the OMS reconciles a Margin order with the Margin reads (also after a restart from the journal)
 * and adopts the orders the exchange places on the account (order_source system).
 * Method: the real gate, OMS and router over fake routes that record calls and serve reads.
 */

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { IntentKind, ManualClock, PriceGrid, createIntent } from '../../src/core/index.ts';
import type { Count, OrderIntent, Price } from '../../src/core/index.ts';
import { Journal, Oms, recover } from '../../src/oms/index.ts';
import type { SystemOrder } from '../../src/oms/index.ts';
import { Deny, RiskGate, riskLimits } from '../../src/risk/index.ts';
import { Router } from '../../src/router/index.ts';
import { FakeBook, FakeEntry, START_MS, TICKER, c, p } from '../oms/fakes.ts';

const PERP = 'KXBTCPERP';
const workDir = mkdtempSync(join(tmpdir(), 'margin-routing-'));
afterAll(() => rmSync(workDir, { recursive: true, force: true }));

interface Setup {
  clock: ManualClock;
  gate: RiskGate;
  rest: FakeEntry;
  fix: FakeEntry;
  margin: FakeEntry;
  oms: Oms;
  router: Router;
  predictions: number;
  perp: number;
}

function setup(journal: Journal | null = null, recoveredFrom: string | null = null): Setup {
  const clock = new ManualClock(START_MS);
  const gate = new RiskGate({ limits: riskLimits({ rateTier: 'prime' }), clock });
  const book = new FakeBook();
  book.updatedAtMs = clock.nowMs();
  const predictions = gate.addMarket(TICKER, PriceGrid.fromStructure('linear_cent'), book);
  const perpBook = new FakeBook();
  perpBook.updatedAtMs = clock.nowMs();
  perpBook.bid = 999_000 as Price;
  perpBook.ask = 1_001_000 as Price;
  const perp = gate.addMarginMarket(PERP, 100, perpBook);
  gate.markets.registry.setMark(perp, 1_000_000 as Price);
  gate.setMarginBalance(0, 100_000_000); // $10,000
  const rest = new FakeEntry();
  const fix = new FakeEntry();
  const margin = new FakeEntry();
  const oms = new Oms({
    reads: rest,
    margin: { reads: margin, route: 2 },
    listener: gate,
    clock,
    clientOrderIdPrefix: 'mr',
    journal,
    recovered: recoveredFrom === null ? null : recover(recoveredFrom),
    reconcileIntervalMs: 0,
    unknownGraceMs: 60_000,
  });
  const router = new Router({ gate, oms, route: rest, moreRoutes: [{ name: 'fix', entry: fix }, { name: 'margin', entry: margin, exchange: 'margin' }], clock });
  return { clock, gate, rest, fix, margin, oms, router, predictions, perp };
}

function newIntent(market: number, price: Price, count: Count, route = 0): OrderIntent {
  const intent = createIntent();
  intent.kind = IntentKind.NEW;
  intent.market = market;
  intent.side = 'bid';
  intent.price = price;
  intent.count = count;
  intent.route = route;
  return intent;
}

describe('routing by exchange', () => {
  it('a Margin market goes out on the Margin route, a Predictions market on REST, and follow-ups keep their route', () => {
    const s = setup();
    expect(s.router.submit(newIntent(s.perp, 995_000 as Price, c('2')))).toBe(Deny.NONE);
    expect(s.router.submit(newIntent(s.predictions, p('0.40'), c('10')))).toBe(Deny.NONE);
    expect(s.margin.creates.map((order) => order.ticker)).toEqual([PERP]);
    expect(s.rest.creates.map((order) => order.ticker)).toEqual([TICKER]);
    expect(s.fix.creates).toEqual([]);
    const perpOrder = s.oms.liveOrders().find((order) => order.ticker === PERP)!;
    expect(perpOrder.exchange).toBe('margin');
    expect(perpOrder.route).toBe(2);
    s.margin.listener!.onCreateAck(perpOrder.clientOrderId, 'm-1', 0 as Count, 200 as Count, START_MS);
    expect(s.router.cancel(perpOrder.clientOrderId)).toBe(0);
    expect(s.margin.cancels).toEqual([{ orderId: 'm-1', subaccount: 0 }]);
    expect(s.rest.cancels).toEqual([]);
  });

  it('a strategy\'s (Predictions) order group is not attached to its Margin orders', () => {
    const s = setup();
    const group = s.gate.addOrderGroup('grp-1', 0, 100_000);
    const perp = newIntent(s.perp, 995_000 as Price, c('1'));
    perp.orderGroup = group;
    const yes = newIntent(s.predictions, p('0.40'), c('1'));
    yes.orderGroup = group;
    expect(s.router.submit(perp)).toBe(Deny.NONE);
    expect(s.router.submit(yes)).toBe(Deny.NONE);
    expect(s.margin.creates[0]!.orderGroupId).toBeNull();
    expect(s.rest.creates[0]!.orderGroupId).toBe('grp-1');
  });

  it('a route named for the other exchange is denied ROUTE_EXCHANGE_MISMATCH and nothing is sent', () => {
    const s = setup();
    expect(s.router.submit(newIntent(s.perp, 995_000 as Price, c('1'), 1))).toBe(Deny.ROUTE_EXCHANGE_MISMATCH);
    expect(s.router.submit(newIntent(s.predictions, p('0.40'), c('1'), 2))).toBe(Deny.ROUTE_EXCHANGE_MISMATCH);
    expect(s.fix.creates.length + s.margin.creates.length + s.rest.creates.length).toBe(0);
  });

  it('cancel-all and the kill switch reach both exchanges', async () => {
    const s = setup();
    await s.router.cancelAll(3);
    expect(s.rest.cancelAlls).toEqual([3]);
    expect(s.margin.cancelAlls).toEqual([3]);
    expect(s.router.submit(newIntent(s.perp, 995_000 as Price, c('1')))).toBe(Deny.NONE);
    await s.router.killSwitch('test');
    expect(s.margin.cancelAlls).toContain(0);
    expect(s.rest.cancelAlls).toContain(0);
  });
});

describe('the OMS on two exchanges', () => {
  it('reconciles a Margin order of unknown fate with the Margin reads, not the Predictions ones', async () => {
    const s = setup();
    expect(s.router.submit(newIntent(s.perp, 995_000 as Price, c('3')))).toBe(Deny.NONE);
    const order = s.oms.liveOrders()[0]!;
    s.margin.listener!.onCreateUnknown(order.clientOrderId, 'EXEC_TIMEOUT');
    s.margin.orders.push({ orderId: 'm-9', clientOrderId: order.clientOrderId, ticker: PERP, side: 'bid', price: 995_000 as Price, status: 'resting', fillCount: 0 as Count, remainingCount: 300 as Count, initialCount: 300 as Count, subaccount: 0, createdMs: START_MS } as never);
    await s.oms.reconcile();
    expect(s.margin.listOrdersCalls).toBe(1);
    expect(s.rest.listOrdersCalls).toBe(0);
    expect(s.oms.order(order.clientOrderId)!.orderId).toBe('m-9');
  });

  it('a Margin order restored from the journal keeps its exchange and route', async () => {
    const path = join(workDir, 'restore.jsonl');
    const first = setup(new Journal(path));
    expect(first.router.submit(newIntent(first.perp, 995_000 as Price, c('1')))).toBe(Deny.NONE);
    await first.oms.stop();
    const second = setup(new Journal(path), path);
    const restored = second.oms.liveOrders()[0]!;
    expect([restored.ticker, restored.exchange, restored.route]).toEqual([PERP, 'margin', 2]);
    await second.oms.reconcile();
    expect(second.margin.listOrdersCalls).toBe(1);
    expect(second.rest.listOrdersCalls).toBe(0);
    await second.oms.stop();
  });

  it('adopts an order the exchange placed on the account (order_source system) instead of calling it foreign', () => {
    const s = setup();
    const seen: SystemOrder[] = [];
    s.oms.setSystemOrderSink((order) => seen.push({ ...order }));
    const message = {
      orderId: 'sys-1', clientOrderId: '', ticker: PERP, status: 'executed' as const, bookSide: 'ask' as const, yesPrice: 980_000 as Price,
      fillCount: 200 as Count, remainingCount: 0 as Count, subaccount: 0, lastUpdatedTsMs: START_MS, lastUpdateReason: '', orderSource: 'system', orderReason: 'take_profit_stop_loss',
    };
    s.oms.onUserOrder(message);
    s.oms.onUserOrder({ ...message, orderId: 'someone-else', orderSource: 'user' });
    expect(s.oms.stats.systemOrders).toBe(1);
    expect(s.oms.stats.foreignOrders).toBe(1);
    expect(s.oms.systemOrder('sys-1')).toMatchObject({ ticker: PERP, reason: 'take_profit_stop_loss', side: 'ask', fillCount: 200, status: 'executed' });
    expect(seen.map((order) => order.orderId)).toEqual(['sys-1']);
  });
});
