// Goal: every exit-trigger rule of the seed on the simulator's Margin exchange, over real sockets:
// whole-position brackets and trailing stops firing when the engine's mark moves, isolated slots
// (one trigger per kind, closing in full), non-isolated slots (count brackets that must fit the
// position, 20 live brackets, one trailing stop), client_trigger_id (required, replay returns the
// first result, 409 on another position), order-anchored brackets (pending_on_entry, status not
// monotonic, done only once the anchor is cleared), anchor_order_unavailable before any write,
// and the reduce-only system orders they fire (order_reason take_profit_stop_loss).
// Method: an in-process sim (margin-sim.ts) on 127.0.0.1:0, signed requests; every request body
// is validated against its OpenAPI request schema and every 2xx body against its response schema.
// The mark is moved by trades between other users: the engine's mark is median(best bid, best
// ask, last trade) when both sides rest, else the last trade.

import { afterEach, describe, expect, it } from 'vitest';
import { errorsOf, OpenApiValidator } from '../helpers/schemas.ts';
import type { RestClient, RestResult } from '../helpers/clients.ts';
import { marginOrder, startMarginSim, type MarginSim } from './margin-sim.ts';

const spec = new OpenApiValidator(() => {}, 'margin-api.openapi.yaml');
const CROSS = '/margin/cross/positions/{ticker}/exit_trigger';
const ISOLATED = '/margin/isolated/positions/{ticker}/exit_trigger';
const BY_ID = '/margin/cross/positions/{ticker}/exit_trigger/{trigger_id}';

function valid(method: string, path: string, result: RestResult, status = 200): any {
  expect(result.status, result.text).toBe(status);
  if (status === 204) return null;
  const validate = spec.response(method, path, status);
  expect(validate(result.body), errorsOf(validate)).toBe(true);
  return result.body;
}

function requestValid(schema: string, body: Record<string, unknown>): Record<string, unknown> {
  const validate = spec.component(schema);
  expect(validate(body), errorsOf(validate)).toBe(true);
  return body;
}

function errorCode(result: RestResult, status: number): string {
  expect(result.status, result.text).toBe(status);
  return (result.body as any).error?.code ?? (result.body as any).code;
}

let sim: MarginSim | null = null;
afterEach(() => {
  sim?.close();
  sim = null;
});

async function create(client: RestClient, overrides: Record<string, unknown>): Promise<any> {
  return valid('POST', '/margin/orders', await client.post('/margin/orders', marginOrder(overrides)), 201);
}

const crossPath = (ticker = 'KXBTCPERP', subaccount: number | null = null): string => `/margin/cross/positions/${ticker}/exit_trigger${subaccount === null ? '' : `?subaccount=${subaccount}`}`;
const isolatedPath = (ticker = 'KXBTCPERP'): string => `/margin/isolated/positions/${ticker}/exit_trigger`;

async function setCross(client: RestClient, body: Record<string, unknown>, path = crossPath()): Promise<RestResult> {
  return client.put(path, requestValid('SetCrossExitTriggerRequest', body));
}

interface World {
  sim: MarginSim;
  alice: RestClient;
  bob: RestClient;
  carol: RestClient;
  dave: RestClient;
  erin: RestClient;
}

async function world(): Promise<World> {
  sim = await startMarginSim({ fundingDollars: 100_000 });
  return { sim, alice: sim.user('alice'), bob: sim.user('bob'), carol: sim.user('carol'), dave: sim.user('dave'), erin: sim.user('erin') };
}

/** alice opens `count` contracts at 100 against bob (long for 'bid'). */
async function open(w: World, side: 'bid' | 'ask', count: number): Promise<void> {
  await create(w.bob, { side: side === 'bid' ? 'ask' : 'bid', count: String(count), price: '100.00' });
  const taken = await create(w.alice, { side, count: String(count), price: '100.00', time_in_force: 'immediate_or_cancel' });
  expect(taken.fill_count).toBe(`${count}.00`);
}

/** dave and erin trade one contract at `price`: the last trade, hence the mark while one side is empty. */
async function tradeAt(w: World, price: string): Promise<void> {
  await create(w.dave, { side: 'ask', count: '1', price });
  await create(w.erin, { side: 'bid', count: '1', price, time_in_force: 'immediate_or_cancel' });
}

