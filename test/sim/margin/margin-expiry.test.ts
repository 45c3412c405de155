// Goal: Margin GTC orders with REST `expiration_time` (CreateMarginOrderRequest, unix seconds)
// expire at that time of the simulator clock, as Predictions orders do: the order ends canceled
// with last_update_reason ExpiryCancel on user_order and on the owner's orderbook_delta
// (websocket.md §7.1), leaves the book, and is read back canceled over REST; expiration_time in the
// past or on a non-GTC order is refused (400 invalid_order, the Predictions engine's rule).
// Method: in-process sim (margin-sim.ts) with its manual clock; expiry is applied by the next
// engine call after the clock passes it (lazily, like the Predictions engine); undici WebSocket
// signed over the Margin path; bounded polls.

import { createPrivateKey } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { WebSocket } from 'undici';
import { signRequest } from '../../../src/core/index.ts';
import { START_MS, marginOrder, startMarginSim, type MarginSim } from './margin-sim.ts';

const MARGIN_PATH = '/trade-api/ws/v2/margin';
let sim: MarginSim | null = null;
let socket: WebSocket | null = null;

afterEach(() => {
  socket?.close();
  socket = null;
  sim?.close();
  sim = null;
});

async function openWs(user: string, messages: any[]): Promise<WebSocket> {
  const key = sim!.key(user);
  const ts = Date.now();
  const headers = { 'KALSHI-ACCESS-KEY': key.keyId, 'KALSHI-ACCESS-TIMESTAMP': String(ts), 'KALSHI-ACCESS-SIGNATURE': signRequest(createPrivateKey(key.privateKeyPem), ts, 'GET', MARGIN_PATH) };
  const ws = new WebSocket(`${sim!.wsUrl}${MARGIN_PATH}`, { headers } as never);
  ws.addEventListener('message', (event) => messages.push(JSON.parse(String(event.data))));
  await new Promise<void>((resolve, reject) => {
    ws.addEventListener('open', () => resolve(), { once: true });
    ws.addEventListener('error', () => reject(new Error('handshake failed')), { once: true });
  });
  return ws;
}

async function waitFor(messages: any[], predicate: (message: any) => boolean, what: string): Promise<any> {
  for (let i = 0; i < 300; i++) {
    const found = messages.find(predicate);
    if (found !== undefined) return found;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  throw new Error(`timed out waiting for ${what}; last: ${JSON.stringify(messages.slice(-3))}`);
}

describe('Margin expiration_time', () => {
  it('expires a GTC order at its expiration_time on the clock: user_order and orderbook_delta say ExpiryCancel', async () => {
    sim = await startMarginSim();
    const alice = sim.user('alice');
    const messages: any[] = [];
    socket = await openWs('alice', messages);
    socket.send(JSON.stringify({ id: 1, cmd: 'subscribe', params: { channels: ['user_orders', 'orderbook_delta'], market_tickers: ['KXBTCPERP'] } }));
    await waitFor(messages, (m) => m.type === 'orderbook_snapshot', 'snapshot');
    const expirationTs = START_MS / 1000 + 60;
    const created = await alice.post('/margin/orders', marginOrder({ side: 'bid', count: '3', price: '95.00', expiration_time: expirationTs }));
    expect(created.status, created.text).toBe(201);
    const orderId = created.body.order_id as string;
    const before = await alice.get(`/margin/orders/${orderId}`);
    expect(before.body.order).toMatchObject({ remaining_count: '3.00', last_update_reason: '', expiration_time: new Date(expirationTs * 1000).toISOString() });

    sim.clock.advance(59_000); // not yet
    expect((await alice.get(`/margin/orders/${orderId}`)).body.order.remaining_count).toBe('3.00');
    sim.clock.advance(2_000);
    const after = await alice.get(`/margin/orders/${orderId}`); // the next call applies the expiry
    expect(after.body.order).toMatchObject({ last_update_reason: 'ExpiryCancel', remaining_count: '0.00' });
    expect(sim.margin.orders.get(orderId)).toMatchObject({ status: 'canceled', lastUpdateReason: 'ExpiryCancel', lastUpdateMs: expirationTs * 1000 });
    expect(sim.margin.markets.get('KXBTCPERP')!.book.depth('bid', 0)).toEqual([]);

    const update = await waitFor(messages, (m) => m.type === 'user_order' && m.msg.order_id === orderId && m.msg.status === 'canceled', 'user_order canceled');
    expect(update.msg).toMatchObject({ last_update_reason: 'ExpiryCancel', remaining_count: '0.00', expiration_ts_ms: expirationTs * 1000, last_updated_ts_ms: expirationTs * 1000 });
    const delta = await waitFor(messages, (m) => m.type === 'orderbook_delta' && m.msg.delta === '-3.00', 'orderbook_delta -3');
    expect(delta.msg).toMatchObject({ price: '95.0000', side: 'bid', last_update_reason: 'ExpiryCancel', client_order_id: created.body.client_order_id });
  });

  it('refuses expiration_time in the past or on a non-GTC order (400 invalid_order)', async () => {
    sim = await startMarginSim();
    const alice = sim.user('alice');
    const past = await alice.post('/margin/orders', marginOrder({ expiration_time: START_MS / 1000 - 1 }));
    expect([past.status, past.body.error?.code, past.body.error?.details]).toEqual([400, 'invalid_order', 'expiration_time']);
    const ioc = await alice.post('/margin/orders', marginOrder({ expiration_time: START_MS / 1000 + 60, time_in_force: 'immediate_or_cancel' }));
    expect([ioc.status, ioc.body.error?.code, ioc.body.error?.details]).toEqual([400, 'invalid_order', 'expiration_time']);
    expect(sim.margin.orderList).toEqual([]);
  });
});
