// Goal: the simulator's Margin WebSocket endpoint (/trade-api/ws/v2/margin) over a real socket:
// the margin_ticker channel (volume and open interest with their dollar notional companions,
// book top, marks, funding; at most one message per market per second), user_orders with the
// Margin fields (exchange_index, order_source, order_reason on system orders, here an exit
// trigger's order), orderbook_delta (a snapshot, then one delta per changed level with the Margin
// field names, seq per sid, the causing order's client_order_id to its own user only), trade and
// fill (post_position), and the Margin endpoint's error codes 23, 24 and 28 (and 8 for channels it
// does not serve; margin_ticker is unknown on the Predictions endpoint).
// Method: in-process sim (margin-sim.ts), undici WebSocket signed over the Margin path. The
// AsyncAPI document has no Margin messages (its ticker and user_order are the Predictions shapes),
// so messages are validated against JSON schemas written here from websocket.md §7.2 and §7.3.

import { createPrivateKey } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { WebSocket } from 'undici';
import { Ajv } from 'ajv';
import { signRequest } from '../../../src/core/index.ts';
import { START_MS, marginOrder, startMarginSim, type MarginSim } from './margin-sim.ts';

const MARGIN_PATH = '/trade-api/ws/v2/margin';
const dollars = { type: 'string', pattern: '^-?[0-9]+\\.[0-9]{4}$' };
const countFp = { type: 'string', pattern: '^[0-9]+\\.[0-9]{2}$' };
const stamped = { type: 'object', required: ['price', 'ts_ms'], properties: { price: dollars, ts_ms: { type: 'integer' } }, additionalProperties: false };

/** websocket.md §7.2 `ticker` (Margin). */
const TICKER_SCHEMA = {
  type: 'object',
  required: ['market_ticker', 'price', 'bid', 'ask', 'bid_size_fp', 'ask_size_fp', 'last_trade_size_fp', 'volume', 'volume_notional_value_dollars', 'open_interest', 'open_interest_notional_value_dollars', 'ts_ms'],
  properties: {
    market_ticker: { type: 'string' },
    price: dollars, bid: dollars, ask: dollars,
    bid_size_fp: countFp, ask_size_fp: countFp, last_trade_size_fp: countFp,
    volume: countFp, volume_notional_value_dollars: dollars, volume_24h: countFp, volume_24h_notional_value_dollars: dollars,
    open_interest: countFp, open_interest_notional_value_dollars: dollars,
    reference_price: stamped, settlement_mark_price: stamped, liquidation_mark_price: stamped,
    funding_rate: { type: 'object', required: ['rate', 'next_funding_time_ms', 'ts_ms'], properties: { rate: { type: 'number' }, next_funding_time_ms: { type: 'integer' }, ts_ms: { type: 'integer' } }, additionalProperties: false },
    ts_ms: { type: 'integer' },
  },
  additionalProperties: false,
};

/** websocket.md §7.3 `user_order` (Margin) plus the spec's exchange_index, order_source, order_reason. */
const USER_ORDER_SCHEMA = {
  type: 'object',
  required: ['order_id', 'user_id', 'client_order_id', 'ticker', 'side', 'price', 'fill_count', 'remaining_count', 'created_ts_ms', 'exchange_index', 'order_source'],
  properties: {
    side: { enum: ['bid', 'ask'] }, price: dollars, fill_count: countFp, remaining_count: countFp,
    exchange_index: { const: 0 }, order_source: { enum: ['user', 'system'] }, order_reason: { enum: ['liquidation', 'take_profit_stop_loss'] },
  },
  if: { properties: { order_source: { const: 'user' } } },
  then: { not: { required: ['order_reason'] } },
  else: { required: ['order_reason'] },
};

const ajv = new Ajv({ strict: false, allErrors: true });
const tickerValid = ajv.compile(TICKER_SCHEMA);
const userOrderValid = ajv.compile(USER_ORDER_SCHEMA);

/** A minimal recording client (the shared WsClient signs the Predictions path only). */
class MarginWs {
  readonly messages: any[] = [];
  #id = 1;
  private constructor(readonly socket: WebSocket) {
    socket.addEventListener('message', (event) => this.messages.push(JSON.parse(String(event.data))));
  }

