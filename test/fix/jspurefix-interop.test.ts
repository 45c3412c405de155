// Goal: our FIX bytes are FIX as an independent engine understands it, and the other way round.
// Method: jspurefix (dev dependency, its FIX 5.0 SP2 QuickFIX dictionary, FIXT.1.1 header) parses
// messages our encoder wrote, and we check its checksum computation, header and field values;
// our framer parses messages jspurefix's transmitter wrote (zero-padded BodyLength, repeating
// groups); and a full TCP session on 127.0.0.1 port 0 runs our initiator (signed Logon, order,
// TestRequest both ways, OrderCancelRequest answered by an ExecutionReport Canceled, Logout) against
// a jspurefix acceptor, bounded by a 15 s timeout.
import { createRequire } from 'node:module';
import { generateKeyPairSync } from 'node:crypto';
import { connect, createServer, type AddressInfo, type Server } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/core/index.ts';
import {
  FixEncoder, FixError, FixFramer, FixGroup, FixMessage, FixSession, linkSocket, MemorySequenceStore, MsgType, Tag,
  type FixSessionEvent,
} from '../../src/fix/index.ts';

/* eslint-disable @typescript-eslint/no-explicit-any -- jspurefix is loaded untyped through require */
const require = createRequire(import.meta.url);
require('reflect-metadata');
const jf = require('jspurefix');
const { makeSessionScope } = require('jspurefix/dist/runtime/session-scope');

const KEY_ID = '4b1d2c3e-5f60-4a7b-8c9d-0e1f2a3b4c5d';
const T0 = Date.parse('2026-11-22T14:30:00.412Z');

function description(type: 'initiator' | 'acceptor', sender: string, target: string): any {
  return {
    application: { type, name: `interop-${type}`, tcp: { host: '127.0.0.1', port: 0 }, protocol: 'ascii', dictionary: 'qf50sp2' },
    SenderCompId: sender, TargetCompID: target, BeginString: 'FIXT.1.1', HeartBtInt: 30, ResetSeqNumFlag: true,
    EncryptMethod: 0, DefaultApplVerID: '9',
  };
}

let acceptorConfig: any;
let initiatorConfig: any;

beforeAll(async () => {
  const container = new jf.SessionContainer();
  container.registerGlobal('error');
  acceptorConfig = (await container.makeSystem(description('acceptor', 'KalshiNR', KEY_ID))).resolve('IJsFixConfig');
  initiatorConfig = (await container.makeSystem(description('initiator', KEY_ID, 'KalshiNR'))).resolve('IJsFixConfig');
});

/** Parses `bytes` with jspurefix; returns each message's type, object form and checksum check. */
function jspurefixParse(bytes: Buffer): { msgType: string; object: any; checksumOk: boolean; bodyLength: number }[] {
  const scoped = makeSessionScope(acceptorConfig);
  const parser = new jf.AsciiParser(scoped, null, scoped.sessionContainer.resolve('ReceiveBuffer'));
  const out: { msgType: string; object: any; checksumOk: boolean; bodyLength: number }[] = [];
  parser.on('msg', (msgType: string, view: any) => {
    out.push({
      msgType,
      object: view.toObject(),
      checksumOk: view.checksum() === Number(view.getString(Tag.CheckSum)),
      bodyLength: view.getTyped(Tag.BodyLength),
    });
  });
  parser.on('error', (error: Error) => {
    throw error;
  });
  parser.parseBuffer(bytes);
  return out;
}