function mark(w: World): number {
  return w.sim.margin.markets.get('KXBTCPERP')!.mark;
}

async function aliceOrders(w: World): Promise<any[]> {
  return valid('GET', '/margin/orders', await w.alice.get('/margin/orders')).orders;
}

async function position(w: World): Promise<string> {
  const positions = valid('GET', '/margin/positions', await w.alice.get('/margin/positions')).positions;
  return positions.find((p: any) => p.market_ticker === 'KXBTCPERP')?.position ?? '0.00';
}

describe('whole-position triggers fire from the mark', () => {
  it('a cross bracket closes the long in full with a reduce-only system order when the mark reaches the stop-loss', async () => {
    const w = await world();
    await open(w, 'bid', 10);
    const trigger = valid('PUT', CROSS, await setCross(w.alice, { stop_loss_price: '95.00', take_profit_price: '110.00' }));
    expect(trigger).toMatchObject({ ticker: 'KXBTCPERP', kind: 'bracket', status: 'active', count: '0.00', filled_count: '0.00', stop_loss_price: '95.0000', take_profit_price: '110.0000' });
    await create(w.carol, { side: 'bid', count: '20', price: '94.00' }); // liquidity to close against
    expect(mark(w)).toBe(1_000_000); // bid only: mark = last trade 100
    await tradeAt(w, '96.00');
    expect(await position(w)).toBe('10.00'); // 96 > 95: nothing fired
    await tradeAt(w, '95.00'); // dave's ask alone makes the mark median(94, 95, 96) = 95
    expect(await position(w)).toBe('0.00');
    const fired = (await aliceOrders(w)).filter((o) => o.order_source === 'system');
    expect(fired).toHaveLength(1);
    expect(fired[0]).toMatchObject({ order_reason: 'take_profit_stop_loss', side: 'ask', fill_count: '10.00', remaining_count: '0.00' });
    expect(w.sim.margin.orders.get(fired[0].order_id)!.reduceOnly).toBe(true);
    const carolPositions = valid('GET', '/margin/positions', await w.carol.get('/margin/positions')).positions;
    expect(carolPositions[0]).toMatchObject({ position: '10.00' });
    expect(valid('GET', CROSS, await w.alice.get(crossPath())).exit_triggers).toEqual([]); // filled: no longer live
  });

  it('a trailing stop ratchets its watermark with the mark and fires on the retreat by trail_amount', async () => {
    const w = await world();
    await open(w, 'bid', 10);
    const body = { kind: 'trailing', trail_amount: '2.00' };
    const trailing = valid('PUT', CROSS, await setCross(w.alice, body));
    expect(trailing).toMatchObject({ kind: 'trailing', status: 'active', trail_amount: '2.0000', watermark_price: '100.0000', effective_stop_price: '98.0000' });
    await create(w.carol, { side: 'bid', count: '20', price: '90.00' });
    await tradeAt(w, '105.00');
    let live = valid('GET', CROSS, await w.alice.get(`${crossPath()}?kind=trailing`)).exit_triggers;
    expect(live).toHaveLength(1);
    expect(live[0]).toMatchObject({ id: trailing.id, watermark_price: '105.0000', effective_stop_price: '103.0000' });
    // upsert: one live trailing stop per position; the watermark is kept
    const replaced = valid('PUT', CROSS, await setCross(w.alice, { kind: 'trailing', trail_bps: 100 }));
    expect(replaced).toMatchObject({ id: trailing.id, trail_bps: 100, watermark_price: '105.0000', effective_stop_price: '103.9500' });
    expect(replaced.trail_amount).toBeUndefined();
    await tradeAt(w, '104.00');
    expect(await position(w)).toBe('10.00');
    await tradeAt(w, '103.95');
    expect(await position(w)).toBe('0.00');
    const fired = (await aliceOrders(w)).find((o) => o.order_source === 'system');
    expect(fired).toMatchObject({ order_reason: 'take_profit_stop_loss', fill_count: '10.00' });
    live = valid('GET', CROSS, await w.alice.get(crossPath())).exit_triggers;
    expect(live).toEqual([]);
  });

  it('waits while the book has nothing to close against, then fires when liquidity arrives', async () => {
    const w = await world();
    await open(w, 'bid', 5);
    valid('PUT', CROSS, await setCross(w.alice, { stop_loss_price: '95.00' }));
    await tradeAt(w, '94.00');
    expect(mark(w)).toBe(940_000);
    expect(await position(w)).toBe('5.00');
    expect(valid('GET', CROSS, await w.alice.get(crossPath())).exit_triggers[0]).toMatchObject({ status: 'active', filled_count: '0.00' });
    await create(w.carol, { side: 'bid', count: '5', price: '93.00' });
    expect(await position(w)).toBe('0.00');
  });
});

