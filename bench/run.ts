/**
 * `npm run bench [-- [--quick] [--strict] [suite ...]]`: finds every bench/<folder>/suite.ts (default
 * export BenchSuite), runs them one after another (or only those named, by folder or suite name),
 * prints one table and writes bench/results/<suite>-<timestamp>.json per suite with the machine,
 * Node version, command, git commit and rows. --quick is the CI smoke mode; --strict exits 1 when a
 * row misses its stated target. This file never measures anything itself.
 */

import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { CliUsageError, helpText, parseCli } from '../src/core/index.ts';
import { transparentHugePageMode } from '../src/runtime/huge-pages.ts';
import type { CliCommand, CliParse } from '../src/core/index.ts';
import { formatTable, type BenchRow, type BenchSuite } from './harness.ts';

const BENCH_DIR = path.dirname(fileURLToPath(import.meta.url));
const REPO_DIR = path.dirname(BENCH_DIR);
const RESULTS_DIR = path.join(BENCH_DIR, 'results');

export interface BenchResultFile {
  suite: string;
  startedAt: string;
  durationMs: number;
  quick: boolean;
  command: string;
  node: string;
  v8: string;
  machine: { platform: string; arch: string; release: string; cpuModel: string; cpuCount: number; totalMemBytes: number; loadAvg1m: number; transparentHugePages?: string | null };
  git: { commit: string; dirty: boolean | null };
  rows: BenchRow[];
  error?: string;
}

