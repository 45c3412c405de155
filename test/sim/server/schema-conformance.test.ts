// Goal: what the simulator sends matches the exchange's published schemas
// (../shared/spec/schemas: trade-api.openapi.yaml for REST bodies, trade-ws.asyncapi.yaml for
// WebSocket messages). Where a schema and rest.md / websocket.md disagree, those files decide,
// and the test says so at the spot:
//   - REST error bodies: the OpenAPI ErrorResponse is flat; rest.md §2 says the wire nests it
//     under "error". The nested object is validated against ErrorResponse.
//   - orderbook_delta `last_update_reason`: absent from the Predictions AsyncAPI, present per
//     websocket.md §6.1 (changelog); the schema allows extra properties, so it validates.
//   - trade / lifecycle `seq`: absent from the AsyncAPI (Aug-2026), present per websocket.md §2
//     (Sep-2026); extra properties are allowed, so it validates.
//   - EventData.available_on_brokers: required by the OpenAPI document, removed from the wire per
//     interface-spec (Removals: "removed available_on_brokers") and absent from rest.md §5's
//     EventData table; the requirement is dropped before compiling.
// Method: in-process simulator; exercise every endpoint and channel the simulator serves; ajv
// with the OpenAPI 3.0 -> JSON Schema translation in helpers/schemas.ts.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RestClient, WsClient } from '../helpers/clients.ts';
import { AsyncApiValidator, errorsOf, OpenApiValidator, unrequire } from '../helpers/schemas.ts';
import { MARKET, MARKET_2, order, startTestSim } from '../helpers/test-sim.ts';

let sim: Awaited<ReturnType<typeof startTestSim>>;
let demo: RestClient;
let other: RestClient;
const openapi = new OpenApiValidator((doc) => unrequire(doc, 'EventData', 'available_on_brokers'));
const asyncapi = new AsyncApiValidator();

function check(method: string, path: string, status: number, body: unknown): void {
  const validate = openapi.response(method, path, status);
  const ok = validate(body);
  expect(ok, `${method} ${path} ${status}: ${errorsOf(validate)}\n${JSON.stringify(body).slice(0, 600)}`).toBe(true);
}

async function call(method: string, template: string, url: string, status: number, body?: unknown): Promise<any> {
  const result = await demo.request(method, url, body);
  expect(result.status, `${method} ${url}: ${result.text.slice(0, 300)}`).toBe(status);
  check(method, template, status, result.body);
  return result.body;
}

beforeAll(async () => {
  sim = await startTestSim();
  demo = new RestClient(sim.httpUrl, sim.demoKey);
  other = new RestClient(sim.httpUrl, sim.createApiKey({ scopes: ['read', 'write'], tier: 'prime', userId: 'd00d0000-0000-4000-8000-000000000004' }));
});
afterAll(async () => {
  await sim.close();
});