  static async open(sim: MarginSim, user: string, path = MARGIN_PATH): Promise<MarginWs> {
    const key = sim.key(user);
    const ts = Date.now();
    const headers = { 'KALSHI-ACCESS-KEY': key.keyId, 'KALSHI-ACCESS-TIMESTAMP': String(ts), 'KALSHI-ACCESS-SIGNATURE': signRequest(createPrivateKey(key.privateKeyPem), ts, 'GET', path) };
    const socket = new WebSocket(`${sim.wsUrl}${path}`, { headers } as never);
    await new Promise<void>((resolve, reject) => {
      socket.addEventListener('open', () => resolve(), { once: true });
      socket.addEventListener('error', () => reject(new Error('handshake failed')), { once: true });
    });
    return new MarginWs(socket);
  }

  send(cmd: string, params: Record<string, unknown>): number {
    const id = this.#id++;
    this.socket.send(JSON.stringify({ id, cmd, params }));
    return id;
  }

  async waitFor(predicate: (message: any) => boolean, timeoutMs = 3000): Promise<any> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const found = this.messages.find(predicate);
      if (found !== undefined) return found;
      if (Date.now() > deadline) throw new Error(`timed out; last: ${JSON.stringify(this.messages.slice(-3))}`);
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
  }

  close(): void {
    this.socket.close();
  }
}

let sim: MarginSim | null = null;
const sockets: MarginWs[] = [];
afterEach(() => {
  for (const socket of sockets.splice(0)) socket.close();
  sim?.close();
  sim = null;
});

async function connect(user: string, path = MARGIN_PATH): Promise<MarginWs> {
  const ws = await MarginWs.open(sim!, user, path);
  sockets.push(ws);
  return ws;
}

async function post(user: ReturnType<MarginSim['user']>, overrides: Record<string, unknown>): Promise<any> {
  const result = await user.post('/margin/orders', marginOrder(overrides));
  expect(result.status, result.text).toBe(201);
  return result.body;
}

describe('margin_ticker', () => {
  it('carries volume and open interest with notional companions, the book top and marks, coalesced to one per second', async () => {
    sim = await startMarginSim({ fundingDollars: 100_000 });
    const alice = sim.user('alice');
    const bob = sim.user('bob');
    const carol = sim.user('carol');
    sim.user('watcher');
    await post(bob, { side: 'ask', count: '10', price: '100.00' });
    await post(alice, { side: 'bid', count: '4', price: '100.00', time_in_force: 'immediate_or_cancel' });
    const ws = await connect('watcher');
    const id = ws.send('subscribe', { channels: ['margin_ticker'], market_tickers: ['KXBTCPERP'], send_initial_snapshot: true });
    const subscribed = await ws.waitFor((m) => m.id === id && m.type === 'subscribed');
    expect(subscribed.msg.channel).toBe('margin_ticker');
    const snapshot = await ws.waitFor((m) => m.type === 'ticker');
    expect(tickerValid(snapshot.msg), JSON.stringify(tickerValid.errors)).toBe(true);
    expect(snapshot.sid).toBe(subscribed.msg.sid);
    expect(snapshot.msg).toMatchObject({
      market_ticker: 'KXBTCPERP', price: '100.0000', bid: '0.0000', ask: '100.0000', bid_size_fp: '0.00', ask_size_fp: '6.00', last_trade_size_fp: '4.00',
      volume: '4.00', volume_notional_value_dollars: '400.0000', open_interest: '4.00', open_interest_notional_value_dollars: '400.0000',
      liquidation_mark_price: { price: '100.0000' }, reference_price: { price: '100.0000' }, ts_ms: START_MS,
    });
    expect(snapshot.msg.funding_rate.next_funding_time_ms).toBe(START_MS + 3_600_000);

    await post(carol, { side: 'bid', count: '2', price: '99.00' }); // first change: out at once
    const first = await ws.waitFor((m) => m.type === 'ticker' && m.msg.bid === '99.0000');
    expect(first.msg).toMatchObject({ bid_size_fp: '2.00', ts_ms: START_MS });
    const before = Date.now();
    await post(carol, { side: 'bid', count: '1', price: '99.00' }); // inside the same second: held
    await post(carol, { side: 'bid', count: '3', price: '99.00' });
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(ws.messages.filter((m) => m.type === 'ticker')).toHaveLength(2);
    const coalesced = await ws.waitFor((m) => m.type === 'ticker' && m.msg.bid_size_fp === '6.00', 3000);
    expect(Date.now() - before).toBeGreaterThanOrEqual(900);
    expect(coalesced.msg.ts_ms).toBe(START_MS + 1000);
    expect(ws.messages.filter((m) => m.type === 'ticker')).toHaveLength(3); // the 3.00 state never went out
    expect(tickerValid(coalesced.msg)).toBe(true);

    // a trade after the simulator clock moved on goes out at once
    sim.clock.advance(5000);
    await post(bob, { side: 'ask', count: '1', price: '99.00', time_in_force: 'immediate_or_cancel' });
    const traded = await ws.waitFor((m) => m.type === 'ticker' && m.msg.volume === '5.00');
    expect(traded.msg).toMatchObject({ price: '99.0000', last_trade_size_fp: '1.00', volume_notional_value_dollars: '499.0000', open_interest: '5.00', ts_ms: START_MS + 5000 });
  });
});

