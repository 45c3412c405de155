/**
 * The catalog case of the capture suite (issue "4 of 6": catalog write rate and Parquet size
 * against the recording's size). `catalog add`'s own path (src/catalog: the recording decoded by
 * the feed into rows, DuckDB's appender, then Parquet partitioned by date and market) over the
 * first `records` records of the capture's recording, timed from the read to the last Parquet
 * file: rows a second, and the Parquet bytes against the recording bytes those records took.
 * Beside it in the same run: DuckDB alone writing as many rows of the book-delta table's shape,
 * made in SQL from range() over the same number of markets, to Parquet with the same partitioning
 * and compression: the floor the decoding and appending add to. A bounded prefix, since a whole
 * capture of 5,000 markets makes tens of thousands of partition files.
 */

import { mkdirSync, readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import { CatalogWriter, sqlText } from '../../src/catalog/catalog-writer.ts';
import { recordingRows } from '../../src/catalog/recording-rows.ts';
import { readRecordingFile } from '../../src/record/index.ts';

export interface CatalogCase {
  records: number;
  /** Bytes of the recording up to the end of the last record read. */
  recordingBytes: number;
  rows: number;
  deltaRows: number;
  markets: number;
  seconds: number;
  parquetBytes: number;
  parquetFiles: number;
  baseline: { rows: number; seconds: number; parquetBytes: number; parquetFiles: number };
}

function treeSize(dir: string): { bytes: number; files: number } {
  let bytes = 0;
  let files = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true, recursive: true })) {
    if (!entry.isFile()) continue;
    bytes += statSync(path.join(entry.parentPath, entry.name)).size;
    files++;
  }
  return { bytes, files };
}

/** The capture's largest recording file in `captureDir`. */
export function largestRecording(captureDir: string): string {
  const files = readdirSync(captureDir).filter((name) => name.endsWith('.prrc')).map((name) => path.join(captureDir, name));
  if (files.length === 0) throw new Error(`bench capture: no recording in ${captureDir}`);
  return files.sort((a, b) => statSync(b).size - statSync(a).size)[0]!;
}

export async function runCatalogCase(recordingFile: string, work: string, records: number): Promise<CatalogCase> {
  const catalogDir = path.join(work, 'catalog');
  mkdirSync(catalogDir, { recursive: true });
  const started = performance.now();
  const whole = readRecordingFile(recordingFile);
  const count = Math.min(records, whole.count);
  const recording = { ...whole, count };
  const writer = await CatalogWriter.open(catalogDir);
  recordingRows(recording, writer, { snapshotMs: 1_000, depth: 5, source: path.basename(recordingFile) });
  const rows = Object.values(writer.rows).reduce((sum, n) => sum + n, 0);
  const deltaRows = writer.rows.book_deltas;
  await writer.finish('bench');
  const seconds = (performance.now() - started) / 1000;
  const written = treeSize(catalogDir);
  const markets = readdirSync(path.join(catalogDir, 'book_deltas'), { recursive: true }).filter((name) => String(name).includes('market=') && !String(name).includes('.parquet')).length;
  const recordingBytes = count === 0 ? 0 : whole.bodyStarts[count - 1]! + whole.bodyLengths[count - 1]!;
  const baseline = await duckdbAlone(path.join(work, 'catalog-baseline'), rows, Math.max(1, markets));
  return { records: count, recordingBytes, rows, deltaRows, markets, seconds, parquetBytes: written.bytes, parquetFiles: written.files, baseline };
}

/** DuckDB making `rows` rows of the book-delta shape over `markets` markets and writing them as the catalog does. */
async function duckdbAlone(dir: string, rows: number, markets: number): Promise<CatalogCase['baseline']> {
  mkdirSync(dir, { recursive: true });
  const instance = await DuckDBInstance.create(':memory:');
  const connection = await instance.connect();
  const started = performance.now();
  try {
    await connection.run(
      `CREATE TABLE book_deltas AS SELECT 1790000000000000 + i * 20 AS received_us, 1790000000000 + i // 50 AS exchange_ts_ms, 1 AS sid, i AS seq, ` +
        `CASE WHEN i % 2 = 0 THEN 'yes' ELSE 'no' END AS side, 4000 + (i * 7919) % 2000 AS price_e4, (i % 200) - 100 AS delta_count_e2, ` +
        `'bench' AS source, '2026-11-30' AS date, 'KXSYN-' || (i % ${markets}) AS market FROM range(${rows}) t(i)`,
    );
    await connection.run(`COPY book_deltas TO '${sqlText(dir)}' (FORMAT parquet, COMPRESSION zstd, PARTITION_BY (date, market), OVERWRITE_OR_IGNORE true, FILENAME_PATTERN 'bench_{i}')`);
  } finally {
    connection.closeSync();
    instance.closeSync();
  }
  const seconds = (performance.now() - started) / 1000;
  const written = treeSize(dir);
  return { rows, seconds, parquetBytes: written.bytes, parquetFiles: written.files };
}
