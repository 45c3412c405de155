// Goal: `npm run sim` (src/sim/main.ts) as a process: it prints exactly one JSON "ready" line on
// stdout with the URLs, key id, private key path and pid; serves requests; keeps the demo key
// across restarts (same keys directory); logs go to stderr; SIGTERM exits 0; a bad argument
// exits 2; it starts with resting liquidity unless --no-liquidity; --margin-activity-rate alone
// moves the Margin books (and takes only a non-negative integer). Method: spawn tsx on main.ts
// with a temporary keys directory, port 0.

import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { RestClient } from './helpers/clients.ts';
import { uwsFlavor } from '../../src/net/uws.ts';

const ROOT = resolve(import.meta.dirname, '../..');
const TSX = join(ROOT, 'node_modules/.bin/tsx');
const keysDir = mkdtempSync(join(tmpdir(), 'sim-main-keys-'));
const children: ChildProcess[] = [];

afterAll(() => {
  for (const child of children) if (child.exitCode === null) child.kill('SIGKILL');
  rmSync(keysDir, { recursive: true, force: true });
});

interface Running {
  child: ChildProcess;
  ready: Record<string, unknown>;
  stdout: () => string;
  stderr: () => string;
}

function launch(args: string[]): Promise<Running> {
  const child = spawn(TSX, ['src/sim/main.ts', ...args], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
  children.push(child);
  let stdout = '';
  let stderr = '';
  child.stderr!.on('data', (chunk) => (stderr += chunk));
  return new Promise((resolveReady, reject) => {
    const timer = setTimeout(() => reject(new Error(`no ready line; stderr: ${stderr}`)), 15_000);
    child.stdout!.on('data', (chunk) => {
      stdout += chunk;
      const newline = stdout.indexOf('\n');
      if (newline >= 0) {
        clearTimeout(timer);
        resolveReady({ child, ready: JSON.parse(stdout.slice(0, newline)), stdout: () => stdout, stderr: () => stderr });
      }
    });
    child.on('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`exited ${code} before ready; stderr: ${stderr}`));
    });
  });
}

/**
 * Signals the simulator's own process (the ready line's pid), not tsx's launcher around it: the
 * launcher relays a signal it receives, but when the child does not confirm within 30 ms (a loaded
 * CI machine) it kills the child with SIGKILL and exits 128 + signal (a CI run saw 130).
 */
function signal(run: Running, name: NodeJS.Signals): void {
  process.kill(run.ready.pid as number, name);
}

function exitCode(child: ChildProcess): Promise<number | null> {
  if (child.exitCode !== null) return Promise.resolve(child.exitCode);
  return new Promise((done) => child.on('exit', (code) => done(code)));
}

