/**
 * `npm start`: the main job. Loads the configuration (invalid: the problems on stderr, exit 2);
 * with venue.mode "embedded" (the default) starts the simulator as a child process and trades
 * against it over loopback with the demo key; with `--venue <url>` or venue.mode "remote" trades
 * against that exchange with the key from the environment. Runs the configured strategies, prints
 * the status every second (a table redrawn in place on a terminal, JSON lines otherwise or with
 * `--json`), serves Prometheus metrics when telemetry.metrics.enabled and the operator's dashboard
 * when telemetry.dashboard.enabled (its URL with the token on stderr, never in the log), and on
 * SIGINT / SIGTERM or after `--duration` stops the strategies, cancels every order (cancel-all at
 * the exchange), prints a summary, stops the simulator and exits 0. SIGHUP re-reads the
 * configuration and redeploys the strategies whose entries changed. SIGUSR2 (or the dashboard's
 * kill switch button) engages the kill switch, which persists in the journal: a later start
 * refuses to trade (exit 3, saying when, why and by whom) until `--release-kill-switch`.
 *
 * Failures end through the same stop path: an error that escapes to the process is charged to the
 * plugin whose code its stack names (that strategy is faulted, the rest trade on); any other ends
 * the run like a signal (cancel-all, summary, exit 1), bounded in time. The embedded simulator
 * exits with us however we die (sim-child.ts), and if it dies first the run stops the same way
 * (exit 1, naming its exit code or signal); against a real venue the order watchdog cancels
 * what a SIGKILL left resting (order-watchdog.ts).
 *
 * Logs (pino JSON) go to var/log/runtime-<time>.log, the simulator's to var/log/sim-<time>.log,
 * the OMS journal to var/journal/, all private to the user (0600 files in 0700 folders).
 * Wiring and process handling only.
 */

import { chmodSync, createWriteStream, mkdirSync } from 'node:fs';
import type { WriteStream } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { hostname } from 'node:os';
import { fileURLToPath } from 'node:url';
import { loadPrivateKey } from '../core/index.ts';
import { StrategyError, loadEntries } from '../strategy/index.ts';
import { EventLoopDelay, createLogger } from '../telemetry/index.ts';
import type { Logger, MetricsServer } from '../telemetry/index.ts';
import { ConfigError } from './config.ts';
import type { DeepReadonly, RuntimeConfig } from './config.ts';
import { USAGE, UsageError, parseCliArgs } from './cli-args.ts';
import type { CliArgs } from './cli-args.ts';
import { Runtime } from './runtime.ts';
import type { RuntimeStatus, VenueEndpoint, WorkersStatus } from './runtime.ts';
import { SimChild, describeSimExit } from './sim-child.ts';
import type { SimExit } from './sim-child.ts';
import { OrderWatchdog } from './order-watchdog.ts';
import { RuntimeError } from './runtime.ts';
import { OtherThreadsPlacement, pinEventLoop, placementForThisMachine } from './cpu-placement.ts';
import type { CpuPlan } from './cpu-placement.ts';
import { hugePageHint, transparentHugePageMode } from './huge-pages.ts';
import { applyEagerTierUp } from './jit-tier-up.ts';
import { StatusPrinter, formatMicroDollars, statusJson } from './status-line.ts';
import { StatusTablePrinter } from './status-table.ts';
import type { StatusTableContext } from './status-table.ts';
import { METRICS_SNAPSHOT_MS, startRuntimeMetrics } from './runtime-metrics.ts';
import { DashboardServer, OperatorSnapshots, dashboardToken } from '../dashboard/index.ts';
import { loadRuntimeConfig } from './venue-config.ts';
import { dashboardFleetView } from './dashboard-fleet.ts';
import { HOP_NAMES } from './tick-to-trade-probe.ts';

const ROOT_DIR = resolve(fileURLToPath(new URL('../..', import.meta.url)));

