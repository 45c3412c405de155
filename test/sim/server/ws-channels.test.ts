// Goal: the WebSocket protocol as websocket.md §2-§6 describes it: one `subscribed` per channel
// with its own sid; snapshot first, then deltas, with seq per sid starting at 1 and increasing by
// one on the sequenced types (orderbook, trade, order_group_updates, lifecycle, ok, unsubscribed)
// and absent on the others (fill, user_order, market_position, ticker); NO levels in NO price or,
// with use_yes_price, in YES price; own-order annotations only for the key's own orders
// (withheld for sibling subaccounts of a restricted key); private channels scoped to a
// restricted key's subaccount; command error codes; heartbeat pings.
// Method: in-process simulator; undici WebSocket clients with signed handshakes; orders through
// REST; lifecycle events through the engine handle.

import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { RawWsClient, RestClient, WsClient, type KeyPair } from '../helpers/clients.ts';
import { MARKET, MARKET_2, order, startTestSim } from '../helpers/test-sim.ts';

let sim: Awaited<ReturnType<typeof startTestSim>>;
let demo: RestClient;
let other: RestClient;
const otherKey = () => otherPair;
let otherPair: { keyId: string; privateKeyPem: string };
const clients: Array<{ close(): void }> = [];

async function open(key: KeyPair = sim.demoKey): Promise<WsClient> {
  const client = await WsClient.open(sim.wsUrl, key);
  clients.push(client);
  return client;
}

function expectConsecutive(messages: any[], sid: number): void {
  const seqs = messages.filter((m) => m.sid === sid && m.seq !== undefined).map((m) => m.seq);
  expect(seqs.length).toBeGreaterThan(0);
  expect(seqs).toEqual(seqs.map((_, i) => i + 1));
}

beforeAll(async () => {
  sim = await startTestSim({ pingIntervalMs: 150 });
  demo = new RestClient(sim.httpUrl, sim.demoKey);
  otherPair = sim.createApiKey({ scopes: ['read', 'write'], tier: 'prime', userId: 'b7d1c2e3-0000-4000-8000-0000000000aa' });
  other = new RestClient(sim.httpUrl, otherPair);
});
afterEach(() => {
  for (const client of clients.splice(0)) client.close();
});
afterAll(async () => {
  await sim.close();
});

describe('subscribe and the order book channel', () => {
  it('one subscribed per channel, snapshot first, then deltas with consecutive seq per sid', async () => {
    await other.post('/portfolio/events/orders', order({ price: '0.20', count: '4' }));
    const ws = await open();
    const replies = await ws.subscribe({ channels: ['orderbook_delta', 'trade'], market_tickers: [MARKET, MARKET_2] });
    expect(replies.map((m) => m.msg.channel)).toEqual(['orderbook_delta', 'trade']);
    const [bookSid, tradeSid] = replies.map((m) => m.msg.sid);
    expect(bookSid).not.toBe(tradeSid);
    const snapshots = await ws.waitForCount((m) => m.type === 'orderbook_snapshot', 2);
    expect(snapshots.map((m) => m.msg.market_ticker)).toEqual([MARKET, MARKET_2]);
    expect(snapshots[0]).toMatchObject({ sid: bookSid, seq: 1 });
    expect(snapshots[0].msg.yes_dollars_fp).toContainEqual(['0.2000', '4.00']);
    await demo.post('/portfolio/events/orders', order({ price: '0.21', count: '2' }));
    await other.post('/portfolio/events/orders', order({ side: 'ask', price: '0.21', count: '2' })); // trades with demo
    await ws.waitFor((m) => m.type === 'trade');
    await ws.waitForCount((m) => m.type === 'orderbook_delta', 2);
    expectConsecutive(ws.messages, bookSid);
    expectConsecutive(ws.messages, tradeSid);
    const trade = ws.messages.find((m) => m.type === 'trade');
    expect(trade.msg).toMatchObject({ market_ticker: MARKET, yes_price_dollars: '0.2100', no_price_dollars: '0.7900', count_fp: '2.00', taker_book_side: 'ask', taker_outcome_side: 'no', is_block_trade: false });
  });

  it('NO levels in NO price by default and in YES price with use_yes_price', async () => {
    const plain = await open();
    const yesPriced = await open();
    await plain.subscribe({ channels: ['orderbook_delta'], market_ticker: MARKET_2 });
    await yesPriced.subscribe({ channels: ['orderbook_delta'], market_ticker: MARKET_2, use_yes_price: true });
    await demo.post('/portfolio/events/orders', order({ ticker: MARKET_2, side: 'ask', price: '0.905', count: '1' }));
    const a = await plain.waitFor((m) => m.type === 'orderbook_delta');
    const b = await yesPriced.waitFor((m) => m.type === 'orderbook_delta');
    expect(a.msg).toMatchObject({ side: 'no', price_dollars: '0.0950', delta_fp: '1.00' });
    expect(b.msg).toMatchObject({ side: 'no', price_dollars: '0.9050', delta_fp: '1.00' });
  });

  it('own-order annotations only for the owner; withheld for a sibling subaccount', async () => {
    const restricted3 = sim.createApiKey({ scopes: ['read', 'write'], subaccount: 3, tier: 'prime' });
    const restricted4 = sim.createApiKey({ scopes: ['read', 'write'], subaccount: 4, tier: 'prime' });
    const owner = await open();
    const stranger = await open(otherKey());
    const sub3 = await open(restricted3);
    const sub4 = await open(restricted4);
    for (const client of [owner, stranger, sub3, sub4]) await client.subscribe({ channels: ['orderbook_delta'], market_ticker: MARKET });
    const placed = await new RestClient(sim.httpUrl, restricted3).post('/portfolio/events/orders', order({ price: '0.07', count: '1' }));
    const clientOrderId = JSON.parse(placed.text).client_order_id;
    const deltas = await Promise.all([owner, stranger, sub3, sub4].map((c) => c.waitFor((m) => m.type === 'orderbook_delta' && m.msg.price_dollars === '0.0700')));
    expect(deltas[0].msg).toMatchObject({ client_order_id: clientOrderId, subaccount: 3 });
    expect(deltas[1].msg.client_order_id).toBeUndefined();
    expect(deltas[2].msg).toMatchObject({ client_order_id: clientOrderId, subaccount: 3 });
    expect(deltas[3].msg.client_order_id).toBeUndefined();
    expect(deltas[3].msg.subaccount).toBeUndefined();
  });
});

