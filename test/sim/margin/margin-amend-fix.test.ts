// Goal: a Margin FIX OrderCancelReplaceRequest (35=G) goes through the engine's amend, so it meets
// the create checks: a replace to 1,000,000 contracts is an OrderCancelReject INSUFFICIENT_BALANCE,
// a post-only order replaced to a crossing price is an OrderCancelReject POST_ONLY_CROSS, and
// neither changes the order or fills it. Method: startSim in-process with FIX enabled (127.0.0.1,
// port 0 per listener), our initiator FixSession (../fix/fix-test-client.ts); bounded waits.

import { createPrivateKey, type KeyObject } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MsgType, Tag } from '../../../src/fix/index.ts';
import { startSim, type SimHandle } from '../../../src/sim/index.ts';
import { FixTestClient, type Received } from '../fix/fix-test-client.ts';

const PERP = 'KXBTCPERP';
let sim: SimHandle;
let workDir: string;
let counter = 0;

beforeAll(async () => {
  workDir = mkdtempSync(join(tmpdir(), 'sim-fix-margin-amend-'));
  sim = await startSim({ keysDir: join(workDir, 'keys'), logger: pino({ level: 'silent' }), fix: { enabled: true } });
});

afterAll(async () => {
  await sim?.close();
  rmSync(workDir, { recursive: true, force: true });
});

async function open(userId: string): Promise<FixTestClient> {
  const created = sim.createApiKey({ scopes: ['read', 'write'], userId, tier: 'prime' });
  const privateKey: KeyObject = createPrivateKey(created.privateKeyPem);
  const client = await new FixTestClient({ port: sim.fix!.margin.KalshiNR, sessionName: 'KalshiNR', keyId: created.keyId, privateKey }).open();
  expect(client.session.state).toBe('active');
  return client;
}

async function rest(client: FixTestClient, side: '1' | '2', qty: string, price: string, execInst: string | null = null): Promise<{ clOrdId: string; orderId: string }> {
  const clOrdId = `fa-${++counter}`;
  client.send(MsgType.NewOrderSingle, (e) => {
    e.string(Tag.ClOrdID, clOrdId).string(Tag.Symbol, PERP).string(Tag.Side, side).string(Tag.OrderQty, qty).string(Tag.OrdType, '2').string(Tag.Price, price);
    if (execInst !== null) e.string(Tag.ExecInst, execInst);
  });
  const ack = await client.next((m) => m.msgType === MsgType.ExecutionReport && m.fields.get(Tag.ClOrdID) === clOrdId, `35=8 for ${clOrdId}`);
  expect(ack.fields.get(Tag.ExecType), ack.fields.get(Tag.Text)).toBe('0');
  return { clOrdId, orderId: ack.fields.get(Tag.OrderID)! };
}

async function replace(client: FixTestClient, origClOrdId: string, side: '1' | '2', qty: string, price: string): Promise<Received> {
  const clOrdId = `fa-${++counter}`;
  client.send(MsgType.OrderCancelReplaceRequest, (e) => e.string(Tag.ClOrdID, clOrdId).string(Tag.OrigClOrdID, origClOrdId).string(Tag.Symbol, PERP).string(Tag.Side, side)
    .string(Tag.OrderQty, qty).string(Tag.OrdType, '2').string(Tag.Price, price));
  return client.next((m) => (m.msgType === MsgType.OrderCancelReject || m.msgType === MsgType.ExecutionReport) && m.fields.get(Tag.ClOrdID) === clOrdId, `answer to 35=G ${clOrdId}`);
}

describe('Margin FIX replace runs the create checks', () => {
  it('rejects a replace beyond the margin and a post-only replace that would cross, changing nothing', async () => {
    const alice = await open('fix-amend-alice');
    const bob = await open('fix-amend-bob');
    const ask = await rest(bob, '2', '13', '150.00');
    const bid = await rest(alice, '1', '1', '140.00');

    const huge = await replace(alice, bid.clOrdId, '1', '1000000', '150.00');
    expect([huge.msgType, huge.fields.get(Tag.Text)]).toEqual([MsgType.OrderCancelReject, 'INSUFFICIENT_BALANCE']);

    const postOnly = await rest(alice, '1', '2', '100.00', '6');
    const crossing = await replace(alice, postOnly.clOrdId, '1', '2', '150.00');
    expect([crossing.msgType, crossing.fields.get(Tag.Text)]).toEqual([MsgType.OrderCancelReject, 'POST_ONLY_CROSS']);

    const margin = sim.services.margin;
    expect(margin.orders.get(bid.orderId)).toMatchObject({ status: 'resting', remaining: 100, price: 1_400_000, filled: 0 });
    expect(margin.orders.get(postOnly.orderId)).toMatchObject({ status: 'resting', remaining: 200, price: 1_000_000, filled: 0 });
    expect(margin.orders.get(ask.orderId)).toMatchObject({ status: 'resting', remaining: 1300, filled: 0 });
    await alice.logout();
    await bob.logout();
  });
});