export const EXIT_OK = 0;
export const EXIT_FAILURE = 1;
export const EXIT_CONFIG = 2;
/** The start refused: a kill switch engaged by an earlier run is still in the journal. */
export const EXIT_KILL_SWITCH = 3;
/** Longest a stop may take once a crash asked for it (cancel-all, reconcile, journal); then exit 1 anyway. */
const CRASH_STOP_BOUND_MS = 20_000;
/** Longest a stop may take once the embedded simulator died: every request to it fails at once (ECONNREFUSED). */
const VENUE_LOST_STOP_BOUND_MS = 10_000;

/** How the run ends: the first of a signal, the duration or an error no plugin owns. */
class StopRequest {
  reason: string | null = null;
  exitCode = EXIT_OK;
  #wake: ((reason: string) => void) | null = null;

  request(reason: string, exitCode: number): void {
    if (this.reason !== null) return;
    this.reason = reason;
    this.exitCode = exitCode;
    this.#wake?.(reason);
  }

  wait(): Promise<string> {
    if (this.reason !== null) return Promise.resolve(this.reason);
    return new Promise<string>((resolve) => {
      this.#wake = resolve;
    });
  }
}

async function main(argv: readonly string[]): Promise<number> {
  let args: CliArgs;
  try {
    args = parseCliArgs(argv);
  } catch (error) {
    process.stderr.write(`${(error as Error).message}\n${USAGE}\n`);
    return EXIT_CONFIG;
  }
  if (args.help) {
    process.stdout.write(`${USAGE}\n`);
    return EXIT_OK;
  }
  let config: DeepReadonly<RuntimeConfig>;
  try {
    config = loadRuntimeConfig(args.configPath, args.venue);
  } catch (error) {
    if (error instanceof ConfigError) {
      process.stderr.write(`invalid configuration: ${error.message}\n`);
      return EXIT_CONFIG;
    }
    throw error;
  }

  try {
    // Plugins and their params are checked before any venue starts, so a bad entry fails fast.
    await loadEntries(config.strategies, ROOT_DIR);
  } catch (error) {
    if (error instanceof StrategyError) {
      process.stderr.write(`invalid strategy configuration: ${error.message}\n`);
      return EXIT_CONFIG;
    }
    throw error;
  }

  // The start time and the pid: two main jobs started in the same millisecond (a fleet's, a test
  // suite's) never share a log file or an embedded run's journal.
  const stamp = `${new Date().toISOString().replace(/[:.]/g, '-')}-${process.pid}`;
  const logDir = privateDir(join(ROOT_DIR, 'var', 'log'));
  const logPath = join(logDir, `runtime-${stamp}.log`);
  const logStream = createWriteStream(logPath, { flags: 'a', mode: 0o600 });
  const logger = createLogger({ level: config.telemetry.logLevel, pretty: false, name: 'runtime', destination: logStream });
  process.stderr.write(`logs: ${relative(process.cwd(), logPath)}\n`);

  let sim: SimChild | null = null;
  let runtime: Runtime | null = null;
  let watchdog: OrderWatchdog | null = null;
  let plan: CpuPlan | null = null;
  let metrics: MetricsServer | null = null;
  let snapshots: OperatorSnapshots | null = null;
  let dashboard: DashboardServer | null = null;
  const stop = new StopRequest();
  const venueLost: { exit: SimExit | null } = { exit: null };
  const loopDelay = new EventLoopDelay();
  guardEscapedErrors(stop, () => runtime, logger);
  if (config.process.eagerJitTierUp) applyEagerTierUp();
  const hugePages = hugePageHint(transparentHugePageMode());
  if (hugePages !== null) process.stderr.write(`${hugePages}\n`);
  try {
    let venue: VenueEndpoint;
    let journalPath: string;
    const usesFix = config.strategies.some((strategy) => strategy.route === 'fix');
    const fixFeed = config.feed.source === 'fix';
    const fixQuotes = config.rfq.enabled && config.rfq.route === 'fix';
    if (config.venue.mode === 'embedded') {
      process.stderr.write('starting the embedded simulator...\n');
      plan = config.sim.cpuPlacement === 'auto' ? cpuPlan() : null;
      sim = await SimChild.start({
        cpus: plan?.simCpus ?? null,
        rootDir: ROOT_DIR,
        seed: config.sim.seed,
        marketsFile: config.sim.marketsFile,
        faultProfile: config.sim.faultProfile,
        activityUpdatesPerSec: config.sim.activityUpdatesPerSec,
        marginActivityUpdatesPerSec: config.sim.marginActivityUpdatesPerSec,
        logPath: join(logDir, `sim-${stamp}.log`),
        // The simulator's FIX acceptor only when a strategy trades on the FIX route or the books come from KalshiMD;
        // resting liquidity when trading Margin (its books move only with sim.marginActivityUpdatesPerSec).
        extraArgs: [
          ...(usesFix || fixFeed || fixQuotes ? ['--fix'] : []),
          ...(config.margin.enabled ? ['--liquidity'] : []),
          ...(config.sim.syntheticMarkets > 0 ? ['--synthetic-markets', String(config.sim.syntheticMarkets)] : []),
        ],
      });
      const fix = sim.ready.fix;
      venue = {
        restUrl: `${sim.ready.http}/trade-api/v2`,
        wsUrl: sim.ready.ws,
        keyId: sim.ready.keyId,
        privateKey: loadPrivateKey(sim.ready.privateKeyPath),
        fix: usesFix && fix !== null ? { host: fix.host, port: config.venue.fix.sessionName === 'KalshiRT' ? fix.ports.KalshiRT : fix.ports.KalshiNR, tls: fix.tls } : null,
        marketData: fixFeed && fix !== null ? { host: fix.host, port: fix.ports.KalshiMD, tls: fix.tls } : null,
        rfq: fixQuotes && fix !== null ? { host: fix.host, port: fix.ports.KalshiRFQ, tls: fix.tls } : null,
      };
      // A fresh simulator per run: its orders never outlive it, so each run journals on its own.
      journalPath = join(privateDir(join(ROOT_DIR, 'var', 'journal')), `embedded-${stamp}.jsonl`);
      process.stderr.write(`simulator ready at ${sim.ready.http} (pid ${sim.pid}, log ${relative(process.cwd(), sim.logPath)})\n`);
      if (sim.ready.serverNote !== null) process.stderr.write(`simulator: ${sim.ready.serverNote}\n`);
      stopWhenVenueLost(sim, stop, logger, venueLost);
    } else {
      const credentials = config.credentials.venue;
      if (credentials === null || config.venue.restUrl === null || config.venue.wsUrl === null) throw new Error('remote venue without URLs or credentials (the config loader should have refused it)');
      const fix = config.venue.fix;
      venue = {
        restUrl: config.venue.restUrl,
        wsUrl: config.venue.wsUrl,
        keyId: credentials.keyId,
        privateKey: credentials.privateKey,
        fix: usesFix && fix.host !== null && fix.port !== null ? { host: fix.host, port: fix.port, tls: fix.tls } : null,
        marketData: fixFeed && fix.marketDataHost !== null && fix.marketDataPort !== null ? { host: fix.marketDataHost, port: fix.marketDataPort, tls: fix.tls } : null,
        rfq: fixQuotes && fix.host !== null && fix.rfqPort !== null ? { host: fix.host, port: fix.rfqPort, tls: fix.tls } : null,
      };
      // One journal per venue and key: a restart reconciles what the last run left.
      const host = new URL(config.venue.restUrl).host.replace(/[^A-Za-z0-9.-]/g, '_');
      journalPath = join(privateDir(join(ROOT_DIR, 'var', 'journal')), `${host}-${credentials.keyId.slice(0, 8).replace(/[^A-Za-z0-9]/g, '_')}.jsonl`);
    }
    const releaseKillSwitchBy = args.releaseKillSwitch ? `operator: --release-kill-switch (pid ${process.pid})` : null;
    runtime = new Runtime({ config, venue, rootDir: ROOT_DIR, journalPath, logger, restrictedSubaccount: config.venue.restrictedSubaccount, releaseKillSwitchBy });
    if (releaseKillSwitchBy !== null) process.stderr.write(`kill switch: released (${releaseKillSwitchBy}); journaled in ${relative(process.cwd(), journalPath)}\n`);
    if (config.venue.mode === 'remote' && config.venue.orderWatchdog) {
      // Armed before the first order: from here a SIGKILL still ends with every order cancelled.
      watchdog = OrderWatchdog.start({ rootDir: ROOT_DIR, restUrl: venue.restUrl, keyId: venue.keyId, privateKey: venue.privateKey, subaccounts: runtime.oms.subaccountsInUse(), logPath: join(logDir, `watchdog-${stamp}.log`), margin: config.margin.enabled });
      process.stderr.write(`order watchdog armed (pid ${watchdog.pid}): if this process dies without a clean stop, it cancels every order at the venue\n`);
    }
    await runtime.start();
    // Pinned only now: threads inherit their creator's CPUs, and the signing worker must not.
    if (plan !== null) pinForTheRun(plan);
    // After start: the metrics and the dashboard read the started runtime; a port in use fails the start.
    const dashboardConfig = config.telemetry.dashboard;
    if (config.telemetry.metrics.enabled || dashboardConfig.enabled) {
      // One snapshot on one timer for both: a scrape and a push only send what the tick built.
      snapshots = new OperatorSnapshots(runtime, dashboardConfig.enabled ? dashboardConfig.pushIntervalMs : METRICS_SNAPSHOT_MS);
    }
    metrics = await startRuntimeMetrics(runtime, config.telemetry.metrics, logger, snapshots, config.fleet.runtimeName ?? `${hostname()}-${process.pid}`);
    if (metrics !== null) process.stderr.write(`metrics: ${metrics.url}\n`);
    if (dashboardConfig.enabled && snapshots !== null) {
      const token = dashboardToken(dashboardConfig.token);
      const running = runtime;
      dashboard = await DashboardServer.start({
        host: dashboardConfig.host,
        port: dashboardConfig.port,
        token,
        snapshots,
        onKill: (source) => engageKillSwitch(running, logger, source),
        onError: (error, what) => logger.error({ err: error }, `dashboard: ${what} failed`),
        fleet: dashboardFleetView(config.fleet, logger),
      });
      // The token goes to the operator's terminal only; the log gets the address without it.
      process.stderr.write(`dashboard: ${dashboard.url}?token=${encodeURIComponent(token)}\n`);
      logger.info({ url: dashboard.url, tokenFrom: dashboardConfig.token === null ? 'random per run' : 'config' }, 'dashboard serving');
    }
    snapshots?.start();
    process.stderr.write(`trading: ${config.strategies.map((s) => `${s.id} (${s.plugin} on ${s.markets.join(',')})`).join('; ') || 'no strategies'}; Ctrl-C to stop\n`);
    const { reason, statusAtStop } = await runUntilStopped(runtime, args, logger, stop, watchdog);
    process.stderr.write(`\nstopping (${reason}): cancelling every order...\n`);
    // The pool's figures before stop closes it, for the summary.
    const workersAtStop = runtime.status().workers ?? null;
    const reconcileErrorsBefore = runtime.oms.stats.reconcileErrors;
    await runtime.stop(reason);
    reportStopFailures(runtime, reconcileErrorsBefore, venueLost.exit);
    watchdog?.disarm();
    snapshots?.stop();
    await dashboard?.stop();
    dashboard = null;
    await metrics?.stop();
    metrics = null;
    printSummary(runtime, reason, loopDelay, workersAtStop, statusAtStop.denies, args.json);
    return stop.exitCode;
  } catch (error) {
    if (error instanceof RuntimeError && error.code === 'RUNTIME_KILL_SWITCH_ENGAGED') {
      logger.error({ err: error }, 'start refused: kill switch engaged');
      process.stderr.write(`\n*** KILL SWITCH ENGAGED: not trading ***\n${error.message}\n\n`);
      await runtime?.stop('start refused: kill switch').catch(() => undefined);
      watchdog?.disarm();
      return EXIT_KILL_SWITCH;
    }
    logger.error({ err: error }, 'main job failed');
    if (error instanceof StrategyError) {
      process.stderr.write(`invalid strategy configuration: ${error.message}\n`);
      await runtime?.stop('start failed').catch(() => undefined);
      watchdog?.disarm();
      return EXIT_CONFIG;
    }
    process.stderr.write(`failed: ${(error as Error).message}\n`);
    await runtime?.stop('start failed').catch(() => undefined);
    watchdog?.disarm();
    return EXIT_FAILURE;
  } finally {
    snapshots?.stop();
    await dashboard?.stop().catch(() => undefined);
    await metrics?.stop().catch(() => undefined);
    if (sim !== null) await sim.stop();
    await closeLog(logger, logStream);
  }
}

