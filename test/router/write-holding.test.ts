// The router's write-budget queue (issue "3 of 6", item 2): intents the gate refuses only for the
// empty write bucket are held, coalesced per order, released cancels-first and in fair turns, in V2
// batches, and reported to their strategy; the gate's ledger stays equal to the live orders.
import { describe, expect, it } from 'vitest';
import { IntentKind, ORDER_STATE_HELD, PriceGrid, createIntent } from '../../src/core/index.ts';
import type { Count, OrderIntent, Price } from '../../src/core/index.ts';
import type { NewOrder } from '../../src/oms/index.ts';
import { OrderState as S } from '../../src/oms/index.ts';
import { Deny } from '../../src/risk/index.ts';
import { Router } from '../../src/router/index.ts';
import { FakeBook, FakeEntry, c, p, world } from '../oms/fakes.ts';
import { BoundStrategyContext } from '../../src/strategy/index.ts';
import { createLogger } from '../../src/telemetry/index.ts';
import type { World } from '../oms/fakes.ts';

/** A route with the V2 batch endpoints, recording each batch. */
class BatchEntry extends FakeEntry {
  batches: string[][] = [];
  cancelBatches: { orderIds: string[]; subaccount: number }[] = [];
  createBatch(orders: readonly Readonly<NewOrder>[]): void {
    this.batches.push(orders.map((order) => order.clientOrderId));
    for (const order of orders) this.create(order);
  }
  cancelBatch(orderIds: readonly string[], subaccount: number): void {
    this.cancelBatches.push({ orderIds: [...orderIds], subaccount });
    for (const id of orderIds) this.cancel(id, subaccount);
  }
}

/** 100 write tokens a second, a 100-token bucket, 10 of them kept for cancels. */
function budgetWorld(): World & { heard: [string, boolean, number][] } {
  const w = world({ limits: { rateTier: 'custom', writeTokensPerSecond: 100, writeCapacityTokens: 100, readTokensPerSecond: 100, cancelReserveShare: 0.1 } });
  const heard: [string, boolean, number][] = [];
  w.router.setHeldListener({ onHeldIntent: (entry, sent, deny) => heard.push([entry.clientOrderId, sent, deny]) });
  return Object.assign(w, { heard });
}

/** A route whose saturation the test switches (`busy`), 100 write tokens a second, 10 kept for cancels. */
function saturableWorld(): { entry: BatchEntry & { busy: boolean; saturated(): boolean }; b: World; router: Router } {
  const entry = new BatchEntry() as BatchEntry & { busy: boolean; saturated(): boolean };
  entry.busy = false;
  entry.saturated = () => entry.busy;
  const b = world({ limits: { rateTier: 'custom', writeTokensPerSecond: 100, writeCapacityTokens: 100, readTokensPerSecond: 100, cancelReserveShare: 0.1 } });
  const router = new Router({ gate: b.gate, oms: b.oms, route: entry, clock: b.clock });
  return { entry, b, router };
}

/** A new bid on `market` at `price` for `count` contracts. */
function newBid(market: number, price: string, count = '1', strategyId = 0): OrderIntent {
  const intent = createIntent();
  intent.kind = IntentKind.NEW;
  intent.market = market;
  intent.side = 'bid';
  intent.price = p(price);
  intent.count = c(count);
  intent.strategyId = strategyId;
  return intent;
}

function place(w: World, price: string, strategyId = 0, market = w.market): { deny: Deny; id: string } {
  const intent = newBid(market, price, '1', strategyId);
  const deny = w.router.submit(intent);
  return { deny, id: idOf(w.router, intent) };
}

/** A sent NEW intent's id as text: made from its handle (the router leaves it unmade), or the held create's text. */
function idOf(router: Router, intent: OrderIntent): string {
  return intent.clientOrderId !== '' ? intent.clientOrderId : router.clientOrderIdOf(intent.orderHandle);
}

