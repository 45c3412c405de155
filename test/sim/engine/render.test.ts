/**
 * Goal: every wire renderer produces exactly the exchange's shapes: valid against the published
 * OpenAPI (REST) and AsyncAPI (WebSocket msg) schemas, no field the schema does not name except
 * the few the newer spec adds (listed here), fixed-point strings with the documented decimals.
 * Method: drive one engine through a scenario touching every record kind, render each, validate
 * with ajv (OpenAPI nullable translated to a null union) and compare key sets to the schemas.
 */

import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { Ajv } from 'ajv';
import addFormats from 'ajv-formats';
import * as render from '../../../src/sim/engine/index.ts';
import { SimEngine, isSimError } from '../../../src/sim/engine/index.ts';
import type { Fill, Market, MarketLifecycleEvent, Order, OrderGroupEvent, Position, Trade, EventLifecycleEvent } from '../../../src/sim/engine/index.ts';
import type { Count, Price } from '../../../src/core/index.ts';
import { LINEAR, START_MS, contracts, dollars, ok, order, testCatalog } from './fixtures.ts';

type Schema = Record<string, unknown>;

/** OpenAPI 3.0 `nullable: true` -> JSON Schema null union, recursively. */
function translate(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(translate);
  if (node === null || typeof node !== 'object') return node;
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(node as Record<string, unknown>)) {
    if (key === 'example' || key === 'examples' || key.startsWith('x-') || key === 'deprecated' || key === 'discriminator') continue;
    out[key] = translate(value);
  }
  if (out.nullable === true) {
    delete out.nullable;
    if (typeof out.type === 'string' && out.enum === undefined) return { ...out, type: [out.type, 'null'] };
    return { anyOf: [out, { type: 'null' }] };
  }
  delete out.nullable;
  return out;
}

const rest = parse(readFileSync('../shared/spec/schemas/trade-api.openapi.yaml', 'utf8')) as { components: { schemas: Record<string, Schema> } };
const ws = parse(readFileSync('../shared/spec/schemas/trade-ws.asyncapi.yaml', 'utf8')) as { components: { schemas: Record<string, Schema> } };
const ajv = new Ajv({ strict: false, allErrors: true });
addFormats.default(ajv);
ajv.addSchema({ $id: 'rest', components: { schemas: translate(rest.components.schemas) } });
ajv.addSchema({ $id: 'ws', components: { schemas: translate(ws.components.schemas) } });

function propertiesOf(schema: Schema): Set<string> {
  const props = new Set<string>(Object.keys((schema.properties as Schema | undefined) ?? {}));
  for (const part of (schema.allOf as Schema[] | undefined) ?? []) {
    const ref = part.$ref as string | undefined;
    const target = ref !== undefined ? rest.components.schemas[ref.split('/').pop() as string] : part;
    for (const p of propertiesOf(target)) props.add(p);
  }
  return props;
}

// Fields the 3.28 schema still requires but the newer client (rest.md, kalshi-typescript 3.30) dropped.
const newerSchemas = translate(rest.components.schemas) as Record<string, Schema>;
newerSchemas.EventData = { ...newerSchemas.EventData, required: (newerSchemas.EventData.required as string[]).filter((f) => f !== 'available_on_brokers') };
ajv.addSchema({ $id: 'rest-newer', components: { schemas: newerSchemas } });

function checkRest(name: string, value: unknown, allowedExtra: string[] = []): void {
  const validate = name === 'EventData' ? ajv.getSchema('rest-newer#/components/schemas/EventData') : ajv.getSchema(`rest#/components/schemas/${name}`);
  if (validate === undefined) throw new Error(`no schema ${name}`);
  const valid = validate(value);
  expect(valid ? [] : validate.errors, `${name} schema errors`).toEqual([]);
  const known = propertiesOf(rest.components.schemas[name]);
  const extra = Object.keys(value as object).filter((k) => !known.has(k) && !allowedExtra.includes(k));
  expect(extra, `${name} fields the schema does not name`).toEqual([]);
}

function checkWs(payload: string, type: string, msg: unknown, allowedExtra: string[] = []): void {
  const validate = ajv.getSchema(`ws#/components/schemas/${payload}`);
  if (validate === undefined) throw new Error(`no schema ${payload}`);
  const envelope = { type, sid: 1, seq: 1, msg };
  const valid = validate(envelope);
  expect(valid ? [] : validate.errors, `${payload} schema errors`).toEqual([]);
  const msgSchema = (ws.components.schemas[payload].properties as Record<string, Schema>).msg;
  const known = new Set(Object.keys((msgSchema.properties as Schema | undefined) ?? {}));
  const extra = Object.keys(msg as object).filter((k) => !known.has(k) && !allowedExtra.includes(k));
  expect(extra, `${payload} fields the schema does not name`).toEqual([]);
}

const USER_A = '0b5c7a9e-1f2d-4e3c-8a4b-5c6d7e8f9a01';
const USER_B = '0b5c7a9e-1f2d-4e3c-8a4b-5c6d7e8f9a02';