describe('REST bodies against trade-api.openapi.yaml', () => {
  it('market data, exchange and account', async () => {
    await other.post('/portfolio/events/orders', order({ price: '0.44', count: '5' }));
    await other.post('/portfolio/events/orders', order({ side: 'ask', price: '0.44', count: '2' }));
    await other.post('/portfolio/events/orders', order({ side: 'ask', price: '0.60', count: '2' }));
    await call('GET', '/markets', '/markets?limit=50', 200);
    await call('GET', '/markets/{ticker}', `/markets/${MARKET}`, 200);
    await call('GET', '/markets/{ticker}/orderbook', `/markets/${MARKET}/orderbook`, 200);
    await call('GET', '/markets/orderbooks', `/markets/orderbooks?tickers=${MARKET}&tickers=${MARKET_2}`, 200);
    await call('GET', '/markets/trades', '/markets/trades', 200);
    const events = await call('GET', '/events', '/events?with_nested_markets=true', 200);
    await call('GET', '/events/{event_ticker}', `/events/${events.events[0].event_ticker}?with_nested_markets=true`, 200);
    const series = await call('GET', '/series', '/series', 200);
    await call('GET', '/series/{series_ticker}', `/series/${series.series[0].ticker}`, 200);
    await call('GET', '/exchange/status', '/exchange/status', 200);
    await call('GET', '/exchange/schedule', '/exchange/schedule', 200);
    await call('GET', '/exchange/user_data_timestamp', '/exchange/user_data_timestamp', 200);
    await call('GET', '/account/limits', '/account/limits', 200);
    await call('GET', '/account/endpoint_costs', '/account/endpoint_costs', 200);
  });

  it('order entry and portfolio', async () => {
    const created = await call('POST', '/portfolio/events/orders', '/portfolio/events/orders', 201, order({ price: '0.30' }));
    const filled = await call('POST', '/portfolio/events/orders', '/portfolio/events/orders', 201, order({ price: '0.60', count: '1', time_in_force: 'immediate_or_cancel' }));
    expect(filled.fill_count).toBe('1.00');
    const amended = await call('POST', '/portfolio/events/orders/{order_id}/amend', `/portfolio/events/orders/${created.order_id}/amend`, 200, {
      ticker: MARKET,
      side: 'bid',
      price: '0.31',
      count: '8',
    });
    await call('POST', '/portfolio/events/orders/{order_id}/decrease', `/portfolio/events/orders/${amended.order_id}/decrease`, 200, { reduce_by: '1' });
    await call('GET', '/portfolio/orders/{order_id}/queue_position', `/portfolio/orders/${amended.order_id}/queue_position`, 200);
    await call('GET', '/portfolio/orders/queue_positions', `/portfolio/orders/queue_positions?market_tickers=${MARKET}`, 200);
    await call('GET', '/portfolio/orders/{order_id}', `/portfolio/orders/${amended.order_id}`, 200);
    await call('GET', '/portfolio/orders', '/portfolio/orders', 200);
    await call('GET', '/portfolio/fills', '/portfolio/fills', 200);
    await call('GET', '/portfolio/positions', '/portfolio/positions', 200);
    await call('GET', '/portfolio/balance', '/portfolio/balance', 200);
    await call('GET', '/portfolio/subaccounts/balances', '/portfolio/subaccounts/balances', 200);
    await call('GET', '/portfolio/summary/total_resting_order_value', '/portfolio/summary/total_resting_order_value', 200);
    await call('DELETE', '/portfolio/events/orders/{order_id}', `/portfolio/events/orders/${amended.order_id}`, 200);
    const batch = await call('POST', '/portfolio/events/orders/batched', '/portfolio/events/orders/batched', 201, {
      orders: [order({ price: '0.20' }), order({ price: '0.205' })],
    });
    expect(batch.orders[1].error.code).toBe('invalid_price');
    await call('DELETE', '/portfolio/events/orders/batched', '/portfolio/events/orders/batched', 200, {
      orders: [{ order_id: batch.orders[0].order_id }, { order_id: 'unknown-order' }],
    });
  });

  it('order groups', async () => {
    const group = await call('POST', '/portfolio/order_groups/create', '/portfolio/order_groups/create', 201, { contracts_limit_fp: '10.00' });
    await call('GET', '/portfolio/order_groups', '/portfolio/order_groups', 200);
    await call('GET', '/portfolio/order_groups/{order_group_id}', `/portfolio/order_groups/${group.order_group_id}`, 200);
    await call('PUT', '/portfolio/order_groups/{order_group_id}/limit', `/portfolio/order_groups/${group.order_group_id}/limit`, 200, { contracts_limit: 12 });
    await call('PUT', '/portfolio/order_groups/{order_group_id}/trigger', `/portfolio/order_groups/${group.order_group_id}/trigger`, 200, {});
    await call('PUT', '/portfolio/order_groups/{order_group_id}/reset', `/portfolio/order_groups/${group.order_group_id}/reset`, 200, {});
    await call('DELETE', '/portfolio/order_groups/{order_group_id}', `/portfolio/order_groups/${group.order_group_id}`, 200);
  });

  it('error bodies: the nested object is an ErrorResponse (rest.md §2 decides the nesting)', async () => {
    const errorResponse = openapi.component('ErrorResponse');
    for (const [method, url, body] of [
      ['DELETE', '/portfolio/events/orders/unknown', undefined],
      ['POST', '/portfolio/events/orders', order({ price: '1.50' })],
      ['GET', '/markets/NOPE', undefined],
      ['POST', '/portfolio/orders', {}],
    ] as Array<[string, string, unknown]>) {
      const result = await demo.request(method, url, body);
      expect(result.body.error, url).toBeDefined();
      expect(result.body.service).toBeUndefined();
      expect(errorResponse(result.body.error), `${url}: ${errorsOf(errorResponse)}`).toBe(true);
      expect(typeof result.body.error.code).toBe('string');
    }
  });
});

