// Goal: the simulator's KalshiMD and KalshiPT sessions behave as shared/spec/fix.md §8 and §9 say,
// over real sockets: 141=Y required on MD; MarketDataRequest 263=1 answered by a snapshot (W) equal
// to the engine's book, then increments (X) with the level's new total as orders rest, trade and
// leave; 263=0 a snapshot only; 263=2 stops the updates; an unknown ticker gets an empty snapshot;
// MarketDataRequestReject 281=4 (unsupported 263) and 281=2 (subscription limit); SecurityStatus
// only on changes (no initial status), 326 = 2, 3, 100, 101; KalshiMD beside an order-entry session
// of the same key; KalshiPT gets a MarketSettlementReport for a settled market the user held, and a
// report raised while its PT session was away comes back by resend on a reconnect without 141=Y.
// Method: startSim in-process with fix enabled (plain TCP, 127.0.0.1, port 0 per session kind) and
// a small MD subscription bound; clients are our initiator FixSession; engine calls move the book
// and the lifecycle. Every wait is a bounded poll.

import { createPrivateKey, type KeyObject } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Count, Price } from '../../../src/core/index.ts';
import { MemorySequenceStore, MsgType, Tag } from '../../../src/fix/index.ts';
import { startSim, type SimHandle } from '../../../src/sim/index.ts';
import { FixTestClient, until } from './fix-test-client.ts';

const TICKER = 'KXDEMO-26DEC31-T50';
const OTHER = 'KXHIGHNY-26DEC31-T40';
let sim: SimHandle;
let workDir: string;

function key(userId: string): { keyId: string; privateKey: KeyObject } {
  const created = sim.createApiKey({ scopes: ['read', 'write'], userId, tier: 'prime' });
  return { keyId: created.keyId, privateKey: createPrivateKey(created.privateKeyPem) };
}

async function md(who: { keyId: string; privateKey: KeyObject }, extra: Partial<ConstructorParameters<typeof FixTestClient>[0]> = {}): Promise<FixTestClient> {
  return new FixTestClient({ port: sim.fix!.ports.KalshiMD, sessionName: 'KalshiMD', keyId: who.keyId, privateKey: who.privateKey, ...extra }).open();
}

function request(client: FixTestClient, type: string, symbols: string[] | null, id = 'r1'): void {
  client.send(MsgType.MarketDataRequest, (e) => {
    e.string(Tag.MDReqID, id).string(Tag.SubscriptionRequestType, type);
    if (symbols !== null) {
      e.int(Tag.NoRelatedSym, symbols.length);
      for (const symbol of symbols) e.string(Tag.Symbol, symbol);
    }
  });
}

function rest(userId: string, side: 'bid' | 'ask', price: number, count: number, tif: 'good_till_canceled' | 'immediate_or_cancel' = 'good_till_canceled') {
  const result = sim.engine.createOrder(userId, { ticker: TICKER, side, price: price as Price, count: count as Count, timeInForce: tif, selfTradePrevention: 'taker_at_cross' });
  expect('isError' in result && result.isError).toBe(false);
  return result as { order: { orderId: string } };
}

beforeAll(async () => {
  workDir = mkdtempSync(join(tmpdir(), 'sim-fix-md-'));
  sim = await startSim({ keysDir: join(workDir, 'keys'), logger: pino({ level: 'silent' }), fix: { enabled: true, marketDataSubscriptionsMax: 3 } });
  for (const userId of ['md-maker', 'md-taker']) sim.createApiKey({ scopes: ['read', 'write'], userId, subaccount: 0 });
});

afterAll(async () => {
  await sim?.close();
  rmSync(workDir, { recursive: true, force: true });
});

