/**
 * Goal: the runtime's Prometheus metrics, scraped over HTTP while it trades against the simulator,
 * are well-formed text with the expected names and types and values that agree with the
 * runtime's own status: per-hop latency histograms from the tick-to-trade probe, orders, fills,
 * denies by code, positions, PnL, feed state, reconnects, resyncs, event-loop stall, worker queue.
 * Method: an in-process simulator with synthetic activity and a runtime wired as the main job
 * wires it (test/integration/helpers.ts) running the sample market maker around the mid, so
 * book updates lead to orders; the metrics server on 127.0.0.1 port 0; fetch, then the test's
 * text-format parser (test/telemetry/prometheus-text.ts). Bounded waits throughout.
 */

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { asCount } from '../../src/core/index.ts';
import { startRuntimeMetrics } from '../../src/runtime/runtime-metrics.ts';
import { Deny, OrderFlags } from '../../src/strategy/index.ts';
import type { Runtime } from '../../src/runtime/runtime.ts';
import { HOP_NAMES } from '../../src/runtime/tick-to-trade-probe.ts';
import type { MetricsServer } from '../../src/telemetry/index.ts';
import { MARKET, createRuntime, entry, startTestSim, waitUntil } from '../integration/helpers.ts';
import type { TestSim } from '../integration/helpers.ts';
import { parsePrometheusText, sampleOf } from '../telemetry/prometheus-text.ts';
import type { Family } from '../telemetry/prometheus-text.ts';

let sim: TestSim;
let runtime: Runtime;
let metrics: MetricsServer;
const work = mkdtempSync(join(tmpdir(), 'runtime-metrics-'));

beforeAll(async () => {
  sim = await startTestSim({ activity: { updatesPerSec: 50 } });
  runtime = createRuntime(sim, {
    strategies: [entry('mm', 'strategies/market-maker.ts', { halfSpreadTicks: 2, fairValue: null }, 4), entry('idle', 'strategies/taker.ts', { maxOrders: 0 }, 5)],
    journalPath: join(work, 'journal.jsonl'),
  });
  await runtime.start();
  metrics = (await startRuntimeMetrics(runtime, { enabled: true, host: '127.0.0.1', port: 0 }, runtime.logger))!;
}, 30_000);

afterAll(async () => {
  await metrics?.stop();
  await runtime?.stop('test done');
  await sim?.close();
  rmSync(work, { recursive: true, force: true });
}, 30_000);

async function scrape(): Promise<Map<string, Family>> {
  const response = await fetch(metrics.url, { signal: AbortSignal.timeout(5_000) });
  expect(response.status).toBe(200);
  return parsePrometheusText(await response.text());
}

