/**
 * Test support (not a test): the main job (`src/runtime/main.ts`) as a child process, the way a
 * user starts it, with its stdout lines and stderr collected, bounded in time (SIGKILL at the
 * bound); a config writer for a remote venue (an in-process simulator) with the demo key in the
 * environment; and the simulator's view of resting orders.
 */

import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { ROOT_DIR, demoKey, rest } from './helpers.ts';
import type { TestSim } from './helpers.ts';

export interface MainRun {
  code: number | null;
  signal: NodeJS.Signals | null;
  lines: string[];
  stderr: string;
}

export interface MainOptions {
  env?: Record<string, string>;
  /** Called for every stdout line (status lines are JSON when stdout is a pipe). */
  onLine?: (line: string, child: ChildProcess) => void;
  /** Called for every stderr chunk, with all stderr so far. */
  onStderr?: (stderr: string, child: ChildProcess) => void;
  timeoutMs: number;
}

/** Runs the main job; resolves when it exits (SIGKILL at `timeoutMs`). */
export function runMain(args: readonly string[], options: MainOptions): Promise<MainRun> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/runtime/main.ts', ...args], {
    cwd: ROOT_DIR,
    env: { ...process.env, ...(options.env ?? {}) },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const lines: string[] = [];
  let stderr = '';
  child.stderr!.setEncoding('utf8');
  child.stderr!.on('data', (chunk: string) => {
    stderr += chunk;
    options.onStderr?.(stderr, child);
  });
  createInterface({ input: child.stdout! }).on('line', (line) => {
    lines.push(line);
    options.onLine?.(line, child);
  });
  return new Promise<MainRun>((resolve) => {
    const timer = setTimeout(() => child.kill('SIGKILL'), options.timeoutMs);
    child.once('exit', (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, lines, stderr });
    });
  });
}

/**
 * A runner for runs a test file starts concurrently: each is spawned once the one before it has
 * named its log file ("logs: " on stderr) or exited, so their start-ups (the heaviest part of a run
 * on 2 cores) do not pile up. (main.ts names a run's files by the millisecond and its pid, so
 * runs never share them either way.)
 */
export function runMainInTurn(): (args: readonly string[], options: MainOptions) => Promise<MainRun> {
  let previous: Promise<void> = Promise.resolve();
  return async (args, options) => {
    const before = previous;
    let named!: () => void;
    previous = new Promise<void>((resolve) => {
      named = resolve;
    });
    await before;
    const run = runMain(args, {
      ...options,
      onStderr: (stderr, child) => {
        if (stderr.includes('logs: ')) named();
        options.onStderr?.(stderr, child);
      },
    });
    void run.finally(named);
    return run;
  };
}

export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

export function statusLines(run: MainRun): Record<string, unknown>[] {
  return run.lines.filter((line) => line.startsWith('{"event":"status"')).map((line) => JSON.parse(line) as Record<string, unknown>);
}

export function summaryOf(run: MainRun): Record<string, unknown> | undefined {
  const line = run.lines.find((text) => text.startsWith('{"event":"summary"'));
  return line === undefined ? undefined : (JSON.parse(line) as Record<string, unknown>);
}

/** A config file for the main job against `sim` as a remote venue; returns its path and the environment with the demo key. */
export function remoteConfig(sim: TestSim, name: string, body: Record<string, unknown>): { path: string; env: Record<string, string> } {
  const path = join(sim.workDir, `${name}.json`);
  writeFileSync(path, JSON.stringify({
    venue: { mode: 'remote', restUrl: `${sim.httpUrl}/trade-api/v2`, wsUrl: sim.wsUrl, ...((body.venue as Record<string, unknown> | undefined) ?? {}) },
    risk: { rateLimitTier: 'prime' },
    ...Object.fromEntries(Object.entries(body).filter(([key]) => key !== 'venue')),
  }));
  return { path, env: { KALSHI_API_KEY_ID: sim.demoKey.keyId, KALSHI_PRIVATE_KEY_PATH: sim.demoKey.privateKeyPath } };
}

/** The journal the main job keeps for a remote venue and key (main.ts names it); removed by the caller. */
export function remoteJournalPath(sim: TestSim): string {
  const host = new URL(sim.httpUrl).host.replace(/[^A-Za-z0-9.-]/g, '_');
  return join(ROOT_DIR, 'var', 'journal', `${host}-${sim.demoKey.keyId.slice(0, 8).replace(/[^A-Za-z0-9]/g, '_')}.jsonl`);
}

export function removeJournal(sim: TestSim): void {
  rmSync(remoteJournalPath(sim), { force: true });
}

/** Client order ids resting at the venue in `subaccount`. */
export async function venueResting(sim: TestSim, subaccount: number): Promise<string[]> {
  const reply = await rest(sim, demoKey(sim), 'GET', `/portfolio/orders?status=resting&subaccount=${subaccount}`);
  return (reply.body.orders as { client_order_id: string }[]).map((order) => order.client_order_id);
}
