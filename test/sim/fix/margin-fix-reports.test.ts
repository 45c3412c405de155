// Goal: the Margin FIX sessions' newer parts (shared/spec/fix.md §1 "Margin exchange", §3, §5, §6)
// over real sockets: Day and GTD orders on the Margin KalshiNR (59=0, 59=6 with 126; 126 missing
// rejected; a past GTD acts as IOC) and a GTD order expiring on the simulator's clock (a Canceled
// report, Text EXPIRED, with no request from the client); order groups (35=UOG create / reset /
// unknown id, orders joining with 526, the group's contracts cap reached by fills at entry cancelling
// its resting orders and refusing new ones); ExecutionReports for margin orders changed outside the
// session (placed, amended, cancelled and filled over REST; a fired exit trigger's system order with
// its order_reason); and the Margin KalshiDC replaying reports of orders placed on another session.
// Method: startSim in-process with FIX on and a ManualClock shared with the FIX clients (so
// SendingTime follows the moved clock); REST requests signed with a wide timestamp window; every
// wait is a bounded poll (fix-test-client.ts until: 600 x 10 ms).

import { createPrivateKey, type KeyObject } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ManualClock } from '../../../src/core/index.ts';
import { formatUtcTimestamp, MsgType, Tag } from '../../../src/fix/index.ts';
import { startSim, type SimHandle } from '../../../src/sim/index.ts';
import { easternEndOfDayMs } from '../../../src/sim/server/fix/eastern-time.ts';
import { RestClient } from '../helpers/clients.ts';
import { FixTestClient, type Received } from './fix-test-client.ts';

const PERP = 'KXBTCPERP';
let sim: SimHandle;
let clock: ManualClock;
let workDir: string;
let counter = 0;
const clients: FixTestClient[] = [];

beforeEach(async () => {
  workDir = mkdtempSync(join(tmpdir(), 'sim-fix-margin-reports-'));
  clock = new ManualClock(Date.now());
  sim = await startSim({
    keysDir: join(workDir, 'keys'), logger: pino({ level: 'silent' }), fix: { enabled: true }, clock,
    timestampWindow: { pastMs: 3_600_000, futureMs: 3_600_000 }, // REST signs with the real time, the sim runs on `clock`
  });
});

afterEach(async () => {
  for (const client of clients.splice(0)) client.destroy();
  await sim?.close();
  rmSync(workDir, { recursive: true, force: true });
});

interface Key { keyId: string; privateKey: KeyObject; privateKeyPem: string }

function key(userId: string): Key {
  const created = sim.createApiKey({ scopes: ['read', 'write'], userId, tier: 'prime' });
  return { keyId: created.keyId, privateKey: createPrivateKey(created.privateKeyPem), privateKeyPem: created.privateKeyPem };
}

function rest(who: Key): RestClient {
  return new RestClient(sim.httpUrl, { keyId: who.keyId, privateKeyPem: who.privateKeyPem });
}

async function open(who: Key, sessionName: 'KalshiNR' | 'KalshiRT' | 'KalshiDC'): Promise<FixTestClient> {
  const client = await new FixTestClient({ port: sim.fix!.margin[sessionName], sessionName, keyId: who.keyId, privateKey: who.privateKey, clock }).open();
  clients.push(client);
  expect(client.session.state, `margin ${sessionName} logon`).toBe('active');
  return client;
}

function newOrder(client: FixTestClient, fields: { side: '1' | '2'; qty: string; price: string; tif?: string; extra?: Array<[number, string]> }): string {
  const clOrdId = `mr-${++counter}`;
  client.send(MsgType.NewOrderSingle, (e) => {
    e.string(Tag.ClOrdID, clOrdId).string(Tag.Symbol, PERP).string(Tag.Side, fields.side).string(Tag.OrderQty, fields.qty)
      .string(Tag.OrdType, '2').string(Tag.Price, fields.price);
    if (fields.tif !== undefined) e.string(Tag.TimeInForce, fields.tif);
    for (const [tag, value] of fields.extra ?? []) e.string(tag, value);
  });
  return clOrdId;
}

async function report(client: FixTestClient, clOrdId: string, execType: string): Promise<Received> {
  return client.next((m) => m.msgType === MsgType.ExecutionReport && m.fields.get(Tag.ClOrdID) === clOrdId && m.fields.get(Tag.ExecType) === execType, `35=8 150=${execType} for ${clOrdId}`);
}

