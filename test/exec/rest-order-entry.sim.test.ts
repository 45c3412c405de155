// Goal: RestOrderEntry trades correctly against the real simulator over sockets: create, amend,
// decrease, cancel (batched and single route), batches, cancel-all, order groups, the
// reconciliation reads, exchange rejects (409, 400 invalid_price, 404) and injected faults
// (an order applied but answered 5xx is reported unknown and found by listOrders; an amend,
// decrease and single cancel applied but answered 5xx / never / cut off are unknown and visible in
// getOrder).
// Method: startSim in-process on 127.0.0.1:0 with a temporary key directory; the runtime reaches it
// only through RestOrderEntry (presigned and inline signing; order mutations on its raw client,
// cancel-all and reads on undici pools); a second user's key provides the counterparty for fills.
// Waits poll listener events with bounded loops.

import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadPrivateKey, systemClock, type Count, type Price } from '../../src/core/index.ts';
import {
  ACCOUNT_CLIENT_DEFAULTS,
  AccountClient,
  REST_ORDER_ENTRY_DEFAULTS,
  RestOrderEntry,
  type RestOrderEntryOptions,
} from '../../src/exec/index.ts';
import type { NewOrder } from '../../src/oms/index.ts';
import { startSim, type SimHandle } from '../../src/sim/index.ts';
import { ListenerWithUnknowns } from './recording-listener.ts';

const TICKER = 'KXDEMO-26DEC31-T50'; // linear_cent grid

function order(overrides: Partial<NewOrder> = {}): NewOrder {
  return {
    clientOrderId: randomUUID(), ticker: TICKER, side: 'bid', price: 3000 as Price, count: 1000 as Count,
    timeInForce: 'good_till_canceled', postOnly: true, reduceOnly: false, selfTradePrevention: 'taker_at_cross',
    subaccount: 0, orderGroupId: null, expirationTs: 0, ...overrides,
  };
}

let sim: SimHandle;
let keysDir: string;

function options(keyId: string, pem: string, overrides: Partial<RestOrderEntryOptions> = {}): RestOrderEntryOptions {
  return {
    ...REST_ORDER_ENTRY_DEFAULTS,
    baseUrl: sim.httpUrl,
    keyId,
    privateKey: loadPrivateKey(pem),
    clock: systemClock,
    connections: 2,
    headersTimeoutMs: 5_000, // generous: a loaded machine must not turn a slow ack into a timeout
    bodyTimeoutMs: 5_000,
    keepAliveIntervalMs: 0,
    presign: { ...REST_ORDER_ENTRY_DEFAULTS.presign, createCapacity: 8, batchCapacity: 4 },
    ...overrides,
  };
}

async function until(condition: () => boolean): Promise<void> {
  const deadline = Date.now() + 10_000;
  for (let i = 0; i < 1_000 && !condition() && Date.now() < deadline; i++) await new Promise((resolve) => setTimeout(resolve, 10));
  expect(condition()).toBe(true);
}

let counterpartyKey: { keyId: string; privateKeyPem: string };

beforeAll(async () => {
  keysDir = mkdtempSync(join(tmpdir(), 'exec-sim-keys-'));
  sim = await startSim({ keysDir, rateLimits: false });
  counterpartyKey = sim.createApiKey({ scopes: ['read', 'write'], userId: 'counterparty-user', tier: 'prime' });
});

afterAll(async () => {
  await sim?.close();
  rmSync(keysDir, { recursive: true, force: true });
});

