// Goal: the simulator enforces exactly the budgets it reports, so a client that reads GET
// /account/limits and GET /account/endpoint_costs agrees with the venue by construction: for a
// Basic key, /account/limits answers the spec's numbers (rest.md §9: read 200/200, write 100/100),
// and precisely bucket_capacity / cost requests are admitted before the first 429; the perps lane
// (/margin routes) enforces what /account/limits/perps reports; every tier's reported numbers are
// the limiter's own bucket sizes.
// Method: one in-process simulator on a frozen ManualClock (buckets never refill, so the count is
// exact and timing-free) over real sockets on 127.0.0.1; signed requests from fresh keys; every
// loop bounded well above the expected count.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/core/index.ts';
import { RATE_LIMIT_TIERS, TIER_BUDGETS } from '../../src/sim/rate-limit/index.ts';
import { RestClient } from './helpers/clients.ts';
import { startTestSim } from './helpers/test-sim.ts';

interface Limits {
  usage_tier: string;
  read: { refill_rate: number; bucket_capacity: number };
  write: { refill_rate: number; bucket_capacity: number };
}

const UNKNOWN_ORDER = '00000000-0000-4000-8000-000000000000';
const REQUESTS_MAX = 1_000;

let sim: Awaited<ReturnType<typeof startTestSim>>;

beforeAll(async () => {
  // Frozen at the wall clock: signatures (stamped with Date.now()) stay inside a wide window.
  sim = await startTestSim({ clock: new ManualClock(Date.now()), timestampWindow: { pastMs: 600_000, futureMs: 600_000 } });
});
afterAll(async () => {
  await sim?.close();
});

/** Sends `send` until the first 429; the number admitted before it. */
async function admittedBefore429(send: () => Promise<{ status: number }>): Promise<number> {
  for (let admitted = 0; admitted < REQUESTS_MAX; admitted++) {
    const result = await send();
    if (result.status === 429) return admitted;
  }
  throw new Error(`no 429 after ${REQUESTS_MAX} requests`);
}

describe('GET /account/limits is the budget the buckets enforce', () => {
  it('Basic: reports read 200/200 and write 100/100, grants none', async () => {
    const basic = new RestClient(sim.httpUrl, sim.createApiKey({ scopes: ['read', 'write'], tier: 'basic' }));
    const result = await basic.get('/account/limits');
    expect(result.status).toBe(200);
    expect(result.body).toEqual({
      usage_tier: 'basic',
      read: { refill_rate: 200, bucket_capacity: 200 },
      write: { refill_rate: 100, bucket_capacity: 100 },
      grants: [],
    });
  });

  it('Basic write: exactly bucket_capacity / cancel cost cancels, then 429 {"error":"too many requests"}', async () => {
    const basic = new RestClient(sim.httpUrl, sim.createApiKey({ scopes: ['read', 'write'], tier: 'basic' }));
    const limits = (await basic.get('/account/limits')).body as Limits;
    const costs = (await basic.get('/account/endpoint_costs')).body as { default_cost: number; endpoint_costs: Array<{ method: string; path: string; cost: number }> };
    const cancel = costs.endpoint_costs.find((e) => e.method === 'DELETE' && e.path === '/trade-api/v2/portfolio/events/orders/{order_id}');
    expect(cancel?.cost).toBe(2);
    // A cancel of an unknown order answers 404 but is billed: admission runs before the handler.
    const admitted = await admittedBefore429(() => basic.delete(`/portfolio/events/orders/${UNKNOWN_ORDER}`));
    expect(admitted).toBe(limits.write.bucket_capacity / cancel!.cost);
    const refused = await basic.delete(`/portfolio/events/orders/${UNKNOWN_ORDER}`);
    expect(refused.status).toBe(429);
    expect(refused.body).toEqual({ error: 'too many requests' });
    // The read bucket is separate: reads still pass.
    expect((await basic.get('/account/limits')).status).toBe(200);
  });

  it('Basic read: the default cost of 10 from a 200-token bucket admits exactly 20 reads', async () => {
    const basic = new RestClient(sim.httpUrl, sim.createApiKey({ scopes: ['read', 'write'], tier: 'basic' }));
    const limits = (await basic.get('/account/limits')).body as Limits; // itself a read of cost 10
    const costs = (await basic.get('/account/endpoint_costs')).body as { default_cost: number }; // another 10
    const admitted = await admittedBefore429(() => basic.get('/portfolio/balance'));
    expect(admitted + 2).toBe(limits.read.bucket_capacity / costs.default_cost);
  });

  it('Basic perps lane: /account/limits/perps read capacity / 10 margin reads, apart from the Predictions bucket', async () => {
    const key = sim.createApiKey({ scopes: ['read', 'write'], tier: 'basic' });
    const basic = new RestClient(sim.httpUrl, key);
    const perps = (await basic.get('/account/limits/perps')).body as Limits; // a Predictions-lane read
    expect(perps.read).toEqual({ refill_rate: 400, bucket_capacity: 400 });
    const admitted = await admittedBefore429(() => basic.get('/margin/markets'));
    expect(admitted).toBe(perps.read.bucket_capacity / 10);
    // The Predictions read bucket paid only for the perps limits read above.
    expect(sim.rateLimiter.available(key.keyId, 'basic', 'read')).toBe(200 - 10);
  });

  it('every tier reports the limiter\'s own table, and its buckets start that full', async () => {
    for (const tier of RATE_LIMIT_TIERS) {
      const key = sim.createApiKey({ scopes: ['read'], tier });
      const result = await new RestClient(sim.httpUrl, key).get('/account/limits');
      expect(result.status).toBe(200);
      const limits = result.body as Limits;
      const budget = TIER_BUDGETS[tier];
      expect(limits.usage_tier).toBe(tier);
      expect(limits.read).toEqual({ refill_rate: budget.read.refillPerSecond, bucket_capacity: budget.read.capacity });
      expect(limits.write).toEqual({ refill_rate: budget.write.refillPerSecond, bucket_capacity: budget.write.capacity });
      // Frozen clock: after the one read of cost 10, the read bucket is capacity - 10 and the write bucket full.
      expect(sim.rateLimiter.available(key.keyId, tier, 'read')).toBe(limits.read.bucket_capacity - 10);
      expect(sim.rateLimiter.available(key.keyId, tier, 'write')).toBe(limits.write.bucket_capacity);
    }
  });
});