describe('private channels', () => {
  it('fill, user_order, market_position: no seq; order_group_updates: seq; restricted keys see their subaccount only', async () => {
    const restricted = sim.createApiKey({ scopes: ['read', 'write'], subaccount: 6, tier: 'prime' });
    const ws = await open();
    const scoped = await open(restricted);
    const channels = ['fill', 'user_orders', 'market_positions', 'order_group_updates'];
    const replies = await ws.subscribe({ channels });
    await scoped.subscribe({ channels: ['user_orders'] });
    const sids = Object.fromEntries(replies.map((m) => [m.msg.channel, m.msg.sid]));
    const group = await demo.post('/portfolio/order_groups/create', { contracts_limit: 100 });
    await other.post('/portfolio/events/orders', order({ side: 'ask', price: '0.66', count: '2' }));
    const taker = await demo.post('/portfolio/events/orders', order({ price: '0.66', count: '2', time_in_force: 'immediate_or_cancel', order_group_id: group.body.order_group_id }));
    const fill = await ws.waitFor((m) => m.type === 'fill');
    expect(fill.sid).toBe(sids.fill);
    expect(fill.seq).toBeUndefined();
    expect(fill.msg).toMatchObject({ order_id: taker.body.order_id, market_ticker: MARKET, is_taker: true, count_fp: '2.00', yes_price_dollars: '0.6600' });
    const userOrder = await ws.waitFor((m) => m.type === 'user_order' && m.msg.order_id === taker.body.order_id);
    expect(userOrder.sid).toBe(sids.user_orders);
    expect(userOrder.seq).toBeUndefined();
    const position = await ws.waitFor((m) => m.type === 'market_position');
    expect(position.sid).toBe(sids.market_positions);
    expect(position.seq).toBeUndefined();
    expect(position.msg.market_ticker).toBe(MARKET);
    const groupEvent = await ws.waitFor((m) => m.type === 'order_group_updates');
    expect(groupEvent).toMatchObject({ sid: sids.order_group_updates, seq: 1, msg: { event_type: 'created', order_group_id: group.body.order_group_id } });
    await demo.put(`/portfolio/order_groups/${group.body.order_group_id}/trigger`);
    await ws.waitFor((m) => m.type === 'order_group_updates' && m.msg.event_type === 'triggered');
    expectConsecutive(ws.messages, sids.order_group_updates);
    // The restricted session saw none of the demo's subaccount-0 orders, then sees its own.
    const own = await new RestClient(sim.httpUrl, restricted).post('/portfolio/events/orders', order({ price: '0.03' }));
    const seen = await scoped.waitFor((m) => m.type === 'user_order');
    expect(seen.msg.order_id).toBe(own.body.order_id);
    expect(scoped.messages.filter((m) => m.type === 'user_order').every((m) => m.msg.order_id === own.body.order_id)).toBe(true);
  });
});

