/**
 * The fleet suite's runtimes, each an in-process Runtime against the simulator child, built through
 * the public config (validateConfig) as `npm start` builds them:
 *
 *   - tickToTradeRuntime: the tick-to-trade suite's runtime (strategies/tick-to-trade.ts, replace
 *     mode, presigned, Prime budgets; no worker pool), alone or with a seat in a fleet (config
 *     fleet.redisUrl);
 *   - floodRuntime: one runtime of a fleet of three on one key (the fleet tests' settings), running
 *     bench/fleet/flood-plugin.ts (the config names a strategies/ plugin, as the loader requires;
 *     the bench plugin is swapped in after validation, as test/fleet does).
 *
 * killStampLogger is the one probe: a logger whose sink calls back when the runtime's OMS logs
 * "oms: kill switch engaged", which router.killSwitch does just before gate.kill() (oms.recordKill,
 * after journaling the kill): the moment that runtime's gate is killed, without touching the gate.
 * Owns construction only; the phases start, measure and stop them.
 */

import { Writable } from 'node:stream';
import path from 'node:path';
import { loadPrivateKey } from '../../src/core/index.ts';
import { validateConfig } from '../../src/runtime/config.ts';
import { Runtime } from '../../src/runtime/runtime.ts';
import { createLogger } from '../../src/telemetry/index.ts';
import type { Logger } from '../../src/telemetry/index.ts';
import type { BenchChild } from '../child-process.ts';
import { REPO_DIR } from '../child-process.ts';

/** The tick-to-trade suite's market; the simulator child lists only it. */
export const TICKER = 'KXDEMO-26DEC31-T50';
const FLOOD_PLUGIN = 'bench/fleet/flood-plugin.ts';
/** The kill line the OMS logs just before gate.kill() (src/oms/oms.ts recordKill). */
const KILL_LINE = 'oms: kill switch engaged';

export interface ApiKey {
  keyId: string;
  privateKeyPem: string;
}

export interface FleetSeat {
  redisUrl: string;
  runtimeName: string;
  /** null: the config defaults (leaseTtlMs 2,000, renewMs 250). */
  leaseTtlMs: number | null;
  renewMs: number | null;
}

/** A fresh key of `tier` owned by `userId` (a UUID), from the simulator child. */
export async function newKey(sim: BenchChild, tier: 'basic' | 'prime', userId: string): Promise<ApiKey> {
  const reply = await sim.command({ cmd: 'key', tier, userId });
  return { keyId: String(reply.keyId), privateKeyPem: String(reply.privateKeyPem) };
}

function fleetBlock(seat: FleetSeat | null): Record<string, unknown> {
  if (seat === null) return {};
  const timing = { ...(seat.leaseTtlMs === null ? {} : { leaseTtlMs: seat.leaseTtlMs }), ...(seat.renewMs === null ? {} : { renewMs: seat.renewMs }) };
  return { fleet: { redisUrl: seat.redisUrl, runtimeName: seat.runtimeName, ...timing } };
}

function venueOf(sim: BenchChild, key: ApiKey): { restUrl: string; wsUrl: string; keyId: string; privateKey: ReturnType<typeof loadPrivateKey> } {
  return { restUrl: `${String(sim.ready.http)}/trade-api/v2`, wsUrl: String(sim.ready.ws), keyId: key.keyId, privateKey: loadPrivateKey(key.privateKeyPem) };
}

/** BENCH_FLEET_LOG=info (or debug, warn): the runtimes' logs on stderr, to see why a phase misses. */
function quietLogger(): Logger {
  const level = process.env.BENCH_FLEET_LOG ?? 'silent';
  return createLogger({ level, pretty: false, destination: process.stderr });
}