describe('KalshiMD', () => {
  it('requires 141=Y and lives beside an order-entry session of the same key', async () => {
    const who = key('md-logon');
    const refused = await md(who, { resetSeqNum: false });
    expect(refused.events.find((e) => e.type === 'logon-refused')?.text).toMatch(/141/);
    const nr = await new FixTestClient({ port: sim.fix!.ports.KalshiNR, sessionName: 'KalshiNR', keyId: who.keyId, privateKey: who.privateKey }).open();
    const client = await md(who);
    expect([nr.session.state, client.session.state]).toEqual(['active', 'active']);
    await client.logout();
    await nr.logout();
  });

  it('263=1: a snapshot equal to the book, then increments with the new level total; 263=2 stops them', async () => {
    rest('md-maker', 'bid', 3000, 500);
    rest('md-maker', 'ask', 7000, 200); // a NO bid at 0.30: an Offer at the YES price 0.70
    const client = await md(key('md-sub'));
    request(client, '1', [TICKER]);
    const snapshot = await client.next((m) => m.msgType === 'W', 'W');
    expect(snapshot.fields.get(Tag.Symbol)).toBe(TICKER);
    expect(snapshot.fields.get(Tag.MDReqID)).toBe('r1');
    const view = sim.engine.orderbook(TICKER, null) as { yes: [number, number][]; no: [number, number][] };
    expect(Number(snapshot.fields.get(Tag.NoMDEntries))).toBe(view.yes.length + view.no.length);
    expect(snapshot.raw).toContain('269=0|270=0.3000|271=5.00|272=');
    expect(snapshot.raw).toContain('269=1|270=0.7000|271=2.00|272=');
    expect(snapshot.raw).toMatch(/273=\d\d:\d\d:\d\d\.\d{3}\|/);

    const from = client.received.length;
    rest('md-maker', 'bid', 3000, 300); // same level: 279=1 change, 271 = 8.00 (the new total)
    const change = await client.next((m) => m.msgType === 'X', 'X change', from);
    expect(change.raw).toContain('268=1|279=1|55=KXDEMO-26DEC31-T50|269=0|270=0.3000|271=8.00|');
    rest('md-maker', 'bid', 2900, 100); // a new level: 279=0
    await client.next((m) => m.msgType === 'X' && m.raw.includes('279=0|55=KXDEMO-26DEC31-T50|269=0|270=0.2900|271=1.00|'), 'X new');
    rest('md-taker', 'ask', 2900, 100, 'immediate_or_cancel'); // takes 0.30 first: a trade and a level change
    await client.next((m) => m.msgType === 'X' && m.raw.includes('|269=2|270=0.3000|271=1.00|') && m.fields.get(Tag.AggressorSide) === '2', 'X trade');
    await client.next((m) => m.msgType === 'X' && m.raw.includes('279=1|55=KXDEMO-26DEC31-T50|269=0|270=0.3000|271=7.00|'), 'X after the trade');

    request(client, '2', [TICKER], 'r2');
    const before = client.received.length;
    request(client, '0', [OTHER], 'r3'); // a marker: its W proves the cancel was handled
    await client.next((m) => m.msgType === 'W' && m.fields.get(Tag.Symbol) === OTHER, 'marker W', before);
    const after = client.received.length;
    rest('md-maker', 'bid', 2800, 100);
    request(client, '0', [OTHER], 'r4');
    await client.next((m) => m.msgType === 'W' && m.fields.get(Tag.MDReqID) === 'r4', 'second marker', after);
    expect(client.received.slice(after).some((m) => m.msgType === 'X')).toBe(false);
    await client.logout();
  });

  it('an unknown ticker gets an empty snapshot; 281=4 for an unsupported 263; 281=2 past the subscription limit', async () => {
    const client = await md(key('md-rejects'));
    request(client, '0', ['NO-SUCH-MARKET']);
    const empty = await client.next((m) => m.msgType === 'W', 'empty W');
    expect([empty.fields.get(Tag.Symbol), empty.fields.get(Tag.NoMDEntries)]).toEqual(['NO-SUCH-MARKET', '0']);
    request(client, '5', [TICKER], 'bad-type');
    const unsupported = await client.next((m) => m.msgType === 'Y', 'Y 281=4');
    expect([unsupported.fields.get(Tag.MDReqRejReason), unsupported.fields.get(Tag.MDReqID)]).toEqual(['4', 'bad-type']);
    request(client, '1', [TICKER, OTHER, 'KXGOLD-26DEC31-T3000', 'KXCPI-26JUN-T3'], 'too-many'); // limit 3
    const limit = await client.next((m) => m.msgType === 'Y' && m.fields.get(Tag.MDReqID) === 'too-many', 'Y 281=2');
    expect(limit.fields.get(Tag.MDReqRejReason)).toBe('2');
    expect(client.received.some((m) => m.msgType === 'W' && m.fields.get(Tag.MDReqID) === 'too-many')).toBe(false);
    await client.logout();
  });

  it('SecurityStatus: nothing on subscribe, then 2 / 3 on halt and resume, 100 and 101 on settlement', async () => {
    const client = await md(key('md-status'));
    const market = 'KXRAINNYC-26DEC-T3';
    client.send(MsgType.SecurityStatusRequest, (e) => e.string(Tag.SubscriptionRequestType, '1').string(Tag.Symbol, market));
    request(client, '0', [market], 'marker');
    await client.next((m) => m.msgType === 'W', 'marker W');
    expect(client.received.some((m) => m.msgType === 'f')).toBe(false); // no initial status (§8)
    expect(sim.engine.setMarketStatus(market, 'inactive')).toBeNull();
    expect(sim.engine.setMarketStatus(market, 'active')).toBeNull();
    expect(sim.engine.settleMarket(market, 'no')).toBeNull();
    await until(() => client.received.filter((m) => m.msgType === 'f').length === 4, 'four statuses');
    expect(client.received.filter((m) => m.msgType === 'f').map((m) => [m.fields.get(Tag.Symbol), m.fields.get(Tag.SecurityTradingStatus)]))
      .toEqual([[market, '2'], [market, '3'], [market, '100'], [market, '101']]);
    await client.logout();
  });
});

