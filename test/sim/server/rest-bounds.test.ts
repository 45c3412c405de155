// Goal: one REST client cannot make the simulator keep, scan or echo unbounded text (the bounds of
// src/sim/server/rest/bounds.ts). client_order_id and updated_client_order_id take 1-64 printable
// ASCII characters (fix.md §5 ClOrdID); exchange ids 64 (in bodies and paths); tickers and query values
// 200; list query parameters 100 items (event_ticker on orders 10); the query string 32 KiB; the
// body 1 MiB (413); every listing route pages with a bounded limit (OpenAPI ranges, 400 {"msg"}
// above them, never clamped). Each violation is the documented error shape and changes nothing:
// no order is placed, a batch with one bad entry places none.
// Method: an in-process simulator on 127.0.0.1 port 0, signed requests over undici fetch.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RestClient } from '../helpers/clients.ts';
import { MARKET, order, startTestSim } from '../helpers/test-sim.ts';

let sim: Awaited<ReturnType<typeof startTestSim>>;
let demo: RestClient;

beforeAll(async () => {
  sim = await startTestSim({ rateLimits: false });
  demo = new RestClient(sim.httpUrl, sim.demoKey);
});
afterAll(async () => {
  await sim.close();
});

function expectBadField(result: { status: number; body: any }, field: string): void {
  expect(result.status).toBe(400);
  expect(result.body.error.code).toBe('bad_request');
  expect(result.body.error.details).toBe(field);
  expect(result.body.error.message.length).toBeLessThan(300); // never an echo of the whole value
}

async function restingCount(): Promise<number> {
  const result = await demo.get('/portfolio/orders?status=resting&limit=1000');
  expect(result.status).toBe(200);
  return result.body.orders.length;
}

describe('client_order_id', () => {
  it('64 printable characters are accepted; 65, a space, a control byte or non-ASCII are 400 bad_request', async () => {
    const id64 = `b-${process.pid}-`.padEnd(64, 'x');
    const ok = await demo.post('/portfolio/events/orders', order({ client_order_id: id64 }));
    expect(ok.status).toBe(201);
    expect(ok.body.client_order_id).toBe(id64);
    const before = await restingCount();
    for (const bad of [`${id64}y`, 'has space', 'tab\tbyte', 'café', '\u0000']) {
      expectBadField(await demo.post('/portfolio/events/orders', order({ client_order_id: bad })), 'client_order_id');
    }
    expect(await restingCount()).toBe(before);
  });

  it('a 1,000,000-character id is refused without being kept or echoed', async () => {
    const before = await restingCount();
    const result = await demo.post('/portfolio/events/orders', order({ client_order_id: 'x'.repeat(1_000_000) }));
    expectBadField(result, 'client_order_id');
    expect(result.text.length).toBeLessThan(500);
    expect(await restingCount()).toBe(before);
  });

  it('a batch with one bad id places nothing and names the entry', async () => {
    const before = await restingCount();
    const result = await demo.post('/portfolio/events/orders/batched', { orders: [order(), order({ client_order_id: 'y'.repeat(65) }), order()] });
    expectBadField(result, 'orders[1].client_order_id');
    expect(await restingCount()).toBe(before);
  });

  it('amend: client_order_id and updated_client_order_id are bounded the same way', async () => {
    const created = await demo.post('/portfolio/events/orders', order({ price: '0.31' }));
    expect(created.status).toBe(201);
    const path = `/portfolio/events/orders/${created.body.order_id}/amend`;
    const amend = { ticker: MARKET, side: 'bid', price: '0.32', count: '10' };
    expectBadField(await demo.post(path, { ...amend, updated_client_order_id: 'z'.repeat(65) }), 'updated_client_order_id');
    expectBadField(await demo.post(path, { ...amend, client_order_id: 'z'.repeat(65) }), 'client_order_id');
    const renamed = `amended-${process.pid}-${Date.now()}`;
    const ok = await demo.post(path, { ...amend, updated_client_order_id: renamed });
    expect(ok.status).toBe(200);
    expect(ok.body.client_order_id).toBe(renamed);
  });
});

