/**
 * startSim: builds and starts one in-process simulator (engine, keys, rate limits, faults, REST
 * and WebSocket servers, market activity) and returns the handle tests and main.ts use. Defaults
 * live here, each with its unit. This file wires; it owns no behaviour of its own.
 */

import { resolve } from 'node:path';
import { asCenticents, type Clock } from '../core/index.ts';
import { createLogger, type Logger } from '../telemetry/index.ts';
import {
  ApiKeyStore,
  Authenticator,
  DEFAULT_KEYS_DIR,
  DEFAULT_TIMESTAMP_WINDOW,
  DEFAULT_USER_ID,
  loadOrCreateDemoKey,
  type Scope,
  type TimestampWindow,
} from './auth/index.ts';
import { loadCatalog, SimEngine, withSyntheticMarkets, type Catalog, type SimEngineOptions } from './engine/index.ts';
import { FaultController } from './faults/index.ts';
import { HISTORY_DEFAULTS, SimHistory, type SimHistoryOptions } from './history/index.ts';
import { RateLimiter, type RateLimitTier } from './rate-limit/index.ts';
import { ActivityDriver } from './server/activity-driver.ts';
import { WireProbe, type SimProbe } from './server/probe.ts';
import { SimServer } from './server/sim-server.ts';
import { SimServices } from './server/services.ts';
import { seedLiquidity, type RfqParticipantsOptions } from './activity/index.ts';
import { FixAcceptor, type FixSessionKindServed, type MarginFixSessionServed } from './server/fix/index.ts';
import { CLEARING_PREFIX, loadDemoObligations, loadOrCreateDemoClearingCredential } from './clearing/index.ts';

export interface StartSimOptions {
  /** 0 = any free port. Default 0. */
  port?: number;
  /** Default 127.0.0.1. */
  host?: string;
  /** Seeds the engine ids, the activity generator and fault draws. Default 1. */
  seed?: number;
  /** Market catalog file. Default config/markets.json. */
  marketsFile?: string;
  /** Use this catalog instead of reading marketsFile (tests). */
  catalog?: Catalog;
  /**
   * Synthetic Predictions markets listed alongside (after) the file catalog's or `catalog`'s
   * (engine/synthetic-catalog.ts: KXSYN{ss}-{date}-T{strike}, 10 per event over up to 50 series,
   * deterministic from `seed`), 1..100,000; 0 = none. Market activity spreads over them too. Default 0.
   */
  syntheticMarkets?: number;
  /** Named fault profile (src/sim/faults/fault-profiles.ts). Default "none". */
  faultProfile?: string;
  /**
   * Synthetic market activity; false = none. Default false. `rfqsPerMinute`: RFQs the synthetic
   * requesters create (activity/rfq-participants.ts; its quoters answer users' RFQs), default
   * SIM_DEFAULTS.rfqsPerMinute, 0 = no RFQ participants; `rfq` tunes them (tests). RFQ participants
   * act only while `updatesPerSec` > 0. `marginUpdatesPerSec`: book updates per second of synthetic
   * activity on the Margin exchange's perpetuals (activity/margin-activity.ts), default 0 = none; it
   * runs on its own, so `{ updatesPerSec: 0, marginUpdatesPerSec: N }` moves the Margin books only.
   */
  activity?: {
    updatesPerSec: number; rfqsPerMinute?: number; rfq?: Partial<Omit<RfqParticipantsOptions, 'seed' | 'rfqsPerMinute'>>; marginUpdatesPerSec?: number;
  } | false;
  /** Where the demo key lives. Default var/sim-keys. */
  keysDir?: string;
  /** Accepted KALSHI-ACCESS-TIMESTAMP skew, ms. Default 10 s past, 30 s future. */
  timestampWindow?: TimestampWindow;
  /** Post-only crossing orders: 400 invalid_order (demo capture) instead of cancelled. Default false. */
  postOnlyCrossReject400?: boolean;
  /** Per-connection WebSocket buffer above which a subscription overflows (error 25), bytes. Default 16 MiB. */
  wsBufferLimitBytes?: number;
  /** Server ping interval, ms. Default 10,000. */
  pingIntervalMs?: number;
  /** Largest REST body, bytes. Default 1 MiB. */
  maxBodyBytes?: number;
  /** Rate-limit tier of the demo key. Default "prime". */
  demoKeyTier?: RateLimitTier;
  /** false switches rate limiting off. Default true. */
  rateLimits?: boolean;
  /** Cash each used subaccount gets on each exchange index, whole dollars. Default 1,000,000. */
  fundingDollars?: number;
  /** Wall clock (Unix ms). Default the system clock. */
  clock?: Clock;
  /** Logger; default warnings and errors as JSON on stderr. */
  logger?: Logger;
  /**
   * Engine options beyond postOnlyCrossReject400 (tests: a small order-group cap). tradeHistoryPerMarket
   * defaults to the engine's 1,000 up to 500 markets, then a share of 500,000 records (at least 50).
   */
  engineOptions?: Partial<SimEngineOptions>;
  /** Wire-to-wire probe (server/probe.ts, GET /_sim/probe); off costs nothing per message. Default false. */
  probe?: boolean;
  /**
   * Trade tape and historical cutoff (history/sim-history.ts HISTORY_DEFAULTS: 65,536 rows per market, cutoff 1 h
   * behind the clock; above 64 markets the rows per market shrink so all tapes share 4 Mi rows, at least 256 each).
   */
  history?: Partial<SimHistoryOptions>;
  /**
   * Resting liquidity on every active Predictions and Margin book at start (activity/seed-liquidity.ts),
   * so a crossing order fills without --activity-rate. Default false (tests expect empty books);
   * `npm run sim` turns it on unless --no-liquidity.
   */
  seedLiquidity?: boolean;
  /**
   * The demo clearing member starts with outstanding obligations of earlier settlement cycles
   * (clearing/demo-obligations.ts, from the seed), so `npm run clearing -- obligations` has rows
   * to show. Default false (tests expect none); `npm run sim` turns it on unless --exit-with-stdin.
   */
  demoObligations?: boolean;
  /**
   * FIX acceptor (server/fix): KalshiNR, KalshiRT, KalshiDC, KalshiPT and KalshiMD, each on its own
   * free port of `host` (default the REST host), and the Margin exchange's KalshiNR, KalshiRT,
   * KalshiDC and KalshiMD on four more (`fix.margin`), plain TCP unless `tls` gives a PEM certificate and
   * key; KalshiRT and KalshiPT sequence stores on file under `storeDir` (default in memory);
   * `marketDataSubscriptionsMax` bounds a KalshiMD connection's subscriptions (default 100,000,
   * fix.md §8). Default off.
   */
  fix?: {
    enabled: boolean; host?: string; tls?: { cert: string | Buffer; key: string | Buffer } | null; storeDir?: string | null;
    marketDataSubscriptionsMax?: number;
  };
}

