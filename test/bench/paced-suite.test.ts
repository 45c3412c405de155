// Goal: the paced bench (bench/paced) times what it says: one frame per wake, the lanes
// alternating, each lane reading the frames in order from its own cursor, so the runtime's path
// keeps its book in sequence (no gap, no resync) and sends one order per frame, as back to back;
// the naive lane times as many frames; the spin before a frame does not change what is handled.
// The FIX leg does the same on the real FIX route (every timed frame writes its order and its
// cancel as FIX messages) and its keep-warm phase rehearses on that route.
// Method: the suite's driver with a 1 ms pace over a few dozen wakes, on the hot-path wiring (no
// sockets); no timing asserted.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { makeFeedStream } from '../../bench/feed/delta-frames.ts';
import { PathLane } from '../../bench/hot-path/lanes.ts';
import { NaiveLane } from '../../bench/hot-path/naive-lane.ts';
import { SinkOrderEntry } from '../../bench/hot-path/sink-order-entry.ts';
import { buildHotPath, type HotPath } from '../../bench/hot-path/wiring.ts';
import { fixLegRows } from '../../bench/paced/fix-phases.ts';
import { paced } from '../../bench/paced/pace.ts';

const WAKES_PER_LANE = 25;

describe('bench/paced driver', () => {
  const work = mkdtempSync(path.join(tmpdir(), 'test-bench-paced-'));
  let hp: HotPath | null = null;

  afterAll(async () => {
    await hp?.stop();
    rmSync(work, { recursive: true, force: true });
  });

  it('one frame per wake, lanes alternating, each in order: the path stays in sequence and orders on every frame', async () => {
    const stream = makeFeedStream(1, 4 * WAKES_PER_LANE + 8, 7);
    const frames = stream.deltas.map((text) => Buffer.from(text, 'utf8'));
    const sink = new SinkOrderEntry();
    hp = await buildHotPath({
      ticker: stream.tickers[0], grid: stream.grid, snapshotFrame: stream.snapshots[0], entry: sink,
      journalPath: path.join(work, 'journal.jsonl'), mode: 'replace', clockSteps: frames.length,
    });
    const ours = new PathLane('ours', hp, sink);
    const naive = new NaiveLane();
    const plan = { warmup: 0, pacedSamples: WAKES_PER_LANE, samples: 0, budgetMs: 10_000 };
    const afterFirst = await paced([ours, naive], frames, 0, plan, 0, 1);
    expect(afterFirst).toBe(WAKES_PER_LANE);
    const afterSecond = await paced([ours, naive], frames, afterFirst, plan, 50, 1);
    expect(afterSecond).toBe(2 * WAKES_PER_LANE);
    expect(ours.histogram.totalCount).toBe(2 * WAKES_PER_LANE);
    expect(naive.histogram.totalCount).toBe(2 * WAKES_PER_LANE);
    expect(naive.orders).toBe(2 * WAKES_PER_LANE);
    expect(hp.feed.counters.seqGaps).toBe(0);
    expect(hp.feed.counters.resyncsRequested).toBe(0);
    expect(hp.book().synced).toBe(true);
    expect(hp.oms.stats.ordersSent).toBe(2 * WAKES_PER_LANE);
  });

  it('FIX leg: both phases time one frame per wake on each lane, and each timed frame writes FIX messages', async () => {
    const plan = { warmup: 200, pacedSamples: 20, samples: 0, budgetMs: 10_000 };
    const rows = await fixLegRows({ suite: 'paced', seed: 11, plan, paceMs: 1, keepWarmMs: 1, work });
    expect(rows.map((row) => row.case)).toEqual([
      '[fix] ours, FIX route: frame in -> handleBytes returned, paced 1 ms, keep-warm off',
      '[fix] baseline: naive pipeline, paced 1 ms, keep-warm off',
      '[fix] ours, FIX route: frame in -> handleBytes returned, paced 1 ms, keep-warm every 1 ms, the FIX route rehearsed',
      '[fix] baseline: naive pipeline, paced 1 ms, keep-warm every 1 ms, the FIX route rehearsed',
    ]);
    for (const row of rows) expect(row.count).toBe(plan.pacedSamples);
    for (const row of [rows[0], rows[2]]) {
      // Replace mode: each frame's order, and the cancel of the one before (the first frame of a phase may find it acked already).
      const written = Number(/FIX messages written in the phase (\d+)/.exec(row.note ?? '')?.[1]);
      expect(written).toBeGreaterThanOrEqual(2 * plan.pacedSamples - 1);
      expect(written).toBeLessThanOrEqual(2 * plan.pacedSamples + 1);
    }
  }, 30_000);
});
