/**
 * Goal: the recording format round-trips and fails clearly: what the Recorder appends (frames from
 * a socket buffer's middle, text records, through buffer growth and batched flushes) reads back
 * byte for byte with its times; a file cut anywhere reads as its whole records plus an ignored
 * tail; a flipped marker, an unknown kind, a wrong header or a missing file give their codes; every
 * code is documented in docs/recording-format.md.
 * Method: real files in a temporary folder, an injected ns clock, every prefix of a small file.
 */

import { mkdtempSync, readFileSync, rmSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  FILE_HEADER_BYTES, RECORDING_ERROR_CODES, RECORD_HEADER_BYTES, RecordKind, Recorder, RecordingError, readRecording, readRecordingFile, recordText,
} from '../../src/record/index.ts';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
let dir: string;

beforeEach(() => {
  dir = mkdtempSync(path.join(tmpdir(), 'recording-'));
});
afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
});

/** A clock that advances 1,500 ns per read, so every record has a distinct, known time. */
function steppingNs(): () => number {
  let ns = 1_000_000;
  return () => (ns += 1_500);
}

function codeOf(run: () => unknown): string {
  try {
    run();
  } catch (error) {
    if (error instanceof RecordingError) return error.code;
    throw error;
  }
  return 'NO_ERROR';
}

