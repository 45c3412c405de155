// Goal: V2 order entry, portfolio reads, order groups, market data and the error shapes over real
// sockets, as rest.md §2-§10 describe them: 201/200/204 bodies, 404/409/400 error codes, flat
// bad_request for undecodable bodies, {"msg"} for query validation, 413 for huge bodies, 404/405
// for unknown routes, 410 for legacy mutations, 429 when the write bucket cannot pay, and the
// order-group contracts limit and per-user cap. Method: in-process simulator, undici fetch with
// signed headers; a second user provides liquidity.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../../src/core/index.ts';
import { RestClient } from '../helpers/clients.ts';
import { MARKET, MARKET_2, order, startTestSim } from '../helpers/test-sim.ts';

let sim: Awaited<ReturnType<typeof startTestSim>>;
let demo: RestClient;
let other: RestClient;

beforeAll(async () => {
  sim = await startTestSim({ engineOptions: { maxOrderGroupsPerUser: 3 } });
  demo = new RestClient(sim.httpUrl, sim.demoKey);
  other = new RestClient(sim.httpUrl, sim.createApiKey({ scopes: ['read', 'write'], tier: 'prime', userId: 'b7d1c2e3-0000-4000-8000-000000000002' }));
});
afterAll(async () => {
  await sim.close();
});

