/**
 * Goal: the dashboard server is bounded and hostile input gets a clear answer without disturbing
 * other clients: a client past the cap is refused (503); an oversized message closes only its
 * sender (1009 or abruptly); binary, non-JSON and unknown commands get an error message and change nothing; a
 * flood of messages closes its sender (1008); a connecting client gets the PnL history and the
 * latest view, then one view per tick, with the runtime's figures (books, hops, denies), and the
 * same snapshot renders the Prometheus text the metrics serve.
 * Method: an in-process simulator and a Runtime (sample market maker) as the main job wires it,
 * OperatorSnapshots on a 50 ms timer, a DashboardServer on 127.0.0.1 port 0 with small limits,
 * undici's WebSocket as the client. Bounded waits throughout.
 */

import { join } from 'node:path';
import { WebSocket } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DashboardServer, OperatorSnapshots } from '../../src/dashboard/index.ts';
import type { OperatorView } from '../../src/dashboard/index.ts';
import { renderMetricsText } from '../../src/runtime/runtime-metrics.ts';
import type { Runtime } from '../../src/runtime/runtime.ts';
import { HOP_NAMES } from '../../src/runtime/tick-to-trade-probe.ts';
import { MARKET, createRuntime, entry, startTestSim, waitUntil } from '../integration/helpers.ts';
import type { TestSim } from '../integration/helpers.ts';
import { parsePrometheusText, sampleOf } from '../telemetry/prometheus-text.ts';

// Characters a URL must encode: the server compares the decoded value.
const TOKEN = 'a test+token%with&odd=chars/é';
const CLIENTS_MAX = 3;
let sim: TestSim;
let runtime: Runtime;
let snapshots: OperatorSnapshots;
let dashboard: DashboardServer;
let kills = 0;

interface Client {
  ws: WebSocket;
  messages: Record<string, unknown>[];
  closed: Promise<number>;
}

async function connect(): Promise<Client> {
  const ws = new WebSocket(`ws://127.0.0.1:${dashboard.port}/ws?token=${encodeURIComponent(TOKEN)}`);
  const messages: Record<string, unknown>[] = [];
  ws.addEventListener('message', (event) => messages.push(JSON.parse(String(event.data)) as Record<string, unknown>));
  const closed = new Promise<number>((resolve) => ws.addEventListener('close', (event) => resolve(event.code)));
  await new Promise<void>((resolve, reject) => {
    ws.addEventListener('open', () => resolve());
    ws.addEventListener('error', () => reject(new Error('websocket did not open')));
  });
  return { ws, messages, closed };
}

function within<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  return Promise.race([promise, new Promise<T>((_, reject) => setTimeout(() => reject(new Error(`timed out: ${what}`)), ms))]);
}

beforeAll(async () => {
  sim = await startTestSim({ activity: { updatesPerSec: 50 } });
  runtime = createRuntime(sim, {
    strategies: [entry('mm', 'strategies/market-maker.ts', { halfSpreadTicks: 2, fairValue: null }, 4)],
    journalPath: join(sim.workDir, 'journal.jsonl'),
  });
  await runtime.start();
  snapshots = new OperatorSnapshots(runtime, 50);
  dashboard = await DashboardServer.start({
    host: '127.0.0.1', port: 0, token: TOKEN, snapshots, clientsMax: CLIENTS_MAX, inboundBytesMax: 256, inboundPerTickMax: 5,
    onKill: () => {
      kills++;
    },
  });
  snapshots.start();
}, 30_000);

afterAll(async () => {
  snapshots?.stop();
  await dashboard?.stop();
  await runtime?.stop('test done');
  await sim?.close();
}, 30_000);

