/**
 * Goal: a strategy's order group is not refused for a write bucket that is only briefly short (as
 * right after the account's larger budget is adopted at start, where a fast start failed with
 * STRATEGY_START_FAILED ... RATE_LIMITED): the port waits for the tokens, bounded, then fails.
 * Method: the real RiskGate on the system clock with a 100 tokens/s bucket drained to empty; a
 * venue that counts its calls.
 */

import { describe, expect, it } from 'vitest';
import { asCount, systemClock } from '../../src/core/index.ts';
import { RiskGate, riskLimits } from '../../src/risk/index.ts';
import { gatedOrderGroupPort } from '../../src/runtime/order-group-port.ts';

function drainedGate(): RiskGate {
  const gate = new RiskGate({ limits: riskLimits({ rateTier: 'custom', writeTokensPerSecond: 100, writeCapacityTokens: 100, readTokensPerSecond: 100 }), clock: systemClock });
  while (gate.budget.tryTakeWrite(1, true, systemClock.nowMs()));
  return gate;
}

describe('gatedOrderGroupPort', () => {
  it('waits for write tokens, then creates the group once', async () => {
    const gate = drainedGate();
    let calls = 0;
    const port = gatedOrderGroupPort(gate, { createOrderGroup: () => `group-${++calls}`, deleteOrderGroup: () => undefined });
    const started = Date.now();
    const handle = await port.create(0, asCount(1_000));
    expect(Date.now() - started).toBeGreaterThanOrEqual(20); // it had to wait for the refill
    expect(calls).toBe(1);
    expect(gate.groups.at(handle)?.id).toBe('group-1');
  });

  it('without a wait (the replay), a short bucket does not refuse the group the live run got: made at once, no tokens booked', async () => {
    const gate = drainedGate();
    let calls = 0;
    const port = gatedOrderGroupPort(gate, { createOrderGroup: () => `group-${++calls}`, deleteOrderGroup: () => undefined }, 0);
    const spent = gate.budget.writeSpent;
    const handle = await port.create(0, asCount(1_000));
    expect(calls).toBe(1);
    expect(gate.groups.at(handle)?.id).toBe('group-1');
    expect(gate.budget.writeSpent).toBe(spent);
  });
});