describe('V2 order entry', () => {
  it('create rests: 201 with the flat CreateOrderV2Response', async () => {
    const body = order({ price: '0.3000', count: '5.00' });
    const result = await demo.post('/portfolio/events/orders', body);
    expect(result.status).toBe(201);
    expect(result.body).toEqual({
      order_id: expect.any(String),
      client_order_id: body.client_order_id,
      fill_count: '0.00',
      remaining_count: '5.00',
      ts_ms: expect.any(Number),
    });
    const fetched = await demo.get(`/portfolio/orders/${result.body.order_id}`);
    expect(fetched.body.order).toMatchObject({ status: 'resting', book_side: 'bid', outcome_side: 'yes', yes_price_dollars: '0.3000', no_price_dollars: '0.7000' });
  });

  it('an IOC against another user fills and reports averages', async () => {
    await other.post('/portfolio/events/orders', order({ side: 'ask', price: '0.55', count: '3' }));
    const result = await demo.post('/portfolio/events/orders', order({ price: '0.60', count: '3', time_in_force: 'immediate_or_cancel' }));
    expect(result.status).toBe(201);
    expect(result.body).toMatchObject({ fill_count: '3.00', remaining_count: '0.00', average_fill_price: '0.5500' });
    expect(result.body.average_fee_paid).toMatch(/^\d+\.\d{4}$/);
    const fills = await demo.get(`/portfolio/fills?order_id=${result.body.order_id}`);
    expect(fills.status).toBe(200);
    expect(fills.body.fills[0]).toMatchObject({ order_id: result.body.order_id, count_fp: '3.00', yes_price_dollars: '0.5500', is_taker: true });
    const positions = await demo.get(`/portfolio/positions?ticker=${MARKET}`);
    expect(positions.body.market_positions[0]).toMatchObject({ ticker: MARKET, position_fp: '3.00' });
    expect(Array.isArray(positions.body.event_positions)).toBe(true);
  });

  it('cancel, then cancel again is 404 not_found', async () => {
    const placed = await demo.post('/portfolio/events/orders', order({ price: '0.31' }));
    const cancel = await demo.delete(`/portfolio/events/orders/${placed.body.order_id}`);
    expect(cancel.status).toBe(200);
    expect(cancel.body).toMatchObject({ order_id: placed.body.order_id, reduced_by: '10.00', ts_ms: expect.any(Number) });
    const again = await demo.delete(`/portfolio/events/orders/${placed.body.order_id}`);
    expect(again.status).toBe(404);
    expect(again.body.error.code).toBe('not_found');
  });

  it('amend and decrease', async () => {
    const placed = await demo.post('/portfolio/events/orders', order({ price: '0.32', count: '10' }));
    const id = placed.body.order_id;
    const amend = await demo.post(`/portfolio/events/orders/${id}/amend`, { ticker: MARKET, side: 'bid', price: '0.33', count: '8' });
    expect(amend.status).toBe(200);
    expect(amend.body).toMatchObject({ order_id: expect.any(String), ts_ms: expect.any(Number) });
    const decreased = await demo.post(`/portfolio/events/orders/${amend.body.order_id}/decrease`, { reduce_by: '3' });
    expect(decreased.status).toBe(200);
    expect(decreased.body.remaining_count).toBe('5.00');
    const to = await demo.post(`/portfolio/events/orders/${amend.body.order_id}/decrease`, { reduce_to: '2.00' });
    expect(to.body.remaining_count).toBe('2.00');
    const both = await demo.post(`/portfolio/events/orders/${amend.body.order_id}/decrease`, { reduce_to: '1', reduce_by: '1' });
    expect(both.status).toBe(400);
    expect(both.body.error.code).toBe('bad_request');
    const neither = await demo.post(`/portfolio/events/orders/${amend.body.order_id}/decrease`, {});
    expect(neither.status).toBe(400);
  });

  it('duplicate client_order_id is 409 order_already_exists, even after cancel', async () => {
    const body = order({ price: '0.34' });
    const first = await demo.post('/portfolio/events/orders', body);
    await demo.delete(`/portfolio/events/orders/${first.body.order_id}`);
    const second = await demo.post('/portfolio/events/orders', body);
    expect(second.status).toBe(409);
    expect(second.body).toEqual({ error: expect.objectContaining({ code: 'order_already_exists' }) });
  });

  it('prices off the grid, at $0 or $1, or malformed: 400 invalid_price', async () => {
    for (const price of ['0.405', '1.00', '0', 'abc', '0.12345']) {
      const result = await demo.post('/portfolio/events/orders', order({ price }));
      expect(result.status, price).toBe(400);
      expect(result.body.error.code, price).toBe('invalid_price');
    }
    // A deci-cent market accepts a sub-cent price.
    expect((await demo.post('/portfolio/events/orders', order({ ticker: MARKET_2, price: '0.405' }))).status).toBe(201);
  });

  it('batch create: 201 with a per-item error; batch cancel: 200 per item', async () => {
    const batch = await demo.post('/portfolio/events/orders/batched', { orders: [order({ price: '0.21' }), order({ price: '0.215' }), order({ price: '0.22' })] });
    expect(batch.status).toBe(201);
    expect(batch.body.orders).toHaveLength(3);
    expect(batch.body.orders[0]).toMatchObject({ order_id: expect.any(String), remaining_count: '10.00' });
    expect(batch.body.orders[1].error).toMatchObject({ code: 'invalid_price' });
    expect(batch.body.orders[1].ts_ms).toBeUndefined();
    const ids = [batch.body.orders[0].order_id, batch.body.orders[2].order_id, 'no-such-order'];
    const cancel = await demo.delete('/portfolio/events/orders/batched', { orders: ids.map((order_id) => ({ order_id })) });
    expect(cancel.status).toBe(200);
    expect(cancel.body.orders.map((entry: { reduced_by: string }) => entry.reduced_by)).toEqual(['10.00', '10.00', '0.00']);
    expect(cancel.body.orders[2].error.code).toBe('not_found');
  });

  it('cancel-all answers 204 with an empty body and leaves nothing resting', async () => {
    await demo.post('/portfolio/events/orders', order({ price: '0.23' }));
    const result = await demo.delete('/portfolio/events/orders');
    expect(result.status).toBe(204);
    expect(result.text).toBe('');
    expect((await demo.get('/portfolio/orders?status=resting')).body.orders).toEqual([]);
  });

  it('queue positions, resting order value, balances', async () => {
    await other.post('/portfolio/events/orders', order({ price: '0.25', count: '7' }));
    const mine = await demo.post('/portfolio/events/orders', order({ price: '0.25', count: '2' }));
    const one = await demo.get(`/portfolio/orders/${mine.body.order_id}/queue_position`);
    expect(one.status).toBe(200);
    expect(one.body).toEqual({ queue_position_fp: '7.00' });
    const many = await demo.get(`/portfolio/orders/queue_positions?market_tickers=${MARKET}`);
    expect(many.body.queue_positions).toContainEqual(expect.objectContaining({ order_id: mine.body.order_id, market_ticker: MARKET, queue_position_fp: '7.00' }));
    const resting = await demo.get('/portfolio/summary/total_resting_order_value');
    expect(resting.status).toBe(200);
    expect(resting.body).toHaveProperty('total_resting_order_value');
    const balance = await demo.get('/portfolio/balance');
    expect(balance.body).toMatchObject({ balance: expect.any(Number), balance_dollars: expect.any(String), portfolio_value: expect.any(Number) });
    const subaccounts = await demo.get('/portfolio/subaccounts/balances');
    expect(subaccounts.body.subaccount_balances.length).toBeGreaterThan(0);
  });
});

