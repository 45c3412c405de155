// Goal: what FixOrderEntry does beyond the shared port contract, against the simulator's FIX
// acceptor: the KalshiRT sequence store on file (mode 0600) survives a dropped connection and the
// route reconnects on its own and recovers what it missed by resend; EXCHANGE_UNAVAILABLE is an
// unknown (EXEC_HTTP_5XX) whether or not the venue applied the order; no answer is EXEC_TIMEOUT;
// a throttled request is a 429 EXEC_RATE_LIMITED reject; a request before logon is "not sent";
// a refused logon rejects connect() with an ExecError.
// Method: startSim in-process with fix enabled (plain TCP on 127.0.0.1) and rate limits on, keys
// created per test; faults from the simulator's REST order-entry rules, which its FIX order entry
// obeys. Waits are bounded polls.

import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadPrivateKey, systemClock, type Count, type Price } from '../../src/core/index.ts';
import { FIX_ORDER_ENTRY_DEFAULTS, FixOrderEntry, type FixOrderEntryOptions } from '../../src/exec/index.ts';
import { ExecError } from '../../src/oms/index.ts';
import type { NewOrder } from '../../src/oms/index.ts';
import { startSim, type SimHandle } from '../../src/sim/index.ts';
import { ListenerWithUnknowns } from './recording-listener.ts';

const TICKER = 'KXDEMO-26DEC31-T50';
let sim: SimHandle;
let workDir: string;

function order(overrides: Partial<NewOrder> = {}): NewOrder {
  return {
    clientOrderId: randomUUID(), ticker: TICKER, side: 'bid', price: 1000 as Price, count: 500 as Count, timeInForce: 'good_till_canceled',
    postOnly: false, reduceOnly: false, selfTradePrevention: 'taker_at_cross', subaccount: 0, orderGroupId: null, expirationTs: 0, ...overrides,
  };
}

function route(userId: string, overrides: Partial<FixOrderEntryOptions> = {}, tier: 'basic' | 'prime' = 'prime'): { entry: FixOrderEntry; listener: ListenerWithUnknowns; keyId: string } {
  const key = sim.createApiKey({ scopes: ['read', 'write'], userId, tier });
  const entry = new FixOrderEntry({
    ...FIX_ORDER_ENTRY_DEFAULTS, host: sim.fix!.host, port: sim.fix!.ports.KalshiNR, tls: null, keyId: key.keyId,
    privateKey: loadPrivateKey(key.privateKeyPem), clock: systemClock, storePath: null, ...overrides,
  });
  const listener = new ListenerWithUnknowns();
  entry.setListener(listener);
  return { entry, listener, keyId: key.keyId };
}

/** Waits for `predicate`, bounded by 15 s of wall time (a loaded CI machine stretches reconnects). */
async function until(predicate: () => boolean, what: string): Promise<void> {
  const deadline = Date.now() + 15_000;
  for (let i = 0; i < 3_000 && !predicate() && Date.now() < deadline; i++) await new Promise((resolve) => setTimeout(resolve, 10));
  if (!predicate()) throw new Error(`timed out waiting for ${what}`);
}

beforeAll(async () => {
  workDir = mkdtempSync(join(tmpdir(), 'fix-route-'));
  sim = await startSim({ keysDir: join(workDir, 'keys'), logger: pino({ level: 'silent' }), fix: { enabled: true } });
});

afterAll(async () => {
  await sim?.close();
  rmSync(workDir, { recursive: true, force: true });
});

