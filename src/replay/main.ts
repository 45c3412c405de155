/**
 * `npm run replay -- FILE --config X [options]`: replays a recording through the trading graph
 * (replay.ts) and prints the report: readable by default, `--json` for one JSON object. Exit 0 on
 * success, 2 on a usage or configuration error, 3 on a bad recording (its coded error printed).
 *
 *   --json                      machine output
 *   --order-latency-us N        request sent -> at the matching engine (default 500)
 *   --answer-latency-us N       engine -> answer at the OMS (default 500)
 *   --feed-latency-us N         engine -> our fill / order frame at the feed (default 1000)
 *   --queue risk_averse|optimistic   queue-position model (default risk_averse)
 *   --seed N                    matching-engine id seed (default 1)
 *   --frames N                  stop after N frames
 *   --measure                   add wall-clock tick-to-trade (varies run to run)
 */

import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { RecordingError, readRecordingFile } from '../record/index.ts';
import { loadConfig } from '../runtime/config.ts';
import { Replay } from './replay.ts';
import { formatReport } from './report.ts';
import type { QueueModel } from './replay-venue.ts';

const ROOT_DIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');

class UsageError extends Error {}

function intArg(args: string[], name: string, fallback: number): number {
  const i = args.indexOf(name);
  if (i === -1) return fallback;
  const value = Number(args[i + 1]);
  if (!Number.isSafeInteger(value) || value < 0) throw new UsageError(`${name} needs a non-negative integer`);
  return value;
}

function stringArg(args: string[], name: string): string | null {
  const i = args.indexOf(name);
  if (i === -1) return null;
  const value = args[i + 1];
  if (value === undefined || value.startsWith('--')) throw new UsageError(`${name} needs a value`);
  return value;
}

async function main(argv: string[]): Promise<number> {
  const withValue = new Set(['--config', '--order-latency-us', '--answer-latency-us', '--feed-latency-us', '--queue', '--seed', '--frames']);
  const positional: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    if (withValue.has(argv[i])) i++;
    else if (!argv[i].startsWith('--')) positional.push(argv[i]);
  }
  try {
    if (positional.length !== 1) throw new UsageError('usage: npm run replay -- FILE --config CONFIG.json [--json] [--order-latency-us N] [--answer-latency-us N] [--feed-latency-us N] [--queue risk_averse|optimistic] [--seed N] [--frames N] [--measure]');
    const configPath = stringArg(argv, '--config') ?? path.join(ROOT_DIR, 'config', 'runtime.json');
    const queue = stringArg(argv, '--queue') ?? 'risk_averse';
    if (queue !== 'risk_averse' && queue !== 'optimistic') throw new UsageError('--queue is risk_averse or optimistic');
    const config = loadConfig(configPath);
    const recording = readRecordingFile(positional[0]);
    const replay = new Replay({
      recording,
      config,
      rootDir: ROOT_DIR,
      orderLatencyUs: intArg(argv, '--order-latency-us', 500),
      answerLatencyUs: intArg(argv, '--answer-latency-us', 500),
      feedLatencyUs: intArg(argv, '--feed-latency-us', 1_000),
      queueModel: queue as QueueModel,
      seed: intArg(argv, '--seed', 1),
      framesMax: argv.includes('--frames') ? intArg(argv, '--frames', 0) : undefined,
      measure: argv.includes('--measure'),
    });
    await replay.start();
    const report = await replay.run();
    await replay.close();
    process.stdout.write(argv.includes('--json') ? `${JSON.stringify(report)}\n` : formatReport(report));
    return 0;
  } catch (error) {
    if (error instanceof RecordingError) {
      process.stderr.write(`replay: ${error.message}\n`);
      return 3;
    }
    process.stderr.write(`replay: ${(error as Error).message}\n`);
    return 2;
  }
}

process.exitCode = await main(process.argv.slice(2));
