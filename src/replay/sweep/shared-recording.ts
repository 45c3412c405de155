/**
 * A recording decoded once into one SharedArrayBuffer, so every worker of a sweep reads the same
 * bytes and index without a copy per run or per worker: the file's bytes, and the index
 * recording-reader.ts builds (kinds, receive times, body offsets and lengths) as typed arrays over
 * the same memory. `recordingOfShared` wraps the buffer back into a Recording (views only, no
 * copy) that Replay reads as it reads a file. Owns the layout; never interprets records.
 *
 *   | header 8 x f64 | timesNs f64[count] | bodyStarts u32[count] | bodyLengths u32[count] | kinds u8[count] | pad to 8 | bytes |
 *   header: layout version, format version, startMs, count, truncatedTailBytes, bytes length, 0, 0
 *
 * Beside it, what every replay of the recording would otherwise compute per run (replay-prep.ts):
 * each record's frame class as one byte in a second SharedArrayBuffer, and the few small facts
 * (recorded sids, the id-less seq oks, the recorded hops' percentiles) as plain data.
 * `replayPrepOfShared` builds a worker's ReplayPrep from them once; no string per frame.
 */

import type { Recording } from '../../record/index.ts';
import { classifyFrames } from '../frame-class.ts';
import { prepareReplay, recordedHops } from '../replay-prep.ts';
import type { RecordedHops, ReplayPrep } from '../replay-prep.ts';

const LAYOUT_VERSION = 1;
const HEADER_BYTES = 64;

export interface SharedRecording {
  buffer: SharedArrayBuffer;
  source: string;
  /** Absent in a SharedRecording built by hand: each Replay then classifies for itself. */
  prep?: SharedPrep;
}

/** The replay's per-recording passes, done once (replay-prep.ts). */
export interface SharedPrep {
  /** FrameClass codes, one byte a record. */
  classes: SharedArrayBuffer;
  sidsByChannel: [string, number][];
  seqOks: [number, string][];
  hops: RecordedHops;
}

interface Layout {
  timesAt: number;
  startsAt: number;
  lengthsAt: number;
  kindsAt: number;
  bytesAt: number;
  total: number;
}

function layoutOf(count: number, bytesLength: number): Layout {
  const timesAt = HEADER_BYTES;
  const startsAt = timesAt + count * 8;
  const lengthsAt = startsAt + count * 4;
  const kindsAt = lengthsAt + count * 4;
  const bytesAt = Math.ceil((kindsAt + count) / 8) * 8;
  return { timesAt, startsAt, lengthsAt, kindsAt, bytesAt, total: bytesAt + bytesLength };
}

/** Copies a decoded recording into shared memory (once per sweep). */
export function shareRecording(recording: Recording): SharedRecording {
  const { count, bytes } = recording;
  const layout = layoutOf(count, bytes.length);
  const buffer = new SharedArrayBuffer(layout.total);
  new Float64Array(buffer, 0, 8).set([LAYOUT_VERSION, recording.version, recording.startMs, count, recording.truncatedTailBytes, bytes.length, 0, 0]);
  new Float64Array(buffer, layout.timesAt, count).set(recording.timesNs);
  new Uint32Array(buffer, layout.startsAt, count).set(recording.bodyStarts);
  new Uint32Array(buffer, layout.lengthsAt, count).set(recording.bodyLengths);
  new Uint8Array(buffer, layout.kindsAt, count).set(recording.kinds);
  new Uint8Array(buffer, layout.bytesAt, bytes.length).set(bytes);
  return { buffer, source: recording.source, prep: sharePrep(recording) };
}

function sharePrep(recording: Recording): SharedPrep {
  const classes = new SharedArrayBuffer(recording.count);
  const frames = classifyFrames(recording, new Uint8Array(classes));
  return { classes, sidsByChannel: [...frames.sidsByChannel], seqOks: [...frames.seqOks], hops: recordedHops(recording) };
}

/**
 * The ReplayPrep of a shared recording (its view from recordingOfShared): the class codes a view
 * over the shared bytes; markets, facts and the latency model (small: one entry a market, group
 * or live request) computed here. Build it once per worker and give it to every Replay.
 */
export function replayPrepOfShared(shared: SharedRecording, recording: Recording): ReplayPrep {
  const prep = shared.prep;
  if (prep === undefined) return prepareReplay(recording);
  if (prep.classes.byteLength !== recording.count) throw new Error(`shared recording: ${prep.classes.byteLength} frame classes for ${recording.count} records`);
  const frames = { classes: new Uint8Array(prep.classes), sidsByChannel: new Map(prep.sidsByChannel), seqOks: new Map(prep.seqOks) };
  return prepareReplay(recording, { frames, hops: prep.hops });
}

/** The Recording over a shared buffer: typed-array views and a Buffer view, nothing copied. */
export function recordingOfShared(shared: SharedRecording): Recording {
  const { buffer } = shared;
  const header = new Float64Array(buffer, 0, 8);
  if (header[0] !== LAYOUT_VERSION) throw new Error(`shared recording: layout version ${header[0]}, this build reads ${LAYOUT_VERSION}`);
  const count = header[3];
  const bytesLength = header[5];
  const layout = layoutOf(count, bytesLength);
  return {
    source: shared.source,
    version: header[1],
    startMs: header[2],
    count,
    kinds: new Uint8Array(buffer, layout.kindsAt, count),
    timesNs: new Float64Array(buffer, layout.timesAt, count),
    bodyStarts: new Uint32Array(buffer, layout.startsAt, count),
    bodyLengths: new Uint32Array(buffer, layout.lengthsAt, count),
    // Buffer.from(sab, offset, length) is a view over the shared memory, not a copy.
    bytes: Buffer.from(buffer as unknown as ArrayBuffer, layout.bytesAt, bytesLength),
    truncatedTailBytes: header[4],
  };
}