function modify(w: World, kind: IntentKind, id: string, price = '0', count = '0'): Deny {
  const intent: OrderIntent = createIntent();
  intent.kind = kind;
  intent.clientOrderId = id;
  intent.price = (price === '0' ? -1 : p(price)) as Price;
  intent.count = c(count) as Count;
  return w.router.submit(intent);
}

/** Places creates until the bucket (less its cancel reserve) is spent; returns the ids sent. */
function spend(w: World): string[] {
  const ids: string[] = [];
  for (let i = 0; i < 20; i++) {
    const before = w.entry.creates.length;
    const { id } = place(w, '0.10');
    if (w.entry.creates.length === before) {
      // The first one held: take it back out, the bucket is spent.
      expect(modify(w, IntentKind.CANCEL, id)).toBe(Deny.NONE);
      (w as { heard?: unknown[] }).heard?.splice(0);
      return ids;
    }
    ids.push(id);
  }
  throw new Error('the bucket never ran out');
}

describe('router: holding intents for the write budget', () => {
  it('holds a create the bucket cannot pay for, shows it as HELD, and sends it when the bucket refills', () => {
    const w = budgetWorld();
    expect(spend(w)).toHaveLength(9); // 90 of 100 tokens: the last 10 are the cancel reserve
    const held = place(w, '0.20');
    expect(held.deny).toBe(Deny.NONE);
    expect(w.router.held.size).toBe(1);
    expect(w.router.order(held.id)?.state).toBe(ORDER_STATE_HELD);
    expect(w.oms.order(held.id)).toBeUndefined();
    w.clock.advance(100); // 10 tokens
    void w.router.tick();
    expect(w.router.held.size).toBe(0);
    expect(w.oms.order(held.id)?.state).toBe(S.PENDING_NEW); // the same id the strategy was given
    expect(w.entry.creates.at(-1)?.clientOrderId).toBe(held.id);
    expect(w.heard).toEqual([[held.id, true, Deny.NONE]]);
  });

  it('a held create reports no handle, even on a reused intent record that last named a sent order', () => {
    // A strategy context reuses one record for every intent: a held create must not hand back the
    // handle its last sent create (or cancel) left there, or the strategy tracks the wrong order.
    const w = budgetWorld();
    const ids = spend(w);
    const intent = newBid(w.market, '0.20');
    intent.orderHandle = w.oms.order(ids[0]!)!.handle; // what a cancel of that order left in the record
    expect(intent.orderHandle).toBeGreaterThan(0);
    expect(w.router.submit(intent)).toBe(Deny.NONE);
    expect(w.router.held.size).toBe(1);
    expect(intent.orderHandle).toBe(0);
    expect(w.router.order(intent.clientOrderId)?.state).toBe(ORDER_STATE_HELD);
  });

  it('a strategy context keeps a held create as its last order: not the order its previous cancel named', () => {
    const w = budgetWorld();
    const ids = spend(w);
    w.entry.listener!.onCreateAck(ids[0]!, 'o-0', c('0'), c('1'), 0);
    const markets = { marketHandle: () => w.market, book: () => undefined, ensureMarkets: async () => undefined };
    const ctx = new BoundStrategyContext({ id: 's', strategyId: 0, subaccount: 0, orderGroup: -1, markets: ['KX'], params: {}, log: createLogger({ level: 'silent' }) }, w.router, markets, w.clock);
    ctx.setActive(true);
    const resting = w.oms.order(ids[0]!)!.handle;
    expect(ctx.cancel(resting)).toBe(Deny.NONE); // from the cancel reserve: the record now names `resting`
    expect(ctx.place('KX', 'bid', p('0.20'), c('1'))).toBe(Deny.NONE);
    expect(w.router.held.size).toBe(1);
    expect(ctx.lastOrderHandle).toBe(0);
    const last = ctx.lastClientOrderId;
    expect(last).not.toBe(ids[0]);
    expect(ctx.order(last)?.state).toBe(ORDER_STATE_HELD);
  });

  it('latest wins: amends of a held create rewrite it in place, and a held amend is replaced by a newer one', () => {
    const w = budgetWorld();
    const [resting] = spend(w);
    w.entry.listener!.onCreateAck(resting!, 'o-1', c('0'), c('1'), 0);
    const held = place(w, '0.20');
    expect(modify(w, IntentKind.AMEND, held.id, '0.22', '2')).toBe(Deny.NONE);
    expect(modify(w, IntentKind.AMEND, held.id, '0.23', '3')).toBe(Deny.NONE);
    expect(modify(w, IntentKind.AMEND, resting!, '0.30', '1')).toBe(Deny.NONE); // held: the bucket is empty
    expect(modify(w, IntentKind.AMEND, resting!, '0.31', '1')).toBe(Deny.NONE);
    expect(w.router.held.size).toBe(2);
    w.clock.advance(1_000);
    void w.router.tick();
    const create = w.entry.creates.find((order) => order.clientOrderId === held.id)!;
    expect([create.price, create.count]).toEqual([p('0.23'), c('3')]);
    expect(w.entry.amends).toEqual([{ orderId: 'o-1', price: p('0.31'), count: c('1') }]);
  });

  it('a cancel drops a held create (nothing is sent) and a held amend (the cancel goes out)', () => {
    const w = budgetWorld();
    const [resting] = spend(w);
    w.entry.listener!.onCreateAck(resting!, 'o-1', c('0'), c('1'), 0);
    const held = place(w, '0.20');
    modify(w, IntentKind.AMEND, resting!, '0.30', '1');
    const creates = w.entry.creates.length;
    expect(modify(w, IntentKind.CANCEL, held.id)).toBe(Deny.NONE);
    expect(modify(w, IntentKind.CANCEL, resting!)).toBe(Deny.NONE);
    expect(w.router.held.size).toBe(0);
    expect(w.router.order(held.id)).toBeNull();
    expect(w.entry.cancels).toEqual([{ orderId: 'o-1', subaccount: 0 }]); // from the reserve, at once
    w.clock.advance(1_000);
    void w.router.tick();
    expect(w.entry.creates.length).toBe(creates);
    expect(w.entry.amends).toEqual([]);
    expect(w.heard).toEqual([[held.id, false, Deny.NONE], [resting, false, Deny.NONE]]);
  });

  it('cancels go before held creates and amends: the reserve pays for them while creates wait', () => {
    const w = budgetWorld();
    const ids = spend(w);
    for (const [i, id] of ids.entries()) w.entry.listener!.onCreateAck(id, `o-${i}`, c('0'), c('1'), 0);
    for (let i = 0; i < 3; i++) place(w, '0.20');
    expect(w.router.held.size).toBe(3);
    for (let i = 0; i < 5; i++) expect(modify(w, IntentKind.CANCEL, ids[i]!)).toBe(Deny.NONE);
    expect(w.entry.cancels.map((x) => x.orderId)).toEqual(['o-0', 'o-1', 'o-2', 'o-3', 'o-4']);
    expect(w.router.held.size).toBe(3);
  });

  it('rotates fairly: markets take turns within a strategy, strategies by priority', () => {
    const w = budgetWorld();
    const grid = PriceGrid.fromStructure('linear_cent');
    const markets = ['KX-A', 'KX-B', 'KX-C'].map((ticker) => {
      const book = new FakeBook();
      book.updatedAtMs = w.clock.nowMs();
      return w.gate.addMarket(ticker, grid, book);
    });
    w.router.setHolding(1, true, 2);
    w.router.setHolding(2, true, 1);
    spend(w);
    const order: string[] = [];
    // Strategy 1 wants 3 orders on each of three markets, strategy 2 wants 3 on one.
    for (let round = 0; round < 3; round++) for (const market of markets) order.push(`1:${place(w, '0.20', 1, market).id}`);
    for (let round = 0; round < 3; round++) order.push(`2:${place(w, '0.20', 2, markets[0]).id}`);
    expect(w.router.held.size).toBe(12);
    const sent: string[] = [];
    for (let i = 0; i < 12; i++) {
      w.clock.advance(100); // one create's worth
      const before = w.entry.creates.length;
      void w.router.tick();
      for (const create of w.entry.creates.slice(before)) sent.push(order.find((tag) => tag.endsWith(`:${create.clientOrderId}`))!);
    }
    const owners = sent.map((tag) => tag[0]).join('');
    // Weighted round robin 2:1 while both have work, then the rest of strategy 1.
    expect(owners).toBe('112112112111');
    // Within strategy 1 its markets alternate in the order they asked (FIFO of distinct orders).
    const tickers = sent.filter((tag) => tag[0] === '1').map((tag) => w.entry.creates.find((x) => tag.endsWith(`:${x.clientOrderId}`))!.ticker);
    expect(tickers).toEqual(['KX-A', 'KX-B', 'KX-C', 'KX-A', 'KX-B', 'KX-C', 'KX-A', 'KX-B', 'KX-C']);
  });

  it('a held create the gate now refuses for another reason is dropped with that code and reported', () => {
    const w = budgetWorld();
    spend(w);
    const held = place(w, '0.20');
    w.book.synced = false;
    w.clock.advance(1_000);
    w.book.updatedAtMs = w.clock.nowMs();
    void w.router.tick();
    expect(w.router.held.size).toBe(0);
    expect(w.heard).toEqual([[held.id, false, Deny.BOOK_NOT_SYNCED]]);
    expect(w.router.holdStats).toMatchObject({ heldDropped: 2, heldSent: 0 }); // spend()'s probe, then this one
  });

  it('the kill switch drops everything held', async () => {
    const w = budgetWorld();
    spend(w);
    const held = place(w, '0.20');
    await w.router.killSwitch('test');
    expect(w.router.held.size).toBe(0);
    expect(w.heard).toEqual([[held.id, false, Deny.KILL_SWITCH]]);
  });

  it('holds creates the route could only sign on the loop, without spending tokens, and the tick sends them as one batch', () => {
    const entry = new BatchEntry() as BatchEntry & { ready: boolean; createReady(): boolean };
    entry.ready = false;
    entry.createReady = () => entry.ready;
    const b = world({ limits: { rateTier: 'custom', writeTokensPerSecond: 500, writeCapacityTokens: 500, readTokensPerSecond: 100, cancelReserveShare: 0.1 } });
    const router = new Router({ gate: b.gate, oms: b.oms, route: entry, clock: b.clock, batchUnsigned: true });
    const tokens = b.gate.budget.writeTokens(b.clock.nowMs());
    for (let i = 0; i < 5; i++) expect(router.submit(newBid(b.market, '0.10'))).toBe(Deny.NONE);
    expect(entry.creates).toEqual([]);
    expect(router.held.size).toBe(5);
    expect(b.gate.budget.writeTokens(b.clock.nowMs())).toBe(tokens);
    // A create the gate refuses for another reason is denied at once, not held.
    expect(router.submit(newBid(b.market, '0.10', '0'))).not.toBe(Deny.NONE);
    void router.tick();
    expect(entry.batches.map((batch) => batch.length)).toEqual([5]);
    expect(b.gate.budget.writeTokens(b.clock.nowMs())).toBe(tokens - 50);
  });

  it('unsigned creates of one turn go out at its end as batches of at most 20, one alone on the single endpoint', async () => {
    const entry = new BatchEntry() as BatchEntry & { createReady(): boolean };
    entry.createReady = () => false;
    const b = world({ limits: { rateTier: 'custom', writeTokensPerSecond: 500, writeCapacityTokens: 500, readTokensPerSecond: 100, cancelReserveShare: 0.1 } });
    const router = new Router({ gate: b.gate, oms: b.oms, route: entry, clock: b.clock });
    const ids: string[] = [];
    for (let i = 0; i < 41; i++) {
      const intent = newBid(b.market, '0.10');
      expect(router.submit(intent)).toBe(Deny.NONE);
      ids.push(idOf(router, intent));
    }
    expect(entry.creates).toEqual([]); // nothing signed on the loop inside the turn
    await new Promise((resolve) => setImmediate(resolve));
    expect(entry.batches.map((batch) => batch.length)).toEqual([20, 20]);
    expect(entry.creates.map((order) => order.clientOrderId)).toEqual(ids); // the 41st alone, as a plain create
    expect(router.held.size).toBe(0);
    // A lone unsigned create in a later turn: the single endpoint, never a batch of one.
    const lone = newBid(b.market, '0.11');
    expect(router.submit(lone)).toBe(Deny.NONE);
    await new Promise((resolve) => setImmediate(resolve));
    expect(entry.batches.length).toBe(2);
    expect(entry.creates.at(-1)!.clientOrderId).toBe(idOf(router, lone));
  });

  it('cancels the route could only sign on the loop are collected into batch cancels at the end of the turn; a ready one goes at once', async () => {
    const entry = new BatchEntry() as BatchEntry & { cancelReady(order: { orderId: string }): boolean };
    entry.cancelReady = (order) => order.orderId === 'o-0';
    const b = world({ limits: { rateTier: 'custom', writeTokensPerSecond: 1_000, writeCapacityTokens: 1_000, readTokensPerSecond: 100, cancelReserveShare: 0.1 } });
    const router = new Router({ gate: b.gate, oms: b.oms, route: entry, clock: b.clock });
    const ids: string[] = [];
    for (let i = 0; i < 25; i++) {
      const intent = newBid(b.market, '0.10');
      expect(router.submit(intent)).toBe(Deny.NONE);
      entry.listener!.onCreateAck(idOf(router, intent), `o-${i}`, c('0'), c('1'), 0);
      ids.push(idOf(router, intent));
    }
    for (const id of ids) expect(router.cancel(id)).toBe(0);
    expect(entry.cancels.map((cancel) => cancel.orderId)).toEqual(['o-0']); // presigned: straight to the wire
    await new Promise((resolve) => setImmediate(resolve));
    expect(entry.cancelBatches.map((batch) => batch.orderIds.length)).toEqual([20, 4]);
    expect(entry.cancels.map((cancel) => cancel.orderId).sort()).toEqual(ids.map((_, i) => `o-${i}`).sort());
    for (let i = 0; i < 25; i++) entry.listener!.onCancelAck(`o-${i}`, c('1'), 0);
    expect(b.oms.liveOrders().length).toBe(0);
    b.gate.assertLedger(b.oms.liveOrders());
  });

  it('keeps held intents held while the route is saturated (requests already wait for a connection), and sends them once it is not', () => {
    const { entry, b, router } = saturableWorld();
    for (let i = 0; i < 12; i++) expect(router.submit(newBid(b.market, '0.10'))).toBe(Deny.NONE);
    expect(entry.creates.length).toBe(9); // 90 tokens (10 are the reserve); 3 held
    expect(router.held.size).toBe(3);
    b.clock.advance(1_000);
    entry.busy = true;
    void router.tick();
    expect(router.held.size).toBe(3);
    expect(entry.creates.length).toBe(9);
    entry.busy = false;
    void router.tick();
    expect(router.held.size).toBe(0);
    expect(entry.creates.length).toBe(12);
  });

  it('holds fresh creates and amends while the route is saturated, spending no token until they go; latest wins meanwhile', () => {
    const { entry, b, router } = saturableWorld();
    const w = { ...b, router, entry } as unknown as World;
    const first = place(w, '0.10');
    entry.listener!.onCreateAck(first.id, 'o-1', c('0'), c('1'), 0);
    entry.busy = true;
    const tokens = b.gate.budget.writeTokens(b.clock.nowMs());
    const second = place(w, '0.11');
    expect(second.deny).toBe(Deny.NONE);
    expect(modify(w, IntentKind.AMEND, first.id, '0.12', '1')).toBe(Deny.NONE);
    expect(modify(w, IntentKind.AMEND, first.id, '0.13', '1')).toBe(Deny.NONE); // replaces the held amend
    expect(entry.creates.map((order) => order.clientOrderId)).toEqual([first.id]);
    expect(entry.amends).toEqual([]);
    expect(router.held.size).toBe(2);
    expect(b.gate.budget.writeTokens(b.clock.nowMs())).toBe(tokens); // held: nothing spent yet
    expect(router.order(second.id)?.state).toBe(ORDER_STATE_HELD);
    entry.busy = false;
    void router.tick();
    expect(router.held.size).toBe(0);
    expect(entry.creates.map((order) => order.clientOrderId)).toEqual([first.id, second.id]);
    expect(entry.amends).toEqual([{ orderId: 'o-1', price: p('0.13'), count: c('1') }]);
    expect(b.gate.budget.writeTokens(b.clock.nowMs())).toBe(tokens - 20);
    b.gate.assertLedger(b.oms.liveOrders());
  });

  it('a strategy that asks not to be held is denied RATE_LIMITED as before', () => {
    const w = budgetWorld();
    w.router.setHolding(0, false, 1);
    const denies: Deny[] = [];
    for (let i = 0; i < 12; i++) denies.push(place(w, '0.20').deny);
    expect(denies).toEqual([...Array(9).fill(Deny.NONE), Deny.RATE_LIMITED, Deny.RATE_LIMITED, Deny.RATE_LIMITED]);
    expect(w.router.held.size).toBe(0);
  });

  it('creates released in one turn go out as V2 batches of at most 20 within the bucket, and the ledger stays equal to the live orders', () => {
    const entry = new BatchEntry();
    const b = world({ limits: { rateTier: 'custom', writeTokensPerSecond: 500, writeCapacityTokens: 500, readTokensPerSecond: 100, cancelReserveShare: 0.1 } });
    const router = new Router({ gate: b.gate, oms: b.oms, route: entry, clock: b.clock });
    const ids: string[] = [];
    for (let i = 0; i < 70; i++) {
      const intent = newBid(b.market, '0.10');
      expect(router.submit(intent)).toBe(Deny.NONE);
      ids.push(idOf(router, intent));
    }
    // 45 creates fit the first 450 tokens (50 are the reserve), one by one; 25 are held.
    expect(entry.creates.length).toBe(45);
    expect(router.held.size).toBe(25);
    b.clock.advance(500); // 250 tokens: 25 creates
    void router.tick();
    expect(entry.batches.map((batch) => batch.length)).toEqual([20, 5]);
    expect(entry.batches.flat()).toEqual(ids.slice(45));
    expect(router.held.size).toBe(0);
    expect(b.gate.budget.writeTokens(b.clock.nowMs())).toBeLessThan(b.gate.budget.writeReserve + 10);
    // Partly rejected batch: each item's answer applies to its own order.
    const [first, second] = entry.batches[0]!;
    entry.listener!.onCreateAck(first!, 'o-first', c('0'), c('1'), 0);
    entry.listener!.onCreateReject(second!, { status: 400, code: 'invalid_price', message: '', details: '' });
    expect(b.oms.order(first!)!.state).toBe(S.RESTING);
    expect(b.oms.order(second!)!.state).toBe(S.REJECTED);
    expect(() => b.gate.assertLedger(b.oms.liveOrders())).not.toThrow();
  });
});

describe('the ledger check on the coarse tick', () => {
  it('runs once a second up to 1,000 live orders and stretches in proportion above (3,000: every 3 s)', () => {
    const limits = { rateTier: 'custom' as const, writeTokensPerSecond: 1_000_000, writeCapacityTokens: 1_000_000, readTokensPerSecond: 1_000_000 };
    const checksOver = (live: number): number => {
      const w = world({ limits });
      for (let i = 0; i < live; i++) expect(place(w, '0.10').deny).toBe(Deny.NONE);
      expect(w.oms.liveOrderCount).toBe(live);
      const before = w.router.ledgerChecks;
      for (let second = 0; second < 30; second++) {
        w.clock.advance(1_000);
        w.router.tick();
      }
      return w.router.ledgerChecks - before;
    };
    expect(checksOver(10)).toBe(30);
    const stretched = checksOver(3_000);
    expect(stretched).toBeGreaterThanOrEqual(9);
    expect(stretched).toBeLessThanOrEqual(11);
  });
});
