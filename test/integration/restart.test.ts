/**
 * Goal: a runtime that crashes with an order in flight is restarted from its journal and
 * reconciles with the venue: every order it had (the one whose answer never came included) is
 * known again with the venue's state, none is forgotten or duplicated, new client order ids never
 * reuse an old one, and the kill switch of the restarted runtime clears them all.
 * Method: an in-process simulator; runtime A places two post-only bids, then a third while the
 * simulator applies it but never answers (ambiguous_order, hang); A is abandoned (no cancel, no
 * answers heard). Runtime B starts on the same journal file and is compared with the venue.
 */

import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { asCount, parsePrice } from '../../src/core/index.ts';
import { OrderState, parseClientOrderId } from '../../src/oms/index.ts';
import { Deny, OrderFlags } from '../../src/strategy/index.ts';
import { MARKET, createRuntime, demoKey, entry, rest, startTestSim, waitUntil } from './helpers.ts';
import type { TestSim } from './helpers.ts';

const SUB = 6;
let sim: TestSim;

beforeAll(async () => {
  sim = await startTestSim();
});

afterAll(async () => {
  await sim.close();
});

async function venueResting(): Promise<string[]> {
  const reply = await rest(sim, demoKey(sim), 'GET', `/portfolio/orders?ticker=${MARKET}&status=resting&subaccount=${SUB}`);
  return (reply.body.orders as { client_order_id: string }[]).map((o) => o.client_order_id).sort();
}

describe('restart after a crash mid-order', () => {
  it('reconciles every journaled order with the venue and never reuses an id', async () => {
    const journalPath = join(sim.workDir, 'restart.jsonl');
    const strategies = [entry('idle', 'strategies/taker.ts', { maxOrders: 0 }, SUB)];
    const a = createRuntime(sim, { strategies, journalPath });
    await a.start();
    const ctxA = a.host.context('idle')!;
    const ids: string[] = [];
    for (const price of ['0.20', '0.21']) {
      expect(ctxA.place(MARKET, 'bid', parsePrice(price), asCount(100), OrderFlags.POST_ONLY)).toBe(Deny.NONE);
      ids.push(ctxA.lastClientOrderId);
    }
    await waitUntil(() => ids.every((id) => a.oms.order(id)?.state === OrderState.RESTING), 5_000, 'two resting');
    sim.faults.add({ kind: 'ambiguous_order', mode: 'hang', target: { times: 1, method: 'POST', path: '/portfolio/events/orders' } });
    expect(ctxA.place(MARKET, 'bid', parsePrice('0.22'), asCount(100), OrderFlags.POST_ONLY)).toBe(Deny.NONE);
    ids.push(ctxA.lastClientOrderId);
    await waitUntil(async () => (await venueResting()).length === 3, 5_000, 'the third order applied at the venue');
    // The REST answer never came (the user_order message may have: then the OMS knew it resting).
    expect(sim.faults.list().map((rule) => rule.fired)).toEqual([1]);
    await a.abandon();
    sim.faults.clear();

    const b = createRuntime(sim, { strategies, journalPath });
    try {
      expect(b.recovered.orders.map((o) => o.clientOrderId).sort()).toEqual([...ids].sort());
      await b.start();
      await waitUntil(() => ids.every((id) => b.oms.order(id)?.state === OrderState.RESTING), 10_000, 'all three reconciled as resting');
      expect(b.oms.liveOrders().map((o) => o.clientOrderId).sort()).toEqual(await venueResting());
      // A new order's id continues after the journal's: never a reused id.
      const ctxB = b.host.context('idle')!;
      expect(ctxB.place(MARKET, 'bid', parsePrice('0.19'), asCount(100), OrderFlags.POST_ONLY)).toBe(Deny.NONE);
      const fresh = ctxB.lastClientOrderId;
      expect(ids).not.toContain(fresh);
      const counters = ids.map((id) => parseClientOrderId(id)!.counter);
      expect(parseClientOrderId(fresh)!.counter).toBeGreaterThan(Math.max(...counters));
      // The recovered orders belong to the same strategy number: the restarted strategy sees them as its own.
      expect(ctxB.order(ids[0])?.clientOrderId).toBe(ids[0]);
      await waitUntil(async () => (await venueResting()).length === 4, 5_000, 'the fresh order at the venue');
    } finally {
      await b.stop('test done');
    }
    expect(b.oms.liveOrderCount).toBe(0);
    expect(await venueResting()).toEqual([]);
  });
});
