/**
 * What the capture wrote, checked after it stopped: its closed files' quality reports (frames,
 * gaps, resyncs, disconnects, receive lag; the figures a user sees) summed over the files, and an
 * independent pass over the recordings themselves (envelope.ts): the markets it recorded, the FRAME
 * records received inside the measured window (count, bytes, receive lag against ts_ms from the
 * capture's own receive stamps) and sequence gaps per sid over the whole file. Reads files only.
 */

import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { RecordKind, readRecordingFile } from '../../src/record/index.ts';
import type { QualityReport } from '../../src/capture/index.ts';
import { LagHistogram, SequenceGaps, scanEnvelope, type Envelope } from './envelope.ts';

export interface RecordingCheck {
  files: number;
  reports: QualityReport[];
  /** Summed over the quality reports. */
  frames: number;
  sequenceGaps: number;
  resyncs: number;
  disconnects: number;
  droppedRecords: number;
  /** Largest p99 / p50 of the files' reports, ms; -1 when no report had a lag. */
  reportLagMsP99: number;
  reportLagMsP50: number;
  /** Markets the files' MARKET records name (distinct tickers). */
  tickers: string[];
  /** From the recordings: FRAME records received in [windowStartMs, windowEndMs). */
  windowFrames: number;
  windowFrameBytes: number;
  windowLagMsP50: number;
  windowLagMsP99: number;
  windowLagSamples: number;
  /** From the recordings: sequence gaps per sid over every frame (envelope scan). */
  scannedGaps: number;
  scannedSequenced: number;
}

export function checkCapture(dir: string, windowStartMs: number, windowEndMs: number): RecordingCheck {
  const names = readdirSync(dir).sort();
  const reports = names.filter((name) => name.endsWith('.quality.json')).map((name) => JSON.parse(readFileSync(path.join(dir, name), 'utf8')) as QualityReport);
  const check: RecordingCheck = {
    files: 0, reports, frames: 0, sequenceGaps: 0, resyncs: 0, disconnects: 0, droppedRecords: 0, reportLagMsP99: -1, reportLagMsP50: -1,
    tickers: [], windowFrames: 0, windowFrameBytes: 0, windowLagMsP50: -1, windowLagMsP99: -1, windowLagSamples: 0, scannedGaps: 0, scannedSequenced: 0,
  };
  for (const report of reports) {
    check.frames += report.frames;
    check.sequenceGaps += report.sequenceGaps;
    check.resyncs += report.resyncs;
    check.disconnects += report.disconnects;
    check.droppedRecords += report.droppedRecords;
    if (report.receiveLagMsP99 !== null) check.reportLagMsP99 = Math.max(check.reportLagMsP99, report.receiveLagMsP99);
    if (report.receiveLagMsP50 !== null) check.reportLagMsP50 = Math.max(check.reportLagMsP50, report.receiveLagMsP50);
  }
  const tickers = new Set<string>();
  const gaps = new SequenceGaps();
  const lag = new LagHistogram();
  const envelope: Envelope = { sid: -1, seq: -1, tsMs: -1 };
  for (const name of names.filter((file) => file.endsWith('.prrc'))) {
    check.files++;
    const recording = readRecordingFile(path.join(dir, name));
    for (let i = 0; i < recording.count; i++) {
      const start = recording.bodyStarts[i]!;
      const end = start + recording.bodyLengths[i]!;
      if (recording.kinds[i] === RecordKind.MARKET) {
        tickers.add((JSON.parse(recording.bytes.toString('utf8', start, end)) as { ticker: string }).ticker);
        continue;
      }
      if (recording.kinds[i] !== RecordKind.FRAME) continue;
      scanEnvelope(recording.bytes.subarray(start, end), envelope);
      gaps.offer(envelope.sid, envelope.seq);
      const receivedMs = recording.startMs + recording.timesNs[i]! / 1e6;
      if (receivedMs < windowStartMs || receivedMs >= windowEndMs) continue;
      check.windowFrames++;
      check.windowFrameBytes += end - start;
      if (envelope.tsMs > 0) lag.record(receivedMs - envelope.tsMs);
    }
  }
  check.tickers = [...tickers].sort();
  check.windowLagMsP50 = lag.quantile(0.5);
  check.windowLagMsP99 = lag.quantile(0.99);
  check.windowLagSamples = lag.count;
  check.scannedGaps = gaps.gaps;
  check.scannedSequenced = gaps.sequenced;
  return check;
}