/** websocket.md §7.1 and §7.3 (Margin). */
const SNAPSHOT_SCHEMA = {
  type: 'object', required: ['market_ticker', 'bid', 'ask'], additionalProperties: false,
  properties: { market_ticker: { type: 'string' }, bid: { type: 'array', items: { type: 'array', prefixItems: [dollars, countFp], minItems: 2, maxItems: 2 } }, ask: { type: 'array', items: { type: 'array', prefixItems: [dollars, countFp], minItems: 2, maxItems: 2 } } },
};
const DELTA_SCHEMA = {
  type: 'object', required: ['market_ticker', 'price', 'delta', 'side'], additionalProperties: false,
  properties: { market_ticker: { type: 'string' }, price: dollars, delta: { type: 'string', pattern: '^-?[0-9]+\\.[0-9]{2}$' }, side: { enum: ['bid', 'ask'] }, ts_ms: { type: 'integer' }, client_order_id: { type: 'string' }, subaccount: { type: 'integer' } },
};
const TRADE_SCHEMA = {
  type: 'object', required: ['trade_id', 'market_ticker', 'price', 'count', 'taker_side', 'ts_ms'], additionalProperties: false,
  properties: { trade_id: { type: 'string' }, market_ticker: { type: 'string' }, price: dollars, count: countFp, taker_side: { enum: ['bid', 'ask'] }, ts_ms: { type: 'integer' } },
};
const FILL_SCHEMA = {
  type: 'object', required: ['trade_id', 'order_id', 'market_ticker', 'is_taker', 'side', 'ts_ms', 'price', 'count', 'fee_cost', 'post_position'], additionalProperties: false,
  properties: {
    trade_id: { type: 'string' }, order_id: { type: 'string' }, market_ticker: { type: 'string' }, is_taker: { type: 'boolean' }, side: { enum: ['bid', 'ask'] }, ts_ms: { type: 'integer' },
    price: dollars, count: countFp, fee_cost: dollars, post_position: { type: 'string', pattern: '^-?[0-9]+\\.[0-9]{2}$' }, client_order_id: { type: 'string' }, subaccount: { type: 'integer' },
  },
};
const snapshotValid = ajv.compile(SNAPSHOT_SCHEMA);
const deltaValid = ajv.compile(DELTA_SCHEMA);
const tradeValid = ajv.compile(TRADE_SCHEMA);
const fillValid = ajv.compile(FILL_SCHEMA);