/**
 * The embedded venue died under us (a crash, an OOM kill, kill -9): nothing can trade or cancel
 * without it, so the run ends through the stop path with exit 1, naming how the simulator ended,
 * within VENUE_LOST_STOP_BOUND_MS even if the stop hangs. A remote venue is never "lost": the
 * feed reconnects until it comes back.
 */
function stopWhenVenueLost(sim: SimChild, stop: StopRequest, logger: Logger, lost: { exit: SimExit | null }): void {
  sim.onUnexpectedExit((exit) => {
    lost.exit = exit;
    const how = describeSimExit(exit);
    logger.error({ pid: sim.pid, code: exit.code, signal: exit.signal, simLog: sim.logPath }, 'embedded simulator exited unexpectedly: stopping');
    process.stderr.write(`\nthe embedded simulator (pid ${sim.pid}) exited unexpectedly with ${how} (log ${relative(process.cwd(), sim.logPath)}): stopping\n`);
    if (stop.reason !== null) return;
    setTimeout(() => {
      process.stderr.write(`stop did not finish within ${VENUE_LOST_STOP_BOUND_MS} ms after the simulator exited; exiting\n`);
      process.exit(EXIT_FAILURE);
    }, VENUE_LOST_STOP_BOUND_MS).unref();
    stop.request(`simulator exited with ${how}`, EXIT_FAILURE);
  });
}