describe('jspurefix parses what we encode', () => {
  it('NewOrderSingle, ExecutionReport with a fee group, and Logon', () => {
    const encoder = new FixEncoder();
    const order = Buffer.from(encoder.begin(MsgType.NewOrderSingle, KEY_ID, 'KalshiNR', 2, T0)
      .string(Tag.ClOrdID, '9f0c2d84').string(Tag.Symbol, 'KXHIGHNY-26NOV22-B45.5').string(Tag.Side, '2')
      .count(Tag.OrderQty, 1050, 2).string(Tag.OrdType, '2').price(Tag.Price, 123).string(Tag.TimeInForce, '3')
      .timestamp(Tag.TransactTime, T0).finish());
    const report = Buffer.from(encoder.begin(MsgType.ExecutionReport, 'KalshiNR', KEY_ID, 3, T0 + 6)
      .string(Tag.OrderID, 'o1').string(Tag.ClOrdID, '9f0c2d84').string(Tag.ExecID, '5812;90417').string(Tag.ExecType, 'F')
      .string(Tag.OrdStatus, '1').string(Tag.Symbol, 'KXHIGHNY-26NOV22-B45.5').string(Tag.Side, '1')
      .count(Tag.OrderQty, 1000).price(Tag.LastPx, 4200).count(Tag.LastQty, 400).count(Tag.LeavesQty, 600)
      .count(Tag.CumQty, 400).price(Tag.AvgPx, 4200).int(Tag.NoMiscFees, 1).dollars(Tag.MiscFeeAmt, 700)
      .string(Tag.MiscFeeCurr, 'USD').int(Tag.MiscFeeType, 4).finish());
    const logon = Buffer.from(encoder.begin(MsgType.Logon, KEY_ID, 'KalshiNR', 1, T0).int(Tag.EncryptMethod, 0)
      .int(Tag.HeartBtInt, 30).data(Tag.RawDataLength, Tag.RawData, 'c2lnbmF0dXJl').flag(Tag.ResetSeqNumFlag, true)
      .string(Tag.DefaultApplVerID, '9').finish());

    const parsed = jspurefixParse(Buffer.concat([order, report, logon]));
    expect(parsed.map((p) => p.msgType)).toEqual(['D', '8', 'A']);
    expect(parsed.every((p) => p.checksumOk)).toBe(true);
    expect(parsed[0].bodyLength).toBe(order.length - order.indexOf('35=') - 7);

    const d = parsed[0].object;
    expect(d.StandardHeader).toMatchObject({ BeginString: 'FIXT.1.1', MsgType: 'D', SenderCompID: KEY_ID, TargetCompID: 'KalshiNR', MsgSeqNum: 2 });
    expect(new Date(d.StandardHeader.SendingTime).getTime()).toBe(T0);
    expect(d).toMatchObject({ ClOrdID: '9f0c2d84', Side: '2', OrdType: '2', Price: 0.0123, TimeInForce: '3' });
    expect(d.Instrument.Symbol).toBe('KXHIGHNY-26NOV22-B45.5');
    expect(d.OrderQtyData.OrderQty).toBe(10.5);

    const er = parsed[1].object;
    expect(er).toMatchObject({ ExecID: '5812;90417', ExecType: 'F', LastPx: 0.42, LastQty: 4, LeavesQty: 6, CumQty: 4 });
    expect(er.MiscFeesGrp.NoMiscFees).toEqual([{ MiscFeeAmt: 0.07, MiscFeeCurr: 'USD', MiscFeeType: '4' }]);

    const a = parsed[2].object;
    expect(a).toMatchObject({ EncryptMethod: 0, HeartBtInt: 30, ResetSeqNumFlag: true, DefaultApplVerID: '9', RawDataLength: 12 });
  });
});

