// One runtime of a test fleet: a Runtime against the test simulator with fleet.redisUrl set, on a
// given key and subaccount, running a test plugin on MARKET (the config names a strategies/ plugin,
// as the loader requires; the test's own plugin is swapped in after validation).
import { join } from 'node:path';
import type { KeyObject } from 'node:crypto';
import { validateConfig } from '../../src/runtime/config.ts';
import { Runtime } from '../../src/runtime/runtime.ts';
import { createLogger } from '../../src/telemetry/index.ts';
import type { TestSim } from '../integration/helpers.ts';
import { MARKET, ROOT_DIR } from '../integration/helpers.ts';

export interface FleetRuntimeOptions {
  key: { keyId: string; privateKey: KeyObject };
  name: string;
  subaccount: number;
  /** The test plugin's path from the project root (test/fleet/...). */
  plugin: string;
  /** Risk settings beside rateLimitTier "auto". */
  risk?: Record<string, unknown>;
  redisUrl: string;
  leaseTtlMs: number;
  renewMs: number;
  /** Distinct per runtime built in a test file: journal folder and client order id prefix. */
  tag: string;
}

export function fleetRuntime(sim: TestSim, options: FleetRuntimeOptions): Runtime {
  const config = validateConfig(
    {
      risk: { rateLimitTier: 'auto', ...options.risk },
      // One connection: keep-warm GETs (2 a beat) are outside the read lease (README: fleet).
      exec: { requestTimeoutMs: 1_000, signing: 'inline', connections: 1 },
      feed: { reconnectBackoffMinMs: 50, reconnectBackoffMaxMs: 200 },
      workers: { enabled: false },
      fleet: { redisUrl: options.redisUrl, runtimeName: options.name, leaseTtlMs: options.leaseTtlMs, renewMs: options.renewMs },
      strategies: [{ id: `${options.tag}-${options.name}`, plugin: 'strategies/join-best-bid.ts', subaccount: options.subaccount, orderGroup: null, markets: [MARKET], params: {} }],
    },
    '<fleet test>',
    {},
  );
  return new Runtime({
    config,
    venue: { restUrl: `${sim.httpUrl}/trade-api/v2`, wsUrl: sim.wsUrl, keyId: options.key.keyId, privateKey: options.key.privateKey },
    rootDir: ROOT_DIR,
    journalPath: join(sim.workDir, options.tag, 'journal.jsonl'),
    logger: createLogger({ level: process.env.INTEGRATION_LOG_LEVEL ?? 'silent', pretty: false }),
    strategies: config.strategies.map((entry) => ({ ...entry, plugin: options.plugin, params: { ticker: MARKET } })),
    clientOrderIdPrefix: options.tag,
    startTimeoutMs: 5_000,
    drainTimeoutMs: 3_000,
    pendingTimeoutMs: 2_000,
    unknownGraceMs: 3_000,
    reconcileIntervalMs: 500,
  });
}
