/**
 * Goal: an order of ours that rests at the exchange without a journal record (the runtime crashed
 * after sending it and before the intent's line was flushed) is found at the next start by its
 * client order id and adopted, then cancelled: none is left orphaned. Orders of another prefix (a
 * person's, another tool's) and of another runtime with the same prefix (a session its journal
 * never recorded) are left alone.
 * Method: the simulator over real sockets. A first runtime starts and stops on a journal (its
 * session line is written before any order). Then three resting orders are placed straight at the
 * venue with the demo key, as if sent and never journaled: one under that session's id format
 * ("rt-<epoch>-<n>"), one under another prefix, one with our prefix and another session's epoch.
 * A second runtime starts on the same journal with an idle strategy, and the venue's resting
 * orders are read back. The same on the Margin exchange (margin.enabled), with a perpetual order.
 */

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Runtime } from '../../src/runtime/runtime.ts';
import { MARKET, createRuntime, demoKey, entry, rest, startTestSim, waitUntil } from './helpers.ts';
import type { TestSim } from './helpers.ts';

const PERP = 'KXBTCPERP'; // config/margin-markets.json
let sim: TestSim;
let dir: string;
let runtime: Runtime | null = null;

beforeAll(async () => {
  sim = await startTestSim();
  dir = mkdtempSync(join(tmpdir(), 'lost-orders-'));
});

afterAll(async () => {
  await runtime?.stop();
  await sim?.close();
  rmSync(dir, { recursive: true, force: true });
});

async function place(clientOrderId: string, price: string): Promise<string> {
  const reply = await rest(sim, demoKey(sim), 'POST', '/portfolio/events/orders', {
    ticker: MARKET, client_order_id: clientOrderId, side: 'bid', count: '1.00', price, time_in_force: 'good_till_canceled', self_trade_prevention_type: 'taker_at_cross',
  });
  expect(reply.status, JSON.stringify(reply.body)).toBe(201);
  return String((reply.body.order as Record<string, unknown> | undefined)?.order_id ?? reply.body.order_id);
}

async function restingIds(): Promise<string[]> {
  const reply = await rest(sim, demoKey(sim), 'GET', `/portfolio/orders?ticker=${MARKET}&status=resting`);
  expect(reply.status).toBe(200);
  return ((reply.body.orders ?? []) as Record<string, unknown>[]).map((order) => String(order.client_order_id));
}

describe('orders the journal lost', () => {
  it('are found at start by their client order id and a session of our journal, adopted and cancelled; others are left alone', async () => {
    const journalPath = join(dir, 'journal.jsonl');
    const idle = [entry('idle', 'strategies/taker.ts', { maxOrders: 0 })];
    const first = createRuntime(sim, { strategies: idle, journalPath });
    await first.start();
    const epoch = first.oms.clientOrderIds.sessionEpochMs;
    await first.stop();
    const ours = `rt-${epoch.toString(36)}-7`;
    const theirs = `manual-${epoch.toString(36)}-7`;
    const otherRuntime = `rt-${(epoch - 60_000).toString(36)}-7`; // same prefix, a session our journal never had
    await place(ours, '0.0300');
    await place(theirs, '0.0200');
    await place(otherRuntime, '0.0100');
    expect((await restingIds()).sort()).toEqual([ours, theirs, otherRuntime].sort());

    runtime = createRuntime(sim, { strategies: idle, journalPath });
    await runtime.start();
    expect(runtime.oms.stats.lostOrdersAdopted).toBe(1);
    await waitUntil(async () => !(await restingIds()).includes(ours), 5_000, 'the lost order cancelled at the venue');
    expect((await restingIds()).sort()).toEqual([theirs, otherRuntime].sort());
    expect(runtime.oms.liveOrderCount).toBe(0); // adopted, cancelled, closed
  }, 30_000);

  it('on the Margin exchange too: a lost perpetual order of ours is adopted and cancelled on the Margin route, another prefix\'s is left', async () => {
    await runtime?.stop();
    runtime = null;
    const journalPath = join(dir, 'journal-margin.jsonl');
    const idle = [entry('idle', 'strategies/taker.ts', { maxOrders: 0 })];
    const margin = { enabled: true, maxLeverage: 20 };
    const first = createRuntime(sim, { strategies: idle, journalPath, margin });
    await first.start();
    const epoch = first.oms.clientOrderIds.sessionEpochMs;
    await first.stop();
    const ours = `rt-${epoch.toString(36)}-9`;
    const theirs = `manual-${epoch.toString(36)}-9`;
    for (const clientOrderId of [ours, theirs]) {
      const reply = await rest(sim, demoKey(sim), 'POST', '/margin/orders', {
        ticker: PERP, client_order_id: clientOrderId, side: 'bid', count: '1.00', price: '90.0000', time_in_force: 'good_till_canceled', self_trade_prevention_type: 'taker_at_cross', subaccount: 0,
      });
      expect(reply.status, JSON.stringify(reply.body)).toBe(201);
    }
    expect(marginResting().sort()).toEqual([ours, theirs].sort());

    runtime = createRuntime(sim, { strategies: idle, journalPath, margin });
    await runtime.start();
    expect(runtime.oms.stats.lostOrdersAdopted).toBe(1);
    await waitUntil(() => !marginResting().includes(ours), 5_000, 'the lost perpetual order cancelled at the venue');
    expect(marginResting()).toEqual([theirs]);
    expect(runtime.oms.liveOrderCount).toBe(0);
  }, 30_000);
});

/** Client order ids of the demo user's resting Margin orders, as the simulator holds them. */
function marginResting(): string[] {
  return sim.services.margin.orderList.filter((order) => order.userId === sim.userId && order.status === 'resting').map((order) => order.clientOrderId);
}
