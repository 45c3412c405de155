/**
 * `npm run capture -- --markets A,B | --series S1,S2 | --all-open [--venue embedded|URL]
 * [--out DIR] [--rotate-minutes 60] [--duration S]`: records the exchange's public market data
 * without trading (capture.ts). `--venue embedded` (default) starts the simulator as a
 * child process as the main job does; a URL is a remote venue's REST base with its API prefix
 * (https://host/trade-api/v2; `--ws-url` overrides the derived WebSocket URL), signed with
 * `--key-id` and `--key-file` (or KALSHI_KEY_ID / KALSHI_PRIVATE_KEY_PATH). Prints each closed
 * file's quality report and, on a TTY, a progress line. Exit codes: 0 done, 2 usage, 1 failure.
 */

import path from 'node:path';
import { fileURLToPath } from 'node:url';
import cliProgress from 'cli-progress';
import { loadPrivateKey } from '../core/index.ts';
import { SimChild } from '../runtime/sim-child.ts';
import { Capture } from './capture.ts';
import { qualityLine } from './capture-quality.ts';
import type { MarketSelection } from './capture-markets.ts';
import { openVenueReads } from './venue-reads.ts';

const ROOT_DIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');

const USAGE = `usage: npm run capture -- (--markets A,B | --series S1,S2 | --all-open) [--venue embedded|URL] [--ws-url URL]
       [--key-id ID --key-file PEM] [--out DIR] [--rotate-minutes 60] [--rotate-seconds N] [--duration S] [--activity-rate N] [--synthetic-markets N]`;

interface CaptureArgs {
  selection: MarketSelection;
  venue: string;
  wsUrl: string | null;
  keyId: string | null;
  keyFile: string | null;
  out: string;
  rotateMs: number;
  durationS: number;
  activityRate: number;
  /** Embedded venue: synthetic markets listed beside the catalog's (sim --synthetic-markets). */
  syntheticMarkets: number;
}

class UsageError extends Error {}

function positive(name: string, text: string | undefined): number {
  const value = Number(text);
  if (text === undefined || !Number.isFinite(value) || value <= 0) throw new UsageError(`${name} needs a positive number`);
  return value;
}

function parseArgs(argv: readonly string[]): CaptureArgs {
  const args: CaptureArgs = {
    selection: { kind: 'all-open' }, venue: 'embedded', wsUrl: null, keyId: process.env.KALSHI_KEY_ID ?? null,
    keyFile: process.env.KALSHI_PRIVATE_KEY_PATH ?? null, out: path.join('var', 'captures'), rotateMs: 3_600_000, durationS: 0, activityRate: 2_000, syntheticMarkets: 0,
  };
  let selected = 0;
  for (let i = 0; i < argv.length; i++) {
    const flag = argv[i];
    const value = argv[i + 1];
    const take = (): string => {
      if (value === undefined || value.startsWith('--')) throw new UsageError(`${flag} needs a value`);
      i++;
      return value;
    };
    switch (flag) {
      case '--markets': args.selection = { kind: 'markets', tickers: take().split(',').filter(Boolean) }; selected++; break;
      case '--series': args.selection = { kind: 'series', series: take().split(',').filter(Boolean) }; selected++; break;
      case '--all-open': args.selection = { kind: 'all-open' }; selected++; break;
      case '--venue': args.venue = take(); break;
      case '--ws-url': args.wsUrl = take(); break;
      case '--key-id': args.keyId = take(); break;
      case '--key-file': args.keyFile = take(); break;
      case '--out': args.out = take(); break;
      case '--rotate-minutes': args.rotateMs = positive(flag, take()) * 60_000; break;
      case '--rotate-seconds': args.rotateMs = positive(flag, take()) * 1_000; break;
      case '--duration': args.durationS = positive(flag, take()); break;
      case '--activity-rate': args.activityRate = positive(flag, take()); break;
      case '--synthetic-markets': args.syntheticMarkets = positive(flag, take()); break;
      case '--help': case '-h': throw new UsageError('');
      default: throw new UsageError(`unknown option ${flag}`);
    }
  }
  if (selected !== 1) throw new UsageError('give exactly one of --markets, --series, --all-open');
  return args;
}

