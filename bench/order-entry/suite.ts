/**
 * Order-entry suite: latency of a V2 create against the simulator, which runs in a process of its
 * own (`src/sim/main.ts`, spawned here) so its work never shares our event loop.
 *
 * Cases run interleaved (each sends one order in turn, one order in flight at a time), paced below
 * the demo key's write rate limit, immediate-or-cancel orders on an empty book (the sim answers
 * 201 without resting anything):
 * - ours (RestOrderEntry, order mutations on its raw client), create() -> onCreateAck: presigned,
 *   presigned with refill on take, and inline signing;
 * - ours, create() call alone (what the trading thread pays before it can go on) and
 *   create() -> socket write start (RAW_HTTP_WRITE_START_CHANNEL, just before the one socket.write
 *   inside create()) and create() -> write returned (RAW_HTTP_WRITE_CHANNEL), which on loopback
 *   includes the kernel delivering the bytes to the simulator and, on a busy 2-core machine, the
 *   simulator being scheduled before our syscall returns;
 * - beside it, the undici Pool.dispatch create (undici-dispatch-create.ts: the hot-path variant
 *   that left src; same body, presigned from the same kind of ring, preallocated handler):
 *   create -> ack, the create() call, and create() -> socket write start (its sendHeaders event,
 *   just before its write: one setImmediate later on a reused socket);
 * - ours, amend of one resting order, presigned per-order signature: amend() -> onAmendAck, the
 *   amend() call alone, and amend() -> socket write start. The price toggles 0.01 <-> 0.02 on a
 *   post-only bid with no asks in the book, so every amend re-prices and nothing ever fills;
 * - transport alone, same signed bytes: RawHttpPool.send, undici pool.dispatch with a
 *   preallocated handler, and pool.request + body.text();
 * - baselines: the official `kalshi-typescript` OrdersApi.createOrderV2 (axios, signs inline,
 *   re-parses the PEM each call) and a raw keep-alive net.Socket writing the same request bytes
 *   (the loopback + simulator floor).
 * - CPU only: the hand-written create body vs JSON.stringify of the same object (+ Buffer.from,
 *   which undici does to a string body anyway).
 *
 * Owns measurement only; every loop is bounded in samples and time; the child is killed by pid.
 */

import { spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { subscribe, unsubscribe } from 'node:diagnostics_channel';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { Socket as NetSocket, connect, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { Configuration, OrdersApi } from 'kalshi-typescript';
import { Pool, type Dispatcher } from 'undici';
import { formatCount, formatPrice, loadPrivateKey, signRequest, systemClock, type Count, type Price } from '../../src/core/index.ts';
import {
  REST_ORDER_ENTRY_DEFAULTS,
  RestOrderEntry,
  encodeCreateOrder,
} from '../../src/exec/index.ts';
import type { ExecErrorCode, ExecListener, NewOrder } from '../../src/oms/index.ts';
import { RAW_HTTP_WRITE_CHANNEL, RAW_HTTP_WRITE_START_CHANNEL, RawHttpPool, type NetFailure, type RawExchangeHandler } from '../../src/net/index.ts';
import { UNDICI_DISPATCH_CREATE_DEFAULTS, UndiciDispatchCreate } from './undici-dispatch-create.ts';
import { consume, createHistogram, latencyRow, measureThroughput, nowNs, recordNs, throughputRow, type BenchRow, type BenchSuite } from '../harness.ts';

const SUITE = 'order-entry';
const REPO_DIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const TICKER = 'KXDEMO-26DEC31-T50';
const CREATE_PATH = '/trade-api/v2/portfolio/events/orders';
// Demo key tier "prime": 4,000 write tokens/s, create costs 10 -> 400/s sustained. 3 ms apart
// (~330/s including the round trip) stays under it so no sample is a 429.
const PACE_MS = 3;

interface SimProcess {
  child: ChildProcess;
  httpUrl: string;
  keyId: string;
  privateKeyPem: string;
  keysDir: string;
}

async function startSimProcess(): Promise<SimProcess> {
  const keysDir = mkdtempSync(path.join(tmpdir(), 'bench-sim-keys-'));
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/sim/main.ts', '--keys-dir', keysDir, '--log-level', 'error'], {
    cwd: REPO_DIR,
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const lines = createInterface({ input: child.stdout! });
  const ready = await new Promise<{ http: string; keyId: string; privateKeyPath: string }>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('order-entry bench: simulator not ready within 30 s')), 30_000);
    child.once('exit', (code) => reject(new Error(`order-entry bench: simulator exited (${code})`)));
    lines.on('line', (line) => {
      try {
        const message = JSON.parse(line) as { event?: string; http: string; keyId: string; privateKeyPath: string };
        if (message.event === 'ready') {
          clearTimeout(timer);
          resolve(message);
        }
      } catch {
        // not our line
      }
    });
  });
  return { child, httpUrl: ready.http, keyId: ready.keyId, privateKeyPem: readFileSync(ready.privateKeyPath, 'utf8'), keysDir };
}

