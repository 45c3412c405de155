/**
 * Test support (not a test): a small fake of the runtime's read surface for OperatorSnapshots,
 * with a real TickToTradeProbe, no books, one strategy, `liveOrders` live orders of about 150
 * bytes of JSON each, and counters the test moves through `state`.
 */

import type { SnapshotSource } from '../../src/dashboard/index.ts';
import { TickToTradeProbe } from '../../src/runtime/tick-to-trade-probe.ts';

export interface FakeState {
  ordersSent: number;
  status: string;
}

export function fakeSource(liveOrders = 0): { source: SnapshotSource; state: FakeState } {
  // A status with a quote, a backslash and a newline: label values must come out escaped.
  const state: FakeState = { ordersSent: 0, status: 'odd "state" \\ with\nnewline' };
  const orders = Array.from({ length: liveOrders }, (_, i) => ({
    clientOrderId: `rt-test-${String(i).padStart(8, '0')}`, ticker: 'KXDEMO-26DEC31-T50', side: i % 2 === 0 ? 'bid' : 'ask', price: 4000 + i, remainingCount: 100, filledCount: 0, state: 1, subaccount: 0,
  }));
  const source = {
    feed: { books: { books: () => [][Symbol.iterator](), get: () => undefined, size: 0, syncedCount: 0 }, counters: { framesReceived: 5, malformedFrames: 0, disconnects: 0, seqGaps: 0, resyncsRequested: 0, resyncsCompleted: 0 }, state: 'open' },
    oms: { liveOrders: () => orders, positions: { all: () => [] }, killSwitchState: null, get stats() { return { ordersSent: state.ordersSent, duplicateFills: 0, reconcileRounds: 0 }; }, liveOrderCount: orders.length },
    host: { denyCounts: (out: Float64Array) => out.fill(0), summaries: () => [{ id: 'mm', status: state.status }] },
    listener: { stats: { fillMessages: 0, connects: 1 } },
    fillsReceived: 0,
    probe: new TickToTradeProbe(),
    stall: { summary: () => ({ samples: 0, p50Us: 0, p99Us: 0, maxUs: 0 }) },
    fix: null,
    marketData: null,
    mostActive: [],
    config: { venue: { fix: { sessionName: 'KalshiNR' } } },
  };
  return { source: source as unknown as SnapshotSource, state };
}
