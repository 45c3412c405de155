/**
 * Goal: at 5,000 markets the operator snapshot (the dashboard's pushes and the metrics) stays
 * bounded: the POSITIONS_MAX positions with the largest |PnL| and their total, BOOKS_MAX books
 * (those with our orders first, then the most active), the top markets by book changes per
 * second, the write budget and held intents, and the RFQ counters when quoting is on; the
 * Prometheus text carries those families and never a series per market.
 * Method: OperatorSnapshots over the fake source with a real BookStore of 5,000 books, 5,000
 * positions, live orders in two books, a real RateBudget and hold counters, and quote counters;
 * the activity as the runtime's walk finds it over two passes a second apart, then the view and
 * renderMetricsText's text parsed back.
 */

import { describe, expect, it } from 'vitest';
import { BookStore } from '../../src/book/index.ts';
import { PriceGrid } from '../../src/core/index.ts';
import { BOOKS_MAX, OperatorSnapshots, POSITIONS_MAX } from '../../src/dashboard/index.ts';
import type { OperatorView, SnapshotSource } from '../../src/dashboard/index.ts';
import { RateBudget } from '../../src/risk/index.ts';
import { renderMetricsText } from '../../src/runtime/runtime-metrics.ts';
import { ScaleStatus, TOP_ROWS } from '../../src/runtime/scale-status.ts';
import { parsePrometheusText, sampleOf } from '../telemetry/prometheus-text.ts';
import { fakeSource } from './fake-source.ts';

const MARKETS = 5_000;

function scaleSource(quoting: boolean): { source: SnapshotSource; store: BookStore } {
  const { source } = fakeSource();
  const store = new BookStore({ now: () => 0, onOutOfSync: () => {} });
  const grid = PriceGrid.fromStructure('linear_cent');
  for (let i = 0; i < MARKETS; i++) store.add(`KXM-${i}`, grid);
  // |PnL| grows with i (sign alternating): the largest are the last markets.
  const positions = Array.from({ length: MARKETS }, (_, i) => ({ subaccount: 0, ticker: `KXM-${i}`, position: 100, volume: 100, costMicro: 0, realizedMicro: (i % 2 === 0 ? 1 : -1) * i * 1_000, feesCenticents: 0 }));
  const live = [100, 200].map((i) => ({ clientOrderId: `rt-${i}`, ticker: `KXM-${i}`, side: 'bid', price: 4000, remainingCount: 100, filledCount: 0, state: 1, subaccount: 0 }));
  const budget = new RateBudget(10, 50, 0.2, 20, Date.now());
  budget.tryTakeWrite(4, false, Date.now());
  const fake = source as unknown as Record<string, unknown> & { feed: Record<string, unknown>; oms: Record<string, unknown>; listener: { stats: Record<string, number> } };
  fake.feed = { ...fake.feed, books: store };
  fake.oms = { ...fake.oms, liveOrders: () => live, positions: { all: () => positions }, liveOrderCount: live.length };
  fake.gate = { budget };
  fake.router = { held: new Map([[1, {}], [2, {}]]), holdStats: { held: 2, heldSent: 11, heldDropped: 3, batchesSent: 6, batchedOrders: 40 } };
  fake.listener.stats.rfqsSeen = 25;
  if (quoting) {
    fake.quoteBook = { stats: { created: 20, rejected: 1, accepted: 4, confirmed: 3, executed: 2, cancelled: 9, anomalies: 0, reconciles: 0 }, openCount: 6 };
    fake.graph = { quoteRouter: { quotesDenied: 7 } };
  }
  return { source, store };
}

/**
 * The runtime's activity walk (ScaleStatus.walkActivity, a whole pass each reading here) one
 * second apart, books 4,990.. changing in between; the snapshot shows what the walk found.
 */
function refreshAfterActivity(source: SnapshotSource, store: BookStore): OperatorView {
  const scale = new ScaleStatus();
  scale.walkActivity([store], 1_000, MARKETS + 1);
  for (let i = 4_990; i < MARKETS; i++) store.get(`KXM-${i}`)!.changesApplied += i;
  scale.walkActivity([store], 2_000, MARKETS + 1);
  (source as unknown as { mostActive: unknown }).mostActive = scale.mostActive;
  return new OperatorSnapshots(source, 250).refresh();
}

