/**
 * `npm run soak -- --minutes N`: a soak and fault run (not part of CI). The simulator runs in this
 * process with market activity; the main job runs as a user runs it (a child process, remote
 * venue mode, the demo market maker in an order group, the order watchdog armed) against it. Every
 * `--cycle-sec` the simulator's fault rules switch to the next profile (none, flaky REST, ambiguous
 * orders, gappy feed, unstable WebSocket, hanging REST, chaos); the last cycle runs clean so the
 * stop is judged on its own. At the end it reports orders, fills, denies, the OMS's anomaly
 * counters, open orders after the stop, the simulator's view against the OMS's (resting orders and
 * positions), RSS of both processes at start and end, and event-loop delay p99 of both. The report
 * is printed (Markdown) and written to bench/results/soak-<time>.json. Exit 1 when a check fails.
 *
 *   --minutes N     run length (default 30)
 *   --cycle-sec N   seconds per fault profile (default 60)
 *   --rate N        simulator book updates per second (default 200)
 *   --seed N        simulator seed (default 1)
 */

import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { createPrivateKey } from 'node:crypto';
import { request } from 'undici';
import { pino } from 'pino';
import { CliUsageError, helpText, parseCli, signedHeaders } from '../../src/core/index.ts';
import type { CliCommand } from '../../src/core/index.ts';
import { FAULT_PROFILES, startSim } from '../../src/sim/index.ts';
import type { SimHandle } from '../../src/sim/index.ts';

const ROOT_DIR = resolve(fileURLToPath(new URL('../..', import.meta.url)));
const MARKET = 'KXDEMO-26DEC31-T50';
const SUBACCOUNT = 1;
const CYCLE = ['none', 'flaky-rest', 'ambiguous-orders', 'gappy-feed', 'unstable-ws', 'hanging-rest', 'chaos'];
/** The clean tail before the stop, s: the stop's cancel-all and reconciliation run without faults. */
const CLEAN_TAIL_SEC = 30;

interface Args {
  minutes: number;
  cycleSec: number;
  rate: number;
  seed: number;
}

/** The option table: the parse, --help and the nearest-name hint all come from it (src/core/cli-options.ts). */
const COMMAND: CliCommand = {
  usage: 'usage: npm run soak -- [--minutes N] [--cycle-sec N] [--rate N] [--seed N]',
  options: [
    { name: '--minutes', value: '<n>', help: 'run length (default 30)' },
    { name: '--cycle-sec', value: '<n>', help: 'seconds per fault profile (default 60)' },
    { name: '--rate', value: '<n>', help: 'simulator book updates per second (default 200)' },
    { name: '--seed', value: '<n>', help: 'simulator seed (default 1)' },
  ],
  notes: ['Writes bench/results/soak-<time>.json. Exit status: 0 every check passed; 1 a check failed; 2 usage or a crash.'],
};

/** null: --help was asked for. */
function parseArgs(argv: readonly string[]): Args | null {
  const parsed = parseCli(argv, COMMAND);
  if (parsed.help) return null;
  const positive = (name: string, fallback: number): number => {
    const text = parsed.values.get(name);
    if (text === undefined) return fallback;
    if (!/^\d{1,7}$/.test(text) || Number(text) === 0) throw new CliUsageError(`${name} needs a positive whole number, got ${JSON.stringify(text)}`);
    return Number(text);
  };
  return { minutes: positive('--minutes', 30), cycleSec: positive('--cycle-sec', 60), rate: positive('--rate', 200), seed: positive('--seed', 1) };
}

function rssMbOf(pid: number): number {
  try {
    const kb = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1];
    return kb === undefined ? -1 : Math.round(Number(kb) / 1024);
  } catch {
    return -1;
  }
}

async function venueGet(sim: SimHandle, path: string): Promise<Record<string, unknown>> {
  const fullPath = `/trade-api/v2${path}`;
  const key = createPrivateKey(sim.demoKey.privateKeyPem);
  const response = await request(`${sim.httpUrl}${fullPath}`, { method: 'GET', headers: signedHeaders(sim.demoKey.keyId, key, Date.now(), 'GET', fullPath) });
  return (await response.body.json()) as Record<string, unknown>;
}

