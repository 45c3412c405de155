/**
 * What a Replay reads from the whole recording before its first frame: each frame's class
 * (frame-class.ts), the recorded markets, the session facts, the recorded latency model and the
 * live run's recorded hops (their percentiles). None depends on the replay's settings, so they are
 * computed once per recording and handed to every Replay of it (ReplayOptions.prep): a sweep's
 * worker then adds nothing proportional to the recording per run (the class codes live in shared
 * memory beside the recording's bytes, shared-recording.ts). Owns the hop arithmetic of the report's
 * recorded hops; the rest is the named modules'.
 */

import { RecordKind, recordText, recordedMarkets, sessionFacts } from '../record/index.ts';
import type { RecordedMarket, Recording, SessionFacts } from '../record/index.ts';
import { classifyFrames } from './frame-class.ts';
import type { FrameClasses } from './frame-class.ts';
import { recordedLatency } from './recorded-latency.ts';
import type { LatencyModel } from './recorded-latency.ts';
import { percentiles } from './report.ts';
import type { Percentiles } from './report.ts';

/** The live run's hops, as the report states them: frame -> the create it caused, create -> its answer. */
export interface RecordedHops {
  frameToOrder: Percentiles;
  orderToAnswer: Percentiles;
}

/** Read-only once built: every Replay given it reads, none writes. */
export interface ReplayPrep {
  frames: FrameClasses;
  hops: RecordedHops;
  markets: ReadonlyMap<string, RecordedMarket>;
  facts: SessionFacts;
  /** The recording's own latency model (null: it holds no answered request). */
  recordedLatency: LatencyModel | null;
}

/** The parts already computed elsewhere (a shared recording's class codes and hops) are taken as given. */
export function prepareReplay(recording: Recording, given: { frames?: FrameClasses; hops?: RecordedHops } = {}): ReplayPrep {
  return {
    frames: given.frames ?? classifyFrames(recording),
    hops: given.hops ?? recordedHops(recording),
    markets: recordedMarkets(recording),
    facts: sessionFacts(recording),
    recordedLatency: recordedLatency(recording),
  };
}

/**
 * Per-hop latencies of the live run, from the recording's own clock: frame -> the create it caused,
 * create -> its answer. A FRAME record is appended after the frame was handled, so the creates it
 * caused precede it in the file with later times: a create belongs to the next frame when that
 * frame's receive time is not after it, else to the frame before.
 */
export function recordedHops(recording: Recording): RecordedHops {
  const frameToOrderUs: number[] = [];
  const orderToAnswerUs: number[] = [];
  const sentNs = new Map<string, number>();
  const waiting: number[] = []; // create times since the last FRAME record
  let lastFrameNs = -1;
  for (let i = 0; i < recording.count; i++) {
    const kind = recording.kinds[i];
    const ns = recording.timesNs[i];
    if (kind === RecordKind.FRAME) {
      for (const orderNs of waiting) {
        const causeNs = ns <= orderNs ? ns : lastFrameNs;
        if (causeNs >= 0) frameToOrderUs.push(Math.round((orderNs - causeNs) / 1000));
      }
      waiting.length = 0;
      lastFrameNs = ns;
    } else if (kind === RecordKind.ORDER) {
      const parts = recordText(recording, i).split('|');
      if (parts[0] === 'create') {
        sentNs.set(parts[1], ns);
        waiting.push(ns);
      } else if (parts[0] === 'cancel' || parts[0] === 'amend' || parts[0] === 'decrease') sentNs.set(`${parts[0]}:${parts[1]}`, ns);
    } else if (kind === RecordKind.ANSWER) {
      const parts = recordText(recording, i).split('|');
      const verb = parts[0].slice(0, parts[0].indexOf('_'));
      const key = verb === 'create' ? parts[1] : `${verb}:${parts[1]}`;
      const sent = sentNs.get(key);
      if (sent !== undefined) {
        orderToAnswerUs.push(Math.round((ns - sent) / 1000));
        sentNs.delete(key);
      }
    }
  }
  return { frameToOrder: percentiles(frameToOrderUs), orderToAnswer: percentiles(orderToAnswerUs) };
}
