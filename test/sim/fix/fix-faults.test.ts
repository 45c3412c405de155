// Goal: the simulator's FIX fault switches do what they say and our FIX route recovers from each:
// fix_drop_outbound loses one outbound application message (the peer sees a MsgSeqNum gap: on
// KalshiRT our route's ResendRequest brings it back and the request is acked; on KalshiMD the gap
// is reported, unrecoverable); fix_disconnect drops the connection before (not applied) or after
// (applied) a request is handled: the route reports the outcome unknown (EXEC_DISCONNECTED),
// reconnects, and on KalshiRT learns the applied order's report by resend; fix_exchange_unavailable
// answers EXCHANGE_UNAVAILABLE with the order applied or not (unknown EXEC_HTTP_5XX either way, the
// venue's book says which); faults.dropFixConnections drops sessions on demand.
// Method: startSim in-process with fix enabled (plain TCP on 127.0.0.1), rules added per test with
// `times: 1` and a key filter; the runtime's FixOrderEntry and our initiator FixSession as clients.
// Waits are bounded polls.

import { randomUUID } from 'node:crypto';
import { createPrivateKey } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadPrivateKey, systemClock, type Count, type Price } from '../../../src/core/index.ts';
import { FIX_ORDER_ENTRY_DEFAULTS, FixOrderEntry, type FixOrderEntryOptions } from '../../../src/exec/index.ts';
import { MsgType, Tag } from '../../../src/fix/index.ts';
import type { NewOrder } from '../../../src/oms/index.ts';
import { startSim, type SimHandle } from '../../../src/sim/index.ts';
import { ListenerWithUnknowns } from '../../exec/recording-listener.ts';
import { FixTestClient, until } from './fix-test-client.ts';

const TICKER = 'KXDEMO-26DEC31-T50';
let sim: SimHandle;
let workDir: string;

function order(price: number): NewOrder {
  return {
    clientOrderId: randomUUID(), ticker: TICKER, side: 'bid', price: price as Price, count: 100 as Count, timeInForce: 'good_till_canceled',
    postOnly: false, reduceOnly: false, selfTradePrevention: 'taker_at_cross', subaccount: 0, orderGroupId: null, expirationTs: 0,
  };
}

function route(userId: string, overrides: Partial<FixOrderEntryOptions> = {}): { entry: FixOrderEntry; listener: ListenerWithUnknowns; keyId: string } {
  const key = sim.createApiKey({ scopes: ['read', 'write'], userId, tier: 'prime' });
  const entry = new FixOrderEntry({
    ...FIX_ORDER_ENTRY_DEFAULTS, host: sim.fix!.host, port: sim.fix!.ports.KalshiNR, tls: null, keyId: key.keyId,
    privateKey: loadPrivateKey(key.privateKeyPem), clock: systemClock, storePath: null, ...overrides,
  });
  const listener = new ListenerWithUnknowns();
  entry.setListener(listener);
  return { entry, listener, keyId: key.keyId };
}

const resting = (userId: string, clientOrderId: string): boolean => sim.engine.restingOrders(userId).some((o) => o.clientOrderId === clientOrderId);

beforeAll(async () => {
  workDir = mkdtempSync(join(tmpdir(), 'sim-fix-faults-'));
  sim = await startSim({ keysDir: join(workDir, 'keys'), logger: pino({ level: 'silent' }), fix: { enabled: true } });
});

afterAll(async () => {
  await sim?.close();
  rmSync(workDir, { recursive: true, force: true });
});