describe('WebSocket messages against trade-ws.asyncapi.yaml', () => {
  it('every message type the simulator sends', async () => {
    const ws = await WsClient.open(sim.wsUrl, sim.demoKey);
    try {
      await ws.subscribe({ channels: ['orderbook_delta'], market_tickers: [MARKET, MARKET_2] });
      await ws.subscribe({ channels: ['ticker'], market_ticker: MARKET, send_initial_snapshot: true });
      await ws.subscribe({ channels: ['trade', 'fill', 'user_orders', 'market_positions', 'order_group_updates', 'market_lifecycle_v2'] });
      const group = await demo.post('/portfolio/order_groups/create', {});
      await other.post('/portfolio/events/orders', order({ side: 'ask', price: '0.70', count: '2' }));
      const taker = await demo.post('/portfolio/events/orders', order({ price: '0.70', count: '1', time_in_force: 'immediate_or_cancel', order_group_id: group.body.order_group_id }));
      expect(taker.status).toBe(201);
      await demo.post('/portfolio/events/orders', order({ price: '0.35', client_order_id: 'schema-annotated' }));
      sim.engine.updateMarketMetadata(MARKET_2, { yesSubTitle: 'Renamed' });
      const base = sim.engine.getMarket(MARKET)!.spec;
      const event = sim.engine.getEvent(base.eventTicker)!.spec;
      sim.engine.addMarket({ ...base, ticker: 'KXDEMO-27FEB01-T10', eventTicker: 'KXDEMO-27FEB01', marketId: 'a1b2c3d4-e5f6-4789-8abc-def012345678' }, { ...event, eventTicker: 'KXDEMO-27FEB01' });
      const [book] = ws.messages.filter((m) => m.type === 'subscribed');
      const okId = ws.send('update_subscription', { sid: book.msg.sid, action: 'add_markets', market_tickers: ['KXGOLD-26DEC31-T3000'] });
      const listId = ws.send('list_subscriptions');
      ws.send('subscribe', { channels: ['no_such_channel'] });
      await ws.waitFor((m) => m.id === listId);
      await ws.waitFor((m) => m.id === okId);
      await ws.waitFor((m) => m.type === 'error');
      await ws.waitFor((m) => m.type === 'event_lifecycle');
      await ws.waitFor((m) => m.type === 'fill');
      await ws.waitFor((m) => m.type === 'market_position');
      const unsubscribeId = ws.send('unsubscribe', { sids: [book.msg.sid] });
      await ws.waitFor((m) => m.id === unsubscribeId);

      const schemaOf = (m: any): string => {
        switch (m.type) {
          case 'ok':
            return Array.isArray(m.msg) ? 'listSubscriptionsResponsePayload' : 'okResponsePayload';
          case 'subscribed':
            return 'subscribedResponsePayload';
          case 'unsubscribed':
            return 'unsubscribedResponsePayload';
          case 'error':
            return 'errorResponsePayload';
          case 'orderbook_snapshot':
            return 'orderbookSnapshotPayload';
          case 'orderbook_delta':
            return 'orderbookDeltaPayload';
          case 'ticker':
            return 'tickerPayload';
          case 'trade':
            return 'tradePayload';
          case 'fill':
            return 'fillPayload';
          case 'user_order':
            return 'userOrderPayload';
          case 'market_position':
            return 'marketPositionPayload';
          case 'order_group_updates':
            return 'orderGroupUpdatesPayload';
          case 'market_lifecycle_v2':
            return 'marketLifecycleV2Payload';
          case 'event_lifecycle':
            return 'eventLifecyclePayload';
          default:
            throw new Error(`unexpected message type ${m.type}`);
        }
      };
      const seen = new Set<string>();
      for (const message of ws.messages) {
        const validate = asyncapi.payload(schemaOf(message));
        expect(validate(message), `${message.type}: ${errorsOf(validate)}\n${JSON.stringify(message).slice(0, 600)}`).toBe(true);
        seen.add(message.type);
      }
      expect([...seen].sort()).toEqual(
        [
          'error',
          'event_lifecycle',
          'fill',
          'market_lifecycle_v2',
          'market_position',
          'ok',
          'order_group_updates',
          'orderbook_delta',
          'orderbook_snapshot',
          'subscribed',
          'ticker',
          'trade',
          'unsubscribed',
          'user_order',
        ].sort(),
      );
    } finally {
      ws.close();
    }
  });
});
