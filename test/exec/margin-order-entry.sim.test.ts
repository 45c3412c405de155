// Goal: MarginOrderEntry trades the Margin exchange correctly beyond the shared contract: a
// whole-contract order rests and fills against a counterparty and the venue holds the right
// position (seen both in the engine and through the route's reads, with order_source); a
// fractional count is refused before anything is sent (coded ExecError, no request, no listener
// call); reduce-only is capped by the position and refused when it cannot reduce or rests; the
// amend's remaining count after immediate fills; cancel-all; perpetual prices above $1 (a
// $100,000.00 contract is 1e9 price units) round-trip exactly.
// Method: startSim in-process on 127.0.0.1:0 with a temporary key directory; the demo user and a
// counterparty each trade through their own MarginOrderEntry over real sockets (presigned signing
// for the demo user, inline for the counterparty); the venue is checked through the simulator's
// Margin engine and through the route's reads. Waits are bounded polls.

import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { COUNT_INVALID, loadPrivateKey, systemClock, type Count, type Price } from '../../src/core/index.ts';
import { ExecError, type NewOrder } from '../../src/oms/index.ts';
import { MARGIN_ORDER_ENTRY_DEFAULTS, MarginOrderEntry, type MarginOrderEntryOptions } from '../../src/exec/index.ts';
import { startSim, type SimHandle } from '../../src/sim/index.ts';
import { ListenerWithUnknowns } from './recording-listener.ts';

const TICKER = 'KXBTCPERP'; // tick $0.01, mark $100.00
const ETH = 'KXETHPERP';

function order(overrides: Partial<NewOrder> = {}): NewOrder {
  return {
    clientOrderId: randomUUID(), ticker: TICKER, side: 'bid', price: 1_000_000 as Price, count: 300 as Count,
    timeInForce: 'good_till_canceled', postOnly: false, reduceOnly: false, selfTradePrevention: 'taker_at_cross',
    subaccount: 0, orderGroupId: null, expirationTs: 0, ...overrides,
  };
}

let sim: SimHandle;
let workDir: string;
let ours: MarginOrderEntry;
let theirs: MarginOrderEntry;
const listener = new ListenerWithUnknowns();
const counterListener = new ListenerWithUnknowns();
const COUNTERPARTY = 'margin-counterparty';

function options(key: { keyId: string; privateKeyPem: string }, overrides: Partial<MarginOrderEntryOptions> = {}): MarginOrderEntryOptions {
  return {
    ...MARGIN_ORDER_ENTRY_DEFAULTS, baseUrl: sim.httpUrl, keyId: key.keyId, privateKey: loadPrivateKey(key.privateKeyPem), clock: systemClock,
    connections: 2, headersTimeoutMs: 5_000, bodyTimeoutMs: 5_000, keepAliveIntervalMs: 0,
    presign: { ...MARGIN_ORDER_ENTRY_DEFAULTS.presign, createCapacity: 4, orderCapacity: 8 },
    ...overrides,
  };
}

/** The venue's position of `userId` in `ticker` (count units), from the Margin engine. */
function venuePosition(userId: string, ticker: string): number {
  return sim.services.margin.accountsOf(userId).find((a) => a.subaccount === 0)?.positions.get(ticker)?.count ?? 0;
}

async function created(route: MarginOrderEntry, recorder: ListenerWithUnknowns, create: NewOrder): Promise<unknown[]> {
  route.create(create);
  return recorder.outcome('create', create.clientOrderId);
}

beforeAll(async () => {
  workDir = mkdtempSync(join(tmpdir(), 'margin-route-'));
  sim = await startSim({ keysDir: join(workDir, 'keys'), logger: pino({ level: 'silent' }), rateLimits: false });
  const counterKey = sim.createApiKey({ scopes: ['read', 'write'], userId: COUNTERPARTY, subaccount: 0, tier: 'prime' });
  ours = new MarginOrderEntry(options(sim.demoKey));
  theirs = new MarginOrderEntry(options(counterKey, { signing: 'inline' }));
  ours.setListener(listener);
  theirs.setListener(counterListener);
  await Promise.all([ours.connect(), theirs.connect()]);
});

afterAll(async () => {
  await ours?.close();
  await theirs?.close();
  await sim?.close();
  rmSync(workDir, { recursive: true, force: true });
});