describe('runtime metrics', () => {
  it('is off unless enabled', async () => {
    expect(await startRuntimeMetrics(runtime, { enabled: false, host: '127.0.0.1', port: 0 }, runtime.logger)).toBeNull();
  });

  it('serves names, types and values that agree with the runtime status while it trades', async () => {
    await waitUntil(() => runtime.status().ordersSent >= 2 && runtime.probe.total.count > 0, 20_000, 'orders from book updates');
    const families = await scrape();
    const status = runtime.status();

    const types = Object.fromEntries([...families.values()].map((family) => [family.name, family.type]));
    expect(types).toMatchObject({
      trading_hop_latency_seconds: 'histogram',
      trading_orders_sent_total: 'counter',
      trading_orders_open: 'gauge',
      trading_fills_total: 'counter',
      trading_denies_total: 'counter',
      trading_position_contracts: 'gauge',
      trading_position_pnl_dollars: 'gauge',
      trading_pnl_dollars: 'gauge',
      trading_books_synced: 'gauge',
      trading_feed_state: 'gauge',
      trading_feed_reconnects_total: 'counter',
      trading_feed_resyncs_total: 'counter',
      trading_feed_resyncs_requested_total: 'counter',
      trading_event_loop_stall_seconds: 'gauge',
      trading_worker_queue_depth: 'gauge',
      trading_kill_switch_engaged: 'gauge',
    });
    for (const family of families.values()) expect(family.help.length, family.name).toBeGreaterThan(10);

    // Per-hop histograms: every hop, buckets non-decreasing, +Inf equal to the count.
    const hops = families.get('trading_hop_latency_seconds')!;
    for (const hop of HOP_NAMES) {
      const buckets = hops.samples.filter((s) => s.name === 'trading_hop_latency_seconds_bucket' && s.labels.hop === hop);
      expect(buckets.length).toBeGreaterThan(10);
      for (let i = 1; i < buckets.length; i++) expect(buckets[i].value).toBeGreaterThanOrEqual(buckets[i - 1].value);
      expect(buckets.at(-1)!.labels.le).toBe('+Inf');
      const count = sampleOf(families, 'trading_hop_latency_seconds', { hop }, 'trading_hop_latency_seconds_count').value;
      expect(buckets.at(-1)!.value).toBe(count);
      const sum = sampleOf(families, 'trading_hop_latency_seconds', { hop }, 'trading_hop_latency_seconds_sum').value;
      expect(sum).toBeGreaterThanOrEqual(0);
      if (count > 0) expect(sum / count).toBeLessThan(1); // a mean hop under a second
    }
    const total = sampleOf(families, 'trading_hop_latency_seconds', { hop: 'total' }, 'trading_hop_latency_seconds_count').value;
    expect(total).toBeGreaterThan(0);
    expect(total).toBeLessThanOrEqual(runtime.probe.total.count);

    // Counters and gauges against the status taken just after the scrape (they only grow between the two).
    const sent = sampleOf(families, 'trading_orders_sent_total').value;
    expect(sent).toBeGreaterThanOrEqual(2);
    expect(sent).toBeLessThanOrEqual(status.ordersSent);
    expect(sampleOf(families, 'trading_fills_total').value).toBeLessThanOrEqual(status.fills);
    expect(sampleOf(families, 'trading_orders_open').value).toBeGreaterThanOrEqual(0);
    expect(sampleOf(families, 'trading_books_synced').value).toBe(1);
    expect(sampleOf(families, 'trading_books_total').value).toBe(1);
    expect(sampleOf(families, 'trading_feed_state', { state: 'open' }).value).toBe(1);
    expect(sampleOf(families, 'trading_feed_state', { state: 'reconnecting' }).value).toBe(0);
    expect(sampleOf(families, 'trading_feed_reconnects_total').value).toBe(0);
    expect(sampleOf(families, 'trading_feed_frames_total').value).toBeGreaterThan(0);
    expect(sampleOf(families, 'trading_kill_switch_engaged').value).toBe(0);
    expect(sampleOf(families, 'trading_strategies', { status: 'running' }).value).toBe(2);
    expect(sampleOf(families, 'trading_event_loop_stall_seconds', { stat: 'max' }).value).toBeGreaterThan(0);
    expect(sampleOf(families, 'trading_event_loop_stall_seconds', { stat: 'p99' }).value).toBeLessThanOrEqual(sampleOf(families, 'trading_event_loop_stall_seconds', { stat: 'max' }).value);
    expect(sampleOf(families, 'trading_worker_queue_depth').value).toBeGreaterThanOrEqual(0);
    // Positions and PnL: one series per position line of the status, in contracts and dollars. A
    // fill between the scrape and the status changes the positions (the maker trades on), so the
    // two are compared again on a fresh scrape until they agree: bounded, and they must.
    const positionsAgree = (scraped: Map<string, Family>, seen: ReturnType<typeof runtime.status>): boolean => {
      const positions = scraped.get('trading_position_contracts')!.samples;
      if (positions.length !== seen.positions.length) return false;
      return seen.positions.every((line) => {
        const sample = positions.find((s) => s.labels.subaccount === String(line.subaccount) && s.labels.ticker === line.ticker);
        return sample !== undefined && Math.abs(sample.value - line.position / 100) < 1e-6;
      });
    };
    let scraped = families;
    let seen = status;
    for (let attempt = 0; attempt < 20 && !positionsAgree(scraped, seen); attempt++) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      scraped = await scrape();
      seen = runtime.status();
    }
    const positions = scraped.get('trading_position_contracts')!.samples;
    expect(positions.length).toBe(seen.positions.length);
    for (const line of seen.positions) {
      expect(sampleOf(scraped, 'trading_position_contracts', { subaccount: String(line.subaccount), ticker: line.ticker }).value).toBeCloseTo(line.position / 100, 6);
    }
    expect(Number.isFinite(sampleOf(families, 'trading_pnl_dollars').value)).toBe(true);
  }, 30_000);

  it('splits the exec hop where the request is handed to the socket (the routes\' write channels), over the simulator\'s socket', async () => {
    // The maker's orders are written inside the route's call once a presigned signature is ready.
    await waitUntil(() => runtime.probe.firstByte.count >= 3, 20_000, 'orders written inside their call');
    const families = await scrape();
    const probe = runtime.probe;
    const count = (hop: string): number => sampleOf(families, 'trading_hop_latency_seconds', { hop }, 'trading_hop_latency_seconds_count').value;
    expect(count('firstByte')).toBeGreaterThanOrEqual(3);
    // Every split frame is a timed frame: never more of them than of the whole path.
    expect(count('firstByte')).toBeLessThanOrEqual(count('total'));
    expect(count('encode')).toBe(count('firstByte'));
    expect(count('write')).toBe(count('firstByte'));
    // The first byte is handed over inside the exec call: after the frame came, before the call returned.
    expect(probe.firstByte.summary().min).toBeGreaterThan(0);
    expect(probe.encode.summary().max).toBeLessThanOrEqual(probe.exec.summary().max);
    expect(probe.firstByte.summary().min).toBeGreaterThanOrEqual(probe.encode.summary().min);
    const status = runtime.status();
    expect(status.firstByte!.count).toBeGreaterThanOrEqual(3);
    expect(status.firstByte!.p50Us).toBeGreaterThan(0);
    expect(status.firstByte!.p50Us).toBeLessThanOrEqual(probe.total.summary().max / 1000);
  }, 30_000);

  it('reports denies by code, read from the status when scraped', async () => {
    const book = runtime.feed.books.get(MARKET)!;
    await waitUntil(() => book.synced && book.bestAsk() > 0, 10_000, 'an ask in the book');
    // A post-only bid at the best ask would cross: the gate denies it before any I/O.
    const ctx = runtime.host.context('idle')!;
    expect(ctx.place(MARKET, 'bid', book.bestAsk(), asCount(100), OrderFlags.POST_ONLY)).toBe(Deny.POST_ONLY_CROSS);
    expect(ctx.place(MARKET, 'bid', book.bestAsk(), asCount(100), OrderFlags.POST_ONLY)).toBe(Deny.POST_ONLY_CROSS);
    const families = await scrape();
    const denies = runtime.status().denies;
    expect(denies.POST_ONLY_CROSS).toBeGreaterThanOrEqual(2);
    const series = families.get('trading_denies_total')!.samples;
    expect(Object.fromEntries(series.map((s) => [s.labels.code, s.value]))).toEqual(denies);
  });

  it('serves the write budget, held intents and the most active market; no RFQ families with quoting off', async () => {
    const budget = runtime.gate.budget;
    let families = await scrape();
    // The activity is a rate between two snapshots: scrape until the traded market shows up (bounded).
    for (let i = 0; i < 50 && (families.get('trading_book_changes_per_second')?.samples.length ?? 0) === 0; i++) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      families = await scrape();
    }
    expect(sampleOf(families, 'trading_book_changes_per_second', { ticker: MARKET }).value).toBeGreaterThan(0);
    expect(sampleOf(families, 'trading_write_tokens_capacity').value).toBe(budget.writeCapacity);
    expect(sampleOf(families, 'trading_write_tokens_refill_per_second').value).toBe(budget.writePerSecond);
    const available = sampleOf(families, 'trading_write_tokens_available').value;
    expect(available).toBeGreaterThanOrEqual(0);
    expect(available).toBeLessThanOrEqual(budget.writeCapacity);
    expect(sampleOf(families, 'trading_intents_held').value).toBe(runtime.router.held.size);
    expect(sampleOf(families, 'trading_intents_held_sent_total').value).toBeLessThanOrEqual(runtime.router.holdStats.heldSent);
    expect(families.get('trading_batch_requests_total')!.type).toBe('counter');
    expect(families.get('trading_write_tokens_spent_per_second')!.type).toBe('gauge');
    expect(families.has('trading_rfqs_seen_total')).toBe(false);
    const status = runtime.status();
    expect(status.rfq).toBeNull();
    expect(status.positionsTotal).toBeGreaterThanOrEqual(status.positions.length);
    expect(status.budget!.writeCapacity).toBe(budget.writeCapacity);
  });

  it('counts a scrape later as higher or equal: counters never go down while running', async () => {
    const first = await scrape();
    await waitUntil(() => true, 100, 'nothing');
    const second = await scrape();
    for (const name of ['trading_orders_sent_total', 'trading_feed_frames_total', 'trading_tick_to_trade_frames_total']) {
      expect(sampleOf(second, name).value).toBeGreaterThanOrEqual(sampleOf(first, name).value);
    }
  });
});
