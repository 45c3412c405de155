// Goal: the official generated client (kalshi-typescript 3.30.0), pointed at the simulator by
// basePath only, works unchanged: it signs requests its own way (RSA-PSS over the pathname), the
// simulator accepts them, and the bodies decode into the client's types for getMarkets,
// createOrderV2, getOrders, cancelOrderV2 and getBalance; errors surface as AxiosError with the
// exchange's status and nested error body. Method: in-process simulator; the client as shipped.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Configuration, MarketApi, OrdersApi, PortfolioApi } from 'kalshi-typescript';
import { MARKET, startTestSim } from '../helpers/test-sim.ts';

let sim: Awaited<ReturnType<typeof startTestSim>>;
let configuration: Configuration;

beforeAll(async () => {
  sim = await startTestSim();
  configuration = new Configuration({ basePath: `${sim.httpUrl}/trade-api/v2`, apiKey: sim.demoKey.keyId, privateKeyPem: sim.demoKey.privateKeyPem });
});
afterAll(async () => {
  await sim.close();
});

describe('kalshi-typescript against the simulator', () => {
  it('getMarkets', async () => {
    const response = await new MarketApi(configuration).getMarkets(5);
    expect(response.status).toBe(200);
    expect(response.data.markets.length).toBeGreaterThan(0);
    expect(response.data.markets.length).toBeLessThanOrEqual(5);
    expect(typeof response.data.cursor).toBe('string');
    expect(response.data.markets[0].price_ranges.length).toBeGreaterThan(0);
  });

  it('createOrderV2, getOrders, cancelOrderV2, getBalance', async () => {
    const orders = new OrdersApi(configuration);
    const clientOrderId = `kalshi-ts-${process.pid}`;
    const created = await orders.createOrderV2({
      ticker: MARKET,
      client_order_id: clientOrderId,
      side: 'bid',
      count: '3.00',
      price: '0.4100',
      time_in_force: 'good_till_canceled',
      self_trade_prevention_type: 'taker_at_cross',
    });
    expect(created.status).toBe(201);
    expect(created.data).toMatchObject({ client_order_id: clientOrderId, fill_count: '0.00', remaining_count: '3.00' });
    const orderId = created.data.order_id;

    const listed = await orders.getOrders(MARKET, undefined, undefined, undefined, 'resting');
    expect(listed.data.orders.map((o) => o.order_id)).toContain(orderId);
    const mine = listed.data.orders.find((o) => o.order_id === orderId)!;
    expect(mine).toMatchObject({ book_side: 'bid', outcome_side: 'yes', yes_price_dollars: '0.4100', remaining_count_fp: '3.00', status: 'resting' });

    const cancelled = await orders.cancelOrderV2(orderId);
    expect(cancelled.status).toBe(200);
    expect(cancelled.data).toMatchObject({ order_id: orderId, reduced_by: '3.00' });

    const balance = await new PortfolioApi(configuration).getBalance();
    expect(balance.status).toBe(200);
    expect(typeof balance.data.balance).toBe('number');
    expect(balance.data.balance).toBeGreaterThan(0);
  });

  it('errors are AxiosErrors carrying the status and the nested error body', async () => {
    const orders = new OrdersApi(configuration);
    let caught: any;
    try {
      await orders.cancelOrderV2('no-such-order');
    } catch (error) {
      caught = error;
    }
    expect(caught?.isAxiosError).toBe(true);
    expect(caught.response.status).toBe(404);
    expect(caught.response.data.error.code).toBe('not_found');
  });
});
