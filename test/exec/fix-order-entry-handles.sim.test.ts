// Goal (last test): the keep-warm's rehearsals on the FIX route (rehearseCreate, rehearseAmend)
// write nothing, take no MsgSeqNum, request record or ClOrdID, and leave the venue's order alone;
// the real create and amend after them are sent and acked as usual.
// Goal: the FIX route sends an order placed by handle (NewOrder.handle, as the OMS's orders are)
// without making its client order id string, and answers every outcome by that handle: the ack,
// the venue's reject, the 429 of a burst; the venue holds the order under the OMS's id, byte for
// byte; cancels and replaces (ClOrdIDs of ours, written as bytes) are answered by order id; a create
// by text in the same session is still answered by its text.
// Method: the simulator's FIX acceptor over real TCP (startSim in process, KalshiNR); the order's
// clientOrderId getter and the id maker's format() watched; a burst of 200 creates at once. Waits
// are bounded polls.

import { subscribe, unsubscribe } from 'node:diagnostics_channel';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { loadPrivateKey, systemClock, type Count, type Price } from '../../src/core/index.ts';
import { FIX_ORDER_ENTRY_DEFAULTS, FixOrderEntry } from '../../src/exec/index.ts';
import { FIX_WRITE_START_CHANNEL } from '../../src/fix/index.ts';
import { ClientOrderIds, type NewOrder } from '../../src/oms/index.ts';
import { startSim, type SimHandle } from '../../src/sim/index.ts';
import { ListenerWithUnknowns } from './recording-listener.ts';

const TICKER = 'KXDEMO-26DEC31-T50';
let sim: SimHandle;
let workDir: string;

beforeAll(async () => {
  workDir = mkdtempSync(join(tmpdir(), 'fix-handles-'));
  sim = await startSim({ keysDir: join(workDir, 'keys'), logger: pino({ level: 'silent' }), fix: { enabled: true } });
});

afterAll(async () => {
  await sim?.close();
  rmSync(workDir, { recursive: true, force: true });
});

async function until(predicate: () => boolean, what: string): Promise<void> {
  const deadline = Date.now() + 15_000;
  for (let i = 0; i < 3_000 && !predicate() && Date.now() < deadline; i++) await new Promise((resolve) => setTimeout(resolve, 10));
  if (!predicate()) throw new Error(`timed out waiting for ${what}`);
}

/** A FIX route for a new prime user of the simulator's KalshiNR, its listener set (not connected yet). */
function routeFor(userId: string): { entry: FixOrderEntry; listener: ListenerWithUnknowns } {
  const key = sim.createApiKey({ scopes: ['read', 'write'], userId, tier: 'prime' });
  const entry = new FixOrderEntry({
    ...FIX_ORDER_ENTRY_DEFAULTS, host: sim.fix!.host, port: sim.fix!.ports.KalshiNR, tls: null, keyId: key.keyId,
    privateKey: loadPrivateKey(key.privateKeyPem), clock: systemClock, storePath: null,
  });
  const listener = new ListenerWithUnknowns();
  entry.setListener(listener);
  return { entry, listener };
}