async function main(): Promise<number> {
  let args: Args | null;
  try {
    args = parseArgs(process.argv.slice(2));
  } catch (error) {
    if (!(error instanceof CliUsageError)) throw error;
    process.stderr.write(`soak: ${error.message}\n`);
    return 2;
  }
  if (args === null) {
    process.stdout.write(`${helpText(COMMAND)}\n`);
    return 0;
  }
  const work = mkdtempSync(join(tmpdir(), 'soak-'));
  const simLoop = monitorEventLoopDelay({ resolution: 1 });
  simLoop.enable();
  const sim = await startSim({ port: 0, seed: args.seed, keysDir: join(work, 'keys'), logger: pino({ level: 'silent' }), activity: { updatesPerSec: args.rate } });
  const simRssStartMb = Math.round(process.memoryUsage().rss / 1_048_576);
  const configPath = join(work, 'runtime.json');
  writeFileSync(configPath, JSON.stringify({
    venue: { mode: 'remote', restUrl: `${sim.httpUrl}/trade-api/v2`, wsUrl: sim.wsUrl },
    risk: { rateLimitTier: 'prime' },
    telemetry: { logLevel: 'warn' },
    strategies: [{ id: 'mm-demo', plugin: 'strategies/market-maker.ts', subaccount: SUBACCOUNT, orderGroup: { contractsLimit: '100000.00' }, markets: [MARKET], params: {} }],
  }));
  const durationSec = args.minutes * 60;
  process.stderr.write(`soak: ${args.minutes} min, fault profile every ${args.cycleSec} s (${CYCLE.join(' -> ')}), clean for the last ${CLEAN_TAIL_SEC} s\n`);
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/runtime/main.ts', '--config', configPath, '--duration', String(durationSec)], {
    cwd: ROOT_DIR,
    env: { ...process.env, KALSHI_API_KEY_ID: sim.demoKey.keyId, KALSHI_PRIVATE_KEY_PATH: sim.demoKey.privateKeyPath },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => {
    stderr = (stderr + chunk).slice(-20_000);
  });
  let summary: Record<string, unknown> | null = null;
  let runtimeRssStartMb = -1;
  let runtimeRssEndMb = -1;
  let statuses = 0;
  let lastDenies: Record<string, number> = {};
  createInterface({ input: child.stdout! }).on('line', (line) => {
    if (line.startsWith('{"event":"summary"')) summary = JSON.parse(line) as Record<string, unknown>;
    if (!line.startsWith('{"event":"status"')) return;
    statuses++;
    // Deny counts live with the strategy instances, which the stop removes: keep the last seen.
    lastDenies = (JSON.parse(line) as { denies: Record<string, number> }).denies;
    const rss = rssMbOf(child.pid ?? -1);
    if (statuses === 5) runtimeRssStartMb = rss; // after start-up and the first quotes
    if (rss > 0) runtimeRssEndMb = rss;
    if (statuses % 60 === 0) process.stderr.write(`soak: ${statuses} s, ${line}\n`);
  });

  const startedMs = Date.now();
  let cycle = 0;
  let faultsFired = 0;
  const clearFaults = (): void => {
    faultsFired += sim.faults.list().reduce((sum, rule) => sum + rule.fired, 0);
    sim.faults.clear();
  };
  const profileTimer = setInterval(() => {
    const elapsedSec = (Date.now() - startedMs) / 1000;
    clearFaults();
    if (elapsedSec >= durationSec - CLEAN_TAIL_SEC) return;
    cycle++;
    const name = CYCLE[cycle % CYCLE.length];
    for (const rule of FAULT_PROFILES[name]) sim.faults.add(rule);
    process.stderr.write(`soak: ${Math.round(elapsedSec)} s: faults ${name}\n`);
  }, args.cycleSec * 1000);
  const exitCode = await new Promise<number | null>((done) => {
    const bound = setTimeout(() => child.kill('SIGKILL'), (durationSec + 120) * 1000);
    child.once('exit', (code) => {
      clearTimeout(bound);
      done(code);
    });
  });
  clearInterval(profileTimer);
  clearFaults();

  const resting = (await venueGet(sim, `/portfolio/orders?status=resting&subaccount=${SUBACCOUNT}`)).orders as unknown[];
  const venuePositions = ((await venueGet(sim, `/portfolio/positions?subaccount=${SUBACCOUNT}`)).market_positions as { ticker: string; position_fp: string }[])
    .filter((p) => Number(p.position_fp) !== 0)
    .map((p) => ({ ticker: p.ticker, position: p.position_fp }));
  const s = (summary ?? {}) as { ordersSent?: number; fills?: number; denies?: Record<string, number>; oms?: Record<string, number>; openOrdersAfterStop?: number; positions?: { ticker: string; subaccount: number; position: string }[]; eventLoopDelay?: { p99Ms: number }; rssMb?: number };
  const omsPositions = (s.positions ?? []).filter((p) => p.subaccount === SUBACCOUNT && Number(p.position) !== 0).map((p) => ({ ticker: p.ticker, position: p.position }));
  const oms = s.oms ?? {};
  const report = {
    minutes: args.minutes,
    exitCode,
    ordersSent: s.ordersSent ?? -1,
    fills: s.fills ?? -1,
    denies: lastDenies,
    faultsFired,
    oms: { missingTransitions: oms.missingTransitions, duplicateFills: oms.duplicateFills, orphanFills: oms.orphanFills, positionMismatches: oms.positionMismatches, reconcileRounds: oms.reconcileRounds, reconcileErrors: oms.reconcileErrors, lateMessages: oms.lateMessages },
    openOrdersAfterStop: s.openOrdersAfterStop ?? -1,
    venueRestingAfterStop: resting.length,
    positions: { oms: omsPositions, venue: venuePositions, equal: JSON.stringify(omsPositions) === JSON.stringify(venuePositions) },
    rssMb: { runtimeStart: runtimeRssStartMb, runtimeEnd: runtimeRssEndMb, simStart: simRssStartMb, simEnd: Math.round(process.memoryUsage().rss / 1_048_576) },
    eventLoopDelayP99Ms: { runtime: s.eventLoopDelay?.p99Ms ?? -1, sim: Math.round(simLoop.percentile(99) / 10_000) / 100 },
    node: process.version,
  };
  const checks = {
    exitedCleanly: exitCode === 0,
    zeroAnomalies: oms.missingTransitions === 0 && oms.duplicateFills === 0 && oms.orphanFills === 0 && oms.positionMismatches === 0,
    noOpenOrders: report.openOrdersAfterStop === 0 && report.venueRestingAfterStop === 0,
    positionsAgree: report.positions.equal,
  };
  const resultsDir = join(ROOT_DIR, 'bench', 'results');
  mkdirSync(resultsDir, { recursive: true });
  const file = join(resultsDir, `soak-${new Date().toISOString().replace(/[:.]/g, '-')}.json`);
  writeFileSync(file, `${JSON.stringify({ suite: 'soak', command: `npm run soak -- --minutes ${args.minutes}`, report, checks }, null, 2)}\n`);
  process.stdout.write(`${markdown(report, checks)}\nresult: ${file}\n`);
  if (!Object.values(checks).every(Boolean)) process.stderr.write(`soak: a check failed; the main job's last stderr:\n${stderr}\n`);
  await sim.close();
  rmSync(work, { recursive: true, force: true });
  return Object.values(checks).every(Boolean) ? 0 : 1;
}