describe('we parse what jspurefix encodes', () => {
  it('reads padded BodyLength, checksums and a party group from its transmitter', async () => {
    const scoped = makeSessionScope(initiatorConfig);
    const transmitter = scoped.sessionContainer.resolve('MsgTransmitter');
    const chunks: Buffer[] = [];
    transmitter.encodeStream.on('data', (chunk: Buffer) => chunks.push(Buffer.from(chunk)));
    transmitter.send('D', {
      ClOrdID: 'c-42', Instrument: { Symbol: 'KXTEST-1' }, Side: '1', OrderQtyData: { OrderQty: 25 }, OrdType: '2',
      Price: 0.4275, TransactTime: new Date(T0),
      Parties: { NoPartyIDs: [{ PartyID: 'fcm-user_a1', PartyRole: 24 }, { PartyID: 'op-7', PartyRole: 12 }] },
    });
    transmitter.send('0', { TestReqID: 'probe' });
    for (let wait = 0; wait < 100 && chunks.length < 2; wait++) await new Promise((resolve) => setTimeout(resolve, 10));

    const seen: { type: string; seq: number; price: number; qty: number; parties: string[]; testReqId: string | null }[] = [];
    const errors: FixError[] = [];
    const group = new FixGroup(4);
    const framer = new FixFramer({
      onMessage(message: FixMessage) {
        const parties: string[] = [];
        message.readGroup(Tag.NoPartyIDs, Tag.PartyID, group, new Set([Tag.PartyID, 447, Tag.PartyRole]));
        for (let k = 0; k < group.count; k++) {
          parties.push(`${message.stringAt(message.indexOf(Tag.PartyID, group.start(k), group.end(k)))}/${message.stringAt(message.indexOf(Tag.PartyRole, group.start(k), group.end(k)))}`);
        }
        seen.push({
          type: message.msgType(), seq: message.msgSeqNum, price: message.getPrice(Tag.Price), qty: message.getCount(Tag.OrderQty),
          parties, testReqId: message.getString(Tag.TestReqID),
        });
      },
      onError(error: FixError) {
        errors.push(error);
      },
    });
    const wire = Buffer.concat(chunks);
    expect(wire.toString('latin1')).toMatch(/^8=FIXT\.1\.1\x019=0\d+\x01/); // jspurefix pads tag 9 with zeros
    for (let i = 0; i < wire.length; i += 17) framer.push(wire.subarray(i, i + 17));
    expect(errors).toEqual([]);
    expect(seen).toEqual([
      { type: 'D', seq: 1, price: 4275, qty: 2500, parties: ['fcm-user_a1/24', 'op-7/12'], testReqId: null },
      { type: '0', seq: 2, price: Number.MIN_SAFE_INTEGER, qty: Number.MIN_SAFE_INTEGER, parties: [], testReqId: 'probe' },
    ]);
  });
});

