// Goal: a 429 in the middle of a reconciliation round is retried by the budgeted read client, and
// the round completes (every order answered, no error reported).
// Method: an in-process simulator with the demo key at Basic; the OMS's reconcileRound over the
// real AccountClient (real sockets on 127.0.0.1). After the first group's read the test empties
// the key's read bucket at the simulator (as another session on the same key would), so the
// second group's GET /portfolio/orders meets a real 429 while our mirror still thinks it has tokens.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { systemClock } from '../../src/core/index.ts';
import { ACCOUNT_CLIENT_DEFAULTS, AccountClient } from '../../src/exec/index.ts';
import { reconcileRound, type ReconcileHost } from '../../src/oms/reconciler.ts';
import type { Order } from '../../src/oms/index.ts';
import { MARKET, MARKET_2, startTestSim } from '../sim/helpers/test-sim.ts';
import { demoKey } from '../integration/helpers.ts';

type Sim = Awaited<ReturnType<typeof startTestSim>>;

function unknownOrder(ticker: string, clientOrderId: string): Order {
  // Only the fields the round reads: an order whose fate we do not know.
  return { exchange: 'predictions', subaccount: 0, ticker, clientOrderId, orderId: '', fillSum: 0 } as unknown as Order;
}

describe('reconciliation meets a 429', () => {
  let sim: Sim;
  let account: AccountClient;

  beforeAll(async () => {
    sim = await startTestSim({ demoKeyTier: 'basic' });
    const key = demoKey(sim);
    account = new AccountClient({ ...ACCOUNT_CLIENT_DEFAULTS, baseUrl: `${sim.httpUrl}/trade-api/v2`, keyId: key.keyId, privateKey: key.privateKey, clock: systemClock });
  });

  afterAll(async () => {
    await account.close();
    await sim.close();
  });

  it('retries the read and completes the round', async () => {
    const keyId = demoKey(sim).keyId;
    const orders = [unknownOrder(MARKET, 'rc-a'), unknownOrder(MARKET_2, 'rc-b')];
    const flagged = new Set(orders);
    const missing: string[] = [];
    const errors: unknown[] = [];
    let taken = 0;
    let settled = 0;
    const host: ReconcileHost = {
      readsOf: () => account,
      ordersToReconcile: () => [...flagged],
      stillNeedsReconcile: (order) => flagged.has(order),
      takeReadToken: () => {
        taken++;
        return true;
      },
      readSettled: () => void settled++,
      applyFound: (order) => void flagged.delete(order),
      applyMissing: (order) => {
        flagged.delete(order);
        missing.push(order.clientOrderId);
        if (missing.length === 1) {
          // Empty the key's read bucket at the venue: the next read is answered 429.
          for (let i = 0; i < 1_000 && sim.rateLimiter.available(keyId, 'basic', 'read') > 0; i++) sim.rateLimiter.admit(keyId, 'basic', 'read', 1);
          expect(sim.rateLimiter.available(keyId, 'basic', 'read')).toBe(0);
        }
      },
      applyWireFill: () => {},
      onReconcileError: (error) => void errors.push(error),
    };
    const result = await reconcileRound(host);
    expect(errors).toEqual([]);
    expect(result).toMatchObject({ asked: 2, missing: 2, errors: 0, reads: 2 });
    expect([taken, settled]).toEqual([2, 2]); // each read's tokens settled once it was answered
    expect(missing).toEqual(['rc-a', 'rc-b']);
    expect(account.reads.retries).toBeGreaterThanOrEqual(1); // the 429 happened and was retried
    expect(account.reads.pacer.rateLimited).toBe(account.reads.retries);
  });
});