/** Where the FIX acceptor listens: one port per session kind (fix.md §1 kinds, offset to free ports). */
export interface SimFixEndpoints {
  host: string;
  tls: boolean;
  ports: Readonly<Record<FixSessionKindServed, number>>;
  /** The Margin exchange's sessions (fix.md §1 "Margin exchange"), each on a port of its own. */
  margin: Readonly<Record<MarginFixSessionServed, number>>;
}

export interface CreateApiKeyOptions {
  scopes: Scope[];
  /** Lock the key to one subaccount (0-63). */
  subaccount?: number;
  tier?: RateLimitTier;
  /** Owner; default the demo user (so restricted keys are subaccount keys of the demo account). */
  userId?: string;
}

export interface SimHandle {
  httpUrl: string;
  wsUrl: string;
  port: number;
  demoKey: { keyId: string; privateKeyPem: string; privateKeyPath: string };
  /** The demo user id (owner of the demo key). */
  userId: string;
  createApiKey(options: CreateApiKeyOptions): { keyId: string; privateKeyPem: string };
  faults: FaultController;
  engine: SimEngine;
  rateLimiter: RateLimiter;
  /** The wire-to-wire probe (summary, reset); null unless started with probe: true. */
  probe: SimProbe | null;
  /** Recorded trades, tops and open interest (candlestick and historical routes). */
  history: SimHistory;
  /** The FIX acceptor's host and ports; null unless started with fix.enabled. */
  fix: SimFixEndpoints | null;
  /**
   * The demo clearing-member credential (clearing/demo-credential.ts), acting for the demo user:
   * `url` is the clearing base URL (…/clearing-api/v1), `credentialPath` the 0600 file beside the
   * demo key. The token is here for in-process callers; never log it.
   */
  demoClearing: { url: string; credentialPath: string; adminUserId: string; accessToken: string; memberUserId: string };
  /** Everything the servers share (treasury, FCM registry, block trades, margin, keys): for tests and embedders. */
  services: SimServices;
  close(): Promise<void>;
}

