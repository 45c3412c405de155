/**
 * SQL over the catalog: an in-memory DuckDB with one view per table that has files, each over
 * read_parquet('<dir>/<table>/**\/*.parquet', hive_partitioning) so `date` and `market` come from
 * the folder names (as VARCHAR, the same as pandas and polars read them). Owns the read side.
 */

import { existsSync } from 'node:fs';
import path from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import { TABLE_NAMES } from './catalog-tables.ts';
import { sqlText } from './catalog-writer.ts';

export interface QueryResult {
  columns: string[];
  rows: Record<string, unknown>[];
}

/** Runs `sql` (any statement; the last one's rows are returned) with the catalog's views registered. */
export async function queryCatalog(dir: string, sql: string): Promise<QueryResult> {
  const instance = await DuckDBInstance.create(':memory:');
  const connection = await instance.connect();
  try {
    for (const table of TABLE_NAMES) {
      const folder = path.join(dir, table);
      if (!existsSync(folder)) continue;
      const glob = sqlText(path.join(folder, '**', '*.parquet'));
      await connection.run(
        `CREATE VIEW "${table}" AS SELECT * FROM read_parquet('${glob}', hive_partitioning = true, hive_types = {'date': VARCHAR, 'market': VARCHAR}, union_by_name = true)`,
      );
    }
    const reader = await connection.runAndReadAll(sql);
    return { columns: reader.columnNames(), rows: reader.getRowObjectsJson() as Record<string, unknown>[] };
  } finally {
    connection.closeSync();
    instance.closeSync();
  }
}

/** Rows as aligned text columns for the terminal. */
export function formatRows(result: QueryResult): string {
  const cells = [result.columns, ...result.rows.map((row) => result.columns.map((column) => String(row[column] ?? 'NULL')))];
  const widths = result.columns.map((_, i) => Math.max(...cells.map((line) => line[i].length)));
  return cells.map((line) => line.map((cell, i) => cell.padEnd(widths[i])).join('  ').trimEnd()).join('\n');
}
