/**
 * `npm run sim`: the simulator as a process of its own. Parses the command line, starts the
 * simulator, prints exactly one JSON line on stdout when ready
 *   {"event":"ready","http":"http://127.0.0.1:PORT","ws":"ws://127.0.0.1:PORT/trade-api/ws/v2","keyId":"...","privateKeyPath":"...","pid":N,
 *    "fix":null | {"host":"127.0.0.1","tls":false,"ports":{"KalshiNR":N,"KalshiRT":N,"KalshiDC":N,"KalshiPT":N,"KalshiRFQ":N,"KalshiMD":N},
 *                  "margin":{"KalshiNR":N,"KalshiRT":N,"KalshiDC":N,"KalshiMD":N}},
 *    "clearing":{"url":"http://127.0.0.1:PORT/clearing-api/v1","credentialPath":"<keys dir>/clearing-credential.json"}}
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

import { createLogger } from '../telemetry/index.ts';
import { faultProfileNames, startSim } from './index.ts';

interface Args {
  port: number;
  host: string;
  seed: number;
  markets: string | undefined;
  faults: string;
  activityRate: number;
  /** null: not given, decided by --exit-with-stdin. */
  liquidity: boolean | null;
  keysDir: string | undefined;
  logLevel: string;
  probe: boolean;
  exitWithStdin: boolean;
  fix: boolean;
}

class UsageError extends Error {
  readonly code: 'SIM_USAGE' = 'SIM_USAGE';
}

function integerArg(name: string, text: string | undefined): number {
  if (text === undefined || !/^\d{1,9}$/.test(text)) throw new UsageError(`${name} needs a non-negative integer, got ${JSON.stringify(text)}`);
  return Number(text);
}

function parseArgs(argv: readonly string[]): Args {
  const args: Args = { port: 0, host: '127.0.0.1', seed: 1, markets: undefined, faults: 'none', activityRate: 0, liquidity: null, keysDir: undefined, logLevel: 'info', probe: false, exitWithStdin: false, fix: false };
  for (let i = 0; i < argv.length; i++) {
    const flag = argv[i];
    const value = argv[i + 1];
    const take = (): string => {
      if (value === undefined) throw new UsageError(`${flag} needs a value`);
      i++;
      return value;
    };
    switch (flag) {
      case '--port':
        args.port = integerArg(flag, take());
        break;
      case '--host':
        args.host = take();
        break;
      case '--seed':
        args.seed = integerArg(flag, take());
        break;
      case '--markets':
        args.markets = take();
        break;
      case '--faults':
        args.faults = take();
        if (!faultProfileNames().includes(args.faults)) throw new UsageError(`unknown fault profile ${args.faults}; known: ${faultProfileNames().join(', ')}`);
        break;
      case '--activity-rate':
        args.activityRate = integerArg(flag, take());
        break;
      case '--keys-dir':
        args.keysDir = take();
        break;
      case '--log-level':
        args.logLevel = take();
        break;
      case '--probe':
        args.probe = true;
        break;
      case '--exit-with-stdin':
        args.exitWithStdin = true;
        break;
      case '--fix':
        args.fix = true;
        break;
      case '--liquidity':
        args.liquidity = true;
        break;
      case '--no-liquidity':
        args.liquidity = false;
        break;
      default:
        throw new UsageError(`unknown argument ${flag}`);
    }
  }
  return args;
}

async function main(): Promise<void> {
  let args: Args;
  try {
    args = parseArgs(process.argv.slice(2));
  } catch (error) {
    process.stderr.write(`sim: ${(error as Error).message}\n`);
    process.exit(2);
  }
  const logger = createLogger({ level: args.logLevel, pretty: false, name: 'sim', destination: process.stderr });
  const sim = await startSim({
    port: args.port,
    host: args.host,
    seed: args.seed,
    marketsFile: args.markets,
    faultProfile: args.faults,
    activity: args.activityRate > 0 ? { updatesPerSec: args.activityRate } : false,
    seedLiquidity: args.liquidity ?? !args.exitWithStdin,
    keysDir: args.keysDir,
    logger,
    probe: args.probe,
    fix: args.fix ? { enabled: true } : undefined,
  });
  logger.info({ http: sim.httpUrl, ws: sim.wsUrl, faults: args.faults, activityRate: args.activityRate, probe: args.probe, keyId: sim.demoKey.keyId }, 'simulator listening');
  process.stdout.write(
    `${JSON.stringify({ event: 'ready', http: sim.httpUrl, ws: sim.wsUrl, keyId: sim.demoKey.keyId, privateKeyPath: sim.demoKey.privateKeyPath, pid: process.pid, fix: sim.fix, clearing: { url: sim.demoClearing.url, credentialPath: sim.demoClearing.credentialPath } })}\n`,
  );
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
  process.on('SIGINT', () => stop('SIGINT'));
  process.on('SIGTERM', () => stop('SIGTERM'));
  if (args.exitWithStdin) {
    process.stdin.on('end', () => stop('parent gone (stdin ended)'));
    process.stdin.on('error', () => stop('parent gone (stdin error)'));
    process.stdin.resume();
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`sim: failed to start: ${(error as Error).stack ?? String(error)}\n`);
  process.exit(1);
});
