/**
 * Goal: an account-wide position limit holds across a fleet of runtimes under concurrent fills
 * (src/fleet/limit-lease.ts): each runtime's gate checks against its leased share, shares are
 * granted only from the unleased remainder, so the sum of the runtimes' positions at the venue
 * never exceeds the limit, while together they come close to it (shares move to where demand is).
 * Also the lease table's rules on their own: a grant never exceeds the remainder, a runtime that
 * stops keeps reserving what it still holds and gives back the rest, a dead one's unused share
 * returns after its TTL.
 * Method: a real redis-server (child process, free port) and one in-process simulator with seeded
 * liquidity; three in-process Runtimes on one Prime-tier key (ample write budget), subaccounts
 * 1..3, each running a taker plugin that buys with immediate-or-cancel bids at the best ask as fast
 * as its gate allows. The simulator's positions are read in-process (one synchronous read of all
 * three: an atomic sample) every few ms while they run, and at the end. Every wait is bounded.
 */

import { createPrivateKey } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { LimitKind, giveBackLimits, leaseLimits, limitsKey } from '../../src/fleet/index.ts';
import type { LimitAsk } from '../../src/fleet/index.ts';
import { Runtime } from '../../src/runtime/runtime.ts';
import { MARKET, startTestSim, waitUntil } from '../integration/helpers.ts';
import type { ApiKey, TestSim } from '../integration/helpers.ts';
import { fleetRuntime } from './fleet-runtime.ts';
import { startTestRedis } from './redis-server.ts';
import type { TestRedis } from './redis-server.ts';

const LEASE_TTL_MS = 1_000;
const RENEW_MS = 100;
const TEST_BOUND_MS = 60_000;
/** The account-wide limit: 40 contracts (1/100 contract units); takes of 2 contracts. */
const MARKET_POSITION_MAX = 4_000;
const SAMPLE_MS = 5;

let sim: TestSim;
let redis: TestRedis;
let admin: Redis;
let runtimes: Runtime[] = [];
let runCounter = 0;

beforeAll(async () => {
  sim = await startTestSim({ seedLiquidity: true });
  redis = await startTestRedis();
  admin = new Redis(redis.url, { maxRetriesPerRequest: 1 });
  admin.on('error', () => {});
}, 30_000);

afterEach(async () => {
  await Promise.all(runtimes.map((runtime) => runtime.stop('test end').catch(() => undefined)));
  runtimes = [];
});

afterAll(async () => {
  admin?.disconnect();
  await redis?.stop();
  await sim?.close();
});

function takerRuntime(key: ApiKey, name: string, subaccount: number): Runtime {
  runCounter++;
  return fleetRuntime(sim, {
    key, name, subaccount, plugin: 'test/fleet/taker-plugin.ts', risk: { maxPositionPerMarket: '40.00' },
    redisUrl: redis.url, leaseTtlMs: LEASE_TTL_MS, renewMs: RENEW_MS, tag: `l${runCounter}`,
  });
}

/** The three subaccounts' positions in MARKET at the simulator, read in one synchronous turn. */
function venuePositions(): number[] {
  return [1, 2, 3].map((subaccount) => Number(sim.engine.getPosition(sim.userId, MARKET, subaccount)?.position ?? 0));
}

const sum = (values: readonly number[]): number => values.reduce((a, b) => a + b, 0);
const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