/** The tick-to-trade suite's runtime (bench/tick-to-trade/suite.ts, replace mode), with a fleet seat or alone. */
export function tickToTradeRuntime(sim: BenchChild, key: ApiKey, seat: FleetSeat | null, journalPath: string): Runtime {
  const config = validateConfig(
    {
      risk: { rateLimitTier: 'prime', maxOrderCount: '10.00' },
      // Worker nice 0, not the default 19 (as bench/scale): on this shared machine (load average ~10
      // on 2 CPUs while it was written) a nice-19 signing thread took ~5 s to fill its rings at start.
      exec: { signing: 'presigned', connections: 4, presignWorkerNice: 0 },
      // No worker pool (candles, portfolio risk), as the flood runtimes: the pair differs only in the
      // fleet seat, start-up takes ~0.2 s instead of ~2 s (workers load their modules), and two
      // fewer threads compete for this 2-CPU machine while measuring.
      workers: { enabled: false },
      ...fleetBlock(seat),
      strategies: [{ id: 't2t', plugin: 'strategies/tick-to-trade.ts', subaccount: 0, markets: [TICKER], params: { mode: 'replace', offsetTicks: 10, size: '1.00' } }],
    },
    '<bench fleet tick-to-trade>',
    {},
  );
  return new Runtime({ config, venue: venueOf(sim, key), rootDir: REPO_DIR, journalPath, logger: quietLogger() });
}

export interface FloodOptions {
  /** null: no fleet (the runtime spends as if it had the key's whole budget). */
  seat: FleetSeat | null;
  subaccount: number;
  /** Distinct per runtime of a run: the client order id prefix ([A-Za-z0-9_]). */
  tag: string;
  params: Record<string, unknown>;
  journalPath: string;
  logger: Logger | null;
}

/** One runtime of a three-runtime fleet on one key (test/fleet's settings), running the flood plugin. */
export function floodRuntime(sim: BenchChild, key: ApiKey, options: FloodOptions): Runtime {
  const config = validateConfig(
    {
      risk: { rateLimitTier: 'auto' },
      // One connection: keep-warm GETs (2 a beat) are outside the read lease (README: fleet).
      exec: { requestTimeoutMs: 1_000, signing: 'inline', connections: 1 },
      feed: { reconnectBackoffMinMs: 50, reconnectBackoffMaxMs: 200 },
      workers: { enabled: false },
      ...fleetBlock(options.seat),
      strategies: [{ id: `flood-${options.tag}`, plugin: 'strategies/join-best-bid.ts', subaccount: options.subaccount, orderGroup: null, markets: [TICKER], params: {} }],
    },
    '<bench fleet flood>',
    {},
  );
  return new Runtime({
    config,
    venue: venueOf(sim, key),
    rootDir: REPO_DIR,
    journalPath: options.journalPath,
    logger: options.logger ?? quietLogger(),
    strategies: config.strategies.map((entry) => ({ ...entry, plugin: FLOOD_PLUGIN, params: { ticker: TICKER, ...options.params } })),
    clientOrderIdPrefix: options.tag,
    startTimeoutMs: 10_000,
    drainTimeoutMs: 3_000,
  });
}

/**
 * A logger at level error (BENCH_FLEET_LOG lower, to see more) whose sink calls `onKill` inside the
 * OMS's kill line, synchronously (Writable calls _write in write() when idle), so the stamp is
 * taken just before that runtime's gate.kill().
 */
export function killStampLogger(onKill: () => void): Logger {
  const forward = process.env.BENCH_FLEET_LOG !== undefined;
  const sink = new Writable({
    decodeStrings: false,
    write(chunk: string | Buffer, _encoding, done) {
      const text = typeof chunk === 'string' ? chunk : chunk.toString('utf8');
      if (text.includes(KILL_LINE)) onKill();
      if (forward) process.stderr.write(text);
      done();
    },
  });
  const wanted = process.env.BENCH_FLEET_LOG;
  // Never above error: the kill line is an error line.
  const level = wanted === undefined || wanted === 'silent' || wanted === 'fatal' ? 'error' : wanted;
  return createLogger({ level, pretty: false, destination: sink });
}

export function journalIn(work: string, name: string): string {
  return path.join(work, name, 'journal.jsonl');
}
