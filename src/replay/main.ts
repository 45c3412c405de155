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
 *   --queue-live on|off         the live run's own fills decide where our order is the live one's counterpart (default on)
 *   --seed N                    matching-engine id seed (default 1)
 *   --frames N                  stop after N frames
 *   --measure                   add wall-clock tick-to-trade (varies run to run)
 *   --html FILE                 also write the one-run HTML report (report-html.ts)
 *   --compare-live              also print live vs replay side by side (compare-live.ts)
 *   Without any --*-latency-us, each request takes the recording's own hops (recorded-latency.ts).
 */

import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { helpText, parseCli } from '../core/index.ts';
import type { CliCommand } from '../core/index.ts';
import { RecordingError, readRecordingFile } from '../record/index.ts';
import { loadConfig } from '../runtime/config.ts';
import { Replay } from './replay.ts';
import { formatReport } from './report.ts';
import { compareLive, formatComparison } from './compare-live.ts';
import { writeFileSync } from 'node:fs';
import { renderRunHtml } from './report-html.ts';
import { MidSeries, buildMidSeries } from './sweep/mid-series.ts';
import { RunObserver, summarizeRun } from './sweep/run-observer.ts';
import type { ReplaySettings } from './sweep/run-combination.ts';
import type { ReplayReport } from './report.ts';
import type { QueueModel } from './replay-venue.ts';
import { createReplayProgress, framesToReplay } from './replay-progress.ts';

const ROOT_DIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');

class UsageError extends Error {}

/** The option table: the parse, --help and the nearest-name hint all come from it (core/cli-options.ts). */
const COMMAND: CliCommand = {
  usage: 'usage: npm run replay -- FILE [--config CONFIG.json] [options]',
  positional: { name: 'FILE', help: 'the recording to replay (npm start with record.enabled writes them)', countMax: 1 },
  options: [
    { name: '--config', value: '<file>', help: 'runtime configuration whose strategies and risk replay (default config/runtime.json)' },
    { name: '--json', help: 'machine output: one JSON object' },
    { name: '--order-latency-us', value: '<n>', help: 'request sent -> at the matching engine, us (default 500)' },
    { name: '--answer-latency-us', value: '<n>', help: 'engine -> answer at the OMS, us (default 500)' },
    { name: '--feed-latency-us', value: '<n>', help: 'engine -> our fill / order frame at the feed, us (default 1000)' },
    { name: '--queue', value: 'risk_averse|optimistic', help: 'queue-position model (default risk_averse)' },
    { name: '--queue-live', value: 'on|off', help: 'where our order joined a level after the same public size as the live order, a trade fills it as the live run\'s fills say (default on; off: the queue model alone)' },
    { name: '--seed', value: '<n>', help: 'matching-engine id seed (default 1)' },
    { name: '--frames', value: '<n>', help: 'stop after N frames' },
    { name: '--measure', help: 'add wall-clock tick-to-trade (varies run to run)' },
    { name: '--html', value: '<file>', help: 'also write the one-run HTML report: PnL and inventory curves, markouts, the model' },
    { name: '--compare-live', help: 'also print the live run (from the recording\'s own orders, answers and fills) and the replay side by side' },
  ],
  notes: ['Exit status: 0 done; 2 usage or configuration error; 3 bad recording.'],
};

function intArg(values: ReadonlyMap<string, string>, name: string, fallback: number): number {
  const text = values.get(name);
  if (text === undefined) return fallback;
  const value = Number(text);
  if (!/^\d+$/.test(text) || !Number.isSafeInteger(value)) throw new UsageError(`${name} needs a non-negative integer`);
  return value;
}

/** The one-run HTML report; the settings stated are the ones the Replay above was given. */
async function writeRunHtml(values: ReadonlyMap<string, string>, source: string, configFile: string, replay: Replay, report: ReplayReport, observer: RunObserver, queueLive: boolean): Promise<void> {
  const summary = summarizeRun(replay.recording, new MidSeries(await buildMidSeries(replay.recording)), observer.fills);
  const settings: ReplaySettings = {
    orderLatencyUs: intArg(values, '--order-latency-us', 500),
    answerLatencyUs: intArg(values, '--answer-latency-us', 500),
    feedLatencyUs: intArg(values, '--feed-latency-us', 1_000),
    queueModel: (values.get('--queue') ?? 'risk_averse') as QueueModel,
    queueFromLiveFills: queueLive,
    seed: intArg(values, '--seed', 1),
    framesMax: values.has('--frames') ? intArg(values, '--frames', 0) : undefined,
  };
  writeFileSync(values.get('--html')!, renderRunHtml({ recordingSource: source, configFile, result: { report, summary, settings } }));
}

async function main(argv: string[]): Promise<number> {
  try {
    const { help, values, flags, positional } = parseCli(argv, COMMAND);
    if (help) {
      process.stdout.write(`${helpText(COMMAND)}\n`);
      return 0;
    }
    if (positional.length !== 1) throw new UsageError(COMMAND.usage);
    const configPath = values.get('--config') ?? path.join(ROOT_DIR, 'config', 'runtime.json');
    const queue = values.get('--queue') ?? 'risk_averse';
    if (queue !== 'risk_averse' && queue !== 'optimistic') throw new UsageError('--queue is risk_averse or optimistic');
    const queueLive = values.get('--queue-live') ?? 'on';
    if (queueLive !== 'on' && queueLive !== 'off') throw new UsageError('--queue-live is on or off');
    const config = loadConfig(configPath);
    const recording = readRecordingFile(positional[0]);
    const framesMax = values.has('--frames') ? intArg(values, '--frames', 0) : undefined;
    // A bar on a terminal only (stderr); it reads the replay's frame count, never steers it.
    const progress = createReplayProgress(framesToReplay(recording, framesMax), flags.has('--json'));
    const replay = new Replay({
      recording,
      config,
      rootDir: ROOT_DIR,
      // Absent: the recording's own order -> answer times (the Replay's default), not a fixed guess.
      orderLatencyUs: values.has('--order-latency-us') ? intArg(values, '--order-latency-us', 500) : undefined,
      answerLatencyUs: values.has('--answer-latency-us') ? intArg(values, '--answer-latency-us', 500) : undefined,
      feedLatencyUs: values.has('--feed-latency-us') ? intArg(values, '--feed-latency-us', 1_000) : undefined,
      queueModel: queue as QueueModel,
      queueFromLiveFills: queueLive === 'on',
      seed: intArg(values, '--seed', 1),
      framesMax,
      measure: flags.has('--measure'),
      onProgress: progress === null ? undefined : (framesDone) => progress.update(framesDone),
    });
    // Read-only: it listens to the venue's fills, so the run and its report are unchanged.
    const observer = values.has('--html') ? new RunObserver(replay) : null;
    await replay.start();
    const report = await replay.run();
    progress?.stop();
    await replay.close();
    if (observer !== null) await writeRunHtml(values, positional[0], configPath, replay, report, observer, queueLive === 'on');
    const comparison = flags.has('--compare-live') ? compareLive(recording, report, replay.venue.log) : null;
    if (flags.has('--json')) process.stdout.write(`${JSON.stringify(comparison === null ? report : { ...report, compareLive: comparison })}\n`);
    else process.stdout.write(comparison === null ? formatReport(report) : `${formatReport(report)}${formatComparison(comparison)}`);
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