describe('RestOrderEntry against the simulator', () => {
  let entry: RestOrderEntry;
  let account: AccountClient;
  let counterparty: RestOrderEntry;
  let counterpartyAccount: AccountClient;
  const listener = new ListenerWithUnknowns();
  const counterpartyListener = new ListenerWithUnknowns();

  beforeAll(async () => {
    sim.faults.clear();
    entry = new RestOrderEntry(options(sim.demoKey.keyId, sim.demoKey.privateKeyPem));
    entry.setListener(listener);
    await entry.connect();
    account = new AccountClient({
      ...ACCOUNT_CLIENT_DEFAULTS,
      baseUrl: sim.httpUrl,
      keyId: sim.demoKey.keyId,
      privateKey: loadPrivateKey(sim.demoKey.privateKeyPem),
      clock: systemClock,
      presigner: () => entry.presigner,
    });
    await account.connect();
    counterparty = new RestOrderEntry(options(counterpartyKey.keyId, counterpartyKey.privateKeyPem, { signing: 'inline', cancelRoute: 'single' }));
    counterparty.setListener(counterpartyListener);
    await counterparty.connect();
    counterpartyAccount = new AccountClient({
      ...ACCOUNT_CLIENT_DEFAULTS,
      baseUrl: sim.httpUrl,
      keyId: counterpartyKey.keyId,
      privateKey: loadPrivateKey(counterpartyKey.privateKeyPem),
      clock: systemClock,
    });
  });

  afterAll(async () => {
    await entry?.close();
    await account?.close();
    await counterparty?.close();
    await counterpartyAccount?.close();
  });

  it('create -> amend -> decrease -> cancel, visible in listOrders at each step', async () => {
    const create = order({ price: 3100 as Price });
    entry.create(create);
    const ack = await listener.outcome('create', create.clientOrderId);
    expect(ack[0]).toBe('createAck');
    const orderId = ack[2] as string;
    expect(ack.slice(3, 5)).toEqual([0, 1000]);

    let resting = await account.listOrders({ ticker: TICKER, status: 'resting' });
    const listed = resting.find((o) => o.orderId === orderId)!;
    expect(listed).toMatchObject({ clientOrderId: create.clientOrderId, side: 'bid', price: 3100, remainingCount: 1000, status: 'resting' });

    entry.amend(orderId, TICKER, 'bid', 3200 as Price, 800 as Count, 0);
    expect((await listener.outcome('amend', orderId)).slice(0, 4)).toEqual(['amendAck', orderId, 0, 800]);
    entry.decrease(orderId, 300 as Count, 0);
    expect((await listener.outcome('decrease', orderId)).slice(0, 3)).toEqual(['decreaseAck', orderId, 500]);

    const fetched = await account.getOrder(orderId);
    expect(fetched).toMatchObject({ price: 3200, remainingCount: 500 });

    entry.cancel(orderId, 0); // batched route, presigned
    expect((await listener.outcome('cancel', orderId)).slice(0, 3)).toEqual(['cancelAck', orderId, 500]);
    resting = await account.listOrders({ ticker: TICKER, status: 'resting' });
    expect(resting.some((o) => o.orderId === orderId)).toBe(false);
    expect(entry.stats.presigned).toBeGreaterThanOrEqual(2);

    // Cancelling again: the exchange says not_found (batched item error, then single-route 404).
    listener.events.length = 0;
    entry.cancel(orderId, 0);
    expect(await listener.outcome('cancel', orderId)).toMatchObject(['cancelReject', orderId, { code: 'not_found' }]);
    counterparty.cancel(orderId, 0);
    const single = await counterpartyListener.outcome('cancel', orderId);
    expect((single[2] as { status: number }).status).toBe(404);
  });

  it('rehearseCreate assembles a create on the route\'s own connection and next signature, and sends nothing; the real create after it goes out as usual', async () => {
    await until(() => (entry.presigner?.size(0) ?? 0) > 0);
    const rehearsed = order({ price: 3300 as Price });
    const requests = entry.stats.requests;
    const taken = entry.presigner!.stats.taken;
    const ringSize = entry.presigner!.size(0);
    const restingBefore = await account.listOrders({ ticker: TICKER, status: 'resting' });
    for (let i = 0; i < 50; i++) expect(entry.rehearseCreate(rehearsed)).toBeGreaterThan(500); // head, signature, body
    expect(entry.stats.requests).toBe(requests);
    expect(entry.presigner!.stats.taken).toBe(taken);
    expect(entry.presigner!.size(0)).toBe(ringSize);
    await new Promise((resolve) => setTimeout(resolve, 100)); // room for anything that was sent to arrive
    const restingAfter = await account.listOrders({ ticker: TICKER, status: 'resting' });
    expect(restingAfter.some((o) => o.clientOrderId === rehearsed.clientOrderId)).toBe(false);
    expect(restingAfter.length).toBe(restingBefore.length);
    // The create that follows, on the same connection and signature the rehearsals used, is whole.
    entry.create(rehearsed);
    const ack = await listener.outcome('create', rehearsed.clientOrderId);
    expect(ack[0]).toBe('createAck');
    expect(entry.presigner!.stats.taken).toBe(taken + 1);
    entry.cancel(ack[2] as string, 0);
    expect((await listener.outcome('cancel', ack[2] as string))[0]).toBe('cancelAck');
    // Nothing to assemble with: a route signing inline has no presigned signature to read.
    expect(counterparty.rehearseCreate(rehearsed)).toBe(-1);
  });

  it('rehearseAmend assembles an amend of the order tracked last with its next per-order signature, and sends nothing; the real amend after it takes that signature', async () => {
    const resting = order({ price: 3400 as Price });
    entry.create(resting);
    const ack = await listener.outcome('create', resting.clientOrderId);
    const orderId = ack[2] as string;
    const paths = entry.orderPathStats!;
    // The create's ack tracks the order; its amend path is signed on the next flush (the worker answers).
    await until(() => entry.rehearseAmend(TICKER, 'bid', 3300 as Price, 1000 as Count, 0) > 0);
    const requests = entry.stats.requests;
    const taken = paths.taken;
    for (let i = 0; i < 50; i++) expect(entry.rehearseAmend(TICKER, 'bid', 3300 as Price, 1000 as Count, 0)).toBeGreaterThan(500); // head with the order's path, signature, body
    expect(entry.stats.requests).toBe(requests);
    expect(paths.taken).toBe(taken);
    await new Promise((resolve) => setTimeout(resolve, 100)); // room for anything that was sent to arrive
    const [before] = (await account.listOrders({ ticker: TICKER, status: 'resting' })).filter((o) => o.orderId === orderId);
    expect(before?.price).toBe(3400); // not amended by any rehearsal
    // The amend that follows takes the signature the rehearsals read, and is whole.
    const presigned = entry.stats.presigned;
    entry.amend(orderId, TICKER, 'bid', 3300 as Price, 1000 as Count, 0);
    expect((await listener.outcome('amend', orderId)).slice(0, 2)).toEqual(['amendAck', orderId]);
    expect(paths.taken).toBe(taken + 1);
    expect(entry.stats.presigned).toBe(presigned + 1);
    entry.cancel(orderId, 0);
    expect((await listener.outcome('cancel', orderId))[0]).toBe('cancelAck');
    // Cancelled: no longer tracked, so nothing to rehearse on; a route without per-order signatures has none either.
    await until(() => entry.rehearseAmend(TICKER, 'bid', 3300 as Price, 1000 as Count, 0) === -1);
    expect(counterparty.rehearseAmend(TICKER, 'bid', 3300 as Price, 1000 as Count, 0)).toBe(-1);
  });

  it('cancelOrder: the venue id written from the order\'s bytes, answered by its handle, its string never read; not_found and an applied cancel answered 5xx keyed alike', async () => {
    const create = order({ price: 3300 as Price });
    entry.create(create);
    const ack = await listener.outcome('create', create.clientOrderId);
    const orderId = ack[2] as string;
    const handle = 424_242;
    // A VenueOrderRef whose text may not be read: the route writes the bytes and matches the echo by comparison.
    const bytes = Buffer.from(orderId, 'latin1');
    const ref = {
      handle,
      subaccount: 0,
      get orderId(): string {
        throw new Error('the id string was read');
      },
      writeOrderId: (out: Uint8Array, at: number): number => {
        out.set(bytes, at);
        return at + bytes.length;
      },
      orderIdIs: (text: string): boolean => text === orderId,
    };
    listener.events.length = 0;
    entry.cancelOrder(ref);
    expect((await listener.outcome('cancel', handle)).slice(0, 3)).toEqual(['cancelAck', handle, 1000]);
    expect((await account.listOrders({ ticker: TICKER, status: 'resting' })).some((o) => o.orderId === orderId)).toBe(false);
    // Again: the venue's not_found item, keyed by the handle.
    listener.events.length = 0;
    entry.cancelOrder(ref);
    expect(await listener.outcome('cancel', handle)).toMatchObject(['cancelReject', handle, { code: 'not_found' }]);
    // Applied but answered 5xx: unknown, keyed by the handle; the order is gone at the venue.
    listener.events.length = 0;
    const second = order({ price: 3300 as Price });
    entry.create(second);
    const secondId = (await listener.outcome('create', second.clientOrderId))[2] as string;
    const fault = sim.faults.add({ kind: 'ambiguous_order', mode: 'error', target: { times: 1, method: 'DELETE', path: '/portfolio/events/orders/batched' } });
    try {
      entry.cancelOrder({ handle: handle + 1, subaccount: 0, orderId: '(not read)', writeOrderId: (out: Uint8Array, at: number) => at + Buffer.from(out.buffer, out.byteOffset, out.length).write(secondId, at, 'latin1'), orderIdIs: (text: string) => text === secondId });
      expect(await listener.outcome('cancel', handle + 1)).toEqual(['cancelUnknown', handle + 1, 'EXEC_HTTP_5XX']);
    } finally {
      sim.faults.remove(fault);
    }
    expect(await account.getOrder(secondId)).toMatchObject({ status: 'canceled' });
    // An order without a handle goes by its text (cancel()): the venue's not_found for the cancelled order, keyed by the id.
    entry.cancelOrder({ handle: 0, subaccount: 0, orderId: secondId, writeOrderId: () => -1, orderIdIs: (text: string) => text === secondId });
    expect(await listener.outcome('cancel', secondId)).toMatchObject(['cancelReject', secondId, { code: 'not_found' }]);
  });

  it('reports exchange rejects: duplicate client order id (409) and an off-grid price (400 invalid_price)', async () => {
    const first = order({ price: 2000 as Price });
    entry.create(first);
    await listener.outcome('create', first.clientOrderId);
    listener.events.length = 0;
    entry.create({ ...first, price: 2100 as Price });
    expect(await listener.outcome('create', first.clientOrderId)).toMatchObject(['createReject', first.clientOrderId, { status: 409, code: 'order_already_exists' }]);
    const offGrid = order({ price: 2150 as Price });
    entry.create(offGrid);
    expect(await listener.outcome('create', offGrid.clientOrderId)).toMatchObject(['createReject', offGrid.clientOrderId, { status: 400, code: 'invalid_price' }]);
  });

  it('the account client reads the balance in centicents, the same figure the venue sends in cents', async () => {
    const balance = await account.getBalance(0);
    expect(balance.balance).toBeGreaterThan(0);
    expect(Number.isSafeInteger(balance.balance)).toBe(true);
    expect(balance.updatedTs).toBeGreaterThan(0);
    const error = await account.getOrder('no-such-order');
    expect(error).toBeNull();
  });

  it('fills against a counterparty show in listFills and listPositions', async () => {
    const positionOf = (positions: { ticker: string; position: number }[]) => positions.find((p) => p.ticker === TICKER)?.position ?? 0;
    const oursBefore = positionOf(await account.listPositions({ ticker: TICKER }));
    const theirsBefore = positionOf(await counterpartyAccount.listPositions({ ticker: TICKER }));
    const bid = order({ price: 4500 as Price, count: 300 as Count });
    entry.create(bid);
    const bidAck = await listener.outcome('create', bid.clientOrderId);
    const bidId = bidAck[2] as string;
    const take = order({ side: 'ask', price: 4500 as Price, count: 200 as Count, postOnly: false, timeInForce: 'immediate_or_cancel' });
    counterparty.create(take);
    expect((await counterpartyListener.outcome('create', take.clientOrderId)).slice(3, 5)).toEqual([200, 0]);

    const fills = await account.listFills({ orderId: bidId });
    expect(fills).toHaveLength(1);
    expect(fills[0]).toMatchObject({ orderId: bidId, ticker: TICKER, side: 'bid', price: 4500, count: 200, isTaker: false });
    expect(positionOf(await account.listPositions({ ticker: TICKER })) - oursBefore).toBe(200);
    expect(positionOf(await counterpartyAccount.listPositions({ ticker: TICKER })) - theirsBefore).toBe(-200);
  });

  it('batch create and batch cancel report each order', async () => {
    const orders = [order({ price: 1000 as Price }), order({ price: 1100 as Price }), order({ price: 1150 as Price })];
    entry.createBatch(orders);
    const acks = await Promise.all(orders.map((o) => listener.outcome('create', o.clientOrderId)));
    expect(acks[0]![0]).toBe('createAck');
    expect(acks[1]![0]).toBe('createAck');
    expect(acks[2]).toMatchObject(['createReject', orders[2]!.clientOrderId, { code: 'invalid_price' }]);
    const ids = [acks[0]![2] as string, acks[1]![2] as string];
    entry.cancelBatch(ids, 0);
    for (const id of ids) expect((await listener.outcome('cancel', id)).slice(0, 3)).toEqual(['cancelAck', id, 1000]);
  });

  it('cancelAll empties the book of resting orders', async () => {
    const orders = [order({ price: 500 as Price }), order({ price: 600 as Price, side: 'ask' })];
    for (const o of orders) entry.create(o);
    for (const o of orders) await listener.outcome('create', o.clientOrderId);
    expect((await account.listOrders({ status: 'resting' })).length).toBeGreaterThanOrEqual(2);
    await entry.cancelAll(null);
    expect(await account.listOrders({ status: 'resting' })).toEqual([]);
  });

  it('order groups: create, use, trigger cancels the group orders, reset, delete', async () => {
    const groupId = await account.createOrderGroup(1000 as Count, 0);
    const grouped = order({ price: 700 as Price, orderGroupId: groupId });
    entry.create(grouped);
    const ack = await listener.outcome('create', grouped.clientOrderId);
    const orderId = ack[2] as string;
    await account.triggerOrderGroup(groupId, 0);
    expect((await account.getOrder(orderId))?.status).toBe('canceled');
    await account.resetOrderGroup(groupId, 0);
    await account.setOrderGroupLimit(groupId, 500 as Count, 0);
    await account.deleteOrderGroup(groupId, 0);
  });

  it('an order applied but answered 500 is unknown, and reconciliation finds it resting', async () => {
    const rule = sim.faults.add({ kind: 'ambiguous_order', mode: 'error', target: { times: 1, method: 'POST', path: '/portfolio/events/orders' } });
    const ambiguous = order({ price: 800 as Price });
    entry.create(ambiguous);
    expect(await listener.outcome('create', ambiguous.clientOrderId)).toEqual(['createUnknown', ambiguous.clientOrderId, 'EXEC_HTTP_5XX']);
    sim.faults.remove(rule);
    const resting = await account.listOrders({ ticker: TICKER, status: 'resting' });
    expect(resting.some((o) => o.clientOrderId === ambiguous.clientOrderId)).toBe(true);
  });

  it('amend answered 500, decrease unanswered, single cancel cut off: each applied, reported unknown, found by reconciliation', async () => {
    const shortListener = new ListenerWithUnknowns();
    const short = new RestOrderEntry(options(sim.demoKey.keyId, sim.demoKey.privateKeyPem, { headersTimeoutMs: 1_000, bodyTimeoutMs: 1_000, cancelRoute: 'single' }));
    short.setListener(shortListener);
    try {
      await short.connect();
      const resting = order({ price: 1200 as Price });
      short.create(resting);
      const orderId = (await shortListener.outcome('create', resting.clientOrderId))[2] as string;
      const writtenBefore = short.rawStats.written;

      const amendFault = sim.faults.add({ kind: 'ambiguous_order', mode: 'error', target: { times: 1, method: 'POST', path: '/portfolio/events/orders/{order_id}/amend' } });
      short.amend(orderId, TICKER, 'bid', 1300 as Price, 1000 as Count, 0);
      expect(await shortListener.outcome('amend', orderId)).toEqual(['amendUnknown', orderId, 'EXEC_HTTP_5XX']);
      sim.faults.remove(amendFault);
      expect(await account.getOrder(orderId)).toMatchObject({ price: 1300, remainingCount: 1000, status: 'resting' });

      const decreaseFault = sim.faults.add({ kind: 'ambiguous_order', mode: 'hang', target: { times: 1, method: 'POST', path: '/portfolio/events/orders/{order_id}/decrease' } });
      short.decrease(orderId, 400 as Count, 0);
      expect(await shortListener.outcome('decrease', orderId)).toEqual(['decreaseUnknown', orderId, 'EXEC_TIMEOUT']);
      sim.faults.remove(decreaseFault);
      expect(await account.getOrder(orderId)).toMatchObject({ remainingCount: 600, status: 'resting' });

      const cancelFault = sim.faults.add({ kind: 'ambiguous_order', mode: 'close', target: { times: 1, method: 'DELETE', path: '/portfolio/events/orders/{order_id}' } });
      short.cancel(orderId, 0);
      expect(await shortListener.outcome('cancel', orderId)).toEqual(['cancelUnknown', orderId, 'EXEC_DISCONNECTED']);
      sim.faults.remove(cancelFault);
      expect((await account.getOrder(orderId))?.status).toBe('canceled');

      // All three went out on the raw client, which ended the hung one on its tick.
      expect(short.rawStats.written - writtenBefore).toBe(3);
      expect(short.rawStats).toMatchObject({ timeouts: 1, disconnects: 1 });
    } finally {
      await short.close();
    }
  });

  it('a hung create times out as unknown; a closed connection is unknown too', async () => {
    const shortListener = new ListenerWithUnknowns();
    const short = new RestOrderEntry(options(sim.demoKey.keyId, sim.demoKey.privateKeyPem, { headersTimeoutMs: 1_000, bodyTimeoutMs: 1_000 }));
    short.setListener(shortListener);
    try {
      await short.connect();
      const hang = sim.faults.add({ kind: 'rest_hang', target: { times: 1, method: 'POST', path: '/portfolio/events/orders' } });
      const hung = order({ price: 900 as Price });
      short.create(hung);
      expect(await shortListener.outcome('create', hung.clientOrderId)).toEqual(['createUnknown', hung.clientOrderId, 'EXEC_TIMEOUT']);
      sim.faults.remove(hang);
      const close = sim.faults.add({ kind: 'rest_close', target: { times: 1, method: 'POST', path: '/portfolio/events/orders' } });
      const closed = order({ price: 900 as Price });
      short.create(closed);
      expect(await shortListener.outcome('create', closed.clientOrderId)).toEqual(['createUnknown', closed.clientOrderId, 'EXEC_DISCONNECTED']);
      sim.faults.remove(close);
      // The connection pool recovers: the next order is acknowledged.
      const after = order({ price: 900 as Price });
      short.create(after);
      expect((await shortListener.outcome('create', after.clientOrderId))[0]).toBe('createAck');
      // The raw client ended the hung request on its tick and replaced both spent sockets.
      expect(short.rawStats).toMatchObject({ timeouts: 1, disconnects: 1 });
      expect(short.rawStats.connects).toBeGreaterThanOrEqual(2 + 2);
    } finally {
      await short.close();
    }
  });
});
