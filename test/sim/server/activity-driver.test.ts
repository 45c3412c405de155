// Goal: with activity switched on, the simulator's books move by themselves (other participants
// quote and trade) and the stream stays well-formed: deltas with consecutive seq per sid, public
// trades arrive, and the REST book shows resting liquidity. With activity off nothing moves.
// Method: in-process simulator with activity at 2,000 updates/s; a WebSocket client subscribed to
// one market; waits bounded by count and time (no rate assertions).

import { afterEach, describe, expect, it } from 'vitest';
import { RestClient, WsClient } from '../helpers/clients.ts';
import { MARKET, startTestSim } from '../helpers/test-sim.ts';

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

describe('market activity', () => {
  it('moves the books and prints trades on its own', async () => {
    const sim = await startTestSim({ activity: { updatesPerSec: 2000 }, seed: 5 });
    cleanups.push(() => sim.close());
    const ws = await WsClient.open(sim.wsUrl, sim.demoKey);
    cleanups.push(() => ws.close());
    const replies = await ws.subscribe({ channels: ['orderbook_delta', 'trade'], market_ticker: MARKET });
    const deltas = await ws.waitForCount((m) => m.type === 'orderbook_delta', 200, 10_000);
    const bookSid = replies[0].msg.sid;
    const seqs = ws.messages.filter((m) => m.sid === bookSid).map((m) => m.seq);
    expect(seqs).toEqual(seqs.map((_, i) => i + 1));
    expect(deltas.every((m) => m.msg.market_ticker === MARKET)).toBe(true);
    await ws.waitFor((m) => m.type === 'trade', 10_000);
    const book = await new RestClient(sim.httpUrl, sim.demoKey).get(`/markets/${MARKET}/orderbook`);
    expect(book.body.orderbook_fp.yes_dollars.length + book.body.orderbook_fp.no_dollars.length).toBeGreaterThan(0);
  });

  it('without activity the book stays still', async () => {
    const sim = await startTestSim();
    cleanups.push(() => sim.close());
    const ws = await WsClient.open(sim.wsUrl, sim.demoKey);
    cleanups.push(() => ws.close());
    await ws.subscribe({ channels: ['orderbook_delta'], market_ticker: MARKET });
    await ws.waitFor((m) => m.type === 'orderbook_snapshot');
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(ws.messages.filter((m) => m.type === 'orderbook_delta')).toEqual([]);
  });
});
