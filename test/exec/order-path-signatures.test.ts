// Goal: per-order paths (cancel, amend, decrease of one order id) are signed in the presigner's
// worker after track(), handed out once each, never when older than maxAgeMs, replaced after use,
// refreshed while aging, and dropped on forget(), at capacity and after idleLifetimeMs; a reply for
// an order forgotten meanwhile never fills another order's record.
// Method: a real Presigner worker with a fresh RSA key and a ManualClock driving age; every
// signature taken is checked with verifyRequest against (timestamp, method, path); waits poll the
// store's counters with bounded loops.

import { generateKeyPairSync } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { ManualClock, verifyRequest } from '../../src/core/index.ts';
import { ORDER_BATCH_MAX, OrderPathKind, OrderPathSignatures, type OrderPathSignaturesOptions } from '../../src/exec/rest/order-path-signatures.ts';
import { Presigner, signatureText, type PresignedSignature } from '../../src/exec/rest/presigner.ts';

const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
const ORDERS = '/trade-api/v2/portfolio/events/orders';
const T0 = 1_781_821_370_000;

let presigner: Presigner | null = null;
afterEach(async () => {
  await presigner?.close();
  presigner = null;
});

async function until(condition: () => boolean): Promise<void> {
  for (let i = 0; i < 500 && !condition(); i++) await new Promise((resolve) => setTimeout(resolve, 10));
  expect(condition()).toBe(true);
}

async function store(clock: ManualClock, overrides: Partial<OrderPathSignaturesOptions> = {}): Promise<OrderPathSignatures> {
  presigner = await Presigner.start({
    privateKey, clock, endpoints: [{ method: 'POST', path: ORDERS, capacity: 1 }],
    maxAgeMs: 3_000, refreshLeadMs: 1_000, tickMs: 10_000, startTimeoutMs: 10_000, refillOnTake: false,
  });
  return new OrderPathSignatures({
    presigner, clock, ordersPath: ORDERS, kinds: [OrderPathKind.CANCEL, OrderPathKind.AMEND, OrderPathKind.DECREASE],
    capacity: 4, maxAgeMs: 3_000, refreshLeadMs: 1_000, idleLifetimeMs: 30_000, ...overrides,
  });
}

const out: PresignedSignature = { timestampText: '', signature: '' };

/** The paths of each batch the store asks the presigner for from now on, in order. */
function recordBatches(): string[][] {
  const batches: string[][] = [];
  const signBatch = presigner!.signBatch.bind(presigner);
  presigner!.signBatch = (methods, batchPaths, done) => {
    batches.push([...batchPaths]);
    signBatch(methods, batchPaths, done);
  };
  return batches;
}

function verifies(method: string, path: string): boolean {
  return verifyRequest(publicKey, Number(out.timestampText), method, path, signatureText(out));
}

