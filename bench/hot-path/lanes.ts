/**
 * The in-process tick-to-trade lanes and their driver, shared by bench/hot-path and bench/fleet's
 * in-process comparison: a lane is the runtime's whole path (a HotPath: frame bytes in, order
 * bytes out to a sink) or a baseline; drive() interleaves the lanes frame by frame, the starting
 * lane rotating, so the machine's noise and the collector's pauses fall on each alike. Measures
 * only what the lanes time; bounded in frames and time.
 */

import { setImmediate as nextTurn } from 'node:timers/promises';
import { createHistogram, nowNs, recordNs } from '../harness.ts';
import type { Histogram } from '../harness.ts';
import { FRAME_MS } from './wiring.ts';
import type { HotPath } from './wiring.ts';

export interface DrivePhase {
  warmup: number;
  samples: number;
  budgetMs: number;
}

export interface Lane {
  readonly histogram: Histogram;
  /** Handles one frame (its UTF-8 bytes, as the socket hands them over); times it when `timed`. */
  step(bytes: Buffer, timed: boolean): void;
  /** Work between frames (answers, coarse tick), never timed. */
  between(frame: number): void;
}

/** A sink of the path's requests that answers them between frames (SinkOrderEntry for REST, bench/fix's FixSinkRoute). */
export interface AnsweringSink {
  /** Answers what was sent since the last call, as the venue would; never timed. */
  deliverAnswers(nowMs: number): unknown;
}

/** The runtime's path: answers and the OMS tick between frames, only handleBytes timed. */
export class PathLane<Sink extends AnsweringSink = AnsweringSink> implements Lane {
  readonly histogram = createHistogram();
  ordersSoFar(): number {
    return this.hp.oms.stats.ordersSent;
  }

  constructor(
    readonly name: string,
    readonly hp: HotPath,
    readonly sink: Sink,
  ) {}

  between(frame: number): void {
    const clock = this.hp.clock;
    this.sink.deliverAnswers(clock.nowMs());
    clock.advance(FRAME_MS);
    if ((frame & 7) === 0) this.hp.oms.tick();
  }

  step(bytes: Buffer, timed: boolean): void {
    if (!timed) {
      this.hp.feed.handleBytes(bytes, 0, bytes.length);
      return;
    }
    const start = nowNs();
    this.hp.feed.handleBytes(bytes, 0, bytes.length);
    recordNs(this.histogram, nowNs() - start);
  }
}

/**
 * Interleaves the lanes frame by frame (the starting lane rotates), so the machine's noise and
 * the collector's pauses fall on every lane alike; each lane sees every frame once.
 */
export async function drive(lanes: readonly Lane[], frames: readonly Buffer[], phase: DrivePhase): Promise<{ timed: number; next: number }> {
  let next = 0;
  // A run of up to 1,024 rounds in one synchronous call, then a turn of the event loop (the
  // journals' writes). No await per frame: an await allocates a promise and its reaction (~260
  // bytes a frame), which was most of the garbage and half the scavenges the allocation rows
  // counted. The OMS tells strategies of a read's answers at its end (answersEnd), inside between().
  const run = (rounds: number, timed: boolean): number => {
    let done = 0;
    for (; done < rounds && next < frames.length; done++) {
      const bytes = frames[next];
      for (let k = 0; k < lanes.length; k++) lanes[k].between(next);
      for (let k = 0; k < lanes.length; k++) lanes[(next + k) % lanes.length].step(bytes, timed);
      next++;
    }
    return done;
  };
  let deadline = performance.now() + phase.budgetMs;
  for (let left = phase.warmup; left > 0 && next < frames.length; ) {
    left -= run(Math.min(1024, left), false);
    await nextTurn(); // let the journals' writes run
    if (performance.now() > deadline) break;
  }
  for (const lane of lanes) if (lane instanceof PathLane) lane.hp.probe.reset();
  deadline = performance.now() + phase.budgetMs;
  let timed = 0;
  while (timed < phase.samples && next < frames.length) {
    timed += run(Math.min(1024, phase.samples - timed), true);
    await nextTurn();
    if (performance.now() > deadline) break;
  }
  return { timed, next };
}