async function restOrder(client: RestClient, body: Record<string, unknown>): Promise<{ order_id: string; client_order_id: string }> {
  const result = await client.post('/margin/orders', {
    ticker: PERP, client_order_id: `rest-${++counter}`, count: '1', time_in_force: 'good_till_canceled', self_trade_prevention_type: 'taker_at_cross', ...body,
  });
  expect(result.status, result.text).toBe(201);
  return result.body;
}

function groupRequest(client: FixTestClient, fields: Array<[number, string]>): void {
  client.send(MsgType.OrderGroupRequest, (e) => {
    for (const [tag, value] of fields) e.string(tag, value);
  });
}

describe('Day and GTD on the Margin KalshiNR', () => {
  it('accepts 59=0 and 59=6 with 126, rejects 59=6 without 126, treats a past GTD as IOC, and expires a GTD order on the clock', async () => {
    const nr = await open(key('m-gtd'), 'KalshiNR');
    const engine = sim.services.margin;
    const expireMs = clock.nowMs() + 5_000;
    const gtd = newOrder(nr, { side: '1', qty: '2', price: '95.00', tif: '6', extra: [[Tag.ExpireTime, formatUtcTimestamp(expireMs)]] });
    const gtdId = (await report(nr, gtd, '0')).fields.get(Tag.OrderID)!;
    expect(engine.orders.get(gtdId)).toMatchObject({ status: 'resting', timeInForce: 'good_till_canceled', expirationTs: Math.ceil(expireMs / 1000) });

    const day = newOrder(nr, { side: '1', qty: '1', price: '94.00', tif: '0' });
    const dayId = (await report(nr, day, '0')).fields.get(Tag.OrderID)!;
    expect(engine.orders.get(dayId)?.expirationTs).toBe(Math.floor(easternEndOfDayMs(clock.nowMs()) / 1000)); // 23:59:59 ET

    const missing = newOrder(nr, { side: '1', qty: '1', price: '94.00', tif: '6' });
    const refused = await report(nr, missing, '8');
    expect([refused.fields.get(Tag.OrdRejReason), refused.fields.get(Tag.Text)]).toEqual(['11', 'INVALID_ORDER']);
    const past = newOrder(nr, { side: '1', qty: '1', price: '94.00', tif: '6', extra: [[Tag.ExpireTime, formatUtcTimestamp(clock.nowMs() - 60_000)]] });
    expect((await report(nr, past, '4')).fields.get(Tag.Text)).toBe('IMMEDIATE_OR_CANCELLED'); // fix.md §5: a past GTD acts as IOC

    // Time moves past the GTD deadline; no request follows: the acceptor's tick advances the margin engine.
    clock.advance(6_000);
    const expired = await report(nr, gtd, '4');
    expect([expired.fields.get(Tag.OrdStatus), expired.fields.get(Tag.Text), expired.fields.get(Tag.LeavesQty), expired.fields.get(Tag.OrderID)]).toEqual(['4', 'EXPIRED', '0.00', gtdId]);
    expect(engine.orders.get(gtdId)).toMatchObject({ status: 'canceled', lastUpdateReason: 'ExpiryCancel', lastUpdateMs: Math.ceil(expireMs / 1000) * 1000 });
    expect(engine.orders.get(dayId)?.status).toBe('resting');
    expect(engine.markets.get(PERP)!.book.depth('bid', 0)).toEqual([[940_000, 100]]);
  });
});