/**
 * runtime.stop logs a failed cancel-all or reconcile and carries on (the stop must finish); the
 * operator hears about it here, on stderr, before the summary.
 */
function reportStopFailures(runtime: Runtime, reconcileErrorsBefore: number, simExit: SimExit | null): void {
  if (simExit !== null) {
    process.stderr.write(`cancel-all and reconcile failed: the simulator is gone (${describeSimExit(simExit)}), and its orders with it; details in the log\n`);
    return;
  }
  const openAfterStop = runtime.status().openOrders;
  const reconcileErrors = runtime.oms.stats.reconcileErrors - reconcileErrorsBefore;
  if (openAfterStop > 0 || reconcileErrors > 0) {
    process.stderr.write(`the stop left ${openAfterStop} order(s) open in the OMS with ${reconcileErrors} reconcile error(s): the cancel-all or the final reconcile failed; details in the log\n`);
  }
}

/**
 * Prints the status every second until a signal, the duration or a crash, then once more at the
 * stop; resolves with the reason and that last status (the summary's deny counts come from it).
 */
async function runUntilStopped(runtime: Runtime, args: CliArgs, logger: Logger, stop: StopRequest, watchdog: OrderWatchdog | null): Promise<{ reason: string; statusAtStop: RuntimeStatus }> {
  // Each strategy's subaccount, for the table's per-strategy rows; a SIGHUP reload replaces it.
  const subaccounts = { byStrategy: subaccountsOf(runtime.config.strategies) };
  // A terminal gets the table redrawn in place; a pipe, a file or --json gets JSON lines.
  const printer = process.stdout.isTTY === true && !args.json ? new StatusTablePrinter(process.stdout, () => tableContext(runtime, subaccounts)) : new StatusPrinter(process.stdout, { json: true });
  const startedMs = Date.now();
  const statusTimer = setInterval(() => {
    printer.print(runtime.status(), Math.round((Date.now() - startedMs) / 1000));
    watchdog?.watch(runtime.oms.subaccountsInUse());
  }, 1_000);
  // The log file gets the full status (and the hop percentiles) every telemetry.statusIntervalMs.
  const logEveryMs = runtime.config.telemetry.statusIntervalMs;
  const logTimer = logEveryMs > 0 ? setInterval(() => logger.info({ status: runtime.status(), hops: runtime.probe.summaries() }, 'status'), logEveryMs) : null;
  const durationTimer = args.durationSec > 0 ? setTimeout(() => stop.request(`duration ${args.durationSec}s`, EXIT_OK), args.durationSec * 1_000) : null;
  let signals = 0;
  const onSignal = (signal: NodeJS.Signals): void => {
    signals++;
    if (signals > 1) {
      // A second Ctrl-C while cancelling: the operator insists. Orders may remain; the journal knows them.
      process.stderr.write(`\n${signal} again: exiting without waiting for cancels\n`);
      process.exit(130);
    }
    stop.request(signal, EXIT_OK);
  };
  const onHangup = (): void => {
    void reloadStrategies(runtime, args, logger, subaccounts);
  };
  const onKillSwitch = (): void => engageKillSwitch(runtime, logger, 'SIGUSR2');
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  process.on('SIGHUP', onHangup);
  process.on('SIGUSR2', onKillSwitch);
  const reason = await stop.wait();
  clearInterval(statusTimer);
  if (logTimer !== null) clearInterval(logTimer);
  if (durationTimer !== null) clearTimeout(durationTimer);
  process.off('SIGHUP', onHangup);
  process.off('SIGUSR2', onKillSwitch);
  const statusAtStop = runtime.status();
  printer.print(statusAtStop, Math.round((Date.now() - startedMs) / 1000));
  printer.finish();
  return { reason, statusAtStop };
}

