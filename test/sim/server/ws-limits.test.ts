// Goal: the per-session limits of websocket.md §8 with the codes we chose where the docs are
// silent: more than 10,000 commands in one second -> error 27 "Too many requests" (the window
// resets the next second); more than 500,000 order book market subscriptions -> error 26
// "Subscription market limit exceeded" and nothing subscribed. Method: an in-process simulator on
// a manual clock (set to the wall clock so handshake signatures verify), an undici WebSocket, and
// a raw-socket client that counts the 500,000 snapshots without decoding them.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../../src/core/index.ts';
import { WsClient } from '../helpers/clients.ts';
import { FrameClient } from '../helpers/frame-client.ts';
import { startTestSim } from '../helpers/test-sim.ts';

let sim: Awaited<ReturnType<typeof startTestSim>>;
const clock = new ManualClock(Date.now());

beforeAll(async () => {
  // The 500,000 snapshots (~60 MB) may queue on the socket while a loaded machine reads them: a
  // buffer bound of its own keeps the slow-consumer rule (error 25, ws-backpressure.test.ts) from
  // ending a subscription here, which would give its markets back and let the 201st in.
  sim = await startTestSim({ clock, wsBufferLimitBytes: 512 * 1024 * 1024 });
});
afterAll(async () => {
  await sim.close();
});

describe('session limits', () => {
  it('10,000 commands per second, then error 27 until the next second', async () => {
    const ws = await WsClient.open(sim.wsUrl, sim.demoKey);
    try {
      for (let i = 0; i < 10_001; i++) ws.send('list_subscriptions');
      const errors = await ws.waitForCount((m) => m.type === 'error', 1, 10_000);
      expect(errors[0].msg).toEqual({ code: 27, msg: 'Too many requests' });
      const answered = await ws.waitForCount((m) => m.type === 'ok', 10_000, 10_000);
      expect(answered).toHaveLength(10_000);
      clock.advance(1000);
      const id = ws.send('list_subscriptions');
      expect((await ws.waitFor((m) => m.id === id)).type).toBe('ok');
    } finally {
      ws.close();
    }
  });

  it('more than 500,000 order book markets in a session: error 26, nothing more subscribed', async () => {
    // 200 subscriptions of 2,500 markets (the per-command limit) fill the session; their 500,000
    // snapshots are counted, not decoded.
    const ws = await FrameClient.open(sim.port, sim.demoKey, (text) => !text.startsWith('{"type":"orderbook_snapshot"'));
    try {
      for (let sub = 0; sub < 200; sub++) {
        const tickers = Array.from({ length: 2_500 }, (_, i) => `KXLIMIT-${sub}-${i}`);
        ws.send('subscribe', { channels: ['orderbook_delta'], market_tickers: tickers });
      }
      const id = ws.send('subscribe', { channels: ['orderbook_delta'], market_tickers: ['KXLIMIT-ONE-MORE'] });
      const reply = await ws.waitFor((m) => m.id === id, 50_000);
      // No subscription ended as a slow consumer (error 25): it would have given its markets back.
      expect(ws.messages.filter((m) => m.type === 'error' && m.id === undefined)).toEqual([]);
      expect(reply).toEqual({ id, type: 'error', msg: { code: 26, msg: 'Subscription market limit exceeded' } });
      expect(ws.messages.filter((m) => m.type === 'subscribed')).toHaveLength(200);
      expect(ws.textFrames - ws.messages.length).toBe(500_000); // every snapshot went out, before the reply
      const listId = ws.send('list_subscriptions');
      expect((await ws.waitFor((m) => m.id === listId)).msg).toHaveLength(200);
    } finally {
      ws.close();
    }
  }, 60_000);
});