describe('lifecycle and ticker', () => {
  it('market_lifecycle_v2: created (with event_lifecycle), price_level_structure_updated with price_ranges, metadata_updated; seq consecutive', async () => {
    const ws = await open();
    const [reply] = await ws.subscribe({ channels: ['market_lifecycle_v2'] });
    const base = sim.engine.getMarket(MARKET)!.spec;
    const event = sim.engine.getEvent(base.eventTicker)!.spec;
    const eventTicker = 'KXDEMO-27JAN01';
    expect(sim.engine.addMarket({ ...base, ticker: 'KXDEMO-27JAN01-T60', eventTicker, marketId: 'f0e1d2c3-b4a5-4968-8776-655443322110' }, { ...event, eventTicker })).toBeNull();
    const created = await ws.waitFor((m) => m.type === 'market_lifecycle_v2' && m.msg.event_type === 'created');
    expect(created.msg).toMatchObject({ market_ticker: 'KXDEMO-27JAN01-T60', exchange_index: 0, price_level_structure: 'linear_cent' });
    const eventMessage = await ws.waitFor((m) => m.type === 'event_lifecycle');
    expect(eventMessage.msg).toMatchObject({ event_ticker: eventTicker, exchange_index: 0 });
    expect(sim.engine.setPriceLevelStructure('KXDEMO-27JAN01-T60', 'deci_cent')).toBeNull();
    const regrid = await ws.waitFor((m) => m.msg?.event_type === 'price_level_structure_updated');
    expect(regrid.msg.price_level_structure).toBe('deci_cent');
    expect(regrid.msg.price_ranges.length).toBeGreaterThan(0);
    expect(sim.engine.updateMarketMetadata('KXDEMO-27JAN01-T60', { yesSubTitle: 'Above 60', floorStrike: 60 })).toBeNull();
    const metadata = await ws.waitFor((m) => m.msg?.event_type === 'metadata_updated');
    expect(metadata.msg).toMatchObject({ yes_sub_title: 'Above 60', floor_strike: 60 });
    expectConsecutive(ws.messages, reply.msg.sid);
  });

  it('ticker: initial snapshot on request, then updates without seq', async () => {
    const ws = await open();
    const [reply] = await ws.subscribe({ channels: ['ticker'], market_ticker: MARKET, send_initial_snapshot: true });
    const first = await ws.waitFor((m) => m.type === 'ticker');
    expect(first.sid).toBe(reply.msg.sid);
    expect(first.seq).toBeUndefined();
    expect(first.msg.market_ticker).toBe(MARKET);
    await demo.post('/portfolio/events/orders', order({ price: '0.01', count: '1' }));
    await ws.waitForCount((m) => m.type === 'ticker', 1);
  });
});