describe('order books, trades and fills on the Margin endpoint', () => {
  it('snapshot then a delta per changed level (seq per sid), trades to all, fills to their owner with the position after', async () => {
    sim = await startMarginSim({ fundingDollars: 100_000 });
    const alice = sim.user('alice');
    const bob = sim.user('bob');
    sim.user('watcher');
    await post(bob, { side: 'ask', count: '10', price: '101.00' });
    await post(bob, { side: 'bid', count: '3', price: '99.00' });
    const watcher = await connect('watcher');
    const bookId = watcher.send('subscribe', { channels: ['orderbook_delta', 'trade'], market_tickers: ['KXBTCPERP'] });
    const bookSid = (await watcher.waitFor((m) => m.id === bookId && m.type === 'subscribed' && m.msg.channel === 'orderbook_delta')).msg.sid;
    const snapshot = await watcher.waitFor((m) => m.type === 'orderbook_snapshot');
    expect(snapshotValid(snapshot.msg), JSON.stringify(snapshotValid.errors)).toBe(true);
    expect([snapshot.sid, snapshot.seq, snapshot.msg]).toEqual([bookSid, 1, { market_ticker: 'KXBTCPERP', bid: [['99.0000', '3.00']], ask: [['101.0000', '10.00']] }]);
    const own = await connect('alice');
    const fillId = own.send('subscribe', { channels: ['fill', 'orderbook_delta'], market_tickers: ['KXBTCPERP'] });
    await own.waitFor((m) => m.id === fillId && m.type === 'subscribed' && m.msg.channel === 'fill');
    await own.waitFor((m) => m.type === 'orderbook_snapshot');

    const taken = await post(alice, { side: 'bid', count: '4', price: '101.00', time_in_force: 'immediate_or_cancel' });
    const delta = await watcher.waitFor((m) => m.type === 'orderbook_delta');
    expect(deltaValid(delta.msg), JSON.stringify(deltaValid.errors)).toBe(true);
    expect([delta.sid, delta.seq]).toEqual([bookSid, 2]);
    expect(delta.msg).toMatchObject({ market_ticker: 'KXBTCPERP', price: '101.0000', delta: '-4.00', side: 'ask' });
    expect(delta.msg.client_order_id).toBeUndefined(); // bob's order: not the watcher's
    const trade = await watcher.waitFor((m) => m.type === 'trade');
    expect(tradeValid(trade.msg), JSON.stringify(tradeValid.errors)).toBe(true);
    expect(trade.msg).toMatchObject({ market_ticker: 'KXBTCPERP', price: '101.0000', count: '4.00', taker_side: 'bid' });
    const fill = await own.waitFor((m) => m.type === 'fill');
    expect(fillValid(fill.msg), JSON.stringify(fillValid.errors)).toBe(true);
    expect(fill.msg).toMatchObject({ order_id: taken.order_id, is_taker: true, side: 'bid', price: '101.0000', count: '4.00', post_position: '4.00', trade_id: trade.msg.trade_id });
    expect(own.messages.filter((m) => m.type === 'fill')).toHaveLength(1); // bob's side is not alice's

    // alice's own resting order: her delta carries its client_order_id, the watcher's does not
    const resting = marginOrder({ side: 'bid', count: '2', price: '100.00' });
    expect((await alice.post('/margin/orders', resting)).status).toBe(201);
    const mine = await own.waitFor((m) => m.type === 'orderbook_delta' && m.msg.price === '100.0000');
    expect(mine.msg).toMatchObject({ side: 'bid', delta: '2.00', client_order_id: resting.client_order_id, subaccount: 0 });
    const theirs = await watcher.waitFor((m) => m.type === 'orderbook_delta' && m.msg.price === '100.0000');
    expect(theirs.msg.client_order_id).toBeUndefined();
    expect(theirs.seq).toBe(3);
    // orderbook_delta needs a market filter (14)
    const bare = watcher.send('subscribe', { channels: ['orderbook_delta'] });
    expect((await watcher.waitFor((m) => m.id === bare)).msg.code).toBe(14);
  });
});

describe('order_group_updates on the Margin endpoint', () => {
  it('reports created, limit_updated, triggered, reset and deleted for the user\'s own groups only', async () => {
    sim = await startMarginSim({ fundingDollars: 100_000 });
    const alice = sim.user('alice');
    const bob = sim.user('bob');
    const ws = await connect('alice');
    const id = ws.send('subscribe', { channels: ['order_group_updates'] });
    const sid = (await ws.waitFor((m) => m.id === id && m.type === 'subscribed')).msg.sid;
    const created = await alice.post('/margin/order_groups/create', { contracts_limit_fp: '5.00' });
    expect(created.status, created.text).toBe(201);
    const groupId: string = created.body.order_group_id;
    expect((await bob.post('/margin/order_groups/create', {})).status).toBe(201); // bob's: not alice's to hear
    expect((await alice.put(`/margin/order_groups/${groupId}/limit`, { contracts_limit_fp: '7.00' })).status).toBe(200);
    expect((await alice.put(`/margin/order_groups/${groupId}/trigger`, {})).status).toBe(200);
    expect((await alice.put(`/margin/order_groups/${groupId}/reset`, {})).status).toBe(200);
    expect((await alice.delete(`/margin/order_groups/${groupId}`)).status).toBeLessThan(300);
    await ws.waitFor((m) => m.type === 'order_group_updates' && m.msg.event_type === 'deleted');
    const updates = ws.messages.filter((m) => m.type === 'order_group_updates');
    expect(updates.map((m) => [m.msg.event_type, m.msg.order_group_id, m.msg.contracts_limit_fp])).toEqual([
      ['created', groupId, '5.00'], ['limit_updated', groupId, '7.00'], ['triggered', groupId, undefined], ['reset', groupId, undefined],
      ['deleted', groupId, undefined],
    ]);
    expect(updates.every((m) => m.sid === sid && typeof m.msg.ts_ms === 'number')).toBe(true);
  });
});