/** The operator's kill switch (SIGUSR2, the dashboard's button): journaled, every order cancelled, no new ones. */
function engageKillSwitch(runtime: Runtime, logger: Logger, by: string): void {
  process.stderr.write(`\n${by}: kill switch engaged: cancelling every order; no new ones until --release-kill-switch\n`);
  runtime.engageKillSwitch(by, 'operator').catch((error: unknown) => logger.error({ err: error }, 'kill switch: cancel-all failed; retried by the OMS tick'));
}

/**
 * Errors that escaped every callback: charged to the plugin whose module the stack names (the
 * host faults its instances; the rest trade on), else the run stops through the stop path with
 * exit 1, within CRASH_STOP_BOUND_MS even if the stop itself hangs.
 */
function guardEscapedErrors(stop: StopRequest, runtimeOf: () => Runtime | null, logger: Logger): void {
  // A closed terminal or pipe (the parent that read our output died): stop through the stop path
  // without writing to it again, which would only raise the same error, in a loop.
  let outputBroken = false;
  let bounded = false;
  const boundTheStop = (): void => {
    if (bounded) return;
    bounded = true;
    setTimeout(() => {
      say(`stop did not finish within ${CRASH_STOP_BOUND_MS} ms; exiting\n`);
      process.exit(EXIT_FAILURE);
    }, CRASH_STOP_BOUND_MS);
  };
  const onOutputError = (error: Error): void => {
    if (outputBroken) return;
    outputBroken = true;
    logger.error({ err: error }, 'stdout/stderr closed: stopping');
    if (stop.reason === null) boundTheStop();
    stop.request(`output closed (${(error as NodeJS.ErrnoException).code ?? error.message})`, EXIT_FAILURE);
  };
  process.stdout.on('error', onOutputError);
  process.stderr.on('error', onOutputError);
  const say = (text: string): void => {
    if (outputBroken) return;
    try {
      process.stderr.write(text);
    } catch {
      outputBroken = true;
    }
  };
  const onEscaped = (error: unknown, origin: 'uncaughtException' | 'unhandledRejection'): void => {
    if ((error as NodeJS.ErrnoException | null)?.code === 'EPIPE') return onOutputError(error as Error);
    const message = error instanceof Error ? error.message : String(error);
    const faulted = runtimeOf()?.host.faultEscapedError(error, origin) ?? null;
    if (faulted !== null) {
      logger.error({ err: error, origin, strategies: faulted }, 'plugin error escaped to the process: its strategies are faulted, the rest trade on');
      say(`\n${origin} in plugin code, strategies [${faulted.join(', ')}] faulted (their orders cancelled): ${message}\n`);
      return;
    }
    logger.fatal({ err: error, origin }, 'unattributed error: stopping through the stop path');
    say(`\nfatal ${origin}: ${error instanceof Error ? (error.stack ?? message) : message}\n`);
    if (stop.reason !== null) return; // already stopping; the bound (or the stop) ends it
    boundTheStop();
    stop.request(`crash (${origin}): ${message}`, EXIT_FAILURE);
  };
  process.on('uncaughtException', (error) => onEscaped(error, 'uncaughtException'));
  process.on('unhandledRejection', (reason) => onEscaped(reason, 'unhandledRejection'));
}