describe('commands and errors', () => {
  it('error codes of websocket.md §4', async () => {
    const ws = await open();
    const expectError = async (payload: { id: number; [field: string]: unknown }, code: number) => {
      ws.sendRaw(JSON.stringify(payload));
      const reply = await ws.waitFor((m) => m.id === payload.id);
      expect(reply, JSON.stringify(payload)).toMatchObject({ type: 'error', msg: { code, msg: expect.any(String) } });
    };
    await expectError({ id: 101, cmd: 'subscribe', params: { channels: ['nope'] } }, 8);
    await expectError({ id: 102, cmd: 'subscribe', params: { channels: ['multivariate'] } }, 8);
    await expectError({ id: 103, cmd: 'subscribe', params: { channels: ['ticker_v2'] } }, 8);
    await expectError({ id: 104, cmd: 'subscribe' }, 2);
    await expectError({ id: 105, cmd: 'subscribe', params: {} }, 3);
    await expectError({ id: 106, cmd: 'subscribe', params: { channels: [] } }, 3);
    await expectError({ id: 107, cmd: 'unsubscribe', params: {} }, 4);
    await expectError({ id: 108, cmd: 'frobnicate', params: {} }, 5);
    await expectError({ id: 109, cmd: 'unsubscribe', params: { sids: [999] } }, 7);
    await expectError({ id: 110, cmd: 'subscribe', params: { channels: ['orderbook_delta'] } }, 14);
    await expectError({ id: 111, cmd: 'update_subscription', params: { sid: 1 } }, 15);
    await expectError({ id: 112, cmd: 'update_subscription', params: { sids: [1, 2], action: 'add_markets' } }, 12);
    await expectError({ id: 113, cmd: 'subscribe', params: { channels: ['ticker'], market_ticker: 'A', market_tickers: ['B'] } }, 11);
    ws.sendRaw('{not json');
    await ws.waitFor((m) => m.type === 'error' && m.msg.code === 1 && m.id === undefined);
    const [trade] = await ws.subscribe({ channels: ['trade'] });
    await expectError({ id: 114, cmd: 'update_subscription', params: { sid: trade.msg.sid, action: 'get_snapshot', market_tickers: [MARKET] } }, 13);
    await expectError({ id: 115, cmd: 'update_subscription', params: { sid: trade.msg.sid, action: 'explode' } }, 13);
  });

  it('private channels need the read scope: error 9', async () => {
    const tradeOnly = sim.createApiKey({ scopes: ['write::trade'] });
    const ws = await open(tradeOnly);
    ws.send('subscribe', { channels: ['fill'] });
    expect((await ws.waitFor((m) => m.type === 'error')).msg.code).toBe(9);
    const [reply] = await ws.subscribe({ channels: ['trade'] });
    expect(reply.type).toBe('subscribed');
  });

  it('update_subscription add/delete/get_snapshot, list_subscriptions, unsubscribe', async () => {
    const ws = await open();
    const [book] = await ws.subscribe({ channels: ['orderbook_delta'], market_ticker: MARKET });
    const sid = book.msg.sid;
    await ws.waitFor((m) => m.type === 'orderbook_snapshot');
    const addId = ws.send('update_subscription', { sids: [sid], action: 'add_markets', market_tickers: [MARKET_2] });
    const ok = await ws.waitFor((m) => m.id === addId && m.type === 'ok');
    expect(ok).toMatchObject({ sid, seq: 2, msg: { market_tickers: [MARKET, MARKET_2] } });
    const added = await ws.waitFor((m) => m.type === 'orderbook_snapshot' && m.msg.market_ticker === MARKET_2);
    expect(added.seq).toBe(3);
    const snapId = ws.send('update_subscription', { sid, action: 'get_snapshot', market_tickers: [MARKET] });
    await ws.waitFor((m) => m.id === snapId && m.type === 'ok');
    await ws.waitForCount((m) => m.type === 'orderbook_snapshot' && m.msg.market_ticker === MARKET, 2);
    const delId = ws.send('update_subscription', { sid, action: 'delete_markets', market_tickers: [MARKET] });
    expect((await ws.waitFor((m) => m.id === delId && m.type === 'ok')).msg.market_tickers).toEqual([MARKET_2]);
    const listId = ws.send('list_subscriptions');
    expect((await ws.waitFor((m) => m.id === listId)).msg).toEqual([{ channel: 'orderbook_delta', sid }]);
    const unsubId = ws.send('unsubscribe', { sids: [sid] });
    const unsubscribed = await ws.waitFor((m) => m.id === unsubId);
    // snapshot 1, ok 2, snapshot 3, ok 4, snapshot 5, ok 6, unsubscribed 7: one counter per sid.
    expect(unsubscribed).toEqual({ id: unsubId, type: 'unsubscribed', sid, seq: 7 });
    expectConsecutive(ws.messages, sid);
    // After unsubscribing, deltas of the deleted market no longer arrive.
    const before = ws.messages.length;
    await demo.post('/portfolio/events/orders', order({ ticker: MARKET_2, price: '0.011' }));
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(ws.messages.slice(before).filter((m) => m.type === 'orderbook_delta')).toEqual([]);
  });
});

describe('heartbeat', () => {
  it('the server pings with payload "heartbeat"', async () => {
    const raw = await RawWsClient.open(sim.port, sim.demoKey);
    clients.push(raw);
    const deadline = Date.now() + 3000;
    while (raw.pings.length === 0 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
    expect(raw.pings[0]).toBe('heartbeat');
  });
});
