// Goal: a Margin amend passes the same checks as a create of the order's new state (initial margin /
// leverage, post-only crossing, tick), net of the order's own current reservation, and a refused
// amend changes nothing (no fill, no resize, no rename). Method: an in-process sim (margin-sim.ts)
// on 127.0.0.1:0, signed REST requests; every 2xx body validated against margin-api.openapi.yaml.
// Margin arithmetic on KXBTCPERP (config/margin-markets.json): maintenance 5% of notional up to
// $10,000, 10% up to $100,000, 20% beyond; initial = 2 x maintenance; notional priced at the worse
// of the mark and the order price.

import { afterEach, describe, expect, it } from 'vitest';
import { errorsOf, OpenApiValidator } from '../helpers/schemas.ts';
import type { RestClient, RestResult } from '../helpers/clients.ts';
import { marginOrder, startMarginSim, type MarginSim } from './margin-sim.ts';

const spec = new OpenApiValidator(() => {}, 'margin-api.openapi.yaml');
const AMEND = '/margin/orders/{order_id}/amend';

function valid(method: string, path: string, result: RestResult, status = 200): any {
  expect(result.status, result.text).toBe(status);
  const validate = spec.response(method, path, status);
  expect(validate(result.body), errorsOf(validate)).toBe(true);
  return result.body;
}

function refusal(result: RestResult, status: number): { code: string; details?: string } {
  expect(result.status, result.text).toBe(status);
  return (result.body as any).error;
}

let sim: MarginSim | null = null;
afterEach(() => {
  sim?.close();
  sim = null;
});

async function create(client: RestClient, overrides: Record<string, unknown>): Promise<any> {
  return valid('POST', '/margin/orders', await client.post('/margin/orders', marginOrder(overrides)), 201);
}

function amend(client: RestClient, orderId: string, body: Record<string, unknown>): Promise<RestResult> {
  return client.post(`/margin/orders/${orderId}/amend`, { ticker: 'KXBTCPERP', side: 'bid', ...body });
}

async function order(client: RestClient, orderId: string): Promise<any> {
  return valid('GET', '/margin/orders/{order_id}', await client.get(`/margin/orders/${orderId}`)).order;
}

describe('margin amend: initial margin', () => {
  it('refuses a 1-contract bid amended to 1,000,000 contracts as create does, and leaves the order and the book as they were', async () => {
    sim = await startMarginSim(); // $1,000,000 per subaccount
    const alice = sim.user('alice');
    const bob = sim.user('bob');
    const ask = await create(bob, { side: 'ask', count: '13', price: '150.00' });
    const bid = await create(alice, { side: 'bid', count: '1', price: '140.00' });

    const created = refusal(await alice.post('/margin/orders', marginOrder({ side: 'bid', count: '1000000', price: '150.00' })), 400);
    expect(created.code).toBe('insufficient_balance');
    const amended = refusal(await amend(alice, bid.order_id, { count: '1000000', price: '150.00', updated_client_order_id: 'renamed-by-refused-amend' }), 400);
    expect(amended.code).toBe('insufficient_balance');

    expect(await order(alice, bid.order_id)).toMatchObject({
      remaining_count: '1.00', fill_count: '0.00', price: '140.0000', client_order_id: bid.client_order_id,
    });
    expect(await order(bob, ask.order_id)).toMatchObject({ remaining_count: '13.00', fill_count: '0.00' });
    expect(valid('GET', '/margin/fills', await alice.get('/margin/fills')).fills).toEqual([]);
    // the client_order_id the refused amend named is still free
    await create(alice, { client_order_id: 'renamed-by-refused-amend', side: 'bid', count: '1', price: '90.00' });
  });

  it('counts the order\'s own reservation once: grows up to the limit, refuses beyond it', async () => {
    sim = await startMarginSim({ fundingDollars: 1000 });
    const alice = sim.user('alice');
    // 90 @ 100: notional $9,000, initial $900 of $1,000
    const bid = await create(alice, { side: 'bid', count: '90', price: '100.00' });
    // 95: initial $950 (it would be $1,850 if the 90 resting were counted beside it)
    const grown = valid('POST', AMEND, await amend(alice, bid.order_id, { count: '95', price: '100.00' }));
    expect(grown).toMatchObject({ remaining_count: '95.00', fill_count: '0.00' });
    // 101: notional $10,100 is in the 10% tier, initial $2,020
    expect(refusal(await amend(alice, bid.order_id, { count: '101', price: '100.00' }), 400).code).toBe('insufficient_balance');
    expect(refusal(await alice.post('/margin/orders', marginOrder({ side: 'bid', count: '101', price: '100.00' })), 400).code).toBe('insufficient_balance');
    // a higher price raises the notional too: 95 @ 106 is $10,070
    expect(refusal(await amend(alice, bid.order_id, { count: '95', price: '106.00' }), 400).code).toBe('insufficient_balance');
    expect((await order(alice, bid.order_id))).toMatchObject({ remaining_count: '95.00', price: '100.0000' });
  });

  it('lets an amend that needs no more margin through on an account the mark has left short: smaller, or priced away', async () => {
    sim = await startMarginSim({ fundingDollars: 1000 });
    const alice = sim.user('alice');
    const dave = sim.user('dave');
    const erin = sim.user('erin');
    const bid = await create(alice, { side: 'bid', count: '90', price: '100.00' });
    // one trade at 120 with the ask side empty: the mark is the last trade
    await create(dave, { side: 'ask', count: '1', price: '120.00' });
    await create(erin, { side: 'bid', count: '1', price: '120.00', time_in_force: 'immediate_or_cancel' });
    expect(sim.margin.markets.get('KXBTCPERP')!.mark).toBe(1_200_000);
    // 90 x $120 = $10,800: initial $2,160 on $1,000. A create of the same is refused ...
    expect(refusal(await alice.post('/margin/orders', marginOrder({ side: 'bid', count: '90', price: '100.00' })), 400).code).toBe('insufficient_balance');
    // ... but a lower bid needs no more (notional at the mark) and a smaller one needs less
    valid('POST', AMEND, await amend(alice, bid.order_id, { count: '90', price: '95.00' }));
    const smaller = valid('POST', AMEND, await amend(alice, bid.order_id, { count: '85', price: '95.00' }));
    expect(smaller).toMatchObject({ remaining_count: '85.00', fill_count: '0.00' });
    // growing it is still refused
    expect(refusal(await amend(alice, bid.order_id, { count: '86', price: '95.00' }), 400).code).toBe('insufficient_balance');
    expect(await order(alice, bid.order_id)).toMatchObject({ remaining_count: '85.00', price: '95.0000' });
  });
});

