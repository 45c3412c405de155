// Goal: the presigner hands out valid, never-reused, never-stale signatures made in a worker thread,
// refills after use and after aging, reports an empty ring instead of blocking, starts short (not
// failing) when its rings cannot fill in time, and shuts down cleanly.
// Method: a real worker with a fresh RSA key and a ManualClock driving age; every signature taken is
// checked with verifyRequest against its (timestamp, method, path); waits poll with bounded loops.

import { generateKeyPairSync } from 'node:crypto';
import { getPriority } from 'node:os';
import { afterEach, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/core/index.ts';
import { verifyRequest } from '../../src/core/request-signing.ts';
import {
  BATCH_SIGNATURES_MAX,
  Presigner,
  PresignerError,
  signatureText,
  type PresignedSignature,
  type PresignerOptions,
} from '../../src/exec/rest/presigner.ts';

const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
const CREATE_PATH = '/trade-api/v2/portfolio/events/orders';
const BATCH_PATH = '/trade-api/v2/portfolio/events/orders/batched';
const T0 = 1_781_821_370_000;

let presigner: Presigner | null = null;
afterEach(async () => {
  await presigner?.close();
  presigner = null;
});

function options(clock: ManualClock, capacity = 4): PresignerOptions {
  return {
    privateKey,
    endpoints: [
      { method: 'POST', path: CREATE_PATH, capacity },
      { method: 'DELETE', path: BATCH_PATH, capacity: 2 },
    ],
    maxAgeMs: 3_000,
    refreshLeadMs: 1_000,
    tickMs: 20,
    startTimeoutMs: 10_000,
    clock,
  };
}

/** Polls up to 15 s (400 RSA signatures in the worker take over 5 s on a loaded 2-core CI machine), inside the 20 s test timeout. */
async function until(condition: () => boolean): Promise<void> {
  const deadline = Date.now() + 15_000;
  for (let i = 0; i < 1_500 && !condition() && Date.now() < deadline; i++) await new Promise((resolve) => setTimeout(resolve, 10));
  expect(condition()).toBe(true);
}

const out: PresignedSignature = { timestampText: '', signature: '' };

describe('Presigner', () => {
  it('starts full and hands out signatures that verify for their endpoint', async () => {
    const clock = new ManualClock(T0);
    presigner = await Presigner.start(options(clock));
    const create = presigner.endpointIndex('POST', CREATE_PATH);
    const cancel = presigner.endpointIndex('DELETE', BATCH_PATH);
    expect(create).toBe(0);
    expect(cancel).toBe(1);
    expect(presigner.endpointIndex('POST', BATCH_PATH)).toBe(-1);
    expect(presigner.size(create)).toBe(4);
    expect(presigner.size(cancel)).toBe(2);
    expect(presigner.take(create, out)).toBe(true);
    expect(out.timestampText).toBe(String(T0));
    // A ring's signature reaches this thread only as the head bytes a request copies (no string).
    expect(out.signature).toBe('');
    expect(Buffer.from(out.signedBytes!).toString('latin1')).toMatch(new RegExp(`^${T0}\r\nKALSHI-ACCESS-SIGNATURE: [A-Za-z0-9+/]{342}==$`));
    expect(verifyRequest(publicKey, T0, 'POST', CREATE_PATH, signatureText(out))).toBe(true);
    expect(verifyRequest(publicKey, T0, 'DELETE', BATCH_PATH, signatureText(out))).toBe(false);
    expect(presigner.take(cancel, out)).toBe(true);
    expect(verifyRequest(publicKey, T0, 'DELETE', BATCH_PATH, signatureText(out))).toBe(true);
  });

  it('starts short instead of failing when the rings do not fill in time, and fills them afterwards', async () => {
    const clock = new ManualClock(T0);
    // 400 RSA signatures cannot be made in 1 ms: start returns with what the rings hold.
    presigner = await Presigner.start({ ...options(clock, 400), startTimeoutMs: 1 });
    expect(presigner.startShortfall).toBeGreaterThan(0);
    expect(presigner.startShortfall).toBeLessThanOrEqual(402);
    expect(presigner.alive).toBe(true);
    expect(presigner.size(0)).toBeLessThan(400);
    const started = presigner;
    await until(() => started.size(0) === 400 && started.size(1) === 2);
    expect(presigner.take(0, out)).toBe(true);
    expect(verifyRequest(publicKey, Number(out.timestampText), 'POST', CREATE_PATH, signatureText(out))).toBe(true);
  });

  it('never hands out the same signature twice and refills after use', async () => {
    const clock = new ManualClock(T0);
    presigner = await Presigner.start(options(clock));
    const seen = new Set<string>();
    for (let round = 0; round < 5; round++) {
      for (let i = 0; i < 4; i++) {
        expect(presigner.take(0, out)).toBe(true);
        const pair = `${out.timestampText}:${signatureText(out)}`;
        expect(seen.has(pair)).toBe(false);
        seen.add(pair);
        expect(verifyRequest(publicKey, Number(out.timestampText), 'POST', CREATE_PATH, signatureText(out))).toBe(true);
      }
      clock.advance(100);
      await until(() => presigner!.size(0) === 4);
    }
    expect(seen.size).toBe(20);
    expect(presigner.stats.taken).toBe(20);
    expect(presigner.stats.empty).toBe(0);
  });

  it('with refillOnTake false, refills only when asked (or on the tick)', async () => {
    const clock = new ManualClock(T0);
    presigner = await Presigner.start({ ...options(clock, 2), tickMs: 60_000, refillOnTake: false });
    expect(presigner.take(0, out)).toBe(true);
    expect(presigner.take(0, out)).toBe(true);
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(presigner.size(0)).toBe(0); // nothing requested by take()
    expect(presigner.stats.requested).toBe(2 + 2); // the start fill of both rings
    presigner.refill();
    await until(() => presigner!.size(0) === 2);
  });

  it('peek shows the signature the next take hands out and takes nothing (the keep-warm\'s rehearsal)', async () => {
    const clock = new ManualClock(T0);
    presigner = await Presigner.start({ ...options(clock, 2), tickMs: 60_000, refillOnTake: false });
    const peeked: PresignedSignature = { timestampText: '', signature: '', signedBytes: null };
    for (let i = 0; i < 2; i++) {
      const requested = presigner.stats.requested;
      for (let k = 0; k < 3; k++) expect(presigner.peek(0, peeked)).toBe(true);
      expect(presigner.size(0)).toBe(2 - i);
      expect(presigner.stats.taken).toBe(i);
      expect(presigner.stats.requested).toBe(requested); // no refill asked for
      const peekedText = `${peeked.timestampText}:${signatureText(peeked)}`;
      expect(presigner.take(0, out)).toBe(true);
      expect(`${out.timestampText}:${signatureText(out)}`).toBe(peekedText);
      expect(out.signedBytes).toBe(peeked.signedBytes); // the same slot's view
    }
    expect(presigner.peek(0, peeked)).toBe(false); // empty
    expect(presigner.stats.empty).toBe(0); // a peek is not a miss
  });

  it('reports an empty ring (caller signs inline) and counts it', async () => {
    const clock = new ManualClock(T0);
    presigner = await Presigner.start(options(clock, 2));
    expect(presigner.take(0, out)).toBe(true);
    expect(presigner.take(0, out)).toBe(true);
    expect(presigner.take(0, out)).toBe(false); // synchronous burst beyond capacity
    expect(presigner.stats.empty).toBe(1);
    await until(() => presigner!.size(0) === 2);
    expect(presigner.take(0, out)).toBe(true);
  });

  it('never hands out a signature older than maxAgeMs and replaces aging ones ahead of time', async () => {
    const clock = new ManualClock(T0);
    presigner = await Presigner.start(options(clock));
    // Past refreshLead: replacements are requested while the old ones are still valid.
    clock.advance(2_500);
    presigner.refill();
    await until(() => presigner!.size(0) === 8);
    expect(presigner.take(0, out)).toBe(true);
    expect(out.timestampText).toBe(String(T0)); // oldest valid first
    // Past maxAge: the old ones are dropped, only the replacements are handed out.
    clock.advance(600);
    expect(presigner.take(0, out)).toBe(true);
    expect(out.timestampText).toBe(String(T0 + 2_500));
    expect(presigner.stats.expired).toBe(3);
    // Everything too old: nothing is handed out.
    clock.advance(10_000);
    const expiredBefore = presigner.stats.expired;
    expect(presigner.take(0, out)).toBe(false);
    expect(presigner.stats.expired).toBeGreaterThan(expiredBefore);
    let taken = false;
    await until(() => taken || (taken = presigner!.take(0, out)));
    expect(out.timestampText).toBe(String(T0 + 13_100));
    expect(verifyRequest(publicKey, T0 + 13_100, 'POST', CREATE_PATH, signatureText(out))).toBe(true);
  });

  it('signs one-off requests in the worker (query cut), and refuses them after close', async () => {
    const clock = new ManualClock(T0 + 5);
    presigner = await Presigner.start(options(clock));
    const signed = await presigner.signAsync('get', '/trade-api/v2/portfolio/orders?limit=5');
    expect(signed.timestampText).toBe(String(T0 + 5));
    expect(verifyRequest(publicKey, T0 + 5, 'GET', '/trade-api/v2/portfolio/orders', signed.signature)).toBe(true);
    await presigner.close();
    const error = await presigner.signAsync('GET', '/x').catch((caught: unknown) => caught);
    expect((error as PresignerError).code).toBe('PRESIGN_WORKER_FAILED');
  });

  it('answers a one-off request before a ring refill already being signed (a request waits on it)', async () => {
    const clock = new ManualClock(T0);
    presigner = await Presigner.start({ ...options(clock, 48), refillOnTake: false });
    while (presigner.take(0, out)) {
      // drain the create ring
    }
    presigner.refill(); // 48 signatures for the ring, ~35 ms of RSA
    const received = presigner.stats.received;
    const signed = await presigner.signAsync('POST', '/trade-api/v2/portfolio/events/orders/o-1/amend');
    expect(verifyRequest(publicKey, T0, 'POST', '/trade-api/v2/portfolio/events/orders/o-1/amend', signed.signature)).toBe(true);
    expect(presigner.stats.received).toBe(received); // the ring's 48 are still being made
    expect(presigner.size(0)).toBe(0);
    const started = presigner;
    await until(() => started.size(0) === 48);
  });

  it('a ring drained below half its capacity is refilled to half before a per-order prefetch queued earlier; the rest after it', async () => {
    const clock = new ManualClock(T0);
    presigner = await Presigner.start({ ...options(clock, 8), refillOnTake: false });
    while (presigner.take(0, out)) {
      // drain the create ring
    }
    const started = presigner;
    const paths = Array.from({ length: 40 }, (_, i) => `/trade-api/v2/portfolio/events/orders/o-${i}/amend`);
    let ringAtBatch = -1;
    started.signBatch(paths.map(() => 'POST'), paths, (_timestampMs, _text, signatures) => {
      expect(signatures).toHaveLength(40);
      ringAtBatch = started.size(0);
    });
    started.refill(); // 8 wanted: 4 urgent (back to half), 4 as a top-up
    await until(() => ringAtBatch >= 0);
    expect(ringAtBatch).toBe(4); // the urgent half came before the 40 prefetched, the top-up after
    await until(() => started.size(0) === 8);
  });

  it('answers a batch as head bytes that verify for each path; one batch at a time, at most BATCH_SIGNATURES_MAX', async () => {
    const clock = new ManualClock(T0);
    presigner = await Presigner.start(options(clock, 2));
    const started = presigner;
    const paths = Array.from({ length: 5 }, (_, i) => `/trade-api/v2/portfolio/events/orders/o-${i}/amend`);
    const methods = paths.map(() => 'POST');
    const verified: boolean[] = [];
    let answered = false;
    started.signBatch(methods, paths, (timestampMs, text, signed) => {
      expect(timestampMs).toBe(T0);
      expect(text).toBe(String(T0));
      expect(signed).toHaveLength(5);
      for (let i = 0; i < 5; i++) {
        const one = { timestampText: text, signature: '', signedBytes: signed![i]! };
        verified.push(verifyRequest(publicKey, T0, 'POST', paths[i]!, signatureText(one)));
      }
      answered = true;
    });
    // While that batch is out, another is answered null at once (its staging slots are taken).
    let second: readonly Uint8Array[] | null | undefined;
    started.signBatch(['POST'], [paths[0]!], (_ms, _text, signed) => (second = signed));
    expect(second).toBeNull();
    await until(() => answered);
    expect(verified).toEqual([true, true, true, true, true]);
    // Over the limit: null at once, nothing asked of the worker.
    const requested = started.stats.requested;
    let over: readonly Uint8Array[] | null | undefined;
    const many = Array.from({ length: BATCH_SIGNATURES_MAX + 1 }, (_, i) => `/p/${i}`);
    started.signBatch(many.map(() => 'POST'), many, (_ms, _text, signed) => (over = signed));
    expect(over).toBeNull();
    expect(started.stats.requested).toBe(requested);
  });

  it('keeps every signature whole while its ring comes round many times, urgent refills and top-ups answered out of order', async () => {
    const clock = new ManualClock(T0);
    presigner = await Presigner.start({ ...options(clock, 6), refillOnTake: false });
    const started = presigner;
    let checked = 0;
    for (let round = 0; round < 6; round++) {
      // Take a varying share, so the next refill asks for an urgent part and a top-up (two
      // requests the worker answers in its own order) and the slots they land in move round.
      for (let i = 0; i < 2 + (round % 5); i++) {
        if (!started.take(0, out)) break;
        expect(verifyRequest(publicKey, Number(out.timestampText), 'POST', CREATE_PATH, signatureText(out))).toBe(true);
        checked++;
      }
      clock.advance(10);
      started.refill();
      await until(() => started.size(0) >= 6);
    }
    while (started.take(0, out)) {
      expect(verifyRequest(publicKey, Number(out.timestampText), 'POST', CREATE_PATH, signatureText(out))).toBe(true);
      checked++;
    }
    expect(checked).toBeGreaterThanOrEqual(26);
    expect(started.stats.workerErrors).toBe(0);
  });

  it('sizes its slots for the key: a 4096-bit key\'s signatures fit and verify', async () => {
    const large = generateKeyPairSync('rsa', { modulusLength: 4096 });
    const clock = new ManualClock(T0);
    presigner = await Presigner.start({ ...options(clock, 2), privateKey: large.privateKey });
    expect(presigner.take(1, out)).toBe(true);
    expect(signatureText(out)).toHaveLength(684);
    expect(verifyRequest(large.publicKey, T0, 'DELETE', BATCH_PATH, signatureText(out))).toBe(true);
    expect(presigner.stats.workerErrors).toBe(0);
  });

  it('shuts the worker down: take() then reports empty, close is idempotent', async () => {
    const clock = new ManualClock(T0);
    presigner = await Presigner.start(options(clock));
    expect(presigner.alive).toBe(true);
    await presigner.close();
    expect(presigner.alive).toBe(false);
    expect(presigner.take(0, out)).toBe(false);
    presigner.refill(); // no-op, no throw after close
    await presigner.close();
    expect(presigner.stats.requested).toBe(presigner.stats.received);
  });

  it('rejects bad options with every problem at once', async () => {
    const clock = new ManualClock(T0);
    const bad = { ...options(clock), maxAgeMs: 9_000, tickMs: 0, workerNice: 20, endpoints: [{ method: 'post', path: 'x?y', capacity: 0 }] };
    const error = await Presigner.start(bad).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(PresignerError);
    expect((error as PresignerError).code).toBe('PRESIGN_CONFIG_INVALID');
    for (const part of ['maxAgeMs', 'tickMs', 'capacity', 'upper-case', 'no query', 'workerNice']) {
      expect((error as PresignerError).message).toContain(part);
    }
  });

  it('lowers the worker thread\'s priority (default nice 19) and leaves the event loop\'s alone', async () => {
    const clock = new ManualClock(T0);
    const before = getPriority();
    presigner = await Presigner.start(options(clock));
    const started = presigner;
    await until(() => started.workerNice !== null || started.workerNiceError !== null);
    expect(presigner.workerNiceError).toBeNull();
    expect(presigner.workerNice).toBe(19);
    expect(getPriority()).toBe(before); // nice is per thread on Linux: this thread keeps its own
    await presigner.close();
    presigner = await Presigner.start({ ...options(clock), workerNice: null });
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(presigner.workerNice).toBeNull(); // not asked: the worker keeps the process's priority
  });
});
