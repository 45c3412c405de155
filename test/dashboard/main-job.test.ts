/**
 * Goal: the main job serves the dashboard when telemetry.dashboard.enabled: it prints the page's
 * URL with a random token on stderr and never writes the token to its log; the page answers with
 * the token; the dashboard's kill switch takes the same path as SIGUSR2 (said on stderr, the kill
 * journaled, every order cancelled), after which the job runs on and stops cleanly (exit 0).
 * Method: `npm start` as a child process (tsx) on the embedded simulator with a config file that
 * turns the dashboard on at port 0; stderr parsed for the URL, the log and the journal read after
 * the exit; the kill sent over undici's WebSocket. Bounded waits; the child is stopped by its pid.
 */

import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { WebSocket } from 'undici';
import { afterAll, describe, expect, it } from 'vitest';
import { ROOT_DIR, waitUntil } from '../integration/helpers.ts';

const work = mkdtempSync(join(tmpdir(), 'dashboard-main-'));
let child: ChildProcess | null = null;
const created: string[] = [];

afterAll(() => {
  if (child !== null && child.exitCode === null) child.kill('SIGKILL');
  for (const file of created) rmSync(join(ROOT_DIR, file), { force: true });
  rmSync(work, { recursive: true, force: true });
});

describe('the main job with the dashboard on', () => {
  it('prints the URL with the token (never logged) and its kill switch goes through the kill path', async () => {
    const base = JSON.parse(readFileSync(join(ROOT_DIR, 'config', 'runtime.json'), 'utf8')) as Record<string, unknown>;
    const config = { ...base, telemetry: { ...((base.telemetry as Record<string, unknown> | undefined) ?? {}), dashboard: { enabled: true, port: 0, pushIntervalMs: 100 } } };
    const configPath = join(work, 'runtime.json');
    writeFileSync(configPath, JSON.stringify(config));
    const started = spawn(process.execPath, ['--import', 'tsx', 'src/runtime/main.ts', '--config', configPath, '--duration', '40', '--json'], { cwd: ROOT_DIR, stdio: ['ignore', 'pipe', 'pipe'] });
    child = started;
    let stderr = '';
    started.stderr!.on('data', (chunk: Buffer) => {
      stderr += chunk.toString('utf8');
    });
    let stdout = '';
    started.stdout!.on('data', (chunk: Buffer) => {
      stdout += chunk.toString('utf8');
    });
    const exited = new Promise<number | null>((resolve) => started.once('exit', (code) => resolve(code)));
    await waitUntil(() => /dashboard: http:\/\/127\.0\.0\.1:\d+\/\?token=\S+\n/.test(stderr) || started.exitCode !== null, 30_000, `the dashboard URL on stderr (so far: ${stderr})`);
    const url = /dashboard: (http:\/\/127\.0\.0\.1:\d+\/)\?token=(\S+)\n/.exec(stderr);
    expect(url, stderr).not.toBeNull();
    const [, pageUrl, encodedToken] = url!;
    const token = decodeURIComponent(encodedToken);
    expect(token.length).toBeGreaterThanOrEqual(32);
    const logFile = /logs: (\S+)\n/.exec(stderr)![1];
    created.push(logFile, logFile.replace('runtime-', 'sim-'));
    await waitUntil(() => stderr.includes('trading: '), 20_000, 'trading');
    expect((await fetch(`${pageUrl}?token=${encodedToken}`)).status).toBe(200);
    expect((await fetch(pageUrl)).status).toBe(401);

    const ws = new WebSocket(`${pageUrl.replace('http:', 'ws:')}ws?token=${encodedToken}`);
    const messages: string[] = [];
    ws.addEventListener('message', (event) => messages.push(String(event.data)));
    await waitUntil(() => messages.length >= 2, 10_000, 'hello and a view');
    ws.send(JSON.stringify({ type: 'kill' }));
    await waitUntil(() => stderr.includes('dashboard: kill switch engaged'), 10_000, 'the kill on stderr');
    await waitUntil(() => messages.some((m) => m.includes('"killSwitch":{"reason":"dashboard"')), 10_000, 'a view with the kill switch engaged');
    const engaged = JSON.parse(messages.filter((m) => m.includes('"killSwitch":{')).at(-1)!) as { view: { killSwitch: { source: string }; openOrders: number } };
    expect(engaged.view.killSwitch.source).toBe('operator');
    await waitUntil(() => messages.some((m) => m.includes('"killSwitch":{') && m.includes('"openOrders":0')), 10_000, 'no open order after the kill');
    ws.close();

    started.kill('SIGTERM');
    const code = await Promise.race([exited, new Promise<'timeout'>((resolve) => setTimeout(() => resolve('timeout'), 30_000))]);
    expect(code).toBe(0);
    const log = readFileSync(join(ROOT_DIR, logFile), 'utf8');
    expect(log).toContain('dashboard serving');
    expect(log).not.toContain(token);
    expect(log).not.toContain(encodedToken);
    // The summary names the run's journal: the kill is in it, as a SIGUSR2 kill would be.
    const summary = JSON.parse(stdout.trim().split('\n').at(-1)!) as { event: string; journal: string; openOrdersAfterStop: number };
    expect(summary.event).toBe('summary');
    created.push(summary.journal);
    expect(summary.openOrdersAfterStop).toBe(0);
    const kills = readFileSync(join(ROOT_DIR, summary.journal), 'utf8').split('\n').filter((line) => line.includes('"k":"kill"'));
    expect(kills.map((line) => JSON.parse(line) as { reason: string; source: string })).toEqual([expect.objectContaining({ reason: 'dashboard', source: 'operator' })]);
  }, 90_000);
});