describe('OrderPathSignatures', () => {
  it('peek reads the signature take() would hand out and takes, touches and counts nothing; lastTracked is the order tracked last while kept', async () => {
    const clock = new ManualClock(T0);
    const paths = await store(clock);
    expect(paths.lastTracked).toBe('');
    paths.track('ord-a');
    paths.track('ord-b');
    expect(paths.lastTracked).toBe('ord-b');
    expect(paths.peek('ord-b', OrderPathKind.AMEND, out)).toBe(false); // not signed yet
    paths.flush();
    await until(() => paths.stats.signed === 6);
    clock.advance(500);
    const stats = { ...paths.stats };
    for (let i = 0; i < 3; i++) {
      expect(paths.peek('ord-b', OrderPathKind.AMEND, out)).toBe(true);
      expect(verifies('POST', `${ORDERS}/ord-b/amend`)).toBe(true);
    }
    const peeked = Buffer.from(out.signedBytes!).toString('latin1');
    expect(paths.stats).toEqual(stats);
    expect(paths.ready('ord-b', OrderPathKind.AMEND)).toBe(true);
    // take() hands out the very signature peek read, then there is none to peek.
    expect(paths.take('ord-b', OrderPathKind.AMEND, out)).toBe(true);
    expect(Buffer.from(out.signedBytes!).toString('latin1')).toBe(peeked);
    expect(paths.peek('ord-b', OrderPathKind.AMEND, out)).toBe(false);
    // Too old: take() would refuse it, so peek does too (and leaves it for take to drop).
    clock.advance(3_000);
    expect(paths.peek('ord-a', OrderPathKind.AMEND, out)).toBe(false);
    expect(paths.peek('unknown', OrderPathKind.AMEND, out)).toBe(false);
    paths.forget('ord-b');
    expect(paths.lastTracked).toBe('');
  });

  it('signs the cancel path of a tracked order in a batch of its own, then its amend and decrease paths; each is used once', async () => {
    const clock = new ManualClock(T0);
    const paths = await store(clock);
    paths.track('ord/1'); // an id that needs percent-encoding in the path
    expect(paths.path('ord/1', OrderPathKind.AMEND)).toBe(`${ORDERS}/ord%2F1/amend`);
    expect(paths.path('ord/1', OrderPathKind.CANCEL)).toBe(`${ORDERS}/ord%2F1`);
    expect(paths.path('other', OrderPathKind.AMEND)).toBeNull();
    const requestedBefore = presigner!.stats.requested;
    paths.flush();
    expect(presigner!.stats.requested - requestedBefore).toBe(1); // the cancel; its answer asks for the other two
    await until(() => paths.stats.signed === 3);
    expect(presigner!.stats.requested - requestedBefore).toBe(3);

    clock.advance(500);
    expect(paths.take('ord/1', OrderPathKind.AMEND, out)).toBe(true);
    expect(out.timestampText).toBe(String(T0));
    expect(verifies('POST', `${ORDERS}/ord%2F1/amend`)).toBe(true);
    expect(paths.take('ord/1', OrderPathKind.DECREASE, out)).toBe(true);
    expect(verifies('POST', `${ORDERS}/ord%2F1/decrease`)).toBe(true);
    expect(paths.take('ord/1', OrderPathKind.CANCEL, out)).toBe(true);
    expect(verifies('DELETE', `${ORDERS}/ord%2F1`)).toBe(true);
    // Kept as the request head's bytes only: no signature string reached this thread.
    expect(out.signature).toBe('');
    expect(Buffer.from(out.signedBytes!).toString('latin1')).toMatch(new RegExp(`^${out.timestampText}\r\nKALSHI-ACCESS-SIGNATURE: [A-Za-z0-9+/]{342}==$`));
    // Used: the next take misses until a replacement is made.
    expect(paths.take('ord/1', OrderPathKind.AMEND, out)).toBe(false);
    expect(paths.stats.missed).toBe(1);
    paths.flush();
    await until(() => paths.stats.signed === 6);
    expect(paths.take('ord/1', OrderPathKind.AMEND, out)).toBe(true);
    expect(out.timestampText).toBe(String(T0 + 500));
    expect(verifies('POST', `${ORDERS}/ord%2F1/amend`)).toBe(true);
  });

  it('with depth 2 keeps two signatures per path once it is used (one before): two amends in a row both take one, oldest first', async () => {
    const clock = new ManualClock(T0);
    const paths = await store(clock, { kinds: [OrderPathKind.AMEND], depth: 2 });
    paths.track('o-2');
    paths.flush();
    await until(() => paths.stats.signed === 1); // one until the path is used
    clock.advance(500);
    expect(paths.take('o-2', OrderPathKind.AMEND, out)).toBe(true);
    expect(out.timestampText).toBe(String(T0));
    paths.flush(); // used: two made, timestamped now
    await until(() => paths.stats.signed === 3);
    clock.advance(500);
    paths.take('o-2', OrderPathKind.AMEND, out); // leaves one
    paths.flush(); // its replacement, timestamped now
    await until(() => paths.stats.signed === 4);
    expect(paths.take('o-2', OrderPathKind.AMEND, out)).toBe(true);
    expect(out.timestampText).toBe(String(T0 + 500)); // the older one first
    expect(verifies('POST', `${ORDERS}/o-2/amend`)).toBe(true);
    expect(paths.take('o-2', OrderPathKind.AMEND, out)).toBe(true);
    expect(out.timestampText).toBe(String(T0 + 1_000));
    expect(verifies('POST', `${ORDERS}/o-2/amend`)).toBe(true);
    expect(paths.take('o-2', OrderPathKind.AMEND, out)).toBe(false); // both used
    expect(paths.stats).toMatchObject({ taken: 4, missed: 1 });
    expect(() => new OrderPathSignatures({ presigner: presigner!, clock, ordersPath: ORDERS, kinds: [], capacity: 1, maxAgeMs: 3_000, refreshLeadMs: 1_000, idleLifetimeMs: 1_000, depth: 5 })).toThrow(/depth/);
  });

  it('amendDepth keeps the amend path its own count: once used, four amends in a row presigned, the decrease at depth', async () => {
    const clock = new ManualClock(T0);
    const paths = await store(clock, { kinds: [OrderPathKind.AMEND, OrderPathKind.DECREASE], depth: 1, amendDepth: 4 });
    paths.track('o-4');
    paths.flush();
    await until(() => paths.stats.signed === 2); // one per path until used
    expect(paths.take('o-4', OrderPathKind.AMEND, out)).toBe(true);
    paths.flush();
    await until(() => paths.stats.signed === 6); // the amend path now four deep
    const amends = new Set<string>();
    for (let i = 0; i < 4; i++) {
      expect(paths.take('o-4', OrderPathKind.AMEND, out)).toBe(true);
      expect(verifies('POST', `${ORDERS}/o-4/amend`)).toBe(true);
      amends.add(signatureText(out));
    }
    expect(amends.size).toBe(4);
    expect(paths.take('o-4', OrderPathKind.AMEND, out)).toBe(false);
    expect(paths.take('o-4', OrderPathKind.DECREASE, out)).toBe(true);
    expect(verifies('POST', `${ORDERS}/o-4/decrease`)).toBe(true);
    expect(paths.take('o-4', OrderPathKind.DECREASE, out)).toBe(false);
    expect(() => new OrderPathSignatures({ presigner: presigner!, clock, ordersPath: ORDERS, kinds: [], capacity: 1, maxAgeMs: 3_000, refreshLeadMs: 1_000, idleLifetimeMs: 1_000, amendDepth: 5 })).toThrow(/amendDepth/);
  });

  it('a flush while a batch is in flight is not lost: it runs when the batch is answered', async () => {
    const clock = new ManualClock(T0);
    const paths = await store(clock, { kinds: [OrderPathKind.AMEND], depth: 2 });
    paths.track('o-f');
    paths.flush();
    await until(() => paths.stats.signed === 1);
    expect(paths.take('o-f', OrderPathKind.AMEND, out)).toBe(true); // used: kept two deep from here
    paths.flush();
    await until(() => paths.stats.signed === 3);
    expect(paths.take('o-f', OrderPathKind.AMEND, out)).toBe(true);
    paths.flush(); // the first replacement's batch, in flight
    expect(paths.take('o-f', OrderPathKind.AMEND, out)).toBe(true);
    const requested = presigner!.stats.requested;
    paths.flush(); // while that batch is in flight: nothing asked now...
    expect(presigner!.stats.requested).toBe(requested);
    // ...and the second replacement asked once the first batch is answered, with no further call.
    await until(() => paths.stats.signed === 5);
    for (let i = 0; i < 2; i++) {
      expect(paths.take('o-f', OrderPathKind.AMEND, out)).toBe(true);
      expect(verifies('POST', `${ORDERS}/o-f/amend`)).toBe(true);
    }
    expect(paths.stats).toMatchObject({ taken: 5, missed: 0 });
  });

  it('asks in batches of at most ORDER_BATCH_MAX, missing cancels in batches of their own first, and sends the next batch when a full one is answered; one signature per path never used', async () => {
    const clock = new ManualClock(T0);
    const paths = await store(clock, { capacity: 100, depth: 2 });
    const batches = recordBatches();
    const ids = Array.from({ length: 100 }, (_, i) => `o-${i}`);
    for (const id of ids) paths.track(id);
    paths.flush(); // 100 orders x 3 paths x 1 = 300 wanted; no other flush: each answer asks for the next batch
    await until(() => paths.stats.signed === 300);
    expect(batches.flat()).toHaveLength(300);
    expect(batches.every((batch) => batch.length <= ORDER_BATCH_MAX)).toBe(true);
    // The 100 cancels first (7 batches), then the amends and decreases.
    const cancelBatches = Math.ceil(100 / ORDER_BATCH_MAX);
    expect(batches.slice(0, cancelBatches).flat()).toEqual(ids.map((id) => `${ORDERS}/${id}`));
    expect(batches.slice(cancelBatches).flat().every((path) => path.endsWith('/amend') || path.endsWith('/decrease'))).toBe(true);
    const seen = new Set<string>();
    for (const id of ids) {
      for (const [kind, method, suffix] of [[OrderPathKind.CANCEL, 'DELETE', ''], [OrderPathKind.AMEND, 'POST', '/amend'], [OrderPathKind.DECREASE, 'POST', '/decrease']] as const) {
        expect(paths.take(id, kind, out)).toBe(true);
        expect(verifies(method, `${ORDERS}/${id}${suffix}`)).toBe(true);
        seen.add(signatureText(out));
        expect(paths.take(id, kind, out)).toBe(false);
      }
    }
    expect(seen.size).toBe(300);
  });

  it("asks for a new order's cancel, alone, before refreshing the aging signatures of older orders", async () => {
    const clock = new ManualClock(T0);
    const paths = await store(clock, { capacity: 64 });
    const old = Array.from({ length: 40 }, (_, i) => `old-${i}`);
    for (const id of old) paths.track(id);
    paths.flush();
    await until(() => paths.stats.signed === 120);
    clock.advance(2_500); // every old signature is past maxAge - lead: 120 refreshes wanted
    paths.track('new-1');
    const batches = recordBatches();
    paths.flush();
    expect(batches).toEqual([[`${ORDERS}/new-1`]]);
    await until(() => paths.stats.signed === 120 + 123); // the rest chained, batch by batch
    // Then its amend and decrease, ahead of the refreshes.
    expect(batches[1]!.slice(0, 2)).toEqual([`${ORDERS}/new-1/amend`, `${ORDERS}/new-1/decrease`]);
    expect(batches.every((batch) => batch.length <= ORDER_BATCH_MAX)).toBe(true);
    expect(paths.take('new-1', OrderPathKind.CANCEL, out)).toBe(true);
    expect(verifies('DELETE', `${ORDERS}/new-1`)).toBe(true);
  });

  it('counts a take for an order not tracked as a miss of an untracked order, for an enabled kind only', async () => {
    const clock = new ManualClock(T0);
    const paths = await store(clock, { kinds: [OrderPathKind.CANCEL] });
    expect(paths.take('never-tracked', OrderPathKind.CANCEL, out)).toBe(false);
    expect(paths.take('never-tracked', OrderPathKind.AMEND, out)).toBe(false);
    expect(paths.stats).toMatchObject({ missed: 1, untracked: 1 });
  });

  it('never hands out a signature older than maxAgeMs, and refreshes aging ones on flush', async () => {
    const clock = new ManualClock(T0);
    const paths = await store(clock);
    paths.track('o-1');
    paths.flush();
    await until(() => paths.stats.signed === 3);
    clock.advance(1_500); // younger than maxAge - lead: nothing to refresh
    const requested = presigner!.stats.requested;
    paths.flush();
    expect(presigner!.stats.requested).toBe(requested);
    clock.advance(1_000); // 2.5 s: past maxAge - lead, still usable
    paths.flush();
    expect(presigner!.stats.requested - requested).toBe(3);
    await until(() => paths.stats.signed === 6);
    expect(paths.take('o-1', OrderPathKind.CANCEL, out)).toBe(true);
    expect(out.timestampText).toBe(String(T0 + 2_500));
    clock.advance(3_001); // everything now too old
    expect(paths.take('o-1', OrderPathKind.AMEND, out)).toBe(false);
    expect(paths.take('o-1', OrderPathKind.DECREASE, out)).toBe(false);
    expect(paths.stats.missed).toBe(2);
  });

  it('forget drops the order; a late worker reply does not fill a reused record', async () => {
    const clock = new ManualClock(T0);
    const paths = await store(clock);
    paths.track('gone');
    paths.flush(); // in the worker now
    paths.forget('gone');
    paths.track('next'); // may reuse the record
    expect(paths.size).toBe(1);
    const requested = presigner!.stats.requested;
    paths.flush(); // one batch at a time: nothing more while the first is in the worker
    expect(presigner!.stats.requested).toBe(requested);
    // Each later flush (the housekeeping tick's) asks for 'next' once the first batch is answered.
    await until(() => {
      paths.flush();
      return paths.stats.signed === 3;
    });
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(paths.take('gone', OrderPathKind.AMEND, out)).toBe(false);
    expect(paths.take('next', OrderPathKind.AMEND, out)).toBe(true);
    expect(verifies('POST', `${ORDERS}/next/amend`)).toBe(true);
  });

  it('evicts the oldest tracked order at capacity and orders untouched for idleLifetimeMs', async () => {
    const clock = new ManualClock(T0);
    const paths = await store(clock, { capacity: 2, idleLifetimeMs: 10_000, kinds: [OrderPathKind.AMEND] });
    paths.track('a');
    paths.track('b');
    paths.track('c');
    expect(paths.size).toBe(2);
    expect(paths.path('a', OrderPathKind.AMEND)).toBeNull();
    expect(paths.path('c', OrderPathKind.CANCEL)).toBeNull(); // kind not enabled
    expect(paths.stats.evicted).toBe(1);
    clock.advance(6_000);
    paths.take('c', OrderPathKind.AMEND, out); // touches c
    clock.advance(5_000); // b untouched for 11 s
    paths.flush();
    expect(paths.size).toBe(1);
    expect(paths.path('b', OrderPathKind.AMEND)).toBeNull();
    expect(paths.path('c', OrderPathKind.AMEND)).toBe(`${ORDERS}/c/amend`);
    expect(paths.stats.evicted).toBe(2);
  });

  it('asks nothing when the worker is gone, and take() keeps reporting misses', async () => {
    const clock = new ManualClock(T0);
    const paths = await store(clock);
    paths.track('o');
    await presigner!.close();
    paths.flush();
    expect(paths.take('o', OrderPathKind.AMEND, out)).toBe(false);
  });
});