describe('isolated slot', () => {
  it('holds one trigger per kind, closes a short in full on take-profit, cancels the rest as position_closed', async () => {
    const w = await world();
    await open(w, 'ask', 10); // alice short 10 @ 100
    const first = valid('PUT', ISOLATED, await w.alice.put(isolatedPath(), requestValid('SetIsolatedExitTriggerRequest', { stop_loss_price: '120.00' })));
    // a second bracket write replaces the first: a leg omitted is cleared
    const second = valid('PUT', ISOLATED, await w.alice.put(isolatedPath(), { take_profit_price: '95.00' }));
    expect(second.id).toBe(first.id);
    expect(second.stop_loss_price).toBeUndefined();
    expect(second).toMatchObject({ take_profit_price: '95.0000', count: '0.00' });
    const trailing = valid('PUT', ISOLATED, await w.alice.put(isolatedPath(), { kind: 'trailing', trail_amount: '50.00' }));
    expect(trailing).toMatchObject({ watermark_price: '100.0000', effective_stop_price: '150.0000' });
    expect(valid('GET', ISOLATED, await w.alice.get(isolatedPath())).exit_triggers).toHaveLength(2);
    expect(valid('GET', ISOLATED, await w.alice.get(`${isolatedPath()}?kind=bracket`)).exit_triggers.map((t: any) => t.id)).toEqual([first.id]);
    // isolated triggers always close in full: no count, anchor or client_trigger_id
    expect((await w.alice.put(isolatedPath(), { stop_loss_price: '120.00', count: '5', client_trigger_id: 'iso-1' })).status).toBe(400);
    expect((await w.alice.put(isolatedPath(), { stop_loss_price: '120.00', trail_amount: '1.00' })).status).toBe(400);
    expect((await w.alice.put(isolatedPath(), { kind: 'trailing', trail_amount: '1.00', trail_bps: 5 })).status).toBe(400);
    expect((await w.alice.put(isolatedPath(), {})).status).toBe(400);

    await create(w.carol, { side: 'ask', count: '20', price: '96.00' }); // liquidity to buy back from
    await create(w.dave, { side: 'bid', count: '1', price: '95.00' });
    expect(mark(w)).toBe(960_000); // median(95, 96, 100): above the take-profit
    expect(await position(w)).toBe('-10.00');
    await create(w.erin, { side: 'ask', count: '1', price: '95.00', time_in_force: 'immediate_or_cancel' }); // last 95, bids empty
    expect(await position(w)).toBe('0.00');
    const fired = (await aliceOrders(w)).find((o) => o.order_source === 'system');
    expect(fired).toMatchObject({ side: 'bid', order_reason: 'take_profit_stop_loss', fill_count: '10.00' });
    expect(valid('GET', ISOLATED, await w.alice.get(isolatedPath())).exit_triggers).toEqual([]);
    expect(w.sim.margin.triggers.get(trailing.id)).toMatchObject({ status: 'canceled', reason: 'position_closed' });
    expect(w.sim.margin.triggers.get(first.id)).toMatchObject({ status: 'filled', triggeredLeg: 'take_profit' });
  });

  it('needs an open position, and DELETE with kind cancels only that family (204 even when nothing is live)', async () => {
    const w = await world();
    expect(errorCode(await w.alice.put(isolatedPath(), { stop_loss_price: '90.00' }), 404)).toBe('position_not_found');
    await open(w, 'bid', 2);
    valid('PUT', ISOLATED, await w.alice.put(isolatedPath(), { stop_loss_price: '90.00' }));
    valid('PUT', ISOLATED, await w.alice.put(isolatedPath(), { kind: 'trailing', trail_bps: 500 }));
    valid('DELETE', ISOLATED, await w.alice.delete(`${isolatedPath()}?kind=trailing`), 204);
    expect(valid('GET', ISOLATED, await w.alice.get(isolatedPath())).exit_triggers.map((t: any) => t.kind)).toEqual(['bracket']);
    valid('DELETE', ISOLATED, await w.alice.delete(isolatedPath()), 204);
    valid('DELETE', ISOLATED, await w.alice.delete(isolatedPath()), 204);
    expect(valid('GET', ISOLATED, await w.alice.get(isolatedPath())).exit_triggers).toEqual([]);
  });
});

