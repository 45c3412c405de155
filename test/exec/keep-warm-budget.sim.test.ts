/**
 * Goal: the order route's keep-warm GETs are reads the venue bills, so each one spends the read
 * budget the runtime wires in (the gate's bucket, a fleet's lease): a beat the budget cannot pay
 * for sends fewer GETs, none beyond what was granted; and each read taken is settled once (its
 * GET answered or failed), so the read mirror stops counting it on the way.
 * Method: a RestOrderEntry against the in-process simulator with a fast keep-warm beat (50 ms) and
 * a read budget that grants a fixed number of tokens; every socket is idle, so each beat wants a
 * GET per socket. Bounded: a few hundred ms of beats.
 */

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadPrivateKey, systemClock } from '../../src/core/index.ts';
import { REST_ORDER_ENTRY_DEFAULTS, RestOrderEntry } from '../../src/exec/index.ts';
import { startSim, type SimHandle } from '../../src/sim/index.ts';
import { ListenerWithUnknowns } from './recording-listener.ts';

let sim: SimHandle;
let keysDir: string;

beforeAll(async () => {
  keysDir = mkdtempSync(join(tmpdir(), 'exec-warm-keys-'));
  sim = await startSim({ keysDir, rateLimits: false });
});

afterAll(async () => {
  await sim?.close();
  rmSync(keysDir, { recursive: true, force: true });
});

function entry(): RestOrderEntry {
  const created = new RestOrderEntry({
    ...REST_ORDER_ENTRY_DEFAULTS,
    baseUrl: sim.httpUrl,
    keyId: sim.demoKey.keyId,
    privateKey: loadPrivateKey(sim.demoKey.privateKeyPem),
    clock: systemClock,
    connections: 2,
    keepAliveIntervalMs: 50,
    signing: 'inline',
  });
  created.setListener(new ListenerWithUnknowns());
  return created;
}

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

describe('keep-warm GETs spend the read budget', () => {
  it('sends no more keep-warm GETs than the budget granted, and asks for each one', async () => {
    const warm = entry();
    let granted = 3;
    let asked = 0;
    let settled = 0;
    warm.setReadBudget(() => {
      asked++;
      if (granted === 0) return false;
      granted--;
      return true;
    }, () => settled++);
    try {
      await warm.connect(); // the connect's own warm-up (2 pooled + 2 raw sockets) spends 3 tokens here
      expect(warm.stats.warmRequests).toBe(3);
      expect(settled).toBe(3);
      granted = 3;
      const afterConnect = warm.stats.warmRequests;
      await sleep(600); // about 12 beats, each wanting up to 4 GETs
      expect(warm.stats.warmRequests - afterConnect).toBe(3);
      expect(asked).toBeGreaterThan(3); // later beats asked and were refused
      expect(settled).toBe(6); // each granted read answered and settled once; refusals settle nothing
    } finally {
      await warm.close();
    }
  });

  it('with tokens to spare, every keep-warm GET took one', async () => {
    const warm = entry();
    let taken = 0;
    let settled = 0;
    warm.setReadBudget(() => {
      taken++;
      return true;
    }, () => {
      settled++;
      expect(settled).toBeLessThanOrEqual(taken);
    });
    try {
      await warm.connect();
      expect(warm.stats.warmRequests).toBe(4); // 2 pooled + 2 raw sockets, each paid
      expect(taken).toBe(4);
      const afterConnect = warm.stats.warmRequests;
      await sleep(500);
      const sent = warm.stats.warmRequests - afterConnect;
      const takenSince = taken - 4; // the beats' tokens, the connect's 4 aside
      expect(sent).toBeGreaterThan(0);
      // Counted when answered: a beat still out (at most one: 2 pooled + 2 raw sockets) took its tokens already.
      expect(sent).toBeLessThanOrEqual(takenSince);
      expect(takenSince - sent).toBeLessThanOrEqual(4);
    } finally {
      await warm.close();
    }
    // A beat out at the close ends too (its GETs fail): every read taken is settled, none twice.
    const deadline = Date.now() + 2_000;
    while (settled < taken && Date.now() < deadline) await sleep(20);
    expect(settled).toBe(taken);
  });
});

describe('every read the venue bills for the route is paid from the read budget', () => {
  it('the connect and the keep-warm beats: the venue admitted exactly the read tokens the budget gave', async () => {
    // A simulator with rate limits on, its limiter counted for this key (the verdict is its own).
    const limitedKeys = mkdtempSync(join(tmpdir(), 'exec-warm-limited-keys-'));
    const limited = await startSim({ keysDir: limitedKeys });
    let billed = 0;
    const admit = limited.rateLimiter.admit.bind(limited.rateLimiter);
    limited.rateLimiter.admit = (callerId, tier, bucket, cost) => {
      const admitted = admit(callerId, tier, bucket, cost);
      if (admitted && callerId === limited.demoKey.keyId && bucket === 'read') billed += cost;
      return admitted;
    };
    const warm = new RestOrderEntry({
      ...REST_ORDER_ENTRY_DEFAULTS,
      baseUrl: limited.httpUrl,
      keyId: limited.demoKey.keyId,
      privateKey: loadPrivateKey(limited.demoKey.privateKeyPem),
      clock: systemClock,
      connections: 2,
      keepAliveIntervalMs: 50,
      signing: 'inline',
    });
    warm.setListener(new ListenerWithUnknowns());
    let taken = 0;
    let settled = 0;
    warm.setReadBudget(() => {
      taken++;
      return true;
    }, () => settled++);
    try {
      await warm.connect();
      expect(taken).toBeGreaterThan(0);
      await sleep(300);
    } finally {
      await warm.close();
      await limited.close();
      rmSync(limitedKeys, { recursive: true, force: true });
    }
    const deadline = Date.now() + 2_000;
    while (settled < taken && Date.now() < deadline) await sleep(20);
    expect(settled).toBe(taken);
    // One take is one GET of warmPath: 10 tokens at the venue (the default cost, spec/rest.md §9),
    // what the router's takeReadToken spends of the gate's read mirror.
    expect(billed).toBe(taken * 10);
  });
});