describe('other body strings', () => {
  it('order_group_id above 64 characters, a ticker above 200: 400 naming the field', async () => {
    expectBadField(await demo.post('/portfolio/events/orders', order({ order_group_id: 'g'.repeat(65) })), 'order_group_id');
    expectBadField(await demo.post('/portfolio/events/orders', order({ ticker: 'T'.repeat(201) })), 'ticker');
  });

  it('batch cancel: order_id above 64 characters, market_ticker above 200', async () => {
    expectBadField(await demo.delete('/portfolio/events/orders/batched', { orders: [{ order_id: 'o'.repeat(65) }] }), 'orders[0].order_id');
    expectBadField(
      await demo.delete('/portfolio/events/orders/batched', { orders: [{ order_id: 'o-1', market_ticker: 'T'.repeat(201) }] }),
      'orders[0].market_ticker',
    );
  });

  it('a body above 1 MiB is 413 payload_too_large', async () => {
    const result = await demo.post('/portfolio/events/orders', order({ client_order_id: 'x'.repeat(1024 * 1024) }));
    expect(result.status).toBe(413);
    expect(result.body.code).toBe('payload_too_large');
  });
});

describe('paths and queries', () => {
  it('a ticker path parameter above 200 characters, an id above 64: 400 bad_request naming it', async () => {
    expectBadField(await demo.get(`/markets/${'T'.repeat(201)}`), 'ticker');
    expectBadField(await demo.get(`/portfolio/orders/${'o'.repeat(65)}`), 'order_id');
    expectBadField(await demo.delete(`/portfolio/order_groups/${'g'.repeat(65)}`), 'order_group_id');
    expect((await demo.get(`/markets/${'T'.repeat(200)}`)).status).toBe(404);
    expect((await demo.get(`/portfolio/orders/${'o'.repeat(64)}`)).status).toBe(404);
  });

  it('query values, list lengths and the query string are bounded, with the {"msg"} shape', async () => {
    const cases = [
      `/portfolio/orders?ticker=${'T'.repeat(201)}`,
      `/portfolio/orders?event_ticker=${Array.from({ length: 11 }, (_, i) => `E${i}`).join(',')}`,
      `/markets?tickers=${Array.from({ length: 101 }, (_, i) => `M${i}`).join(',')}`,
      `/markets/orderbooks?${Array.from({ length: 101 }, (_, i) => `tickers=M${i}`).join('&')}`,
      `/markets?series_ticker=S&pad=${'p'.repeat(33 * 1024)}`,
    ];
    for (const path of cases) {
      const result = await demo.get(path);
      expect(result.status, path.slice(0, 60)).toBe(400);
      expect(typeof result.body.msg, path.slice(0, 60)).toBe('string');
    }
    expect((await demo.get(`/portfolio/orders?event_ticker=${Array.from({ length: 10 }, (_, i) => `E${i}`).join(',')}`)).status).toBe(200);
    // A garbage cursor is a silent 200 (rest.md §8), an over-long one too.
    expect((await demo.get(`/markets?cursor=${'c'.repeat(5000)}`)).status).toBe(200);
  });

  it('every listing route pages with a bounded limit: the maximum is served, one more is 400 {"msg"}', async () => {
    const limits: Array<[string, number]> = [
      ['/portfolio/orders', 1000],
      ['/portfolio/fills', 1000],
      ['/portfolio/positions', 1000],
      ['/markets', 1000],
      ['/markets/trades', 1000],
      ['/events', 200],
    ];
    for (const [path, max] of limits) {
      expect((await demo.get(`${path}?limit=${max}`)).status, path).toBe(200);
      const over = await demo.get(`${path}?limit=${max + 1}`);
      expect(over.status, path).toBe(400);
      expect(typeof over.body.msg, path).toBe('string');
    }
  });
});
