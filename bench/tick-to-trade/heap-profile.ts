/**
 * What the live runtime allocates per order: the tick-to-trade suite's replace case (this process's
 * runtime against the simulator in a child process, 1,000 book updates a second, one create per
 * touch change, the previous bid cancelled on the new one's ack) under V8's sampling heap profiler
 * (objects collected by either collector included), printed as bytes per order and per book frame
 * by allocating function and its two callers. Not a suite (no rows): the live counterpart of
 * bench/hot-path/heap-profile.ts, for what the in-process sink does not model (sockets, response
 * parsing, presigned signatures from the worker, the feed's frames).
 * `npx tsx bench/tick-to-trade/heap-profile.ts [seconds] [keepWarmMs] [presigned|inline]` (default 20 s,
 * 5-120; keep-warm as configured by default, 0 for off; signing presigned by default, inline to see
 * what the signing worker's messages cost).
 */

import { mkdtempSync, rmSync } from 'node:fs';
import { Session } from 'node:inspector/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { heapSites } from '../heap-sites.ts';
import type { HeapProfile } from '../heap-sites.ts';
import { setTimeout as pause } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { loadPrivateKey } from '../../src/core/index.ts';
import { validateConfig } from '../../src/runtime/config.ts';
import { Runtime } from '../../src/runtime/runtime.ts';
import { SimChild } from '../../src/runtime/sim-child.ts';
import { createLogger } from '../../src/telemetry/index.ts';
import { oneMarketCatalog } from '../loopback.ts';

const REPO_DIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const TICKER = 'KXDEMO-26DEC31-T50';
const seconds = Math.min(Math.max(Number(process.argv[2] ?? 20) || 20, 5), 120);
const keepWarmMs = process.argv[3] === undefined ? null : Math.max(0, Math.floor(Number(process.argv[3]) || 0));
const signing = process.argv[4] === 'inline' ? 'inline' : 'presigned';
const work = mkdtempSync(path.join(tmpdir(), 'heap-profile-live-'));
let sim: SimChild | null = null;
let runtime: Runtime | null = null;
try {
  sim = await SimChild.start({ rootDir: REPO_DIR, marketsFile: oneMarketCatalog(work, TICKER), activityUpdatesPerSec: 1_000, keysDir: path.join(work, 'keys'), logPath: path.join(work, 'sim.log'), logLevel: 'warn' });
  const config = validateConfig(
    {
      risk: { rateLimitTier: 'prime', maxOrderCount: '10.00' },
      exec: { signing, connections: 4 },
      ...(keepWarmMs === null ? {} : { process: { keepWarmMs } }),
      strategies: [{ id: 't2t', plugin: 'strategies/tick-to-trade.ts', subaccount: 0, markets: [TICKER], params: { mode: 'replace', offsetTicks: 10, size: '1.00' } }],
    },
    '<heap-profile>',
    {},
  );
  runtime = new Runtime({
    config,
    venue: { restUrl: `${sim.ready.http}/trade-api/v2`, wsUrl: sim.ready.ws, keyId: sim.ready.keyId, privateKey: loadPrivateKey(sim.ready.privateKeyPath) },
    rootDir: REPO_DIR,
    journalPath: path.join(work, 'journal.jsonl'),
    logger: createLogger({ level: 'silent', pretty: false }),
  });
  await runtime.start();
  await pause(5_000); // warm: the JIT, the presigner's rings
  const session = new Session();
  session.connect();
  const ordersBefore = runtime.oms.stats.ordersSent;
  const framesBefore = runtime.feed.counters.framesReceived;
  await session.post('HeapProfiler.startSampling', { samplingInterval: 512, includeObjectsCollectedByMajorGC: true, includeObjectsCollectedByMinorGC: true } as never);
  await pause(seconds * 1000);
  const { profile } = (await session.post('HeapProfiler.stopSampling')) as unknown as { profile: HeapProfile };
  session.disconnect();
  const orders = Math.max(1, runtime.oms.stats.ordersSent - ordersBefore);
  const frames = Math.max(1, runtime.feed.counters.framesReceived - framesBefore);
  const { total, sites } = heapSites(profile);
  console.log(`keep-warm ${keepWarmMs === null ? 'as configured' : `${keepWarmMs} ms`}; ${seconds} s: ${orders} orders, ${frames} frames received; ${Math.round(total / orders)} bytes sampled per order, ${Math.round(total / frames)} per frame`);
  for (const [site, size] of sites.slice(0, 25)) console.log(`${Math.round(size / orders).toString().padStart(8)} B/order  ${site}`);
} finally {
  await runtime?.stop();
  await sim?.stop();
  rmSync(work, { recursive: true, force: true });
}