function markdown(report: Record<string, unknown> & { oms: Record<string, unknown>; rssMb: Record<string, number>; eventLoopDelayP99Ms: Record<string, number>; positions: { oms: unknown; venue: unknown } }, checks: Record<string, boolean>): string {
  const rows: [string, string][] = [
    ['run', `${report.minutes} min, ${report.node}, exit ${report.exitCode}`],
    ['orders sent / fills', `${report.ordersSent} / ${report.fills}`],
    ['faults fired', String(report.faultsFired)],
    ['denies by code (last status line)', JSON.stringify(report.denies)],
    ['OMS missingTransitions / duplicateFills / orphanFills / positionMismatches', `${report.oms.missingTransitions} / ${report.oms.duplicateFills} / ${report.oms.orphanFills} / ${report.oms.positionMismatches}`],
    ['reconciliation rounds / read errors / late messages', `${report.oms.reconcileRounds} / ${report.oms.reconcileErrors} / ${report.oms.lateMessages}`],
    ['open orders after stop: OMS / venue', `${report.openOrdersAfterStop} / ${report.venueRestingAfterStop}`],
    ['positions: OMS / venue', `${JSON.stringify(report.positions.oms)} / ${JSON.stringify(report.positions.venue)}`],
    ['RSS runtime start -> end', `${report.rssMb.runtimeStart} -> ${report.rssMb.runtimeEnd} MB`],
    ['RSS simulator (+ soak driver) start -> end', `${report.rssMb.simStart} -> ${report.rssMb.simEnd} MB`],
    ['event-loop delay p99: runtime / simulator', `${report.eventLoopDelayP99Ms.runtime} / ${report.eventLoopDelayP99Ms.sim} ms`],
    ['checks', Object.entries(checks).map(([name, ok]) => `${name} ${ok ? 'ok' : 'FAILED'}`).join(', ')],
  ];
  return ['| measure | value |', '|---|---|', ...rows.map(([a, b]) => `| ${a} | ${b} |`)].join('\n');
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    process.stderr.write(`soak: ${(error as Error).stack ?? String(error)}\n`);
    process.exit(2);
  },
);
