/**
 * Signing suite: what a request pays for its KALSHI-ACCESS-SIGNATURE on the trading thread.
 *
 * - "inline signRequest" (baseline): RSA-PSS SHA-256 signing per request, as the official client
 *   does (src/core/request-signing.ts; the client also re-parses the PEM each time: its own row).
 * - "presigned take": Presigner.take() handing out a pair signed ahead in the worker thread, timed
 *   per call in bursts of the ring's capacity, the ring refilled between bursts (off the clock);
 *   the first bursts are untimed JIT warm-up. About 50 ns of it is Date.now() (the age check).
 * - Worker transport, off the hot path (why the presigner uses a plain worker_threads Worker):
 *   round trip of a refill batch (8 signatures) and of a single signature through the presigner's
 *   Worker vs a piscina pool of one thread running the same signing code.
 *
 * Every loop is bounded in samples and time. Owns measurement only; never asserts.
 */

import { constants, createSign, generateKeyPairSync } from 'node:crypto';
import { Worker } from 'node:worker_threads';
import { Piscina } from 'piscina';
import { signRequest, systemClock } from '../../src/core/index.ts';
import { Presigner, type PresignedSignature } from '../../src/exec/index.ts';
import { consume, createHistogram, latencyRow, measureLatency, nowNs, recordNs, type BenchRow, type BenchSuite } from '../harness.ts';

const SUITE = 'signing';
const PATH = '/trade-api/v2/portfolio/events/orders';

interface WorkerReply {
  endpoint: number;
  id: number;
  timestampMs: number;
  signatures: string[];
}

async function untilTrue(condition: () => boolean, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (!condition() && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 2));
  return condition();
}

const suite: BenchSuite = {
  name: SUITE,
  async run({ quick }) {
    const rows: BenchRow[] = [];
    const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
    const pem = privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();

    // 0. What the timing itself costs (two performance.now() reads around nothing).
    const floor = measureLatency(() => consume(0), { samples: quick ? 10_000 : 100_000, timeBudgetMs: 2_000 });
    rows.push(latencyRow(SUITE, 'timer floor', true, floor, { note: 'empty op' }));

    // 1. Inline signing on the calling thread.
    const inlineSamples = quick ? 300 : 3_000;
    let timestamp = Date.now();
    const inline = measureLatency(() => consume(signRequest(privateKey, timestamp++, 'POST', PATH)), {
      samples: inlineSamples, timeBudgetMs: quick ? 2_000 : 15_000, warmup: 50,
    });
    rows.push(latencyRow(SUITE, 'inline signRequest (RSA-2048 PSS)', true, inline, { note: 'KeyObject parsed once' }));

    const official = measureLatency(() => {
      // The official client's KalshiAuth.signPssText: createSign + PEM text per request.
      const signer = createSign('RSA-SHA256');
      signer.update(`${timestamp++}POST${PATH}`);
      signer.end();
      consume(signer.sign({ key: pem, padding: constants.RSA_PKCS1_PSS_PADDING, saltLength: constants.RSA_PSS_SALTLEN_DIGEST }).toString('base64'));
    }, { samples: inlineSamples, timeBudgetMs: quick ? 2_000 : 15_000, warmup: 50 });
    rows.push(latencyRow(SUITE, 'inline, official client style (PEM per call)', true, official));

    // 2. Presigned take, in bursts of the ring's capacity.
    const capacity = 256;
    const presigner = await Presigner.start({
      privateKey, clock: systemClock, endpoints: [{ method: 'POST', path: PATH, capacity }],
      maxAgeMs: 5_000, refreshLeadMs: 500, tickMs: 100, startTimeoutMs: 30_000,
    });
    const take = createHistogram();
    const out: PresignedSignature = { timestampText: '', signature: '' };
    const warmupBursts = quick ? 2 : 6; // untimed: let the JIT optimise take()
    const bursts = warmupBursts + (quick ? 2 : 16);
    const deadline = Date.now() + (quick ? 10_000 : 60_000);
    try {
      for (let burst = 0; burst < bursts && Date.now() < deadline; burst++) {
        await untilTrue(() => presigner.size(0) >= capacity, 20_000);
        for (let i = 0; i < capacity; i++) {
          const start = nowNs();
          const ok = presigner.take(0, out);
          if (burst >= warmupBursts) recordNs(take, nowNs() - start);
          if (!ok) break;
          consume(out.signedBytes!.length);
        }
      }
    } finally {
      await presigner.close();
    }
    rows.push(latencyRow(SUITE, 'presigned take', false, take, {
      compareTo: 'inline signRequest (RSA-2048 PSS)',
      note: `bursts of ${capacity}; empty=${presigner.stats.empty} expired=${presigner.stats.expired}`,
    }));

    // 3. Refill transport: plain Worker (what the presigner uses) vs piscina, same signing code.
    const roundTrips = quick ? 30 : 300;
    for (const batch of [8, 1]) {
      const worker = new Worker(new URL('../../src/exec/rest/presign-worker.mjs', import.meta.url), { workerData: { key: privateKey } });
      let resolveReply: ((reply: WorkerReply) => void) | null = null;
      worker.on('message', (reply: WorkerReply) => resolveReply?.(reply));
      const viaWorker = createHistogram();
      const workerDeadline = Date.now() + (quick ? 5_000 : 30_000);
      for (let i = 0; i < roundTrips + 5 && Date.now() < workerDeadline; i++) {
        const start = nowNs();
        const reply = await new Promise<WorkerReply>((resolve) => {
          resolveReply = resolve;
          worker.postMessage({ endpoint: 0, id: i, method: 'POST', path: PATH, timestampMs: Date.now(), n: batch });
        });
        if (i >= 5) recordNs(viaWorker, nowNs() - start); // first few: worker JIT warm-up
        consume(reply.signatures);
      }
      await worker.terminate();
      rows.push(latencyRow(SUITE, `refill ${batch} via worker_threads Worker`, false, viaWorker, { compareTo: `refill ${batch} via piscina`, note: 'round trip incl. signing' }));

      const pool = new Piscina({
        filename: new URL('./piscina-sign-task.mjs', import.meta.url).href,
        workerData: { key: privateKey }, minThreads: 1, maxThreads: 1,
      });
      const viaPiscina = createHistogram();
      const piscinaDeadline = Date.now() + (quick ? 5_000 : 30_000);
      for (let i = 0; i < roundTrips + 5 && Date.now() < piscinaDeadline; i++) {
        const start = nowNs();
        const signatures = (await pool.run({ method: 'POST', path: PATH, timestampMs: Date.now(), n: batch })) as string[];
        if (i >= 5) recordNs(viaPiscina, nowNs() - start);
        consume(signatures);
      }
      await pool.destroy();
      rows.push(latencyRow(SUITE, `refill ${batch} via piscina`, true, viaPiscina, { note: 'round trip incl. signing' }));
    }
    return rows;
  },
};

export default suite;
