/**
 * Everything the REST and WebSocket servers share for one simulator run: the engine, keys and
 * authentication, rate limits, faults, the clock, the recorded history and the account funding rule. Built once by
 * startSim and passed down; nothing here is global. This file owns the funding rule: a user of
 * the simulator gets `fundingPerSubaccount` on every exchange index of every subaccount the first
 * time a request touches that subaccount ("a healthy balance on every subaccount used").
 */

import type { Centicents } from '../../core/index.ts';
import type { ApiKeyStore, Authenticator } from '../auth/index.ts';
import { EXCHANGE_INDEXES, type SimEngine } from '../engine/index.ts';
import type { FaultController } from '../faults/index.ts';
import type { SimHistory } from '../history/index.ts';
import type { RateLimiter } from '../rate-limit/index.ts';
import type { WireProbe } from './probe.ts';
import type { Logger } from 'pino';
import { resolve } from 'node:path';
import { DEFAULT_MARGIN_CATALOG_FILE, loadMarginCatalog, MarginEngine, MarginOrderGroups } from '../margin/index.ts';
import { ClearingCredentials } from '../clearing/index.ts';
import { Treasury } from '../treasury/index.ts';
import { FcmRegistry } from './fcm-registry.ts';
import { BlockTrades } from '../engine/index.ts';

export interface SimServicesOptions {
  engine: SimEngine;
  keys: ApiKeyStore;
  authenticator: Authenticator;
  rateLimiter: RateLimiter;
  faults: FaultController;
  now: () => number;
  logger: Logger;
  fundingPerSubaccount: Centicents;
  /** Largest accepted request body, bytes. */
  maxBodyBytes: number;
  /** Wire-to-wire probe (probe.ts); null or absent when off. */
  probe?: WireProbe | null;
  /** Recorded trades, tops and open interest for the candlestick and historical routes. */
  history: SimHistory;
  /** The Margin exchange (src/sim/margin); default: config/margin-markets.json on this clock. */
  margin?: MarginEngine;
  /** Clearing-member API credentials (src/sim/clearing); default: an empty store. */
  clearing?: ClearingCredentials;
}

export class SimServices {
  readonly engine: SimEngine;
  readonly keys: ApiKeyStore;
  readonly authenticator: Authenticator;
  readonly rateLimiter: RateLimiter;
  readonly faults: FaultController;
  readonly now: () => number;
  readonly logger: Logger;
  readonly maxBodyBytes: number;
  readonly probe: WireProbe | null;
  readonly history: SimHistory;
  readonly margin: MarginEngine;
  readonly clearing: ClearingCredentials;
  /** Transfers, created subaccounts, target balance allocation (src/sim/treasury). */
  readonly treasury: Treasury;
  /** FCM members and their subtraders (GET /fcm/orders). */
  readonly fcm: FcmRegistry;
  /** Block-trade proposals (communications). */
  readonly blockTrades: BlockTrades;
  /** Margin order groups (src/sim/margin/order-groups.ts). */
  readonly marginOrderGroups: MarginOrderGroups;
  readonly #fundingPerSubaccount: Centicents;
  readonly #funded = new Set<string>();

  constructor(options: SimServicesOptions) {
    this.engine = options.engine;
    this.keys = options.keys;
    this.authenticator = options.authenticator;
    this.rateLimiter = options.rateLimiter;
    this.faults = options.faults;
    this.now = options.now;
    this.logger = options.logger;
    this.maxBodyBytes = options.maxBodyBytes;
    this.probe = options.probe ?? null;
    this.history = options.history;
    this.#fundingPerSubaccount = options.fundingPerSubaccount;
    this.margin = options.margin ?? new MarginEngine({ catalog: loadMarginCatalog(resolve(DEFAULT_MARGIN_CATALOG_FILE)), now: options.now, seed: 1 });
    this.clearing = options.clearing ?? new ClearingCredentials();
    this.treasury = new Treasury(this.engine, this.margin, this.now);
    this.fcm = new FcmRegistry();
    this.blockTrades = new BlockTrades(this.engine, this.now);
    this.marginOrderGroups = new MarginOrderGroups(this.margin);
  }

  /** Makes sure the user's margin account for `subaccount` exists, funded with the same amount as the other exchange. */
  ensureMarginAccount(userId: string, subaccount: number): void {
    this.margin.ensureAccount(userId, subaccount, this.#fundingPerSubaccount);
  }

  /** Makes sure the user exists in the engine and `subaccount` is funded (once per run). */
  ensureFunded(userId: string, subaccount: number): void {
    const key = `${userId}|${subaccount}`;
    if (this.#funded.has(key)) return;
    if (!this.engine.hasUser(userId)) this.engine.addUser(userId);
    for (const exchangeIndex of EXCHANGE_INDEXES) {
      const error = this.engine.deposit(userId, subaccount, exchangeIndex, this.#fundingPerSubaccount);
      if (error !== null) this.logger.warn({ userId, subaccount, exchangeIndex, code: error.code }, 'funding deposit refused');
    }
    this.#funded.add(key);
  }

  /** Makes sure the user exists (reads for a user that never traded). */
  ensureUser(userId: string): void {
    if (!this.engine.hasUser(userId)) this.engine.addUser(userId);
  }
}
