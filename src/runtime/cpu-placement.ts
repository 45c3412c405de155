/**
 * CPU placement of the runtime's event loop and the embedded simulator, when they share a machine.
 *
 * Why: a write to a loopback socket wakes its reader with a synchronous wake-up, and Linux then
 * prefers the writer's CPU for the reader. Seen with `perf sched` on the 2-core development
 * machine: after each order write the simulator was put on the runtime's CPU and preempted it for
 * its whole request (~0.6 ms) before the runtime's `socket.write` returned. A real venue is on
 * another machine and never takes our CPU, so the main job and the benches keep them apart: the
 * runtime's event-loop thread on the first allowed CPU, the simulator process on the others.
 * The event-loop thread is pinned (affinity is per thread on Linux), and the process's other
 * threads (worker threads, V8's compiler and GC helpers, libuv's pool) are kept on the other CPUs
 * (OtherThreadsPlacement): at 5,000 markets, with the simulator on the second CPU, those helpers
 * were scheduled on the event loop's CPU and took it for whole time slices, so a 1 ms turn of
 * frames often ended 3-15 ms later (loop delay p99 about 7 ms at Basic; 2.4 ms with them off it).
 *
 * How: `taskset` (util-linux), since Node has no affinity call. Linux only; anywhere else, with
 * fewer than two allowed CPUs or without taskset, placement is skipped and says why.
 * Owns: reading the allowed CPUs and running taskset. Never: changes priorities.
 */

import { execFile, execFileSync } from 'node:child_process';
import { readFileSync, readdirSync } from 'node:fs';

export interface CpuPlan {
  /** CPU list (taskset syntax) for the runtime's event-loop thread. */
  runtimeCpus: string;
  /** CPU list for the simulator process. */
  simCpus: string;
}

/** CPUs this process may run on, from /proc/self/status (Cpus_allowed_list); null when unknown. */
export function allowedCpus(statusText: string | null = readStatus()): number[] | null {
  if (statusText === null) return null;
  const line = statusText.split('\n').find((entry) => entry.startsWith('Cpus_allowed_list:'));
  if (line === undefined) return null;
  return parseCpuList(line.slice('Cpus_allowed_list:'.length).trim());
}

/** "0-2,5" -> [0, 1, 2, 5]; null when malformed. */
export function parseCpuList(text: string): number[] | null {
  const cpus: number[] = [];
  for (const part of text.split(',')) {
    const match = /^(\d+)(?:-(\d+))?$/.exec(part.trim());
    if (match === null) return null;
    const first = Number(match[1]);
    const last = match[2] === undefined ? first : Number(match[2]);
    if (last < first || last - first > 4096) return null;
    for (let cpu = first; cpu <= last; cpu++) cpus.push(cpu);
  }
  return cpus.length === 0 ? null : cpus;
}

/** The runtime on the first allowed CPU, the simulator on the rest; null with fewer than two. */
export function planPlacement(cpus: readonly number[] | null): CpuPlan | null {
  if (cpus === null || cpus.length < 2) return null;
  return { runtimeCpus: String(cpus[0]), simCpus: cpus.slice(1).join(',') };
}

/** Whether `taskset` can be run here. */
export function tasksetAvailable(): boolean {
  try {
    execFileSync('taskset', ['--version'], { stdio: 'ignore', timeout: 2_000 });
    return true;
  } catch {
    return false;
  }
}

/**
 * The plan for this machine, or why there is none (not Linux, one CPU, no taskset).
 */
export function placementForThisMachine(): { plan: CpuPlan | null; reason: string } {
  if (process.platform !== 'linux') return { plan: null, reason: `CPU placement is Linux-only (platform ${process.platform})` };
  const cpus = allowedCpus();
  const plan = planPlacement(cpus);
  if (plan === null) return { plan: null, reason: `CPU placement needs two allowed CPUs (allowed: ${cpus === null ? 'unknown' : cpus.join(',')})` };
  if (!tasksetAvailable()) return { plan: null, reason: 'CPU placement needs taskset (util-linux), which is not installed' };
  return { plan, reason: `runtime event loop on CPU ${plan.runtimeCpus}, simulator on CPU ${plan.simCpus}` };
}

