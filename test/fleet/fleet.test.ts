/**
 * Goal: runtimes sharing one account through the fleet (src/fleet) never overdraw its REST budget,
 * halt together on one kill switch, take up a dead runtime's share (one abandoned in process; one
 * main job killed with SIGKILL, whose order watchdog cancels what it left resting), and survive a
 * Redis restart without overdrawing and trade again after it.
 * Method: one in-process simulator and a real redis-server (child process, free port); three
 * in-process Runtimes on one Basic-tier key (100 write tokens/s, capacity 100) each run a flood
 * plugin that wants more than the whole budget. The simulator's rate limiter is wrapped to count
 * 429s and the write tokens it admitted for that key. Every wait is bounded.
 */

import { createPrivateKey } from 'node:crypto';
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { LEASABLE_PPM, killRecord, publishKillRecord } from '../../src/fleet/index.ts';
import type { FleetKillRecord } from '../../src/fleet/index.ts';
import { Runtime } from '../../src/runtime/runtime.ts';
import { MARKET, ROOT_DIR, demoKey, rest, startTestSim, waitUntil } from '../integration/helpers.ts';
import { runMain, venueResting } from '../integration/main-process.ts';
import type { ApiKey, TestSim } from '../integration/helpers.ts';
import { fleetRuntime as buildFleetRuntime } from './fleet-runtime.ts';
import { startTestRedis } from './redis-server.ts';
import type { TestRedis } from './redis-server.ts';

const LEASE_TTL_MS = 1_000;
const RENEW_MS = 100;
const TEST_BOUND_MS = 60_000;

let sim: TestSim;
let redis: TestRedis;
let admin: Redis;
let runtimes: Runtime[] = [];
let runCounter = 0;
/** What the simulator's rate limiter did for the test's key. */
const meter = { keyId: '', refused: 0, writeTokens: 0 };

beforeAll(async () => {
  sim = await startTestSim();
  redis = await startTestRedis();
  admin = new Redis(redis.url, { maxRetriesPerRequest: 1, retryStrategy: () => 100 });
  admin.on('error', () => {});
  const limiter = sim.rateLimiter;
  const admit = limiter.admit.bind(limiter);
  limiter.admit = (callerId, tier, bucket, cost) => {
    const admitted = admit(callerId, tier, bucket, cost);
    if (callerId === meter.keyId) {
      if (!admitted) meter.refused++;
      else if (bucket === 'write') meter.writeTokens += cost;
    }
    return admitted;
  };
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

/** A fresh Basic-tier key of the demo account, metered, and an empty Redis. */
async function freshAccount(): Promise<ApiKey & { privateKeyPem: string }> {
  await admin.flushall();
  const created = sim.createApiKey({ scopes: ['read', 'write'], tier: 'basic' });
  meter.keyId = created.keyId;
  meter.refused = 0;
  meter.writeTokens = 0;
  return { keyId: created.keyId, privateKey: createPrivateKey(created.privateKeyPem), privateKeyPem: created.privateKeyPem };
}

function fleetRuntime(key: ApiKey, name: string, subaccount: number): Runtime {
  runCounter++;
  return buildFleetRuntime(sim, { key, name, subaccount, plugin: 'bench/fleet/flood-plugin.ts', redisUrl: redis.url, leaseTtlMs: LEASE_TTL_MS, renewMs: RENEW_MS, tag: `f${runCounter}` });
}

/** Three runtimes on one key, subaccounts 1..3 (their resting orders are told apart by subaccount). */
async function startFleet(key: ApiKey): Promise<Runtime[]> {
  runtimes = [1, 2, 3].map((subaccount) => fleetRuntime(key, `rt${subaccount}`, subaccount));
  await Promise.all(runtimes.map((runtime) => runtime.start()));
  return runtimes;
}

/** Read with the demo key (same account, its own bucket): the test's reads never spend the fleet's budget. */
async function restingCount(_key: ApiKey, subaccount: number): Promise<number> {
  const reply = await rest(sim, demoKey(sim), 'GET', `/portfolio/orders?status=resting&subaccount=${subaccount}`);
  return (reply.body.orders as unknown[]).length;
}

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));
const sent = (fleet: readonly Runtime[]): number[] => fleet.map((runtime) => runtime.status().ordersSent);

