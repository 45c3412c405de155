/**
 * Where the hot path's time goes: V8's sampling CPU profiler over the probe-off lane in steady
 * state, as bench/hot-path/suite.ts drives it (1,024 frames per synchronous call), printed as
 * self time per frame by function (with its file), largest first, and as inclusive time by
 * function. Not a suite (no rows): a tool for finding what the hot-path rows time.
 * `npx tsx bench/hot-path/cpu-profile.ts [frames] [--all]` (default 400,000; bounded): the timed
 * call only (PathLane.step), or with --all the between-frame work too.
 */

import { mkdtempSync, rmSync } from 'node:fs';
import { Session } from 'node:inspector/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { makeFeedStream } from '../feed/delta-frames.ts';
import { PathLane } from './lanes.ts';
import { SinkOrderEntry } from './sink-order-entry.ts';
import { buildHotPath } from './wiring.ts';

interface CpuNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}
interface CpuProfile {
  nodes: CpuNode[];
  samples: number[];
  timeDeltas: number[];
}

const WARMUP = 100_000;
const frames = Math.min(Math.max(Number(process.argv[2] ?? 400_000) || 400_000, 10_000), 4_000_000);
const stream = makeFeedStream(1, WARMUP + frames, 20261122);
const work = mkdtempSync(path.join(tmpdir(), 'cpu-profile-'));
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

function name(node: CpuNode): string {
  const file = node.callFrame.url.split('/').slice(-2).join('/');
  return `${node.callFrame.functionName || '(anonymous)'} ${file}:${node.callFrame.lineNumber + 1}`;
}

try {
  await run(WARMUP);
  const session = new Session();
  session.connect();
  await session.post('Profiler.enable');
  await session.post('Profiler.setSamplingInterval', { interval: 50 });
  await session.post('Profiler.start');
  const started = performance.now();
  await run(frames);
  const elapsedMs = performance.now() - started;
  const { profile } = (await session.post('Profiler.stop')) as unknown as { profile: CpuProfile };
  session.disconnect();
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const parent = new Map<number, number>();
  for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node.id);
  const self = new Map<string, number>();
  const inclusive = new Map<string, number>();
  let totalUs = 0;
  // Only the timed part (PathLane.step: handleBytes) unless --all: the between-frame work (answers, the OMS's tick) is untimed in the suite.
  const all = process.argv.includes('--all');
  const underStep = (leaf: CpuNode): boolean => {
    for (let id: number | undefined = leaf.id; id !== undefined; id = parent.get(id)) if (byId.get(id)!.callFrame.functionName === 'step') return true;
    return false;
  };
  for (let i = 0; i < profile.samples.length; i++) {
    const us = profile.timeDeltas[i] ?? 0;
    totalUs += us;
    const leaf = byId.get(profile.samples[i]!)!;
    if (!all && !underStep(leaf)) continue;
    self.set(name(leaf), (self.get(name(leaf)) ?? 0) + us);
    const seen = new Set<string>();
    for (let id: number | undefined = leaf.id; id !== undefined; id = parent.get(id)) {
      const key = name(byId.get(id)!);
      if (seen.has(key)) continue;
      seen.add(key);
      inclusive.set(key, (inclusive.get(key) ?? 0) + us);
    }
  }
  const perFrame = (us: number): string => `${((us * 1000) / frames).toFixed(0).padStart(6)} ns`;
  console.log(`${frames} frames in ${elapsedMs.toFixed(0)} ms (${((elapsedMs * 1e6) / frames).toFixed(0)} ns a frame wall, profiler on); ${profile.samples.length} samples`);
  console.log('self time per frame:');
  for (const [key, us] of [...self].sort((a, b) => b[1] - a[1]).slice(0, 40)) console.log(`${perFrame(us)}  ${key}`);
  console.log('inclusive time per frame:');
  for (const [key, us] of [...inclusive].sort((a, b) => b[1] - a[1]).slice(0, 50)) console.log(`${perFrame(us)}  ${key}`);
  void totalUs;
} finally {
  await hp.stop();
  rmSync(work, { recursive: true, force: true });
}