async function stopSimProcess(sim: SimProcess): Promise<void> {
  if (sim.child.exitCode === null) {
    const exited = new Promise<void>((resolve) => sim.child.once('exit', () => resolve()));
    sim.child.kill('SIGTERM');
    await Promise.race([exited, new Promise((resolve) => setTimeout(resolve, 5_000))]);
  }
  rmSync(sim.keysDir, { recursive: true, force: true });
}

function iocOrder(clientOrderId: string): NewOrder {
  return {
    clientOrderId, ticker: TICKER, side: 'bid', price: 100 as Price, count: 100 as Count,
    timeInForce: 'immediate_or_cancel', postOnly: false, reduceOnly: false, selfTradePrevention: 'taker_at_cross',
    subaccount: 0, orderGroupId: null, expirationTs: 0,
  };
}

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Resolves the pending sample on the first outcome; counts anything but an ack. */
class SampleListener implements ExecListener {
  resolve: (() => void) | null = null;
  failures = 0;
  lastFailure = '';
  lastOrderId = ''; // of the last create ack
  #done(): void {
    const resolve = this.resolve;
    this.resolve = null;
    resolve?.();
  }
  #fail(what: string): void {
    this.failures++;
    this.lastFailure = what;
    this.#done();
  }
  onCreateAck(_id: string, orderId: string): void {
    this.lastOrderId = orderId;
    this.#done();
  }
  onCreateReject(_id: string, reject: { status: number; code: string }): void { this.#fail(`${reject.status} ${reject.code}`); }
  onCreateUnknown(_id: string, code: string): void { this.#fail(code); }
  onCancelAck(): void {}
  onCancelReject(): void {}
  onCancelUnknown(): void {}
  onAmendAck(): void { this.#done(); }
  onAmendReject(_id: string, reject: { status: number; code: string }): void { this.#fail(`amend ${reject.status} ${reject.code}`); }
  onAmendUnknown(_id: string, code: string): void { this.#fail(`amend ${code}`); }
  onDecreaseAck(): void {}
  onDecreaseReject(): void {}
}

interface Budget {
  samples: number;
  warmup: number;
  deadlineMs: number; // whole interleaved run
}

/**
 * One way of sending a create. Cases run interleaved, one order each in turn, so drift of the
 * machine or of the simulator's JIT during the run hits every case alike.
 */
interface Case {
  name: string;
  once(record: boolean): Promise<void>;
  rows(): BenchRow[];
  close(): Promise<void>;
}

async function runInterleaved(cases: readonly Case[], budget: Budget): Promise<void> {
  const deadline = Date.now() + budget.deadlineMs;
  for (let i = 0; i < budget.warmup + budget.samples && Date.now() < deadline; i++) {
    for (let c = 0; c < cases.length; c++) {
      await cases[(i + c) % cases.length]!.once(i >= budget.warmup); // rotate who goes first
      await pause(PACE_MS);
    }
  }
}

async function oursCase(sim: SimProcess, signing: 'presigned' | 'inline', refill: 'idle' | 'take' = 'idle'): Promise<Case> {
  const entry = new RestOrderEntry({
    ...REST_ORDER_ENTRY_DEFAULTS, baseUrl: sim.httpUrl, keyId: sim.keyId, privateKey: loadPrivateKey(sim.privateKeyPem),
    clock: systemClock, connections: 2, signing, presign: { ...REST_ORDER_ENTRY_DEFAULTS.presign, refill },
  });
  const signingLabel = signing === 'inline' ? 'inline' : refill === 'idle' ? 'presigned' : 'presigned, refill on take';
  const label = `${signingLabel}, raw`;
  const listener = new SampleListener();
  entry.setListener(listener);
  await entry.connect();
  const roundTrip = createHistogram();
  const callOnly = createHistogram();
  const toWrite = createHistogram();
  const toWritten = createHistogram();
  let writeAt = 0;
  let writtenAt = 0;
  let watching = false;
  // Subscribed for the whole run: toggling a diagnostics channel per sample changes its prototype
  // and deoptimises its hasSubscribers checks.
  const onSend = (): void => { if (watching) writeAt = nowNs(); };
  const onWritten = (): void => { if (watching) writtenAt = nowNs(); };
  const measureWrite = signing === 'presigned' && refill === 'idle';
  if (measureWrite) {
    subscribe(RAW_HTTP_WRITE_START_CHANNEL, onSend);
    subscribe(RAW_HTTP_WRITE_CHANNEL, onWritten);
  }
  return {
    name: `ours create->ack (${label})`,
    async once(record) {
      const order = iocOrder(randomUUID());
      const done = new Promise<void>((resolve) => { listener.resolve = resolve; });
      writeAt = 0;
      writtenAt = 0;
      watching = measureWrite;
      const start = nowNs();
      entry.create(order);
      const returned = nowNs();
      await done;
      const end = nowNs();
      watching = false;
      if (!record) return;
      recordNs(roundTrip, end - start);
      recordNs(callOnly, returned - start);
      if (writeAt > start) recordNs(toWrite, writeAt - start);
      if (writtenAt > start) recordNs(toWritten, writtenAt - start);
    },
    rows() {
      const raw = entry.rawStats;
      const note = `failures=${listener.failures}${listener.failures > 0 ? ` (${listener.lastFailure})` : ''} presigned=${entry.stats.presigned} inline=${entry.stats.inlineSigned} fallbacks=${entry.stats.presignFallbacks} queued=${entry.stats.queued}` +
        ` raw: connects=${raw.connects} timeouts=${raw.timeouts} disconnects=${raw.disconnects}`;
      const rows = [
        latencyRow(SUITE, `ours create->ack (${label})`, false, roundTrip, { compareTo: measureWrite ? UNDICI_ACK : 'kalshi-typescript createOrderV2', note }),
        latencyRow(SUITE, `ours create() call (${label})`, false, callOnly, {
          compareTo: measureWrite ? UNDICI_CALL : 'undici pool.dispatch() call',
          note: 'encode + sign or take + assemble + socket.write, until create() returns',
        }),
      ];
      if (measureWrite) {
        rows.push(latencyRow(SUITE, `ours create()->socket write start (${label})`, false, toWrite, {
          compareTo: UNDICI_WRITE, note: 'raw: just before the one socket.write inside create()',
        }));
        rows.push(latencyRow(SUITE, `ours create()->socket write returned (${label})`, false, toWritten, {
          note: 'bytes in the kernel; loopback: includes delivery to the simulator',
        }));
      }
      return rows;
    },
    close: () => {
      if (measureWrite) {
        unsubscribe(RAW_HTTP_WRITE_START_CHANNEL, onSend);
        unsubscribe(RAW_HTTP_WRITE_CHANNEL, onWritten);
      }
      return entry.close();
    },
  };
}

const UNDICI_ACK = 'undici Pool.dispatch create->ack (presigned)';
const UNDICI_CALL = 'undici Pool.dispatch create() call (presigned)';
const UNDICI_WRITE = 'undici Pool.dispatch create()->socket write start (presigned)';

/**
 * The baseline beside ours: a create through an undici Pool.dispatch (undici-dispatch-create.ts),
 * same body, presigned, same pacing; the write start is undici's sendHeaders event.
 */
async function undiciCreateCase(sim: SimProcess): Promise<Case> {
  const listener = new SampleListener();
  const baseline = await UndiciDispatchCreate.open({
    ...UNDICI_DISPATCH_CREATE_DEFAULTS, baseUrl: `${sim.httpUrl}/trade-api/v2`, keyId: sim.keyId, privateKey: loadPrivateKey(sim.privateKeyPem),
    clock: systemClock, connections: 2, signing: 'presigned',
  }, listener);
  const roundTrip = createHistogram();
  const callOnly = createHistogram();
  const toWrite = createHistogram();
  let writeAt = 0;
  let watching = false;
  // Subscribed for the whole run (see oursCase).
  const onSend = (message: unknown): void => {
    if (watching && writeAt === 0 && (message as { request: { method: string } }).request.method === 'POST') writeAt = nowNs();
  };
  subscribe('undici:client:sendHeaders', onSend);
  return {
    name: UNDICI_ACK,
    async once(record) {
      const order = iocOrder(randomUUID());
      const done = new Promise<void>((resolve) => { listener.resolve = resolve; });
      writeAt = 0;
      watching = true;
      const start = nowNs();
      baseline.create(order);
      const returned = nowNs();
      await done;
      const end = nowNs();
      watching = false;
      if (!record) return;
      recordNs(roundTrip, end - start);
      recordNs(callOnly, returned - start);
      if (writeAt > start) recordNs(toWrite, writeAt - start);
    },
    rows() {
      const stats = baseline.stats;
      const note = `failures=${listener.failures}${listener.failures > 0 ? ` (${listener.lastFailure})` : ''} presigned=${stats.presigned} inline=${stats.inlineSigned} queued=${stats.queued}`;
      return [
        latencyRow(SUITE, UNDICI_ACK, true, roundTrip, { note }),
        latencyRow(SUITE, UNDICI_CALL, true, callOnly, { note: 'encode + take + dispatch, until create() returns' }),
        latencyRow(SUITE, UNDICI_WRITE, true, toWrite, { note: 'undici sendHeaders event, just before its write: one setImmediate hop on a reused socket' }),
      ];
    },
    close: () => {
      unsubscribe('undici:client:sendHeaders', onSend);
      return baseline.close();
    },
  };
}

/**
 * Amend of one resting order (made here, before the samples). The amend
 * path's signature comes from the presigner's worker: made after the create ack, and again after
 * each amend once nothing is in flight (refill 'idle'); a miss is signed inline and shown in the note.
 */
async function amendCase(sim: SimProcess): Promise<Case> {
  const entry = new RestOrderEntry({
    ...REST_ORDER_ENTRY_DEFAULTS, baseUrl: sim.httpUrl, keyId: sim.keyId, privateKey: loadPrivateKey(sim.privateKeyPem),
    clock: systemClock, connections: 2, signing: 'presigned',
  });
  const listener = new SampleListener();
  entry.setListener(listener);
  await entry.connect();
  const created = new Promise<void>((resolve) => { listener.resolve = resolve; });
  entry.create({ ...iocOrder(randomUUID()), timeInForce: 'good_till_canceled', postOnly: true });
  await created;
  if (listener.failures > 0) throw new Error(`order-entry bench: resting order for the amend case refused (${listener.lastFailure})`);
  const orderId = listener.lastOrderId;
  let price = 100;
  const roundTrip = createHistogram();
  const callOnly = createHistogram();
  const toWrite = createHistogram();
  let writeAt = 0;
  let watching = false;
  const onSend = (): void => { if (watching) writeAt = nowNs(); }; // subscribed for the whole run (see oursCase)
  subscribe(RAW_HTTP_WRITE_START_CHANNEL, onSend);
  return {
    name: 'ours amend->ack (presigned, raw)',
    async once(record) {
      price = price === 100 ? 200 : 100;
      const done = new Promise<void>((resolve) => { listener.resolve = resolve; });
      writeAt = 0;
      watching = true;
      const start = nowNs();
      entry.amend(orderId, TICKER, 'bid', price as Price, 100 as Count, 0);
      const returned = nowNs();
      await done;
      const end = nowNs();
      watching = false;
      if (!record) return;
      recordNs(roundTrip, end - start);
      recordNs(callOnly, returned - start);
      if (writeAt > start) recordNs(toWrite, writeAt - start);
    },
    rows() {
      const paths = entry.orderPathStats;
      const note = `failures=${listener.failures}${listener.failures > 0 ? ` (${listener.lastFailure})` : ''} per-order signatures taken=${paths?.taken ?? 0} missed=${paths?.missed ?? 0}` +
        ` inline=${entry.stats.inlineSigned} worker-signed=${entry.stats.workerSigned} queued=${entry.stats.queued}`;
      return [
        latencyRow(SUITE, 'ours amend->ack (presigned, raw)', false, roundTrip, { note }),
        latencyRow(SUITE, 'ours amend() call (presigned, raw)', false, callOnly, { note: 'encode + take + assemble + socket.write, until amend() returns' }),
        latencyRow(SUITE, 'ours amend()->socket write start (presigned, raw)', false, toWrite, { note: 'raw: just before the one socket.write inside amend()' }),
      ];
    },
    close: () => {
      unsubscribe(RAW_HTTP_WRITE_START_CHANNEL, onSend);
      return entry.close();
    },
  };
}

/** Same signed bytes through the raw client alone: RawHttpPool.send with a reused handler. */
async function rawPoolCase(sim: SimProcess): Promise<Case> {
  const privateKey = loadPrivateKey(sim.privateKeyPem);
  const pool = new RawHttpPool({
    origin: new URL(sim.httpUrl).origin, keyId: sim.keyId, connections: 1, queueMax: 4, connectTimeoutMs: 2_000,
    headersTimeoutMs: 2_000, bodyTimeoutMs: 2_000, idleLifetimeMs: 60_000, keepAliveMarginMs: 1_000,
    reconnectMinMs: 50, reconnectMaxMs: 2_000, tickMs: 10, tls: null,
  });
  await pool.connect();
  const tick = setInterval(() => pool.tick(), 10);
  tick.unref();
  const head = pool.head('POST', CREATE_PATH, true);
  let resolveDone: ((status: number) => void) | null = null;
  const handler: RawExchangeHandler = {
    onRawResponse(status: number, body: Buffer, bodyLength: number): void { consume(body[bodyLength - 1]); resolveDone?.(status); },
    onRawFailure(_failure: NetFailure): void { resolveDone?.(0); },
  };
  const histogram = createHistogram();
  const callOnly = createHistogram();
  let failures = 0;
  return {
    name: 'raw RawHttpPool.send (reused handler)',
    async once(record) {
      const body = encodeCreateOrder(iocOrder(randomUUID()));
      const timestampMs = Date.now();
      const signature = signRequest(privateKey, timestampMs, 'POST', CREATE_PATH); // off the clock: transport only
      const timestampText = String(timestampMs);
      const done = new Promise<number>((resolve) => { resolveDone = resolve; });
      const start = nowNs();
      pool.send(handler, head, timestampText, signature, body);
      if (record) recordNs(callOnly, nowNs() - start);
      const status = await done;
      if (record) recordNs(histogram, nowNs() - start);
      if (status !== 201) failures++;
    },
    rows: () => [
      latencyRow(SUITE, 'raw RawHttpPool.send (reused handler)', false, histogram, { compareTo: 'undici pool.dispatch (prealloc handler)', note: `signed off the clock; non-201=${failures}` }),
      latencyRow(SUITE, 'raw RawHttpPool.send() call', false, callOnly, { compareTo: 'undici pool.dispatch() call', note: 'same bytes prepared, until send() returns: the write is inside' }),
    ],
    close: async () => {
      clearInterval(tick);
      pool.close();
    },
  };
}

/** Same signed bytes through pool.dispatch (preallocated handler) or pool.request. */
async function undiciCase(sim: SimProcess, api: 'dispatch' | 'request'): Promise<Case> {
  const privateKey = loadPrivateKey(sim.privateKeyPem);
  const pool = new Pool(new URL(sim.httpUrl).origin, { connections: 1, pipelining: 1, headersTimeout: 2_000, bodyTimeout: 2_000, keepAliveTimeout: 60_000 });
  const signedHeaders = (): string[] => {
    const timestampMs = Date.now();
    return ['content-type', 'application/json', 'kalshi-access-key', sim.keyId, 'kalshi-access-timestamp', String(timestampMs),
      'kalshi-access-signature', signRequest(privateKey, timestampMs, 'POST', CREATE_PATH)];
  };
  let resolveDone: ((status: number) => void) | null = null;
  const handler = {
    status: 0,
    onConnect(): void {},
    onHeaders(status: number): boolean { this.status = status; return true; },
    onData(chunk: Buffer): boolean { consume(chunk); return true; },
    onComplete(): void { resolveDone?.(this.status); },
    onError(): void { resolveDone?.(0); },
  };
  const options: Dispatcher.DispatchOptions = { method: 'POST', path: CREATE_PATH, body: '', headers: [] };
  const histogram = createHistogram();
  const callOnly = createHistogram();
  let failures = 0;
  const name = api === 'dispatch' ? 'undici pool.dispatch (prealloc handler)' : 'undici pool.request';
  return {
    name,
    async once(record) {
      const body = encodeCreateOrder(iocOrder(randomUUID()));
      const headers = signedHeaders(); // signed before the clock starts: transport only
      let status: number;
      const start = nowNs();
      if (api === 'dispatch') {
        options.body = body;
        options.headers = headers;
        const done = new Promise<number>((resolve) => { resolveDone = resolve; });
        pool.dispatch(options, handler);
        if (record) recordNs(callOnly, nowNs() - start);
        status = await done;
      } else {
        const response = await pool.request({ method: 'POST', path: CREATE_PATH, body, headers });
        consume(await response.body.text());
        status = response.statusCode;
      }
      const end = nowNs();
      if (status !== 201) failures++;
      if (record) recordNs(histogram, end - start);
    },
    rows: () => {
      const rows = [latencyRow(SUITE, name, api === 'request', histogram, {
        ...(api === 'dispatch' ? { compareTo: 'undici pool.request' } : {}), note: `signed off the clock; non-201=${failures}`,
      })];
      if (api === 'dispatch') rows.push(latencyRow(SUITE, 'undici pool.dispatch() call', true, callOnly, { note: 'same bytes prepared, until dispatch() returns' }));
      return rows;
    },
    close: () => pool.destroy(),
  };
}

/**
 * The official client's submission point: the first net.Socket write after createOrderV2 is called
 * (axios over node:http writes the request through it). The prototype is wrapped while this case
 * exists; cases run one at a time, and only writes while `armed` count.
 */
const officialWrite = { armed: false, firstNs: 0 };

function officialCase(sim: SimProcess): Case {
  const api = new OrdersApi(new Configuration({ apiKey: sim.keyId, privateKeyPem: sim.privateKeyPem, basePath: `${sim.httpUrl}/trade-api/v2` }));
  const histogram = createHistogram();
  const toWrite = createHistogram();
  let failures = 0;
  let lastFailure = '';
  const socketWrite = NetSocket.prototype.write;
  NetSocket.prototype.write = function write(this: NetSocket, ...args: unknown[]): boolean {
    if (officialWrite.armed && officialWrite.firstNs === 0) officialWrite.firstNs = nowNs();
    return (socketWrite as (...a: unknown[]) => boolean).apply(this, args);
  } as typeof NetSocket.prototype.write;
  return {
    name: 'kalshi-typescript createOrderV2',
    async once(record) {
      officialWrite.firstNs = 0;
      officialWrite.armed = true;
      const start = nowNs();
      try {
        const response = await api.createOrderV2({
          ticker: TICKER, client_order_id: randomUUID(), side: 'bid', count: '1.00', price: '0.0100',
          time_in_force: 'immediate_or_cancel', self_trade_prevention_type: 'taker_at_cross',
        });
        consume(response.data);
      } catch (error) {
        failures++;
        lastFailure = (error as Error).message;
      }
      officialWrite.armed = false;
      if (record) {
        recordNs(histogram, nowNs() - start);
        if (officialWrite.firstNs > 0) recordNs(toWrite, officialWrite.firstNs - start);
      }
    },
    rows: () => [
      latencyRow(SUITE, 'kalshi-typescript createOrderV2', true, histogram, {
        note: `axios, inline signing (PEM per call); failures=${failures}${failures > 0 ? ` (${lastFailure})` : ''}`,
      }),
      latencyRow(SUITE, 'kalshi-typescript createOrderV2() -> socket write start', true, toWrite, {
        note: 'first net.Socket write after the call: signing, axios and node:http before the bytes go out',
      }),
    ],
    close: async () => {
      NetSocket.prototype.write = socketWrite;
    },
  };
}

/** The floor: the same request bytes on a raw keep-alive socket, response read by content-length. */
async function rawSocketCase(sim: SimProcess): Promise<Case> {
  const privateKey = loadPrivateKey(sim.privateKeyPem);
  const url = new URL(sim.httpUrl);
  const socket: Socket = connect({ host: url.hostname, port: Number(url.port), noDelay: true });
  await new Promise<void>((resolve, reject) => { socket.once('connect', resolve); socket.once('error', reject); });
  let buffered: Buffer = Buffer.alloc(0);
  let resolveResponse: ((status: number) => void) | null = null;
  socket.on('data', (chunk: Buffer) => {
    buffered = buffered.length === 0 ? chunk : Buffer.concat([buffered, chunk]);
    const headerEnd = buffered.indexOf('\r\n\r\n');
    if (headerEnd === -1) return;
    const head = buffered.subarray(0, headerEnd).toString('latin1');
    const length = Number(/content-length:\s*(\d+)/i.exec(head)?.[1] ?? '0');
    if (buffered.length < headerEnd + 4 + length) return;
    buffered = buffered.subarray(headerEnd + 4 + length);
    resolveResponse?.(Number(head.slice(9, 12)));
  });
  const histogram = createHistogram();
  let failures = 0;
  return {
    name: 'floor: raw net.Socket, same bytes',
    async once(record) {
      const body = encodeCreateOrder(iocOrder(randomUUID()));
      const timestampMs = Date.now();
      const signature = signRequest(privateKey, timestampMs, 'POST', CREATE_PATH);
      const request = `POST ${CREATE_PATH} HTTP/1.1\r\nhost: ${url.host}\r\nconnection: keep-alive\r\ncontent-type: application/json\r\n` +
        `kalshi-access-key: ${sim.keyId}\r\nkalshi-access-timestamp: ${timestampMs}\r\nkalshi-access-signature: ${signature}\r\n` +
        `content-length: ${Buffer.byteLength(body)}\r\n\r\n${body}`;
      const done = new Promise<number>((resolve) => { resolveResponse = resolve; });
      const start = nowNs();
      socket.write(request);
      const status = await done;
      if (record) recordNs(histogram, nowNs() - start);
      if (status !== 201) failures++;
    },
    rows: () => [latencyRow(SUITE, 'floor: raw net.Socket, same bytes', true, histogram, { note: `signed off the clock; non-201=${failures}` })],
    close: async () => { socket.destroy(); },
  };
}

/** CPU only: the hand-written create body vs JSON.stringify of the same object. */
function encodingRows(quick: boolean): BenchRow[] {
  const order = iocOrder('3f0d5c9e-8a61-4c1e-9a0b-2f4d7e6c1b11');
  const options = { opsPerCall: 1, roundMs: quick ? 100 : 500, rounds: quick ? 3 : 7, warmupMs: quick ? 100 : 500, maxCallsPerRound: 20_000_000 };
  const ours = measureThroughput(() => consume(Buffer.from(encodeCreateOrder(order))), options);
  const naive = measureThroughput(() => consume(Buffer.from(JSON.stringify({
    ticker: order.ticker, client_order_id: order.clientOrderId, side: order.side, count: formatCount(order.count),
    price: formatPrice(order.price), time_in_force: order.timeInForce, self_trade_prevention_type: order.selfTradePrevention,
  }))), options);
  return [
    throughputRow(SUITE, 'encode create body (template) + Buffer', false, ours, { compareTo: 'encode create body (JSON.stringify) + Buffer' }),
    throughputRow(SUITE, 'encode create body (JSON.stringify) + Buffer', true, naive),
  ];
}

const suite: BenchSuite = {
  name: SUITE,
  async run({ quick }) {
    const budget: Budget = { samples: quick ? 150 : 2_000, warmup: quick ? 30 : 200, deadlineMs: quick ? 20_000 : 180_000 };
    const rows: BenchRow[] = encodingRows(quick);
    const sim = await startSimProcess();
    const cases: Case[] = [];
    try {
      cases.push(await oursCase(sim, 'presigned'), await undiciCreateCase(sim));
      cases.push(await oursCase(sim, 'presigned', 'take'), await oursCase(sim, 'inline'));
      cases.push(await amendCase(sim));
      cases.push(await rawPoolCase(sim), await undiciCase(sim, 'dispatch'), await undiciCase(sim, 'request'));
      cases.push(officialCase(sim), await rawSocketCase(sim));
      await runInterleaved(cases, budget);
      for (const one of cases) rows.push(...one.rows());
    } finally {
      for (const one of cases) await one.close();
      await stopSimProcess(sim);
    }
    return rows;
  },
};

export default suite;