describe('FixOrderEntry against the simulator', () => {
  it('KalshiRT: file store mode 0600, reconnects after a drop and recovers a fill it missed by resend', async () => {
    const storePath = join(workDir, 'var', 'fix', 'rt-route-KalshiRT');
    const { entry, listener } = route('rt-route', { sessionName: 'KalshiRT', port: sim.fix!.ports.KalshiRT, storePath });
    await entry.connect();
    expect(statSync(`${storePath}.seqnums`).mode & 0o777).toBe(0o600);
    expect(statSync(`${storePath}.messages`).mode & 0o777).toBe(0o600);
    const resting = order({ price: 2500 as Price, count: 400 as Count });
    entry.create(resting);
    const orderId = (await listener.outcome('create', resting.clientOrderId))[2] as string;

    // Drop the connection (a fault on the next cancel), then fill the order while the route is away.
    const rule = sim.faults.add({ kind: 'rest_close', target: { times: 1, method: 'DELETE', path: '/portfolio/events/orders/{order_id}' } });
    entry.cancel(orderId, 0);
    expect(await listener.outcome('cancel', orderId)).toEqual(['cancelUnknown', orderId, 'EXEC_DISCONNECTED']);
    sim.faults.remove(rule);
    sim.createApiKey({ scopes: ['read', 'write'], userId: 'rt-filler', subaccount: 0 });
    const fill = sim.engine.createOrder('rt-filler', { ticker: TICKER, side: 'ask', price: 2500 as Price, count: 400 as Count, timeInForce: 'immediate_or_cancel', selfTradePrevention: 'taker_at_cross' });
    expect('isError' in fill && fill.isError).toBe(false);

    await until(() => entry.stats.connects === 2 && entry.sessionState === 'active', 'reconnect');
    await until(() => entry.stats.unsolicitedReports > 0, 'the missed fill, resent');
    expect(entry.stats.resendRequests).toBeGreaterThan(0);
    // The route learnt the order is done: a cancel now reaches the venue and is told it is gone.
    listener.events.length = 0;
    entry.cancel(orderId, 0);
    const gone = await listener.outcome('cancel', orderId);
    expect(gone).toMatchObject(['cancelReject', orderId, { status: 404, code: 'not_found' }]);
    await entry.close();
  });

  it('EXCHANGE_UNAVAILABLE is unknown (EXEC_HTTP_5XX): not applied (rest_error) or applied (ambiguous_order)', async () => {
    const { entry, listener, keyId } = route('unavailable-route');
    await entry.connect();
    const refused = sim.faults.add({ kind: 'rest_error', target: { times: 1, method: 'POST', path: '/portfolio/events/orders', keyId } });
    const first = order({ price: 2600 as Price });
    entry.create(first);
    expect(await listener.outcome('create', first.clientOrderId)).toEqual(['createUnknown', first.clientOrderId, 'EXEC_HTTP_5XX']);
    sim.faults.remove(refused);
    expect(sim.engine.restingOrders('unavailable-route').some((o) => o.clientOrderId === first.clientOrderId)).toBe(false);

    const ambiguous = sim.faults.add({ kind: 'ambiguous_order', mode: 'error', target: { times: 1, method: 'POST', path: '/portfolio/events/orders', keyId } });
    const second = order({ price: 2700 as Price });
    entry.create(second);
    expect(await listener.outcome('create', second.clientOrderId)).toEqual(['createUnknown', second.clientOrderId, 'EXEC_HTTP_5XX']);
    sim.faults.remove(ambiguous);
    expect(sim.engine.restingOrders('unavailable-route').some((o) => o.clientOrderId === second.clientOrderId)).toBe(true);
    await entry.close();
  });

  it('no answer within requestTimeoutMs -> EXEC_TIMEOUT', async () => {
    const { entry, listener, keyId } = route('timeout-route', { requestTimeoutMs: 300 });
    await entry.connect();
    const hang = sim.faults.add({ kind: 'rest_hang', target: { times: 1, method: 'POST', path: '/portfolio/events/orders', keyId } });
    const hung = order({ price: 2800 as Price });
    entry.create(hung);
    expect(await listener.outcome('create', hung.clientOrderId)).toEqual(['createUnknown', hung.clientOrderId, 'EXEC_TIMEOUT']);
    sim.faults.remove(hang);
    expect(entry.stats.timeouts).toBe(1);
    await entry.close();
  });

  it('a throttled request is a 429 EXEC_RATE_LIMITED reject (BusinessMessageReject 380=8)', async () => {
    const { entry, listener } = route('throttled-route', {}, 'basic'); // write bucket 100, a create costs 10
    await entry.connect();
    const orders = Array.from({ length: 12 }, (_, i) => order({ price: (100 + i * 100) as Price, count: 100 as Count }));
    for (const o of orders) entry.create(o);
    const outcomes = await Promise.all(orders.map((o) => listener.outcome('create', o.clientOrderId)));
    const throttled = outcomes.filter((o) => o[0] === 'createReject');
    expect(throttled.length).toBeGreaterThan(0);
    expect(throttled[0][2]).toMatchObject({ status: 429, code: 'EXEC_RATE_LIMITED' });
    await entry.close();
  });

  it('before logon a request is not sent (status 0); a refused logon rejects connect()', async () => {
    const { entry, listener } = route('idle-route');
    const early = order();
    entry.create(early);
    expect(listener.events[0]).toMatchObject(['createReject', early.clientOrderId, { status: 0, code: 'EXEC_DISCONNECTED' }]);
    expect((listener.events[0][2] as { message: string }).message).toMatch(/^not sent/);
    await entry.close();

    const stranger = new FixOrderEntry({
      ...FIX_ORDER_ENTRY_DEFAULTS, host: sim.fix!.host, port: sim.fix!.ports.KalshiNR, tls: null, keyId: randomUUID(),
      privateKey: loadPrivateKey(sim.demoKey.privateKeyPem), clock: systemClock, storePath: null,
    });
    stranger.setListener(new ListenerWithUnknowns());
    const refused = await stranger.connect().then(() => null, (error: unknown) => error);
    expect(refused).toBeInstanceOf(ExecError);
    expect((refused as ExecError).message).toMatch(/Unknown API key/);
    await stranger.close();
  });
});