/** Runs the simulator with `args` that should make it exit at once; its exit code and stderr. */
async function runToExit(args: string[]): Promise<{ code: number | null; stderr: string }> {
  const child = spawn(TSX, ['src/sim/main.ts', ...args], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
  children.push(child);
  let stderr = '';
  child.stderr!.on('data', (chunk) => (stderr += chunk));
  const code = await exitCode(child);
  return { code, stderr };
}

describe('npm run sim', () => {
  it('starts with resting liquidity unless --no-liquidity', async () => {
    for (const [args, levels] of [[[], 5], [['--no-liquidity'], 0]] as const) {
      const run = await launch(['--port', '0', '--keys-dir', keysDir, ...args]);
      const client = new RestClient(run.ready.http as string, { keyId: run.ready.keyId as string, privateKeyPem: readFileSync(run.ready.privateKeyPath as string, 'utf8') });
      const book = await client.get('/markets/KXDEMO-26DEC31-T50/orderbook');
      expect(book.status).toBe(200);
      expect(book.body.orderbook_fp.yes_dollars ?? []).toHaveLength(levels);
      expect(book.body.orderbook_fp.no_dollars ?? []).toHaveLength(levels);
      signal(run, 'SIGTERM');
      expect(await exitCode(run.child)).toBe(0);
    }
  });

  it('prints one ready line, serves, keeps its key, exits 0 on SIGTERM', async () => {
    const first = await launch(['--port', '0', '--seed', '3', '--keys-dir', keysDir, '--activity-rate', '200', '--faults', 'none']);
    const ready = first.ready;
    expect(ready).toEqual({
      event: 'ready',
      http: expect.stringMatching(/^http:\/\/127\.0\.0\.1:\d+$/),
      ws: expect.stringMatching(/^ws:\/\/127\.0\.0\.1:\d+\/trade-api\/ws\/v2$/),
      keyId: expect.stringMatching(/^[0-9a-f-]{36}$/),
      privateKeyPath: join(keysDir, 'demo-key.pem'),
      pid: expect.any(Number), // the node process; tsx may run it as a child of its own
      fix: null, // no --fix: no FIX acceptor
      clearing: { url: `${ready.http}/clearing-api/v1`, credentialPath: join(keysDir, 'clearing-credential.json') },
      // Which server runs: uWS.js, or where it cannot load the node:http + ws fallback with the reason (src/net/uws.ts).
      ...(uwsFlavor() === 'native' ? { server: 'uws' } : { server: 'node-http-fallback', serverNote: expect.stringContaining('node:http + ws') }),
    });
    // The clearing token is in the 0600 file, never on stdout or in the logs.
    const clearingFile = JSON.parse(readFileSync(join(keysDir, 'clearing-credential.json'), 'utf8'));
    expect(statSync(join(keysDir, 'clearing-credential.json')).mode & 0o077).toBe(0);
    expect(clearingFile.url).toBe(`${ready.http}/clearing-api/v1`);
    expect(existsSync(ready.privateKeyPath as string)).toBe(true);
    expect(statSync(ready.privateKeyPath as string).mode & 0o077).toBe(0);
    const response = await fetch(`${ready.http}/trade-api/v2/exchange/status`);
    expect(response.status).toBe(200);
    await response.text();
    signal(first, 'SIGTERM');
    expect(await exitCode(first.child)).toBe(0);
    expect(first.stdout().trim().split('\n')).toHaveLength(1);
    expect(first.stderr()).toContain('simulator listening');
    expect(first.stdout() + first.stderr()).not.toContain(clearingFile.accessToken);

    const second = await launch(['--keys-dir', keysDir]);
    expect(second.ready.keyId).toBe(ready.keyId);
    // The demo clearing credential survives a restart too (only its url follows the new port).
    const reloaded = JSON.parse(readFileSync(join(keysDir, 'clearing-credential.json'), 'utf8'));
    expect([reloaded.adminUserId, reloaded.accessToken]).toEqual([clearingFile.adminUserId, clearingFile.accessToken]);
    expect(reloaded.url).toBe(`${second.ready.http}/clearing-api/v1`);
    signal(second, 'SIGINT');
    expect(await exitCode(second.child)).toBe(0);
  });

  it('with --fix the ready line names the FIX host and a port per session kind, and the port takes connections', async () => {
    const run = await launch(['--port', '0', '--keys-dir', keysDir, '--fix']);
    const fix = run.ready.fix as { host: string; tls: boolean; ports: Record<string, number>; margin: Record<string, number> };
    expect(fix.host).toBe('127.0.0.1');
    expect(fix.tls).toBe(false);
    for (const name of ['KalshiNR', 'KalshiRT', 'KalshiDC']) expect(fix.ports[name]).toBeGreaterThan(0);
    // The Margin exchange's sessions, each on a port of its own.
    expect(Object.keys(fix.margin).sort()).toEqual(['KalshiDC', 'KalshiMD', 'KalshiNR', 'KalshiRT']);
    for (const port of Object.values(fix.margin)) expect(Object.values(fix.ports)).not.toContain(port);
    const { connect } = await import('node:net');
    await new Promise<void>((resolve, reject) => {
      const socket = connect(fix.ports.KalshiNR, fix.host, () => {
        socket.destroy();
        resolve();
      });
      socket.on('error', reject);
    });
    signal(run, 'SIGTERM');
    expect(await exitCode(run.child)).toBe(0);
  });

  it('--margin-activity-rate alone fills the empty Margin books; a negative or fractional rate exits 2', async () => {
    const run = await launch(['--port', '0', '--keys-dir', keysDir, '--no-liquidity', '--margin-activity-rate', '2000']);
    let levels = 0;
    for (let i = 0; i < 100 && levels === 0; i++) {
      const book = await (await fetch(`${run.ready.http}/trade-api/v2/margin/markets/KXBTCPERP/orderbook`)).json() as { orderbook: { bids: unknown[]; asks: unknown[] } };
      levels = book.orderbook.bids.length + book.orderbook.asks.length;
      if (levels === 0) await new Promise((resolve) => setTimeout(resolve, 50));
    }
    expect(levels).toBeGreaterThan(0);
    const client = new RestClient(run.ready.http as string, { keyId: run.ready.keyId as string, privateKeyPem: readFileSync(run.ready.privateKeyPath as string, 'utf8') });
    const predictions = await client.get('/markets/KXDEMO-26DEC31-T50/orderbook');
    expect(predictions.status).toBe(200);
    expect(predictions.body.orderbook_fp.yes_dollars ?? []).toHaveLength(0); // no --activity-rate: Predictions stays still
    signal(run, 'SIGTERM');
    expect(await exitCode(run.child)).toBe(0);
    for (const value of ['-5', '2.5']) {
      const refused = await runToExit(['--margin-activity-rate', value]);
      expect(refused.code).toBe(2);
      expect(refused.stderr).toContain('--margin-activity-rate needs a non-negative integer');
    }
  });

  it('a bad argument exits 2 with a message', async () => {
    const refused = await runToExit(['--faults', 'no-such-profile']);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain('unknown fault profile');
  });
});
