// Goal: authentication and authorization over real sockets behave as rest.md §1-§2 and the
// interface spec say: 401 bodies for a bad signature, stale timestamp, missing headers and an
// unknown key (REST and the WebSocket upgrade, before any upgrade); 403 for a scope violation;
// restricted keys confined to their subaccount (403 for an explicit other subaccount, 404 for
// orders outside it, whole batch rejected with nothing placed or cancelled).
// Method: an in-process simulator on 127.0.0.1:0, signed requests through undici fetch, a raw
// TCP handshake for the WebSocket 401.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RawWsClient, RestClient, type KeyPair } from '../helpers/clients.ts';
import { MARKET, order, startTestSim } from '../helpers/test-sim.ts';

let sim: Awaited<ReturnType<typeof startTestSim>>;
let demo: RestClient;

beforeAll(async () => {
  sim = await startTestSim();
  demo = new RestClient(sim.httpUrl, sim.demoKey);
});
afterAll(async () => {
  await sim.close();
});

describe('401 authentication failures', () => {
  it('bad signature: authentication_error / INCORRECT_API_KEY_SIGNATURE', async () => {
    const headers = demo.headers('GET', '/portfolio/balance');
    headers['KALSHI-ACCESS-SIGNATURE'] = demo.headers('GET', '/portfolio/orders')['KALSHI-ACCESS-SIGNATURE'];
    const result = await new RestClient(sim.httpUrl, null).request('GET', '/portfolio/balance', undefined, headers);
    expect(result.status).toBe(401);
    expect(result.body).toEqual({ error: expect.objectContaining({ code: 'authentication_error', details: 'INCORRECT_API_KEY_SIGNATURE' }) });
    expect(result.body.error.service).toBeUndefined();
  });

  it('signing the query string is a bad signature; the path without query verifies', async () => {
    const anonymous = new RestClient(sim.httpUrl, null);
    const good = await anonymous.request('GET', '/portfolio/orders?limit=5', undefined, demo.headers('GET', '/portfolio/orders'));
    expect(good.status).toBe(200);
    const { constants, createPrivateKey, sign } = await import('node:crypto');
    const ts = Date.now();
    // What a client that wrongly signs the query would send.
    const signature = sign('sha256', Buffer.from(`${ts}GET/trade-api/v2/portfolio/orders?limit=5`), {
      key: createPrivateKey(sim.demoKey.privateKeyPem),
      padding: constants.RSA_PKCS1_PSS_PADDING,
      saltLength: 32,
    }).toString('base64');
    const bad = await anonymous.request('GET', '/portfolio/orders?limit=5', undefined, {
      'KALSHI-ACCESS-KEY': sim.demoKey.keyId,
      'KALSHI-ACCESS-TIMESTAMP': String(ts),
      'KALSHI-ACCESS-SIGNATURE': signature,
    });
    expect(bad.status).toBe(401);
    expect(bad.body.error.details).toBe('INCORRECT_API_KEY_SIGNATURE');
  });

  it('stale and far-future timestamps: header_timestamp_expired', async () => {
    const anonymous = new RestClient(sim.httpUrl, null);
    for (const offset of [-60_000, 120_000]) {
      const result = await anonymous.request('GET', '/portfolio/balance', undefined, demo.headers('GET', '/portfolio/balance', Date.now() + offset));
      expect(result.status).toBe(401);
      expect(result.body).toEqual({ error: { code: 'header_timestamp_expired', message: expect.any(String) } });
    }
  });

  it('missing headers: signature_is_missing_from_headers; unknown key: NOT_FOUND', async () => {
    const anonymous = new RestClient(sim.httpUrl, null);
    const missing = await anonymous.get('/portfolio/balance');
    expect(missing.status).toBe(401);
    expect(missing.body.error.code).toBe('signature_is_missing_from_headers');
    const headers = demo.headers('GET', '/portfolio/balance');
    delete headers['KALSHI-ACCESS-SIGNATURE'];
    expect((await anonymous.request('GET', '/portfolio/balance', undefined, headers)).body.error.code).toBe('signature_is_missing_from_headers');
    const unknown = { ...demo.headers('GET', '/portfolio/balance'), 'KALSHI-ACCESS-KEY': '00000000-1111-4222-8333-444444444444' };
    const result = await anonymous.request('GET', '/portfolio/balance', undefined, unknown);
    expect(result.status).toBe(401);
    expect(result.text).toContain('NOT_FOUND');
  });

  it('the order book needs a signature; markets do not', async () => {
    const anonymous = new RestClient(sim.httpUrl, null);
    expect((await anonymous.get(`/markets/${MARKET}/orderbook`)).status).toBe(401);
    expect((await anonymous.get(`/markets/orderbooks?tickers=${MARKET}`)).status).toBe(401);
    expect((await anonymous.get('/markets')).status).toBe(200);
    expect((await anonymous.get(`/markets/${MARKET}`)).status).toBe(200);
  });

  it('WebSocket upgrade: HTTP 401 with the REST body, before any upgrade', async () => {
    const badKey: KeyPair = { keyId: '00000000-1111-4222-8333-444444444444', privateKeyPem: sim.demoKey.privateKeyPem };
    const client = await RawWsClient.open(sim.port, badKey);
    try {
      expect(client.statusLine).toMatch(/^HTTP\/1\.1 401/);
    } finally {
      client.close();
    }
    const good = await RawWsClient.open(sim.port, sim.demoKey);
    try {
      expect(good.statusLine).toMatch(/^HTTP\/1\.1 101/);
    } finally {
      good.close();
    }
  });
});