describe('request decoding errors', () => {
  it('numbers where strings are required: flat bad_request', async () => {
    for (const field of ['count', 'price']) {
      const result = await demo.post('/portfolio/events/orders', order({ [field]: 10 }));
      expect(result.status).toBe(400);
      expect(result.body.code).toBe('bad_request');
      expect(result.body.error).toBeUndefined();
    }
    const wrongBool = await demo.post('/portfolio/events/orders', order({ post_only: 'yes' }));
    expect(wrongBool.body.code).toBe('bad_request');
  });

  it('malformed JSON, no body, non-JSON content type, non-object body', async () => {
    expect((await demo.request('POST', '/portfolio/events/orders', '{"ticker":')).body).toMatchObject({ code: 'bad_request' });
    expect((await demo.request('POST', '/portfolio/events/orders')).body).toMatchObject({ code: 'invalid_content_type' });
    expect((await demo.request('POST', '/portfolio/events/orders', 'ticker=x', { 'Content-Type': 'text/plain' })).body).toMatchObject({ code: 'invalid_content_type' });
    expect((await demo.request('POST', '/portfolio/events/orders', '[1,2]')).body).toMatchObject({ code: 'bad_request' });
    expect((await demo.request('POST', '/portfolio/events/orders', 'null')).status).toBe(400);
  });

  it('missing or invalid fields: nested 400 naming the field', async () => {
    const missing = await demo.post('/portfolio/events/orders', { side: 'bid', count: '1', price: '0.5', time_in_force: 'good_till_canceled', self_trade_prevention_type: 'maker' });
    expect(missing.status).toBe(400);
    expect(missing.body.error).toMatchObject({ code: 'bad_request', details: 'ticker' });
    const badEnum = await demo.post('/portfolio/events/orders', order({ time_in_force: 'GTT' }));
    expect(badEnum.body.error).toMatchObject({ code: 'bad_request', details: 'time_in_force' });
    const badCount = await demo.post('/portfolio/events/orders', order({ count: '1.234' }));
    expect(badCount.status).toBe(400);
    const unknownMarket = await demo.post('/portfolio/events/orders', order({ ticker: 'NOPE-1' }));
    expect(unknownMarket.status).toBe(404);
  });

  it('a huge body is 413, the connection survives for the next request', async () => {
    const huge = JSON.stringify({ orders: Array.from({ length: 40_000 }, () => order()) });
    expect(huge.length).toBeGreaterThan(1024 * 1024);
    const result = await demo.request('POST', '/portfolio/events/orders/batched', huge);
    expect(result.status).toBe(413);
    expect(result.body.code).toBe('payload_too_large');
    expect((await demo.get('/exchange/status')).status).toBe(200);
  });

  it('unknown paths 404, wrong methods 405, outside the prefix 404', async () => {
    expect((await demo.get('/no/such/path')).status).toBe(404);
    expect((await demo.get('/no/such/path')).body.error.code).toBe('not_found');
    expect((await demo.request('PUT', '/markets')).status).toBe(405);
    const outside = await fetch(`${sim.httpUrl}/elsewhere`);
    expect(outside.status).toBe(404);
    await outside.text();
  });

  it('legacy order mutations answer 410 deprecated_v1_order_endpoint', async () => {
    const calls: Array<[string, string, unknown?]> = [
      ['POST', '/portfolio/orders', { ticker: MARKET, side: 'yes', action: 'buy', count: 1, yes_price: 40 }],
      ['DELETE', '/portfolio/orders/abc'],
      ['POST', '/portfolio/orders/abc/amend', {}],
      ['POST', '/portfolio/orders/abc/decrease', { reduce_by: 1 }],
      ['POST', '/portfolio/orders/batched', { orders: [] }],
      ['DELETE', '/portfolio/orders/batched', { ids: [] }],
    ];
    for (const [method, path, body] of calls) {
      const result = await demo.request(method, path, body);
      expect(result.status, `${method} ${path}`).toBe(410);
      expect(result.body.error.code).toBe('deprecated_v1_order_endpoint');
      expect(result.body.error.message).toContain('/portfolio/events/orders');
    }
  });
});

