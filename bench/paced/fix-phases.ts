/**
 * The paced suite's FIX leg: the same in-process path with the strategy on `route: fix`, its
 * orders encoded by the real FixOrderEntry (bench/fix/fix-sink.ts: NewOrderSingle bytes ready,
 * socket.write counted, no syscall), paced at the live cadence beside the naive pipeline. Live,
 * the FIX route's exec leg runs after milliseconds of idle as the REST route's does; this times
 * that leg in process, where no socket adds to it, keep-warm off and then on with the FIX route's
 * own rehearsal (FixOrderEntry.rehearseCreate / rehearseAmend, as the main job's keep-warm does
 * when a strategy uses FIX). Its own graph and frames (the book starts at the snapshot), so the
 * REST phases before it are left as they were. Bounded in wakes and time (paced()).
 */

import path from 'node:path';
import { systemClock } from '../../src/core/index.ts';
import { KeepWarm } from '../../src/runtime/keep-warm.ts';
import { latencyRow } from '../harness.ts';
import type { BenchRow } from '../harness.ts';
import { makeFeedStream } from '../feed/delta-frames.ts';
import { FixSinkRoute } from '../fix/fix-sink.ts';
import { PathLane, drive } from '../hot-path/lanes.ts';
import { NaiveLane } from '../hot-path/naive-lane.ts';
import { SinkOrderEntry } from '../hot-path/sink-order-entry.ts';
import { buildHotPath } from '../hot-path/wiring.ts';
import type { HotPath } from '../hot-path/wiring.ts';
import { p50, p99, paced } from './pace.ts';
import type { Plan } from './pace.ts';

export interface FixLegOptions {
  suite: string;
  seed: number;
  plan: Plan;
  paceMs: number;
  keepWarmMs: number;
  /** Where the FIX graph's journal goes (the suite's scratch directory). */
  work: string;
}

/**
 * Two paced phases on the FIX route against the naive pipeline (keep-warm off, then on with the
 * FIX route's rehearsal), after a back-to-back warm-up. Rows: each phase's pair, the FIX lane's
 * hops in the note (its exec hop is the FIX route's encode, session send and transport copy).
 */
export async function fixLegRows(options: FixLegOptions): Promise<BenchRow[]> {
  const { suite, plan, paceMs, keepWarmMs } = options;
  const total = 2 * plan.warmup + 4 * plan.pacedSamples + 16;
  const stream = makeFeedStream(1, total, options.seed);
  const frames = stream.deltas.map((text) => Buffer.from(text, 'utf8'));
  let route: FixSinkRoute | null = null;
  let hp: HotPath | null = null;
  let keepWarm: KeepWarm | null = null;
  try {
    route = await FixSinkRoute.start();
    const reads = new SinkOrderEntry(); // reads and the graph's default route (the strategy sends nothing on it)
    hp = await buildHotPath({
      ticker: stream.tickers[0], grid: stream.grid, snapshotFrame: stream.snapshots[0], entry: reads, fix: route.entry, route: 'fix',
      journalPath: path.join(options.work, 'journal-fix.jsonl'), mode: 'replace', clockSteps: total,
    });
    const fix = new PathLane('fix', hp, route); // the route's answers (ExecutionReports) between frames
    const naive = new NaiveLane();
    let next = (await drive([fix, naive], frames, { warmup: plan.warmup, samples: 0, budgetMs: plan.budgetMs })).next;
    const rows: BenchRow[] = [];
    const phase = async (label: string): Promise<void> => {
      fix.histogram.reset();
      naive.histogram.reset();
      hp!.probe.reset();
      const sentBefore = route!.requests;
      next = await paced([fix, naive], frames, next, plan, 0, paceMs);
      const probe = hp!.probe;
      const hops = `hops p50 (ns): decode ${p50(probe.decode.histogram)}, book ${p50(probe.book.histogram)}, strategy ${p50(probe.strategy.histogram)}, risk ${p50(probe.risk.histogram)}, OMS ${p50(probe.oms.histogram)}, exec (FIX encode, session send, transport copy) ${p50(probe.exec.histogram)}, p99 ${p99(probe.exec.histogram)}`;
      const naiveCase = `[fix] baseline: naive pipeline, paced ${paceMs} ms, ${label}`;
      rows.push(
        latencyRow(suite, `[fix] ours, FIX route: frame in -> handleBytes returned, paced ${paceMs} ms, ${label}`, false, fix.histogram, {
          compareTo: naiveCase, note: `${hops}; FIX messages written in the phase ${route!.requests - sentBefore} (orders and cancels)`,
        }),
        latencyRow(suite, naiveCase, true, naive.histogram, { note: `one wake per ${paceMs} ms, lanes alternating: each lane every ${2 * paceMs} ms` }),
      );
    };
    await phase('keep-warm off');
    keepWarm = new KeepWarm({
      intervalMs: keepWarmMs, limits: hp.gate.limits, clock: systemClock, realGate: { gate: hp.gate, marginRoute: -1 }, realRoutes: [route.entry],
    });
    keepWarm.start();
    next += (await drive([fix, naive], frames.slice(next), { warmup: plan.warmup, samples: 0, budgetMs: plan.budgetMs })).next;
    await phase(`keep-warm every ${keepWarmMs} ms, the FIX route rehearsed`);
    if (keepWarm.realCreates === 0) throw new Error('bench paced: the keep-warm never rehearsed a create on the FIX route');
    return rows;
  } finally {
    keepWarm?.stop();
    await hp?.stop();
    await route?.stop();
  }
}
