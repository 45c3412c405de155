// Goal: the seed's spelling GET /portfolio/order/{orderId} (interface-spec Endpoints) is served as
// an alias of GET /portfolio/orders/{order_id}: the same answer for an order that exists, the same
// 404 for one that does not, and the same signature requirement. Method: an in-process simulator
// on 127.0.0.1:0, the demo key signing over real sockets.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RestClient } from '../helpers/clients.ts';
import { order, startTestSim } from '../helpers/test-sim.ts';

let sim: Awaited<ReturnType<typeof startTestSim>>;
let rest: RestClient;

beforeAll(async () => {
  sim = await startTestSim();
  rest = new RestClient(sim.httpUrl, sim.demoKey);
});
afterAll(async () => sim?.close());

describe('GET /portfolio/order/{orderId}', () => {
  it('answers as GET /portfolio/orders/{order_id}', async () => {
    const created = await rest.post('/portfolio/events/orders', order());
    expect(created.status, created.text).toBe(201);
    const orderId = created.body.order_id as string;
    const plural = await rest.get(`/portfolio/orders/${orderId}`);
    const singular = await rest.get(`/portfolio/order/${orderId}`);
    expect(plural.status).toBe(200);
    expect(singular.status).toBe(200);
    expect(singular.body).toEqual(plural.body);
    expect(singular.body.order.order_id).toBe(orderId);
  });

  it('answers the same 404 for an unknown order and 401 unsigned', async () => {
    const missing = '00000000-0000-4000-8000-000000000000';
    const plural = await rest.get(`/portfolio/orders/${missing}`);
    const singular = await rest.get(`/portfolio/order/${missing}`);
    expect(plural.status).toBe(404);
    expect([singular.status, singular.body]).toEqual([plural.status, plural.body]);
    const unsigned = await fetch(`${sim.httpUrl}/trade-api/v2/portfolio/order/${missing}`);
    expect(unsigned.status).toBe(401);
  });
});