describe('user_orders on the Margin endpoint', () => {
  it('carries exchange_index and order_source, and order_reason on an exit trigger\'s system order', async () => {
    sim = await startMarginSim({ fundingDollars: 100_000 });
    const alice = sim.user('alice');
    const bob = sim.user('bob');
    const carol = sim.user('carol');
    const ws = await connect('alice');
    const id = ws.send('subscribe', { channels: ['user_orders'] });
    await ws.waitFor((m) => m.id === id && m.type === 'subscribed');
    await post(bob, { side: 'ask', count: '5', price: '100.00' });
    const entry = await post(alice, { side: 'bid', count: '5', price: '100.00', time_in_force: 'immediate_or_cancel' });
    const own = await ws.waitFor((m) => m.type === 'user_order' && m.msg.order_id === entry.order_id);
    expect(userOrderValid(own.msg), JSON.stringify(userOrderValid.errors)).toBe(true);
    expect(own.msg).toMatchObject({ user_id: 'alice', exchange_index: 0, order_source: 'user', fill_count: '5.00', remaining_count: '0.00', side: 'bid' });
    expect(own.msg.order_reason).toBeUndefined();
    expect(ws.messages.some((m) => m.type === 'user_order' && m.msg.user_id !== 'alice')).toBe(false); // bob's order is not alice's

    const set = await alice.put('/margin/cross/positions/KXBTCPERP/exit_trigger', { stop_loss_price: '99.50' });
    expect(set.status, set.text).toBe(200);
    await post(carol, { side: 'bid', count: '5', price: '99.00' }); // no ask: mark stays 100
    await post(bob, { side: 'ask', count: '1', price: '99.50' }); // mark median(99, 99.50, 100) = 99.50: the stop fires
    const system = await ws.waitFor((m) => m.type === 'user_order' && m.msg.order_source === 'system');
    expect(userOrderValid(system.msg), JSON.stringify(userOrderValid.errors)).toBe(true);
    expect(system.msg).toMatchObject({ order_reason: 'take_profit_stop_loss', side: 'ask', fill_count: '5.00', exchange_index: 0 });
  });
});

describe('Margin endpoint errors', () => {
  it('answers 23, 24 and 28 for id-list actions without their ids, 13 with them, and 8 for channels it does not serve', async () => {
    sim = await startMarginSim();
    sim.user('alice');
    const ws = await connect('alice');
    const id = ws.send('subscribe', { channels: ['margin_ticker'] });
    const sid = (await ws.waitFor((m) => m.id === id && m.type === 'subscribed')).msg.sid;
    const cases: Array<[Record<string, unknown>, number]> = [
      [{ action: 'subscribe_matches' }, 23],
      [{ action: 'unsubscribe_matches', match_ids: [] }, 23],
      [{ action: 'subscribe_indices' }, 24],
      [{ action: 'unsubscribe_indices' }, 24],
      [{ action: 'subscribe_underlyings' }, 28],
      [{ action: 'unsubscribe_underlyings' }, 28],
      [{ action: 'subscribe_indices', index_ids: ['BRTI'] }, 13],
      [{ action: 'constructor' }, 13],
    ];
    for (const [params, code] of cases) {
      const cmdId = ws.send('update_subscription', { sids: [sid], ...params });
      const reply = await ws.waitFor((m) => m.id === cmdId);
      expect([params.action, reply.type, reply.msg.code]).toEqual([params.action, 'error', code]);
    }
    const texts = ws.messages.filter((m) => m.type === 'error').map((m) => m.msg.msg);
    expect(texts.slice(0, 6)).toEqual(['Match IDs required', 'Match IDs required', 'Index IDs required', 'Index IDs required', 'Underlying tickers required', 'Underlying tickers required']);
    const lifecycle = ws.send('subscribe', { channels: ['market_lifecycle_v2'] });
    expect((await ws.waitFor((m) => m.id === lifecycle)).msg.code).toBe(8);

    const predictions = await connect('alice', '/trade-api/ws/v2');
    const unknown = predictions.send('subscribe', { channels: ['margin_ticker'] });
    expect((await predictions.waitFor((m) => m.id === unknown)).msg.code).toBe(8);
    const ticker = predictions.send('subscribe', { channels: ['ticker'] });
    const tickerSid = (await predictions.waitFor((m) => m.id === ticker && m.type === 'subscribed')).msg.sid;
    const vendor = predictions.send('update_subscription', { sids: [tickerSid], action: 'subscribe_indices' });
    expect((await predictions.waitFor((m) => m.id === vendor)).msg.code).toBe(13); // the Predictions endpoint keeps its answer
  });
});
