/**
 * Goal: with the shared snapshot's timer running, a metrics scrape does no snapshot work: it
 * serves the text rendered at the last tick (the snapshot is not refreshed by scrapes, however
 * many), re-rendered about once a second when the dashboard's faster ticks drive it; without a
 * timer each scrape refreshes; the text server answers HEAD, refuses other methods and paths,
 * and a failing text source is a 500 reported to onError. The text is well-formed and escapes
 * label values.
 * Method: OperatorSnapshots over test/dashboard/fake-source.ts (the runtime's read surface: a real
 * TickToTradeProbe, counters the test moves), the real MetricsServer on 127.0.0.1 port 0 scraped
 * with fetch, parsed with the test text-format parser.
 */

import { afterEach, describe, expect, it } from 'vitest';
import { OperatorSnapshots } from '../../src/dashboard/index.ts';
import { metricsTextSource, startRuntimeMetrics } from '../../src/runtime/runtime-metrics.ts';
import { MetricsServer, createLogger } from '../../src/telemetry/index.ts';
import { parsePrometheusText, sampleOf } from '../telemetry/prometheus-text.ts';
import { fakeSource } from './fake-source.ts';

const silent = createLogger({ level: 'silent', pretty: false });

let server: MetricsServer | null = null;
let snapshots: OperatorSnapshots | null = null;
afterEach(async () => {
  snapshots?.stop();
  snapshots = null;
  await server?.stop();
  server = null;
});

async function scrape(url: string): Promise<string> {
  const response = await fetch(url, { signal: AbortSignal.timeout(5_000) });
  expect(response.status).toBe(200);
  expect(response.headers.get('content-type')).toBe('text/plain; version=0.0.4; charset=utf-8');
  return response.text();
}

describe('metrics from the shared snapshot', () => {
  it('serves the text rendered at the tick: scrapes never refresh the snapshot', async () => {
    const { source, state } = fakeSource();
    snapshots = new OperatorSnapshots(source, 60_000); // one tick at start, the next a minute later
    server = (await startRuntimeMetrics(source, { enabled: true, host: '127.0.0.1', port: 0 }, silent, snapshots))!;
    state.ordersSent = 3;
    snapshots.start();
    expect(snapshots.view!.seq).toBe(1);
    state.ordersSent = 7; // after the tick: not in the text until the next one
    for (let i = 0; i < 3; i++) {
      const families = parsePrometheusText(await scrape(server.url));
      expect(sampleOf(families, 'trading_orders_sent_total').value).toBe(3);
    }
    expect(snapshots.view!.seq).toBe(1);
    // Label values escaped: the parser reads back the quote, the backslash and the newline.
    const families = parsePrometheusText(await scrape(server.url));
    expect(families.get('trading_strategies')!.samples.map((s) => s.labels.status)).toEqual([state.status]);
    expect(sampleOf(families, 'trading_hop_latency_seconds', { hop: 'total' }, 'trading_hop_latency_seconds_count').value).toBe(0);
  });

  it('re-renders about once a second when faster ticks drive the snapshot', async () => {
    const { source, state } = fakeSource();
    snapshots = new OperatorSnapshots(source, 50);
    const text = metricsTextSource(snapshots);
    snapshots.start();
    const first = text();
    state.ordersSent = 11;
    await new Promise((resolve) => setTimeout(resolve, 200)); // ~4 ticks: the text is kept
    expect(snapshots.view!.seq).toBeGreaterThanOrEqual(3);
    expect(text()).toBe(first);
    const deadline = Date.now() + 3_000;
    while (sampleOf(parsePrometheusText(text()), 'trading_orders_sent_total').value !== 11 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50));
    expect(sampleOf(parsePrometheusText(text()), 'trading_orders_sent_total').value).toBe(11);
  });

  it('refreshes per scrape when no timer runs', async () => {
    const { source, state } = fakeSource();
    server = (await startRuntimeMetrics(source, { enabled: true, host: '127.0.0.1', port: 0 }, silent))!;
    for (const sent of [1, 2]) {
      state.ordersSent = sent;
      expect(sampleOf(parsePrometheusText(await scrape(server.url)), 'trading_orders_sent_total').value).toBe(sent);
    }
  });

  it('answers HEAD, refuses other paths and methods, and turns a failing source into a 500', async () => {
    const errors: unknown[] = [];
    let fail = false;
    server = await MetricsServer.start({ text: () => {
      if (fail) throw new Error('render failed');
      return '# TYPE x gauge\nx 1\n';
    }, host: '127.0.0.1', port: 0, onError: (error) => errors.push(error) });
    const head = await fetch(server.url, { method: 'HEAD' });
    expect(head.status).toBe(200);
    expect(await head.text()).toBe('');
    expect((await fetch(`http://127.0.0.1:${server.port}/other`)).status).toBe(404);
    expect((await fetch(server.url, { method: 'POST', body: 'x' })).status).toBe(405);
    fail = true;
    expect((await fetch(server.url)).status).toBe(500);
    expect((errors[0] as Error).message).toBe('render failed');
    await expect(MetricsServer.start({ host: '127.0.0.1', port: 0 })).rejects.toThrow(/text source or a registry/);
  });
});