describe('Recorder and reader', () => {
  it('round-trips frames and text records with their receive times, in order', async () => {
    const recorder = new Recorder({ dir, startMs: 1_795_000_000_123, nowNs: steppingNs(), fileName: 'a.prrc' });
    // A frame in the middle of a bigger buffer, as a socket delivers it.
    const socket = Buffer.from('xx{"type":"orderbook_delta","sid":6,"seq":2}yy');
    recorder.frame(socket, 2, socket.length - 2);
    recorder.text(RecordKind.ORDER, 'create|c1|KX|bid|5000|100|good_till_canceled|1|0|taker_at_cross|1||0');
    recorder.text(RecordKind.ANSWER, 'create_reject|c1|400|invalid_order|price ünïcode / pipe');
    recorder.frame(Buffer.alloc(0), 0, 0);
    await recorder.close();
    const recording = readRecordingFile(recorder.path);
    expect(recording.startMs).toBe(1_795_000_000_123);
    expect(recording.count).toBe(4);
    expect(recording.truncatedTailBytes).toBe(0);
    expect([...recording.kinds]).toEqual([RecordKind.FRAME, RecordKind.ORDER, RecordKind.ANSWER, RecordKind.FRAME]);
    expect(recordText(recording, 0)).toBe('{"type":"orderbook_delta","sid":6,"seq":2}');
    expect(recordText(recording, 2)).toBe('create_reject|c1|400|invalid_order|price ünïcode / pipe');
    expect(recordText(recording, 3)).toBe('');
    // The origin read is the first 1,500 step; each record reads the clock once more.
    expect([...recording.timesNs]).toEqual([1_500, 3_000, 4_500, 6_000]);
    expect(recorder.stats).toMatchObject({ records: 4, droppedRecords: 0, writeErrors: 0 });
  });

  it('keeps every record through buffer growth and many batched flushes', async () => {
    const recorder = new Recorder({ dir, startMs: 0, nowNs: steppingNs(), fileName: 'b.prrc', bufferBytes: 256 });
    const frames: Buffer[] = [];
    for (let i = 0; i < 2_000; i++) {
      const frame = Buffer.from(`{"type":"trade","n":${i},"pad":"${'z'.repeat(i % 300)}"}`);
      frames.push(frame);
      recorder.frame(frame, 0, frame.length);
      if (i % 97 === 0) await new Promise((resolve) => setImmediate(resolve)); // let batches go out mid-stream
    }
    await recorder.close();
    const recording = readRecordingFile(recorder.path);
    expect(recording.count).toBe(2_000);
    for (let i = 0; i < 2_000; i += 1) expect(recordText(recording, i)).toBe(frames[i].toString());
    expect(recorder.stats.flushes).toBeGreaterThan(1);
  });

  it('reads any cut of a file as its whole records and reports the cut tail', async () => {
    const recorder = new Recorder({ dir, startMs: 5, nowNs: steppingNs(), fileName: 'c.prrc' });
    const bodies = ['{"a":1}', '{"bb":22}', '', '{"ccc":333}'];
    for (const body of bodies) recorder.text(RecordKind.FRAME, body);
    await recorder.close();
    const whole = readFileSync(recorder.path);
    const ends: number[] = [];
    let offset = FILE_HEADER_BYTES;
    for (const body of bodies) ends.push((offset += RECORD_HEADER_BYTES + Buffer.byteLength(body)));
    for (let length = 0; length <= whole.length; length++) {
      const cut = whole.subarray(0, length);
      if (length < FILE_HEADER_BYTES) {
        expect(codeOf(() => readRecording(cut))).toBe('RECORDING_BAD_MAGIC');
        continue;
      }
      const recording = readRecording(cut);
      const complete = ends.filter((end) => end <= length).length;
      expect(recording.count).toBe(complete);
      expect(recording.truncatedTailBytes).toBe(length - (complete === 0 ? FILE_HEADER_BYTES : ends[complete - 1]));
    }
    // The same through a truncated file on disk (a crash mid-write).
    truncateSync(recorder.path, whole.length - 3);
    const crashed = readRecordingFile(recorder.path);
    expect(crashed.count).toBe(3);
    expect(crashed.truncatedTailBytes).toBe(RECORD_HEADER_BYTES + Buffer.byteLength(bodies[3]) - 3);
  });

  it('gives a coded error for a corrupt, unknown, foreign or missing file', async () => {
    const recorder = new Recorder({ dir, startMs: 5, nowNs: steppingNs(), fileName: 'd.prrc' });
    recorder.text(RecordKind.FRAME, '{"x":1}');
    recorder.text(RecordKind.FRAME, '{"y":2}');
    await recorder.close();
    const good = readFileSync(recorder.path);
    const second = FILE_HEADER_BYTES + RECORD_HEADER_BYTES + 7;

    const noMarker = Buffer.from(good);
    noMarker[second] = 0x00;
    expect(codeOf(() => readRecording(noMarker))).toBe('RECORDING_CORRUPT');

    const unknownKind = Buffer.from(good);
    unknownKind[second + 1] = 99;
    expect(codeOf(() => readRecording(unknownKind))).toBe('RECORDING_UNKNOWN_KIND');

    const hugeLength = Buffer.from(good);
    hugeLength.writeUInt32LE(0x7fffffff, second + 4);
    expect(codeOf(() => readRecording(hugeLength))).toBe('RECORDING_CORRUPT');

    const badVersion = Buffer.from(good);
    badVersion.writeUInt16LE(9, 4);
    expect(codeOf(() => readRecording(badVersion))).toBe('RECORDING_BAD_VERSION');

    expect(codeOf(() => readRecording(Buffer.from('{"not":"a recording"}')))).toBe('RECORDING_BAD_MAGIC');
    expect(codeOf(() => readRecordingFile(path.join(dir, 'missing.prrc')))).toBe('RECORDING_NOT_FOUND');

    // The message names the offset, so an operator can find the damage.
    expect(() => readRecording(noMarker)).toThrow(`offset ${second}`);
  });

  it('never reopens an existing file (append-only, one file per run)', async () => {
    writeFileSync(path.join(dir, 'taken.prrc'), 'x');
    expect(codeOf(() => new Recorder({ dir, startMs: 0, fileName: 'taken.prrc' }))).toBe('RECORDING_OPEN_FAILED');
  });

  it('documents every error code in docs/recording-format.md', () => {
    const doc = readFileSync(path.join(ROOT, 'docs', 'recording-format.md'), 'utf8');
    for (const code of Object.keys(RECORDING_ERROR_CODES)) expect(doc, code).toContain(code);
  });
});
