// Goal: ended exit triggers do not pile up. After 500 create/delete cycles over REST (whole-position
// brackets cancelled by collection, count brackets with client_trigger_id cancelled by id) the
// engine's trigger store holds at most its retention of ended triggers: the oldest are forgotten,
// the latest still answer client_trigger_id replays. Method: an in-process sim (margin-sim.ts) on
// 127.0.0.1:0 with the retention lowered to 100 (the default, TERMINAL_TRIGGERS_RETAINED = 1,024,
// would need over 4,000 signed requests to exercise twice over), signed requests; the assertion is
// on the store's size, not RSS.

import { afterEach, describe, expect, it } from 'vitest';
import type { RestClient, RestResult } from '../helpers/clients.ts';
import { marginOrder, startMarginSim, type MarginSim } from './margin-sim.ts';

const CYCLES = 500;
const RETAINED = 100;
const CROSS = '/margin/cross/positions/KXBTCPERP/exit_trigger';

let sim: MarginSim | null = null;
afterEach(() => {
  sim?.close();
  sim = null;
});

function ok(result: RestResult, status: number): any {
  expect(result.status, result.text).toBe(status);
  return result.body;
}

async function openLong(alice: RestClient, bob: RestClient): Promise<void> {
  ok(await bob.post('/margin/orders', marginOrder({ side: 'ask', count: '10', price: '100.00' })), 201);
  const taken = ok(await alice.post('/margin/orders', marginOrder({ side: 'bid', count: '10', price: '100.00', time_in_force: 'immediate_or_cancel' })), 201);
  expect(taken.fill_count).toBe('10.00');
}

describe('exit trigger store', () => {
  it('stays bounded over 500 create/delete cycles and still replays the latest client_trigger_id', async () => {
    expect(CYCLES).toBeGreaterThan(2 * RETAINED); // the bound must be exercised
    sim = await startMarginSim({ fundingDollars: 100_000, terminalTriggersRetained: RETAINED });
    const alice = sim.user('alice');
    await openLong(alice, sim.user('bob'));
    const triggers = sim.margin.triggers;
    let firstId = '';
    let last = { id: '', clientTriggerId: '' };
    let storedMax = 0;
    for (let i = 0; i < CYCLES; i++) {
      if (i % 2 === 0) {
        const set = ok(await alice.put(CROSS, { stop_loss_price: '50.00' }), 200);
        ok(await alice.delete(CROSS), 204);
        if (i === 0) firstId = set.id;
      } else {
        const clientTriggerId = `cycle-${i}`;
        const set = ok(await alice.put(CROSS, { count: '1', stop_loss_price: '50.00', client_trigger_id: clientTriggerId }), 200);
        ok(await alice.delete(`${CROSS}/${set.id}`), 204);
        last = { id: set.id, clientTriggerId };
      }
      storedMax = Math.max(storedMax, triggers.storedCount);
    }
    // nothing is live; at most the retained ended ones stay, and never more than that plus one live
    expect(ok(await alice.get(CROSS), 200).exit_triggers).toEqual([]);
    expect(triggers.storedCount).toBeLessThanOrEqual(RETAINED);
    expect(storedMax).toBeLessThanOrEqual(RETAINED + 1);
    expect(triggers.get(firstId)).toBeNull();
    expect(triggers.get(last.id)).toMatchObject({ status: 'canceled', reason: 'user_canceled' });
    // a replay of a recent key returns the first result (the ended trigger), not a new one
    const replay = ok(await alice.put(CROSS, { count: '1', stop_loss_price: '60.00', client_trigger_id: last.clientTriggerId }), 200);
    expect(replay).toMatchObject({ id: last.id, status: 'canceled' });
    expect(ok(await alice.get(CROSS), 200).exit_triggers).toEqual([]);
  }, 180_000);
});