describe('FixOrderEntry: orders by handle', () => {
  it('sends and answers by handle with no id string made; ours and text ids alongside', async () => {
    const userId = 'fix-handles';
    const { entry, listener } = routeFor(userId);
    await entry.connect();

    const ids = new ClientOrderIds('fh', Date.now(), 0);
    const format = vi.spyOn(ids, 'format');
    let idReads = 0;
    const byHandle = (price: number, ticker = TICKER): NewOrder & { handle: number } => {
      const handle = ids.take();
      return {
        get clientOrderId(): string {
          idReads++;
          return ids.format(handle);
        },
        handle,
        writeClientOrderId: (out: Buffer, at: number) => ids.writeInto(out, at, handle),
        ticker, side: 'bid', price: price as Price, count: 200 as Count, timeInForce: 'good_till_canceled', postOnly: false, reduceOnly: false,
        selfTradePrevention: 'taker_at_cross', subaccount: 0, orderGroupId: null, expirationTs: 0,
      };
    };

    // Ack by handle; the venue holds the order under the OMS's id.
    const first = byHandle(1100);
    const second = byHandle(1200);
    entry.create(first);
    entry.create(second);
    const firstAck = await listener.outcome('create', first.handle);
    const secondAck = await listener.outcome('create', second.handle);
    expect(firstAck[0]).toBe('createAck');
    expect(secondAck[0]).toBe('createAck');
    const firstOrderId = firstAck[2] as string;
    const secondOrderId = secondAck[2] as string;
    const resting = new Map(sim.engine.restingOrders(userId).map((o) => [o.orderId, o.clientOrderId]));
    expect(resting.get(firstOrderId)).toBe(`${ids.head}${first.handle}`);
    expect(resting.get(secondOrderId)).toBe(`${ids.head}${second.handle}`);

    // The venue's reject, by handle.
    const unknownMarket = byHandle(1000, 'KXNOPE-26DEC31-T1');
    entry.create(unknownMarket);
    expect(await listener.outcome('create', unknownMarket.handle)).toMatchObject(['createReject', unknownMarket.handle, { status: 404 }]);

    // Cancel and replace: ClOrdIDs of ours, answered by order id.
    entry.cancel(firstOrderId, 0);
    expect((await listener.outcome('cancel', firstOrderId))[0]).toBe('cancelAck');
    entry.amend(secondOrderId, TICKER, 'bid', 1300 as Price, 300 as Count, 0);
    expect((await listener.outcome('amend', secondOrderId))[0]).toBe('amendAck');

    // A create by text in the same session (a held create keeps its text): answered by the text.
    const text = `${ids.head}${ids.take()}`;
    entry.create({
      clientOrderId: text, ticker: TICKER, side: 'bid', price: 1000 as Price, count: 200 as Count, timeInForce: 'good_till_canceled', postOnly: false,
      reduceOnly: false, selfTradePrevention: 'taker_at_cross', subaccount: 0, orderGroupId: null, expirationTs: 0,
    });
    expect((await listener.outcome('create', text))[0]).toBe('createAck');

    // A burst at once: every handle answered exactly once, an ack or the venue's 429, never unknown.
    const burst = Array.from({ length: 200 }, (_, k) => byHandle(100 * (1 + (k % 9))));
    for (const order of burst) entry.create(order);
    const outcomes = (): number => listener.events.filter((event) => event[0].startsWith('create') && burst.some((order) => order.handle === event[1])).length;
    await until(() => outcomes() >= burst.length, 'the burst answered');
    for (const order of burst) {
      const answers = listener.events.filter((event) => event[0].startsWith('create') && event[1] === order.handle);
      expect(answers, `handle ${order.handle}`).toHaveLength(1);
      const answer = answers[0]!;
      if (answer[0] === 'createReject') expect(answer[2], JSON.stringify(answer[2])).toMatchObject({ status: 429 });
      else expect(answer[0]).toBe('createAck');
    }
    const acked = listener.events.filter((event) => event[0] === 'createAck' && burst.some((order) => order.handle === event[1]));
    expect(acked.length).toBeGreaterThan(0);
    const restingNow = new Map(sim.engine.restingOrders(userId).map((o) => [o.orderId, o.clientOrderId]));
    for (const ack of acked) expect(restingNow.get(ack[2] as string)).toBe(`${ids.head}${ack[1] as number}`);

    expect(idReads).toBe(0);
    expect(format).not.toHaveBeenCalled();
    await entry.close();
  });

  it('rehearsals encode and drop: nothing written, no MsgSeqNum or ClOrdID taken, the venue\'s order unchanged; the real amend after is acked', async () => {
    const userId = 'fix-rehearsal';
    const { entry, listener } = routeFor(userId);
    const ids = new ClientOrderIds('fr', Date.now(), 0);
    const order = (price: number): NewOrder & { handle: number } => {
      const handle = ids.take();
      return {
        clientOrderId: ids.format(handle), handle, writeClientOrderId: (out: Buffer, at: number) => ids.writeInto(out, at, handle),
        ticker: TICKER, side: 'bid', price: price as Price, count: 200 as Count, timeInForce: 'good_till_canceled', postOnly: true, reduceOnly: false,
        selfTradePrevention: 'taker_at_cross', subaccount: 0, orderGroupId: null, expirationTs: 0,
      };
    };
    // Not logged on yet: nothing to rehearse on.
    expect(entry.rehearseCreate(order(1000))).toBe(-1);
    expect(entry.rehearseAmend(TICKER, 'bid', 900 as Price, 200 as Count, 0)).toBe(-1);
    await entry.connect();
    let writes = 0;
    const onWrite = (): void => void writes++;
    subscribe(FIX_WRITE_START_CHANNEL, onWrite);
    try {
      // No live order known yet: the amend has nothing to rehearse on; the create does.
      expect(entry.rehearseAmend(TICKER, 'bid', 900 as Price, 200 as Count, 0)).toBe(-1);
      const seq = entry.nextOutgoing;
      for (let i = 0; i < 50; i++) expect(entry.rehearseCreate(order(1000 + i))).toBeGreaterThan(100);
      expect(writes).toBe(0);
      expect(entry.nextOutgoing).toBe(seq);
      expect(entry.stats.requests).toBe(0);
      expect(entry.stats.rehearsals).toBe(50); // the refused ones (-1) not counted

      // A real create after them: the next MsgSeqNum, acked, resting under its own id.
      const real = order(1100);
      entry.create(real);
      const ack = await listener.outcome('create', real.handle);
      expect(ack[0]).toBe('createAck');
      expect(entry.nextOutgoing).toBe(seq + 1);
      const orderId = ack[2] as string;
      const restingPrice = (): number | undefined => sim.engine.restingOrders(userId).find((o) => o.orderId === orderId)?.price;
      const priceBefore = restingPrice();
      expect(priceBefore).toBeDefined();

      // Its amend rehearsed 50 times: nothing written or taken, the venue's order unchanged.
      writes = 0;
      for (let i = 0; i < 50; i++) expect(entry.rehearseAmend(TICKER, 'bid', 900 as Price, 200 as Count, 0)).toBeGreaterThan(100);
      expect(writes).toBe(0);
      expect(entry.nextOutgoing).toBe(seq + 1);
      expect(entry.stats.requests).toBe(1);
      expect(entry.stats.rehearsals).toBe(100);
      await new Promise((resolve) => setTimeout(resolve, 50));
      expect(restingPrice()).toBe(priceBefore);

      // The real amend: sent, acked, the venue's order at the new price.
      entry.amend(orderId, TICKER, 'bid', 1200 as Price, 200 as Count, 0);
      expect((await listener.outcome('amend', orderId))[0]).toBe('amendAck');
      expect(writes).toBe(1);
      expect(restingPrice()).not.toBe(priceBefore);

      // Cancelled: the order is done and there is no live order to rehearse an amend on.
      entry.cancel(orderId, 0);
      expect((await listener.outcome('cancel', orderId))[0]).toBe('cancelAck');
      expect(entry.rehearseAmend(TICKER, 'bid', 900 as Price, 200 as Count, 0)).toBe(-1);
    } finally {
      unsubscribe(FIX_WRITE_START_CHANNEL, onWrite);
      await entry.close();
    }
  });
});