describe('MarginOrderEntry against the simulator', () => {
  it('a whole-contract order rests, fills against a counterparty, and the venue holds the position', async () => {
    const bid = order({ price: 990_000 as Price, count: 300 as Count }); // 3 contracts at $99.00
    const ack = await created(ours, listener, bid);
    expect(ack.slice(0, 1).concat(ack.slice(3, 5))).toEqual(['createAck', 0, 300]);
    const orderId = ack[2] as string;
    const resting = await ours.listOrders({ ticker: TICKER, status: 'resting' });
    expect(resting.find((o) => o.orderId === orderId)).toMatchObject({ price: 990_000, remainingCount: 300, fillCount: 0, status: 'resting', orderSource: 'user', orderReason: null });

    const sell = order({ side: 'ask', price: 990_000 as Price, count: 200 as Count, timeInForce: 'immediate_or_cancel' });
    const fill = await created(theirs, counterListener, sell);
    expect([fill[0], fill[3], fill[4]]).toEqual(['createAck', 200, 0]);

    expect(venuePosition(sim.userId, TICKER)).toBe(200);
    expect(venuePosition(COUNTERPARTY, TICKER)).toBe(-200);
    const positions = await ours.listPositions({ ticker: TICKER, subaccount: 0 });
    expect(positions).toEqual([expect.objectContaining({ ticker: TICKER, position: 200, subaccount: 0, entryPrice: 990_000 })]);
    const after = (await ours.listOrders({ ticker: TICKER })).find((o) => o.orderId === orderId);
    expect(after).toMatchObject({ status: 'resting', fillCount: 200, remainingCount: 100, initialCount: 300 });
    const fills = await ours.listFills({ orderId });
    expect(fills).toEqual([expect.objectContaining({ orderId, ticker: TICKER, side: 'bid', price: 990_000, count: 200, isTaker: false, orderSource: 'user' })]);
    expect(fills[0]!.feeCenticents).toBeGreaterThanOrEqual(0);
    ours.cancel(orderId, 0);
    expect((await listener.outcome('cancel', orderId)).slice(0, 3)).toEqual(['cancelAck', orderId, 100]);
  });

  it('a count that is not a whole contract is refused before sending, with a coded ExecError', () => {
    const requestsBefore = ours.stats.requests;
    const eventsBefore = listener.events.length;
    const ordersBefore = sim.services.margin.orderList.length;
    const fractional = order({ count: 150 as Count });
    let thrown: unknown = null;
    try {
      ours.create(fractional);
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(ExecError);
    expect(thrown).toMatchObject({ code: 'EXEC_REJECTED', status: 0, reject: { status: 0, code: 'margin_count_not_whole' } });
    expect(() => ours.amend('any', TICKER, 'bid', 990_000 as Price, 250 as Count, 0)).toThrow(ExecError);
    expect(() => ours.decrease('any', 50 as Count, 0)).toThrow(ExecError);
    expect(() => ours.create(order({ price: 0 as Price }))).toThrow(expect.objectContaining({ reject: expect.objectContaining({ code: 'margin_price_invalid' }) }));
    expect(ours.stats.requests).toBe(requestsBefore); // nothing sent
    expect(listener.events.length).toBe(eventsBefore); // and no outcome to reconcile
    expect(sim.services.margin.orderList.length).toBe(ordersBefore);
  });

  it('reduce-only: capped by the position, refused when it would not reduce or would rest', async () => {
    expect(venuePosition(sim.userId, TICKER)).toBe(200); // long 2 from the first case
    const gtc = order({ side: 'ask', reduceOnly: true, timeInForce: 'good_till_canceled' });
    expect(await created(ours, listener, gtc)).toMatchObject(['createReject', gtc.clientOrderId, { status: 400, code: 'invalid_order' }]);
    const wrongWay = order({ side: 'bid', reduceOnly: true, timeInForce: 'immediate_or_cancel' });
    expect(await created(ours, listener, wrongWay)).toMatchObject(['createReject', wrongWay.clientOrderId, { status: 400, code: 'invalid_order' }]);

    const theirBid = await created(theirs, counterListener, order({ side: 'bid', price: 980_000 as Price, count: 500 as Count }));
    expect(theirBid[0]).toBe('createAck');
    const close = order({ side: 'ask', price: 980_000 as Price, count: 500 as Count, reduceOnly: true, timeInForce: 'immediate_or_cancel' });
    const ack = await created(ours, listener, close);
    expect([ack[0], ack[3], ack[4]]).toEqual(['createAck', 200, 0]); // 5 asked, 2 held: 2 filled
    expect(venuePosition(sim.userId, TICKER)).toBe(0);
    expect(await ours.listPositions({ ticker: TICKER })).toEqual([]);
    await theirs.cancelAll(null);
  });

  it("amend returns the remaining count after immediate fills; an amend that changes nothing returns none", async () => {
    const ourBid = await created(ours, listener, order({ ticker: ETH, price: 290_000 as Price, count: 500 as Count }));
    const orderId = ourBid[2] as string;
    const theirAsk = await created(theirs, counterListener, order({ ticker: ETH, side: 'ask', price: 295_000 as Price, count: 200 as Count }));
    expect(theirAsk[0]).toBe('createAck');
    ours.amend(orderId, ETH, 'bid', 295_000 as Price, 500 as Count, 0);
    expect((await listener.outcome('amend', orderId)).slice(0, 4)).toEqual(['amendAck', orderId, 200, 300]);
    expect(venuePosition(sim.userId, ETH)).toBe(200);
    listener.events.length = 0;
    ours.amend(orderId, ETH, 'bid', 295_000 as Price, 500 as Count, 0); // same price and total: nothing changes
    expect((await listener.outcome('amend', orderId)).slice(0, 4)).toEqual(['amendAck', orderId, COUNT_INVALID, COUNT_INVALID]);
    ours.decrease(orderId, 100 as Count, 0);
    expect((await listener.outcome('decrease', orderId)).slice(0, 3)).toEqual(['decreaseAck', orderId, 200]);
  });

  it('cancel-all leaves nothing resting on the venue; a $100,000.00 price round-trips as 1e9 units', async () => {
    const high = order({ price: 1_000_000_000 as Price, count: 100 as Count, side: 'ask' }); // $100,000.00
    const ack = await created(ours, listener, high);
    expect(ack[0]).toBe('createAck');
    const low = await created(ours, listener, order({ price: 10_000 as Price, count: 100 as Count }));
    expect(low[0]).toBe('createAck');
    const listed = await ours.listOrders({ ticker: TICKER, status: 'resting' });
    expect(listed.find((o) => o.orderId === ack[2])).toMatchObject({ price: 1_000_000_000, side: 'ask' });
    expect(sim.services.margin.orderList.some((o) => o.userId === sim.userId && o.status === 'resting')).toBe(true);
    await ours.cancelAll(null);
    expect(sim.services.margin.orderList.filter((o) => o.userId === sim.userId && o.status === 'resting')).toEqual([]);
    expect(await ours.listOrders({ status: 'resting' })).toEqual([]);
    const cancelled = (await ours.listOrders({ ticker: TICKER })).find((o) => o.orderId === ack[2]);
    expect(cancelled).toMatchObject({ status: 'canceled', remainingCount: 0, lastUpdateReason: 'MarginCancel' });
  });

  it('the keep-warm\'s rehearsals: a create and an amend of the order tracked last assembled on the route\'s own state, nothing sent, signed or resting; the real amend after is whole', async () => {
    const until = async (predicate: () => boolean): Promise<void> => {
      const deadline = Date.now() + 10_000;
      for (let i = 0; i < 1_000 && !predicate() && Date.now() < deadline; i++) await new Promise((resolve) => setTimeout(resolve, 10));
      expect(predicate()).toBe(true);
    };
    const rehearsed = order({ price: 900_000 as Price, count: 100 as Count });
    await until(() => ours.rehearseCreate(rehearsed) > 0); // the create path's presigned signature is ready
    // A Margin rule broken (a fractional count): nothing assembled.
    expect(ours.rehearseCreate(order({ count: 150 as Count }))).toBe(-1);
    const resting = (): number => sim.services.margin.orderList.filter((o) => o.userId === sim.userId && o.status === 'resting').length;
    const restingBefore = resting();
    const requests = ours.stats.requests;
    const presigned = ours.stats.presigned;
    for (let i = 0; i < 50; i++) expect(ours.rehearseCreate(rehearsed)).toBeGreaterThan(500); // head, signature, body
    expect(ours.stats.requests).toBe(requests);
    expect(ours.stats.presigned).toBe(presigned);

    // The real create: acked, tracked; then its amend rehearsed on its per-order path and signature.
    const ack = await created(ours, listener, rehearsed);
    expect(ack[0]).toBe('createAck');
    const orderId = ack[2] as string;
    await until(() => ours.rehearseAmend(TICKER, 'bid', 890_000 as Price, 100 as Count, 0) > 0);
    expect(ours.rehearseAmend(TICKER, 'bid', 890_000 as Price, 150 as Count, 0)).toBe(-1); // a Margin rule broken
    const afterCreate = ours.stats.requests;
    for (let i = 0; i < 50; i++) expect(ours.rehearseAmend(TICKER, 'bid', 890_000 as Price, 100 as Count, 0)).toBeGreaterThan(500);
    expect(ours.stats.requests).toBe(afterCreate);
    await new Promise((resolve) => setTimeout(resolve, 100)); // room for anything that was sent to arrive
    expect(resting()).toBe(restingBefore + 1); // only the real create rests
    expect((await ours.listOrders({ ticker: TICKER, status: 'resting' })).find((o) => o.orderId === orderId)).toMatchObject({ price: 900_000 });

    // The real amend after the rehearsals: sent, acked, the venue's order at the new price.
    ours.amend(orderId, TICKER, 'bid', 890_000 as Price, 100 as Count, 0);
    expect((await listener.outcome('amend', orderId)).slice(0, 2)).toEqual(['amendAck', orderId]);
    expect((await ours.listOrders({ ticker: TICKER, status: 'resting' })).find((o) => o.orderId === orderId)).toMatchObject({ price: 890_000 });
    ours.cancel(orderId, 0);
    expect((await listener.outcome('cancel', orderId))[0]).toBe('cancelAck');
  });
});