export const SIM_DEFAULTS = {
  host: '127.0.0.1',
  port: 0,
  seed: 1,
  marketsFile: 'config/markets.json',
  syntheticMarkets: 0, // markets; engine/synthetic-catalog.ts
  faultProfile: 'none',
  wsBufferLimitBytes: 16 * 1024 * 1024,
  pingIntervalMs: 10_000,
  maxBodyBytes: 1024 * 1024,
  maxWsPayloadBytes: 1024 * 1024, // one client frame; ws-server.ts caps it there too (a subscribe is far smaller)
  demoKeyTier: 'prime' as RateLimitTier,
  fundingDollars: 1_000_000,
  /** RFQs per minute from the synthetic requesters when activity is on: one every 3 s on average. */
  rfqsPerMinute: 20,
} as const;

/**
 * History rows all markets share: 4 Mi rows, about 170 MB at 40 bytes a row. A small catalog keeps
 * the per-market default (65,536 rows); 5,000 synthetic markets get 838 each, so a long run at
 * market-making scale stays bounded instead of growing every tape to 2.6 MB (13 GB).
 */
const HISTORY_ROWS_TOTAL = 4 * 1024 * 1024;
/** Fewest rows a market's tape keeps however many markets there are: a few minutes of candles. */
const HISTORY_ROWS_PER_MARKET_MIN = 256;
/**
 * Public trade records (GET /markets/trades) all markets share: 500,000 objects, about 50 MB. Up to
 * 500 markets keep the engine's 1,000 each; 5,000 synthetic markets keep 100 each (measured: at
 * 1,000 each the heap grew past 450 MB within a minute at 40,000 updates/s).
 */
const TRADES_TOTAL = 500_000;
const TRADES_PER_MARKET_MAX = 1_000;
const TRADES_PER_MARKET_MIN = 50;

/** `total` split over `marketCount` markets, within [min, max] per market. */
function shareOf(total: number, max: number, min: number, marketCount: number): number {
  const share = Math.floor(total / Math.max(1, marketCount));
  return Math.min(max, Math.max(min, share));
}