describe('non-isolated slot: count brackets, limits, client_trigger_id', () => {
  it('appends count brackets that fit the position, replays by client_trigger_id, 409s a key on another position', async () => {
    const w = await world();
    await open(w, 'bid', 10);
    expect(errorCode(await setCross(w.alice, { count: '4', stop_loss_price: '95.00' }), 400)).toBe('bad_request'); // key required
    expect(errorCode(await setCross(w.alice, { stop_loss_price: '95.00', client_trigger_id: 'x' }), 400)).toBe('bad_request'); // key only on appends
    expect(errorCode(await setCross(w.alice, { count: '1.5', stop_loss_price: '95.00', client_trigger_id: 'frac' }), 400)).toBe('invalid_order_size');
    const a = valid('PUT', CROSS, await setCross(w.alice, { count: '4', stop_loss_price: '95.00', client_trigger_id: 'a' }));
    expect(a).toMatchObject({ status: 'active', count: '4.00', client_trigger_id: 'a' });
    const replay = valid('PUT', CROSS, await setCross(w.alice, { count: '9', take_profit_price: '200.00', client_trigger_id: 'a' }));
    expect(replay).toEqual(a); // the first result, whatever the replay's body
    // the key belongs to its position: another subaccount or ticker is 409
    expect(errorCode(await setCross(w.alice, { count: '1', stop_loss_price: '1.00', client_trigger_id: 'a' }, crossPath('KXBTCPERP', 1)), 409)).toBe('idempotency_key_already_used');
    expect(errorCode(await setCross(w.alice, { count: '1', stop_loss_price: '1.00', client_trigger_id: 'a' }, crossPath('KXETHPERP')), 409)).toBe('idempotency_key_already_used');
    // counts must fit the position: 4 + 7 > 10
    expect(errorCode(await setCross(w.alice, { count: '7', stop_loss_price: '95.00', client_trigger_id: 'b' }), 400)).toBe('exit_trigger_count_exceeds_position');
    const c = valid('PUT', CROSS, await setCross(w.alice, { count: '6', stop_loss_price: '94.00', take_profit_price: '130.00', client_trigger_id: 'c' }));
    expect(errorCode(await setCross(w.alice, { count: '1', stop_loss_price: '95.00', client_trigger_id: 'd' }), 400)).toBe('exit_trigger_count_exceeds_position');
    // a whole-position bracket needs no partial one live
    expect(errorCode(await setCross(w.alice, { stop_loss_price: '90.00' }), 409)).toBe('exit_trigger_conflict');
    const trailing = valid('PUT', CROSS, await setCross(w.alice, { kind: 'trailing', trail_amount: '30.00' }));
    expect(errorCode(await setCross(w.alice, { kind: 'trailing', trail_amount: '1.00', count: '1', client_trigger_id: 't' }), 400)).toBe('bad_request');
    expect(valid('GET', CROSS, await w.alice.get(crossPath())).exit_triggers.map((t: any) => t.id)).toEqual([a.id, c.id, trailing.id]);
    expect(valid('GET', CROSS, await w.alice.get(`${crossPath()}?kind=bracket`)).exit_triggers).toHaveLength(2);

    // update one bracket by id: the omitted leg is cleared; at least one leg; trailing is not addressed by id
    const path = `/margin/cross/positions/KXBTCPERP/exit_trigger/${c.id}`;
    const updated = valid('PUT', BY_ID, await w.alice.put(path, requestValid('UpdateExitTriggerRequest', { stop_loss_price: '95.00' })));
    expect(updated).toMatchObject({ id: c.id, stop_loss_price: '95.0000', count: '6.00' });
    expect(updated.take_profit_price).toBeUndefined();
    expect((await w.alice.put(path, {})).status).toBe(400);
    expect((await w.alice.put(`/margin/cross/positions/KXBTCPERP/exit_trigger/${trailing.id}`, { stop_loss_price: '1.00' })).status).toBe(404);
    expect((await w.alice.delete(`/margin/cross/positions/KXBTCPERP/exit_trigger/${trailing.id}`)).status).toBe(404);

    // both count brackets fire on the mark: 4 + 6 contracts, the position closes
    await create(w.carol, { side: 'bid', count: '20', price: '94.00' });
    await tradeAt(w, '95.00');
    expect(await position(w)).toBe('0.00');
    const fired = (await aliceOrders(w)).filter((o) => o.order_source === 'system');
    expect(fired.map((o) => o.fill_count).sort()).toEqual(['4.00', '6.00']);
    const done = valid('PUT', CROSS, await setCross(w.alice, { count: '4', stop_loss_price: '95.00', client_trigger_id: 'a' }));
    expect(done).toMatchObject({ id: a.id, status: 'filled', filled_count: '4.00', triggered_leg: 'stop_loss' });
    expect(fired.map((o) => o.order_id)).toContain(done.triggered_order_id);
    expect(w.sim.margin.triggers.get(trailing.id)).toMatchObject({ status: 'canceled', reason: 'position_closed' });
  });

  it('holds at most 20 live brackets; DELETE by id and by collection cancel; subaccounts are separate slots', async () => {
    const w = await world();
    await open(w, 'bid', 30);
    const ids: string[] = [];
    for (let i = 0; i < 20; i++) {
      ids.push(valid('PUT', CROSS, await setCross(w.alice, { count: '1', stop_loss_price: '50.00', client_trigger_id: `k${i}` })).id);
    }
    expect(errorCode(await setCross(w.alice, { count: '1', stop_loss_price: '50.00', client_trigger_id: 'k20' }), 409)).toBe('exit_trigger_limit_reached');
    valid('DELETE', BY_ID, await w.alice.delete(`/margin/cross/positions/KXBTCPERP/exit_trigger/${ids[3]}`), 204);
    expect((await w.alice.delete(`/margin/cross/positions/KXBTCPERP/exit_trigger/${ids[3]}`)).status).toBe(404);
    expect(w.sim.margin.triggers.get(ids[3])).toMatchObject({ status: 'canceled', reason: 'user_canceled' });
    valid('PUT', CROSS, await setCross(w.alice, { count: '1', stop_loss_price: '50.00', client_trigger_id: 'k20' }));
    // subaccount 1 holds no position: its slot is empty and needs one
    expect(valid('GET', CROSS, await w.alice.get(crossPath('KXBTCPERP', 1))).exit_triggers).toEqual([]);
    expect(errorCode(await setCross(w.alice, { stop_loss_price: '50.00' }, crossPath('KXBTCPERP', 1)), 404)).toBe('position_not_found');
    valid('DELETE', CROSS, await w.alice.delete(`${crossPath()}?kind=trailing`), 204);
    expect(valid('GET', CROSS, await w.alice.get(crossPath())).exit_triggers).toHaveLength(20);
    valid('DELETE', CROSS, await w.alice.delete(crossPath()), 204);
    expect(valid('GET', CROSS, await w.alice.get(crossPath())).exit_triggers).toEqual([]);
  });
});