describe('rate limits', () => {
  // The write bucket refills a create's cost every 100 ms: a slow machine between two sequential
  // requests would pay the 11th. This simulator's clock stands still, so only spending counts; the
  // signatures keep the real time, inside a window wide enough for the test's run.
  let frozen: Awaited<ReturnType<typeof startTestSim>>;
  beforeAll(async () => {
    frozen = await startTestSim({ clock: new ManualClock(Date.now()), timestampWindow: { pastMs: 600_000, futureMs: 600_000 } });
  });
  afterAll(async () => {
    await frozen.close();
  });

  it('a Basic key gets 10 creates from its write bucket, then 429 {"error":"too many requests"}', async () => {
    const sim = frozen;
    const basic = new RestClient(sim.httpUrl, sim.createApiKey({ scopes: ['read', 'write'], tier: 'basic' }));
    const statuses: number[] = [];
    for (let i = 0; i < 12; i++) statuses.push((await basic.post('/portfolio/events/orders', order({ price: '0.02' }))).status);
    expect(statuses).toEqual([...Array.from({ length: 10 }, () => 201), 429, 429]);
    const limited = await basic.post('/portfolio/events/orders', order({ price: '0.02' }));
    expect(limited.status).toBe(429);
    expect(limited.body).toEqual({ error: 'too many requests' });
    // Reads come from the other bucket.
    expect((await basic.get('/portfolio/orders?limit=1')).status).toBe(200);
    const limits = await basic.get('/account/limits');
    expect(limits.body).toMatchObject({ usage_tier: 'basic', read: { refill_rate: 200, bucket_capacity: 200 }, write: { refill_rate: 100, bucket_capacity: 100 }, grants: [] });
  });

  it('a batch is billed per item: 11 creates on Basic cannot be paid at once', async () => {
    const sim = frozen;
    const basic = new RestClient(sim.httpUrl, sim.createApiKey({ scopes: ['read', 'write'], tier: 'basic' }));
    const big = await basic.post('/portfolio/events/orders/batched', { orders: Array.from({ length: 11 }, () => order({ price: '0.03' })) });
    expect(big.status).toBe(429);
    const fits = await basic.post('/portfolio/events/orders/batched', { orders: Array.from({ length: 10 }, () => order({ price: '0.03' })) });
    expect(fits.status).toBe(201);
  });

  it('endpoint costs list the non-default costs with full paths', async () => {
    const costs = await new RestClient(sim.httpUrl, null).get('/account/endpoint_costs');
    expect(costs.body.default_cost).toBe(10);
    expect(costs.body.endpoint_costs).toContainEqual({ method: 'DELETE', path: '/trade-api/v2/portfolio/events/orders/{order_id}', cost: 2 });
  });
});