describe('margin amend: post-only and tick', () => {
  it('refuses a post-only order amended to a crossing price as create does, without filling it as taker', async () => {
    sim = await startMarginSim();
    const alice = sim.user('alice');
    const bob = sim.user('bob');
    const ask = await create(bob, { side: 'ask', count: '5', price: '101.00' });
    const bid = await create(alice, { side: 'bid', count: '5', price: '100.00', post_only: true });

    const created = refusal(await alice.post('/margin/orders', marginOrder({ side: 'bid', count: '5', price: '101.00', post_only: true })), 400);
    const amended = refusal(await amend(alice, bid.order_id, { count: '5', price: '101.00' }), 400);
    expect(amended).toMatchObject({ code: 'invalid_order', details: 'post only cross' });
    expect(amended).toMatchObject({ code: created.code, details: created.details });
    expect(refusal(await amend(alice, bid.order_id, { count: '5', price: '102.00' }), 400).details).toBe('post only cross');

    expect(await order(alice, bid.order_id)).toMatchObject({ remaining_count: '5.00', fill_count: '0.00', price: '100.0000' });
    expect(await order(bob, ask.order_id)).toMatchObject({ remaining_count: '5.00', fill_count: '0.00' });
    // up to just under the ask it still rests as a maker
    const moved = valid('POST', AMEND, await amend(alice, bid.order_id, { count: '5', price: '100.99' }));
    expect(moved).toMatchObject({ order_id: bid.order_id, remaining_count: null, fill_count: null });
    expect(await order(alice, bid.order_id)).toMatchObject({ price: '100.9900', remaining_count: '5.00' });
  });

  it('refuses an off-tick price on amend as on create', async () => {
    sim = await startMarginSim();
    const alice = sim.user('alice');
    const gold = { ticker: 'KXGOLDPERP', side: 'bid', count: '1' }; // tick 0.10
    const bid = await create(alice, { ...gold, price: '25.00' });
    expect(refusal(await alice.post('/margin/orders', marginOrder({ ...gold, price: '25.05' })), 400).code).toBe('invalid_price');
    expect(refusal(await alice.post(`/margin/orders/${bid.order_id}/amend`, { ...gold, price: '25.05' }), 400).code).toBe('invalid_price');
  });
});