describe('order groups on the Margin KalshiNR', () => {
  it('UOG create/reset bound to the Margin exchange; 526 joins; the contracts cap reached by fills at entry cancels the group and refuses new orders', async () => {
    const nr = await open(key('m-group'), 'KalshiNR');
    const bob = rest(key('m-group-bob'));
    groupRequest(nr, [[Tag.OrderGroupAction, '1'], [Tag.OrderGroupContractsLimit, '2'], [Tag.ExDestination, '5']]); // 100 ignored on Margin
    const created = await nr.next((m) => m.msgType === MsgType.OrderGroupResponse, '35=UOH create');
    const groupId = created.fields.get(Tag.OrderGroupID)!;
    expect([created.fields.get(Tag.OrderGroupContractsLimit), created.fields.get(Tag.AllocAccount)]).toEqual(['2', '0']);
    const group = sim.services.marginOrderGroups.get('m-group', groupId, null)!;
    expect(group).toMatchObject({ exchangeIndex: 0, limit: 200, triggered: false });

    const resting = newOrder(nr, { side: '1', qty: '1', price: '90.00', extra: [[Tag.SecondaryClOrdID, groupId]] });
    await report(nr, resting, '0');
    await restOrder(bob, { side: 'ask', count: '2', price: '100.00' });
    const taker = newOrder(nr, { side: '1', qty: '2', price: '100.00', tif: '3', extra: [[Tag.SecondaryClOrdID, groupId]] });
    const fill = await report(nr, taker, 'F');
    expect(fill.fields.get(Tag.CumQty)).toBe('2.00');
    // Two contracts filled at entry reach the cap of 2: the group's resting order goes, after the taker's reports.
    const cancelled = await report(nr, resting, '4');
    expect(cancelled.fields.get(Tag.Text)).toBe('ORDER_GROUP_CANCEL');
    expect(nr.received.indexOf(cancelled)).toBeGreaterThan(nr.received.indexOf(fill));
    expect(group.triggered).toBe(true);
    const blocked = newOrder(nr, { side: '1', qty: '1', price: '90.00', extra: [[Tag.SecondaryClOrdID, groupId]] });
    expect((await report(nr, blocked, '8')).fields.get(Tag.Text)).toBe('EXCEEDED_ORDER_GROUP_RISK_LIMIT');

    const from = nr.received.length;
    groupRequest(nr, [[Tag.OrderGroupAction, '2'], [Tag.OrderGroupID, groupId]]);
    const reset = await nr.next((m) => m.msgType === MsgType.OrderGroupResponse, '35=UOH reset', from);
    expect([reset.fields.get(Tag.OrderGroupID), reset.fields.get(Tag.OrderGroupContractsLimit), reset.fields.get(Tag.AllocAccount)]).toEqual([groupId, undefined, '0']);
    expect(group.triggered).toBe(false);
    const again = newOrder(nr, { side: '1', qty: '1', price: '90.00', extra: [[Tag.SecondaryClOrdID, groupId]] });
    await report(nr, again, '0');

    // Trigger (action 4) cancels it at once; an unknown group or another subaccount is ORDER_GROUP_NOT_FOUND.
    groupRequest(nr, [[Tag.OrderGroupAction, '4'], [Tag.OrderGroupID, groupId]]);
    expect((await report(nr, again, '4')).fields.get(Tag.Text)).toBe('ORDER_GROUP_CANCEL');
    for (const fields of [[[Tag.OrderGroupAction, '3'], [Tag.OrderGroupID, 'mog-9999999999']], [[Tag.OrderGroupAction, '3'], [Tag.OrderGroupID, groupId], [Tag.AllocAccount, '4']]] as Array<Array<[number, string]>>) {
      const mark = nr.received.length;
      groupRequest(nr, fields);
      const rejected = await nr.next((m) => m.msgType === MsgType.BusinessMessageReject, '35=j', mark);
      expect([rejected.fields.get(Tag.BusinessRejectReason), rejected.fields.get(Tag.Text)]).toEqual(['1', 'ORDER_GROUP_NOT_FOUND']); // 380=1 unknown ID
    }
    const unknownGroup = newOrder(nr, { side: '1', qty: '1', price: '90.00', extra: [[Tag.SecondaryClOrdID, 'mog-9999999999']] });
    expect((await report(nr, unknownGroup, '8')).fields.get(Tag.Text)).toBe('ORDER_GROUP_NOT_FOUND');
  });
});