describe('order groups', () => {
  it('create (201 with subaccount), get, list; the contracts limit triggers and blocks until reset', async () => {
    const created = await demo.post('/portfolio/order_groups/create', { contracts_limit: 5 });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ order_group_id: expect.any(String), subaccount: 0 });
    const groupId = created.body.order_group_id;
    const resting = await demo.post('/portfolio/events/orders', order({ price: '0.45', count: '10', order_group_id: groupId }));
    expect(resting.status).toBe(201);
    const got = await demo.get(`/portfolio/order_groups/${groupId}`);
    expect(got.body).toMatchObject({ is_auto_cancel_enabled: true, contracts_limit_fp: '5.00', orders: [resting.body.order_id] });
    const list = await demo.get('/portfolio/order_groups');
    expect(list.body.order_groups.map((group: { id: string }) => group.id)).toContain(groupId);

    // Another user takes 6: the group passes its 5-contract limit (the engine triggers above the
    // limit), the group's remaining orders are cancelled.
    const take = await other.post('/portfolio/events/orders', order({ side: 'ask', price: '0.45', count: '6', time_in_force: 'immediate_or_cancel' }));
    expect(take.body.fill_count).toBe('6.00');
    expect((await demo.get(`/portfolio/orders/${resting.body.order_id}`)).body.order.status).toBe('canceled');
    const blocked = await demo.post('/portfolio/events/orders', order({ price: '0.05', order_group_id: groupId }));
    expect(blocked.status).toBe(400);
    expect(blocked.body.error.code).toBe('order_group_triggered');
    expect((await demo.put(`/portfolio/order_groups/${groupId}/reset`)).status).toBe(200);
    expect((await demo.post('/portfolio/events/orders', order({ price: '0.05', order_group_id: groupId }))).status).toBe(201);
    // Limit update, manual trigger and delete.
    const limit = await demo.put(`/portfolio/order_groups/${groupId}/limit`, { contracts_limit_fp: '20.00' });
    expect(limit.status).toBe(200);
    expect(limit.body).toEqual({});
    expect((await demo.put(`/portfolio/order_groups/${groupId}/trigger`)).status).toBe(200);
    expect((await demo.post('/portfolio/events/orders', order({ price: '0.05', order_group_id: groupId }))).body.error.code).toBe('order_group_triggered');
    expect((await demo.delete(`/portfolio/order_groups/${groupId}`)).status).toBe(200);
    expect((await demo.get(`/portfolio/order_groups/${groupId}`)).status).toBe(404);
    const mismatch = await demo.post('/portfolio/order_groups/create', { contracts_limit: 2, contracts_limit_fp: '3.00' });
    expect(mismatch.status).toBe(400);
  });

  it('creation above the per-user cap is rejected', async () => {
    const fresh = new RestClient(sim.httpUrl, sim.createApiKey({ scopes: ['read', 'write'], tier: 'prime', userId: 'c0ffee00-0000-4000-8000-000000000003' }));
    for (let i = 0; i < 3; i++) expect((await fresh.post('/portfolio/order_groups/create', {})).status).toBe(201);
    const over = await fresh.post('/portfolio/order_groups/create', {});
    expect(over.status).toBe(400);
    expect(over.body.error.code).toBe('order_group_limit_reached');
  });
});

describe('market data and exchange', () => {
  it('markets: cursor paging, filters, limit above 1000 is {"msg"}', async () => {
    const anonymous = new RestClient(sim.httpUrl, null);
    const first = await anonymous.get('/markets?limit=2');
    expect(first.body.markets).toHaveLength(2);
    expect(typeof first.body.cursor).toBe('string');
    const second = await anonymous.get(`/markets?limit=2&cursor=${encodeURIComponent(first.body.cursor)}`);
    expect(second.body.markets[0].ticker).not.toBe(first.body.markets[0].ticker);
    const byTickers = await anonymous.get(`/markets?tickers=${MARKET},${MARKET_2}`);
    expect(byTickers.body.markets.map((m: { ticker: string }) => m.ticker).sort()).toEqual([MARKET, MARKET_2].sort());
    const over = await anonymous.get('/markets?limit=1001');
    expect(over.status).toBe(400);
    expect(over.body).toEqual({ msg: expect.any(String) });
    expect((await anonymous.get('/markets?status=bogus')).status).toBe(400);
    expect((await anonymous.get('/markets/NOPE')).status).toBe(404);
  });

  it('order books: one market (ascending levels), several by repeated keys or comma list', async () => {
    await other.post('/portfolio/events/orders', order({ price: '0.10', count: '1' }));
    const book = await demo.get(`/markets/${MARKET}/orderbook`);
    expect(book.status).toBe(200);
    const yes: Array<[string, string]> = book.body.orderbook_fp.yes_dollars;
    const prices = yes.map(([price]) => price);
    expect([...prices].sort()).toEqual(prices);
    const repeated = await demo.get(`/markets/orderbooks?tickers=${MARKET}&tickers=${MARKET_2}`);
    expect(repeated.body.orderbooks.map((entry: { ticker: string }) => entry.ticker)).toEqual([MARKET, MARKET_2]);
    const comma = await demo.get(`/markets/orderbooks?tickers=${MARKET},${MARKET_2}`);
    expect(comma.body.orderbooks).toHaveLength(2);
    expect((await demo.get(`/markets/${MARKET}/orderbook?depth=101`)).status).toBe(400);
  });

  it('trades, events, series, exchange status/schedule/user data timestamp', async () => {
    const anonymous = new RestClient(sim.httpUrl, null);
    const trades = await anonymous.get(`/markets/trades?ticker=${MARKET}`);
    expect(trades.body.trades.length).toBeGreaterThan(0);
    const events = await anonymous.get('/events?with_nested_markets=true');
    expect(events.body.events.length).toBeGreaterThan(0);
    const event = await anonymous.get(`/events/${events.body.events[0].event_ticker}`);
    expect(event.body).toHaveProperty('event');
    expect(Array.isArray(event.body.markets)).toBe(true);
    const series = await anonymous.get('/series');
    expect(series.body.series.length).toBeGreaterThan(0);
    expect((await anonymous.get(`/series/${series.body.series[0].ticker}`)).body.series.ticker).toBe(series.body.series[0].ticker);
    const status = await anonymous.get('/exchange/status');
    expect(status.body).toMatchObject({ exchange_active: true, trading_active: true });
    expect(status.body.exchange_index_statuses.map((entry: { exchange_index: number }) => entry.exchange_index)).toContain(0);
    expect((await anonymous.get('/exchange/schedule')).body.schedule.standard_hours).toHaveLength(1);
    expect(Date.parse((await anonymous.get('/exchange/user_data_timestamp')).body.as_of_time)).toBeGreaterThan(0);
  });
});

