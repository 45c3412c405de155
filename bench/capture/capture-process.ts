/**
 * `npm run capture` as the capture bench runs it: `node --import tsx src/capture/main.ts --all-open
 * --venue <simulator REST> ...` spawned directly (so its pid is the capture's own process, and its
 * CPU time in /proc is the capture's alone), optionally on given CPUs. Ready when it prints
 * "capturing N markets" on stderr; stopped with SIGTERM (it then closes its file and writes the
 * quality report), SIGKILL after a bound. Also reads a process's CPU seconds from /proc. Owns the
 * child's life only; measures nothing.
 */

import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { onCpus } from '../../src/runtime/cpu-placement.ts';
import { REPO_DIR } from '../child-process.ts';

/** Clock ticks per second of /proc/<pid>/stat utime and stime (USER_HZ: 100 on Linux). */
const CLOCK_TICKS_PER_SEC = 100;

/** User + system CPU seconds of a process (all its threads) so far; null without /proc. */
export function processCpuSeconds(pid: number): number | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Fields after the parenthesised command name: state is field 3, utime 14, stime 15.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) / CLOCK_TICKS_PER_SEC;
  } catch {
    return null;
  }
}

export interface CaptureVenue {
  /** REST base with the API prefix (http://127.0.0.1:P/trade-api/v2). */
  restUrl: string;
  wsUrl: string;
  keyId: string;
  keyFile: string;
}

export class CaptureProcess {
  readonly child: ChildProcess;
  readonly pid: number;
  /** Markets the capture said it records. */
  readonly markets: number;
  readonly #stderr: { text: string };
  readonly #exited: Promise<number | null>;

  private constructor(child: ChildProcess, markets: number, stderr: { text: string }) {
    this.child = child;
    this.pid = child.pid ?? -1;
    this.markets = markets;
    this.#stderr = stderr;
    this.#exited = child.exitCode !== null ? Promise.resolve(child.exitCode) : new Promise((done) => child.once('exit', (code) => done(code)));
  }

  /** Spawns the capture into `outDir` and waits (at most timeoutMs) until it is capturing. */
  static async start(venue: CaptureVenue, outDir: string, timeoutMs: number, cpus: string | null): Promise<CaptureProcess> {
    const args = ['--import', 'tsx', path.join('src', 'capture', 'main.ts'), '--all-open', '--venue', venue.restUrl, '--ws-url', venue.wsUrl, '--key-id', venue.keyId, '--key-file', venue.keyFile, '--out', outDir];
    const launch = cpus === null ? { command: process.execPath, args } : onCpus(cpus, process.execPath, args);
    const child = spawn(launch.command, launch.args, { cwd: REPO_DIR, stdio: ['ignore', 'pipe', 'pipe'] });
    const stderr = { text: '' };
    child.stdout!.on('data', () => undefined); // the quality lines: read from the report files instead
    try {
      const markets = await new Promise<number>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`capture: not capturing after ${timeoutMs} ms; stderr: ${stderr.text.slice(-2000)}`)), timeoutMs);
        child.stderr!.on('data', (chunk: Buffer) => {
          if (stderr.text.length < 64 * 1024) stderr.text += chunk.toString('utf8');
          const match = /capturing (\d+) markets/.exec(stderr.text);
          if (match === null) return;
          clearTimeout(timer);
          resolve(Number(match[1]));
        });
        child.once('exit', (code) => {
          clearTimeout(timer);
          reject(new Error(`capture exited ${code} before capturing; stderr: ${stderr.text.slice(-2000)}`));
        });
      });
      return new CaptureProcess(child, markets, stderr);
    } catch (error) {
      if (child.exitCode === null) child.kill('SIGKILL');
      throw error;
    }
  }

  get stderr(): string {
    return this.#stderr.text;
  }

  /** SIGTERM (the capture closes its file and writes its report), SIGKILL after graceMs; the exit code. */
  async stop(graceMs: number): Promise<number | null> {
    if (this.child.exitCode !== null || this.child.signalCode !== null) return this.child.exitCode;
    this.child.kill('SIGTERM');
    let timer: NodeJS.Timeout | null = null;
    const killed = new Promise<null>((done) => {
      timer = setTimeout(() => {
        if (this.child.exitCode === null) this.child.kill('SIGKILL');
        done(null);
      }, graceMs);
    });
    const code = await Promise.race([this.#exited, killed]);
    if (timer !== null) clearTimeout(timer);
    return code;
  }
}
