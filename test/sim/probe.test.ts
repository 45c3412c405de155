// Goal: the simulator's wire-to-wire probe (src/sim/server/probe.ts). With `probe: true` an order
// (create, batch create, batch cancel) on a market yields one sample per distinct market: its
// arrival time minus the send time of the last orderbook_delta on that market; orders on markets
// with no delta sent, and batch-cancel items without a market, are counted, not sampled; the
// summary is the same in process (`sim.probe`) and over HTTP (GET /_sim/probe, POST
// /_sim/probe/reset); with the probe off `sim.probe` is null and the paths are 404; `--probe`
// switches it on in the process. Method: in-process simulators on 127.0.0.1 port 0; a signed
// undici WebSocket client subscribed to orderbook_delta and signed REST clients over real sockets.
// The in-process simulator shares this process's monotonic clock (telemetry nowNs), so each
// sample is checked against bounds that follow from causality alone (a delta is sent before the
// client sees it; an order arrives after the client sends it), never against a speed. The rule
// for a delta sent between a request's headers and its body is checked on WireProbe directly.
// A last case spawns `src/sim/main.ts --probe` and reads GET /_sim/probe.

import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { ProbeSummary } from '../../src/sim/index.ts';
import { WireProbe } from '../../src/sim/server/probe.ts';
import { nowNs } from '../../src/telemetry/index.ts';
import { RestClient, WsClient } from './helpers/clients.ts';
import { MARKET, MARKET_2, order, startTestSim } from './helpers/test-sim.ts';

type TestSim = Awaited<ReturnType<typeof startTestSim>>;

const OTHER_USER = 'b7d1c2e3-0000-4000-8000-0000000000bb';
const sims: TestSim[] = [];
const clients: WsClient[] = [];

async function sleep(ms: number): Promise<void> {
  await new Promise((done) => setTimeout(done, ms));
}

async function probeOverHttp(sim: TestSim, method: 'GET' | 'POST' | 'DELETE', path: string): Promise<{ status: number; body: any }> {
  const response = await fetch(`${sim.httpUrl}${path}`, { method });
  const text = await response.text();
  return { status: response.status, body: text === '' ? null : JSON.parse(text) };
}

afterEach(() => {
  for (const client of clients.splice(0)) client.close();
});
afterAll(async () => {
  for (const sim of sims.splice(0)) await sim.close();
});

