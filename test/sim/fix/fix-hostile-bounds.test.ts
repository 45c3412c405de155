// Goal: the simulator's FIX acceptor stays bounded against a hostile client, and keeps serving
// others meanwhile: (3) one output budget per connection: a market-data client that stops reading
// gets its requests cut with 35=Y 281=2 and is logged out as a slow consumer, and an order-entry
// client that never reads its reports is disconnected; a MarketDataRequest counts one message per
// symbol in the message-rate bound; (4) a ResendRequest is streamed against the output budget, one
// at a time per session (a second gets Reject 373=5); (5) idle sockets never lock out a real Logon
// (per-source and per-listener caps evict the oldest socket not logged on; 2 s logon timeout);
// (6) SecurityStatusRequest bounds (Symbol length, unknown market 380=2, billed); (8) Logon
// CompIDs bounded without a stack trace, 52 missing = 373=1, a replayed signed Logon refused.
// Method: startSim in-process (fix enabled, default bounds) plus, for the output budget cases, a
// second FixAcceptor on the same services with a small budget (256 KiB / 1 MiB) and a high message
// rate, so that the budget, not the rate bound, is what stops the flood. Hostile clients pause their
// socket's reading. Each case asserts that another client's FIX or REST round trip completes and that
// the process RSS stays under a stated bound. Every loop is bounded in count; waits are bounded polls.

import { createPrivateKey, type KeyObject } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { connect, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Count, Price } from '../../../src/core/index.ts';
import { FixEncoder, formatUtcTimestamp, MsgType, signLogon, Tag } from '../../../src/fix/index.ts';
import { FixAcceptor } from '../../../src/sim/server/fix/index.ts';
import { startSim, type SimHandle } from '../../../src/sim/index.ts';
import { FixTestClient, RawFixClient, until, type Received } from './fix-test-client.ts';

const TICKER = 'KXDEMO-26DEC31-T50';
const MB = 1024 * 1024;
/** Symbols per flood request: 600 of TICKER fit the 16 KiB message bound. */
const SYMBOLS = 600;
const TIGHT = { outputBytesMax: 256 * 1024, outputBytesDisconnect: MB } as const;
/** RSS growth allowed while a hostile client runs (an unbounded acceptor grew by hundreds of MB). */
const RSS_GROWTH_MAX_MB = 160;

let sim: SimHandle;
let tight: FixAcceptor;
let workDir: string;
const errorLogs: string[] = [];
/** Keys made once (an RSA key pair takes most of a second): each is used by one session at a time. */
const keys = {} as Record<'other' | 'md' | 'nr' | 'rt' | 'spare' | 'basic', Key>;

interface Key { keyId: string; privateKey: KeyObject }

function key(userId: string, tier: 'basic' | 'prime' = 'prime'): Key {
  const created = sim.createApiKey({ scopes: ['read', 'write'], userId, tier });
  return { keyId: created.keyId, privateKey: createPrivateKey(created.privateKeyPem) };
}

async function open(port: number, sessionName: string, who: Key, resetSeqNum?: boolean): Promise<FixTestClient> {
  const client = await new FixTestClient({ port, sessionName, keyId: who.keyId, privateKey: who.privateKey, ...(resetSeqNum === undefined ? {} : { resetSeqNum }) }).open();
  expect(client.session.state, `${sessionName} logon: ${JSON.stringify(client.events)}`).toBe('active');
  return client;
}

function rssMb(): number {
  return process.memoryUsage().rss / MB;
}

/** Another client is served: a REST read and a KalshiMD snapshot on the default acceptor complete. */
async function othersServed(): Promise<void> {
  const response = await fetch(`${sim.httpUrl}/trade-api/v2/markets/${TICKER}`);
  expect(response.status).toBe(200);
  await response.arrayBuffer();
  const md = await open(sim.fix!.ports.KalshiMD, 'KalshiMD', keys.other);
  md.send(MsgType.MarketDataRequest, (e) => e.string(Tag.MDReqID, 'probe').string(Tag.SubscriptionRequestType, '0').int(Tag.NoRelatedSym, 1).string(Tag.Symbol, TICKER));
  await md.next((m) => m.msgType === 'W' && m.fields.get(Tag.MDReqID) === 'probe', 'the other client\'s snapshot');
  await md.logout();
}