function scenario() {
  const clock = { ms: START_MS };
  const engine = new SimEngine({ now: () => clock.ms, seed: 3, catalog: testCatalog() });
  const seen = {
    deltas: [] as Array<[Market, 'yes' | 'no', Price, Count, Order]>, trades: [] as Trade[], fills: [] as Fill[], orders: [] as Order[],
    positions: [] as Position[], groups: [] as OrderGroupEvent[], lifecycle: [] as MarketLifecycleEvent[], events: [] as EventLifecycleEvent[],
  };
  engine.subscribe({
    onBookDelta: (m, side, p, d, o) => seen.deltas.push([m, side, p, d, o]),
    onTrade: (_m, t) => seen.trades.push(t),
    onFill: (_u, f) => seen.fills.push(f),
    onUserOrder: (_u, o) => seen.orders.push(o),
    onPosition: (_u, p) => seen.positions.push(p),
    onOrderGroup: (_u, e) => seen.groups.push(e),
    onMarketLifecycle: (e) => seen.lifecycle.push(e),
    onEventLifecycle: (e) => seen.events.push(e),
  });
  for (const user of [USER_A, USER_B]) {
    engine.addUser(user);
    engine.deposit(user, 0, 0, dollars(100));
  }
  const group = engine.createOrderGroup(USER_A, { contractsLimit: contracts('50') });
  if (isSimError(group)) throw new Error('group');
  const maker = ok(engine.createOrder(USER_A, order(LINEAR, 'ask', '0.52', '10', { orderGroupId: group.orderGroupId, expirationTs: START_MS / 1000 + 3600 })));
  const taker = ok(engine.createOrder(USER_B, order(LINEAR, 'bid', '0.53', '3', { timeInForce: 'immediate_or_cancel' })));
  return { engine, clock, seen, group, maker, taker };
}

describe('REST renderers match the OpenAPI schemas', () => {
  const { engine, group, maker, taker } = scenario();

  it('orders, create/cancel/amend/decrease responses, fills and trades', () => {
    checkRest('Order', render.orderToJson(maker.order));
    checkRest('Order', render.orderToJson(taker.order));
    checkRest('CreateOrderV2Response', render.createOrderResultToJson(taker));
    expect(render.createOrderResultToJson(taker)).toMatchObject({ fill_count: '3.00', remaining_count: '0.00', average_fill_price: '0.5200', average_fee_paid: '0.0175' });
    const amended = engine.amendOrder(USER_A, maker.order.orderId, { ticker: LINEAR, side: 'ask', price: 5300 as Price, count: contracts('8') });
    if (isSimError(amended)) throw new Error('amend');
    checkRest('AmendOrderV2Response', render.amendOrderResultToJson(amended));
    const decreased = engine.decreaseOrder(USER_A, maker.order.orderId, { reduceBy: contracts('1') });
    if (isSimError(decreased)) throw new Error('decrease');
    checkRest('DecreaseOrderV2Response', render.decreaseOrderResultToJson(decreased));
    const cancelled = engine.cancelOrder(USER_A, maker.order.orderId);
    if (isSimError(cancelled)) throw new Error('cancel');
    checkRest('CancelOrderV2Response', render.cancelOrderResultToJson(cancelled));
    const failed = engine.cancelOrder(USER_A, maker.order.orderId);
    if (!isSimError(failed)) throw new Error('expected 404');
    checkRest('BatchCancelOrdersV2Response', { orders: [render.batchCancelItemToJson(failed, maker.order.orderId), render.cancelOrderResultToJson(cancelled)] });
    checkRest('BatchCreateOrdersV2Response', { orders: [render.batchCreateItemToJson(failed, 'x'), render.batchCreateItemToJson(taker, null)] });
    checkRest('ErrorResponse', render.errorToFlatJson(failed));
    expect(render.errorToJson(failed)).toEqual({ error: { code: 'not_found', message: 'order not found' } });
    const fills = engine.listFills(USER_B, {});
    if (isSimError(fills)) throw new Error('fills');
    checkRest('Fill', render.fillToJson(fills.items[0]));
    expect(render.fillToJson(fills.items[0]).fee_cost).toBe('0.052500');
    const trades = engine.listTrades({ ticker: LINEAR });
    if (isSimError(trades)) throw new Error('trades');
    checkRest('Trade', render.tradeToJson(trades.items[0]));
    void group;
  });

  it('markets, events, series, orderbook and exchange status', () => {
    for (const market of engine.markets()) checkRest('Market', render.marketToJson(market));
    const event = engine.getEvent('KXT-26DEC31');
    if (event === undefined) throw new Error('event');
    checkRest('EventData', render.eventToJson(event, true));
    checkRest('Series', render.seriesToJson(engine.listSeries()[0]));
    const book = engine.orderbook(LINEAR);
    if (isSimError(book)) throw new Error('book');
    checkRest('GetMarketOrderbookResponse', render.orderbookToJson(book));
    checkRest('ExchangeStatus', render.exchangeStatusToJson(engine.exchangeStatus()));
  });

  it('portfolio: positions, balance, subaccount balances, resting value, queue positions, order groups', () => {
    const positions = engine.listPositions(USER_B, {});
    if (isSimError(positions)) throw new Error('positions');
    checkRest('MarketPosition', render.positionToJson(positions.marketPositions[0]));
    checkRest('EventPosition', render.eventPositionToJson(positions.eventPositions[0]));
    const balance = engine.getBalance(USER_B, {});
    if (isSimError(balance)) throw new Error('balance');
    checkRest('GetBalanceResponse', render.balanceToJson(balance, true));
    const subs = engine.listSubaccountBalances(USER_B);
    if (isSimError(subs)) throw new Error('subs');
    for (const s of subs) checkRest('SubaccountBalance', render.subaccountBalanceToJson(s));
    const value = engine.restingOrderValue(USER_A);
    if (isSimError(value)) throw new Error('value');
    checkRest('GetPortfolioRestingOrderTotalValueResponse', render.restingOrderValueToJson(value));
    const resting = ok(engine.createOrder(USER_A, order(LINEAR, 'bid', '0.10', '1')));
    const queue = engine.queuePositions(USER_A, {});
    if (isSimError(queue)) throw new Error('queue');
    checkRest('OrderQueuePosition', render.queuePositionToJson(queue[0]));
    expect(queue[0].orderId).toBe(resting.order.orderId);
    const groups = engine.listOrderGroups(USER_A);
    if (isSimError(groups)) throw new Error('groups');
    checkRest('OrderGroup', render.orderGroupToJson(groups[0]));
    checkRest('GetOrderGroupResponse', render.orderGroupDetailToJson(groups[0], []));
    checkRest('CreateOrderGroupResponse', render.createOrderGroupToJson(groups[0]));
  });
});