function git(args: string[]): string | null {
  try {
    return execFileSync('git', args, { cwd: REPO_DIR, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
  } catch {
    return null;
  }
}

function commandLine(args: string[]): string {
  const rest = args.length > 0 ? ` -- ${args.join(' ')}` : '';
  if (process.env.npm_lifecycle_event === 'bench') return `npm run bench${rest}`;
  return `tsx bench/run.ts${args.length > 0 ? ` ${args.join(' ')}` : ''}`;
}

function discover(): Array<{ folder: string; file: string }> {
  return readdirSync(BENCH_DIR, { withFileTypes: true })
    .filter((entry) => entry.isDirectory() && entry.name !== 'results' && entry.name !== 'node_modules')
    .map((entry) => ({ folder: entry.name, file: path.join(BENCH_DIR, entry.name, 'suite.ts') }))
    .filter((candidate) => existsSync(candidate.file))
    .sort((a, b) => a.folder.localeCompare(b.folder));
}

/** The option table: the parse, --help and the nearest-name hint all come from it (src/core/cli-options.ts). */
const COMMAND: CliCommand = {
  usage: 'usage: npm run bench -- [--quick] [--strict] [suite ...]',
  positional: { name: 'suite', help: 'run only these suites, by bench/ folder or suite name (default: all)', countMax: 100 },
  options: [
    { name: '--quick', help: 'the CI smoke mode: fewer iterations' },
    { name: '--strict', help: 'exit 1 when a row misses its stated target' },
    { name: '--full', help: 'the scale suite\'s whole matrix (12 cases) instead of its default 4 (bench/scale/suite.ts reads it)' },
  ],
  notes: ['Writes bench/results/<suite>-<timestamp>.json per suite. Exit status: 0 done; 1 a suite failed (or missed, with --strict); 2 usage.'],
};

async function main(): Promise<number> {
  const args = process.argv.slice(2);
  let parsed: CliParse;
  try {
    parsed = parseCli(args, COMMAND);
  } catch (error) {
    if (!(error instanceof CliUsageError)) throw error;
    console.error(`bench: ${error.message}\n${helpText(COMMAND)}`);
    return 2;
  }
  if (parsed.help) {
    console.log(helpText(COMMAND));
    return 0;
  }
  const quick = parsed.flags.has('--quick');
  const strict = parsed.flags.has('--strict');
  const wanted = [...parsed.positional];
  const found = discover();
  // Import only the folders asked for (all when none are named; every folder when a name matches no
  // folder, to match it against suite.name), so one suite mid-edit never stops another from running.
  const byFolder = wanted.length > 0 && wanted.every((name) => found.some((candidate) => candidate.folder === name));
  const toImport = byFolder ? found.filter((candidate) => wanted.includes(candidate.folder)) : found;
  const loaded: Array<{ folder: string; suite: BenchSuite }> = [];
  let failed = false;
  for (const candidate of toImport) {
    let suite: BenchSuite | undefined;
    try {
      suite = ((await import(pathToFileURL(candidate.file).href)) as { default?: BenchSuite }).default;
    } catch (error) {
      console.error(`bench: cannot load ${path.relative(REPO_DIR, candidate.file)}: ${(error as Error).message}`);
      if (wanted.includes(candidate.folder)) failed = true;
      continue;
    }
    if (suite === undefined || typeof suite.run !== 'function') {
      console.error(`bench: ${path.relative(REPO_DIR, candidate.file)} has no default BenchSuite export; skipped`);
      continue;
    }
    if (wanted.length === 0 || wanted.includes(candidate.folder) || wanted.includes(suite.name)) loaded.push({ folder: candidate.folder, suite });
  }
  const unknown = wanted.filter((name) => !found.some((candidate) => candidate.folder === name) && !loaded.some((entry) => entry.suite.name === name));
  if (unknown.length > 0) {
    console.error(`bench: unknown suite(s) ${unknown.join(', ')}; available: ${found.map((c) => c.folder).join(', ') || 'none'}`);
    return 2;
  }
  mkdirSync(RESULTS_DIR, { recursive: true });
  const commit = git(['rev-parse', 'HEAD']) ?? 'unknown';
  // The code measured: earlier result files and plots not yet committed do not make the tree dirty.
  const status = git(['status', '--porcelain', '--', 'src', 'bench', ':(exclude)bench/results', ':(exclude)bench/plots', ':(exclude)bench/RESULTS.md']);
  const cpus = os.cpus();
  const allRows: BenchRow[] = [];
  for (const { folder, suite } of loaded) {
    const startedAt = new Date();
    console.error(`bench: running ${suite.name}${quick ? ' (quick)' : ''} ...`);
    let rows: BenchRow[] = [];
    let error: string | undefined;
    try {
      rows = await suite.run({ quick });
    } catch (caught) {
      error = caught instanceof Error ? (caught.stack ?? caught.message) : String(caught);
      console.error(`bench: suite ${suite.name} failed: ${error}`);
      failed = true;
    }
    allRows.push(...rows);
    const result: BenchResultFile = {
      suite: suite.name,
      startedAt: startedAt.toISOString(),
      durationMs: Date.now() - startedAt.getTime(),
      quick,
      command: commandLine(args),
      node: process.version,
      v8: process.versions.v8,
      machine: {
        platform: process.platform,
        arch: process.arch,
        release: os.release(),
        cpuModel: cpus[0]?.model ?? 'unknown',
        cpuCount: cpus.length,
        totalMemBytes: os.totalmem(),
        loadAvg1m: os.loadavg()[0],
        transparentHugePages: transparentHugePageMode(),
      },
      git: { commit, dirty: status === null ? null : status.length > 0 },
      rows,
      ...(error === undefined ? {} : { error }),
    };
    const stamp = startedAt.toISOString().replace(/[:.]/g, '-');
    const file = path.join(RESULTS_DIR, `${folder}-${stamp}.json`);
    writeFileSync(file, `${JSON.stringify(result, null, 2)}\n`);
    console.error(`bench: wrote ${path.relative(REPO_DIR, file)}`);
  }
  if (allRows.length > 0) console.log(formatTable(allRows));
  if (strict && allRows.some((row) => row.pass === false)) {
    console.error('bench: --strict: a row missed its target');
    return 1;
  }
  return failed ? 1 : 0;
}


process.exitCode = await main();

