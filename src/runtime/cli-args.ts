/**
 * The main job's command line: `--config <path>` (default config/runtime.json), `--venue <url>`
 * (trade against another exchange at that base URL with the key from the environment),
 * `--duration <seconds>` (stop by itself), `--release-kill-switch` (the operator releases a kill
 * switch a previous run engaged; journaled), `--json` (JSON status lines even on a terminal),
 * `--help`. Owns parsing only, from one option table (src/core/cli-options.ts, shared with the
 * other scripts: it gives --help and the nearest name for a typo); a bad argument is a UsageError
 * (exit code 2).
 */

import { CliUsageError, helpText, parseCli } from '../core/index.ts';
import type { CliCommand, CliParse } from '../core/index.ts';

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

/** The option table: the parse, --help and the nearest-name hint all come from it (core/cli-options.ts). */
export const COMMAND: CliCommand = {
  usage: 'usage: npm start -- [--config <path>] [--venue <http(s)://host:port>] [--duration <seconds>] [--release-kill-switch] [--json]',
  options: [
    { name: '--config', value: '<path>', help: 'runtime configuration (default config/runtime.json; see config/README.md)' },
    { name: '--venue', value: '<url>', help: 'trade against the exchange at this REST base with the key from KALSHI_API_KEY_ID / KALSHI_PRIVATE_KEY_PATH (default: the config\'s venue)' },
    { name: '--duration', value: '<seconds>', help: 'stop after this long: cancel every order, print a summary, exit 0' },
    { name: '--release-kill-switch', help: 'release the kill switch a previous run engaged (journaled); without it such a start refuses to trade' },
    { name: '--json', help: 'JSON status lines and a one-line summary even on a terminal (else a table redrawn in place)' },
  ],
  notes: [
    'SIGINT / SIGTERM stop like --duration; SIGHUP re-reads the config and redeploys changed strategies;',
    'SIGUSR2 engages the kill switch (every order cancelled, none new, persists until --release-kill-switch).',
    'Exit status: 0 stopped cleanly; 1 failed (or the embedded simulator died); 2 usage or configuration; 3 kill switch engaged.',
  ],
};

export const USAGE = helpText(COMMAND);

export function parseCliArgs(argv: readonly string[]): CliArgs {
  let parsed: CliParse;
  try {
    parsed = parseCli(argv, COMMAND);
  } catch (error) {
    if (error instanceof CliUsageError) throw new UsageError(error.message);
    throw error;
  }
  const args: CliArgs = { configPath: 'config/runtime.json', venue: null, durationSec: 0, releaseKillSwitch: false, json: false, help: parsed.help };
  args.configPath = parsed.values.get('--config') ?? args.configPath;
  const venue = parsed.values.get('--venue');
  if (venue !== undefined) args.venue = venueArg(venue);
  const duration = parsed.values.get('--duration');
  if (duration !== undefined) {
    if (!/^\d{1,7}$/.test(duration) || duration === '0') throw new UsageError(`--duration needs a whole number of seconds >= 1, got ${JSON.stringify(duration)}`);
    args.durationSec = Number.parseInt(duration, 10);
  }
  args.releaseKillSwitch = parsed.flags.has('--release-kill-switch');
  args.json = parsed.flags.has('--json');
  return args;
}

function venueArg(text: string): string {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new UsageError(`--venue needs an http(s) URL, got ${JSON.stringify(text)}`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new UsageError(`--venue needs an http(s) URL, got ${JSON.stringify(text)}`);
  return text;
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