function subaccountsOf(strategies: DeepReadonly<RuntimeConfig>['strategies']): Record<string, number> {
  return Object.fromEntries(strategies.map((strategy) => [strategy.id, strategy.subaccount]));
}

/** The status table's view of what RuntimeStatus does not carry: strategies' subaccounts and FIX sessions. */
function tableContext(runtime: Runtime, subaccounts: { byStrategy: Record<string, number> }): StatusTableContext {
  const sessions: { name: string; state: string }[] = [];
  if (runtime.fix !== null) sessions.push({ name: `fix ${runtime.config.venue.fix.sessionName}`, state: runtime.fix.sessionState });
  if (runtime.marketData !== null) sessions.push({ name: 'fix KalshiMD', state: runtime.marketData.sessionState });
  return { strategySubaccounts: subaccounts.byStrategy, sessions };
}

/** SIGHUP: re-read the config file; redeploy changed strategies, start new ones, stop removed ones. */
async function reloadStrategies(runtime: Runtime, args: CliArgs, logger: Logger, subaccounts: { byStrategy: Record<string, number> }): Promise<void> {
  let config: DeepReadonly<RuntimeConfig>;
  try {
    config = loadRuntimeConfig(args.configPath, args.venue);
  } catch (error) {
    logger.error({ err: error }, 'SIGHUP: configuration invalid; nothing changed');
    process.stderr.write(`\nSIGHUP: configuration invalid, nothing changed: ${(error as Error).message}\n`);
    return;
  }
  const result = await runtime.host.applyEntries(config.strategies);
  subaccounts.byStrategy = subaccountsOf(config.strategies);
  const failed = result.failed.map((f) => ({ id: f.id, error: f.error.message }));
  logger.info({ ...result, failed }, 'SIGHUP: strategies reloaded');
  process.stderr.write(`\nSIGHUP: redeployed [${result.redeployed.join(', ')}], deployed [${result.deployed.join(', ')}], stopped [${result.stopped.join(', ')}]${failed.length > 0 ? `, failed ${JSON.stringify(failed)}` : ''}\n`);
}