describe('probe on', () => {
  let sim: TestSim;
  let demo: RestClient;
  let other: RestClient;
  let ws: WsClient;

  /**
   * Makes a resting order of another user on `ticker` and waits until the client saw its delta;
   * returns [before trigger, after receipt]. That order is probed too: callers reset after it.
   */
  async function deltaSeen(ticker: string, price: string): Promise<[number, number]> {
    const seen = ws.messages.length;
    const before = nowNs();
    const placed = await other.post('/portfolio/events/orders', order({ ticker, price, count: '3' }));
    expect(placed.status).toBe(201);
    await ws.waitFor((m) => ws.messages.indexOf(m) >= seen && m.type === 'orderbook_delta' && m.msg.market_ticker === ticker);
    return [before, nowNs()];
  }

  beforeAll(async () => {
    sim = await startTestSim({ probe: true });
    sims.push(sim);
    demo = new RestClient(sim.httpUrl, sim.demoKey);
    other = new RestClient(sim.httpUrl, sim.createApiKey({ scopes: ['read', 'write'], tier: 'prime', userId: OTHER_USER }));
    ws = await WsClient.open(sim.wsUrl, sim.demoKey);
    await ws.subscribe({ channels: ['orderbook_delta'], market_tickers: [MARKET] });
    await ws.waitFor((m) => m.type === 'orderbook_snapshot');
  });

  it('an order before any delta on its market is counted, not sampled', async () => {
    expect(sim.probe).not.toBeNull();
    const before = sim.probe!.summary();
    const result = await demo.post('/portfolio/events/orders', order({ ticker: MARKET_2, price: '0.10' }));
    expect(result.status).toBe(201);
    const after = sim.probe!.summary();
    expect(after.count).toBe(before.count);
    expect(after.ordersWithoutDelta).toBe(before.ordersWithoutDelta + 1);
  });

  it('a create after a delta gives one sample bounded by what the client saw and did', async () => {
    const [triggerNs, seenNs] = await deltaSeen(MARKET, '0.20');
    sim.probe!.reset(); // the other user's order that made the delta is an order too
    await sleep(20); // the client's think time: the sample must include it
    const sendNs = nowNs();
    const result = await demo.post('/portfolio/events/orders', order({ ticker: MARKET, price: '0.11', time_in_force: 'immediate_or_cancel' }));
    const answeredNs = nowNs();
    expect(result.status).toBe(201);
    const summary = sim.probe!.summary();
    expect(summary.count).toBe(1);
    // sent <= seen (the client saw the frame) and arrival >= send (the client wrote the request).
    // HDR keeps 3 significant digits: allow 0.1 % either way.
    expect(summary.maxNs).toBeGreaterThanOrEqual((sendNs - seenNs) * 0.999);
    expect(summary.maxNs).toBeLessThanOrEqual((answeredNs - triggerNs) * 1.001);
    expect(summary.p50Ns).toBe(summary.p99Ns);
  });

  it('a batch create samples each market once; markets without a delta are counted', async () => {
    await deltaSeen(MARKET, '0.21');
    sim.probe!.reset();
    const batch = await demo.post('/portfolio/events/orders/batched', {
      orders: [order({ ticker: MARKET, price: '0.12' }), order({ ticker: MARKET, price: '0.13' }), order({ ticker: 'KXNOSUCH-00', price: '0.14' })],
    });
    expect(batch.status).toBe(201);
    const summary = sim.probe!.summary();
    expect(summary.count).toBe(1);
    expect(summary.ordersWithoutDelta).toBe(1);
  });

  it('a batch cancel samples items naming market_ticker and counts the others', async () => {
    const created = await demo.post('/portfolio/events/orders/batched', {
      orders: [order({ ticker: MARKET, price: '0.14' }), order({ ticker: MARKET, price: '0.15' })],
    });
    expect(created.status).toBe(201);
    const ids: string[] = created.body.orders.map((entry: any) => entry.order_id);
    expect(ids).toHaveLength(2);
    await deltaSeen(MARKET, '0.22');
    sim.probe!.reset();
    const cancel = await demo.delete('/portfolio/events/orders/batched', {
      orders: [{ order_id: ids[0], market_ticker: MARKET }, { order_id: ids[1] }],
    });
    expect(cancel.status).toBe(200);
    const summary = sim.probe!.summary();
    expect(summary.count).toBe(1);
    expect(summary.ordersWithoutTicker).toBe(1);
  });

  it('cancel by id, amend and reads are not probed', async () => {
    const created = await demo.post('/portfolio/events/orders', order({ ticker: MARKET, price: '0.16' }));
    sim.probe!.reset();
    expect((await demo.delete(`/portfolio/events/orders/${created.body.order_id}`)).status).toBe(200);
    expect((await demo.get(`/markets/${MARKET}`)).status).toBe(200);
    const summary = sim.probe!.summary();
    expect(summary.count + summary.ordersWithoutDelta + summary.ordersWithoutTicker).toBe(0);
  });

  it('an order that fails authentication gives no sample', async () => {
    sim.probe!.reset();
    const unsigned = new RestClient(sim.httpUrl, null);
    expect((await unsigned.post('/portfolio/events/orders', order({ ticker: MARKET }))).status).toBe(401);
    expect(sim.probe!.summary().count).toBe(0);
  });

  it('GET /_sim/probe answers the in-process summary; POST /_sim/probe/reset answers it and clears it', async () => {
    await deltaSeen(MARKET, '0.23');
    sim.probe!.reset();
    expect((await demo.post('/portfolio/events/orders', order({ ticker: MARKET, price: '0.17', time_in_force: 'immediate_or_cancel' }))).status).toBe(201);
    const inProcess: ProbeSummary = sim.probe!.summary();
    expect(inProcess.count).toBe(1);
    const read = await probeOverHttp(sim, 'GET', '/_sim/probe');
    expect(read.status).toBe(200);
    expect(read.body).toEqual(inProcess);
    expect(Object.keys(read.body).sort()).toEqual(
      ['count', 'deltaBatches', 'maxNs', 'meanNs', 'minNs', 'ordersWithoutDelta', 'ordersWithoutTicker', 'p50Ns', 'p999Ns', 'p99Ns'].sort(),
    );
    const reset = await probeOverHttp(sim, 'POST', '/_sim/probe/reset');
    expect(reset.status).toBe(200);
    expect(reset.body).toEqual(inProcess);
    const cleared = await probeOverHttp(sim, 'GET', '/_sim/probe');
    expect(cleared.body).toMatchObject({ count: 0, p50Ns: 0, maxNs: 0, ordersWithoutDelta: 0, ordersWithoutTicker: 0, deltaBatches: 0 });
    // The last send time per market survives a reset: the next order is still sampled.
    expect((await demo.post('/portfolio/events/orders', order({ ticker: MARKET, price: '0.18', time_in_force: 'immediate_or_cancel' }))).status).toBe(201);
    expect(sim.probe!.summary().count).toBe(1);
  });

  it('wrong methods and unknown simulator paths are 405 and 404', async () => {
    expect((await probeOverHttp(sim, 'DELETE', '/_sim/probe')).status).toBe(405);
    expect((await probeOverHttp(sim, 'GET', '/_sim/probe/reset')).status).toBe(405);
    const unknown = await probeOverHttp(sim, 'GET', '/_sim/nothing');
    expect(unknown.status).toBe(404);
    expect(unknown.body.error.code).toBe('not_found');
  });
});

