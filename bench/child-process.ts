/**
 * A bench child process (the simulator, a floor or peer server): spawned as `node --import tsx FILE
 * ARGS` from the repository root, optionally on given CPUs (taskset, src/runtime/cpu-placement.ts),
 * ready when it prints its first JSON line on stdout; later stdout
 * lines are replies to commands written on its stdin (JSON lines). Also reads the child's CPU time
 * from /proc (Linux; null elsewhere) so rows can say what a delivered message cost the process that
 * sent it. It owns the process lifetime: stop() sends SIGTERM, then SIGKILL after a bound, and only
 * ever to the child it spawned. It never measures latency itself.
 */

import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { onCpus } from '../src/runtime/cpu-placement.ts';

export const REPO_DIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

/** Clock ticks per second of /proc/<pid>/stat utime and stime (USER_HZ: 100 on Linux). */
const CLOCK_TICKS_PER_SEC = 100;

export class BenchChild {
  readonly child: ChildProcess;
  readonly ready: Record<string, unknown>;
  readonly pid: number;
  #stdout: string;
  #stderr = '';
  readonly #waiters: Array<(line: Record<string, unknown>) => void> = [];
  readonly #exited: Promise<number | null>;

  private constructor(child: ChildProcess, ready: Record<string, unknown>, rest: string, stderr: string) {
    this.child = child;
    this.ready = ready;
    this.pid = typeof ready.pid === 'number' ? ready.pid : (child.pid ?? -1);
    this.#stdout = rest;
    this.#stderr = stderr;
    child.stdout!.on('data', (chunk: Buffer) => {
      this.#stdout += chunk.toString('utf8');
      this.#drainLines();
    });
    child.stderr!.on('data', (chunk: Buffer) => {
      if (this.#stderr.length < 64 * 1024) this.#stderr += chunk.toString('utf8');
    });
    this.#exited = child.exitCode !== null ? Promise.resolve(child.exitCode) : new Promise((done) => child.once('exit', (code) => done(code)));
  }

  /** Spawns `node --import tsx <file> ...args` (on `cpus` when given) and waits (at most timeoutMs) for its ready line. */
  static async start(file: string, args: readonly string[], timeoutMs: number, cpus: string | null = null): Promise<BenchChild> {
    const nodeArgs = ['--import', 'tsx', file, ...args];
    const launch = cpus === null ? { command: process.execPath, args: nodeArgs } : onCpus(cpus, process.execPath, nodeArgs);
    const child = spawn(launch.command, launch.args, { cwd: REPO_DIR, stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    const onStderr = (chunk: Buffer): void => {
      if (stderr.length < 64 * 1024) stderr += chunk.toString('utf8');
    };
    child.stderr!.on('data', onStderr);
    try {
      const [ready, rest] = await new Promise<[Record<string, unknown>, string]>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`${file}: no ready line in ${timeoutMs} ms; stderr: ${stderr.slice(-2000)}`)), timeoutMs);
        const onData = (chunk: Buffer): void => {
          stdout += chunk.toString('utf8');
          const newline = stdout.indexOf('\n');
          if (newline < 0) return;
          clearTimeout(timer);
          child.stdout!.off('data', onData);
          child.off('exit', onExit);
          try {
            resolve([JSON.parse(stdout.slice(0, newline)) as Record<string, unknown>, stdout.slice(newline + 1)]);
          } catch (error) {
            reject(new Error(`${file}: ready line is not JSON: ${(error as Error).message}`));
          }
        };
        const onExit = (code: number | null): void => {
          clearTimeout(timer);
          reject(new Error(`${file}: exited ${code} before ready; stderr: ${stderr.slice(-2000)}`));
        };
        child.stdout!.on('data', onData);
        child.once('exit', onExit);
      });
      child.stderr!.off('data', onStderr);
      return new BenchChild(child, ready, rest, stderr);
    } catch (error) {
      if (child.exitCode === null) child.kill('SIGKILL');
      throw error;
    }
  }

  get stderr(): string {
    return this.#stderr;
  }

  /** Writes one JSON command line and resolves with the next JSON line the child prints. */
  command(value: Record<string, unknown>, timeoutMs = 10_000): Promise<Record<string, unknown>> {
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`child ${this.pid}: no reply to ${JSON.stringify(value)} in ${timeoutMs} ms`)), timeoutMs);
      this.#waiters.push((line) => {
        clearTimeout(timer);
        resolve(line);
      });
      this.child.stdin!.write(`${JSON.stringify(value)}\n`);
      this.#drainLines();
    });
  }

  /** User + system CPU seconds of the child so far; null when /proc is not there. */
  cpuSeconds(): number | null {
    try {
      const stat = readFileSync(`/proc/${this.pid}/stat`, 'utf8');
      // Fields after the parenthesised command name: state is field 3, utime 14, stime 15.
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      return (Number(fields[11]) + Number(fields[12])) / CLOCK_TICKS_PER_SEC;
    } catch {
      return null;
    }
  }

  /**
   * Times the child was switched out while it still wanted to run (summed over its threads); null
   * without /proc. A loaded machine taking the core away shows here, not in the CPU time.
   */
  involuntarySwitches(): number | null {
    try {
      const status = readFileSync(`/proc/${this.pid}/status`, 'utf8');
      const match = /nonvoluntary_ctxt_switches:\s+(\d+)/.exec(status);
      return match === null ? null : Number(match[1]);
    } catch {
      return null;
    }
  }

  /** SIGTERM, then SIGKILL if it has not exited within graceMs; resolves with the exit code. */
  async stop(graceMs = 3000): Promise<number | null> {
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

  #drainLines(): void {
    for (;;) {
      if (this.#waiters.length === 0) return;
      const newline = this.#stdout.indexOf('\n');
      if (newline < 0) return;
      const line = this.#stdout.slice(0, newline);
      this.#stdout = this.#stdout.slice(newline + 1);
      if (line.trim() === '') continue;
      this.#waiters.shift()!(JSON.parse(line) as Record<string, unknown>);
    }
  }
}
