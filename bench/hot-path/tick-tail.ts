/**
 * Which frames set the hot path's OMS and exec hop tails: the frame right after the OMS's coarse
 * tick (PathLane.between() ticks it every 8 frames, before that frame: pending timeouts, pruning,
 * and the journal's serialization, Journal.pump) against the other seven. Drives the probe-off
 * lane as bench/hot-path/suite.ts does (1,024 frames per synchronous call, a turn of the loop
 * between) and times, per frame, the OMS hop (RiskGate.check returned -> the route's create
 * called) and the exec hop (the sink's create, called -> returned) with wrappers of its own (two
 * clock reads each, ~50 ns, in both groups alike), and the whole frame. With `--split` the
 * journal's serialization is moved to the frame four after the tick (the tick's own pump made a
 * no-op), to tell its share from the rest of the tick's. Not a suite (no rows): a tool for the
 * README's account of the hop tails. `npx tsx bench/hot-path/tick-tail.ts [frames] [--split]`
 * (default 200,000 timed; bounded).
 */

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { makeFeedStream } from '../feed/delta-frames.ts';
import { nowNs } from '../harness.ts';
import type { NewOrder } from '../../src/oms/index.ts';
import type { OrderIntent } from '../../src/core/index.ts';
import { PathLane } from './lanes.ts';
import { SinkOrderEntry } from './sink-order-entry.ts';
import { buildHotPath } from './wiring.ts';

const WARMUP = 20_480;
const samples = Math.min(Math.max(Number(process.argv[2] ?? 200_000) || 200_000, 10_000), 1_000_000);
const split = process.argv.includes('--split');
const BUDGET_MS = 120_000;
const total = WARMUP + samples * 2; // frames without an order are not samples
const stream = makeFeedStream(1, total, 20261122);
const work = mkdtempSync(path.join(tmpdir(), 'tick-tail-'));
const sink = new SinkOrderEntry();
const hp = await buildHotPath({ ticker: stream.tickers[0]!, grid: stream.grid, snapshotFrame: stream.snapshots[0]!, entry: sink, journalPath: path.join(work, 'journal.jsonl'), mode: 'replace', clockSteps: total });
hp.probe.setEnabled(false);
const lane = new PathLane('tick-tail', hp, sink);
const bytes = stream.deltas.map((text) => Buffer.from(text, 'utf8'));

// The wrappers: own fields on the instances, so the router and the OMS call them as they call the methods.
let checkReturnedNs = 0;
let createCalledNs = 0;
let createReturnedNs = 0;
const gate = hp.gate;
const check = gate.check.bind(gate);
Object.defineProperty(gate, 'check', { value: (intent: OrderIntent) => { const deny = check(intent); checkReturnedNs = nowNs(); return deny; } });
const create = sink.create.bind(sink);
Object.defineProperty(sink, 'create', { value: (order: Readonly<NewOrder>) => { createCalledNs = nowNs(); create(order); createReturnedNs = nowNs(); } });
const journal = hp.journal;
const pump = journal.pump.bind(journal);
if (split) Object.defineProperty(journal, 'pump', { value: () => undefined });

const oms = new Float64Array(samples);
const exec = new Float64Array(samples);
const frame = new Float64Array(samples);
/** The frame's place after the tick: 0 right after it, up to 7. */
const sinceTick = new Uint8Array(samples);
let n = 0;
let next = 0;

async function run(count: number, timed: boolean): Promise<void> {
  const stop = Math.min(bytes.length, next + count);
  for (; next < stop; next++) {
    lane.between(next);
    if (split && (next & 7) === 4) pump();
    checkReturnedNs = 0;
    createCalledNs = 0;
    const startNs = nowNs();
    hp.feed.handleBytes(bytes[next]!, 0, bytes[next]!.length);
    const endNs = nowNs();
    if (!timed || createCalledNs === 0 || checkReturnedNs === 0 || n === samples) continue;
    oms[n] = createCalledNs - checkReturnedNs;
    exec[n] = createReturnedNs - createCalledNs;
    frame[n] = endNs - startNs;
    sinceTick[n] = next & 7; // 0: between(next) ticked the OMS just before this frame
    n++;
  }
  await nextTurn(); // the journal's writes
}

const deadline = performance.now() + BUDGET_MS;
while (next < WARMUP && performance.now() < deadline) await run(1024, false);
while (n < samples && next < bytes.length && performance.now() < deadline) await run(1024, true);

function percentiles(values: Float64Array, pick: (i: number) => boolean): string {
  const chosen: number[] = [];
  for (let i = 0; i < n; i++) if (pick(i)) chosen.push(values[i]!);
  chosen.sort((a, b) => a - b);
  const at = (p: number): string => (chosen[Math.floor(p * (chosen.length - 1))]! / 1000).toFixed(2);
  return `p50 ${at(0.5)} p99 ${at(0.99)} p99.9 ${at(0.999)} us (${chosen.length} frames)`;
}

/** How many of the slowest 1% of all frames fall on each position after the tick (0: the frame right after it). */
function slowestByPosition(values: Float64Array): string {
  const sorted = Float64Array.from(values.subarray(0, n)).sort();
  const threshold = sorted[Math.floor(0.99 * (n - 1))]!;
  const byPosition = new Array<number>(8).fill(0);
  let slow = 0;
  for (let i = 0; i < n; i++) {
    if (values[i]! < threshold) continue;
    slow++;
    byPosition[sinceTick[i]!]!++;
  }
  return `${slow} slowest: by frames since the tick 0..7: ${byPosition.join(', ')}`;
}

console.log(`${n} frames with an order timed${split ? ' (--split: the journal serialized 4 frames after the tick)' : ''}; the OMS ticked before 1 frame in 8`);
for (const [name, values] of [['OMS hop (check returned -> create called)', oms], ['exec hop (sink create)', exec], ['whole frame (handleBytes)', frame]] as const) {
  console.log(name);
  console.log(`  right after the tick: ${percentiles(values, (i) => sinceTick[i] === 0)}`);
  console.log(`  the other frames:    ${percentiles(values, (i) => sinceTick[i] !== 0)}`);
  console.log(`  all:                 ${percentiles(values, () => true)}`);
  console.log(`  ${slowestByPosition(values)}`);
}
await hp.stop();
rmSync(work, { recursive: true, force: true });
