/**
 * `npm run clearing -- <command>`: reads the clearing-member API and prints it.
 *
 *   obligations [--csv]       every active obligation with its detail totals (details past the
 *                             1,000-row inline cap are paged), a table in dollars or CSV in centicents
 *   funding-estimate [--csv]  estimated funding at the next funding time, by asset class
 *
 *   --url URL                 clearing base URL incl. /clearing-api/v1 (else CLEARING_URL, else the
 *                             credential file's "url")
 *   --credential-file F       `admin_user_id:access_token`, or the simulator's JSON file (else
 *                             CLEARING_CREDENTIAL, else var/sim-keys/clearing-credential.json when present)
 *   --timeout-ms N            per-request connect/headers/body timeout (default 30,000)
 *
 * Exit status: 0 done; 1 request failed (server error, malformed body, timeout, paging); 2 usage;
 * 3 authentication or permission refused (401 / 403); 4 no or bad credential. Messages go to
 * stderr as `clearing: CODE: text`; the access token is never printed.
 */

import { existsSync, realpathSync } from 'node:fs';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { CliUsageError, helpText, parseCli } from '../core/index.ts';
import type { CliCommand, CliParse } from '../core/index.ts';
import { ClearingClient } from './clearing-client.ts';
import { ClearingError } from './clearing-error.ts';
import { parseCredentialText, readCredentialFile, type ClearingCredential } from './credential.ts';
import { readCompleteObligations } from './detail-pager.ts';
import { formatDollars, renderCsv, renderTable, totalsOf } from './obligation-report.ts';

/** Where `npm run sim` writes its demo clearing credential (src/sim/clearing/demo-credential.ts). */
export const DEFAULT_CREDENTIAL_FILE = 'var/sim-keys/clearing-credential.json';

export const EXIT = { OK: 0, FAILED: 1, USAGE: 2, AUTH: 3, CREDENTIAL: 4 } as const;

export interface CliIo {
  env: Readonly<Record<string, string | undefined>>;
  stdout(text: string): void;
  stderr(text: string): void;
  /** Directory the default credential file is resolved from. */
  cwd: string;
}

interface Args {
  command: 'obligations' | 'funding-estimate';
  csv: boolean;
  url: string | null;
  credentialFile: string | null;
  timeoutMs: number;
}

/** The option table: the parse, --help and the nearest-name hint all come from it (core/cli-options.ts). */
const COMMAND: CliCommand = {
  usage: 'usage: npm run clearing -- <obligations|funding-estimate> [--csv] [--url URL] [--credential-file FILE] [--timeout-ms N]',
  positional: { name: 'command', help: 'obligations (active obligations with detail totals) or funding-estimate (next funding, by asset class)', countMax: 1, choices: ['obligations', 'funding-estimate'] },
  options: [
    { name: '--csv', help: 'CSV in centicents instead of a table in dollars' },
    { name: '--url', value: '<url>', help: 'clearing base URL incl. /clearing-api/v1 (else CLEARING_URL, else the credential file\'s "url")' },
    { name: '--credential-file', value: '<file>', help: `admin_user_id:access_token or the simulator's JSON file (else CLEARING_CREDENTIAL, else ${DEFAULT_CREDENTIAL_FILE})` },
    { name: '--timeout-ms', value: '<n>', help: 'per-request connect/headers/body timeout (default 30,000)' },
  ],
  notes: ['Exit status: 0 done; 1 request failed; 2 usage; 3 authentication or permission refused; 4 no or bad credential.'],
};

const USAGE = COMMAND.usage;

class UsageError extends Error {}

/** null: --help was asked for. */
function parseArgs(argv: readonly string[]): Args | null {
  let parsed: CliParse;
  try {
    parsed = parseCli(argv, COMMAND);
  } catch (error) {
    if (error instanceof CliUsageError) throw new UsageError(error.message);
    throw error;
  }
  if (parsed.help) return null;
  const command = parsed.positional[0];
  if (command !== 'obligations' && command !== 'funding-estimate') throw new UsageError('no command');
  const args: Args = { command, csv: parsed.flags.has('--csv'), url: parsed.values.get('--url') ?? null, credentialFile: parsed.values.get('--credential-file') ?? null, timeoutMs: 30_000 };
  const timeout = parsed.values.get('--timeout-ms');
  if (timeout !== undefined) {
    if (!/^\d{1,7}$/.test(timeout) || Number(timeout) < 1) throw new UsageError('--timeout-ms needs a positive integer (ms)');
    args.timeoutMs = Number(timeout);
  }
  return args;
}