describe('403 scope violations', () => {
  it('a read-only key cannot trade; a trade-only key cannot read orders', async () => {
    const readOnly = new RestClient(sim.httpUrl, sim.createApiKey({ scopes: ['read'], tier: 'prime' }));
    const create = await readOnly.post('/portfolio/events/orders', order());
    expect(create.status).toBe(403);
    expect(create.body.error.code).toBe('forbidden');
    expect((await readOnly.get('/portfolio/orders')).status).toBe(200);
    const tradeOnly = new RestClient(sim.httpUrl, sim.createApiKey({ scopes: ['write::trade'], tier: 'prime' }));
    expect((await tradeOnly.post('/portfolio/events/orders', order({ price: '0.10' }))).status).toBe(201);
    expect((await tradeOnly.get('/portfolio/orders')).status).toBe(403);
    const balanceOnly = new RestClient(sim.httpUrl, sim.createApiKey({ scopes: ['read::portfolio_balance'] }));
    expect((await balanceOnly.get('/portfolio/balance')).status).toBe(200);
    expect((await balanceOnly.get('/portfolio/fills')).status).toBe(403);
  });
});

describe('subaccount-restricted keys', () => {
  let restricted: RestClient;
  let sibling: RestClient;
  let foreignOrderId: string;

  beforeAll(async () => {
    restricted = new RestClient(sim.httpUrl, sim.createApiKey({ scopes: ['read', 'write'], subaccount: 3, tier: 'prime' }));
    sibling = new RestClient(sim.httpUrl, sim.createApiKey({ scopes: ['read', 'write'], subaccount: 4, tier: 'prime' }));
    const placed = await sibling.post('/portfolio/events/orders', order({ price: '0.11' }));
    expect(placed.status).toBe(201);
    foreignOrderId = placed.body.order_id;
  });

  it('an omitted subaccount means the locked one; an explicit other one is 403', async () => {
    const own = await restricted.post('/portfolio/events/orders', order({ price: '0.12' }));
    expect(own.status).toBe(201);
    const fetched = await restricted.get(`/portfolio/orders/${own.body.order_id}`);
    expect(fetched.body.order.subaccount_number).toBe(3);
    const other = await restricted.post('/portfolio/events/orders', order({ price: '0.12', subaccount: 0 }));
    expect(other.status).toBe(403);
    expect((await restricted.get('/portfolio/orders?subaccount=0')).status).toBe(403);
    expect((await restricted.get('/portfolio/balance?subaccount=5')).status).toBe(403);
    expect((await restricted.get('/portfolio/orders/queue_positions?subaccount=4&market_tickers=' + MARKET)).status).toBe(403);
  });

  it('orders outside the subaccount are 404 for cancel, amend, decrease, get and queue position', async () => {
    const paths: Array<[string, string, unknown?]> = [
      ['DELETE', `/portfolio/events/orders/${foreignOrderId}`],
      ['POST', `/portfolio/events/orders/${foreignOrderId}/amend`, { ticker: MARKET, side: 'bid', price: '0.13', count: '10' }],
      ['POST', `/portfolio/events/orders/${foreignOrderId}/decrease`, { reduce_by: '1' }],
      ['GET', `/portfolio/orders/${foreignOrderId}`],
      ['GET', `/portfolio/orders/${foreignOrderId}/queue_position`],
    ];
    for (const [method, path, body] of paths) {
      const result = await restricted.request(method, path, body);
      expect(result.status, `${method} ${path}`).toBe(404);
    }
    // The order is untouched.
    expect((await sibling.get(`/portfolio/orders/${foreignOrderId}`)).body.order.remaining_count_fp).toBe('10.00');
  });

  it('lists show only the locked subaccount', async () => {
    const orders = await restricted.get('/portfolio/orders');
    expect(orders.status).toBe(200);
    expect(orders.body.orders.length).toBeGreaterThan(0);
    for (const entry of orders.body.orders) expect(entry.subaccount_number).toBe(3);
    const balances = await restricted.get('/portfolio/subaccounts/balances');
    for (const entry of balances.body.subaccount_balances) expect(entry.subaccount_number).toBe(3);
  });

  it('a batch with one foreign entry is rejected whole: nothing placed', async () => {
    const before = (await restricted.get('/portfolio/orders?status=resting')).body.orders.length;
    const batch = await restricted.post('/portfolio/events/orders/batched', {
      orders: [order({ price: '0.14' }), order({ price: '0.15', subaccount: 3 }), order({ price: '0.16', subaccount: 4 })],
    });
    expect(batch.status).toBe(403);
    expect((await restricted.get('/portfolio/orders?status=resting')).body.orders.length).toBe(before);
    const ok = await restricted.post('/portfolio/events/orders/batched', { orders: [order({ price: '0.14' }), order({ price: '0.15', subaccount: 3 })] });
    expect(ok.status).toBe(201);
    expect(ok.body.orders.map((entry: { error?: unknown }) => entry.error)).toEqual([undefined, undefined]);
  });

  it('a batch cancel with one foreign entry is rejected whole: nothing cancelled', async () => {
    const own = await restricted.post('/portfolio/events/orders', order({ price: '0.17' }));
    const batch = await restricted.delete('/portfolio/events/orders/batched', {
      orders: [{ order_id: own.body.order_id }, { order_id: foreignOrderId, subaccount: 4 }],
    });
    expect(batch.status).toBe(403);
    expect((await restricted.get(`/portfolio/orders/${own.body.order_id}`)).body.order.status).toBe('resting');
    expect((await sibling.get(`/portfolio/orders/${foreignOrderId}`)).body.order.status).toBe('resting');
    // A foreign order id without an explicit subaccount is simply not found (per item).
    const mixed = await restricted.delete('/portfolio/events/orders/batched', { orders: [{ order_id: own.body.order_id }, { order_id: foreignOrderId }] });
    expect(mixed.status).toBe(200);
    expect(mixed.body.orders[0].reduced_by).toBe('10.00');
    expect(mixed.body.orders[1].error.code).toBe('not_found');
    expect((await sibling.get(`/portfolio/orders/${foreignOrderId}`)).body.order.status).toBe('resting');
  });

  it('cancel-all of a restricted key touches only its subaccount', async () => {
    await restricted.post('/portfolio/events/orders', order({ price: '0.18' }));
    expect((await restricted.delete('/portfolio/events/orders?subaccount=4')).status).toBe(403);
    const result = await restricted.delete('/portfolio/events/orders');
    expect(result.status).toBe(204);
    expect(result.text).toBe('');
    expect((await restricted.get('/portfolio/orders?status=resting')).body.orders).toEqual([]);
    expect((await sibling.get(`/portfolio/orders/${foreignOrderId}`)).body.order.status).toBe('resting');
  });
});