describe('dashboard server', () => {
  it('says hello with the history and the latest view, then pushes one view per tick with the runtime\'s figures', async () => {
    await waitUntil(() => runtime.status().ordersSent >= 2 && runtime.probe.total.count > 0, 20_000, 'orders from book updates');
    const client = await connect();
    const totalOf = (m: Record<string, unknown>): number => (m.type === 'view' ? (m.view as OperatorView).hops.find((h) => h.hop === 'total')!.count : 0);
    // Latency digests refresh at most once a second (LATENCY_REFRESH_MS), the rest every tick.
    await waitUntil(() => client.messages.length >= 4 && totalOf(client.messages.at(-1)!) > 0, 5_000, 'hello and views with timed frames');
    const [hello, ...views] = client.messages;
    expect(hello.type).toBe('hello');
    expect(hello.pushIntervalMs).toBe(50);
    expect((hello.history as unknown[]).length).toBeGreaterThan(0);
    expect(views.every((m) => m.type === 'view')).toBe(true);
    const seqs = views.map((m) => (m.view as OperatorView).seq);
    for (let i = 1; i < seqs.length; i++) expect(seqs[i]).toBeGreaterThan(seqs[i - 1]);
    const view = views.at(-1)!.view as OperatorView;
    expect(view.books.map((b) => b.ticker)).toEqual([MARKET]);
    const book = view.books[0];
    expect(book.synced).toBe(true);
    expect(book.bids.length).toBeGreaterThan(0);
    // Ladders best first; integer prices and sizes.
    for (let i = 1; i < book.bids.length; i++) expect(book.bids[i][0]).toBeLessThan(book.bids[i - 1][0]);
    for (let i = 1; i < book.asks.length; i++) expect(book.asks[i][0]).toBeGreaterThan(book.asks[i - 1][0]);
    for (const level of [...book.bids, ...book.asks]) expect(level.every((n) => Number.isSafeInteger(n))).toBe(true);
    expect(view.hops.map((h) => h.hop)).toEqual([...HOP_NAMES]);
    const total = view.hops.find((h) => h.hop === 'total')!;
    expect(total.count).toBeGreaterThan(0);
    expect(total.p50Ns).toBeLessThanOrEqual(total.p99Ns);
    expect(total.p99Ns).toBeLessThanOrEqual(total.maxNs + total.maxNs / 1000 + 1);
    expect(total.cumulative.at(-1)).toBeLessThanOrEqual(total.count);
    expect(view.feedState).toBe('open');
    expect(view.killSwitch).toBeNull();
    expect(Number.isSafeInteger(view.pnlMicro)).toBe(true);
    client.ws.close();
    await within(client.closed, 5_000, 'close');
  });

  it('renders the metrics from the same snapshot the dashboard pushes', () => {
    const view = snapshots.refresh();
    const families = parsePrometheusText(renderMetricsText(view));
    expect(sampleOf(families, 'trading_orders_sent_total').value).toBe(view.ordersSent);
    expect(sampleOf(families, 'trading_hop_latency_seconds', { hop: 'total' }, 'trading_hop_latency_seconds_count').value).toBe(view.hops.find((h) => h.hop === 'total')!.count);
    expect(sampleOf(families, 'trading_feed_state', { state: 'open' }).value).toBe(1);
  });

  it('answers binary, non-JSON and unknown commands with an error and nothing else', async () => {
    const client = await connect();
    client.ws.send(new Uint8Array([1, 2, 3]));
    client.ws.send('not json');
    client.ws.send(JSON.stringify({ type: 'cancel-everything-please' }));
    await waitUntil(() => client.messages.filter((m) => m.type === 'error').length === 3, 5_000, 'three errors');
    const errors = client.messages.filter((m) => m.type === 'error').map((m) => m.message);
    expect(errors[0]).toMatch(/JSON text/);
    expect(errors[2]).toMatch(/only command is \{"type":"kill"\}/);
    expect(kills).toBe(0);
    expect(client.ws.readyState).toBe(WebSocket.OPEN);
    client.ws.close();
    await within(client.closed, 5_000, 'close');
  });

  it('closes only the sender of an oversized message or of a flood (1008)', async () => {
    const bystander = await connect();
    const big = await connect();
    big.ws.send(JSON.stringify({ type: 'kill', padding: 'x'.repeat(1_000) }));
    // uWS closes the sender at maxPayloadLength: 1009, or an abrupt close (1006) on uWS 20.30.
    expect([1006, 1009]).toContain(await within(big.closed, 5_000, 'oversized closed'));
    const flooder = await connect();
    for (let i = 0; i < 50; i++) flooder.ws.send('{}');
    expect(await within(flooder.closed, 5_000, 'flood closed')).toBe(1008);
    expect(kills).toBe(0);
    // The bystander still gets views after both.
    const before = bystander.messages.length;
    await waitUntil(() => bystander.messages.length >= before + 2, 5_000, 'views to the bystander');
    expect(bystander.ws.readyState).toBe(WebSocket.OPEN);
    bystander.ws.close();
    await within(bystander.closed, 5_000, 'close');
  });

  it('refuses a client past the cap with 503 and takes one again when a slot frees', async () => {
    await waitUntil(() => dashboard.stats.clients === 0, 5_000, 'earlier clients gone');
    const clients = [];
    for (let i = 0; i < CLIENTS_MAX; i++) clients.push(await connect());
    const refusedBefore = dashboard.stats.refused;
    const response = await fetch(`http://127.0.0.1:${dashboard.port}/ws?token=${encodeURIComponent(TOKEN)}`, { headers: { connection: 'Upgrade', upgrade: 'websocket', 'sec-websocket-version': '13', 'sec-websocket-key': 'dGhlIHNhbXBsZSBub25jZQ==' } }).catch(() => null);
    // fetch cannot upgrade; undici's WebSocket says only "error": the server's count tells.
    await expect(connect()).rejects.toThrow(/did not open/);
    expect(dashboard.stats.refused).toBeGreaterThan(refusedBefore);
    expect(response === null || response.status !== 101).toBe(true);
    clients[0].ws.close();
    await within(clients[0].closed, 5_000, 'close');
    await waitUntil(() => dashboard.stats.clients === CLIENTS_MAX - 1, 5_000, 'a slot freed');
    const again = await connect();
    for (const client of [...clients.slice(1), again]) {
      client.ws.close();
      await within(client.closed, 5_000, 'close');
    }
  });

  it('passes a kill command to the kill path once per command and acknowledges it', async () => {
    const client = await connect();
    client.ws.send(JSON.stringify({ type: 'kill' }));
    await waitUntil(() => client.messages.some((m) => m.type === 'killAck'), 5_000, 'kill acknowledged');
    expect(kills).toBe(1);
    client.ws.close();
    await within(client.closed, 5_000, 'close');
  });
});
