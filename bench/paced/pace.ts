/**
 * The paced suite's driver: one frame per timer wake, the lanes alternating, each lane from its
 * own cursor; used by the suite's REST phases and its FIX leg (fix-phases.ts). Measures only what
 * the lanes time; bounded in wakes and time.
 */

import { setTimeout as sleep } from 'node:timers/promises';
import type { Lane } from '../hot-path/lanes.ts';

/** Between two wakes: the simulator's activity burst interval (src/sim/server/activity-driver.ts). */
export const PACE_MS = 10;

export interface Plan {
  /** Back-to-back frames before anything is timed: V8 optimizes the path, as the main job's warm-up does. */
  warmup: number;
  /** Timed wakes per lane per paced phase. */
  pacedSamples: number;
  /** Timed frames per lane back to back. */
  samples: number;
  budgetMs: number;
}

/**
 * One timed frame per timer wake, the lanes alternating; the answers and ticks between frames as
 * drive() runs them. Each lane reads the frames in order from its own cursor (the path's book
 * checks the sequence: a lane may skip none). Returns the frame after the furthest one read.
 */
export async function paced(lanes: readonly Lane[], frames: readonly Buffer[], first: number, plan: Plan, spinUs: number, paceMs = PACE_MS): Promise<number> {
  const cursors = lanes.map(() => first);
  const deadline = performance.now() + plan.budgetMs;
  const wakes = plan.pacedSamples * lanes.length;
  for (let wake = 0; wake < wakes && performance.now() < deadline; wake++) {
    const k = wake % lanes.length;
    const frame = cursors[k];
    if (frame >= frames.length) break;
    await sleep(paceMs);
    if (spinUs > 0) spin(spinUs);
    lanes[k].between(frame);
    lanes[k].step(frames[frame], true);
    cursors[k] = frame + 1;
  }
  return Math.max(...cursors);
}

let spinSink = 0;

/** Busy arithmetic in registers for `us` microseconds (a clock read every 64 rounds). */
function spin(us: number): void {
  const until = performance.now() + us / 1_000;
  let x = spinSink | 1;
  while (performance.now() < until) {
    for (let i = 0; i < 64; i++) x = (Math.imul(x, 1_103_515_245) + 12_345) | 0;
  }
  spinSink = x;
}

/** A histogram's p50, rounded (hop notes). */
export function p50(histogram: { getValueAtPercentile(p: number): number }): number {
  return Math.round(histogram.getValueAtPercentile(50));
}

/** A histogram's p99, rounded (hop notes). */
export function p99(histogram: { getValueAtPercentile(p: number): number }): number {
  return Math.round(histogram.getValueAtPercentile(99));
}
