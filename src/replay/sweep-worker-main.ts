/**
 * `npm run sweep-worker -- --queue redis://HOST:PORT [--concurrency N] [--data-dir DIR]`: takes
 * the combinations `npm run sweep -- ... --queue redis://...` puts on its BullMQ queue and runs
 * them on this machine (sweep/queue-worker.ts), until SIGINT or SIGTERM, which finish the jobs
 * running and stop. Start as many as there are machines. docs/sweep.md is the guide.
 * Exit 0 stopped by a signal; 2 usage error.
 */

import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { helpText, parseCli } from '../core/index.ts';
import type { CliCommand } from '../core/index.ts';
import { startSweepWorker } from './sweep/queue-worker.ts';
import { defaultWorkerCount } from './sweep/sweep-pool.ts';

const ROOT_DIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');

const COMMAND: CliCommand = {
  usage: 'usage: npm run sweep-worker -- --queue redis://HOST:PORT [--concurrency N] [--data-dir DIR]',
  options: [
    { name: '--queue', value: '<url>', help: 'the Redis the sweep puts its jobs on (redis://HOST:PORT)' },
    { name: '--concurrency', value: '<n>', help: 'combinations run at once, one worker thread each (default: the cores)' },
    { name: '--data-dir', value: '<dir>', help: 'find recordings here by file name (default: at the path the sweep gave)' },
    { name: '--lock-ms', value: '<ms>', help: 'lock of a running job: a dead worker\'s job is retried after about this (default 30000)' },
  ],
  notes: ['Exit status: 0 stopped by SIGINT/SIGTERM; 2 usage error.'],
};

function intArg(values: ReadonlyMap<string, string>, name: string, fallback: number, min: number): number {
  const text = values.get(name);
  if (text === undefined) return fallback;
  const value = Number(text);
  if (!/^\d+$/.test(text) || !Number.isSafeInteger(value) || value < min) throw new Error(`${name} needs an integer >= ${min}`);
  return value;
}

async function main(argv: string[]): Promise<number> {
  let options;
  try {
    const { help, values } = parseCli(argv, COMMAND);
    if (help) {
      process.stdout.write(`${helpText(COMMAND)}\n`);
      return 0;
    }
    const url = values.get('--queue');
    if (url === undefined || !/^rediss?:\/\//.test(url)) throw new Error(COMMAND.usage);
    const lockDurationMs = intArg(values, '--lock-ms', 30_000, 200);
    options = {
      url,
      concurrency: intArg(values, '--concurrency', defaultWorkerCount(), 1),
      dataDir: values.get('--data-dir') ?? null,
      rootDir: ROOT_DIR,
      lockDurationMs,
      // Checked at the lock's period: a dead worker's job waits at most about two locks.
      stalledIntervalMs: lockDurationMs,
      maxStalledCount: 2,
    };
  } catch (error) {
    process.stderr.write(`sweep-worker: ${(error as Error).message}\n`);
    return 2;
  }
  const worker = startSweepWorker({
    ...options,
    onJob: (event, job, detail) => process.stdout.write(`sweep-worker: ${event} ${job.id} ${detail}\n`),
  });
  process.stdout.write(`sweep-worker: on ${options.url}, concurrency ${options.concurrency}, pid ${process.pid}\n`);
  await new Promise<void>((resolve) => {
    process.once('SIGINT', () => resolve());
    process.once('SIGTERM', () => resolve());
  });
  await worker.close();
  return 0;
}

process.exitCode = await main(process.argv.slice(2));
