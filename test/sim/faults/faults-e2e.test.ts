// Goal: every fault switch does what README "Faults" says, over real sockets: REST 5xx, delayed
// answers (the order applied before the answer), hangs and closed connections (not applied),
// ambiguous order entry (applied, answer lost as 5xx / hang / dropped connection), seeded
// probability that replays, and on the WebSocket a dropped delta (seq gap), a reordered delta,
// error 25 on a subscription and closed connections, by rule and by one-off action.
// Method: in-process simulator; faults added at run time through the handle; undici fetch and
// WebSocket clients; the order's fate is checked through GET /portfolio/orders.

import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { RestClient, WsClient } from '../helpers/clients.ts';
import { MARKET, order, startTestSim } from '../helpers/test-sim.ts';

let sim: Awaited<ReturnType<typeof startTestSim>>;
let demo: RestClient;
const sockets: WsClient[] = [];

async function restingIds(): Promise<string[]> {
  const result = await demo.get('/portfolio/orders?status=resting&limit=1000');
  return result.body.orders.map((o: { client_order_id: string }) => o.client_order_id);
}

async function postOrder(body: Record<string, unknown>, signal?: AbortSignal): Promise<Response> {
  return fetch(`${sim.httpUrl}/trade-api/v2/portfolio/events/orders`, {
    method: 'POST',
    headers: { ...demo.headers('POST', '/portfolio/events/orders'), 'Content-Type': 'application/json' },
    body: JSON.stringify(body),
    signal,
  });
}

async function bookClient(): Promise<{ ws: WsClient; sid: number }> {
  const ws = await WsClient.open(sim.wsUrl, sim.demoKey);
  sockets.push(ws);
  const [reply] = await ws.subscribe({ channels: ['orderbook_delta'], market_ticker: MARKET });
  await ws.waitFor((m) => m.type === 'orderbook_snapshot');
  return { ws, sid: reply.msg.sid };
}

beforeAll(async () => {
  sim = await startTestSim({ seed: 99 });
  demo = new RestClient(sim.httpUrl, sim.demoKey);
});
afterEach(() => {
  sim.faults.clear();
  for (const ws of sockets.splice(0)) ws.close();
});
afterAll(async () => {
  await sim.close();
});

describe('REST faults', () => {
  it('rest_error: the next N matching requests get a 5xx, then normal service', async () => {
    sim.faults.add({ kind: 'rest_error', status: 503, target: { times: 2, path: '/markets' } });
    const anonymous = new RestClient(sim.httpUrl, null);
    const first = await anonymous.get('/markets');
    expect(first.status).toBe(503);
    expect(first.body.error.code).toBe('service_unavailable');
    expect((await anonymous.get('/exchange/status')).status).toBe(200); // not targeted
    expect((await anonymous.get('/markets')).status).toBe(503);
    expect((await anonymous.get('/markets')).status).toBe(200);
  });

  it('rest_error on order entry: the order is NOT applied', async () => {
    sim.faults.add({ kind: 'rest_error', status: 500, target: { times: 1, method: 'POST', path: '/portfolio/events/orders' } });
    const body = order({ price: '0.08' });
    expect((await demo.post('/portfolio/events/orders', body)).status).toBe(500);
    expect(await restingIds()).not.toContain(body.client_order_id);
  });

  it('rest_delay: the order is applied at once, the answer comes later', async () => {
    sim.faults.add({ kind: 'rest_delay', delayMs: 1500, target: { times: 1, path: '/portfolio/events/orders' } });
    const body = order({ price: '0.09' });
    let answered = false;
    const pending = postOrder(body).then((response) => {
      answered = true;
      return response;
    });
    const deadline = Date.now() + 1000;
    let seen = false;
    while (!seen && Date.now() < deadline) seen = (await restingIds()).includes(body.client_order_id as string);
    expect(seen).toBe(true);
    expect(answered).toBe(false);
    const response = await pending;
    expect(response.status).toBe(201);
    expect(((await response.json()) as { client_order_id: string }).client_order_id).toBe(body.client_order_id);
  });

  it('rest_hang: no answer until the client gives up; not applied', async () => {
    sim.faults.add({ kind: 'rest_hang', target: { times: 1, path: '/portfolio/events/orders' } });
    const body = order({ price: '0.10' });
    await expect(postOrder(body, AbortSignal.timeout(300))).rejects.toThrow();
    expect(await restingIds()).not.toContain(body.client_order_id);
  });

  it('rest_close: the connection drops without an answer; not applied', async () => {
    sim.faults.add({ kind: 'rest_close', target: { times: 1, path: '/portfolio/events/orders' } });
    const body = order({ price: '0.11' });
    await expect(postOrder(body)).rejects.toThrow();
    expect(await restingIds()).not.toContain(body.client_order_id);
  });

  it('ambiguous_order: applied, then a 5xx, a hang or a dropped connection', async () => {
    sim.faults.add({ kind: 'ambiguous_order', mode: 'error', status: 502, target: { times: 1 } });
    const a = order({ price: '0.12' });
    const answer = await demo.post('/portfolio/events/orders', a);
    expect(answer.status).toBe(502);
    expect(await restingIds()).toContain(a.client_order_id);

    sim.faults.add({ kind: 'ambiguous_order', mode: 'hang', target: { times: 1 } });
    const b = order({ price: '0.13' });
    await expect(postOrder(b, AbortSignal.timeout(300))).rejects.toThrow();
    expect(await restingIds()).toContain(b.client_order_id);

    sim.faults.add({ kind: 'ambiguous_order', mode: 'close', target: { times: 1 } });
    const c = order({ price: '0.14' });
    await expect(postOrder(c)).rejects.toThrow();
    expect(await restingIds()).toContain(c.client_order_id);

    // Cancels are order entry too: the cancel is applied though the answer is lost.
    const placed = await demo.post('/portfolio/events/orders', order({ price: '0.15' }));
    sim.faults.add({ kind: 'ambiguous_order', mode: 'error', target: { times: 1, method: 'DELETE' } });
    expect((await demo.delete(`/portfolio/events/orders/${placed.body.order_id}`)).status).toBe(500);
    expect((await demo.get(`/portfolio/orders/${placed.body.order_id}`)).body.order.status).toBe('canceled');
  });

  it('probabilistic faults replay identically under the same seed', async () => {
    const run = async (): Promise<number[]> => {
      sim.faults.clear();
      sim.faults.reseed(1234);
      sim.faults.add({ kind: 'rest_error', status: 503, target: { probability: 0.5, path: '/exchange/status' } });
      const statuses: number[] = [];
      for (let i = 0; i < 30; i++) statuses.push((await demo.get('/exchange/status')).status);
      return statuses;
    };
    const first = await run();
    expect(first).toContain(503);
    expect(first).toContain(200);
    expect(await run()).toEqual(first);
  });

  it('profiles switch by name at start-up and at run time', async () => {
    sim.faults.useProfile('flaky-rest');
    expect(sim.faults.profile).toBe('flaky-rest');
    expect(sim.faults.list().map((rule) => rule.rule.kind)).toEqual(['rest_error', 'rest_delay']);
    sim.faults.useProfile('none');
    expect(sim.faults.list()).toEqual([]);
    const other = await startTestSim({ faultProfile: 'gappy-feed' });
    try {
      expect(other.faults.profile).toBe('gappy-feed');
      expect(other.faults.wsActive).toBe(true);
    } finally {
      await other.close();
    }
  });
});

