/**
 * A recording decoded once into one SharedArrayBuffer, so every worker of a sweep reads the same
 * bytes and index without a copy per run or per worker: the file's bytes, and the index
 * recording-reader.ts builds (kinds, receive times, body offsets and lengths) as typed arrays over
 * the same memory. `recordingOfShared` wraps the buffer back into a Recording (views only, no
 * copy) that Replay reads as it reads a file. Owns the layout; never interprets records.
 *
 *   | header 8 x f64 | timesNs f64[count] | bodyStarts u32[count] | bodyLengths u32[count] | kinds u8[count] | pad to 8 | bytes |
 *   header: layout version, format version, startMs, count, truncatedTailBytes, bytes length, 0, 0
 */

import type { Recording } from '../../record/index.ts';

const LAYOUT_VERSION = 1;
const HEADER_BYTES = 64;

export interface SharedRecording {
  buffer: SharedArrayBuffer;
  source: string;
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
  return { buffer, source: recording.source };
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
