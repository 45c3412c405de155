/**
 * Kill switch propagation across three runtimes of one fleet, all in this process: runtime e (in
 * turn) engages its kill switch (Runtime.engageKillSwitch: journal, halt, cancel-all, then
 * fleet.publishKill: SET + PUBLISH fleet:kill), and each of the other two is stamped when its OMS
 * logs the kill just before its gate.kill() (fleet-runtime.ts killStampLogger). Samples: call ->
 * each other runtime killed, and call -> the later of the two. Between repetitions the switch is
 * released as the fleet CLI does (`npm run fleet -- release`: publishKillRecord with engaged
 * false), and every runtime's gate is seen released. Each change is followed by a pause of two
 * renewal periods and more: a renewal answer carries the stored record, and one sent before a
 * change but read after it would carry the previous record; kills are rare, and the pause keeps
 * that race out of what is measured (any gate flipping on its own is counted as an anomaly).
 *
 * The floor beside it: a bare Redis PUBLISH from this process to two subscriber connections in
 * this process, publish call -> each message handler. All runtimes share this process's one event
 * loop, so the second receiver waits for the first; separate processes would take them in parallel.
 * Every loop is bounded in count and time.
 */

import type { Redis } from 'ioredis';
import { connectFleetRedis, killRecord, openFleetRedis, publishKillRecord } from '../../src/fleet/index.ts';
import type { Runtime } from '../../src/runtime/runtime.ts';
import { createHistogram, nowNs, recordNs } from '../harness.ts';
import type { Histogram } from '../harness.ts';
import type { Logger } from '../../src/telemetry/index.ts';
import { killStampLogger } from './fleet-runtime.ts';

export interface KillPhase {
  reps: number;
  /** The phase stops starting repetitions after this long. */
  boundMs: number;
  /** Pause after each change (kill, release): at least two renewal periods. */
  gapMs: number;
}

export interface KillResult {
  /** Call -> engageKillSwitch returned: the local kill path ran and the record went to Redis (publishKill writes it at once). */
  local: Histogram;
  /** Call -> each other runtime's gate killed (two samples a repetition). */
  each: Histogram;
  /** Call -> the later of the two. */
  both: Histogram;
  reps: number;
  /** Repetitions where another runtime was not killed within the bound. */
  missed: number;
  /** A gate that flipped (released or killed) with no change published since. */
  anomalies: number;
}

/** Stamps of one fleet's runtimes: killedNs[i] is when runtime i's OMS logged the kill (0: not yet). */
export class KillStamps {
  readonly killedNs: Float64Array;
  readonly loggers: Logger[];

  constructor(runtimes: number) {
    this.killedNs = new Float64Array(runtimes);
    this.loggers = Array.from({ length: runtimes }, (_, index) => killStampLogger(() => {
      if (this.killedNs[index] === 0) this.killedNs[index] = nowNs();
    }));
  }
}

const WAIT_BOUND_MS = 3_000;
const pause = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** Polls `done` every ms until true or `boundMs` passed; returns whether it became true. */
async function waitUntil(done: () => boolean, boundMs: number): Promise<boolean> {
  const deadline = performance.now() + boundMs;
  while (!done()) {
    if (performance.now() > deadline) return false;
    await pause(1);
  }
  return true;
}

/** An admin connection as the fleet CLI opens it (src/fleet/fleet-main.ts). */
export async function openAdmin(redisUrl: string, commandTimeoutMs: number): Promise<Redis> {
  const redis = openFleetRedis(redisUrl, { commandTimeoutMs, connectTimeoutMs: 2_000, reconnectMaxMs: 500, onError: () => {} });
  if (!(await connectFleetRedis(redis))) {
    redis.disconnect();
    throw new Error(`bench fleet: Redis at ${redisUrl} is unreachable`);
  }
  return redis;
}

export async function killPropagation(runtimes: readonly Runtime[], stamps: KillStamps, admin: Redis, phase: KillPhase): Promise<KillResult> {
  const result: KillResult = { local: createHistogram(), each: createHistogram(), both: createHistogram(), reps: 0, missed: 0, anomalies: 0 };
  const deadline = performance.now() + phase.boundMs;
  for (let rep = 0; rep < phase.reps && performance.now() < deadline; rep++) {
    const engager = rep % runtimes.length;
    const others = runtimes.map((_, index) => index).filter((index) => index !== engager);
    stamps.killedNs.fill(0);
    const calledNs = nowNs();
    const engaged = runtimes[engager]!.engageKillSwitch('bench: kill switch propagation', 'operator');
    recordNs(result.local, nowNs() - calledNs);
    const heard = await waitUntil(() => others.every((index) => stamps.killedNs[index] !== 0), WAIT_BOUND_MS);
    result.reps++;
    if (!heard) result.missed++;
    let latestNs = 0;
    for (const index of others) {
      const killedNs = stamps.killedNs[index]!;
      if (killedNs === 0) continue;
      recordNs(result.each, killedNs - calledNs);
      latestNs = Math.max(latestNs, killedNs);
    }
    if (heard) recordNs(result.both, latestNs - calledNs);
    await Promise.race([engaged.catch(() => undefined), pause(WAIT_BOUND_MS)]); // its cancel-all answered
    await pause(phase.gapMs);
    if (!runtimes.every((runtime) => runtime.gate.killed)) result.anomalies++;
    await publishKillRecord(admin, killRecord(false, 'bench: release', 'bench (fleet CLI release path)', Date.now()));
    if (!(await waitUntil(() => runtimes.every((runtime) => !runtime.gate.killed), WAIT_BOUND_MS))) result.anomalies++;
    await pause(phase.gapMs);
    if (runtimes.some((runtime) => runtime.gate.killed)) result.anomalies++;
  }
  return result;
}

/** Redis PUBLISH -> two subscriber connections in this process, `reps` times (bounded like the kill phase). */
export async function pubSubFloor(redisUrl: string, reps: number, boundMs: number): Promise<{ each: Histogram; missed: number }> {
  const publisher = await openAdmin(redisUrl, 2_000);
  const subscribers: Redis[] = [];
  const each = createHistogram();
  const receivedNs = new Float64Array(2);
  let missed = 0;
  try {
    for (let index = 0; index < 2; index++) {
      const subscriber = await openAdmin(redisUrl, 0);
      subscribers.push(subscriber);
      subscriber.on('message', () => {
        if (receivedNs[index] === 0) receivedNs[index] = nowNs();
      });
      await subscriber.subscribe('bench:fleet-floor');
    }
    // A kill record's size, so the floor carries the same bytes.
    const payload = JSON.stringify(killRecord(true, 'bench: kill switch propagation', 'runtime bench-kill-1 (operator)', Date.now()));
    const deadline = performance.now() + boundMs;
    for (let rep = 0; rep < reps && performance.now() < deadline; rep++) {
      receivedNs.fill(0);
      const sentNs = nowNs();
      await publisher.publish('bench:fleet-floor', payload);
      if (!(await waitUntil(() => receivedNs[0] !== 0 && receivedNs[1] !== 0, WAIT_BOUND_MS))) missed++;
      for (const at of receivedNs) if (at !== 0) recordNs(each, at - sentNs);
      await pause(5);
    }
  } finally {
    for (const subscriber of subscribers) subscriber.disconnect();
    publisher.disconnect();
  }
  return { each, missed };
}
