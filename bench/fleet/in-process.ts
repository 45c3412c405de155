/**
 * Tick-to-trade of a fleet runtime's hot path against a lone runtime's, in process: the whole path
 * from frame bytes to order bytes (bench/hot-path's wiring and driver: the runtime's own graph
 * builder, a sink for the orders), two instances built alike and interleaved frame by frame, so
 * the machine's noise and the collector's pauses fall on both alike, over 200,000 frames; a third,
 * lone like the first, is the control: lone against lone is what this design cannot tell apart.
 * Instances built in one order differed by 6-8% (lone against lone) in one run: the frames are
 * split over six rounds of fresh instances, one per build order, so each role is built first,
 * second and third alike, and each role's samples are pooled over the rounds.
 *
 * The fleet instance is given what a lease gives a runtime (src/runtime/fleet-host.ts, the calls
 * FleetPort makes off the hot path): its gate's buckets at a leased share of the account's
 * budgets (gate.budget.setBudget, as applyBudget) and its position and loss limits at a third of
 * the account's, a three-runtime fleet's equal share (gate.setLimitShares, as applyLimitShares).
 * The lease's renewals (a Redis round trip on a timer) are not on this path; the live rows of the
 * suite carry them. What this compares is the claim that a lease costs nothing per order, with
 * enough samples to resolve 2% at p99, which the live runs (run-to-run p50 drift up to ±9%) cannot.
 */

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { DENY_CODE_COUNT } from '../../src/risk/index.ts';
import { createHistogram } from '../harness.ts';
import type { Histogram } from '../harness.ts';
import { makeFeedStream } from '../feed/delta-frames.ts';
import { PathLane, drive } from '../hot-path/lanes.ts';
import type { DrivePhase } from '../hot-path/lanes.ts';
import { SinkOrderEntry } from '../hot-path/sink-order-entry.ts';
import { buildHotPath } from '../hot-path/wiring.ts';
import type { HotPath } from '../hot-path/wiring.ts';

/** The share of the account's budgets the fleet path's buckets get: the most a lease gives (98%). */
const BUDGET_SHARE = 0.98;
/** The share of each account limit: three runtimes' equal share. */
const LIMIT_SHARE = 1 / 3;
const SEED = 20261129;

export interface InProcessResult {
  lone: Histogram;
  fleet: Histogram;
  /** A second lone instance in the same interleaving: lone against lone is this design's noise. */
  control: Histogram;
  /** Frames timed per instance, over all rounds. */
  frames: number;
  /** Rounds, each with fresh instances built in another order (BUILD_ORDERS). */
  rounds: number;
  orders: { lone: number; fleet: number };
  denies: { lone: number; fleet: number };
  /** What the fleet path's gate was given, for the row's note. */
  leased: string;
}

/** The build orders of the three instances, one per round: every role is built first, second and third alike. */
const BUILD_ORDERS: readonly (readonly Role[])[] = [
  ['lone', 'fleet', 'control'], ['fleet', 'control', 'lone'], ['control', 'lone', 'fleet'],
  ['lone', 'control', 'fleet'], ['control', 'fleet', 'lone'], ['fleet', 'lone', 'control'],
];
type Role = 'lone' | 'fleet' | 'control';

export async function inProcessRuns(phase: DrivePhase): Promise<InProcessResult> {
  const rounds = BUILD_ORDERS.length;
  const perRound: DrivePhase = { warmup: phase.warmup, samples: Math.ceil(phase.samples / rounds), budgetMs: Math.ceil(phase.budgetMs / rounds) };
  const stream = makeFeedStream(1, perRound.warmup + perRound.samples, SEED);
  const bytes = stream.deltas.map((text) => Buffer.from(text, 'utf8'));
  const pooled = { lone: createHistogram(), fleet: createHistogram(), control: createHistogram() };
  const orders = { lone: 0, fleet: 0 };
  const denies = { lone: 0, fleet: 0 };
  let frames = 0;
  let leased = '';
  for (const order of BUILD_ORDERS) {
    const work = mkdtempSync(path.join(tmpdir(), 'bench-fleet-in-process-'));
    const paths: HotPath[] = [];
    try {
      const lanes = new Map<Role, PathLane>();
      for (const role of order) {
        const sink = new SinkOrderEntry();
        const hp = await buildHotPath({
          ticker: stream.tickers[0]!, grid: stream.grid, snapshotFrame: stream.snapshots[0]!, entry: sink,
          journalPath: path.join(work, `journal-${role}.jsonl`), mode: 'replace',
        });
        paths.push(hp);
        hp.probe.setEnabled(false);
        if (role === 'fleet') leased = lease(hp);
        lanes.set(role, new PathLane(role, hp, sink));
      }
      const { timed } = await drive(order.map((role) => lanes.get(role)!), bytes, perRound);
      frames += timed;
      for (const role of order) pooled[role].add(lanes.get(role)!.histogram);
      const denied = (hp: HotPath): number => hp.host.denyCounts(new Float64Array(DENY_CODE_COUNT)).reduce((sum, n) => sum + n, 0);
      for (const role of ['lone', 'fleet'] as const) {
        orders[role] += lanes.get(role)!.hp.oms.stats.ordersSent;
        denies[role] += denied(lanes.get(role)!.hp);
      }
    } finally {
      for (const hp of paths) await hp.stop();
      rmSync(work, { recursive: true, force: true });
    }
  }
  return { ...pooled, frames, rounds, orders, denies, leased };
}

/** The fleet path's gate as a lease leaves it (fleet-host.ts applyBudget and applyLimitShares). */
function lease(hp: HotPath): string {
  const gate = hp.gate;
  const budget = gate.budget;
  const nowMs = hp.clock.nowMs();
  const write = Math.floor(budget.writePerSecond * BUDGET_SHARE);
  const writeCapacity = Math.floor(budget.writeCapacity * BUDGET_SHARE);
  const read = Math.floor(budget.readPerSecond * BUDGET_SHARE);
  budget.setBudget(write, writeCapacity, read, read, nowMs);
  const limits = gate.limits;
  const third = (limit: number): number => Math.floor(limit * LIMIT_SHARE);
  gate.setLimitShares(third(limits.marketPositionMax), third(limits.subaccountPositionMax), third(limits.worstLossSubaccountMax), third(limits.worstLossEventMax));
  return `buckets at ${BUDGET_SHARE * 100}% of the account's (write ${write}/s, capacity ${writeCapacity}; read ${read}/s), limits at a third (gate.setLimitShares)`;
}
