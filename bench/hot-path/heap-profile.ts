/**
 * Where the hot path's garbage comes from: V8's sampling heap profiler (objects collected by
 * either collector included) over the probe-off lane in steady state, as bench/hot-path/suite.ts
 * drives it (1,024 frames per synchronous call), printed as bytes per order by allocating
 * function and its two callers. Not a suite (no rows): a tool for finding what the allocation
 * rows count. `npx tsx bench/hot-path/heap-profile.ts [frames]` (default 200,000; bounded).
 */

import { mkdtempSync, rmSync } from 'node:fs';
import { Session } from 'node:inspector/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { heapSites } from '../heap-sites.ts';
import type { HeapProfile } from '../heap-sites.ts';
import { makeFeedStream } from '../feed/delta-frames.ts';
import { PathLane } from './lanes.ts';
import { SinkOrderEntry } from './sink-order-entry.ts';
import { buildHotPath } from './wiring.ts';

const WARMUP = 50_000;
const frames = Math.min(Math.max(Number(process.argv[2] ?? 200_000) || 200_000, 10_000), 2_000_000);
const stream = makeFeedStream(1, WARMUP + frames, 20261122);
const work = mkdtempSync(path.join(tmpdir(), 'heap-profile-'));
const sink = new SinkOrderEntry();
const hp = await buildHotPath({ ticker: stream.tickers[0]!, grid: stream.grid, snapshotFrame: stream.snapshots[0]!, entry: sink, journalPath: path.join(work, 'journal.jsonl'), mode: 'replace', clockSteps: WARMUP + frames });
hp.probe.setEnabled(false);
const lane = new PathLane('profile', hp, sink);
const bytes = stream.deltas.map((text) => Buffer.from(text, 'utf8'));
let next = 0;

async function run(count: number): Promise<void> {
  for (let left = count; left > 0 && next < bytes.length; ) {
    const stop = Math.min(bytes.length, next + Math.min(1024, left));
    left -= stop - next;
    for (; next < stop; next++) {
      lane.between(next);
      lane.step(bytes[next]!, false);
    }
    await nextTurn(); // the journal's writes
  }
}

try {
  await run(WARMUP);
  const session = new Session();
  session.connect();
  const ordersBefore = hp.oms.stats.ordersSent;
  const requestsBefore = sink.requests;
  await session.post('HeapProfiler.startSampling', { samplingInterval: 256, includeObjectsCollectedByMajorGC: true, includeObjectsCollectedByMinorGC: true } as never);
  await run(frames);
  const { profile } = (await session.post('HeapProfiler.stopSampling')) as unknown as { profile: HeapProfile };
  session.disconnect();
  const orders = Math.max(1, hp.oms.stats.ordersSent - ordersBefore);
  const { total, sites } = heapSites(profile);
  const requests = sink.requests - requestsBefore;
  console.log(`${frames} frames, ${orders} orders (${requests} requests): ${(total / orders).toFixed(1)} bytes sampled per order`);
  for (const [site, size] of sites.slice(0, 20)) console.log(`${(size / orders).toFixed(1).padStart(8)}  ${site}`);
} finally {
  await hp.stop();
  rmSync(work, { recursive: true, force: true });
}
