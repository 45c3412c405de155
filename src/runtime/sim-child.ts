/**
 * The embedded venue as a child process: `node --import tsx src/sim/main.ts --port 0 ...`, so the
 * simulator's work never shares the runtime's event loop. Waits for its one JSON ready line on
 * stdout (bounded by a timeout), pipes its stderr (pino JSON) to a log file, and stops it with
 * SIGTERM (SIGKILL after a grace period). The child holds the read end of a pipe on its stdin
 * (`--exit-with-stdin`): the kernel closes our end however we die, SIGKILL included, and the
 * simulator then exits too instead of running on as an orphan. The other way round, an exit we did
 * not ask for (a crash, an OOM kill, kill -9) is reported to `onUnexpectedExit`: the main job
 * cannot trade without its venue and stops. Owns the child's lifecycle only.
 */

import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { createWriteStream, mkdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { onCpus } from './cpu-placement.ts';

export interface SimChildOptions {
  /** Project root (the child's working directory). */
  rootDir: string;
  seed?: number;
  /** Market catalog file; null/undefined: the simulator's default. */
  marketsFile?: string | null;
  faultProfile?: string | null;
  /** Synthetic book updates per second across markets; 0 = quiet. */
  activityUpdatesPerSec?: number;
  /** Synthetic Margin (perpetuals) book updates per second (--margin-activity-rate); 0 = quiet. */
  marginActivityUpdatesPerSec?: number;
  /** Where the simulator's stderr goes (created). */
  logPath: string;
  keysDir?: string;
  logLevel?: string;
  /** Longest wait for the ready line, ms (default 30,000: the first run compiles TypeScript). */
  readyTimeoutMs?: number;
  /** Extra arguments passed through. */
  extraArgs?: readonly string[];
  /** CPUs (taskset list, e.g. "1" or "1-3") the simulator process runs on; null/undefined: any (cpu-placement.ts). */
  cpus?: string | null;
}

export interface SimReady {
  http: string;
  ws: string;
  keyId: string;
  privateKeyPath: string;
  pid: number;
  /** The FIX acceptor's endpoints (started with `fix`), else null. */
  fix: { host: string; tls: boolean; ports: { KalshiNR: number; KalshiRT: number; KalshiDC: number; KalshiPT: number; KalshiRFQ: number; KalshiMD: number } } | null;
  /** 'node-http-fallback' when uWebSockets.js could not load in the child (src/net/uws.ts); then `serverNote` says why. */
  server: 'uws' | 'node-http-fallback';
  serverNote: string | null;
}

export type SimChildErrorCode = 'SIM_START_TIMEOUT' | 'SIM_EXITED' | 'SIM_BAD_READY_LINE';

export class SimChildError extends Error {
  readonly code: SimChildErrorCode;
  constructor(code: SimChildErrorCode, message: string) {
    super(message);
    this.name = 'SimChildError';
    this.code = code;
  }
}

/** How the child ended: its exit code, or the signal that killed it (the other null). */
export interface SimExit {
  code: number | null;
  signal: NodeJS.Signals | null;
}

/** `exit code 1` or `signal SIGKILL`: for messages. */
export function describeSimExit(exit: SimExit): string {
  return exit.signal !== null ? `signal ${exit.signal}` : `exit code ${exit.code}`;
}

export class SimChild {
  readonly ready: SimReady;
  readonly logPath: string;
  readonly #child: ChildProcess;
  #exited: Promise<SimExit>;
  /** Set by stop(): the exit that follows was asked for. */
  #stopping = false;

  private constructor(child: ChildProcess, ready: SimReady, logPath: string, exited: Promise<SimExit>) {
    this.#child = child;
    this.ready = ready;
    this.logPath = logPath;
    this.#exited = exited;
  }

  /** Calls `listener` once if the child exits without stop() having been called (it may have already). */
  onUnexpectedExit(listener: (exit: SimExit) => void): void {
    void this.#exited.then((exit) => {
      if (!this.#stopping) listener(exit);
    });
  }

  static async start(options: SimChildOptions): Promise<SimChild> {
    const args = ['--import', 'tsx', join('src', 'sim', 'main.ts'), '--port', '0', '--exit-with-stdin'];
    if (options.seed !== undefined) args.push('--seed', String(options.seed));
    if (options.marketsFile !== undefined && options.marketsFile !== null) args.push('--markets', options.marketsFile);
    if (options.faultProfile !== undefined && options.faultProfile !== null) args.push('--faults', options.faultProfile);
    if (options.activityUpdatesPerSec !== undefined) args.push('--activity-rate', String(options.activityUpdatesPerSec));
    if (options.marginActivityUpdatesPerSec !== undefined) args.push('--margin-activity-rate', String(options.marginActivityUpdatesPerSec));
    if (options.keysDir !== undefined) args.push('--keys-dir', options.keysDir);
    args.push('--log-level', options.logLevel ?? 'info', ...(options.extraArgs ?? []));
    mkdirSync(dirname(options.logPath), { recursive: true, mode: 0o700 });
    const log = createWriteStream(options.logPath, { flags: 'a', mode: 0o600 });
    const launch = options.cpus === undefined || options.cpus === null ? { command: process.execPath, args } : onCpus(options.cpus, process.execPath, args);
    // detached: a process group of its own, so a terminal's Ctrl-C (SIGINT to the foreground group)
    // reaches only us; the simulator must outlive our stop's cancel-all, and stop() ends it after.
    const child = spawn(launch.command, launch.args, { cwd: options.rootDir, stdio: ['pipe', 'pipe', 'pipe'], detached: true });
    // Nothing is ever written: the pipe only tells the child we are alive. It must not hold our loop open.
    child.stdin!.on('error', () => undefined);
    (child.stdin as unknown as { unref?: () => void }).unref?.();
    child.stderr!.pipe(log);
    const exited = new Promise<SimExit>((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));
    const timeoutMs = options.readyTimeoutMs ?? 30_000;
    const ready = await new Promise<SimReady>((resolve, reject) => {
      let buffer = '';
      const timer = setTimeout(() => {
        child.kill('SIGKILL');
        reject(new SimChildError('SIM_START_TIMEOUT', `simulator printed no ready line within ${timeoutMs} ms (log: ${options.logPath})`));
      }, timeoutMs);
      const onExit = (code: number | null): void => {
        clearTimeout(timer);
        reject(new SimChildError('SIM_EXITED', `simulator exited with code ${code} before it was ready (log: ${options.logPath})`));
      };
      child.once('exit', onExit);
      child.stdout!.setEncoding('utf8');
      child.stdout!.on('data', (chunk: string) => {
        buffer += chunk;
        const newline = buffer.indexOf('\n');
        if (newline < 0) return;
        const line = buffer.slice(0, newline);
        buffer = buffer.slice(newline + 1);
        clearTimeout(timer);
        child.off('exit', onExit);
        try {
          const parsed = JSON.parse(line) as Partial<SimReady> & { event?: string };
          if (parsed.event !== 'ready' || typeof parsed.http !== 'string' || typeof parsed.ws !== 'string' || typeof parsed.keyId !== 'string' || typeof parsed.privateKeyPath !== 'string') {
            throw new Error(line);
          }
          resolve({ http: parsed.http, ws: parsed.ws, keyId: parsed.keyId, privateKeyPath: parsed.privateKeyPath, pid: parsed.pid ?? child.pid ?? -1, fix: parsed.fix ?? null, server: parsed.server ?? 'uws', serverNote: parsed.serverNote ?? null });
        } catch {
          child.kill('SIGKILL');
          reject(new SimChildError('SIM_BAD_READY_LINE', `unexpected first line from the simulator: ${line.slice(0, 200)}`));
        }
      });
    });
    // Later stdout is not expected; drain it so the pipe never fills.
    child.stdout!.resume();
    return new SimChild(child, ready, options.logPath, exited);
  }

  get pid(): number {
    return this.#child.pid ?? -1;
  }

  /** SIGTERM, then SIGKILL after `graceMs`; resolves with the exit code. */
  async stop(graceMs = 5_000): Promise<number | null> {
    if (this.#child.exitCode !== null || this.#child.signalCode !== null) return this.#child.exitCode;
    this.#stopping = true;
    this.#child.kill('SIGTERM');
    const timer = setTimeout(() => this.#child.kill('SIGKILL'), graceMs);
    const { code } = await this.#exited;
    clearTimeout(timer);
    return code;
  }
}