interface Venue {
  restUrl: string;
  wsUrl: string;
  keyId: string;
  keyFile: string;
  sim: SimChild | null;
}

async function openVenue(args: CaptureArgs): Promise<Venue> {
  if (args.venue === 'embedded') {
    process.stderr.write('starting the embedded simulator...\n');
    const sim = await SimChild.start({ rootDir: ROOT_DIR, activityUpdatesPerSec: args.activityRate, logPath: path.join(ROOT_DIR, 'var', 'log', `capture-sim-${Date.now()}.log`),
      extraArgs: args.syntheticMarkets > 0 ? ['--synthetic-markets', String(args.syntheticMarkets)] : [] });
    return { restUrl: `${sim.ready.http}/trade-api/v2`, wsUrl: sim.ready.ws, keyId: sim.ready.keyId, keyFile: sim.ready.privateKeyPath, sim };
  }
  if (args.keyId === null || args.keyFile === null) throw new UsageError('a remote venue needs --key-id and --key-file (or KALSHI_KEY_ID / KALSHI_PRIVATE_KEY_PATH)');
  const url = new URL(args.venue);
  const wsUrl = args.wsUrl ?? `${url.protocol === 'https:' ? 'wss:' : 'ws:'}//${url.host}/trade-api/ws/v2`;
  return { restUrl: args.venue, wsUrl, keyId: args.keyId, keyFile: args.keyFile, sim: null };
}

/** Resolves on SIGINT / SIGTERM or after `durationS` (0: until a signal). */
function untilStopped(durationS: number): Promise<string> {
  return new Promise((resolve) => {
    process.once('SIGINT', () => resolve('SIGINT'));
    process.once('SIGTERM', () => resolve('SIGTERM'));
    if (durationS > 0) setTimeout(() => resolve(`--duration ${durationS}s`), durationS * 1000);
  });
}

async function main(argv: readonly string[]): Promise<number> {
  let args: CaptureArgs;
  try {
    args = parseArgs(argv);
  } catch (error) {
    if (error instanceof UsageError) {
      process.stderr.write(`${error.message === '' ? '' : `${error.message}\n`}${USAGE}\n`);
      return 2;
    }
    throw error;
  }
  const venue = await openVenue(args);
  const privateKey = loadPrivateKey(venue.keyFile);
  const reads = await openVenueReads(venue.restUrl, venue.keyId, privateKey, (message) => process.stderr.write(`warning: ${message}\n`));
  const bar = process.stderr.isTTY ? new cliProgress.SingleBar({ format: '{file} | {frames} frames | {markets} markets | {gaps} gaps | {resyncs} resyncs | {state}', stream: process.stderr }, cliProgress.Presets.shades_classic) : null;
  const capture = new Capture({
    wsUrl: venue.wsUrl, auth: { keyId: venue.keyId, privateKey }, reads: reads.reads, apiPrefix: reads.apiPrefix,
    selection: args.selection, dir: args.out, rotateMs: args.rotateMs,
    onFileClosed: (report, _file, reportPath) => {
      bar?.stop();
      process.stdout.write(`${qualityLine(report)}\n  report: ${reportPath}\n`);
    },
  });
  try {
    await capture.start();
    process.stderr.write(`capturing ${capture.marketCount} markets into ${args.out}\n`);
    const timer = bar === null ? null : setInterval(() => {
      const q = capture.quality;
      const payload = { file: path.basename(capture.recordingPath ?? ''), frames: q?.frames ?? 0, markets: capture.marketCount, gaps: q?.sequenceGaps ?? 0, resyncs: q?.resyncs ?? 0, state: capture.feed.state };
      if (!bar.isActive) bar.start(1, 0, payload);
      bar.update(0, payload);
    }, 500);
    const why = await untilStopped(args.durationS);
    if (timer !== null) clearInterval(timer);
    bar?.stop();
    process.stderr.write(`stopping (${why})\n`);
  } finally {
    await capture.stop();
    await reads.close();
    await venue.sim?.stop();
  }
  return 0;
}

main(process.argv.slice(2)).then((code) => process.exit(code), (error: unknown) => {
  process.stderr.write(`capture failed: ${(error as Error).stack ?? String(error)}\n`);
  process.exit(1);
});