describe('WebSocket faults', () => {
  it('ws_drop_delta: a seq gap on the book stream', async () => {
    const { ws, sid } = await bookClient();
    sim.faults.add({ kind: 'ws_drop_delta', target: { skip: 1, times: 1, marketTicker: MARKET } });
    for (const price of ['0.16', '0.17', '0.18']) await demo.post('/portfolio/events/orders', order({ price }));
    const deltas = await ws.waitForCount((m) => m.type === 'orderbook_delta', 2);
    expect(deltas.map((m) => m.sid)).toEqual([sid, sid]);
    expect(deltas.map((m) => m.seq)).toEqual([2, 4]); // seq 3 was dropped
    expect(deltas.map((m) => m.msg.price_dollars)).toEqual(['0.1600', '0.1800']);
  });

  it('ws_reorder_delta: a delta arrives after the next one', async () => {
    const { ws } = await bookClient();
    sim.faults.add({ kind: 'ws_reorder_delta', target: { times: 1 } });
    for (const price of ['0.19', '0.20', '0.21']) await demo.post('/portfolio/events/orders', order({ price }));
    const deltas = await ws.waitForCount((m) => m.type === 'orderbook_delta', 3);
    expect(deltas.map((m) => m.seq)).toEqual([3, 2, 4]);
  });

  it('ws_buffer_overflow rule: error 25 on the next matching message, subscription ended', async () => {
    const { ws, sid } = await bookClient();
    sim.faults.add({ kind: 'ws_buffer_overflow', target: { times: 1, channel: 'orderbook_delta' } });
    await demo.post('/portfolio/events/orders', order({ price: '0.22' }));
    const error = await ws.waitFor((m) => m.type === 'error');
    expect(error).toEqual({ type: 'error', sid, seq: 2, msg: { code: 25, msg: 'Subscription buffer overflow' } });
    await demo.post('/portfolio/events/orders', order({ price: '0.23' }));
    const listId = ws.send('list_subscriptions');
    expect((await ws.waitFor((m) => m.id === listId)).msg).toEqual([]);
    expect(ws.messages.filter((m) => m.type === 'orderbook_delta')).toEqual([]);
  });

  it('one-off overflow of a channel’s subscriptions', async () => {
    const { ws, sid } = await bookClient();
    const [trade] = await ws.subscribe({ channels: ['trade'] });
    expect(sim.faults.overflowSubscriptions({ channel: 'trade' })).toBe(1);
    const error = await ws.waitFor((m) => m.type === 'error');
    expect(error).toMatchObject({ sid: trade.msg.sid, msg: { code: 25 } });
    await demo.post('/portfolio/events/orders', order({ price: '0.24' }));
    expect((await ws.waitFor((m) => m.type === 'orderbook_delta')).sid).toBe(sid); // the other subscription lives
  });

  it('ws_close rule and one-off closeConnections', async () => {
    const { ws } = await bookClient();
    sim.faults.add({ kind: 'ws_close', closeCode: 1011, target: { times: 1 } });
    await demo.post('/portfolio/events/orders', order({ price: '0.25' }));
    expect((await ws.closed).code).toBe(1011);

    const second = await bookClient();
    const third = await bookClient();
    expect(sim.faults.closeConnections({ keyId: sim.demoKey.keyId })).toBe(2);
    const [a, b] = await Promise.all([second.ws.closed, third.ws.closed]);
    expect(a.code).toBe(1006); // abrupt: no close frame
    expect(b.code).toBe(1006);
  });
});
