// Test helper (not a test): an in-process simulator on 127.0.0.1 port 0 built like startSim but
// keeping its SimServices, so tests reach the Margin engine (reference price) and the clearing
// credential store; a manual clock drives funding. Keys are made in memory.

import { pino } from 'pino';
import { asCenticents, ManualClock } from '../../../src/core/index.ts';
import { ApiKeyStore, Authenticator, DEFAULT_TIMESTAMP_WINDOW } from '../../../src/sim/auth/index.ts';
import { loadCatalog, SimEngine } from '../../../src/sim/engine/index.ts';
import { FaultController } from '../../../src/sim/faults/index.ts';
import { SimHistory } from '../../../src/sim/history/index.ts';
import { loadMarginCatalog, MarginEngine, parseMarginCatalog } from '../../../src/sim/margin/index.ts';
import { RateLimiter } from '../../../src/sim/rate-limit/index.ts';
import { SimServer } from '../../../src/sim/server/sim-server.ts';
import { SimServices } from '../../../src/sim/server/services.ts';
import { RestClient } from '../helpers/clients.ts';

/** 2026-01-01T00:00:00Z: a whole hour, so hourly funding falls at +1 h. */
export const START_MS = Date.UTC(2026, 0, 1);

export interface MarginSim {
  services: SimServices;
  margin: MarginEngine;
  clock: ManualClock;
  httpUrl: string;
  /** A signed client for a new user with full scopes. */
  user(name: string): RestClient;
  /** The key pair of a user made by `user` (WebSocket handshakes). */
  key(name: string): { keyId: string; privateKeyPem: string };
  server: SimServer;
  wsUrl: string;
  close(): void;
}

export async function startMarginSim(options: { fundingDollars?: number; catalog?: unknown; terminalTriggersRetained?: number } = {}): Promise<MarginSim> {
  const clock = new ManualClock(START_MS);
  const now = (): number => clock.nowMs();
  const logger = pino({ level: 'silent' });
  const engine = new SimEngine({ now, seed: 1, catalog: loadCatalog('config/markets.json'), options: {} });
  const keys = new ApiKeyStore('basic');
  const marginCatalog = options.catalog === undefined ? loadMarginCatalog('config/margin-markets.json') : parseMarginCatalog(options.catalog);
  const margin = new MarginEngine({ catalog: marginCatalog, now, seed: 1, terminalTriggersRetained: options.terminalTriggersRetained });
  const services = new SimServices({
    engine,
    keys,
    // Requests are signed with the real time; the window must not depend on the manual clock.
    authenticator: new Authenticator(keys, () => Date.now(), DEFAULT_TIMESTAMP_WINDOW),
    rateLimiter: new RateLimiter({ now, enabled: false }),
    faults: new FaultController(1, 'none'),
    now,
    logger,
    fundingPerSubaccount: asCenticents((options.fundingDollars ?? 1_000_000) * 10_000),
    maxBodyBytes: 1024 * 1024,
    history: new SimHistory(engine),
    margin,
  });
  const server = new SimServer(services, { host: '127.0.0.1', port: 0, wsBufferLimitBytes: 1 << 24, pingIntervalMs: 10_000, maxWsPayloadBytes: 1 << 20 });
  const port = await server.listen('127.0.0.1', 0);
  const httpUrl = `http://127.0.0.1:${port}`;
  const pairs = new Map<string, { keyId: string; privateKeyPem: string }>();
  return {
    services,
    margin,
    clock,
    httpUrl,
    user(name: string): RestClient {
      const created = keys.create({ scopes: ['read', 'write'], subaccount: null, tier: 'basic', userId: name });
      services.ensureUser(name);
      pairs.set(name, { keyId: created.record.keyId, privateKeyPem: created.privateKeyPem });
      return new RestClient(httpUrl, { keyId: created.record.keyId, privateKeyPem: created.privateKeyPem });
    },
    key(name: string): { keyId: string; privateKeyPem: string } {
      const pair = pairs.get(name);
      if (pair === undefined) throw new Error(`no user ${name}`);
      return pair;
    },
    server,
    wsUrl: `ws://127.0.0.1:${port}`,
    close(): void {
      server.close();
    },
  };
}

let counter = 0;

/** A margin create body; override any field. */
export function marginOrder(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  counter++;
  return {
    ticker: 'KXBTCPERP',
    client_order_id: `m-${process.pid}-${counter}`,
    side: 'bid',
    count: '10',
    price: '100.00',
    time_in_force: 'good_till_canceled',
    self_trade_prevention_type: 'taker_at_cross',
    ...overrides,
  };
}
