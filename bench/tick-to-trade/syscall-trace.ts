/**
 * The machine's part of the exec hop, from the kernel's own records: `perf trace` on the runtime's
 * and the simulator's processes while orders flow, then each order request's write system call
 * paired with the simulator's read that returned its bytes. Gives, per order request:
 *   - the write call's time in the kernel (syscall entry -> return, the runtime's thread);
 *   - the other side's wake: our write's entry -> the simulator's read returned (loopback
 *     delivery, the simulator's thread woken and scheduled, its read).
 * Pairing: a runtime write of at least `minBytes` (an order request, not a WebSocket control
 * frame) matches the earliest unmatched simulator read that returned the same byte count after
 * the write began, within 50 ms. Where perf is missing or not permitted, start() says why and the
 * caller reports no rows. Owns the tracer process and the parsing; measures nothing else.
 */

import { spawn, spawnSync } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { readFileSync, readdirSync } from 'node:fs';
import { createHistogram, recordNs } from '../harness.ts';
import type { Histogram } from '../harness.ts';

const WRITES = new Set(['write', 'writev', 'sendto', 'sendmsg']);
const READS = new Set(['read', 'readv', 'recvfrom', 'recvmsg']);
const PAIR_WINDOW_NS = 50_000_000;
// "   12.345 ( 0.004 ms): node/1234 write(fd: 23, buf: 0x..., count: 812)   = 812"
const LINE = /^\s*([\d.]+) \(\s*([\d.]+) ms\): [^/]*\/(\d+) (\w+)\(.*\)\s+= (-?\d+)/;

interface Call {
  startNs: number;
  durationNs: number;
  tid: number;
  bytes: number;
}

export interface SyscallBreakdown {
  /** Order-request writes seen on the runtime's threads, and those paired with a simulator read. */
  writes: number;
  paired: number;
  kernelWrite: Histogram;
  wake: Histogram;
}

export class SyscallTrace {
  readonly #child: ChildProcess;
  readonly #file: string;

  private constructor(child: ChildProcess, file: string) {
    this.#child = child;
    this.#file = file;
  }

  /** perf trace on both processes' threads (`cpus`: where the tracer itself runs, null: anywhere); null with the reason when perf cannot. */
  static async start(runtimePid: number, simPid: number, file: string, cpus: string | null): Promise<SyscallTrace | string> {
    const probe = spawnSync('perf', ['trace', '--duration', '0', '-e', 'write', '--', 'true'], { encoding: 'utf8', timeout: 10_000 });
    if (probe.error !== undefined || probe.status !== 0) return `perf trace unavailable (${probe.error?.message ?? probe.stderr.trim().split('\n')[0]})`;
    const args = ['trace', '-p', `${runtimePid},${simPid}`, '-e', [...WRITES, ...READS].join(','), '--duration', '0', '-o', file];
    const child = cpus === null ? spawn('perf', args, { stdio: 'ignore' }) : spawn('taskset', ['-c', cpus, 'perf', ...args], { stdio: 'ignore' });
    await new Promise((resolve) => setTimeout(resolve, 1_500)); // attached to every thread
    if (child.exitCode !== null) return `perf trace exited at start (code ${child.exitCode})`;
    return new SyscallTrace(child, file);
  }

  /** Stops the tracer and pairs the runtime's order writes (on `runtimeTid`) with the reads of the simulator's threads (read before it stops). */
  async stop(runtimeTid: number, simPid: number, minBytes: number): Promise<SyscallBreakdown> {
    const exited = new Promise((resolve) => this.#child.once('exit', resolve));
    this.#child.kill('SIGINT');
    await Promise.race([exited, new Promise((resolve) => setTimeout(resolve, 10_000))]);
    const simThreads = new Set(readdirSync(`/proc/${simPid}/task`).map(Number));
    return pairOrderWrites(readFileSync(this.#file, 'utf8'), runtimeTid, simThreads, minBytes);
  }
}

/**
 * perf trace's text, paired: each write of at least `minBytes` on `runtimeTid` with the earliest
 * unmatched read of the same size on one of `simThreads` that returned after the write began
 * (within 50 ms). Lines that are not whole system calls (continued, summaries) are skipped.
 */
export function pairOrderWrites(text: string, runtimeTid: number, simThreads: ReadonlySet<number>, minBytes: number): SyscallBreakdown {
  const writes: Call[] = [];
  const reads: Call[] = [];
  for (const line of text.split('\n')) {
    const match = LINE.exec(line);
    if (match === null) continue;
    const call: Call = { startNs: Math.round(Number(match[1]) * 1e6), durationNs: Math.round(Number(match[2]) * 1e6), tid: Number(match[3]), bytes: Number(match[5]) };
    if (WRITES.has(match[4]!) && call.tid === runtimeTid && call.bytes >= minBytes) writes.push(call);
    else if (READS.has(match[4]!) && simThreads.has(call.tid) && call.bytes > 0) reads.push(call);
  }
  // perf prints a call when it returns, stamped at its entry: order writes by entry, reads by return.
  writes.sort((a, b) => a.startNs - b.startNs);
  reads.sort((a, b) => a.startNs + a.durationNs - (b.startNs + b.durationNs));
  const kernelWrite = createHistogram();
  const wake = createHistogram();
  const taken = new Uint8Array(reads.length);
  let from = 0;
  let paired = 0;
  for (const write of writes) {
    recordNs(kernelWrite, write.durationNs);
    while (from < reads.length && reads[from]!.startNs + reads[from]!.durationNs < write.startNs) from++;
    for (let i = from; i < reads.length; i++) {
      const read = reads[i]!;
      const endNs = read.startNs + read.durationNs;
      if (endNs - write.startNs > PAIR_WINDOW_NS) break;
      if (taken[i] === 1 || read.bytes !== write.bytes) continue;
      taken[i] = 1;
      recordNs(wake, endNs - write.startNs);
      paired++;
      break;
    }
  }
  return { writes: writes.length, paired, kernelWrite, wake };
}