function marketDataRequest(client: FixTestClient, id: string, symbols: number, type = '0'): void {
  client.send(MsgType.MarketDataRequest, (e) => {
    e.string(Tag.MDReqID, id).string(Tag.SubscriptionRequestType, type).int(Tag.NoRelatedSym, symbols);
    for (let i = 0; i < symbols; i++) e.string(Tag.Symbol, TICKER);
  });
}

/** An order for a market that does not exist: answered with a ~550-byte ExecutionReport 150=8 (or 35=j past the bucket). */
function badOrder(client: FixTestClient, n: number): void {
  client.send(MsgType.NewOrderSingle, (e) => e.string(Tag.ClOrdID, `${n}`.padStart(64, 'h')).string(Tag.Symbol, UNKNOWN_SYMBOL).string(Tag.Side, '1')
    .string(Tag.OrderQty, '1').string(Tag.OrdType, '2').string(Tag.Price, '42'));
}
const UNKNOWN_SYMBOL = 'NO-SUCH-MARKET-'.padEnd(190, 'X');

const pause = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

/** 49 resting levels a side on TICKER, so that one snapshot is a few KB. */
function deepenBook(): void {
  const userId = 'depth-maker';
  sim.services.ensureFunded(userId, 0);
  for (let level = 1; level <= 49; level++) {
    for (const side of ['bid', 'ask'] as const) {
      const price = (side === 'bid' ? level * 100 : 10_000 - level * 100) as Price;
      const result = sim.engine.createOrder(userId, {
        ticker: TICKER, side, price, count: 100 as Count, timeInForce: 'good_till_canceled', selfTradePrevention: 'taker_at_cross', postOnly: true,
      });
      expect('isError' in result && result.isError, `depth order ${side} ${price}`).toBeFalsy();
    }
  }
}
const bytesOf = (messages: readonly Received[]): number => messages.reduce((sum, m) => sum + m.raw.length, 0);

beforeAll(async () => {
  workDir = mkdtempSync(join(tmpdir(), 'sim-fix-hostile-'));
  // Errors are recorded so a test can assert that a hostile Logon logs no stack.
  const sink = new Writable({ write(chunk, _encoding, done) { errorLogs.push(String(chunk)); done(); } });
  sim = await startSim({ keysDir: join(workDir, 'keys'), logger: pino({ level: 'error' }, sink), fix: { enabled: true } });
  tight = new FixAcceptor({
    services: sim.services, clock: { nowMs: () => Date.now() }, host: '127.0.0.1', logger: pino({ level: 'silent' }),
    ...TIGHT, messagesPerSecondMax: 10_000_000,
  });
  await tight.listen();
  deepenBook();
  for (const name of ['other', 'md', 'nr', 'rt', 'spare'] as const) keys[name] = key(`hostile-${name}`);
  keys.basic = key('hostile-basic', 'basic');
});

afterAll(async () => {
  await tight?.close();
  await sim?.close();
  rmSync(workDir, { recursive: true, force: true });
});