describe('a fleet of three runtimes on one Basic-tier account', () => {
  it('shares the write budget: every runtime trades, the venue answers no 429, admitted writes stay within the bucket', async () => {
    const key = await freshAccount();
    const fleet = await startFleet(key);
    await waitUntil(() => fleet.every((runtime) => runtime.fleet!.leased), 5_000, 'three leases');
    const startedMs = Date.now();
    const tokensAtStart = meter.writeTokens;
    await sleep(3_000);
    const elapsedS = (Date.now() - startedMs) / 1000;
    const spent = meter.writeTokens - tokensAtStart;
    expect(meter.refused).toBe(0);
    for (const count of sent(fleet)) expect(count).toBeGreaterThan(2);
    // The venue's own bound (capacity 100 + 100/s), and the demand was real: well above one runtime's share.
    expect(spent).toBeLessThanOrEqual(100 + 100 * (elapsedS + 0.5));
    expect(spent).toBeGreaterThan(100 * elapsedS * 0.5);
    const shares = fleet.map((runtime) => runtime.fleet!.status().sharePpm);
    expect(shares.reduce((a, b) => a + b, 0)).toBeLessThanOrEqual(LEASABLE_PPM);
    const stored = await admin.hgetall(`fleet:budget:${key.keyId}`);
    expect(Object.keys(stored).filter((field) => !field.startsWith('@')).sort()).toEqual(['rt1', 'rt2', 'rt3']);
  }, TEST_BOUND_MS);

  it('one runtime\'s kill switch halts all three and leaves no resting order; a runtime started later sees it', async () => {
    const key = await freshAccount();
    const fleet = await startFleet(key);
    await waitUntil(async () => (await restingCount(key, 2)) > 0 && (await restingCount(key, 3)) > 0, 10_000, 'resting orders of rt2 and rt3');
    await fleet[0]!.engageKillSwitch('test: account-wide', 'operator');
    await waitUntil(() => fleet.every((runtime) => runtime.gate.killed), 5_000, 'every runtime killed');
    await waitUntil(async () => (await restingCount(key, 1)) + (await restingCount(key, 2)) + (await restingCount(key, 3)) === 0, 10_000, 'no resting order');
    expect(fleet[2]!.status().killSwitch?.source).toMatch(/^fleet: runtime rt1/);
    expect(JSON.parse((await admin.get('fleet:kill'))!)).toMatchObject({ engaged: true, reason: 'test: account-wide' });
    // A runtime that starts later sees the persisted kill switch.
    const late = fleetRuntime(key, 'late', 4);
    runtimes.push(late);
    await late.start();
    await waitUntil(() => late.gate.killed, 5_000, 'the late runtime killed');
    expect(meter.refused).toBe(0);
    // An older change (a renewal answered before the kill, read after it) never undoes it: the
    // stored record is replaced by a release stamped before the kill, and every renewal reads it.
    const stored = JSON.parse((await admin.get('fleet:kill'))!) as FleetKillRecord;
    expect(stored.version).toBeGreaterThan(0);
    await admin.set('fleet:kill', JSON.stringify({ ...killRecord(false, 'stale', 'test', 0), version: stored.version - 1 }));
    await sleep(5 * RENEW_MS);
    expect([...fleet, late].every((runtime) => runtime.gate.killed)).toBe(true);
    // The same change stored again (a publish retried after a lost answer) is newer still: a record
    // stamped between the two stores must not pass as newer than what each runtime holds.
    await sleep(5);
    const restoredVersion = await publishKillRecord(admin, stored);
    expect(restoredVersion).toBeGreaterThan(stored.version + 1);
    await sleep(5 * RENEW_MS);
    await admin.set('fleet:kill', JSON.stringify({ ...killRecord(false, 'stale', 'test', 0), version: restoredVersion - 1 }));
    await sleep(5 * RENEW_MS);
    expect([...fleet, late].every((runtime) => runtime.gate.killed)).toBe(true);
    // A newer release (stamped by Redis as it is stored) releases every runtime.
    await publishKillRecord(admin, killRecord(false, 'test: released', 'test', Date.now()));
    await waitUntil(() => [...fleet, late].every((runtime) => !runtime.gate.killed), 5_000, 'every runtime released');
  }, TEST_BOUND_MS);

  it('a runtime that dies gives its share back within its TTL and the others take it up', async () => {
    const key = await freshAccount();
    const fleet = await startFleet(key);
    await waitUntil(() => fleet.every((runtime) => runtime.fleet!.leased), 5_000, 'three leases');
    await sleep(1_000);
    expect(fleet[0]!.fleet!.status().sharePpm).toBeLessThanOrEqual(LEASABLE_PPM / 2);
    await fleet[2]!.abandon(); // a crash: no give-back, the lease expires on Redis's clock
    await waitUntil(() => fleet[0]!.fleet!.status().sharePpm + fleet[1]!.fleet!.status().sharePpm > LEASABLE_PPM * 0.9, 3 * LEASE_TTL_MS + 2_000, 'the survivors taking up the share');
    const before = sent(fleet);
    await sleep(1_000);
    const after = sent(fleet);
    expect(after[0]! + after[1]! - before[0]! - before[1]!).toBeGreaterThan(4);
    expect(meter.refused).toBe(0);
  }, TEST_BOUND_MS);

  it('kill -9 of a runtime process: its watchdog cancels its orders, its lease returns within its TTL, and the others take up the budget', async () => {
    const key = await freshAccount();
    runtimes = [1, 2].map((subaccount) => fleetRuntime(key, `rt${subaccount}`, subaccount));
    await Promise.all(runtimes.map((runtime) => runtime.start()));
    // The third runtime is the main job, as a user starts it, against the simulator as a remote venue.
    const keyPath = join(sim.workDir, `fleet-kill9-${key.keyId}.pem`);
    writeFileSync(keyPath, key.privateKeyPem, { mode: 0o600 });
    const configPath = join(sim.workDir, 'fleet-kill9.json');
    writeFileSync(configPath, JSON.stringify({
      venue: { mode: 'remote', restUrl: `${sim.httpUrl}/trade-api/v2`, wsUrl: sim.wsUrl },
      risk: { rateLimitTier: 'auto' },
      workers: { enabled: false },
      fleet: { redisUrl: redis.url, runtimeName: 'rt3', leaseTtlMs: LEASE_TTL_MS, renewMs: RENEW_MS },
      strategies: [{ id: 'kill9-maker', plugin: 'strategies/join-best-bid.ts', subaccount: 3, orderGroup: null, markets: [MARKET], params: {} }],
    }));
    const journal = join(ROOT_DIR, 'var', 'journal', `${new URL(sim.httpUrl).host.replace(/[^A-Za-z0-9.-]/g, '_')}-${key.keyId.slice(0, 8).replace(/[^A-Za-z0-9]/g, '_')}.jsonl`);
    let killedAtMs = 0;
    let sharesBefore = 0;
    try {
      const run = await runMain(['--config', configPath], {
        env: { KALSHI_API_KEY_ID: key.keyId, KALSHI_PRIVATE_KEY_PATH: keyPath },
        timeoutMs: 45_000,
        onLine: (line, child) => {
          if (killedAtMs !== 0 || !line.startsWith('{"event":"status"')) return;
          // Killed only once the simulator rests its order, so the watchdog has something to cancel.
          const share = runtimes[0]!.fleet!.status().sharePpm + runtimes[1]!.fleet!.status().sharePpm;
          // Its order rests and its lease holds a share: the two others hold less than all of it.
          const restingAtVenue = sim.engine.restingOrders(sim.userId).filter((order) => order.subaccount === 3).length;
          if ((JSON.parse(line) as { openOrders: number }).openOrders >= 1 && restingAtVenue >= 1 && runtimes.every((runtime) => runtime.fleet!.leased) && share < LEASABLE_PPM * 0.8) {
            sharesBefore = share;
            killedAtMs = Date.now();
            child.kill('SIGKILL');
          }
        },
      });
      expect(run.signal, 'killed by the test once its order rested and its lease held (not by the bound)').toBe('SIGKILL');
      expect(run.stderr).toContain('order watchdog armed');
      await waitUntil(async () => (await venueResting(sim, 3)).length === 0, 15_000, 'the watchdog cancelled the dead runtime\'s orders');
      await waitUntil(() => runtimes[0]!.fleet!.status().sharePpm + runtimes[1]!.fleet!.status().sharePpm > LEASABLE_PPM * 0.9, 3 * LEASE_TTL_MS + 2_000, 'the survivors taking up the dead runtime\'s share');
      process.stderr.write(`fleet kill -9: the survivors' share ${sharesBefore} ppm before, over ${LEASABLE_PPM * 0.9} ppm ${Date.now() - killedAtMs} ms after SIGKILL\n`);
      const before = sent(runtimes);
      await sleep(1_000);
      const after = sent(runtimes);
      expect(after[0]! + after[1]! - before[0]! - before[1]!).toBeGreaterThan(4);
      expect(meter.refused).toBe(0);
    } finally {
      rmSync(journal, { force: true });
      rmSync(keyPath, { force: true });
    }
  }, TEST_BOUND_MS);

  it('Redis stopped mid-run: runtimes lapse (cancels only), overdraw nothing, and trade again when it returns', async () => {
    const key = await freshAccount();
    const fleet = await startFleet(key);
    await waitUntil(() => fleet.every((runtime) => runtime.fleet!.leased), 5_000, 'three leases');
    await sleep(500);
    await redis.stop();
    await waitUntil(() => fleet.every((runtime) => !runtime.fleet!.leased), 3 * LEASE_TTL_MS, 'every lease lapsed');
    const lapsed = sent(fleet);
    await sleep(500);
    expect(sent(fleet)).toEqual(lapsed); // no new order while lapsed
    await redis.start();
    await waitUntil(() => fleet.every((runtime) => runtime.fleet!.leased), 10_000, 'leases again after Redis returned');
    await waitUntil(() => sent(fleet).every((count, index) => count > lapsed[index]!), 10_000, 'every runtime trading again');
    expect(meter.refused).toBe(0);
    expect(fleet.every((runtime) => !runtime.gate.killed)).toBe(true);
    // The kill channel was subscribed again after the restart: a change only published (never
    // stored, so no renewal can carry it) reaches every runtime.
    const record = { id: `pubsub-${Date.now()}`, engaged: true, reason: 'test: after restart', by: 'test', tsMs: Date.now() };
    expect(await admin.publish('fleet:kill', JSON.stringify(record))).toBe(fleet.length); // one subscriber connection per runtime
    await waitUntil(() => fleet.every((runtime) => runtime.gate.killed), 5_000, 'every runtime killed over pub/sub');
  }, TEST_BOUND_MS);
});