describe('probe off', () => {
  it('sim.probe is null, /_sim/probe is 404 and order entry is unaffected', async () => {
    const sim = await startTestSim();
    sims.push(sim);
    expect(sim.probe).toBeNull();
    const read = await probeOverHttp(sim, 'GET', '/_sim/probe');
    expect(read.status).toBe(404);
    expect(read.body.error).toMatchObject({ code: 'not_found' });
    expect(read.body.error.message).toContain('--probe');
    expect((await probeOverHttp(sim, 'POST', '/_sim/probe/reset')).status).toBe(404);
    const demo = new RestClient(sim.httpUrl, sim.demoKey);
    expect((await demo.post('/portfolio/events/orders', order({ ticker: MARKET, price: '0.10' }))).status).toBe(201);
  });
});

describe('WireProbe rules', () => {
  /** Spins until the clock has moved past `ns` (bounded: the clock is monotonic and advancing). */
  function passClock(ns: number): void {
    for (let i = 0; i < 10_000_000 && nowNs() <= ns; i++);
  }

  it('a delta flushed after the request arrived is passed over for the one before it', () => {
    const probe = new WireProbe();
    const beforeAnyNs = nowNs();
    passClock(beforeAnyNs);
    probe.noteDelta(MARKET);
    probe.markFlushed();
    const receivedNs = nowNs(); // headers arrive after the first batch ...
    passClock(receivedNs);
    probe.noteDelta(MARKET);
    probe.markFlushed(); // ... and a second batch goes out before the body is decoded
    probe.noteOrder({ ticker: MARKET }, receivedNs);
    let summary = probe.summary();
    expect(summary.count).toBe(1); // measured from the first batch
    expect(summary.ordersWithoutDelta).toBe(0);
    expect(summary.deltaBatches).toBe(2);
    // A request that arrived before both batches has no delta to be measured from.
    probe.noteOrder({ ticker: MARKET }, beforeAnyNs);
    summary = probe.summary();
    expect(summary.count).toBe(1);
    expect(summary.ordersWithoutDelta).toBe(1);
  });

  it('many markets grow the tables; a flush with nothing noted is not a batch', () => {
    const probe = new WireProbe();
    probe.markFlushed();
    for (let i = 0; i < 3000; i++) probe.noteDelta(`M-${i}`);
    probe.markFlushed();
    const receivedNs = nowNs() + 1;
    probe.noteOrder({ orders: [{ ticker: 'M-0' }, { ticker: 'M-2999' }, { ticker: 'M-2999' }, null, { market_ticker: 'M-5' }] }, receivedNs);
    probe.noteOrder('not an object', receivedNs);
    probe.noteOrder({ orders: [{}] }, receivedNs);
    const summary = probe.summary();
    expect(summary.deltaBatches).toBe(1);
    expect(summary.count).toBe(3);
    expect(summary.ordersWithoutTicker).toBe(1);
  });
});

describe('the --probe flag', () => {
  const ROOT = resolve(import.meta.dirname, '../..');
  const keysDir = mkdtempSync(join(tmpdir(), 'sim-probe-cli-keys-'));
  let child: ChildProcess | null = null;
  afterAll(() => {
    if (child !== null && child.exitCode === null) child.kill('SIGKILL');
    rmSync(keysDir, { recursive: true, force: true });
  });

  it('npm run sim -- --probe serves GET /_sim/probe', async () => {
    child = spawn(process.execPath, ['--import', 'tsx', 'src/sim/main.ts', '--port', '0', '--probe', '--keys-dir', keysDir, '--log-level', 'warn'], {
      cwd: ROOT,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const running = child;
    let stderr = '';
    running.stderr!.on('data', (chunk) => (stderr += chunk));
    const ready = await new Promise<{ http: string }>((done, fail) => {
      let stdout = '';
      const timer = setTimeout(() => fail(new Error(`no ready line; stderr: ${stderr}`)), 20_000);
      running.stdout!.on('data', (chunk) => {
        stdout += chunk;
        const newline = stdout.indexOf('\n');
        if (newline < 0) return;
        clearTimeout(timer);
        done(JSON.parse(stdout.slice(0, newline)));
      });
      running.on('exit', (code) => {
        clearTimeout(timer);
        fail(new Error(`exited ${code}; stderr: ${stderr}`));
      });
    });
    const response = await fetch(`${ready.http}/_sim/probe`);
    expect(response.status).toBe(200);
    expect(await response.json()).toMatchObject({ count: 0, ordersWithoutDelta: 0 });
    const exited = new Promise<number | null>((done) => running.on('exit', (code) => done(code)));
    running.kill('SIGTERM');
    expect(await exited).toBe(0);
  }, 30_000);
});
