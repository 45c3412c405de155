/**
 * Test support (not a test): Debian's redis-server as a child process on a free port of 127.0.0.1
 * (found by binding a server to port 0 and closing it), without persistence. `stop` kills it
 * (SIGKILL: a crash, not a shutdown) and `start` brings it back on the same port, empty.
 */

import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';

export interface TestRedis {
  port: number;
  url: string;
  start(): Promise<void>;
  stop(): Promise<void>;
}

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  if (address === null || typeof address === 'string') throw new Error('no port');
  return address.port;
}

export async function startTestRedis(): Promise<TestRedis> {
  const port = await freePort();
  let child: ChildProcess | null = null;
  const redis: TestRedis = {
    port,
    url: `redis://127.0.0.1:${port}`,
    async start() {
      const started = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], { stdio: ['ignore', 'pipe', 'pipe'] });
      child = started;
      await new Promise<void>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error('redis-server did not start within 5 s')), 5_000);
        let seen = '';
        started.stdout!.on('data', (chunk: Buffer) => {
          seen += chunk.toString();
          if (seen.includes('Ready to accept connections')) {
            clearTimeout(timer);
            resolve();
          }
        });
        started.once('exit', (code) => {
          clearTimeout(timer);
          reject(new Error(`redis-server exited (${String(code)}): ${seen.slice(-500)}`));
        });
      });
    },
    async stop() {
      const running = child;
      child = null;
      if (running === null || running.exitCode !== null) return;
      const exited = new Promise<void>((resolve) => running.once('exit', () => resolve()));
      running.kill('SIGKILL');
      await exited;
    },
  };
  await redis.start();
  return redis;
}
