/**
 * `npm run sim`: the simulator as a process of its own. Parses the command line, starts the
 * simulator, prints exactly one JSON line on stdout when ready
 *   {"event":"ready","http":"http://127.0.0.1:PORT","ws":"ws://127.0.0.1:PORT/trade-api/ws/v2","keyId":"...","privateKeyPath":"...","pid":N,
 *    "fix":null | {"host":"127.0.0.1","tls":false,"ports":{"KalshiNR":N,"KalshiRT":N,"KalshiDC":N,"KalshiPT":N,"KalshiRFQ":N,"KalshiMD":N},
 *                  "margin":{"KalshiNR":N,"KalshiRT":N,"KalshiDC":N,"KalshiMD":N}},
 *    "clearing":{"url":"http://127.0.0.1:PORT/clearing-api/v1","credentialPath":"<keys dir>/clearing-credential.json"},
 *    "server":"uws" | "node-http-fallback", and with the fallback "serverNote":"<why, and that it is slower>"}
 * ("node-http-fallback": uWebSockets.js could not load here, src/net/uws.ts; README, Dependencies)
 * (the clearing credential file holds the demo clearing member's admin user id and access token,
 * mode 0600; the token itself is never printed or logged)
 * and logs everything else (pino JSON) on stderr. SIGINT/SIGTERM close it cleanly (exit 0).
 *
 *   --port N            listen port, 0 = any (default 0)
 *   --host ADDR         listen address (default 127.0.0.1)
 *   --seed N            engine, activity and fault seed (default 1)
 *   --markets FILE      market catalog (default config/markets.json)
 *   --faults NAME       fault profile (default none)
 *   --activity-rate N   synthetic market updates per second, 0 = off (default 0)
 *   --rfq-rate N        with --activity-rate: RFQs per minute from synthetic requesters, whose quoters
 *                       also answer users' RFQs (activity/rfq-participants.ts), 0 = none (default 20)
 *   --margin-activity-rate N  synthetic Margin (perpetuals) book updates per second, 0 = off (default 0);
 *                       independent of --activity-rate (alone, only the Margin books move)
 *   --synthetic-markets N  N synthetic markets (KXSYN...) listed after the --markets catalog's, 0 = none (default 0)
 *   --keys-dir DIR      demo key directory (default var/sim-keys)
 *   --log-level LEVEL   stderr log level (default info)
 *   --probe             wire-to-wire probe on (GET /_sim/probe, POST /_sim/probe/reset; default off)
 *   --fix               FIX acceptor on (KalshiNR, KalshiRT, KalshiDC, KalshiPT, KalshiRFQ, KalshiMD, each on a
 *                       free port: the ready line's "fix".ports; the Margin exchange's KalshiNR, KalshiRT,
 *                       KalshiDC and KalshiMD: "fix".margin)
 *   --exit-with-stdin   exit when stdin ends: a parent that holds the other end of a pipe takes
 *                       the simulator down with it however it dies (the embedded venue's mode)
 *   --liquidity         resting liquidity on every active book at start (activity/seed-liquidity.ts)
 *   --no-liquidity      empty books at start. Default: --liquidity, except with --exit-with-stdin
 *                       (the runtime's embedded venue keeps the empty books its jobs were written for)
 */

import { CliUsageError, helpText, parseCli, unknownMessage } from '../core/index.ts';
import type { CliCommand } from '../core/index.ts';
import { createLogger } from '../telemetry/index.ts';
import { faultProfileNames, startSim, type StartSimOptions } from './index.ts';
import { uwsFallbackNotice } from '../net/uws.ts';

interface Args {
  port: number;
  host: string;
  seed: number;
  markets: string | undefined;
  faults: string;
  activityRate: number;
  /** Synthetic Margin book updates per second; 0 = off. */
  marginActivityRate: number;
  /** RFQs per minute with activity on; null: the simulator's default. */
  rfqRate: number | null;
  syntheticMarkets: number;
  /** null: not given, decided by --exit-with-stdin. */
  liquidity: boolean | null;
  keysDir: string | undefined;
  logLevel: string;
  probe: boolean;
  exitWithStdin: boolean;
  fix: boolean;
}

