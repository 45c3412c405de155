/**
 * The order watchdog's own process (see order-watchdog.ts): a dead man's switch for a real venue,
 * where a runtime killed with SIGKILL (or by the OOM killer, or a power-cut of its container)
 * cannot cancel its resting orders. It reads JSON lines on stdin from the runtime:
 *
 *   {"restUrl": "...", "keyId": "...", "privateKeyPem": "...", "subaccounts": [0, 3],
 *    "cancelAllPaths": ["/portfolio/events/orders", "/margin/orders"]}                 first line
 *   {"subaccounts": [0, 3, 5]}                                                          updates
 *   {"disarm": true}                                                                    clean stop
 *
 * When stdin ends (the runtime's end of the pipe closes, however the runtime died) without a
 * disarm, it sends the exchange's cancel-all (DELETE /portfolio/events/orders, and DELETE
 * /margin/orders when the runtime traded Margin: `cancelAllPaths`) for every subaccount it knows,
 * retried within a bound, then exits. It logs JSON lines to stderr and never
 * the key. It runs detached from the runtime's process group, so a Ctrl-C or a group kill that
 * ends the runtime does not end it first.
 */

import { createPrivateKey } from 'node:crypto';
import type { KeyObject } from 'node:crypto';
import { createInterface } from 'node:readline';
import { request } from 'undici';
import { signedHeaders } from '../core/index.ts';

/** Whole cancel round bound, ms: the venue may be slow, but the watchdog must end. */
const CANCEL_BOUND_MS = 20_000;
const ATTEMPTS_MAX = 5;
/** One init line carries a PEM key (a few KiB); anything far larger is not ours. */
const LINE_BYTES_MAX = 64 * 1024;

interface Armed {
  restUrl: string;
  keyId: string;
  privateKey: KeyObject;
  subaccounts: Set<number>;
  /** Cancel-all paths relative to restUrl, one per exchange traded. */
  paths: string[];
}

/** The exchanges' cancel-all endpoints the watchdog may call (anything else in the init line is ignored). */
const CANCEL_ALL_PATHS: ReadonlySet<string> = new Set(['/portfolio/events/orders', '/margin/orders']);

function pathsOf(value: unknown): string[] {
  const paths = Array.isArray(value) ? value.filter((path): path is string => typeof path === 'string' && CANCEL_ALL_PATHS.has(path)) : [];
  return paths.length === 0 ? ['/portfolio/events/orders'] : [...new Set(paths)];
}

let armed: Armed | null = null;
let disarmed = false;

function log(fields: Record<string, unknown>): void {
  process.stderr.write(`${JSON.stringify({ t: new Date().toISOString(), name: 'order-watchdog', pid: process.pid, ...fields })}\n`);
}

function subaccountsOf(value: unknown): number[] {
  if (!Array.isArray(value)) return [];
  return value.filter((n): n is number => Number.isInteger(n) && n >= 0 && n <= 63);
}

function onLine(line: string): void {
  if (line.length > LINE_BYTES_MAX) return log({ level: 'warn', msg: 'line too long; ignored', bytes: line.length });
  let message: Record<string, unknown>;
  try {
    message = JSON.parse(line) as Record<string, unknown>;
  } catch {
    return log({ level: 'warn', msg: 'malformed line; ignored' });
  }
  if (message.disarm === true) {
    disarmed = true;
    return;
  }
  if (armed === null) {
    if (typeof message.restUrl !== 'string' || typeof message.keyId !== 'string' || typeof message.privateKeyPem !== 'string') {
      return log({ level: 'error', msg: 'first line must carry restUrl, keyId and privateKeyPem; ignored' });
    }
    armed = {
      restUrl: message.restUrl.replace(/\/+$/, ''), keyId: message.keyId, privateKey: createPrivateKey(message.privateKeyPem),
      subaccounts: new Set(subaccountsOf(message.subaccounts)), paths: pathsOf(message.cancelAllPaths),
    };
    log({ level: 'info', msg: 'armed', restUrl: armed.restUrl, subaccounts: [...armed.subaccounts], paths: armed.paths });
    return;
  }
  for (const subaccount of subaccountsOf(message.subaccounts)) armed.subaccounts.add(subaccount);
}

async function cancelAll(target: Armed, path: string, subaccount: number, deadlineMs: number): Promise<boolean> {
  const url = new URL(`${target.restUrl}${path}`);
  url.searchParams.set('subaccount', String(subaccount));
  for (let attempt = 1; attempt <= ATTEMPTS_MAX && Date.now() < deadlineMs; attempt++) {
    try {
      const response = await request(url, {
        method: 'DELETE',
        headers: signedHeaders(target.keyId, target.privateKey, Date.now(), 'DELETE', url.pathname),
        headersTimeout: 5_000,
        bodyTimeout: 5_000,
      });
      const body = await response.body.text();
      if (response.statusCode < 300) {
        log({ level: 'info', msg: 'cancel-all sent', path, subaccount, status: response.statusCode, attempt });
        return true;
      }
      log({ level: 'warn', msg: 'cancel-all refused', path, subaccount, status: response.statusCode, body: body.slice(0, 200), attempt });
      if (response.statusCode < 500 && response.statusCode !== 429) return false;
    } catch (error) {
      log({ level: 'warn', msg: 'cancel-all failed', path, subaccount, error: String(error), attempt });
    }
    await new Promise((resolve) => setTimeout(resolve, 200 * attempt));
  }
  return false;
}

async function onRuntimeGone(): Promise<void> {
  if (disarmed || armed === null) {
    log({ level: 'info', msg: disarmed ? 'runtime stopped cleanly; nothing to do' : 'runtime gone before arming; nothing to do' });
    return;
  }
  const target = armed;
  const startedMs = Date.now();
  log({ level: 'error', msg: 'runtime gone without a clean stop: cancelling every order', subaccounts: [...target.subaccounts] });
  const results = await Promise.all(target.paths.flatMap((path) => [...target.subaccounts].map((subaccount) => cancelAll(target, path, subaccount, startedMs + CANCEL_BOUND_MS))));
  log({ level: results.every(Boolean) ? 'info' : 'error', msg: 'done', cancelled: results.filter(Boolean).length, failed: results.filter((ok) => !ok).length, tookMs: Date.now() - startedMs });
}

// A terminal's hang-up or the runtime's group signals are not ours to obey: only stdin decides.
process.on('SIGHUP', () => undefined);
process.on('SIGINT', () => undefined);
createInterface({ input: process.stdin }).on('line', onLine).on('close', () => {
  onRuntimeGone().then(
    () => process.exit(0),
    (error: unknown) => {
      log({ level: 'error', msg: 'watchdog failed', error: String(error) });
      process.exit(1);
    },
  );
});
