// Goal: the simulator's Margin FIX sessions (shared/spec/fix.md §1 "Margin exchange", §5, §8) over
// real sockets: KalshiNR, KalshiRT and KalshiMD on ports of their own, beside (not instead of) the
// Predictions sessions of the same key; HeartBtInt optional (default 30) and 3 accepted; a
// NewOrderSingle on a perpetual answered in dollars with whole quantities, its fill reported to
// both sides; ExDestination ignored; a fractional quantity rejected (103=13); a stale order 103=5;
// cancel and replace; the Margin book as a KalshiMD snapshot equal to the engine's book, then
// increments and trade entries.
// Method: startSim in-process with fix enabled (127.0.0.1, port 0 per listener); clients are our
// initiator FixSession (fix-test-client.ts) and, for a Logon without 108, a raw socket with a
// hand-built signed Logon. Every wait is a bounded poll.

import { createPrivateKey, type KeyObject } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { formatUtcTimestamp, MsgType, signLogon, Tag } from '../../../src/fix/index.ts';
import { startSim, type SimHandle } from '../../../src/sim/index.ts';
import { FixTestClient, RawFixClient, until, type Received } from './fix-test-client.ts';

const PERP = 'KXBTCPERP';
let sim: SimHandle;
let workDir: string;
let counter = 0;

beforeAll(async () => {
  workDir = mkdtempSync(join(tmpdir(), 'sim-fix-margin-'));
  sim = await startSim({ keysDir: join(workDir, 'keys'), logger: pino({ level: 'silent' }), fix: { enabled: true } });
});

afterAll(async () => {
  await sim?.close();
  rmSync(workDir, { recursive: true, force: true });
});

function key(userId: string): { keyId: string; privateKey: KeyObject } {
  const created = sim.createApiKey({ scopes: ['read', 'write'], userId, tier: 'prime' });
  return { keyId: created.keyId, privateKey: createPrivateKey(created.privateKeyPem) };
}

async function open(who: { keyId: string; privateKey: KeyObject }, sessionName: 'KalshiNR' | 'KalshiRT' | 'KalshiMD', venue: 'margin' | 'predictions' = 'margin'): Promise<FixTestClient> {
  const port = venue === 'margin' ? sim.fix!.margin[sessionName] : sim.fix!.ports[sessionName];
  const client = await new FixTestClient({ port, sessionName, keyId: who.keyId, privateKey: who.privateKey }).open();
  expect(client.session.state, `${venue} ${sessionName} logon`).toBe('active');
  return client;
}

function newOrder(client: FixTestClient, fields: { side: '1' | '2'; qty: string; price: string; tif?: string; symbol?: string; extra?: Array<[number, string]> }): string {
  const clOrdId = `m-${++counter}`;
  client.send(MsgType.NewOrderSingle, (e) => {
    e.string(Tag.ClOrdID, clOrdId).string(Tag.Symbol, fields.symbol ?? PERP).string(Tag.Side, fields.side).string(Tag.OrderQty, fields.qty)
      .string(Tag.OrdType, '2').string(Tag.Price, fields.price);
    if (fields.tif !== undefined) e.string(Tag.TimeInForce, fields.tif);
    for (const [tag, value] of fields.extra ?? []) e.string(tag, value);
  });
  return clOrdId;
}

async function report(client: FixTestClient, clOrdId: string, execType: string): Promise<Received> {
  return client.next((m) => m.msgType === MsgType.ExecutionReport && m.fields.get(Tag.ClOrdID) === clOrdId && m.fields.get(Tag.ExecType) === execType, `35=8 150=${execType} for ${clOrdId}`);
}

/** A whole-number quantity as the reports write it (scale 2, fix.md §4): "3.00". */
const WHOLE = /^\d+\.00$/;
/** Dollars with four decimals (fix.md §4: always dollars on Margin). */
const DOLLARS = /^\d+\.\d{4}$/;