/** taskset's arguments that pin one thread to `cpus` (pinThread at once, OtherThreadsPlacement in the background). */
function pinArgs(cpus: string, threadId: number): string[] {
  return ['-p', '-c', cpus, String(threadId)];
}

/** Pins one thread (a pid names its main thread) to `cpus`; returns an error text or null. */
export function pinThread(threadId: number, cpus: string): string | null {
  try {
    execFileSync('taskset', pinArgs(cpus, threadId), { stdio: 'ignore', timeout: 2_000 });
    return null;
  } catch (error) {
    return `taskset -p -c ${cpus} ${threadId} failed: ${(error as Error).message}`;
  }
}

/**
 * Pins this process's event-loop thread to `cpus` and returns the function that gives it back the
 * CPUs it was allowed before (benches that pin only while they measure). Throws when taskset fails.
 */
export function pinEventLoop(cpus: string): () => void {
  const before = allowedCpus();
  const failure = pinThread(process.pid, cpus);
  if (failure !== null) throw new Error(failure);
  return () => {
    if (before !== null) pinThread(process.pid, before.join(','));
  };
}

/** The allowed CPUs not in `cpus` (a taskset list), as a list; null when none or unknown. Read before pinning the event loop: the allowed list is its thread's. */
export function otherCpus(cpus: string): string | null {
  const taken = new Set(parseCpuList(cpus) ?? []);
  const rest = (allowedCpus() ?? []).filter((cpu) => !taken.has(cpu));
  return rest.length === 0 ? null : rest.join(',');
}

/** This process's thread ids (/proc/self/task); empty when unreadable. */
export function threadIds(): number[] {
  try {
    return readdirSync('/proc/self/task').map(Number).filter((tid) => Number.isInteger(tid) && tid > 0);
  } catch {
    return [];
  }
}

/**
 * Keeps every thread of this process but the event loop on `cpus` (the CPUs the event loop is not
 * on): at start(), then every `everyMs` for threads started since (a new worker, a V8 helper).
 * taskset runs asynchronously, one thread at a time, so the event loop never waits for it; a
 * thread that exited meanwhile is skipped. Linux only, as the rest of this file.
 */
export class OtherThreadsPlacement {
  readonly #cpus: string;
  readonly #everyMs: number;
  readonly #pinned = new Set<number>();
  #timer: NodeJS.Timeout | null = null;
  #sweeping: Promise<number> | null = null;
  /** Threads pinned so far, and taskset failures (exited threads included). */
  pinned = 0;
  failures = 0;

  constructor(cpus: string, everyMs = 10_000) {
    this.#cpus = cpus;
    this.#everyMs = everyMs;
  }

  /** Pins the threads there are now (resolves with how many were pinned) and looks again every `everyMs`. */
  start(): Promise<number> {
    if (this.#timer === null && this.#everyMs > 0) {
      this.#timer = setInterval(() => void this.sweep(), this.#everyMs);
      this.#timer.unref();
    }
    return this.sweep();
  }

  stop(): void {
    if (this.#timer !== null) clearInterval(this.#timer);
    this.#timer = null;
  }

  /** Pins the threads not pinned yet; one sweep at a time (a second call joins the running one). */
  sweep(): Promise<number> {
    this.#sweeping ??= this.#sweepOnce().finally(() => {
      this.#sweeping = null;
    });
    return this.#sweeping;
  }

  async #sweepOnce(): Promise<number> {
    let count = 0;
    for (const tid of threadIds()) {
      if (tid === process.pid || this.#pinned.has(tid)) continue;
      this.#pinned.add(tid);
      const ok = await new Promise<boolean>((resolve) => {
        execFile('taskset', pinArgs(this.#cpus, tid), { timeout: 2_000 }, (error) => resolve(error === null));
      });
      if (ok) count++;
      else this.failures++;
    }
    this.pinned += count;
    return count;
  }
}

/** The command that runs `command args` on `cpus` (taskset -c), for spawning the simulator. */
export function onCpus(cpus: string, command: string, args: readonly string[]): { command: string; args: string[] } {
  return { command: 'taskset', args: ['-c', cpus, command, ...args] };
}

function readStatus(): string | null {
  try {
    return readFileSync('/proc/self/status', 'utf8');
  } catch {
    return null;
  }
}
