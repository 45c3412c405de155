/**
 * Test support for integration tests (not a test): an in-process simulator on 127.0.0.1 port 0
 * with a private keys directory, a signed REST client for the simulator (counterparty orders,
 * order books, positions), a runtime factory wired exactly as the main job wires it, and bounded
 * waits. Everything talks to the simulator over real sockets.
 */

import { createPrivateKey } from 'node:crypto';
import type { KeyObject } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { request } from 'undici';
import { pino } from 'pino';
import { complementPrice, parseCount, parsePrice, signedHeaders } from '../../src/core/index.ts';
import type { OrderBook } from '../../src/book/index.ts';
import { startSim } from '../../src/sim/index.ts';
import type { SimHandle, StartSimOptions } from '../../src/sim/index.ts';
import { validateConfig } from '../../src/runtime/config.ts';
import { Runtime } from '../../src/runtime/runtime.ts';
import type { RuntimeOptions } from '../../src/runtime/runtime.ts';
import { createLogger } from '../../src/telemetry/index.ts';

export const ROOT_DIR = resolve(fileURLToPath(new URL('../..', import.meta.url)));
export const MARKET = 'KXDEMO-26DEC31-T50';

export interface TestSim extends SimHandle {
  workDir: string;
}

export async function startTestSim(options: StartSimOptions = {}): Promise<TestSim> {
  const workDir = mkdtempSync(join(tmpdir(), 'integration-'));
  const sim = await startSim({ keysDir: join(workDir, 'keys'), logger: pino({ level: 'silent' }), ...options });
  const close = sim.close.bind(sim);
  return Object.assign(sim, {
    workDir,
    close: async () => {
      await close();
      rmSync(workDir, { recursive: true, force: true });
    },
  });
}

export interface ApiKey {
  keyId: string;
  privateKey: KeyObject;
}

export function demoKey(sim: SimHandle): ApiKey {
  return { keyId: sim.demoKey.keyId, privateKey: createPrivateKey(sim.demoKey.privateKeyPem) };
}

/** A second user of the simulator (own key, funded subaccount 0) to trade against us. */
export function counterpartyKey(sim: SimHandle, userId = 'counterparty'): ApiKey {
  const created = sim.createApiKey({ scopes: ['read', 'write'], userId, subaccount: 0, tier: 'prime' });
  return { keyId: created.keyId, privateKey: createPrivateKey(created.privateKeyPem) };
}

export interface RestReply {
  status: number;
  body: Record<string, unknown>;
}

/** A signed request to the simulator; `path` is relative to /trade-api/v2 and may carry a query. */
export async function rest(sim: SimHandle, key: ApiKey, method: string, path: string, body?: unknown): Promise<RestReply> {
  const fullPath = `/trade-api/v2${path}`;
  const response = await request(`${sim.httpUrl}${fullPath}`, {
    method: method as 'GET',
    headers: {
      ...signedHeaders(key.keyId, key.privateKey, Date.now(), method, fullPath),
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await response.body.text();
  return { status: response.statusCode, body: text === '' ? {} : (JSON.parse(text) as Record<string, unknown>) };
}

let counter = 0;
/** A counterparty order (V2 create body). */
export function orderBody(side: 'bid' | 'ask', price: string, count: string, timeInForce = 'good_till_canceled'): Record<string, unknown> {
  counter++;
  return {
    ticker: MARKET, client_order_id: `cp-${process.pid}-${Date.now()}-${counter}`, side, count, price,
    time_in_force: timeInForce, self_trade_prevention_type: 'taker_at_cross',
  };
}

/** The venue's book as (side, price level -> size) maps in our units: side 0 YES bids at YES price, 1 NO bids at NO price. */
export async function venueBook(sim: SimHandle, key: ApiKey, ticker = MARKET): Promise<{ yes: Map<number, number>; no: Map<number, number> }> {
  const reply = await rest(sim, key, 'GET', `/markets/${ticker}/orderbook`);
  if (reply.status !== 200) throw new Error(`orderbook: ${reply.status} ${JSON.stringify(reply.body)}`);
  const book = (reply.body.orderbook_fp ?? reply.body.orderbook ?? {}) as { yes_dollars?: [string, string][]; no_dollars?: [string, string][] };
  const yes = new Map<number, number>();
  const no = new Map<number, number>();
  for (const [price, size] of book.yes_dollars ?? []) yes.set(parsePrice(price), parseCount(size));
  for (const [price, size] of book.no_dollars ?? []) no.set(parsePrice(price), parseCount(size));
  return { yes, no };
}

/** Our book in the same shape, read level by level through the public OrderBook API. */
export function localBook(book: OrderBook): { yes: Map<number, number>; no: Map<number, number> } {
  const yes = new Map<number, number>();
  const no = new Map<number, number>();
  const grid = book.grid;
  for (let level = 0; level < grid.levelCount; level++) {
    const bid = book.bidSizeAtLevel(level);
    if (bid > 0) yes.set(grid.priceAt(level), bid);
    const ask = book.askSizeAtLevel(level);
    if (ask > 0) no.set(complementPrice(grid.priceAt(level)), ask);
  }
  return { yes, no };
}

/** A `strategies[]` entry as written in a config file. */
export interface RawStrategy {
  id: string;
  plugin: string;
  subaccount: number;
  orderGroup: { contractsLimit: string } | null;
  markets: string[];
  params: Record<string, unknown>;
  /** The order-entry route ('rest' when absent). */
  route?: 'rest' | 'fix';
}

export interface RuntimeSetup {
  strategies: RawStrategy[];
  journalPath: string;
  key?: ApiKey;
  restrictedSubaccount?: number;
  risk?: Record<string, unknown>;
  /** The config's `margin` section (absent: Margin off). */
  margin?: Record<string, unknown>;
  options?: Partial<RuntimeOptions>;
}

/** A runtime wired as the main job wires it, against the simulator, with a silent logger. */
export function createRuntime(sim: SimHandle, setup: RuntimeSetup): Runtime {
  const key = setup.key ?? demoKey(sim);
  const config = validateConfig(
    {
      risk: { rateLimitTier: 'prime', ...(setup.risk ?? {}) },
      exec: { requestTimeoutMs: 1_000 },
      feed: { reconnectBackoffMinMs: 50, reconnectBackoffMaxMs: 200 },
      strategies: setup.strategies,
      ...(setup.margin === undefined ? {} : { margin: setup.margin }),
    },
    '<integration>',
    {},
  );
  return new Runtime({
    config,
    venue: { restUrl: `${sim.httpUrl}/trade-api/v2`, wsUrl: sim.wsUrl, keyId: key.keyId, privateKey: key.privateKey },
    rootDir: ROOT_DIR,
    journalPath: setup.journalPath,
    logger: createLogger({ level: process.env.INTEGRATION_LOG_LEVEL ?? 'silent', pretty: false }),
    strategies: config.strategies,
    restrictedSubaccount: setup.restrictedSubaccount ?? -1,
    startTimeoutMs: 5_000,
    drainTimeoutMs: 3_000,
    pendingTimeoutMs: 2_000,
    unknownGraceMs: 3_000,
    reconcileIntervalMs: 200,
    ...(setup.options ?? {}),
  });
}

export function entry(id: string, plugin: string, params: Record<string, unknown>, subaccount = 0): RawStrategy {
  return { id, plugin, subaccount, orderGroup: null, markets: [MARKET], params };
}

/** Polls `check` every 10 ms until it returns true; throws after `timeoutMs` naming `what`. */
export async function waitUntil(check: () => boolean | Promise<boolean>, timeoutMs: number, what: string): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((done) => setTimeout(done, 10));
  }
}
