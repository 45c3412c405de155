/**
 * A capture's files: names by UTC time (capture-20261128T0900Z.prrc; with seconds,
 * capture-20261128T090002Z.prrc, when the rotation is not a whole number of minutes), the next
 * rotation boundary, and the quality report written beside a closed file. Owns names and the
 * report file; the recorder (recorder.ts) owns the recording's bytes.
 */

import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { QualityReport } from './capture-quality.ts';

function pad(value: number, width = 2): string {
  return String(value).padStart(width, '0');
}

/** `capture-YYYYMMDDTHHMM[SS]Z`, with `-N` appended while such a file already exists in `dir` (a restart in the same minute). */
export function captureFileName(dir: string, startMs: number, withSeconds: boolean): string {
  const d = new Date(startMs);
  const stamp = `${d.getUTCFullYear()}${pad(d.getUTCMonth() + 1)}${pad(d.getUTCDate())}T${pad(d.getUTCHours())}${pad(d.getUTCMinutes())}${withSeconds ? pad(d.getUTCSeconds()) : ''}Z`;
  // Bounded: a folder holds far fewer than 1,000 captures started in one minute.
  for (let n = 0; n < 1000; n++) {
    const name = `capture-${stamp}${n === 0 ? '' : `-${n}`}.prrc`;
    if (!existsSync(join(dir, name))) return name;
  }
  return `capture-${stamp}-${startMs}.prrc`;
}

/** The next multiple of `rotateMs` after `nowMs` (hourly rotation closes files on the hour). */
export function nextRotationMs(nowMs: number, rotateMs: number): number {
  return (Math.floor(nowMs / rotateMs) + 1) * rotateMs;
}

/** `X.prrc` -> `X.quality.json`. */
export function qualityPathFor(recordingPath: string): string {
  return recordingPath.replace(/\.prrc$/, '') + '.quality.json';
}

export function writeQualityReport(recordingPath: string, report: QualityReport): string {
  const path = qualityPathFor(recordingPath);
  writeFileSync(path, JSON.stringify(report, null, 2) + '\n', { mode: 0o600 });
  return path;
}