/**
 * `denies` comes from the last status line, not from the status after the stop: deny counts live
 * in the strategy instances' contexts, and the stop removes the instances (a summary read after it
 * once printed `"denies": {}` after a run of a million RATE_LIMITED denies).
 */
function printSummary(runtime: Runtime, reason: string, loopDelay: EventLoopDelay, workers: WorkersStatus | null, denies: RuntimeStatus['denies'], json: boolean): void {
  const status = runtime.status();
  const hops: Record<string, { count: number; p50Us: number; p99Us: number; p999Us: number; maxUs: number }> = {};
  for (const name of HOP_NAMES) {
    const s = runtime.probe.recorder(name).summary();
    hops[name] = { count: s.count, p50Us: s.p50 / 1000, p99Us: s.p99 / 1000, p999Us: s.p999 / 1000, maxUs: s.max / 1000 };
  }
  const summary = {
    event: 'summary',
    reason,
    ordersSent: status.ordersSent,
    fills: status.fills,
    openOrdersAfterStop: status.openOrders,
    positions: JSON.parse(statusJson(status, 0)).positions,
    pnl: formatMicroDollars(status.pnlMicro),
    denies,
    tickToTradeHopsUs: hops,
    oms: runtime.oms.stats,
    eventLoopDelay: loopDelay.summary(),
    // setImmediate round trips: the stalls below monitorEventLoopDelay's 1 ms resolution.
    eventLoopStallUs: runtime.stall.summary(),
    // The keep-warm dry run's cost: its runs and the event-loop time they took.
    keepWarm: runtime.keepWarm === null ? null : {
      runs: runtime.keepWarm.stats.runs, thinned: runtime.keepWarm.stats.thinned, busyMs: Math.round(runtime.keepWarm.stats.busyUsTotal / 1000),
      strategyCalls: runtime.keepWarm.stats.strategyCalls,
    },
    workers,
    rssMb: Math.round(process.memoryUsage().rss / 1_048_576),
    journal: relative(process.cwd(), runtime.journal.path),
  };
  // One JSON line for pipes, logs and --json; indented for a person at a terminal.
  process.stdout.write(`${process.stdout.isTTY === true && !json ? JSON.stringify(summary, null, 2) : JSON.stringify(summary)}\n`);
}