/** The option table: the parse, --help and the nearest-name hint all come from it (core/cli-options.ts). */
const COMMAND: CliCommand = {
  usage: 'usage: npm run sim -- [options]   (prints one JSON ready line on stdout, logs on stderr)',
  options: [
    { name: '--port', value: '<n>', help: 'listen port, 0 = any (default 0)' },
    { name: '--host', value: '<addr>', help: 'listen address (default 127.0.0.1)' },
    { name: '--seed', value: '<n>', help: 'engine, activity and fault seed (default 1)' },
    { name: '--markets', value: '<file>', help: 'market catalog (default config/markets.json)' },
    { name: '--faults', value: '<name>', help: 'fault profile (default none)' },
    { name: '--activity-rate', value: '<n>', help: 'synthetic market updates per second, 0 = off (default 0)' },
    { name: '--margin-activity-rate', value: '<n>', help: 'synthetic Margin (perpetuals) book updates per second, 0 = off (default 0); works without --activity-rate' },
    { name: '--rfq-rate', value: '<n>', help: 'with --activity-rate: RFQs per minute from synthetic requesters (their quoters answer yours), 0 = none (default 20)' },
    { name: '--synthetic-markets', value: '<n>', help: 'n synthetic markets (KXSYN...) listed after the --markets catalog\'s, 0 = none (default 0)' },
    { name: '--keys-dir', value: '<dir>', help: 'demo key directory (default var/sim-keys)' },
    { name: '--log-level', value: '<level>', help: 'stderr log level (default info)' },
    { name: '--probe', help: 'wire-to-wire probe on (GET /_sim/probe, POST /_sim/probe/reset)' },
    { name: '--fix', help: 'FIX acceptor on, each session kind on a free port (the ready line\'s "fix")' },
    { name: '--exit-with-stdin', help: 'exit when stdin ends (the embedded venue\'s mode: dies with its parent)' },
    { name: '--liquidity', help: 'resting liquidity on every active book at start (default, except with --exit-with-stdin)' },
    { name: '--no-liquidity', help: 'empty books at start' },
  ],
  notes: ['SIGINT / SIGTERM close it cleanly (exit 0); a usage error exits 2.'],
};

function integerArg(name: string, text: string | undefined): number {
  if (text === undefined || !/^\d{1,9}$/.test(text)) throw new CliUsageError(`${name} needs a non-negative integer, got ${JSON.stringify(text)}`);
  return Number(text);
}

/** null: --help was asked for. */
function parseArgs(argv: readonly string[]): Args | null {
  const parsed = parseCli(argv, COMMAND);
  if (parsed.help) return null;
  const { values, flags } = parsed;
  const faults = values.get('--faults') ?? 'none';
  if (!faultProfileNames().includes(faults)) throw new CliUsageError(unknownMessage('fault profile', faults, faultProfileNames()));
  return {
    port: values.has('--port') ? integerArg('--port', values.get('--port')) : 0,
    host: values.get('--host') ?? '127.0.0.1',
    seed: values.has('--seed') ? integerArg('--seed', values.get('--seed')) : 1,
    markets: values.get('--markets'),
    faults,
    activityRate: values.has('--activity-rate') ? integerArg('--activity-rate', values.get('--activity-rate')) : 0,
    marginActivityRate: values.has('--margin-activity-rate') ? integerArg('--margin-activity-rate', values.get('--margin-activity-rate')) : 0,
    rfqRate: values.has('--rfq-rate') ? integerArg('--rfq-rate', values.get('--rfq-rate')) : null,
    syntheticMarkets: values.has('--synthetic-markets') ? integerArg('--synthetic-markets', values.get('--synthetic-markets')) : 0,
    liquidity: liquidityArg(flags),
    keysDir: values.get('--keys-dir'),
    logLevel: values.get('--log-level') ?? 'info',
    probe: flags.has('--probe'),
    exitWithStdin: flags.has('--exit-with-stdin'),
    fix: flags.has('--fix'),
  };
}