describe('KalshiPT', () => {
  it('MarketSettlementReport for a settled market the user held; a report missed while away comes back by resend', async () => {
    const market = 'KXGOLD-26DEC31-T3000';
    sim.createApiKey({ scopes: ['read', 'write'], userId: 'pt-holder', subaccount: 0 }); // funds subaccount 0
    const holder = sim.createApiKey({ scopes: ['read', 'write'], userId: 'pt-holder', tier: 'prime' }); // PT refuses restricted keys
    const who = { keyId: holder.keyId, privateKey: createPrivateKey(holder.privateKeyPem) };
    sim.createApiKey({ scopes: ['read', 'write'], userId: 'pt-seller', subaccount: 0 });
    for (const [userId, side, tif] of [['pt-holder', 'bid', 'good_till_canceled'], ['pt-seller', 'ask', 'immediate_or_cancel']] as const) {
      const r = sim.engine.createOrder(userId, { ticker: market, side, price: 4000 as Price, count: 300 as Count, timeInForce: tif, selfTradePrevention: 'taker_at_cross' });
      expect('isError' in r && r.isError).toBe(false);
    }
    const store = new MemorySequenceStore();
    const pt = await new FixTestClient({ port: sim.fix!.ports.KalshiPT, sessionName: 'KalshiPT', keyId: who.keyId, privateKey: who.privateKey, store }).open();
    expect(pt.session.state).toBe('active');
    expect(sim.engine.settleMarket(market, 'yes')).toBeNull();
    const report = await pt.next((m) => m.msgType === 'UMS', 'UMS');
    const f = report.fields;
    expect([f.get(Tag.Symbol), f.get(Tag.MarketResult), f.get(Tag.SettlementPrice), f.get(Tag.TotNumMarketSettlementReports), f.get(Tag.LastFragment)])
      .toEqual([market, 'yes', '100.00', '1', 'Y']);
    expect(f.get(Tag.ClearingBusinessDate)).toMatch(/^\d{8}$/);
    expect(f.get(Tag.MarketSettlementReportID)).toMatch(/\S/);
    expect(report.raw).toContain('20108=1|20109=0|20110=24|704=3.00|705=0.00|1703=1|1704=3.00|1705=PAYOUT|136=1|137=0.00|138=USD|139=4|891=0|');

    // Away: the next settlement is kept in the key's PT store and resent after a reconnect without 141=Y.
    const second = 'KXBTCY-26DEC31-T100000';
    for (const [userId, side, tif] of [['pt-holder', 'ask', 'good_till_canceled'], ['pt-seller', 'bid', 'immediate_or_cancel']] as const) {
      const r = sim.engine.createOrder(userId, { ticker: second, side, price: 6000 as Price, count: 200 as Count, timeInForce: tif, selfTradePrevention: 'taker_at_cross' });
      expect('isError' in r && r.isError).toBe(false);
    }
    await pt.logout();
    expect(sim.engine.settleMarket(second, 'no')).toBeNull();
    const back = await new FixTestClient({ port: sim.fix!.ports.KalshiPT, sessionName: 'KalshiPT', keyId: who.keyId, privateKey: who.privateKey, store, resetSeqNum: false }).open();
    const resent = await back.next((m) => m.msgType === 'UMS', 'resent UMS');
    expect(resent.fields.get(Tag.Symbol)).toBe(second);
    expect(resent.fields.get(Tag.PossDupFlag)).toBe('Y');
    expect(resent.raw).toContain('|704=0.00|705=2.00|1703=1|1704=2.00|1705=PAYOUT|');
    expect(back.events.some((e) => e.type === 'resend-requested')).toBe(true);
    await back.logout();
  });
});
