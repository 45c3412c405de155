// Goal: an independent FIX engine, configured only from the simulator's FIX endpoint and the demo
// key, can log on to the simulator's acceptor, place an order, read its ExecutionReport, cancel the
// order (OrderCancelRequest 35=F) and read the cancel's ExecutionReports.
// Method: jspurefix (dev dependency, its FIX 5.0 SP2 QuickFIX dictionary) as INITIATOR on a TCP
// socket to the simulator's KalshiNR port. jspurefix has no notion of the venue's signed Logon, so
// its message-factory mutator (a documented jspurefix extension point) adds RawDataLength(95) and
// RawData(96) to the Logon and pins the Logon's SendingTime to the instant that was signed (fix.md
// §2: the signature covers SendingTime byte for byte). Bounded by a 15 s timeout.

import { createPrivateKey } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { formatUtcTimestamp, signLogon } from '../../../src/fix/index.ts';
import { startSim, type SimHandle } from '../../../src/sim/index.ts';
import { until } from './fix-test-client.ts';

/* eslint-disable @typescript-eslint/no-explicit-any -- jspurefix is loaded untyped through require */
const require = createRequire(import.meta.url);
require('reflect-metadata');
const jf = require('jspurefix');
const { makeSessionScope } = require('jspurefix/dist/runtime/session-scope');

let sim: SimHandle;
let workDir: string;

beforeAll(async () => {
  workDir = mkdtempSync(join(tmpdir(), 'sim-jspurefix-'));
  sim = await startSim({ keysDir: join(workDir, 'keys'), logger: pino({ level: 'silent' }), fix: { enabled: true } });
});

afterAll(async () => {
  await sim?.close();
  rmSync(workDir, { recursive: true, force: true });
});