export async function startSim(options: StartSimOptions = {}): Promise<SimHandle> {
  const clock = options.clock ?? { nowMs: () => Date.now() };
  const now = (): number => clock.nowMs();
  const seed = options.seed ?? SIM_DEFAULTS.seed;
  const logger = options.logger ?? createLogger({ level: 'warn', pretty: false, name: 'sim', destination: process.stderr });
  const baseCatalog = options.catalog ?? loadCatalog(resolve(options.marketsFile ?? SIM_DEFAULTS.marketsFile));
  const syntheticMarkets = options.syntheticMarkets ?? SIM_DEFAULTS.syntheticMarkets;
  const catalog = syntheticMarkets > 0 ? withSyntheticMarkets(baseCatalog, syntheticMarkets, seed) : baseCatalog;
  const engine = new SimEngine({
    now,
    seed,
    catalog,
    options: {
      tradeHistoryPerMarket: shareOf(TRADES_TOTAL, TRADES_PER_MARKET_MAX, TRADES_PER_MARKET_MIN, catalog.markets.length),
      ...options.engineOptions,
      postOnlyCrossReject400: options.postOnlyCrossReject400 ?? options.engineOptions?.postOnlyCrossReject400 ?? false,
    },
  });
  const history = new SimHistory(engine, {
    rowsPerMarket: shareOf(HISTORY_ROWS_TOTAL, HISTORY_DEFAULTS.rowsPerMarket, HISTORY_ROWS_PER_MARKET_MIN, catalog.markets.length),
    ...options.history,
  });
  const detachHistory = history.attach(); // before anything can trade
  const keys = new ApiKeyStore('basic');
  const probe = options.probe === true ? new WireProbe() : null;
  const services = new SimServices({
    engine,
    keys,
    authenticator: new Authenticator(keys, now, options.timestampWindow ?? DEFAULT_TIMESTAMP_WINDOW),
    rateLimiter: new RateLimiter({ now, enabled: options.rateLimits ?? true }),
    faults: new FaultController(seed, options.faultProfile ?? SIM_DEFAULTS.faultProfile),
    now,
    logger,
    fundingPerSubaccount: asCenticents((options.fundingDollars ?? SIM_DEFAULTS.fundingDollars) * 10_000),
    maxBodyBytes: options.maxBodyBytes ?? SIM_DEFAULTS.maxBodyBytes,
    probe,
    history,
  });
  const demo = loadOrCreateDemoKey(keys, options.keysDir ?? DEFAULT_KEYS_DIR, options.demoKeyTier ?? SIM_DEFAULTS.demoKeyTier, DEFAULT_USER_ID);
  services.ensureFunded(DEFAULT_USER_ID, 0);
  if (options.seedLiquidity === true) {
    const seeded = seedLiquidity(engine, services.margin);
    logger.info(seeded, 'resting liquidity seeded');
  }

  const server = new SimServer(services, {
    host: options.host ?? SIM_DEFAULTS.host,
    port: options.port ?? SIM_DEFAULTS.port,
    wsBufferLimitBytes: options.wsBufferLimitBytes ?? SIM_DEFAULTS.wsBufferLimitBytes,
    pingIntervalMs: options.pingIntervalMs ?? SIM_DEFAULTS.pingIntervalMs,
    maxWsPayloadBytes: SIM_DEFAULTS.maxWsPayloadBytes,
  });
  const host = options.host ?? SIM_DEFAULTS.host;
  const port = await server.listen(host, options.port ?? SIM_DEFAULTS.port);
  const clearingUrl = `http://${host}:${port}${CLEARING_PREFIX}`;
  let demoClearing: ReturnType<typeof loadOrCreateDemoClearingCredential>;
  try {
    // Needs the port, so after listen; a keys directory that cannot be written must not leave the server open.
    demoClearing = loadOrCreateDemoClearingCredential(services.clearing, options.keysDir ?? DEFAULT_KEYS_DIR, DEFAULT_USER_ID, clearingUrl);
    if (options.demoObligations === true) loadDemoObligations(services.clearing, services.margin, seed, DEFAULT_USER_ID);
  } catch (error) {
    server.close();
    detachHistory();
    throw error;
  }
  let fix: FixAcceptor | null = null;
  let fixEndpoints: SimFixEndpoints | null = null;
  if (options.fix?.enabled === true) {
    const fixHost = options.fix.host ?? host;
    fix = new FixAcceptor({
      services, clock, host: fixHost, tls: options.fix.tls ?? null, storeDir: options.fix.storeDir ?? null, logger,
      ...(options.fix.marketDataSubscriptionsMax === undefined ? {} : { marketDataSubscriptionsMax: options.fix.marketDataSubscriptionsMax }),
    });
    try {
      const ports = await fix.listen();
      fixEndpoints = { host: fixHost, tls: (options.fix.tls ?? null) !== null, ports: { ...ports }, margin: { ...fix.marginPorts } };
    } catch (error) {
      server.close();
      detachHistory();
      await fix.close();
      throw error;
    }
  }
  const activityOptions = options.activity === undefined || options.activity === false ? null : options.activity;
  const activity = activityOptions === null ? null : new ActivityDriver(engine, seed, activityOptions.updatesPerSec, now, logger, {
    ...activityOptions.rfq, rfqsPerMinute: activityOptions.rfqsPerMinute ?? SIM_DEFAULTS.rfqsPerMinute,
  }, { engine: services.margin, updatesPerSec: activityOptions.marginUpdatesPerSec ?? 0 });
  activity?.start();

  let closed = false;
  return {
    httpUrl: `http://${host}:${port}`,
    wsUrl: `ws://${host}:${port}/trade-api/ws/v2`,
    port,
    demoKey: { keyId: demo.keyId, privateKeyPem: demo.privateKeyPem, privateKeyPath: demo.privateKeyPath },
    userId: DEFAULT_USER_ID,
    createApiKey(spec: CreateApiKeyOptions) {
      const created = keys.create({ scopes: spec.scopes, subaccount: spec.subaccount ?? null, tier: spec.tier ?? 'basic', userId: spec.userId ?? DEFAULT_USER_ID });
      services.ensureUser(created.record.userId);
      if (created.record.subaccount !== null) services.ensureFunded(created.record.userId, created.record.subaccount);
      return { keyId: created.record.keyId, privateKeyPem: created.privateKeyPem };
    },
    faults: services.faults,
    engine,
    rateLimiter: services.rateLimiter,
    services,
    probe,
    history,
    fix: fixEndpoints,
    demoClearing: {
      url: clearingUrl,
      credentialPath: demoClearing.path,
      adminUserId: demoClearing.credential.adminUserId,
      accessToken: demoClearing.credential.accessToken,
      memberUserId: demoClearing.credential.memberUserId,
    },
    async close() {
      if (closed) return;
      closed = true;
      activity?.stop();
      await fix?.close();
      server.close();
      detachHistory();
      // Let uWS run its close callbacks before the caller tears anything else down.
      await new Promise<void>((done) => setImmediate(done));
    },
  };
}