describe('reports of margin orders changed outside the FIX session', () => {
  it('an order placed, amended, filled and cancelled over REST is reported on the user\'s Margin KalshiNR; so is a REST cancel of a FIX order', async () => {
    const fixKey = key('m-rest');
    const nr = await open(fixKey, 'KalshiNR');
    const alice = rest(key('m-rest')); // another key of the same user
    const bob = rest(key('m-rest-bob'));

    const placed = await restOrder(alice, { side: 'bid', count: '3', price: '97.00' });
    const ack = await report(nr, placed.client_order_id, '0');
    expect([ack.fields.get(Tag.OrderID), ack.fields.get(Tag.Price), ack.fields.get(Tag.LeavesQty), ack.fields.get(Tag.Side)]).toEqual([placed.order_id, '97.0000', '3.00', '1']);

    const amended = await alice.post(`/margin/orders/${placed.order_id}/amend`, { ticker: PERP, side: 'bid', price: '97.50', count: '4', updated_client_order_id: 'rest-amended' });
    expect(amended.status, amended.text).toBe(200);
    const replaced = await report(nr, 'rest-amended', '5');
    expect([replaced.fields.get(Tag.OrigClOrdID), replaced.fields.get(Tag.Price), replaced.fields.get(Tag.LeavesQty), replaced.fields.get(Tag.TimeInForce)]).toEqual([placed.client_order_id, '97.5000', '4.00', '1']);

    await restOrder(bob, { side: 'ask', count: '1', price: '97.50' });
    const filled = await report(nr, 'rest-amended', 'F');
    expect([filled.fields.get(Tag.LastPx), filled.fields.get(Tag.LastQty), filled.fields.get(Tag.CumQty), filled.fields.get(Tag.LeavesQty), filled.fields.get(Tag.AggressorIndicator)])
      .toEqual(['97.5000', '1.00', '1.00', '3.00', 'N']);

    const cancelled = await alice.delete(`/margin/orders/${placed.order_id}`);
    expect(cancelled.status, cancelled.text).toBe(200);
    const gone = await report(nr, 'rest-amended', '4');
    expect([gone.fields.get(Tag.OrdStatus), gone.fields.get(Tag.CumQty), gone.fields.get(Tag.LeavesQty)]).toEqual(['4', '1.00', '0.00']);

    // A FIX order cancelled over REST: the Canceled report goes to the session that placed it.
    const viaFix = newOrder(nr, { side: '2', qty: '1', price: '120.00' });
    const fixOrderId = (await report(nr, viaFix, '0')).fields.get(Tag.OrderID)!;
    expect((await alice.delete(`/margin/orders/${fixOrderId}`)).status).toBe(200);
    expect((await report(nr, viaFix, '4')).fields.get(Tag.OrderID)).toBe(fixOrderId);
    // ExecIDs rise by one per report on the Margin exchange's own sequence.
    const execIds = nr.received.filter((m) => m.msgType === MsgType.ExecutionReport).map((m) => Number(m.fields.get(Tag.ExecID)!.split(';')[1]));
    expect(execIds).toEqual(execIds.map((_, i) => execIds[0] + i));
  });

  it('a fired exit trigger\'s system order and its fill reach the FIX session with order_reason take_profit_stop_loss', async () => {
    const fixKey = key('m-sys');
    const nr = await open(fixKey, 'KalshiNR');
    const alice = rest(key('m-sys'));
    const bob = rest(key('m-sys-bob'));
    const carol = rest(key('m-sys-carol'));
    await restOrder(bob, { side: 'ask', count: '5', price: '100.00' });
    const entry = newOrder(nr, { side: '1', qty: '5', price: '100.00', tif: '3' });
    expect((await report(nr, entry, 'F')).fields.get(Tag.LongQty)).toBe('5.00');
    const set = await alice.put(`/margin/cross/positions/${PERP}/exit_trigger`, { stop_loss_price: '99.50' });
    expect(set.status, set.text).toBe(200);
    await restOrder(carol, { side: 'bid', count: '5', price: '99.00' }); // no ask rests: the mark stays 100
    await restOrder(bob, { side: 'ask', count: '1', price: '99.50' }); // mark = median(99, 99.50, 100) = 99.50: the stop fires
    const system = await nr.next((m) => m.msgType === MsgType.ExecutionReport && (m.fields.get(Tag.Text) ?? '').includes('order_reason=take_profit_stop_loss') && m.fields.get(Tag.ExecType) === 'F', 'system Trade report');
    const order = sim.services.margin.orders.get(system.fields.get(Tag.OrderID)!)!;
    expect(order).toMatchObject({ source: 'system', reason: 'take_profit_stop_loss', userId: 'm-sys' });
    expect([system.fields.get(Tag.ClOrdID), system.fields.get(Tag.Side), system.fields.get(Tag.LastPx), system.fields.get(Tag.LastQty), system.fields.get(Tag.ShortQty), system.fields.get(Tag.LongQty)])
      .toEqual([order.clientOrderId, '2', '99.0000', '5.00', '0.00', '0.00']);
    expect(system.fields.get(Tag.Text)).toBe('order_reason=take_profit_stop_loss');
  });

  it('a liquidation order is reported with order_reason liquidation', async () => {
    const fixKey = key('m-liq');
    const nr = await open(fixKey, 'KalshiNR');
    const bob = rest(key('m-liq-bob'));
    const carol = rest(key('m-liq-carol'));
    const engine = sim.services.margin;
    // A thin account: only enough for a small leveraged long.
    engine.ensureAccount('m-liq', 0, 0);
    engine.account('m-liq', 0)!.cash = 800_000; // $80 in centicents
    await restOrder(bob, { side: 'ask', count: '5', price: '100.00' });
    const entry = newOrder(nr, { side: '1', qty: '5', price: '100.00', tif: '3' });
    const entered = await nr.next((m) => m.msgType === MsgType.ExecutionReport && m.fields.get(Tag.ClOrdID) === entry, 'entry report');
    expect(entered.fields.get(Tag.ExecType), entered.raw).toBe('F');
    await restOrder(carol, { side: 'bid', count: '5', price: '70.00' });
    await restOrder(bob, { side: 'ask', count: '1', price: '70.00' }); // the mark falls to 70: $150 of loss on $80 of equity
    const liquidation = await nr.next((m) => m.msgType === MsgType.ExecutionReport && (m.fields.get(Tag.Text) ?? '').includes('order_reason=liquidation'), 'liquidation report');
    const order = engine.orders.get(liquidation.fields.get(Tag.OrderID)!)!;
    expect(order).toMatchObject({ source: 'system', reason: 'liquidation', userId: 'm-liq', side: 'ask' });
    expect(liquidation.fields.get(Tag.ClOrdID)).toBe(order.clientOrderId);
  });
});