/** A signed Logon built by hand, so fields our initiator always sends (108) can be left out. */
function rawLogon(who: { keyId: string; privateKey: KeyObject }, sessionName: string, heartbeat: string | null): string {
  const sendingTime = formatUtcTimestamp(Date.now());
  const signature = signLogon(who.privateKey, sendingTime, '1', who.keyId, sessionName);
  const body = [`35=A`, `49=${who.keyId}`, `56=${sessionName}`, `34=1`, `52=${sendingTime}`, `98=0`, ...(heartbeat === null ? [] : [`108=${heartbeat}`]),
    `141=Y`, `1137=9`, `95=${signature.length}`, `96=${signature}`].join('\x01') + '\x01';
  const head = `8=FIXT.1.1\x019=${Buffer.byteLength(body, 'latin1')}\x01${body}`;
  let sum = 0;
  for (const byte of Buffer.from(head, 'latin1')) sum += byte;
  return `${head}10=${String(sum % 256).padStart(3, '0')}\x01`;
}

describe('Margin FIX sessions', () => {
  it('listens on ports of its own, beside the Predictions sessions of the same key', async () => {
    const margin = sim.fix!.margin;
    const all = [...Object.values(sim.fix!.ports), margin.KalshiNR, margin.KalshiRT, margin.KalshiMD];
    expect(new Set(all).size).toBe(all.length);
    const who = key('m-both');
    const predictions = await open(who, 'KalshiNR', 'predictions');
    const nr = await open(who, 'KalshiNR'); // another gateway: its own one-session-per-key rule
    const md = await open(who, 'KalshiMD');
    const second = await new FixTestClient({ port: margin.KalshiRT, sessionName: 'KalshiRT', keyId: who.keyId, privateKey: who.privateKey }).open();
    expect(second.events.find((e) => e.type === 'logon-refused')?.text).toMatch(/already exists/);
    // A margin ticker is not a Predictions market, and the other way round.
    const onPredictions = newOrder(predictions, { side: '1', qty: '1', price: '50' }); // cents: no 21005 on Predictions
    expect((await report(predictions, onPredictions, '8')).fields.get(Tag.Text)).toBe('MARKET_NOT_FOUND');
    for (const client of [md, nr, predictions]) await client.logout();
  });

  it('takes a Logon without HeartBtInt (default 30) and with 108=3, refuses 108=2', async () => {
    for (const [given, answered] of [[null, '30'], ['3', '3']] as const) {
      const who = key(`m-hb-${answered}`);
      const raw = await new RawFixClient().open(sim.fix!.margin.KalshiNR);
      raw.write(rawLogon(who, 'KalshiNR', given));
      await until(() => raw.messages().length > 0, 'logon answer');
      const [answer] = raw.messages();
      expect([answer.msgType, answer.fields.get(Tag.HeartBtInt)]).toEqual(['A', answered]);
      raw.destroy();
    }
    const low = await new RawFixClient().open(sim.fix!.margin.KalshiNR);
    low.write(rawLogon(key('m-hb-2'), 'KalshiNR', '2'));
    await until(() => low.messages().length > 0, 'logon refusal');
    expect(low.messages()[0].msgType).toBe('5');
    low.destroy();
    // Predictions still requires it.
    const raw = await new RawFixClient().open(sim.fix!.ports.KalshiNR);
    raw.write(rawLogon(key('p-hb'), 'KalshiNR', null));
    await until(() => raw.messages().length > 0, 'logon refusal');
    expect(raw.messages()[0].msgType).toBe('5');
    raw.destroy();
  });

  it('NewOrderSingle on a perpetual: dollars, whole quantities, fills to both sides; cancel and replace', async () => {
    const maker = await open(key('m-maker'), 'KalshiNR');
    const taker = await open(key('m-taker'), 'KalshiRT');
    const resting = newOrder(maker, { side: '1', qty: '3', price: '100.50', extra: [[Tag.ExDestination, '7']] }); // 100 ignored on Margin
    const ack = await report(maker, resting, '0');
    expect(ack.fields.get(Tag.OrdStatus)).toBe('0');
    expect(ack.fields.get(Tag.Price)).toBe('100.5000');
    expect(ack.fields.get(Tag.OrderQty)).toMatch(WHOLE);
    expect([ack.fields.get(Tag.OrderQty), ack.fields.get(Tag.LeavesQty), ack.fields.get(Tag.CumQty)]).toEqual(['3.00', '3.00', '0.00']);
    expect(ack.fields.get(Tag.TransactTime)).toMatch(/^\d{8}-\d{2}:\d{2}:\d{2}\.\d{3}$/); // always on Margin
    expect(ack.fields.get(Tag.LastMkt)).toBe('0');
    const orderId = ack.fields.get(Tag.OrderID)!;
    expect(sim.services.margin.orders.get(orderId)).toMatchObject({ ticker: PERP, side: 'bid', price: 1_005_000, remaining: 300, status: 'resting' });

    const sell = newOrder(taker, { side: '2', qty: '1', price: '99.00' });
    const fill = await report(taker, sell, 'F');
    expect([fill.fields.get(Tag.LastPx), fill.fields.get(Tag.LastQty), fill.fields.get(Tag.OrdStatus), fill.fields.get(Tag.AggressorIndicator)]).toEqual(['100.5000', '1.00', '2', 'Y']);
    expect(fill.fields.get(Tag.AvgPx)).toMatch(DOLLARS);
    expect(fill.fields.get(Tag.ShortQty)).toBe('1.00');
    const engineFill = sim.services.margin.fills.find((f) => f.tradeId === fill.fields.get(Tag.TrdMatchID) && f.isTaker)!;
    expect(engineFill).toMatchObject({ price: 1_005_000, count: 100, side: 'ask' });
    expect(Math.round(Number(fill.fields.get(Tag.MiscFeeAmt)) * 10_000)).toBe(engineFill.fee); // the fee in dollars
    const makerFill = await report(maker, resting, 'F');
    expect([makerFill.fields.get(Tag.LastPx), makerFill.fields.get(Tag.CumQty), makerFill.fields.get(Tag.LeavesQty), makerFill.fields.get(Tag.OrdStatus), makerFill.fields.get(Tag.AggressorIndicator)])
      .toEqual(['100.5000', '1.00', '2.00', '1', 'N']);
    expect(makerFill.fields.get(Tag.LongQty)).toBe('1.00');
    expect(fill.fields.get(Tag.TrdMatchID)).toBe(makerFill.fields.get(Tag.TrdMatchID));

    // Replace: new total 5 at 100.25 (keeps the one filled contract: 4 left).
    const replaced = `m-${++counter}`;
    maker.send(MsgType.OrderCancelReplaceRequest, (e) => e.string(Tag.ClOrdID, replaced).string(Tag.OrigClOrdID, resting).string(Tag.Symbol, PERP).string(Tag.Side, '1')
      .string(Tag.OrderQty, '5').string(Tag.OrdType, '2').string(Tag.Price, '100.25'));
    const replacedReport = await report(maker, replaced, '5');
    expect([replacedReport.fields.get(Tag.OrigClOrdID), replacedReport.fields.get(Tag.Price), replacedReport.fields.get(Tag.LeavesQty), replacedReport.fields.get(Tag.CumQty)]).toEqual([resting, '100.2500', '4.00', '1.00']);

    // Cancel by the latest ClOrdID; then a cancel of an unknown order is an OrderCancelReject.
    const cancel = `m-${++counter}`;
    maker.send(MsgType.OrderCancelRequest, (e) => e.string(Tag.ClOrdID, cancel).string(Tag.OrigClOrdID, replaced).string(Tag.Symbol, PERP).string(Tag.Side, '1'));
    const cancelled = await report(maker, cancel, '4');
    expect([cancelled.fields.get(Tag.OrdStatus), cancelled.fields.get(Tag.OrigClOrdID), cancelled.fields.get(Tag.LeavesQty)]).toEqual(['4', replaced, '0.00']);
    expect(sim.services.margin.orders.get(orderId)?.status).toBe('canceled');
    const again = `m-${++counter}`;
    maker.send(MsgType.OrderCancelRequest, (e) => e.string(Tag.ClOrdID, again).string(Tag.OrigClOrdID, 'no-such-order').string(Tag.Symbol, PERP).string(Tag.Side, '1'));
    const refused = await maker.next((m) => m.msgType === MsgType.OrderCancelReject && m.fields.get(Tag.ClOrdID) === again, '35=9');
    expect([refused.fields.get(Tag.CxlRejReason), refused.fields.get(Tag.Text)]).toEqual(['1', 'UNKNOWN_ORDER']);
    await maker.logout();
    await taker.logout();
  });

  it('rejects a fractional quantity (103=13), a stale order (103=5), an unsupported TimeInForce, and an unknown perpetual', async () => {
    const client = await open(key('m-rejects'), 'KalshiNR');
    const fractional = newOrder(client, { side: '1', qty: '1.50', price: '100.00' });
    const a = await report(client, fractional, '8');
    expect([a.fields.get(Tag.OrdStatus), a.fields.get(Tag.OrdRejReason), a.fields.get(Tag.Text)]).toEqual(['8', '13', 'INVALID_ORDER']);
    const stale = newOrder(client, { side: '1', qty: '1', price: '100.00', extra: [[Tag.TransactTime, formatUtcTimestamp(Date.now() - 120_000)]] });
    const b = await report(client, stale, '8');
    expect([b.fields.get(Tag.OrdRejReason), b.fields.get(Tag.Text)]).toEqual(['5', 'STALE_ORDER']);
    const day = newOrder(client, { side: '1', qty: '1', price: '100.00', tif: '2' }); // At the Opening: not a TimeInForce fix.md lists
    expect((await report(client, day, '8')).fields.get(Tag.OrdRejReason)).toBe('11');
    const predictionsTicker = newOrder(client, { side: '1', qty: '1', price: '0.50', symbol: 'KXDEMO-26DEC31-T50' });
    expect((await report(client, predictionsTicker, '8')).fields.get(Tag.Text)).toBe('MARKET_NOT_FOUND');
    const ioc = newOrder(client, { side: '1', qty: '2', price: '1.00', tif: '3' }); // nothing to take: cancelled at once
    const c = await report(client, ioc, '4');
    expect([c.fields.get(Tag.OrdStatus), c.fields.get(Tag.CumQty), c.fields.get(Tag.Text)]).toEqual(['4', '0.00', 'IMMEDIATE_OR_CANCELLED']);
    const notAfterTheRejects = sim.services.margin.orderList.filter((o) => o.clientOrderId === fractional || o.clientOrderId === stale || o.clientOrderId === day);
    expect(notAfterTheRejects).toEqual([]);
    await client.logout();
  });

  it('8013=Y cancels the session\'s resting Margin orders when it closes', async () => {
    const who = key('m-cod');
    const client = await new FixTestClient({ port: sim.fix!.margin.KalshiNR, sessionName: 'KalshiNR', keyId: who.keyId, privateKey: who.privateKey, logonFields: [[8013, 'Y']] }).open();
    const resting = newOrder(client, { side: '1', qty: '1', price: '90.00' });
    const orderId = (await report(client, resting, '0')).fields.get(Tag.OrderID)!;
    expect(sim.services.margin.orders.get(orderId)?.status).toBe('resting');
    await client.logout();
    await until(() => sim.services.margin.orders.get(orderId)?.status === 'canceled', 'cancel on disconnect');
  });

  it('KalshiMD serves the Margin book: a snapshot equal to the engine, then increments and trades in dollars', async () => {
    const maker = await open(key('m-md-maker'), 'KalshiNR');
    const bid = newOrder(maker, { side: '1', qty: '4', price: '98.00' });
    await report(maker, bid, '0');
    const ask = newOrder(maker, { side: '2', qty: '2', price: '102.00' });
    await report(maker, ask, '0');
    const md = await open(key('m-md'), 'KalshiMD');
    md.send(MsgType.MarketDataRequest, (e) => e.string(Tag.MDReqID, 'r1').string(Tag.SubscriptionRequestType, '1').int(Tag.NoRelatedSym, 1).string(Tag.Symbol, PERP));
    const snapshot = await md.next((m) => m.msgType === MsgType.MarketDataSnapshotFullRefresh, 'W');
    const book = sim.services.margin.markets.get(PERP)!.book;
    const entries = snapshot.raw.split('|').filter((f) => /^(269|270|271)=/.test(f));
    const expected: string[] = [];
    for (const [price, size] of book.depth('bid', 0)) expected.push('269=0', `270=${(price / 10_000).toFixed(4)}`, `271=${(size / 100).toFixed(2)}`);
    for (const [price, size] of book.depth('ask', 0)) expected.push('269=1', `270=${(price / 10_000).toFixed(4)}`, `271=${(size / 100).toFixed(2)}`);
    expect(expected).toContain('270=98.0000');
    expect(entries).toEqual(expected);

    const from = md.received.length;
    const taker = await open(key('m-md-taker'), 'KalshiNR');
    const hit = newOrder(taker, { side: '2', qty: '1', price: '98.00' });
    await report(taker, hit, 'F');
    const level = await md.next((m) => m.msgType === MsgType.MarketDataIncrementalRefresh && m.fields.get(Tag.MDEntryType) === '0', 'bid level change', from);
    expect([level.fields.get(Tag.MDUpdateAction), level.fields.get(Tag.MDEntryPx), level.fields.get(Tag.MDEntrySize)]).toEqual(['1', '98.0000', '3.00']);
    const trade = await md.next((m) => m.msgType === MsgType.MarketDataIncrementalRefresh && m.fields.get(Tag.MDEntryType) === '2', 'trade entry', from);
    expect([trade.fields.get(Tag.MDEntryPx), trade.fields.get(Tag.MDEntrySize), trade.fields.get(Tag.AggressorSide)]).toEqual(['98.0000', '1.00', '2']);

    md.send(MsgType.MarketDataRequest, (e) => e.string(Tag.MDReqID, 'r2').string(Tag.SubscriptionRequestType, '0').int(Tag.NoRelatedSym, 1).string(Tag.Symbol, 'NOPERP'));
    const empty = await md.next((m) => m.msgType === MsgType.MarketDataSnapshotFullRefresh && m.fields.get(Tag.MDReqID) === 'r2', 'empty W');
    expect(empty.fields.get(Tag.NoMDEntries)).toBe('0');
    for (const client of [md, maker, taker]) await client.logout();
  });

  it('OrderMassCancelRequest on the Margin KalshiNR: 35=r 531=6, then a Canceled report per resting FIX order; a second within 1 s is 380=8; RT refuses it', async () => {
    const who = key('m-mass');
    const nr = await open(who, 'KalshiNR');
    const first = newOrder(nr, { side: '1', qty: '2', price: '90.00' });
    const second = newOrder(nr, { side: '2', qty: '1', price: '140.00' });
    await report(nr, first, '0');
    await report(nr, second, '0');
    nr.send(MsgType.OrderMassCancelRequest, (e) => e.string(Tag.ClOrdID, 'mass-1').string(Tag.MassCancelRequestType, '6'));
    const answer = await nr.next((m) => m.msgType === MsgType.OrderMassCancelReport, '35=r');
    expect([answer.fields.get(Tag.ClOrdID), answer.fields.get(Tag.MassCancelResponse)]).toEqual(['mass-1', '6']);
    for (const clOrdId of [first, second]) expect((await report(nr, clOrdId, '4')).fields.get(Tag.OrdStatus)).toBe('4');
    const resting = sim.services.margin.orderList.filter((order) => order.status === 'resting' && order.userId === 'm-mass');
    expect(resting).toEqual([]);
    nr.send(MsgType.OrderMassCancelRequest, (e) => e.string(Tag.ClOrdID, 'mass-2').string(Tag.MassCancelRequestType, '6'));
    const throttled = await nr.next((m) => m.msgType === MsgType.BusinessMessageReject, '35=j');
    expect(throttled.fields.get(Tag.BusinessRejectReason)).toBe('8');
    const rt = await open(key('m-mass-rt'), 'KalshiRT');
    rt.send(MsgType.OrderMassCancelRequest, (e) => e.string(Tag.ClOrdID, 'mass-3').string(Tag.MassCancelRequestType, '6'));
    expect((await rt.next((m) => m.msgType === MsgType.BusinessMessageReject, '35=j on RT')).fields.get(Tag.BusinessRejectReason)).toBe('3');
    await nr.logout();
    await rt.logout();
  });
});
