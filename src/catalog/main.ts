/**
 * `npm run catalog -- add FILE... [--snapshot-ms 1000] [--depth 5]`, `catalog -- query "SQL"`,
 * `catalog -- backfill --series S --days N [--venue embedded|URL]`, each with `--dir DIR`
 * (default var/catalog): recordings and OMS journals to Hive-partitioned Parquet written with
 * DuckDB, SQL over it, and the exchange's past trades and candles (src/catalog,
 * docs/capture-and-catalog.md). Exit codes: 0 done, 2 usage, 3 a bad recording, 1 other failure.
 */

import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadPrivateKey } from '../core/index.ts';
import { SimChild } from '../runtime/sim-child.ts';
import { RecordingError } from '../record/format.ts';
import { addToCatalog } from './catalog-add.ts';
import { backfillSeries } from './backfill.ts';
import { formatRows, queryCatalog } from './catalog-query.ts';
import { CatalogWriter } from './catalog-writer.ts';
import { openVenueReads } from '../capture/venue-reads.ts';

const ROOT_DIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const USAGE = `usage: npm run catalog -- add FILE... [--snapshot-ms 1000] [--depth 5] [--dir var/catalog]
       npm run catalog -- query "SQL" [--dir var/catalog] [--json]
       npm run catalog -- backfill --series S --days N [--venue embedded|URL --key-id ID --key-file PEM] [--dir var/catalog]`;

class UsageError extends Error {}

interface Parsed {
  positional: string[];
  flags: Map<string, string>;
}

const BOOLEAN_FLAGS = new Set(['--json']);

function parse(argv: readonly string[]): Parsed {
  const positional: string[] = [];
  const flags = new Map<string, string>();
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (!arg.startsWith('--')) positional.push(arg);
    else if (BOOLEAN_FLAGS.has(arg)) flags.set(arg, 'true');
    else {
      const value = argv[++i];
      if (value === undefined) throw new UsageError(`${arg} needs a value`);
      flags.set(arg, value);
    }
  }
  return { positional, flags };
}

function wholeNumber(flags: Map<string, string>, name: string, fallback: number): number {
  const text = flags.get(name);
  if (text === undefined) return fallback;
  const value = Number(text);
  if (!Number.isSafeInteger(value) || value < 0) throw new UsageError(`${name} needs a whole number >= 0`);
  return value;
}

async function add(files: readonly string[], flags: Map<string, string>, dir: string): Promise<void> {
  if (files.length === 0) throw new UsageError('add needs at least one recording or journal');
  const options = { snapshotMs: wholeNumber(flags, '--snapshot-ms', 1000), depth: wholeNumber(flags, '--depth', 5) };
  for (const file of files) {
    const result = await addToCatalog(dir, file, options);
    const tables = Object.entries(result.rows).filter(([, n]) => n > 0).map(([table, n]) => `${table} ${n}`).join(', ');
    const rate = result.elapsedMs > 0 ? Math.round((result.rowsTotal * 1000) / result.elapsedMs) : 0;
    process.stdout.write(`${file} (${result.kind}): ${result.rowsTotal} rows in ${Math.round(result.elapsedMs)} ms (${rate} rows/s): ${tables || 'nothing'}\n`);
  }
}

async function backfill(flags: Map<string, string>, dir: string): Promise<void> {
  const series = flags.get('--series');
  if (series === undefined) throw new UsageError('backfill needs --series S');
  const days = wholeNumber(flags, '--days', 1);
  const venueFlag = flags.get('--venue') ?? 'embedded';
  let sim: SimChild | null = null;
  let restUrl = venueFlag;
  let keyId = flags.get('--key-id') ?? process.env.KALSHI_KEY_ID ?? '';
  let keyFile = flags.get('--key-file') ?? process.env.KALSHI_PRIVATE_KEY_PATH ?? '';
  if (venueFlag === 'embedded') {
    sim = await SimChild.start({ rootDir: ROOT_DIR, activityUpdatesPerSec: 0, logPath: path.join(ROOT_DIR, 'var', 'log', `catalog-sim-${Date.now()}.log`) });
    restUrl = `${sim.ready.http}/trade-api/v2`;
    keyId = sim.ready.keyId;
    keyFile = sim.ready.privateKeyPath;
  } else if (keyId === '' || keyFile === '') throw new UsageError('a remote venue needs --key-id and --key-file');
  const reads = await openVenueReads(restUrl, keyId, loadPrivateKey(keyFile), (message) => process.stderr.write(`warning: ${message}\n`));
  try {
    const writer = await CatalogWriter.open(dir);
    let counts;
    try {
      counts = await backfillSeries(reads.reads, reads.apiPrefix, series, days, Date.now(), writer);
    } catch (error) {
      writer.abort();
      throw error;
    }
    await writer.finish(`backfill-${series}-${new Date().toISOString().slice(0, 10)}`);
    process.stdout.write(`backfill ${series} (${days} days): ${counts.markets} markets, ${counts.trades} trades, ${counts.candles} candles\n`);
  } finally {
    await reads.close();
    await sim?.stop();
  }
}

async function main(argv: readonly string[]): Promise<number> {
  if (argv.includes('--help') || argv.includes('-h')) {
    process.stdout.write(`${USAGE}\n`);
    return 0;
  }
  try {
    const { positional, flags } = parse(argv);
    const dir = flags.get('--dir') ?? path.join('var', 'catalog');
    const [command, ...rest] = positional;
    switch (command) {
      case 'add':
        await add(rest, flags, dir);
        return 0;
      case 'query': {
        if (rest.length !== 1) throw new UsageError('query needs one SQL argument (quote it)');
        const result = await queryCatalog(dir, rest[0]);
        process.stdout.write(flags.has('--json') ? `${JSON.stringify(result.rows)}\n` : `${formatRows(result)}\n`);
        return 0;
      }
      case 'backfill':
        await backfill(flags, dir);
        return 0;
      default:
        throw new UsageError(command === undefined ? '' : `unknown command ${command}`);
    }
  } catch (error) {
    if (error instanceof UsageError) {
      process.stderr.write(`${error.message === '' ? '' : `${error.message}\n`}${USAGE}\n`);
      return 2;
    }
    if (error instanceof RecordingError) {
      process.stderr.write(`${error.message}\n`);
      return 3;
    }
    throw error;
  }
}

main(process.argv.slice(2)).then((code) => process.exit(code), (error: unknown) => {
  process.stderr.write(`catalog failed: ${(error as Error).stack ?? String(error)}\n`);
  process.exit(1);
});