describe('the Margin KalshiDC', () => {
  it('listens on a Margin port of its own and replays, in dollars, the reports of orders another session placed', async () => {
    const margin = sim.fix!.margin;
    expect(margin.KalshiDC).toBeGreaterThan(0);
    expect(Object.values(sim.fix!.ports)).not.toContain(margin.KalshiDC);
    const nr = await open(key('m-dc'), 'KalshiNR');
    const bob = rest(key('m-dc-bob'));
    const resting = newOrder(nr, { side: '1', qty: '2', price: '96.00' });
    const ack = await report(nr, resting, '0');
    await restOrder(bob, { side: 'ask', count: '1', price: '96.00' });
    const fill = await report(nr, resting, 'F');

    const dc = await open(key('m-dc'), 'KalshiDC'); // another key of the user: one session per key on the Margin gateway
    const from = dc.received.length;
    dc.send(MsgType.EventResendRequest, (e) => e.string(Tag.BeginExecID, ack.fields.get(Tag.ExecID)!));
    const complete = await dc.next((m) => m.msgType === MsgType.EventResendComplete, '35=U2', from);
    expect(complete.fields.get(Tag.ResendEventCount)).toBe('2');
    const replays = dc.received.slice(from).filter((m) => m.msgType === MsgType.ExecutionReport);
    expect(replays.map((m) => [m.fields.get(Tag.ExecID), m.fields.get(Tag.ExecType), m.fields.get(Tag.ClOrdID), m.fields.get(Tag.Price)]))
      .toEqual([[ack.fields.get(Tag.ExecID), '0', resting, '96.0000'], [fill.fields.get(Tag.ExecID), 'F', resting, '96.0000']]);
    // The Predictions KalshiDC of the same user knows nothing of the Margin exchange's events.
    const other = await new FixTestClient({ port: sim.fix!.ports.KalshiDC, sessionName: 'KalshiDC', ...(() => { const k = key('m-dc'); return { keyId: k.keyId, privateKey: k.privateKey }; })(), clock }).open();
    clients.push(other);
    clock.advance(1_000); // one U1 per second per session
    other.send(MsgType.EventResendRequest, (e) => e.string(Tag.BeginExecID, ack.fields.get(Tag.ExecID)!));
    const refused = await other.next((m) => m.msgType === MsgType.EventResendReject || m.msgType === MsgType.EventResendComplete, 'Predictions DC answer');
    expect(refused.msgType).toBe(MsgType.EventResendReject);
  });
});
