/**
 * Goal: CPU placement reads the allowed CPUs, splits them (runtime first, simulator the rest),
 * refuses with fewer than two, and really moves threads: a simulator-like child started through
 * onCpus runs only on its CPUs, and pinThread narrows one thread's affinity; OtherThreadsPlacement
 * moves every thread of the process but the event loop (a worker started later included) and
 * leaves the event loop's CPUs alone.
 * Method: parsing on fixed /proc texts; real taskset and /proc/<pid>/status on this machine (on a
 * machine that cannot place - not Linux, one CPU, no taskset - the last test checks the reason).
 */

import { execFileSync, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { Worker } from 'node:worker_threads';
import {
  OtherThreadsPlacement, allowedCpus, onCpus, otherCpus, parseCpuList, pinEventLoop, pinThread, placementForThisMachine, planPlacement, threadIds,
} from '../../src/runtime/cpu-placement.ts';

const STATUS = 'Name:\tnode\nCpus_allowed:\t3\nCpus_allowed_list:\t0-1\nMems_allowed_list:\t0\n';

describe('cpu placement', () => {
  it('parses CPU lists and the allowed list of /proc/self/status', () => {
    expect(parseCpuList('0-2,5')).toEqual([0, 1, 2, 5]);
    expect(parseCpuList('3')).toEqual([3]);
    expect(parseCpuList('2-1')).toBeNull();
    expect(parseCpuList('a')).toBeNull();
    expect(allowedCpus(STATUS)).toEqual([0, 1]);
    expect(allowedCpus('Name:\tnode\n')).toBeNull();
    expect(allowedCpus(null)).toBeNull();
  });

  it('puts the runtime on the first CPU and the simulator on the others; none with one CPU', () => {
    expect(planPlacement([0, 1])).toEqual({ runtimeCpus: '0', simCpus: '1' });
    expect(planPlacement([2, 3, 4, 7])).toEqual({ runtimeCpus: '2', simCpus: '3,4,7' });
    expect(planPlacement([0])).toBeNull();
    expect(planPlacement(null)).toBeNull();
    expect(onCpus('1', '/usr/bin/node', ['a.js'])).toEqual({ command: 'taskset', args: ['-c', '1', '/usr/bin/node', 'a.js'] });
  });

  it('on this machine: runs a child on the simulator CPUs and pins one thread, or says why it cannot', async () => {
    const { plan, reason } = placementForThisMachine();
    if (plan === null) {
      expect(reason).toMatch(/Linux-only|two allowed CPUs|taskset/);
      return;
    }
    const launch = onCpus(plan.simCpus, process.execPath, ['-e', "process.stdout.write(require('fs').readFileSync('/proc/self/status','utf8'))"]);
    const child = spawn(launch.command, launch.args, { stdio: ['ignore', 'pipe', 'inherit'] });
    let text = '';
    child.stdout!.on('data', (chunk: Buffer) => (text += chunk.toString()));
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error('child did not exit within 10 s')), 10_000);
      child.once('exit', () => {
        clearTimeout(timer);
        resolve();
      });
    });
    expect(allowedCpus(text)).toEqual(parseCpuList(plan.simCpus));

    // A sleeping child's main thread, pinned to the runtime CPU.
    const sleeper = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 10000)'], { stdio: 'ignore' });
    try {
      expect(pinThread(sleeper.pid!, plan.runtimeCpus)).toBeNull();
      const status = readFileSync(`/proc/${sleeper.pid}/status`, 'utf8');
      expect(allowedCpus(status)).toEqual(parseCpuList(plan.runtimeCpus));
      expect(pinThread(999_999_999, plan.runtimeCpus)).toMatch(/taskset -p -c/);
    } finally {
      sleeper.kill('SIGKILL');
    }
    expect(execFileSync('taskset', ['--version']).toString()).toMatch(/taskset/);

    // This process's own event loop, pinned and given back.
    const before = allowedCpus();
    const unpin = pinEventLoop(plan.runtimeCpus);
    try {
      expect(allowedCpus()).toEqual(parseCpuList(plan.runtimeCpus));
    } finally {
      unpin();
    }
    expect(allowedCpus()).toEqual(before);
  });

  it('on this machine: moves every thread but the event loop to the other CPUs, a worker started later too', async () => {
    const { plan, reason } = placementForThisMachine();
    if (plan === null) {
      expect(reason).toMatch(/Linux-only|two allowed CPUs|taskset/);
      return;
    }
    const all = allowedCpus()!;
    expect(otherCpus(plan.runtimeCpus)).toBe(plan.simCpus);
    const threadCpus = (tid: number): number[] | null => allowedCpus(readFileSync(`/proc/self/task/${tid}/status`, 'utf8'));
    const placement = new OtherThreadsPlacement(plan.simCpus, 0);
    let worker: Worker | null = null;
    try {
      const pinned = await placement.start();
      const others = threadIds().filter((tid) => tid !== process.pid);
      expect(pinned).toBeGreaterThan(0);
      for (const tid of others) expect(threadCpus(tid)).toEqual(parseCpuList(plan.simCpus));
      expect(threadCpus(process.pid)).toEqual(all); // the event loop keeps its CPUs
      // A thread started later is moved by the next sweep, once.
      worker = new Worker('setInterval(() => {}, 1000)', { eval: true });
      await new Promise((resolve) => worker!.once('online', resolve));
      const added = threadIds().filter((tid) => !others.includes(tid) && tid !== process.pid);
      expect(added.length).toBeGreaterThan(0);
      expect(await placement.sweep()).toBe(added.length);
      for (const tid of added) expect(threadCpus(tid)).toEqual(parseCpuList(plan.simCpus));
      expect(await placement.sweep()).toBe(0);
    } finally {
      placement.stop();
      await worker?.terminate();
      for (const tid of threadIds()) pinThread(tid, all.join(','));
    }
  });
});
