/**
 * Writes catalog rows as Parquet with DuckDB: rows are appended to in-memory tables (one per
 * catalog table, DuckDB's appender), then each non-empty table is copied to
 * `<dir>/<table>/date=YYYY-MM-DD/market=TICKER/<tag>_<i>.parquet` (Hive partitions). File names
 * carry the source's tag and are overwritten when the same source is added again, so `catalog add`
 * is idempotent per source. Owns the DuckDB instance of one `add`; never reads the sources.
 */

import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { DuckDBInstance, type DuckDBAppender, type DuckDBConnection } from '@duckdb/node-api';
import { TABLE_NAMES, columnsOf, type Column, type Row, type TableName } from './catalog-tables.ts';

export class CatalogWriter {
  readonly dir: string;
  readonly rows: Record<TableName, number>;
  readonly #instance: DuckDBInstance;
  readonly #connection: DuckDBConnection;
  readonly #appenders = new Map<TableName, DuckDBAppender>();

  private constructor(dir: string, instance: DuckDBInstance, connection: DuckDBConnection) {
    this.dir = dir;
    this.#instance = instance;
    this.#connection = connection;
    this.rows = Object.fromEntries(TABLE_NAMES.map((name) => [name, 0])) as Record<TableName, number>;
  }

  static async open(dir: string): Promise<CatalogWriter> {
    const instance = await DuckDBInstance.create(':memory:');
    const connection = await instance.connect();
    const writer = new CatalogWriter(dir, instance, connection);
    for (const table of TABLE_NAMES) {
      const columns = columnsOf(table).map((column) => `"${column.name}" ${column.type}`).join(', ');
      await connection.run(`CREATE TABLE "${table}" (${columns})`);
      writer.#appenders.set(table, await connection.createAppender(table));
    }
    return writer;
  }

  /** One row in column order (catalog-tables.ts), date and market last. */
  add(table: TableName, row: Row): void {
    const appender = this.#appenders.get(table)!;
    const columns = columnsOf(table);
    for (let i = 0; i < columns.length; i++) appendValue(appender, columns[i], row[i]);
    appender.endRow();
    this.rows[table]++;
  }

  /** Closes without writing anything (the source failed to read). */
  abort(): void {
    for (const appender of this.#appenders.values()) appender.closeSync();
    this.#appenders.clear();
    this.#connection.closeSync();
    this.#instance.closeSync();
  }

  /** Copies every non-empty table to Parquet under `dir`, files named `<tag>_<i>`; then closes. */
  async finish(tag: string): Promise<void> {
    const safeTag = tag.replace(/[^A-Za-z0-9_-]/g, '_');
    try {
      for (const [table, appender] of this.#appenders) {
        appender.closeSync();
        if (this.rows[table] === 0) continue;
        const target = path.join(this.dir, table);
        mkdirSync(target, { recursive: true });
        await this.#connection.run(
          `COPY "${table}" TO '${sqlText(target)}' (FORMAT parquet, COMPRESSION zstd, PARTITION_BY (date, market), OVERWRITE_OR_IGNORE true, FILENAME_PATTERN '${safeTag}_{i}')`,
        );
      }
    } finally {
      this.#appenders.clear();
      this.#connection.closeSync();
      this.#instance.closeSync();
    }
  }
}

function appendValue(appender: DuckDBAppender, column: Column, value: Row[number]): void {
  if (value === null || value === undefined) {
    appender.appendNull();
    return;
  }
  switch (column.type) {
    case 'BIGINT':
      appender.appendBigInt(BigInt(value as number));
      return;
    case 'INTEGER':
      appender.appendInteger(value as number);
      return;
    case 'BOOLEAN':
      appender.appendBoolean(value as boolean);
      return;
    case 'VARCHAR':
      appender.appendVarchar(value as string);
      return;
  }
}

/** A path or text inside a single-quoted SQL literal. */
export function sqlText(text: string): string {
  return text.replace(/'/g, "''");
}