describe('FIX faults', () => {
  it('fix_drop_outbound on KalshiRT: the lost report comes back by resend and the route acks both orders', async () => {
    const { entry, listener, keyId } = route('fault-drop', { sessionName: 'KalshiRT', port: sim.fix!.ports.KalshiRT });
    await entry.connect();
    const rule = sim.faults.add({ kind: 'fix_drop_outbound', target: { times: 1, session: 'KalshiRT', msgType: '8', keyId } });
    const first = order(1100);
    entry.create(first);
    await until(() => sim.faults.firedCount(rule) === 1, 'the drop');
    expect(listener.events.some((e) => e[1] === first.clientOrderId)).toBe(false); // its only report was lost
    const second = order(1200);
    entry.create(second); // its report shows the gap: ResendRequest, replay, both acked
    expect((await listener.outcome('create', second.clientOrderId))[0]).toBe('createAck');
    expect((await listener.outcome('create', first.clientOrderId))[0]).toBe('createAck');
    expect(entry.stats.resendRequests).toBe(1);
    sim.faults.remove(rule);
    await entry.close();
  });

  it('fix_drop_outbound on KalshiMD: the client sees a gap it cannot recover (no retransmission)', async () => {
    const created = sim.createApiKey({ scopes: ['read'], userId: 'fault-md', tier: 'prime' });
    const client = await new FixTestClient({ port: sim.fix!.ports.KalshiMD, sessionName: 'KalshiMD', keyId: created.keyId, privateKey: createPrivateKey(created.privateKeyPem) }).open();
    const rule = sim.faults.add({ kind: 'fix_drop_outbound', target: { times: 1, session: 'KalshiMD', msgType: 'W' } });
    for (const id of ['a', 'b']) {
      client.send(MsgType.MarketDataRequest, (e) => e.string(Tag.MDReqID, id).string(Tag.SubscriptionRequestType, '0').int(Tag.NoRelatedSym, 1).string(Tag.Symbol, TICKER));
    }
    await client.next((m) => m.msgType === 'W' && m.fields.get(Tag.MDReqID) === 'b', 'the second snapshot');
    expect(client.received.some((m) => m.fields.get(Tag.MDReqID) === 'a')).toBe(false);
    expect(client.events.find((e) => e.type === 'gap')?.code).toBe('FIX_SEQ_GAP');
    sim.faults.remove(rule);
    await client.logout();
  });

  it('fix_disconnect: not applied / applied; the route reports unknown, reconnects, and learns the applied order by resend', async () => {
    const { entry, listener, keyId } = route('fault-drop-conn', { sessionName: 'KalshiRT', port: sim.fix!.ports.KalshiRT });
    await entry.connect();
    const before = sim.faults.add({ kind: 'fix_disconnect', applied: false, target: { times: 1, msgType: 'D', keyId } });
    const lost = order(1300);
    entry.create(lost);
    expect(await listener.outcome('create', lost.clientOrderId)).toEqual(['createUnknown', lost.clientOrderId, 'EXEC_DISCONNECTED']);
    expect(resting('fault-drop-conn', lost.clientOrderId)).toBe(false);
    sim.faults.remove(before);
    await until(() => entry.stats.connects === 2 && entry.sessionState === 'active', 'reconnect', 1_500);

    const after = sim.faults.add({ kind: 'fix_disconnect', applied: true, target: { times: 1, msgType: 'D', keyId } });
    const applied = order(1400);
    entry.create(applied);
    expect(await listener.outcome('create', applied.clientOrderId)).toEqual(['createUnknown', applied.clientOrderId, 'EXEC_DISCONNECTED']);
    expect(resting('fault-drop-conn', applied.clientOrderId)).toBe(true);
    sim.faults.remove(after);
    const unsolicited = entry.stats.unsolicitedReports;
    await until(() => entry.stats.connects === 3 && entry.sessionState === 'active', 'second reconnect', 1_500);
    await until(() => entry.stats.unsolicitedReports > unsolicited, 'the applied order\'s report, resent', 1_500);
    await entry.close();
  });

  it('fix_exchange_unavailable: EXCHANGE_UNAVAILABLE with the order not applied or applied (unknown EXEC_HTTP_5XX)', async () => {
    const { entry, listener, keyId } = route('fault-unavailable');
    await entry.connect();
    const refused = sim.faults.add({ kind: 'fix_exchange_unavailable', target: { times: 1, keyId } });
    const first = order(1500);
    entry.create(first);
    expect(await listener.outcome('create', first.clientOrderId)).toEqual(['createUnknown', first.clientOrderId, 'EXEC_HTTP_5XX']);
    expect(resting('fault-unavailable', first.clientOrderId)).toBe(false);
    sim.faults.remove(refused);
    const ambiguous = sim.faults.add({ kind: 'fix_exchange_unavailable', applied: true, target: { times: 1, keyId } });
    const second = order(1600);
    entry.create(second);
    expect(await listener.outcome('create', second.clientOrderId)).toEqual(['createUnknown', second.clientOrderId, 'EXEC_HTTP_5XX']);
    expect(resting('fault-unavailable', second.clientOrderId)).toBe(true);
    sim.faults.remove(ambiguous);
    await entry.close();
  });

  it('dropFixConnections drops matching sessions now; rules of unknown shape are refused', async () => {
    const { entry, keyId } = route('fault-drop-now');
    await entry.connect();
    expect(sim.faults.dropFixConnections({ keyId })).toBe(1);
    await until(() => entry.stats.disconnects >= 1, 'the drop');
    await until(() => entry.sessionState === 'active' && entry.stats.connects === 2, 'reconnect', 1_500);
    expect(() => sim.faults.add({ kind: 'fix_disconnect', applied: 'yes' as unknown as boolean })).toThrow(/applied/);
    await entry.close();
  });
});