describe('order-anchored brackets', () => {
  it('follow the anchor fill: pending_on_entry, active, back to pending after closing, done once the anchor is terminal', async () => {
    const w = await world();
    const anchor = await create(w.alice, { side: 'bid', count: '10', price: '100.00' });
    // an anchor that cannot be validated: 409 before any write, so the key stays unused
    expect(errorCode(await setCross(w.alice, { anchor_order_id: 'no-such-order', stop_loss_price: '95.00', client_trigger_id: 'anc' }), 409)).toBe('anchor_order_unavailable');
    const bobOrder = await create(w.bob, { side: 'ask', count: '1', price: '150.00' });
    expect(errorCode(await setCross(w.alice, { anchor_order_id: bobOrder.order_id, stop_loss_price: '95.00', client_trigger_id: 'anc' }), 409)).toBe('anchor_order_unavailable');
    valid('DELETE', '/margin/orders/{order_id}', await w.bob.delete(`/margin/orders/${bobOrder.order_id}`));
    expect(valid('GET', CROSS, await w.alice.get(crossPath())).exit_triggers).toEqual([]);
    expect(errorCode(await setCross(w.alice, { anchor_order_id: anchor.order_id, count: '2', stop_loss_price: '95.00', client_trigger_id: 'anc' }), 400)).toBe('bad_request');
    expect(errorCode(await setCross(w.alice, { anchor_order_id: anchor.order_id, stop_loss_price: '95.00' }), 400)).toBe('bad_request');
    // no position is needed with an anchor
    const pending = valid('PUT', CROSS, await setCross(w.alice, { anchor_order_id: anchor.order_id, stop_loss_price: '95.00', client_trigger_id: 'anc' }));
    expect(pending).toMatchObject({ status: 'pending_on_entry', anchor_order_id: anchor.order_id, count: '0.00', filled_count: '0.00', client_trigger_id: 'anc' });
    const replay = async (): Promise<any> => valid('PUT', CROSS, await setCross(w.alice, { anchor_order_id: anchor.order_id, stop_loss_price: '95.00', client_trigger_id: 'anc' }));

    await create(w.bob, { side: 'ask', count: '4', price: '100.00' }); // the anchor fills 4
    expect(await replay()).toMatchObject({ id: pending.id, status: 'active', count: '4.00', filled_count: '0.00' });
    valid('POST', '/margin/orders/{order_id}/amend', await w.alice.post(`/margin/orders/${anchor.order_id}/amend`, { ticker: 'KXBTCPERP', side: 'bid', price: '80.00', count: '10' }));
    await create(w.carol, { side: 'bid', count: '4', price: '90.00' });
    await create(w.dave, { side: 'ask', count: '1', price: '95.00' }); // mark median(90, 95, 100) = 95: the stop-loss fires
    expect(await position(w)).toBe('0.00');
    const back = await replay();
    expect(back).toMatchObject({ status: 'pending_on_entry', count: '4.00', filled_count: '4.00', triggered_leg: 'stop_loss', anchor_order_id: anchor.order_id });
    expect(back.triggered_order_id).toBeDefined(); // kept although not done
    expect(valid('GET', CROSS, await w.alice.get(crossPath())).exit_triggers.map((t: any) => t.id)).toEqual([pending.id]);

    // the anchor's last 6 fill at 80: it is terminal, so the anchor is cleared; the mark (last 80) is below the stop
    await create(w.bob, { side: 'ask', count: '6', price: '80.00' });
    const rearmed = await replay();
    expect(rearmed).toMatchObject({ status: 'active', count: '10.00', filled_count: '4.00' });
    expect(rearmed.anchor_order_id).toBeUndefined();
    expect(await position(w)).toBe('6.00'); // no bid to sell into yet: waiting
    await create(w.carol, { side: 'bid', count: '6', price: '79.00' });
    expect(await position(w)).toBe('0.00');
    const done = await replay();
    expect(done).toMatchObject({ status: 'filled', count: '10.00', filled_count: '10.00' });
    expect(done.anchor_order_id).toBeUndefined();
    expect(done.status_reason).toBeUndefined();
    const system = (await aliceOrders(w)).filter((o) => o.order_source === 'system');
    expect(system.map((o) => [o.order_reason, o.fill_count])).toEqual([['take_profit_stop_loss', '6.00'], ['take_profit_stop_loss', '4.00']]);
  });

  it('cancels as entry_not_filled when the anchor ends without a fill', async () => {
    const w = await world();
    const anchor = await create(w.alice, { side: 'ask', count: '3', price: '120.00' });
    const trigger = valid('PUT', CROSS, await setCross(w.alice, { anchor_order_id: anchor.order_id, take_profit_price: '90.00', client_trigger_id: 'short-entry' }));
    expect(trigger.status).toBe('pending_on_entry');
    valid('DELETE', '/margin/orders/{order_id}', await w.alice.delete(`/margin/orders/${anchor.order_id}`));
    const after = valid('PUT', CROSS, await setCross(w.alice, { anchor_order_id: anchor.order_id, take_profit_price: '90.00', client_trigger_id: 'short-entry' }));
    expect(after).toMatchObject({ id: trigger.id, status: 'canceled', status_reason: 'entry_not_filled' });
    expect(after.anchor_order_id).toBeUndefined();
    // a terminal order cannot anchor a new trigger
    expect(errorCode(await setCross(w.alice, { anchor_order_id: anchor.order_id, take_profit_price: '90.00', client_trigger_id: 'again' }), 409)).toBe('anchor_order_unavailable');
  });
});