describe('WebSocket renderers match the AsyncAPI schemas', () => {
  const { engine, seen } = scenario();

  it('book, trade, fill, user order, position, order group and lifecycle payloads', () => {
    const market = engine.getMarket(LINEAR) as Market;
    const book = engine.orderbook(LINEAR);
    if (isSimError(book)) throw new Error('book');
    checkWs('orderbookSnapshotPayload', 'orderbook_snapshot', render.orderbookSnapshotToWsMsg(market, book));
    const [m, side, p, d, o] = seen.deltas[0];
    // ts (RFC 3339) and last_update_reason are newer than the Aug-2026 Predictions schema (websocket.md §6.1).
    checkWs('orderbookDeltaPayload', 'orderbook_delta', render.orderbookDeltaToWsMsg(m, side, p, d, o, 'Trade', START_MS, true), ['ts', 'last_update_reason']);
    checkWs('tickerPayload', 'ticker', render.tickerToWsMsg(market, contracts('3'), START_MS));
    checkWs('tradePayload', 'trade', render.tradeToWsMsg(seen.trades[0], market));
    for (const fill of seen.fills) checkWs('fillPayload', 'fill', render.fillToWsMsg(fill));
    // exchange_index and last_update_reason on user_order: newer than the schema (websocket.md §6.5).
    for (const order of seen.orders) checkWs('userOrderPayload', 'user_order', render.userOrderToWsMsg(order), ['exchange_index', 'last_update_reason']);
    for (const position of seen.positions) checkWs('marketPositionPayload', 'market_position', render.positionToWsMsg(position));
    for (const event of seen.groups) checkWs('orderGroupUpdatesPayload', 'order_group_updates', render.orderGroupEventToWsMsg(event));
    engine.setPriceLevelStructure(LINEAR, 'deci_cent');
    engine.setMarketStatus(LINEAR, 'inactive');
    engine.setMarketStatus(LINEAR, 'active');
    engine.updateMarketMetadata(LINEAR, { floorStrike: 45, closeTimeMs: START_MS + 86_400_000 });
    engine.addMarket({ ...market.spec, ticker: 'KXNEW-26DEC31-A', eventTicker: 'KXNEW-26DEC31', marketId: '3f1c2d4e-0a1b-4c5d-8e9f-102132435465' }, {
      ...(engine.getEvent('KXT-26DEC31')?.spec as render.EventSpec), eventTicker: 'KXNEW-26DEC31',
    });
    engine.settleMarket(LINEAR, 'no');
    const types = new Set<string>();
    for (const event of seen.lifecycle) {
      types.add(event.eventType);
      checkWs('marketLifecycleV2Payload', 'market_lifecycle_v2', render.marketLifecycleToWsMsg(event));
    }
    expect([...types].sort()).toEqual(['activated', 'close_date_updated', 'created', 'deactivated', 'determined', 'metadata_updated', 'price_level_structure_updated', 'settled']);
    expect(seen.events.length).toBe(1);
    checkWs('eventLifecyclePayload', 'event_lifecycle', render.eventLifecycleToWsMsg(seen.events[0]));
  });
});