describe('account-wide position limit across a fleet', () => {
  it('three aggressive takers on one market: the sum of their venue positions never exceeds the limit and comes close to it', async () => {
    await admin.flushall();
    const created = sim.createApiKey({ scopes: ['read', 'write'], tier: 'prime' });
    const key = { keyId: created.keyId, privateKey: createPrivateKey(created.privateKeyPem) };
    expect(sum(venuePositions())).toBe(0);
    runtimes = [1, 2, 3].map((subaccount) => takerRuntime(key, `taker${subaccount}`, subaccount));
    await Promise.all(runtimes.map((runtime) => runtime.start()));
    let samples = 0;
    let sumMax = 0;
    const deadline = Date.now() + 20_000;
    // Sample while they buy, until the fleet reached 90% of the limit and then for another second.
    let closeSinceMs = 0;
    while (Date.now() < deadline && (closeSinceMs === 0 || Date.now() - closeSinceMs < 1_000)) {
      const total = sum(venuePositions());
      samples++;
      sumMax = Math.max(sumMax, total);
      expect(total).toBeLessThanOrEqual(MARKET_POSITION_MAX);
      if (closeSinceMs === 0 && total >= MARKET_POSITION_MAX * 0.9) closeSinceMs = Date.now();
      await sleep(SAMPLE_MS);
    }
    const positions = venuePositions();
    expect(sum(positions)).toBeLessThanOrEqual(MARKET_POSITION_MAX);
    expect(sum(positions)).toBeGreaterThanOrEqual(MARKET_POSITION_MAX * 0.9);
    expect(samples).toBeGreaterThan(10);
    // Every runtime bought (the shares went to all three), and none holds more than its share.
    for (const [index, runtime] of runtimes.entries()) {
      expect(positions[index]).toBeGreaterThan(0);
      const share = runtime.fleet!.status().limitShares[LimitKind.MARKET_POSITION]!;
      expect(positions[index]).toBeLessThanOrEqual(share);
    }
    // What Redis reserves for the three adds up to at most the limit.
    const shares = runtimes.map((runtime) => runtime.fleet!.status().limitShares[LimitKind.MARKET_POSITION]!);
    expect(sum(shares)).toBeLessThanOrEqual(MARKET_POSITION_MAX);
    expect(sumMax).toBeLessThanOrEqual(MARKET_POSITION_MAX);
  }, TEST_BOUND_MS);
});

/** One ask per LimitKind: only the market position limit set. */
function asks(want: number, used: number): LimitAsk[] {
  return [{ limit: 1_000, want, used }, { limit: 0, want: 0, used: 0 }, { limit: 0, want: 0, used: 0 }, { limit: 0, want: 0, used: 0 }];
}

describe('the limit lease table (Lua, real Redis)', () => {
  it('grants only the remainder, never lowers a grant on its own, and a stopped runtime keeps reserving what it holds', async () => {
    await admin.flushall();
    const ttlMs = 300;
    const key = 'k-table';
    // A fresh table grants nothing new for one TTL.
    expect((await leaseLimits(admin, key, 'a', asks(600, 0), ttlMs))[0]).toBe(0);
    await sleep(ttlMs + 50);
    expect((await leaseLimits(admin, key, 'a', asks(600, 0), ttlMs))[0]).toBe(600);
    expect((await leaseLimits(admin, key, 'b', asks(600, 0), ttlMs))[0]).toBe(400); // the remainder
    expect((await leaseLimits(admin, key, 'c', asks(100, 0), ttlMs))[0]).toBe(0);
    // b asks for more than is free: it keeps what it has, never less.
    expect((await leaseLimits(admin, key, 'b', asks(900, 350), ttlMs))[0]).toBe(400);
    // a gives back down to 250 (it lowered its local share first); c takes what a freed.
    expect((await leaseLimits(admin, key, 'a', asks(250, 200), ttlMs))[0]).toBe(250);
    expect((await leaseLimits(admin, key, 'c', asks(500, 0), ttlMs))[0]).toBe(350);
    // a stops holding 200: its unused 50 returns, the 200 stays reserved (its position is at the venue).
    await giveBackLimits(admin, key, 'a', asks(0, 200), ttlMs);
    expect((await leaseLimits(admin, key, 'c', asks(500, 0), ttlMs))[0]).toBe(400);
    // b dies without giving back (no renewal): after its TTL its unused share returns, its last use (350) stays.
    await sleep(ttlMs + 50);
    expect((await leaseLimits(admin, key, 'c', asks(1_000, 0), ttlMs))[0]).toBe(1_000 - 200 - 350);
    // a restarts under its name and reports it holds nothing now: its reservation is gone.
    expect((await leaseLimits(admin, key, 'a', asks(0, 0), ttlMs))[0]).toBe(0);
    expect((await leaseLimits(admin, key, 'c', asks(1_000, 0), ttlMs))[0]).toBe(1_000 - 350);
    const stored = await admin.hgetall(limitsKey(key));
    // b's expired leases of limits it did not use are dropped; its market position (350) stays.
    expect(Object.keys(stored).sort()).toEqual(['@born', 'a|0', 'a|1', 'a|2', 'a|3', 'b|0', 'c|0', 'c|1', 'c|2', 'c|3']);
  }, TEST_BOUND_MS);
});