async function closeLog(logger: Logger, stream: WriteStream): Promise<void> {
  try {
    logger.flush();
  } catch {
    // pino may have nothing to flush with a plain stream destination.
  }
  await new Promise<void>((done) => stream.end(done));
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (error: unknown) => {
    process.stderr.write(`fatal: ${(error as Error)?.stack ?? String(error)}\n`);
    process.exit(EXIT_FAILURE);
  },
);

/** A folder only this user can read (0700), tightened if an older run made it world-readable. */
function privateDir(path: string): string {
  mkdirSync(path, { recursive: true, mode: 0o700 });
  chmodSync(path, 0o700);
  return path;
}

/** sim.cpuPlacement auto (cpu-placement.ts): the plan for this machine, or null after saying why not. */
function cpuPlan(): CpuPlan | null {
  const { plan, reason } = placementForThisMachine();
  process.stderr.write(plan === null ? `${reason}; the scheduler places the runtime and the simulator\n` : `${reason}\n`);
  return plan;
}

/**
 * Pins this process's event-loop thread for the whole run, and keeps its other threads (workers, V8
 * helpers) on the other CPUs, where the simulator runs; a failure is said, not fatal.
 */
function pinForTheRun(plan: CpuPlan): void {
  try {
    pinEventLoop(plan.runtimeCpus);
  } catch (error) {
    process.stderr.write(`${(error as Error).message}; the event loop stays where the scheduler puts it\n`);
    return;
  }
  void new OtherThreadsPlacement(plan.simCpus).start().then((count) => {
    process.stderr.write(`${count} other threads of the runtime on CPU ${plan.simCpus}, off the event loop's\n`);
  });
}