function liquidityArg(flags: ReadonlySet<string>): boolean | null {
  if (flags.has('--liquidity') && flags.has('--no-liquidity')) throw new CliUsageError('--liquidity and --no-liquidity contradict each other');
  if (flags.has('--liquidity')) return true;
  return flags.has('--no-liquidity') ? false : null;
}

/** startSim's activity: off unless a rate is set; Margin alone brings no RFQ participants (they ride on --activity-rate). */
function activityOf(args: Args): StartSimOptions['activity'] {
  if (args.activityRate === 0 && args.marginActivityRate === 0) return false;
  if (args.activityRate === 0) return { updatesPerSec: 0, rfqsPerMinute: 0, marginUpdatesPerSec: args.marginActivityRate };
  return {
    updatesPerSec: args.activityRate,
    ...(args.rfqRate === null ? {} : { rfqsPerMinute: args.rfqRate }),
    ...(args.marginActivityRate === 0 ? {} : { marginUpdatesPerSec: args.marginActivityRate }),
  };
}

async function main(): Promise<void> {
  let args: Args | null;
  try {
    args = parseArgs(process.argv.slice(2));
  } catch (error) {
    process.stderr.write(`sim: ${(error as Error).message}\n`);
    process.exit(2);
  }
  if (args === null) {
    process.stdout.write(`${helpText(COMMAND)}\n`);
    process.exit(0);
  }
  const logger = createLogger({ level: args.logLevel, pretty: false, name: 'sim', destination: process.stderr });
  const sim = await startSim({
    port: args.port,
    host: args.host,
    seed: args.seed,
    marketsFile: args.markets,
    syntheticMarkets: args.syntheticMarkets,
    faultProfile: args.faults,
    activity: activityOf(args),
    seedLiquidity: args.liquidity ?? !args.exitWithStdin,
    demoObligations: !args.exitWithStdin, // the demo clearing member's backlog (clearing/demo-obligations.ts)
    keysDir: args.keysDir,
    logger,
    probe: args.probe,
    fix: args.fix ? { enabled: true } : undefined,
  });
  const serverNote = uwsFallbackNotice();
  if (serverNote !== null) logger.warn({ server: 'node-http-fallback' }, serverNote);
  logger.info({ http: sim.httpUrl, ws: sim.wsUrl, faults: args.faults, activityRate: args.activityRate, marginActivityRate: args.marginActivityRate, probe: args.probe, keyId: sim.demoKey.keyId }, 'simulator listening');
  let stopping = false;
  const stop = (signal: string): void => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, 'simulator stopping');
    // A close that hangs (a stuck client socket) must not keep an orphan alive.
    setTimeout(() => process.exit(0), 5_000).unref();
    void sim.close().then(() => {
      logger.flush();
      process.exit(0);
    });
  };
  // Before the ready line: a parent may signal as soon as it reads it, and until a listener
  // exists Node leaves SIGTERM/SIGINT to their default action (the process dies, exit by signal).
  process.on('SIGINT', () => stop('SIGINT'));
  process.on('SIGTERM', () => stop('SIGTERM'));
  process.stdout.write(
    `${JSON.stringify({ event: 'ready', http: sim.httpUrl, ws: sim.wsUrl, keyId: sim.demoKey.keyId, privateKeyPath: sim.demoKey.privateKeyPath, pid: process.pid, fix: sim.fix, clearing: { url: sim.demoClearing.url, credentialPath: sim.demoClearing.credentialPath }, ...serverFields() })}\n`,
  );
  if (args.exitWithStdin) {
    process.stdin.on('end', () => stop('parent gone (stdin ended)'));
    process.stdin.on('error', () => stop('parent gone (stdin error)'));
    process.stdin.resume();
  }
}

/** The ready line's server fields: which HTTP/WebSocket server runs, and why when it is the fallback. */
function serverFields(): { server: 'uws' | 'node-http-fallback'; serverNote?: string } {
  const note = uwsFallbackNotice();
  return note === null ? { server: 'uws' } : { server: 'node-http-fallback', serverNote: note };
}

main().catch((error: unknown) => {
  process.stderr.write(`sim: failed to start: ${(error as Error).stack ?? String(error)}\n`);
  process.exit(1);
});
