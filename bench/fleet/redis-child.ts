/**
 * The fleet suite's Redis: Debian's redis-server as a child process on a free port of 127.0.0.1
 * (found by binding port 0 and closing it), without persistence, optionally on given CPUs. `start`
 * resolves null with the reason when there is no redis-server to run, so the suite can report
 * its rows as not measured instead of failing. stop() ends only the child it spawned (SIGTERM,
 * then SIGKILL after a bound). Measures nothing.
 */

import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { accessSync, constants } from 'node:fs';
import { createServer } from 'node:net';
import { onCpus } from '../../src/runtime/cpu-placement.ts';

/** Where Debian and most distributions install it; REDIS_SERVER overrides. */
const REDIS_SERVER = process.env.REDIS_SERVER ?? '/usr/bin/redis-server';
const READY_TIMEOUT_MS = 5_000;
const STOP_GRACE_MS = 2_000;

export interface RedisChild {
  url: string;
  stop(): Promise<void>;
}

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', resolve);
  });
  const address = server.address();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  if (address === null || typeof address === 'string') throw new Error('no free port');
  return address.port;
}

/** Why redis-server cannot run here, or null when it looks runnable. */
export function redisMissing(): string | null {
  try {
    accessSync(REDIS_SERVER, constants.X_OK);
    return null;
  } catch {
    return `redis-server not found at ${REDIS_SERVER} (install redis-server, or set REDIS_SERVER)`;
  }
}

/** Starts redis-server (bounded wait for its ready line); throws when it exits or stays silent. */
export async function startRedis(cpus: string | null): Promise<RedisChild> {
  const port = await freePort();
  const args = ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'];
  const launch = cpus === null ? { command: REDIS_SERVER, args } : onCpus(cpus, REDIS_SERVER, args);
  const child = spawn(launch.command, launch.args, { stdio: ['ignore', 'pipe', 'pipe'] });
  try {
    await readyLine(child);
  } catch (error) {
    if (child.exitCode === null) child.kill('SIGKILL');
    throw error;
  }
  return { url: `redis://127.0.0.1:${port}`, stop: () => stopChild(child) };
}

function readyLine(child: ChildProcess): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    let seen = '';
    const timer = setTimeout(() => reject(new Error(`redis-server not ready in ${READY_TIMEOUT_MS} ms: ${seen.slice(-300)}`)), READY_TIMEOUT_MS);
    child.stdout!.on('data', (chunk: Buffer) => {
      if (seen.length < 16_384) seen += chunk.toString();
      if (!seen.includes('Ready to accept connections')) return;
      clearTimeout(timer);
      resolve();
    });
    child.once('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`redis-server exited (${String(code)}): ${seen.slice(-300)}`));
    });
  });
}

async function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  child.kill('SIGTERM');
  let timer: NodeJS.Timeout | null = null;
  const bound = new Promise<void>((resolve) => {
    timer = setTimeout(() => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
      resolve();
    }, STOP_GRACE_MS);
  });
  await Promise.race([exited, bound]);
  if (timer !== null) clearTimeout(timer);
}
