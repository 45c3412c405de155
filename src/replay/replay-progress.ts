/**
 * `npm run replay`'s progress on a terminal: a cli-progress bar with ETA of the recording's frames
 * done out of those it will replay, on stderr (stdout carries the report). Nothing when stderr is
 * not a terminal or the output is --json. Fed from Replay's onProgress hook (every
 * DRAIN_EVERY_FRAMES frames, no await of its own), so it cannot change the run; cli-progress
 * redraws inside update() (synchronousUpdate), since the replay loop gives its timers no turn.
 */

import cliProgress from 'cli-progress';
import { RecordKind } from '../record/index.ts';
import type { Recording } from '../record/index.ts';

export interface ReplayProgress {
  update(framesDone: number): void;
  stop(): void;
}

/** The FRAME records a replay will go through: all of them, or up to framesMax (skipped frames not counted). */
export function framesToReplay(recording: Recording, framesMax: number | undefined): number {
  let frames = 0;
  for (let i = 0; i < recording.count; i++) if (recording.kinds[i] === RecordKind.FRAME) frames++;
  return framesMax === undefined ? frames : Math.min(frames, framesMax);
}

export function createReplayProgress(total: number, json: boolean, stream: NodeJS.WriteStream = process.stderr): ReplayProgress | null {
  if (json || stream.isTTY !== true || total === 0) return null;
  const bar = new cliProgress.SingleBar({
    stream,
    format: 'replay [{bar}] {value}/{total} frames | {percentage}% | ETA {eta_formatted}',
    etaBuffer: 50,
    hideCursor: true,
    synchronousUpdate: true,
  }, cliProgress.Presets.shades_classic);
  bar.start(total, 0);
  return {
    // Skipped frames count as done, so with --frames the count can pass the total: capped.
    update: (framesDone) => bar.update(Math.min(framesDone, total)),
    stop: () => {
      bar.update(total);
      bar.stop();
    },
  };
}
