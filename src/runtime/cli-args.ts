/**
 * The main job's command line: `--config <path>` (default config/runtime.json), `--venue <url>`
 * (trade against another exchange at that base URL with the key from the environment),
 * `--duration <seconds>` (stop by itself), `--release-kill-switch` (the operator releases a kill
 * switch a previous run engaged; journaled), `--json` (JSON status lines even on a terminal),
 * `--help`. Owns parsing only; a bad argument is a
 * UsageError (exit code 2).
 */

export interface CliArgs {
  configPath: string;
  /** http(s)://host:port[/trade-api/v2], or null for the config's venue. */
  venue: string | null;
  /** Seconds to run; 0 = until a signal. */
  durationSec: number;
  /** Release a kill switch recovered from the journal before trading (journaled). */
  releaseKillSwitch: boolean;
  /** JSON status lines even when stdout is a terminal (else a table redrawn in place there). */
  json: boolean;
  help: boolean;
}

export class UsageError extends Error {
  readonly code = 'USAGE_INVALID' as const;
  constructor(message: string) {
    super(message);
    this.name = 'UsageError';
  }
}

export const USAGE = `usage: npm start -- [--config <path>] [--venue <http(s)://host:port>] [--duration <seconds>] [--release-kill-switch] [--json]

  --config <path>       runtime configuration (default config/runtime.json; see config/README.md)
  --venue <url>         trade against the exchange at this REST base (e.g. http://127.0.0.1:9000),
                        with the API key from KALSHI_API_KEY_ID and KALSHI_PRIVATE_KEY_PATH
                        (or the variables the config names); default: the config's venue
                        (embedded simulator unless venue.mode is "remote")
  --duration <seconds>  stop after this long: cancel every order, print a summary, exit 0
  --release-kill-switch release the kill switch a previous run engaged (the start refuses to trade
                        while one is engaged, and says when, why and by whom); journaled
  --json                one JSON status line per second (and a one-line summary) even on a
                        terminal; without it a terminal gets a table redrawn in place, and a pipe
                        or file gets JSON lines
  SIGINT / SIGTERM      the same as --duration, at any time; SIGHUP re-reads the config and
                        redeploys changed strategies; SIGUSR2 engages the kill switch: every order
                        cancelled, no new ones, and it persists across restarts until released`;

export function parseCliArgs(argv: readonly string[]): CliArgs {
  const args: CliArgs = { configPath: 'config/runtime.json', venue: null, durationSec: 0, releaseKillSwitch: false, json: false, help: false };
  for (let i = 0; i < argv.length; i++) {
    const flag = argv[i];
    const value = (): string => {
      const next = argv[i + 1];
      if (next === undefined || next.startsWith('--')) throw new UsageError(`${flag} needs a value`);
      i++;
      return next;
    };
    switch (flag) {
      case '--config':
        args.configPath = value();
        break;
      case '--venue': {
        const text = value();
        let url: URL;
        try {
          url = new URL(text);
        } catch {
          throw new UsageError(`--venue needs an http(s) URL, got ${JSON.stringify(text)}`);
        }
        if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new UsageError(`--venue needs an http(s) URL, got ${JSON.stringify(text)}`);
        args.venue = text;
        break;
      }
      case '--duration': {
        const text = value();
        if (!/^\d{1,7}$/.test(text) || text === '0') throw new UsageError(`--duration needs a whole number of seconds >= 1, got ${JSON.stringify(text)}`);
        args.durationSec = Number.parseInt(text, 10);
        break;
      }
      case '--release-kill-switch':
        args.releaseKillSwitch = true;
        break;
      case '--json':
        args.json = true;
        break;
      case '--help':
      case '-h':
        args.help = true;
        break;
      default:
        throw new UsageError(`unknown argument ${JSON.stringify(flag)}`);
    }
  }
  return args;
}

/** REST base and WebSocket URL of a venue given as a base URL (path defaults to /trade-api/v2). */
export function venueUrls(venue: string): { restUrl: string; wsUrl: string } {
  const url = new URL(venue);
  const path = url.pathname.replace(/\/+$/, '');
  const restPath = path === '' ? '/trade-api/v2' : path;
  const wsScheme = url.protocol === 'https:' ? 'wss:' : 'ws:';
  const wsPath = restPath.endsWith('/trade-api/v2') ? `${restPath.slice(0, -'/trade-api/v2'.length)}/trade-api/ws/v2` : '/trade-api/ws/v2';
  return { restUrl: `${url.origin}${restPath}`, wsUrl: `${wsScheme}//${url.host}${wsPath}` };
}