/** The credential and URL the flags, then the environment, then the default file give. */
function resolveTarget(args: Args, io: CliIo): { credential: ClearingCredential; url: string } {
  let credential: ClearingCredential;
  let fileUrl: string | null = null;
  if (args.credentialFile !== null) {
    ({ credential, url: fileUrl } = readCredentialFile(args.credentialFile));
  } else if (io.env.CLEARING_CREDENTIAL !== undefined && io.env.CLEARING_CREDENTIAL !== '') {
    credential = parseCredentialText(io.env.CLEARING_CREDENTIAL);
  } else {
    const fallback = resolve(io.cwd, DEFAULT_CREDENTIAL_FILE);
    if (!existsSync(fallback)) throw new ClearingError('CLEARING_BAD_CREDENTIAL', `no credential: pass --credential-file, set CLEARING_CREDENTIAL=admin_user_id:access_token, or start the simulator (npm run sim writes ${DEFAULT_CREDENTIAL_FILE})`);
    ({ credential, url: fileUrl } = readCredentialFile(fallback));
  }
  const url = args.url ?? (io.env.CLEARING_URL !== undefined && io.env.CLEARING_URL !== '' ? io.env.CLEARING_URL : fileUrl);
  if (url === null) throw new UsageError('no URL: pass --url (e.g. http://127.0.0.1:PORT/clearing-api/v1) or set CLEARING_URL');
  return { credential, url };
}

export async function runClearingCli(argv: readonly string[], io: CliIo): Promise<number> {
  let args: Args | null;
  let target: { credential: ClearingCredential; url: string };
  try {
    args = parseArgs(argv);
    if (args === null) {
      io.stdout(`${helpText(COMMAND)}\n`);
      return EXIT.OK;
    }
    target = resolveTarget(args, io);
  } catch (error) {
    if (error instanceof UsageError) {
      io.stderr(`clearing: ${error.message}\n${USAGE}\n`);
      return EXIT.USAGE;
    }
    if (error instanceof ClearingError) {
      io.stderr(`clearing: ${error.code}: ${error.message}\n`);
      return EXIT.CREDENTIAL;
    }
    throw error;
  }
  let client: ClearingClient | null = null;
  try {
    client = new ClearingClient({ baseUrl: target.url, credential: target.credential, connectTimeoutMs: args.timeoutMs, headersTimeoutMs: args.timeoutMs, bodyTimeoutMs: args.timeoutMs });
    if (args.command === 'obligations') {
      const totals = (await readCompleteObligations(client)).map(totalsOf);
      io.stdout(args.csv ? renderCsv(totals) : renderTable(totals, ''));
    } else {
      const estimates = await client.fundingEstimates();
      const rows = [...estimates].map(([assetClass, e]) => ({ assetClass, e }));
      if (args.csv) {
        io.stdout(`asset_class,estimated_funding_centicents,next_funding_time\r\n${rows.map(({ assetClass, e }) => `${csvSafe(assetClass)},${e.estimatedFundingCenticents},${csvSafe(e.nextFundingTime ?? '')}\r\n`).join('')}`);
      } else if (rows.length === 0) io.stdout('no funding estimates\n');
      else io.stdout(rows.map(({ assetClass, e }) => `${assetClass.replace(/[\x00-\x1f\x7f]/g, '?')}  ${formatDollars(e.estimatedFundingCenticents)} $  at ${e.nextFundingTime ?? 'unknown'}\n`).join(''));
    }
    return EXIT.OK;
  } catch (error) {
    if (!(error instanceof ClearingError)) throw error;
    if (error.code === 'CLEARING_UNAUTHORIZED' || error.code === 'CLEARING_FORBIDDEN') {
      io.stderr(`clearing: ${error.code}: authentication failed for admin user ${target.credential.adminUserId}: ${error.message}\n`);
      return EXIT.AUTH;
    }
    io.stderr(`clearing: ${error.code}: ${error.message}\n`);
    return error.code === 'CLEARING_BAD_URL' ? EXIT.USAGE : EXIT.FAILED;
  } finally {
    await client?.close();
  }
}

function csvSafe(value: string): string {
  return /[",\r\n]/.test(value) ? `"${value.replace(/"/g, '""')}"` : value;
}

function isEntryPoint(): boolean {
  const script = process.argv[1];
  if (script === undefined) return false;
  try {
    return realpathSync(script) === realpathSync(fileURLToPath(import.meta.url));
  } catch {
    return false;
  }
}

if (isEntryPoint()) {
  const io: CliIo = { env: process.env, stdout: (text) => process.stdout.write(text), stderr: (text) => process.stderr.write(text), cwd: process.cwd() };
  runClearingCli(process.argv.slice(2), io).then(
    (code) => {
      process.exitCode = code;
    },
    (error: unknown) => {
      // A bug, not an expected failure: name it without dumping request state.
      process.stderr.write(`clearing: internal error: ${(error as Error).stack ?? String(error)}\n`);
      process.exitCode = 1;
    },
  );
}