describe('jspurefix initiator against the simulator acceptor', () => {
  it('logs on with a signed Logon, sends NewOrderSingle, receives its ExecutionReport, cancels it, logs out', async () => {
    const keyId = sim.demoKey.keyId;
    const privateKey = createPrivateKey(sim.demoKey.privateKeyPem);
    const container = new jf.SessionContainer();
    container.registerGlobal('error');
    const config = (await container.makeSystem({
      application: { type: 'initiator', name: 'jspurefix-client', tcp: { host: '127.0.0.1', port: sim.fix!.ports.KalshiNR }, protocol: 'ascii', dictionary: 'qf50sp2' },
      SenderCompId: keyId, TargetCompID: 'KalshiNR', BeginString: 'FIXT.1.1', HeartBtInt: 30, ResetSeqNumFlag: true, EncryptMethod: 0,
      DefaultApplVerID: '9',
    })).resolve('IJsFixConfig');
    let logonTimeMs = 0;
    config.factory.mutator = (_description: any, type: string, o: any) => {
      if (type === 'A') {
        logonTimeMs = Date.now();
        const signature = signLogon(privateKey, formatUtcTimestamp(logonTimeMs), '1', keyId, 'KalshiNR');
        return { ...o, RawDataLength: signature.length, RawData: signature, DefaultApplVerID: '9' };
      }
      if (type === 'StandardHeader' && o.MsgType === 'A') return { ...o, SendingTime: new Date(logonTimeMs) };
      return o;
    };

    const log: string[] = [];
    const reports: any[] = [];
    let ready = false;
    let stopped = false;
    class Client extends jf.AsciiSession {
      constructor(scoped: any) {
        super(scoped);
      }
      onApplicationMsg(msgType: string, view: any): void {
        if (msgType === '8') reports.push(view.toObject());
      }
      onLogon(): boolean {
        return true;
      }
      onReady(): void {
        ready = true;
      }
      onStopped(): void {
        stopped = true;
      }
      onDecoded(_msgType: string, text: string): void {
        log.push(`in ${text}`);
      }
      onEncoded(_msgType: string, text: string): void {
        log.push(`out ${text}`);
      }
    }
    const socket = connect(sim.fix!.ports.KalshiNR, '127.0.0.1');
    await new Promise<void>((resolve, reject) => {
      socket.once('connect', () => resolve());
      socket.once('error', reject);
    });
    const scoped = makeSessionScope(config);
    const client = new Client(scoped);
    const transport = new jf.MsgTransport(1, scoped, new jf.TcpDuplex(socket));
    const running = client.run(transport).catch(() => { /* ended by logout */ });
    const timeout = setTimeout(() => socket.destroy(), 15_000);
    try {
      await until(() => ready || stopped, 'jspurefix logon', 1_000);
      expect(log.find((line) => line.startsWith('out ') && line.includes('|35=A|'))).toMatch(/\|95=344\|96=/);
      expect(ready).toBe(true);

      client.send('D', {
        ClOrdID: 'jspurefix-1', Instrument: { Symbol: 'KXDEMO-26DEC31-T50' }, Side: '1', OrderQtyData: { OrderQty: 10 }, OrdType: '2',
        Price: 42, TimeInForce: '1', TransactTime: new Date(),
      });
      await until(() => reports.some((r) => r.ExecType === '0'), 'ExecutionReport New', 1_000);
      // Without 21011=Y (jspurefix's dictionary has no venue tags) a PendingNew (150=A, ExecID -1;-1) comes first.
      expect(reports.map((r) => r.ExecType)).toEqual(['A', '0']);
      expect(reports[0].ExecID).toBe('-1;-1');
      const ack = reports[1];
      expect(ack).toMatchObject({ ClOrdID: 'jspurefix-1', ExecType: '0', OrdStatus: '0', Side: '1', Price: 42, LeavesQty: 10, CumQty: 0 });
      expect(ack.OrderID).toBe(sim.engine.restingOrders(sim.userId).find((o) => o.clientOrderId === 'jspurefix-1')?.orderId);

      // OrderCancelRequest (fix.md §5: 11, 41, 54 and 55 required, 37 optional).
      client.send('F', {
        ClOrdID: 'jspurefix-1-cancel', OrigClOrdID: 'jspurefix-1', OrderID: ack.OrderID, Side: '1',
        Instrument: { Symbol: 'KXDEMO-26DEC31-T50' }, TransactTime: new Date(),
      });
      await until(() => reports.some((r) => r.ExecType === '4'), 'ExecutionReport Canceled', 1_000);
      expect(log.some((line) => line.startsWith('in ') && line.includes('|35=9|'))).toBe(false);
      // Without 21011=Y a PendingCancel (150=6, 39=6, ExecID -1;-1) comes before the Canceled report.
      const cancelReports = reports.slice(2);
      expect(cancelReports.map((r) => `${r.ExecType}/${r.OrdStatus}`)).toEqual(['6/6', '4/4']);
      expect(cancelReports[0]).toMatchObject({ ClOrdID: 'jspurefix-1-cancel', OrigClOrdID: 'jspurefix-1', OrderID: ack.OrderID, ExecID: '-1;-1' });
      expect(cancelReports[1]).toMatchObject({
        ClOrdID: 'jspurefix-1-cancel', OrigClOrdID: 'jspurefix-1', OrderID: ack.OrderID, ExecType: '4', OrdStatus: '4', Side: '1',
        LeavesQty: 0, CumQty: 0,
      });
      expect(cancelReports[1].Instrument.Symbol).toBe('KXDEMO-26DEC31-T50');
      // The order is gone at the simulator: not resting, and its record says canceled.
      expect(sim.engine.restingOrders(sim.userId).some((o) => o.clientOrderId === 'jspurefix-1')).toBe(false);
      const order = sim.engine.getOrder(sim.userId, ack.OrderID);
      expect(order).toMatchObject({ orderId: ack.OrderID, status: 'canceled', remainingCount: 0 });

      client.done();
      await until(() => stopped, 'jspurefix logout', 1_000);
      expect(log.some((line) => line.startsWith('in ') && line.includes('|35=5|'))).toBe(true);
    } finally {
      clearTimeout(timeout);
      socket.destroy();
      await Promise.race([running, new Promise((resolve) => setTimeout(resolve, 1_000))]);
    }
  });
});
