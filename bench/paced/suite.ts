/**
 * Paced suite: the in-process hot path (bench/hot-path's wiring, no sockets) at the live job's
 * cadence instead of back to back. Live, a frame comes after milliseconds of an idle loop (the
 * simulator sends its activity in 10 ms bursts) and the same code runs 30-50x slower than in the
 * back-to-back bench; this suite separates what that costs the code from what the sockets cost.
 *
 * Each timer wake (every PACE_MS, the loop idle in between) hands one frame to one lane, the
 * lanes alternating, so each lane runs every 2 * PACE_MS from whatever the idle left in the
 * caches. Lanes: the runtime's path (frame bytes -> order bytes in the sink; the probe on, for
 * its hops) and the naive pipeline (bench/hot-path/naive-lane.ts) as the baseline: the same
 * frames, the same cadence, the same process. Three paced phases: the keep-warm dry run off; off
 * with SPIN_US of arithmetic after each wake (wake or caches, below); on at the main job's default interval (src/runtime/keep-warm.ts: the shadow path, the real
 * gate's check; the sink is no REST route, so no route rehearsal). Then both lanes back to back
 * (drive(), as bench/hot-path) in the same process: the factor between a lane's paced and
 * back-to-back p50 is what the idle costs it. Last, the FIX leg (fix-phases.ts): the strategy on
 * the FIX route, paced against the naive pipeline, keep-warm off and on. Bounded in wakes and time.
 */

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { systemClock } from '../../src/core/index.ts';
import { KeepWarm } from '../../src/runtime/keep-warm.ts';
import { latencyRow } from '../harness.ts';
import type { BenchRow, BenchSuite } from '../harness.ts';
import { makeFeedStream } from '../feed/delta-frames.ts';
import { PathLane, drive } from '../hot-path/lanes.ts';
import { NaiveLane } from '../hot-path/naive-lane.ts';
import { SinkOrderEntry } from '../hot-path/sink-order-entry.ts';
import { buildHotPath } from '../hot-path/wiring.ts';
import type { HotPath } from '../hot-path/wiring.ts';
import { fixLegRows } from './fix-phases.ts';
import { PACE_MS, p50, paced } from './pace.ts';
import type { Plan } from './pace.ts';

const SUITE = 'paced';
const SEED = 20261202;
/**
 * The third phase spins this long after each wake before the frame, on arithmetic that touches no
 * memory: it brings the core back to speed (frequency, the hypervisor's scheduling of the vCPU)
 * and leaves the caches as the idle left them. A lane that then runs as fast as back to back was
 * slowed by the wake; one that stays slow, by what the idle evicted.
 */
const SPIN_US = 200;
/** process.keepWarmMs's default (config/schema.json). */
const KEEP_WARM_MS = 1;

export default {
  name: SUITE,
  async run({ quick }): Promise<BenchRow[]> {
    const plan: Plan = quick ? { warmup: 5_000, pacedSamples: 150, samples: 5_000, budgetMs: 10_000 } : { warmup: 20_000, pacedSamples: 1_000, samples: 50_000, budgetMs: 40_000 };
    const total = 2 * plan.warmup + 6 * plan.pacedSamples + plan.samples + 16;
    const stream = makeFeedStream(1, total, SEED);
    const frames = stream.deltas.map((text) => Buffer.from(text, 'utf8'));
    const work = mkdtempSync(path.join(tmpdir(), 'bench-paced-'));
    let hp: HotPath | null = null;
    let keepWarm: KeepWarm | null = null;
    try {
      const sink = new SinkOrderEntry();
      hp = await buildHotPath({
        ticker: stream.tickers[0], grid: stream.grid, snapshotFrame: stream.snapshots[0], entry: sink,
        journalPath: path.join(work, 'journal.jsonl'), mode: 'replace', clockSteps: total,
      });
      const ours = new PathLane('ours', hp, sink);
      const naive = new NaiveLane();
      // Warm-up back to back: both lanes optimized before the first paced wake.
      let next = (await drive([ours, naive], frames, { warmup: plan.warmup, samples: 0, budgetMs: plan.budgetMs })).next;
      const rows: BenchRow[] = [];
      const phase = async (label: string, spinUs = 0): Promise<void> => {
        ours.histogram.reset();
        naive.histogram.reset();
        hp!.probe.reset();
        next = await paced([ours, naive], frames, next, plan, spinUs);
        const probe = hp!.probe;
        const hops = `hops p50 (ns): decode ${p50(probe.decode.histogram)}, book ${p50(probe.book.histogram)}, strategy ${p50(probe.strategy.histogram)}, risk ${p50(probe.risk.histogram)}, OMS ${p50(probe.oms.histogram)}, exec ${p50(probe.exec.histogram)}`;
        const naiveCase = `baseline: naive pipeline, paced ${PACE_MS} ms, ${label}`;
        rows.push(
          latencyRow(SUITE, `ours: frame in -> handleBytes returned, paced ${PACE_MS} ms, ${label}`, false, ours.histogram, { compareTo: naiveCase, note: hops }),
          latencyRow(SUITE, naiveCase, true, naive.histogram, { note: `one wake per ${PACE_MS} ms, lanes alternating: each lane every ${2 * PACE_MS} ms` }),
        );
      };
      await phase('keep-warm off');
      await phase(`keep-warm off, ${SPIN_US} µs of register-only arithmetic after each wake`, SPIN_US);
      keepWarm = new KeepWarm({ intervalMs: KEEP_WARM_MS, limits: hp.gate.limits, clock: systemClock, realGate: { gate: hp.gate, marginRoute: -1 } });
      keepWarm.start();
      // Warmed again with the dry run going, as the main job starts it: the shadow's classes meet
      // the path's call sites (a second route class at the OMS's call, for one) before the timing,
      // not in it (a deopt there and a slow re-optimization at 50 frames a second).
      next += (await drive([ours, naive], frames.slice(next), { warmup: plan.warmup, samples: 0, budgetMs: plan.budgetMs })).next;
      await phase(`keep-warm every ${KEEP_WARM_MS} ms`);
      keepWarm.stop();
      const keepWarmRuns = keepWarm.stats.runs;
      keepWarm = null;
      ours.histogram.reset();
      naive.histogram.reset();
      const backToBack = await drive([ours, naive], frames.slice(next), { warmup: 0, samples: plan.samples, budgetMs: plan.budgetMs });
      const naiveCase = 'baseline: naive pipeline, back to back';
      rows.push(
        latencyRow(SUITE, 'ours: frame in -> handleBytes returned, back to back', false, ours.histogram, { compareTo: naiveCase, note: `${backToBack.timed} frames per lane, interleaved as bench/hot-path (probe on); keep-warm runs in the paced phase: ${keepWarmRuns}` }),
        latencyRow(SUITE, naiveCase, true, naive.histogram),
      );
      rows.push(...await fixLegRows({ suite: SUITE, seed: SEED + 1, plan, paceMs: PACE_MS, keepWarmMs: KEEP_WARM_MS, work }));
      return rows;
    } finally {
      keepWarm?.stop();
      await hp?.stop();
      rmSync(work, { recursive: true, force: true });
    }
  },
} satisfies BenchSuite;