describe('TCP session against a jspurefix acceptor', () => {
  let server: Server | null = null;
  afterAll(() => {
    server?.close();
  });

  it('logs on with a signed Logon, trades, answers and sends TestRequests, cancels, logs out', async () => {
    const venueLog: string[] = [];
    const venueOrders: any[] = [];
    class Venue extends jf.AsciiSession {
      constructor(config: any) {
        super(config);
      }
      onApplicationMsg(msgType: string, view: any): void {
        const order = view.toObject();
        venueOrders.push({ msgType, order });
        if (msgType === 'F') {
          this.send('8', {
            OrderID: order.OrderID ?? 'o1', ClOrdID: order.ClOrdID, OrigClOrdID: order.OrigClOrdID, ExecID: '2;1', ExecType: '4',
            OrdStatus: '4', Side: order.Side, Instrument: { Symbol: order.Instrument.Symbol }, LeavesQty: 0, CumQty: 0, AvgPx: 0,
            Price: 0.42,
          });
          return;
        }
        this.send('8', {
          OrderID: 'o1', ClOrdID: order.ClOrdID, ExecID: '1;1', ExecType: '0', OrdStatus: '0', Side: order.Side,
          Instrument: { Symbol: order.Instrument.Symbol }, LeavesQty: order.OrderQtyData.OrderQty, CumQty: 0, AvgPx: 0,
          Price: order.Price,
        });
      }
      onLogon(): boolean {
        return true;
      }
      onReady(): void {
        this.send('1', { TestReqID: 'venue-probe' }); // we must answer with a Heartbeat echoing 112
      }
      onStopped(): void {}
      onDecoded(_msgType: string, text: string): void {
        venueLog.push(`in ${text}`);
      }
      onEncoded(_msgType: string, text: string): void {
        venueLog.push(`out ${text}`);
      }
    }
    server = createServer((socket) => {
      const scoped = makeSessionScope(acceptorConfig);
      const transport = new jf.MsgTransport(1, scoped, new jf.TcpDuplex(socket));
      new Venue(scoped).run(transport).catch(() => { /* ended by the peer */ });
    });
    await new Promise<void>((resolve) => (server as Server).listen(0, '127.0.0.1', resolve));
    const port = (server.address() as AddressInfo).port;

    const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
    const clock = new ManualClock(Date.now());
    const events: FixSessionEvent[] = [];
    const reports: string[] = [];
    let finished: () => void = () => {};
    const done = new Promise<void>((resolve) => (finished = resolve));
    const session = new FixSession({
      role: 'initiator', sessionName: 'KalshiNR', keyId: KEY_ID, privateKey, heartbeatIntervalS: 4, clock,
      // No venue flags (21005 ...): jspurefix's standard FIX50SP2 dictionary rejects unknown tags on Logon.
      store: new MemorySequenceStore(),
    }, {
      onMessage(message) {
        reports.push(`${message.msgType()} ${message.getString(Tag.ClOrdID)} ${message.getString(Tag.OrigClOrdID)} `
          + `${message.getString(Tag.ExecType)}/${message.getString(Tag.OrdStatus)} ${message.getString(Tag.OrderID)} `
          + `${message.getPrice(Tag.Price)} ${message.getCount(Tag.LeavesQty)}`);
      },
      onEvent(event) {
        events.push(event);
        if (event.type === 'closed') finished();
      },
    });
    const socket = connect(port, '127.0.0.1', () => linkSocket(session, socket, { tickIntervalMs: 60_000 }));
    const timeout = setTimeout(() => socket.destroy(), 15_000);
    const until = async (predicate: () => boolean): Promise<void> => {
      for (let wait = 0; wait < 300 && !predicate(); wait++) await new Promise((resolve) => setTimeout(resolve, 10));
      expect(predicate()).toBe(true);
    };

    await until(() => session.state === 'active');
    expect(venueLog[0]).toContain('|96=');
    expect(venueLog[0]).toMatch(/\|95=344\|96=[A-Za-z0-9+/]{342}==\|141=Y\|1137=9\|10=\d{3}\|$/);
    await until(() => venueLog.some((line) => line.startsWith('in ') && line.includes('|35=0|') && line.includes('|112=venue-probe|')));

    session.begin(MsgType.NewOrderSingle).string(Tag.ClOrdID, 'c1').string(Tag.Symbol, 'KXTEST-1').string(Tag.Side, '1')
      .count(Tag.OrderQty, 1000, 0).string(Tag.OrdType, '2').price(Tag.Price, 4200).timestamp(Tag.TransactTime, clock.nowMs());
    session.send();
    await until(() => reports.length === 1);
    expect(reports).toEqual(['8 c1 null 0/0 o1 4200 1000']);
    expect(venueOrders[0].order).toMatchObject({ ClOrdID: 'c1', Price: 0.42, OrdType: '2' });

    // 1.2 x HeartBtInt of silence (on our clock): we probe, jspurefix answers with our TestReqID.
    clock.advance(5_000);
    session.tick();
    await until(() => venueLog.some((line) => line.startsWith('out ') && line.includes('|112=TEST1|')));

    // Cancel the order (fix.md §5: 11, 41, 54 and 55 required; 37 optional); the venue answers Canceled.
    session.begin(MsgType.OrderCancelRequest).string(Tag.ClOrdID, 'c1-cancel').string(Tag.OrigClOrdID, 'c1').string(Tag.OrderID, 'o1')
      .string(Tag.Side, '1').string(Tag.Symbol, 'KXTEST-1').timestamp(Tag.TransactTime, clock.nowMs());
    session.send();
    await until(() => reports.length === 2);
    expect(reports[1]).toBe('8 c1-cancel c1 4/4 o1 4200 0');
    expect(venueOrders.map((v) => v.msgType)).toEqual(['D', 'F']);
    expect(venueOrders[1].order).toMatchObject({ ClOrdID: 'c1-cancel', OrigClOrdID: 'c1', OrderID: 'o1', Side: '1', Instrument: { Symbol: 'KXTEST-1' } });

    session.logout('bye');
    await done;
    clearTimeout(timeout);
    expect(events.filter((e) => e.type === 'logout').length).toBe(1);
    expect(events.some((e) => e.type === 'reject-received' || e.type === 'framing-error')).toBe(false);
    expect(session.state).toBe('closed');
  });
});
