/**
 * `catalog add FILE...`: each file into the catalog, one DuckDB write per file (its Parquet files
 * named after it, so adding it again replaces them). A file starting with the recording magic is
 * a recording (recording-rows.ts); anything else is read as an OMS journal (journal-rows.ts).
 * Owns the dispatch and the counts it reports.
 */

import { closeSync, openSync, readSync } from 'node:fs';
import path from 'node:path';
import { FILE_MAGIC } from '../record/format.ts';
import { readRecordingFile } from '../record/recording-reader.ts';
import { CatalogWriter } from './catalog-writer.ts';
import type { TableName } from './catalog-tables.ts';
import { journalRows } from './journal-rows.ts';
import { recordingRows } from './recording-rows.ts';

export interface AddOptions {
  snapshotMs: number;
  depth: number;
}

export interface AddResult {
  file: string;
  kind: 'recording' | 'journal';
  rows: Record<TableName, number>;
  rowsTotal: number;
  inputBytes: number;
  elapsedMs: number;
}

function isRecording(file: string): boolean {
  const fd = openSync(file, 'r');
  try {
    const head = Buffer.alloc(4);
    return readSync(fd, head, 0, 4, 0) === 4 && head.toString('latin1') === FILE_MAGIC;
  } finally {
    closeSync(fd);
  }
}

export async function addToCatalog(dir: string, file: string, options: AddOptions): Promise<AddResult> {
  const started = performance.now();
  const writer = await CatalogWriter.open(dir);
  const tag = path.basename(file).replace(/\.[^.]+$/, '');
  let kind: AddResult['kind'];
  let inputBytes: number;
  try {
    if (isRecording(file)) {
      kind = 'recording';
      const recording = readRecordingFile(file);
      inputBytes = recording.bytes.length;
      recordingRows(recording, writer, { snapshotMs: options.snapshotMs, depth: options.depth, source: path.basename(file) });
    } else {
      kind = 'journal';
      inputBytes = 0;
      journalRows(file, writer, path.basename(file));
    }
  } catch (error) {
    writer.abort();
    throw error;
  }
  await writer.finish(tag);
  const rowsTotal = Object.values(writer.rows).reduce((sum, n) => sum + n, 0);
  return { file, kind, rows: { ...writer.rows }, rowsTotal, inputBytes, elapsedMs: performance.now() - started };
}