describe('output budget (item 3)', () => {
  it('a KalshiMD client that stops reading gets 35=Y 281=2, its increments are sent or it is logged out, and others are served', async () => {
    const probe = await open(tight.ports.KalshiMD, 'KalshiMD', keys.md);
    marketDataRequest(probe, 'size', 1);
    const snapshotBytes = bytesOf([await probe.next((m) => m.msgType === 'W', 'one snapshot')]);
    await probe.logout();
    const hostile = await open(tight.ports.KalshiMD, 'KalshiMD', keys.md);
    marketDataRequest(hostile, 'sub', 1, '1'); // a book subscription: its increments must not be dropped silently
    await hostile.next((m) => m.msgType === 'W' && m.fields.get(Tag.MDReqID) === 'sub', 'the subscription snapshot');
    hostile.socket!.pause();
    const rssBefore = rssMb();
    // 200 MB asked for in requests of 600 symbols (13.8 KB each): without a budget all of it would sit in the socket.
    const requests = Math.min(3_000, Math.ceil((200 * MB) / (SYMBOLS * snapshotBytes)));
    for (let i = 0; i < requests; i++) {
      marketDataRequest(hostile, `flood-${i}`, SYMBOLS);
      if (i % 20 === 19) await pause();
    }
    await othersServed();
    // A book change reaches the hostile subscriber while its budget is full: logged out, not silently dropped.
    const trader = await open(tight.ports.KalshiNR, 'KalshiNR', keys.nr);
    try {
    // A few book changes (bounded): the first that finds the budget full logs the subscriber out.
    for (let move = 0; move < 5 && !hostile.closed; move++) {
      const id = `md-move-${move}`;
      trader.send(MsgType.NewOrderSingle, (e) => e.string(Tag.ClOrdID, id).string(Tag.Symbol, TICKER).string(Tag.Side, '1')
        .string(Tag.OrderQty, '1').string(Tag.OrdType, '2').string(Tag.Price, '3').int(Tag.ExDestination, -1));
      await trader.next((m) => m.msgType === '8' && m.fields.get(Tag.ClOrdID) === id, 'the trader\'s report');
    }
    expect(rssMb() - rssBefore).toBeLessThan(RSS_GROWTH_MAX_MB);
    hostile.socket!.resume();
    // Whether an increment found the budget still full depends on how much the kernel's buffers
    // absorbed meanwhile: when one did, the subscriber was logged out as a slow consumer, never
    // served a book with a silent hole.
    await until(() => hostile.closed || hostile.received.some((m) => m.msgType === 'X'), 'the hostile client logged out or sent its increment', 1_500);
    if (hostile.closed) expect(hostile.wire().find((m) => m.msgType === '5')?.fields.get(Tag.Text)).toMatch(/Slow consumer/);
    const rejects = hostile.received.filter((m) => m.msgType === 'Y');
    expect(rejects.length).toBeGreaterThan(0);
    expect(rejects[0].fields.get(281)).toBe('2');
    // What reached the client: the budget plus what the kernel buffers held, far below what was asked for.
    const deliveredBytes = bytesOf(hostile.received);
    expect(deliveredBytes).toBeLessThan(32 * MB);
    expect(requests * SYMBOLS * snapshotBytes).toBeGreaterThan(deliveredBytes * 5);
    } finally {
      // Logged out even when an expectation failed: the next test logs on with the same key.
      await trader.logout().catch(() => undefined);
    }
  });

  it('an order-entry client that never reads its reports is disconnected; its reports are not dropped meanwhile', async () => {
    const hostile = await open(tight.ports.KalshiNR, 'KalshiNR', keys.nr);
    hostile.socket!.pause();
    const rssBefore = rssMb();
    let sent = 0;
    // Each bad order is answered (ExecutionReport 150=8, or 35=j past the token bucket): ~250 bytes the client never reads.
    for (let batch = 0; batch < 100 && !hostile.closed && hostile.session.state === 'active'; batch++) {
      for (let i = 0; i < 500; i++) badOrder(hostile, sent++);
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    await until(() => hostile.closed, 'the hostile client disconnected', 500);
    expect(sent).toBeLessThan(50_000);
    expect(rssMb() - rssBefore).toBeLessThan(RSS_GROWTH_MAX_MB);
    await othersServed();
  });

  it('bills a MarketDataRequest by its symbols in the message-rate bound (default 2,000 per second)', async () => {
    const client = await open(sim.fix!.ports.KalshiMD, 'KalshiMD', keys.spare);
    for (let i = 0; i < 4 && !client.closed; i++) marketDataRequest(client, `rate-${i}`, SYMBOLS); // 2,400 messages' worth
    await until(() => client.closed, 'logged out for the message rate');
    expect(client.wire().find((m) => m.msgType === '5')?.fields.get(Tag.Text)).toBe('Message rate exceeded');
    await othersServed();
  });
});

describe('ResendRequest (item 4)', () => {
  it('streams a 20,000-message resend against the output budget, one at a time per session', async () => {
    const who = keys.rt;
    const client = await open(tight.ports.KalshiRT, 'KalshiRT', who, true);
    const stored = 20_000; // 5+ MB of answers (reports, then 35=j past the bucket): more than the kernel's socket buffers and the budget
    for (let n = 0; n < stored;) {
      for (let i = 0; i < 1_000; i++) badOrder(client, n++);
      await pause();
    }
    await until(() => client.session.nextIncoming > stored, 'every answer stored and received', 1_500);
    const last = client.session.nextIncoming - 1;
    client.socket!.pause();
    const rssBefore = rssMb();
    for (let i = 0; i < 60; i++) client.send(MsgType.ResendRequest, (e) => e.int(Tag.BeginSeqNo, 1).int(Tag.EndSeqNo, 0));
    await othersServed(); // the loop is not stalled by the replay
    expect(rssMb() - rssBefore).toBeLessThan(RSS_GROWTH_MAX_MB);
    let resent = 0;
    let tail = '';
    client.socket!.on('data', (chunk: Buffer) => {
      const text = tail + chunk.toString('latin1');
      resent += text.split('\x0143=Y\x01').length - 1;
      tail = text.slice(-5); // shorter than the marker: one split across chunks is counted once, in the next
    });
    client.socket!.resume();
    // 59 of the 60 are refused while the first runs; the first runs to its end once the client reads.
    await until(() => client.events.filter((e) => e.type === 'reject-received' && /already in progress/.test(e.text)).length === 59,
      'the 59 refusals', 1_500);
    await until(() => resent >= last, 'the whole replay', 1_500);
    expect(resent).toBe(last); // seq 1 (Logon) and 2..last: one gap fill and the application messages, each once
    expect(client.session.state).toBe('active');
    await client.logout();
  });
});

describe('idle connections (item 5)', () => {
  it('300 idle sockets never stop a real Logon on KalshiNR and on a Margin KalshiMD; idle ones are closed', async () => {
    const idle: Socket[] = [];
    let closedCount = 0;
    const rssBefore = rssMb();
    for (let batch = 0; batch < 6; batch++) {
      await Promise.all(Array.from({ length: 50 }, () => new Promise<void>((resolve) => {
        const socket = connect(batch % 2 === 0 ? sim.fix!.ports.KalshiNR : sim.fix!.margin.KalshiMD, '127.0.0.1', () => resolve());
        socket.on('error', () => resolve());
        socket.on('close', () => { closedCount++; });
        idle.push(socket);
      })));
    }
    // Accepted in order, each past the per-source cap of 64 evicting the oldest socket not logged on.
    await until(() => closedCount >= 300 - 64, 'evictions down to the per-source cap');
    const nr = await open(sim.fix!.ports.KalshiNR, 'KalshiNR', keys.nr);
    const md = await open(sim.fix!.margin.KalshiMD, 'KalshiMD', keys.spare);
    await othersServed();
    await until(() => closedCount === 300, 'the rest closed by the logon timeout', 800);
    expect(rssMb() - rssBefore).toBeLessThan(RSS_GROWTH_MAX_MB);
    expect(nr.session.state).toBe('active'); // logged-on sessions are never evicted
    expect(md.session.state).toBe('active');
    await nr.logout();
    await md.logout();
    for (const socket of idle) socket.destroy();
  });
});

describe('SecurityStatusRequest (item 6)', () => {
  it('bounds Symbol, rejects an unknown market with 380=2, and bills each subscribe', async () => {
    const client = await open(sim.fix!.ports.KalshiMD, 'KalshiMD', keys.basic);
    const status = (symbol: string): number => client.send(MsgType.SecurityStatusRequest, (e) => e.string(Tag.SubscriptionRequestType, '1').string(Tag.Symbol, symbol));
    const longSeq = status('X'.repeat(5_000));
    const long = await client.nextOnWire((m) => m.msgType === '3' && m.fields.get(Tag.RefSeqNum) === String(longSeq), 'the long Symbol reject');
    expect([long.fields.get(Tag.RefTagID), long.fields.get(Tag.SessionRejectReason)]).toEqual(['55', '5']);
    status(TICKER); // known: subscribed, no answer (fix.md §8)
    for (let i = 0; i < 40; i++) status(`UNKNOWN-${i}`); // a basic key's read bucket holds fewer than 40 requests
    await until(() => client.received.filter((m) => m.msgType === 'j').length === 40, 'an answer to each unknown symbol');
    const reasons = client.received.filter((m) => m.msgType === 'j').map((m) => m.fields.get(Tag.BusinessRejectReason));
    expect(reasons[0]).toBe('2'); // unknown security
    expect(reasons).toContain('8'); // billed: past the bucket, throttled
    expect(client.session.state).toBe('active');
    await othersServed();
    await client.logout();
  });
});

describe('Logon bounds (item 8)', () => {
  function logonBytes(who: Key, sessionName: string, nowMs: number, fields: { senderCompId?: string; sendingTime?: boolean } = {}): Buffer {
    const sender = fields.senderCompId ?? who.keyId;
    const signature = signLogon(who.privateKey, formatUtcTimestamp(nowMs), '1', who.keyId, sessionName);
    const encoder = new FixEncoder({ messageBytesMax: 64 * 1024 }).begin(MsgType.Logon, sender, sessionName, 1, nowMs)
      .int(Tag.EncryptMethod, 0).int(Tag.HeartBtInt, 30).data(Tag.RawDataLength, Tag.RawData, signature).flag(Tag.ResetSeqNumFlag, true)
      .string(Tag.DefaultApplVerID, '9');
    const bytes = Buffer.from(encoder.finish());
    if (fields.sendingTime !== false) return bytes;
    // Without 52: rebuild the frame (BodyLength and CheckSum) from the body minus the SendingTime field.
    const text = bytes.toString('latin1');
    const body = text.slice(text.indexOf('\x0135=') + 1, text.lastIndexOf('10=')).replace(/\x0152=[^\x01]*\x01/, '\x01');
    const head = `8=FIXT.1.1\x019=${body.length}\x01${body}`;
    let sum = 0;
    for (let i = 0; i < head.length; i++) sum += head.charCodeAt(i);
    return Buffer.from(`${head}10=${String(sum % 256).padStart(3, '0')}\x01`, 'latin1');
  }

  async function rawLogon(bytes: Buffer): Promise<RawFixClient> {
    const raw = await new RawFixClient().open(sim.fix!.ports.KalshiNR);
    raw.write(bytes);
    await until(() => raw.ended, 'the connection closed');
    return raw;
  }

  it('an overlong SenderCompID gets a short Logout and no logged stack; a Logon without 52 gets 373=1', async () => {
    const who = keys.spare;
    const errorsBefore = errorLogs.length;
    for (let i = 0; i < 5; i++) {
      const raw = await rawLogon(logonBytes(who, 'KalshiNR', Date.now(), { senderCompId: 'K'.repeat(15_000) }));
      const bytes = Buffer.concat(raw.chunks);
      expect(bytes.length).toBeLessThan(512);
      expect(raw.messages()[0].msgType).toBe('5');
    }
    expect(errorLogs.length).toBe(errorsBefore);
    const missing = await rawLogon(logonBytes(who, 'KalshiNR', Date.now(), { sendingTime: false }));
    const reject = missing.messages().find((m) => m.msgType === '3');
    expect([reject?.fields.get(Tag.SessionRejectReason), reject?.fields.get(Tag.RefTagID)]).toEqual(['1', '52']);
    await othersServed();
  });

  it('refuses a signed Logon replayed byte for byte within its SendingTime window', async () => {
    const who = keys.rt;
    const bytes = logonBytes(who, 'KalshiNR', Date.now());
    const first = await new RawFixClient().open(sim.fix!.ports.KalshiNR);
    first.write(bytes);
    await until(() => first.messages().some((m) => m.msgType === 'A'), 'the first logon');
    first.write(Buffer.from(new FixEncoder().begin(MsgType.Logout, who.keyId, 'KalshiNR', 2, Date.now()).finish()));
    await until(() => first.ended, 'the logout');
    const replay = await rawLogon(bytes);
    const logout = replay.messages().find((m) => m.msgType === '5');
    expect(logout?.fields.get(Tag.Text)).toMatch(/not newer/);
    expect(replay.messages().some((m) => m.msgType === 'A')).toBe(false);
    const fresh = await open(sim.fix!.ports.KalshiNR, 'KalshiNR', who); // a new SendingTime logs on
    await fresh.logout();
  });
});
