/**
 * A sweep's results table: one flat row per combination (its parameters as columns named as in
 * grid.json, then status, attempts, the order hash, PnL, fills, inventory, markouts and the model),
 * written as results.json (the rows) and results.parquet (DuckDB reads the JSON and COPYs it; the
 * column types are DuckDB's inference). Integers as in the replay report: micro-dollars, 1/100
 * contract, µs. Nothing from the wall clock, so one sweep gives the same rows on any worker count.
 */

import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import type { ParamValue } from './grid.ts';
import type { SweepOutcome } from './sweep-pool.ts';

export type SweepRow = Record<string, ParamValue>;

/** The row of one outcome; metrics are null for a combination that failed every attempt. */
export function rowOf(outcome: SweepOutcome): SweepRow {
  const row: SweepRow = { index: outcome.index, ...outcome.combination, status: outcome.status, attempts: outcome.attempts, errors: outcome.errors.join(' | ') };
  const result = outcome.result;
  const report = result?.report;
  const summary = result?.summary;
  row.orderSha256 = report?.orders.sha256 ?? null;
  row.pnlMicro = report?.pnlMicro ?? null;
  row.fills = report?.fills.count ?? null;
  row.contracts = report?.fills.contracts ?? null;
  row.ordersSent = report?.orders.sent ?? null;
  row.venueRejects = report?.orders.venueRejects ?? null;
  row.denies = report === undefined ? null : Object.values(report.denies).reduce((sum, n) => sum + n, 0);
  row.positionFinal = summary?.positionFinal ?? null;
  row.inventoryMaxAbs = summary?.inventoryMaxAbs ?? null;
  for (const horizon of [1, 10, 60]) {
    const markout = summary?.markouts.find((m) => m.horizonS === horizon);
    row[`markout${horizon}sMicro`] = markout?.totalMicro ?? null;
    row[`markout${horizon}sPerContractMicro`] = markout?.perContractMicro ?? null;
    row[`markout${horizon}sFills`] = markout?.fills ?? null;
  }
  const settings = result?.settings;
  row.orderLatencyUs = settings?.orderLatencyUs ?? null;
  row.answerLatencyUs = settings?.answerLatencyUs ?? null;
  row.feedLatencyUs = settings?.feedLatencyUs ?? null;
  row.queueModel = settings?.queueModel ?? null;
  row.seed = settings?.seed ?? null;
  return row;
}

function sqlString(text: string): string {
  return `'${text.replace(/'/g, "''")}'`;
}

/** results.json and results.parquet in `dir`; returns their paths. */
export async function writeResults(dir: string, rows: readonly SweepRow[]): Promise<{ json: string; parquet: string }> {
  const json = path.join(dir, 'results.json');
  const parquet = path.join(dir, 'results.parquet');
  writeFileSync(json, `${JSON.stringify(rows, null, 1)}\n`);
  const instance = await DuckDBInstance.create(':memory:');
  const connection = await instance.connect();
  try {
    // Every row has every key (rowOf), so the inferred columns are the rows' keys, in order.
    await connection.run(`CREATE TABLE results AS SELECT * FROM read_json_auto(${sqlString(json)}, sample_size = -1)`);
    await connection.run(`COPY results TO ${sqlString(parquet)} (FORMAT parquet)`);
  } finally {
    connection.closeSync();
    instance.closeSync();
  }
  return { json, parquet };
}