describe('operator snapshot at 5,000 markets', () => {
  it('caps positions by |PnL| with a total, and books to ours then the most active', () => {
    const { source, store } = scaleSource(true);
    const view = refreshAfterActivity(source, store);
    expect(view.positionsTotal).toBe(MARKETS);
    expect(view.positions).toHaveLength(POSITIONS_MAX);
    expect(view.positions[0].ticker).toBe('KXM-4999');
    for (let i = 1; i < view.positions.length; i++) expect(Math.abs(view.positions[i - 1].pnlMicro)).toBeGreaterThanOrEqual(Math.abs(view.positions[i].pnlMicro));
    expect(view.mostActive.map((m) => m.ticker)).toEqual(['KXM-4999', 'KXM-4998', 'KXM-4997', 'KXM-4996', 'KXM-4995']);
    for (const m of view.mostActive) expect(m.changesPerSecond).toBeGreaterThan(0);
    expect(view.books).toHaveLength(BOOKS_MAX);
    expect(view.books.slice(0, 7).map((b) => b.ticker)).toEqual(['KXM-100', 'KXM-200', 'KXM-4999', 'KXM-4998', 'KXM-4997', 'KXM-4996', 'KXM-4995']);
    expect(new Set(view.books.map((b) => b.ticker)).size).toBe(BOOKS_MAX);
    // The push stays small: a few top lists, not 5,000 rows.
    expect(JSON.stringify(view).length).toBeLessThan(40_000);
  });

  it('reports the write budget, held intents and the RFQ counters; rfq null when quoting is off', () => {
    const { source, store } = scaleSource(true);
    const view = refreshAfterActivity(source, store);
    expect(view.budget).toMatchObject({ writeCapacity: 50, writePerSecond: 10, held: 2, heldSent: 11, heldDropped: 3, batchesSent: 6, batchedOrders: 40 });
    expect(view.budget!.writeTokens).toBeLessThanOrEqual(50);
    expect(view.budget!.writeTokens).toBeGreaterThanOrEqual(46);
    expect(view.rfq).toEqual({ rfqsSeen: 25, quotesSent: 20, quotesRejected: 1, accepted: 4, confirmed: 3, executed: 2, cancelled: 9, denied: 7, open: 6 });
    const off = scaleSource(false);
    expect(refreshAfterActivity(off.source, off.store).rfq).toBeNull();
    const bare = fakeSource().source;
    expect(new OperatorSnapshots(bare, 250).refresh().budget).toBeNull();
  });

  it('the metrics carry the budget, held intents, top markets and RFQ families, bounded series', () => {
    const { source, store } = scaleSource(true);
    const families = parsePrometheusText(renderMetricsText(refreshAfterActivity(source, store)));
    const value = (name: string): number => sampleOf(families, `trading_${name}`).value;
    expect(value('positions_total')).toBe(MARKETS);
    expect(families.get('trading_position_contracts')!.samples).toHaveLength(POSITIONS_MAX);
    expect(families.get('trading_position_pnl_dollars')!.samples).toHaveLength(POSITIONS_MAX);
    expect(value('write_tokens_capacity')).toBe(50);
    expect(value('write_tokens_refill_per_second')).toBe(10);
    expect(value('write_tokens_available')).toBeGreaterThanOrEqual(46);
    expect(families.get('trading_write_tokens_spent_per_second')!.type).toBe('gauge');
    expect(value('intents_held')).toBe(2);
    expect(value('intents_held_sent_total')).toBe(11);
    expect(value('intents_held_dropped_total')).toBe(3);
    expect(value('batch_requests_total')).toBe(6);
    expect(value('batched_orders_total')).toBe(40);
    expect(families.get('trading_intents_held_sent_total')!.type).toBe('counter');
    const active = families.get('trading_book_changes_per_second')!.samples;
    expect(active).toHaveLength(TOP_ROWS);
    expect(active[0].labels.ticker).toBe('KXM-4999');
    expect(value('rfqs_seen_total')).toBe(25);
    expect(value('quotes_sent_total')).toBe(20);
    expect(value('quotes_accepted_total')).toBe(4);
    expect(value('quotes_executed_total')).toBe(2);
    expect(value('quotes_denied_total')).toBe(7);
    expect(value('quotes_open')).toBe(6);
    const off = scaleSource(false);
    const offFamilies = parsePrometheusText(renderMetricsText(refreshAfterActivity(off.source, off.store)));
    expect(offFamilies.has('trading_rfqs_seen_total')).toBe(false);
    expect(offFamilies.has('trading_write_tokens_available')).toBe(true);
  });
});
