/**
 * Goal: the order route counts the write tokens of its requests from send (or queueing) until
 * their exchange ends, at the venue's costs (create 10, cancel 2, a batch per item), and calls the
 * write-answer hook while the ending request still counts; a request refused before it was written
 * stops counting too. The gate's write mirror is capped by this count (test/risk/writes-in-flight).
 * Method: RestOrderEntry against the in-process simulator over real sockets, one connection, a
 * rest_delay fault on the create endpoints so requests are seen in flight and queued. Bounded waits.
 */

import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadPrivateKey, systemClock, type Count, type Price } from '../../src/core/index.ts';
import { REST_ORDER_ENTRY_DEFAULTS, RestOrderEntry } from '../../src/exec/index.ts';
import type { NewOrder } from '../../src/oms/index.ts';
import { startSim, type SimHandle } from '../../src/sim/index.ts';
import { ListenerWithUnknowns } from './recording-listener.ts';

const TICKER = 'KXDEMO-26DEC31-T50';

function order(price: number): NewOrder {
  return {
    clientOrderId: randomUUID(), ticker: TICKER, side: 'bid', price: price as Price, count: 100 as Count,
    timeInForce: 'good_till_canceled', postOnly: true, reduceOnly: false, selfTradePrevention: 'taker_at_cross',
    subaccount: 0, orderGroupId: null, expirationTs: 0,
  };
}

let sim: SimHandle;
let keysDir: string;

beforeAll(async () => {
  keysDir = mkdtempSync(join(tmpdir(), 'exec-flight-keys-'));
  sim = await startSim({ keysDir, rateLimits: false });
});

afterAll(async () => {
  await sim?.close();
  rmSync(keysDir, { recursive: true, force: true });
});

async function until(condition: () => boolean): Promise<void> {
  for (let i = 0; i < 400 && !condition(); i++) await new Promise((resolve) => setTimeout(resolve, 5));
  expect(condition()).toBe(true);
}

/** An order route on one connection (so a second request queues), signing inline, no keep-warm. */
function oneConnectionEntry(hotPathQueueMax: number): { entry: RestOrderEntry; listener: ListenerWithUnknowns } {
  const entry = new RestOrderEntry({
    ...REST_ORDER_ENTRY_DEFAULTS,
    baseUrl: sim.httpUrl,
    keyId: sim.demoKey.keyId,
    privateKey: loadPrivateKey(sim.demoKey.privateKeyPem),
    clock: systemClock,
    connections: 1,
    hotPathQueueMax,
    keepAliveIntervalMs: 0,
    signing: 'inline',
  });
  const listener = new ListenerWithUnknowns();
  entry.setListener(listener);
  return { entry, listener };
}

describe('write tokens in flight on the order route', () => {
  it('counts creates, a batch and cancels until their answers; the hook sees the ending request still counted', async () => {
    const { entry, listener } = oneConnectionEntry(REST_ORDER_ENTRY_DEFAULTS.hotPathQueueMax);
    const seenByHook: number[] = [];
    entry.setWriteAnswerHook(() => seenByHook.push(entry.writeTokensInFlight));
    try {
      await entry.connect();
      expect(entry.writeTokensInFlight).toBe(0);
      const rule = sim.faults.add({ kind: 'rest_delay', delayMs: 100, target: { method: 'POST', path: '/portfolio/events/orders' } });
      const first = order(3000);
      const second = order(2900);
      entry.create(first); // written
      entry.create(second); // queued behind it (one connection)
      expect(entry.writeTokensInFlight).toBe(20);
      const firstAck = await listener.outcome('create', first.clientOrderId);
      const secondAck = await listener.outcome('create', second.clientOrderId);
      expect([firstAck[0], secondAck[0]]).toEqual(['createAck', 'createAck']);
      await until(() => entry.writeTokensInFlight === 0);
      expect(seenByHook).toEqual([20, 10]);
      sim.faults.remove(rule);

      seenByHook.length = 0;
      const batch = [order(2800), order(2700), order(2600)];
      entry.createBatch(batch);
      expect(entry.writeTokensInFlight).toBe(30); // billed per item
      for (const one of batch) expect((await listener.outcome('create', one.clientOrderId))[0]).toBe('createAck');
      await until(() => entry.writeTokensInFlight === 0);
      expect(seenByHook).toEqual([30]);

      seenByHook.length = 0;
      entry.cancel(firstAck[2] as string, 0);
      expect(entry.writeTokensInFlight).toBe(2);
      entry.cancelBatch([secondAck[2] as string], 0);
      expect(entry.writeTokensInFlight).toBe(4);
      await listener.outcome('cancel', firstAck[2] as string);
      await listener.outcome('cancel', secondAck[2] as string);
      await until(() => entry.writeTokensInFlight === 0);
      expect(seenByHook).toEqual([4, 2]);
    } finally {
      await entry.close();
    }
  });

  it('a request refused before it was written (queue full) stops counting', async () => {
    const { entry, listener } = oneConnectionEntry(1);
    const rule = sim.faults.add({ kind: 'rest_delay', delayMs: 100, target: { method: 'POST', path: '/portfolio/events/orders' } });
    try {
      await entry.connect();
      const orders = [order(2500), order(2400), order(2300)];
      for (const one of orders) entry.create(one); // written, queued, refused (NET_QUEUE_FULL)
      expect(entry.writeTokensInFlight).toBe(20);
      expect((await listener.outcome('create', orders[2]!.clientOrderId))[0]).toBe('createReject');
      await until(() => entry.writeTokensInFlight === 0);
    } finally {
      sim.faults.remove(rule);
      await entry.close();
    }
  });
});
