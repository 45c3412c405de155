// Goal: the OMS's queue of terminal orders - kept findable for terminalRetentionMs, then pruned
// from both id maps in close order, across the queue's compaction - and a terminal order asked
// about with requestReconcile is still found and reconciled by the coarse tick, while a tick with
// nothing flagged starts no round.
// Method: a real RiskGate and Oms over a ManualClock and the fake OrderEntry (test/oms/fakes.ts);
// orders are created, acked and cancelled through the ExecListener, time moves with the clock.

import { describe, expect, it } from 'vitest';
import { OrderState as S } from '../../src/oms/index.ts';
import { c, wireOrder, world } from './fakes.ts';

const RETENTION_MS = 1_000;
// Thousands of orders in no time: the rate budget is not what these tests are about.
const UNLIMITED_RATE = { rateTier: 'custom' as const, writeTokensPerSecond: 1e9, writeCapacityTokens: 1e9, readTokensPerSecond: 1e6 };

/** Creates, acks and cancels one order; returns its client order id. */
function closeOne(w: ReturnType<typeof world>, n: number): string {
  expect(w.router.submit(w.intent)).toBe(0); // Deny.NONE
  const coid = w.oms.lastClientOrderId;
  w.entry.listener!.onCreateAck(coid, `o-${n}`, c('0'), c('10'), 0);
  w.router.cancel(coid);
  w.entry.listener!.onCancelAck(`o-${n}`, c('10'), 0);
  return coid;
}

describe('Oms: terminal order retention', () => {
  it('prunes terminal orders after the retention, oldest first, across compactions', () => {
    const w = world({ limits: UNLIMITED_RATE, oms: { terminalRetentionMs: RETENTION_MS, reconcileIntervalMs: 0 } });
    const ids: string[] = [];
    // 3 batches of 1,500 orders, 600 ms apart: each prune drops whole batches (queue compacts).
    for (let batch = 0; batch < 3; batch++) {
      for (let i = 0; i < 1_500; i++) ids.push(closeOne(w, batch * 1_500 + i));
      expect(w.oms.tick()).toBeNull(); // nothing flagged: no reconciliation round
      w.clock.advance(600);
    }
    // Now 1,800 ms after batch 0, 1,200 after batch 1, 600 after batch 2.
    w.oms.tick();
    expect(w.oms.order(ids[0])).toBeUndefined();
    expect(w.oms.orderByOrderId('o-0')).toBeUndefined();
    expect(w.oms.order(ids[2_999])).toBeUndefined();
    expect(w.oms.order(ids[3_000])!.state).toBe(S.CANCELED);
    expect(w.oms.orderByOrderId('o-4499')!.clientOrderId).toBe(ids[4_499]);
    w.clock.advance(600);
    w.oms.tick();
    expect(w.oms.order(ids[4_499])).toBeUndefined();
    // The queue starts over empty: a new terminal order is kept, then pruned.
    const late = closeOne(w, 9_000);
    w.oms.tick();
    expect(w.oms.order(late)!.state).toBe(S.CANCELED);
    w.clock.advance(RETENTION_MS);
    w.oms.tick();
    expect(w.oms.order(late)).toBeUndefined();
  });

  it('reconciles a terminal order flagged with requestReconcile after others were pruned', async () => {
    const w = world({ limits: UNLIMITED_RATE, oms: { terminalRetentionMs: RETENTION_MS, reconcileIntervalMs: 0 } });
    for (let i = 0; i < 1_200; i++) closeOne(w, i);
    w.clock.advance(RETENTION_MS + 1);
    const kept = closeOne(w, 5_000);
    expect(w.oms.tick()).toBeNull(); // prunes the first 1,200 (compaction), nothing flagged
    expect(w.oms.requestReconcile(kept)).toBe(true);
    w.entry.orders = [wireOrder('o-5000', kept, 'canceled', c('0'), c('0'))];
    const round = w.oms.tick();
    expect(round).not.toBeNull();
    await round;
    expect(w.oms.order(kept)!.needsReconcile).toBe(false);
    expect(w.oms.tick()).toBeNull();
  });
});
