// Goal: with activity switched on, the simulator's books move by themselves (other participants
// quote and trade) and the stream stays well-formed: deltas with consecutive seq per sid, public
// trades arrive, and the REST book shows resting liquidity. With activity off nothing moves. Margin
// activity alone (marginUpdatesPerSec, updatesPerSec 0) moves a perpetual's book on the Margin
// WebSocket endpoint and leaves the Predictions books still; an activity whose step throws is
// stopped with a logged error while the other runs on.
// Method: in-process simulator with activity at 2,000 updates/s; a WebSocket client subscribed to
// one market; waits bounded by count and time (no rate assertions). The failure case drives an
// ActivityDriver directly with a Margin engine that throws after a few orders.

import { createPrivateKey } from 'node:crypto';
import type { Logger } from 'pino';
import { WebSocket } from 'undici';
import { afterEach, describe, expect, it } from 'vitest';
import { signRequest } from '../../../src/core/index.ts';
import { SimEngine, loadCatalog } from '../../../src/sim/engine/index.ts';
import { MarginEngine, loadMarginCatalog, type CreateMarginOrder } from '../../../src/sim/margin/index.ts';
import { ActivityDriver } from '../../../src/sim/server/activity-driver.ts';
import { RestClient, WsClient } from '../helpers/clients.ts';
import { MARKET, startTestSim } from '../helpers/test-sim.ts';

const MARGIN_WS_PATH = '/trade-api/ws/v2/margin';

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

/** Opens the Margin endpoint signed with `key` and records every message (JSON) in `messages`. */
async function openMarginWs(wsUrl: string, key: { keyId: string; privateKeyPem: string }): Promise<{ socket: WebSocket; messages: any[] }> {
  const ts = Date.now();
  const headers = { 'KALSHI-ACCESS-KEY': key.keyId, 'KALSHI-ACCESS-TIMESTAMP': String(ts), 'KALSHI-ACCESS-SIGNATURE': signRequest(createPrivateKey(key.privateKeyPem), ts, 'GET', MARGIN_WS_PATH) };
  const socket = new WebSocket(wsUrl.replace(/\/trade-api\/ws\/v2$/, MARGIN_WS_PATH), { headers } as never);
  const messages: any[] = [];
  socket.addEventListener('message', (event) => messages.push(JSON.parse(String(event.data))));
  await new Promise<void>((resolve, reject) => {
    socket.addEventListener('open', () => resolve(), { once: true });
    socket.addEventListener('error', () => reject(new Error('margin handshake failed')), { once: true });
  });
  return { socket, messages };
}

/** Polls `messages` until `count` match or `timeoutMs` passes (bounded in time and iterations). */
async function waitForCount(messages: any[], predicate: (message: any) => boolean, count: number, timeoutMs: number): Promise<any[]> {
  const deadline = Date.now() + timeoutMs;
  for (let polls = 0; polls < timeoutMs / 10 + 1; polls++) {
    const found = messages.filter(predicate);
    if (found.length >= count) return found;
    if (Date.now() > deadline) break;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  throw new Error(`timed out: ${messages.filter(predicate).length}/${count}; last: ${JSON.stringify(messages.slice(-3))}`);
}

describe('margin activity', () => {
  it('alone moves a perpetual\'s book over the Margin WebSocket: snapshot, then deltas with contiguous seq', async () => {
    const sim = await startTestSim({ activity: { updatesPerSec: 0, marginUpdatesPerSec: 2000 }, seed: 5 });
    cleanups.push(() => sim.close());
    const ws = await openMarginWs(sim.wsUrl, sim.demoKey);
    cleanups.push(() => ws.socket.close());
    ws.socket.send(JSON.stringify({ id: 1, cmd: 'subscribe', params: { channels: ['orderbook_delta'], market_tickers: ['KXBTCPERP'] } }));
    const [subscribed] = await waitForCount(ws.messages, (m) => m.id === 1 && m.type === 'subscribed', 1, 5_000);
    const sid = subscribed.msg.sid;
    const deltas = await waitForCount(ws.messages, (m) => m.type === 'orderbook_delta', 100, 5_000);
    const stream = ws.messages.filter((m) => m.sid === sid);
    expect(stream[0].type).toBe('orderbook_snapshot');
    expect(stream.map((m) => m.seq)).toEqual(stream.map((_, i) => i + 1));
    expect(deltas.every((m) => m.msg.market_ticker === 'KXBTCPERP' && typeof m.msg.price === 'string' && typeof m.msg.delta === 'string')).toBe(true);
    expect(deltas.every((m) => m.msg.client_order_id === undefined)).toBe(true); // the synthetic users' orders, not ours
    // Predictions activity is off: its books stay still.
    expect(sim.engine.getMarket(MARKET)!.volume).toBe(0);
  });

  it('a Margin step that throws stops Margin activity only, with a logged error', async () => {
    const errors: string[] = [];
    const logger = { error: (_: unknown, message: string) => void errors.push(message) } as unknown as Logger;
    const clock = { ms: Date.UTC(2026, 0, 1) };
    const engine = new SimEngine({ now: () => clock.ms, seed: 1, catalog: loadCatalog('config/markets.json') });
    let creates = 0;
    class FailingMargin extends MarginEngine {
      override create(userId: string, subaccount: number, request: CreateMarginOrder): ReturnType<MarginEngine['create']> {
        if (++creates > 20) throw new Error('boom');
        return super.create(userId, subaccount, request);
      }
    }
    const margin = new FailingMargin({ catalog: loadMarginCatalog('config/margin-markets.json'), now: () => clock.ms, seed: 1 });
    const driver = new ActivityDriver(engine, 3, 2000, () => clock.ms, logger, null, { engine: margin, updatesPerSec: 2000 });
    cleanups.push(() => driver.stop());
    driver.start();
    for (let i = 0; i < 300 && errors.length === 0; i++) await new Promise((resolve) => setTimeout(resolve, 10));
    expect(errors).toEqual(['margin activity step failed; margin activity stopped']);
    const marginActions = driver.marginActivity!.actionCount;
    const before = driver.activity.actionCount;
    for (let i = 0; i < 300 && driver.activity.actionCount === before; i++) await new Promise((resolve) => setTimeout(resolve, 10));
    expect(driver.activity.actionCount).toBeGreaterThan(before); // Predictions activity runs on
    expect(driver.marginActivity!.actionCount).toBe(marginActions);
    expect(errors).toHaveLength(1);
  });
});