describe('post-only crossing switch', () => {
  it('default: 201 with nothing resting (cancelled, PostOnlyCrossCancel); switched: 400 invalid_order', async () => {
    await other.post('/portfolio/events/orders', order({ side: 'ask', price: '0.88', count: '1' }));
    const cancelled = await demo.post('/portfolio/events/orders', order({ price: '0.88', post_only: true }));
    expect(cancelled.status).toBe(201);
    expect(cancelled.body).toMatchObject({ fill_count: '0.00', remaining_count: '0.00' });
    const strict = await startTestSim({ postOnlyCrossReject400: true });
    try {
      const maker = new RestClient(strict.httpUrl, strict.createApiKey({ scopes: ['read', 'write'], tier: 'prime', userId: 'e0000000-0000-4000-8000-000000000005' }));
      await maker.post('/portfolio/events/orders', order({ side: 'ask', price: '0.88', count: '1' }));
      const rejected = await new RestClient(strict.httpUrl, strict.demoKey).post('/portfolio/events/orders', order({ price: '0.88', post_only: true }));
      expect(rejected.status).toBe(400);
      expect(rejected.body.error).toMatchObject({ code: 'invalid_order', details: 'post only cross' });
    } finally {
      await strict.close();
    }
  });
});

describe('garbage input never crashes the server', () => {
  it('random bodies, paths and queries get 4xx answers, and the server keeps serving', async () => {
    let seed = 12345;
    const random = (n: number): number => {
      seed = (seed * 1103515245 + 12345) & 0x7fffffff;
      return seed % n;
    };
    const pieces = ['{', '}', '[', ']', '"', ':', ',', 'null', 'true', '1e999', '-0', '"count"', '"price"', '"orders"', '\\u0000', '\u00ff', '{"orders":[', 'ticker', '0.5', '%', '%zz', '..', '/'];
    const paths = [
      '/portfolio/events/orders',
      '/portfolio/events/orders/batched',
      '/portfolio/events/orders/x/amend',
      '/portfolio/events/orders/x/decrease',
      '/portfolio/order_groups/create',
      '/portfolio/order_groups/x/limit',
      '/markets',
      '/portfolio/orders',
    ];
    const methods = ['POST', 'PUT', 'DELETE', 'GET'];
    const statuses = new Set<number>();
    for (let i = 0; i < 150; i++) {
      let body = '';
      const length = random(12);
      for (let j = 0; j < length; j++) body += pieces[random(pieces.length)];
      const path = paths[random(paths.length)];
      const query = random(3) === 0 ? `?limit=${pieces[random(pieces.length)]}&subaccount=${pieces[random(pieces.length)]}` : '';
      const method = methods[random(methods.length)];
      const result = await demo.request(method, path + encodeURI(query).replace(/%25/g, '%'), method === 'GET' ? undefined : body);
      statuses.add(result.status);
      expect(result.status, `${method} ${path}${query} ${body}`).toBeLessThan(500);
    }
    expect([...statuses].every((status) => status >= 200)).toBe(true);
    expect((await demo.get('/exchange/status')).status).toBe(200);
  });
});
