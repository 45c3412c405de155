// Goal: the slow-consumer rule. A client that stops reading while the book changes gets error 25
// "Subscription buffer overflow" on that subscription (with sid and the next seq), after which
// the subscription is dead (no more messages on its sid); a client that keeps reading receives a
// large burst of deltas complete, in order, with no error. Method: a raw TCP WebSocket client
// that can pause reading; the book is churned in-process through the engine (create + cancel),
// in chunks that yield to the event loop. Loops are bounded in count and time.

import { uwsFlavor } from '../../../src/net/uws.ts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { asCenticents, type Count, type Price } from '../../../src/core/index.ts';
import { RawWsClient } from '../helpers/clients.ts';
import { MARKET, startTestSim } from '../helpers/test-sim.ts';

let sim: Awaited<ReturnType<typeof startTestSim>>;
const LOAD_USER = 'load-user-0000-4000-8000-000000000001';

beforeAll(async () => {
  sim = await startTestSim({ wsBufferLimitBytes: 256 * 1024 });
  sim.engine.addUser(LOAD_USER);
  expect(sim.engine.deposit(LOAD_USER, 0, 0, asCenticents(10_000_000_000))).toBeNull();
});
afterAll(async () => {
  await sim.close();
});

/** Creates and cancels `pairs` resting orders (2 deltas each), yielding every 500 pairs. */
async function churn(pairs: number, stop: () => boolean = () => false): Promise<void> {
  for (let i = 0; i < pairs; i++) {
    const placed = sim.engine.createOrder(LOAD_USER, {
      ticker: MARKET,
      side: 'bid',
      price: (100 + (i % 30) * 100) as Price,
      count: 100 as Count,
      timeInForce: 'good_till_canceled',
      selfTradePrevention: 'maker',
    });
    if ('isError' in placed && placed.isError) throw new Error(placed.message);
    sim.engine.cancelOrder(LOAD_USER, (placed as { order: { orderId: string } }).order.orderId);
    // A turn of the event loop every 100 pairs: the simulator and the test's client share this
    // process, so the client reads only between turns. With a turn every 500 pairs the burst
    // stopped at 29,659 deltas in two loaded CI runs (cause not yet confirmed: likely the server's
    // slow-consumer bound, reached while the client could not read).
    if (i % 100 === 99) {
      await new Promise((resolve) => setImmediate(resolve));
      if (stop()) return;
    }
  }
}

async function until(condition: () => boolean, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition() && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 10));
}

/** Waits until `count()` reaches `target`, while it keeps growing: at most `stallMs` without growth, `capMs` in all. */
async function untilProgress(count: () => number, target: number, stallMs: number, capMs: number): Promise<void> {
  const capAt = Date.now() + capMs;
  let last = count();
  let stallAt = Date.now() + stallMs;
  while (count() < target && Date.now() < capAt && Date.now() < stallAt) {
    await new Promise((resolve) => setTimeout(resolve, 10));
    const now = count();
    if (now > last) {
      last = now;
      stallAt = Date.now() + stallMs;
    }
  }
}

async function subscribedClient(): Promise<{ client: RawWsClient; sid: number }> {
  const client = await RawWsClient.open(sim.port, sim.demoKey);
  client.send(JSON.stringify({ id: 1, cmd: 'subscribe', params: { channels: ['orderbook_delta'], market_ticker: MARKET } }));
  await until(() => client.texts.some((text) => text.includes('orderbook_snapshot')), 5000);
  const subscribed = client.messages().find((m) => m.type === 'subscribed');
  return { client, sid: subscribed.msg.sid };
}

describe('slow consumer', () => {
  it('gets error 25 on the subscription, then nothing more on that sid', async () => {
    const { client, sid } = await subscribedClient();
    try {
      client.pause();
      await churn(60_000); // up to 120k deltas, ~30 MB: far beyond socket buffers + 256 KiB
      client.resume();
      await until(() => client.texts.some((text) => text.includes('"code":25')), 10_000);
      const messages = client.messages();
      const errorIndex = messages.findIndex((m) => m.type === 'error');
      expect(errorIndex).toBeGreaterThan(0);
      const error = messages[errorIndex];
      expect(error).toEqual({ type: 'error', sid, seq: expect.any(Number), msg: { code: 25, msg: 'Subscription buffer overflow' } });
      const before = messages.slice(0, errorIndex).filter((m) => m.sid === sid && m.seq !== undefined);
      expect(before.map((m) => m.seq)).toEqual(before.map((_, i) => i + 1));
      // Frames queued but not yet written when the buffer overflowed are discarded with the
      // subscription, so the error's seq (the sid's next) may follow a gap.
      expect(error.seq).toBeGreaterThan(before.length);
      // Terminal: more churn, and nothing else arrives for that sid.
      const countAfterError = client.texts.length;
      await churn(500);
      await new Promise((resolve) => setTimeout(resolve, 100));
      expect(client.messages().slice(countAfterError).filter((m) => m.sid === sid)).toEqual([]);
      // The session is still usable: a new subscription gets a fresh sid and a snapshot.
      client.send(JSON.stringify({ id: 2, cmd: 'subscribe', params: { channels: ['orderbook_delta'], market_ticker: MARKET } }));
      await until(() => client.messages().some((m) => m.id === 2), 5000);
      expect(client.messages().find((m) => m.id === 2)).toMatchObject({ type: 'subscribed', msg: { sid: sid + 1 } });
    } finally {
      client.close();
    }
  });
});

describe('fast consumer', () => {
  it('receives a 100k-delta burst complete and in order, without error 25', async () => {
    const { client, sid } = await subscribedClient();
    try {
      const start = client.texts.length;
      // The node:http + ws fallback (Node 22/24 on glibc < 2.38) delivers a few thousand deltas a
      // second where uWS.js delivers tens of thousands (README, Dependencies): a fifth of the burst
      // there, in the same bounded time.
      const burst = uwsFlavor() === 'fallback' ? 20_000 : 100_000;
      await churn(burst / 2);
      // Bounded by progress, not a fixed time: on a loaded machine (the whole suite on 2 cores) the
      // burst has arrived at under 2,000 deltas a second; give up once 10 s pass with none, or at 120 s.
      await untilProgress(() => client.texts.length - start, burst, 10_000, 120_000);
      const deltas = client.texts.slice(start).map((text) => JSON.parse(text));
      expect(deltas).toHaveLength(burst);
      expect(deltas.some((m) => m.type === 'error')).toBe(false);
      const firstSeq = deltas[0].seq;
      for (let i = 0; i < deltas.length; i++) {
        if (deltas[i].sid !== sid || deltas[i].seq !== firstSeq + i) throw new Error(`message ${i} out of order: ${JSON.stringify(deltas[i])}`);
      }
    } finally {
      client.close();
    }
  }, 150_000);
});
