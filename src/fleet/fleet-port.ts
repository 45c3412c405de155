/**
 * A runtime's seat in the fleet: on a timer (every renewMs, off the hot path) it renews its budget
 * lease, applies the leased share to the gate's buckets and the read pacer (through FleetHost), acts
 * on kill switch changes and publishes its status. The hot path never awaits any of it: the gate
 * spends what the last answer leased, from local buckets.
 *
 *   LAPSED --share > 0--> LEASED --deadline passed, or share 0--> LAPSED
 *
 * LAPSED (before the first lease, after Redis went away for a TTL, or a share of 0): new risk is
 * halted (host.setLapsed(true): cancels only) and the buckets keep at most the cancel reserve,
 * refilling at 1 token/s. LEASED: buckets at the share; they start empty on entry, so every token
 * a runtime holds was leased (budget-lease.ts). The local deadline is counted from before the
 * renewal was sent, so it passes before Redis's expiry does.
 *
 * Limit leases (limit-lease.ts), on the same timer with their own deadline: the gate checks each
 * position / worst-case-loss limit against this runtime's leased share (0 until the first grant,
 * and again once the deadline passes: no new risk, reducing allowed). A share is lowered locally
 * before less is asked for, and raised only after Redis granted it.
 *
 * Kill switch: a local kill (any source) is published; until Redis takes it, it is retried every
 * period. A change heard from the fleet (pub/sub, or the record every renewal returns) engages or
 * releases the local kill switch once per change id (kill-switch.ts).
 */

import type { Redis } from 'ioredis';
import { WEIGHT_HUNGRY, WEIGHT_IDLE, giveBackLease, leaseBudget, shareOf } from './budget-lease.ts';
import type { Budgets, LeaseAnswer } from './budget-lease.ts';
import { killRecord, parseKillRecord, publishKillRecord, subscribeKill } from './kill-switch.ts';
import type { FleetKillRecord } from './kill-switch.ts';
import { publishStatus } from './fleet-status.ts';
import { LIMIT_KIND_COUNT, giveBackLimits, leaseLimits, limitWant } from './limit-lease.ts';
import type { LimitAsk } from './limit-lease.ts';
import { connectFleetRedis, openFleetRedis } from './redis-connection.ts';

/** What the fleet does to its runtime; the runtime implements it (runtime.ts). */
export interface FleetHost {
  /** Buckets at a leased share; `fromEmpty` on entering LEASED. */
  applyBudget(budget: Readonly<Budgets>, fromEmpty: boolean): void;
  /** Buckets at the cancel reserve at most, refilling at the least rate. */
  applyLapsedBudget(): void;
  /** Halts new risk (true) or restores the trading state it replaced (false). */
  setLapsed(lapsed: boolean): void;
  /** Fills each ask's `limit` (the account's, 0: off) and `used` (this runtime's largest exposure against it), LimitKind order. */
  limitUsage(asks: LimitAsk[]): void;
  /** The gate checks against these shares (LimitKind order, the limits' units). */
  applyLimitShares(shares: readonly number[]): void;
  /** Whether demand was held or refused for the budget since the last call. */
  demandHeld(): boolean;
  killEngaged(): boolean;
  /** The local kill path (router.killSwitch: journal, halt, cancel everything). */
  engageKill(reason: string, source: string): Promise<void>;
  releaseKill(by: string): void;
  /** The runtime's status, for the fleet view. */
  snapshot(): Record<string, unknown>;
  nowMs(): number;
  onError(error: unknown, what: string): void;
  onEvent(message: string, fields: Record<string, unknown>): void;
}

export interface FleetPortOptions {
  redisUrl: string;
  runtimeName: string;
  /** The API key whose budgets are shared (the venue meters per key). */
  keyId: string;
  leaseTtlMs: number;
  renewMs: number;
  /** Status snapshots every this many renewals. */
  statusEveryRenewals: number;
}

export interface FleetStatus {
  runtimeName: string;
  leased: boolean;
  sharePpm: number;
  runtimes: number;
  redisConnected: boolean;
  renewals: number;
  renewalFailures: number;
  lapses: number;
  /** The last kill switch change heard from the fleet, or null. */
  kill: FleetKillRecord | null;
  /** The gate's leased share of each limit (LimitKind order; 0 while not leased). */
  limitShares: number[];
}

export class FleetPort {
  readonly #options: FleetPortOptions;
  readonly #host: FleetHost;
  readonly #redis: Redis;
  readonly #subscriber: Redis;
  #account: Budgets | null = null;
  #timer: NodeJS.Timeout | null = null;
  #renewing = false;
  #leased = false;
  #deadlineMs = 0;
  #sharePpm = 0;
  #runtimes = 0;
  #killRaw = '';
  #lastKillId = '';
  #kill: FleetKillRecord | null = null;
  /** A local kill not yet stored in Redis (retried every period). */
  #pendingKill: FleetKillRecord | null = null;
  /** One publish at a time: a second one of the same change would store it again under a newer version. */
  #killPublishing = false;
  #ticks = 0;
  #stopped = false;
  readonly #limitAsks: LimitAsk[] = Array.from({ length: LIMIT_KIND_COUNT }, () => ({ limit: 0, want: 0, used: 0 }));
  readonly #limitShares: number[] = new Array<number>(LIMIT_KIND_COUNT).fill(0);
  #limitRenewing = false;
  #limitDeadlineMs = 0;
  readonly stats = { renewals: 0, renewalFailures: 0, lapses: 0, killsHeard: 0 };

  constructor(options: FleetPortOptions, host: FleetHost) {
    this.#options = options;
    this.#host = host;
    const redisOptions = {
      commandTimeoutMs: options.renewMs,
      connectTimeoutMs: Math.max(options.renewMs, 1_000),
      reconnectMaxMs: Math.min(options.leaseTtlMs, 500),
      onError: () => {}, // a lost Redis is reported by the failed renewals (rate-limited), not per attempt
    };
    this.#redis = openFleetRedis(options.redisUrl, redisOptions);
    this.#subscriber = openFleetRedis(options.redisUrl, { ...redisOptions, commandTimeoutMs: 0 });
  }

  get leased(): boolean {
    return this.#leased;
  }

  /**
   * Starts LAPSED (no spending until a lease), connects, subscribes to the kill switch and waits
   * (bounded by `waitMs`) for the first lease. Never throws for Redis: it keeps trying in the background.
   */
  async start(account: Readonly<Budgets>, waitMs: number): Promise<void> {
    this.#account = { ...account };
    this.#host.applyLapsedBudget();
    this.#host.setLapsed(true);
    this.#host.applyLimitShares(this.#limitShares); // all 0: no new risk until a grant
    const connected = await connectFleetRedis(this.#redis);
    if (!connected) this.#host.onEvent('fleet: Redis unreachable; halted for new risk until a lease is granted', { redisUrl: this.#options.redisUrl });
    void connectFleetRedis(this.#subscriber).then((ok) => (ok ? subscribeKill(this.#subscriber, (record) => this.#onKillRecord(record)) : undefined))
      .catch((error: unknown) => this.#host.onError(error, 'fleet: kill switch subscription'));
    this.#timer = setInterval(() => this.#tick(), this.#options.renewMs);
    this.#timer.unref();
    this.#tick();
    const deadline = Date.now() + waitMs;
    // The limit grant too: before it every share is 0 and the gate denies any new position.
    while ((!this.#leased || this.#limitDeadlineMs === 0) && !this.#host.killEngaged() && Date.now() < deadline && !this.#stopped) {
      await new Promise((resolve) => setTimeout(resolve, Math.min(this.#options.renewMs, 50)));
    }
    if (!this.#leased) this.#host.onEvent('fleet: no budget lease yet; new risk halted until one is granted', { waitMs });
  }

  /** A local kill (operator, risk, dashboard): published to every runtime; retried until Redis takes it. */
  publishKill(reason: string, source: string): void {
    const record = killRecord(true, reason, `runtime ${this.#options.runtimeName} (${source})`, this.#host.nowMs());
    // Newest of all until Redis numbers it: no renewal answered before it may undo it.
    record.version = Number.MAX_SAFE_INTEGER;
    this.#lastKillId = record.id;
    this.#kill = record;
    this.#pendingKill = record;
    this.#flushKill();
  }

  status(): FleetStatus {
    return {
      runtimeName: this.#options.runtimeName, leased: this.#leased, sharePpm: this.#leased ? this.#sharePpm : 0, runtimes: this.#runtimes,
      redisConnected: this.#redis.status === 'ready', renewals: this.stats.renewals, renewalFailures: this.stats.renewalFailures,
      lapses: this.stats.lapses, kill: this.#kill, limitShares: [...this.#limitShares],
    };
  }

  /** A clean stop: lapse locally, give the lease back, publish a last status, disconnect. */
  async stop(): Promise<void> {
    if (this.#stopped) return;
    this.#stopped = true;
    if (this.#timer !== null) clearInterval(this.#timer);
    this.#timer = null;
    this.#lapse();
    this.#lapseLimits();
    if (this.#pendingKill !== null) await this.#flushKillNow();
    try {
      await giveBackLease(this.#redis, this.#options.keyId, this.#options.runtimeName, this.#options.leaseTtlMs);
      this.#host.limitUsage(this.#limitAsks);
      await giveBackLimits(this.#redis, this.#options.keyId, this.#options.runtimeName, this.#limitAsks, this.#options.leaseTtlMs);
      await publishStatus(this.#redis, this.#options.runtimeName, { ...this.#snapshot(), stopped: true }, 1);
    } catch (error) {
      this.#host.onError(error, 'fleet: giving the lease back (it expires on its own)');
    }
    this.#redis.disconnect();
    this.#subscriber.disconnect();
  }

  /** A crash, for tests: no give-back, no last status; the lease expires on Redis's clock. */
  abandon(): void {
    this.#stopped = true;
    if (this.#timer !== null) clearInterval(this.#timer);
    this.#timer = null;
    this.#redis.disconnect();
    this.#subscriber.disconnect();
  }

  #tick(): void {
    if (this.#stopped) return;
    const nowMs = this.#host.nowMs();
    if (this.#leased && nowMs >= this.#deadlineMs) {
      this.#lapse();
      this.#host.onEvent('fleet: lease expired without renewal; new risk halted (cancels only) until Redis answers', { runtime: this.#options.runtimeName });
    }
    if (this.#pendingKill !== null) this.#flushKill();
    if (nowMs >= this.#limitDeadlineMs) this.#lapseLimits();
    if (!this.#limitRenewing && this.#redis.status === 'ready') this.#renewLimits(nowMs);
    if (this.#renewing || this.#redis.status !== 'ready') return;
    this.#renewing = true;
    const weight = this.#host.demandHeld() ? WEIGHT_HUNGRY : WEIGHT_IDLE;
    leaseBudget(this.#redis, this.#options.keyId, this.#options.runtimeName, weight, this.#options.leaseTtlMs)
      .then((answer) => this.#onLease(answer, nowMs), (error: unknown) => this.#onRenewalFailed(error))
      .finally(() => {
        this.#renewing = false;
      });
    if (++this.#ticks % this.#options.statusEveryRenewals === 0) {
      const ttlMs = this.#options.leaseTtlMs + this.#options.statusEveryRenewals * this.#options.renewMs;
      publishStatus(this.#redis, this.#options.runtimeName, this.#snapshot(), ttlMs).catch(() => {}); // the next one retries
    }
  }

  #onLease(answer: LeaseAnswer, sentMs: number): void {
    if (this.#stopped) return;
    this.stats.renewals++;
    this.#runtimes = answer.runtimes;
    if (answer.killRecord !== this.#killRaw) {
      this.#killRaw = answer.killRecord;
      const record = parseKillRecord(answer.killRecord);
      if (record !== null) this.#onKillRecord(record);
    }
    const account = this.#account!;
    if (answer.sharePpm <= 0) {
      this.#sharePpm = 0;
      if (this.#leased) this.#lapse();
      return;
    }
    const entering = !this.#leased;
    if (entering || answer.sharePpm !== this.#sharePpm) this.#host.applyBudget(shareOf(account, answer.sharePpm), entering);
    this.#sharePpm = answer.sharePpm;
    this.#deadlineMs = sentMs + this.#options.leaseTtlMs;
    if (entering) {
      this.#leased = true;
      this.#host.setLapsed(false);
      this.#host.onEvent('fleet: budget lease granted', { sharePpm: answer.sharePpm, runtimes: answer.runtimes });
    }
  }

  /** Lowers what is no longer wanted locally first, then asks (limit-lease.ts: local share <= stored grant). */
  #renewLimits(sentMs: number): void {
    const asks = this.#limitAsks;
    const shares = this.#limitShares;
    this.#host.limitUsage(asks);
    let lowered = false;
    for (let k = 0; k < LIMIT_KIND_COUNT; k++) {
      const ask = asks[k]!;
      ask.want = limitWant(ask.limit, shares[k]!, ask.used);
      if (ask.want < shares[k]!) {
        shares[k] = ask.want;
        lowered = true;
      }
    }
    if (lowered) this.#host.applyLimitShares(shares);
    this.#limitRenewing = true;
    leaseLimits(this.#redis, this.#options.keyId, this.#options.runtimeName, asks, this.#options.leaseTtlMs)
      .then((grants) => this.#onLimitGrants(grants, sentMs), (error: unknown) => this.#onRenewalFailed(error))
      .finally(() => {
        this.#limitRenewing = false;
      });
  }

  #onLimitGrants(grants: readonly number[], sentMs: number): void {
    if (this.#stopped) return;
    for (let k = 0; k < LIMIT_KIND_COUNT; k++) this.#limitShares[k] = grants[k] ?? 0;
    this.#limitDeadlineMs = sentMs + this.#options.leaseTtlMs;
    this.#host.applyLimitShares(this.#limitShares);
  }

  /** Past the deadline Redis may hand the unused shares to others: no new risk here (reducing stays allowed). */
  #lapseLimits(): void {
    const shares = this.#limitShares;
    if (shares.every((share) => share === 0)) return;
    shares.fill(0);
    this.#host.applyLimitShares(shares);
  }

  #onRenewalFailed(error: unknown): void {
    this.stats.renewalFailures++;
    // One line per lapse of service, not one per period.
    if (this.stats.renewalFailures === 1 || this.#leased) this.#host.onError(error, 'fleet: lease renewal failed; trading on the current lease until it expires');
  }

  #lapse(): void {
    if (!this.#leased) return;
    this.#leased = false;
    this.stats.lapses++;
    this.#host.applyLapsedBudget();
    this.#host.setLapsed(true);
  }

  #onKillRecord(record: FleetKillRecord): void {
    if (record.id === this.#lastKillId) {
      // The same change stored again (a publish retried after a lost answer) carries a newer
      // version: keep the newest, or a record stamped between the two would pass as newer.
      if (this.#kill !== null && this.#kill.id === record.id && record.version > this.#kill.version) this.#kill.version = record.version;
      return;
    }
    // A renewal answered before a change but read after its pub/sub message carries the record it
    // replaced: an older change (lower version: Redis's clock when stored) never undoes a newer one.
    if (this.#kill !== null && record.version < this.#kill.version) return;
    this.#lastKillId = record.id;
    this.#kill = record;
    this.stats.killsHeard++;
    const host = this.#host;
    if (record.engaged && !host.killEngaged()) {
      host.onEvent('fleet: kill switch engaged account-wide', { by: record.by, reason: record.reason });
      host.engageKill(record.reason, `fleet: ${record.by}`).catch((error: unknown) => host.onError(error, 'fleet: kill switch cancel-all (retried by the OMS tick)'));
    } else if (!record.engaged && host.killEngaged()) {
      host.onEvent('fleet: kill switch released account-wide', { by: record.by });
      host.releaseKill(`fleet: ${record.by}`);
    }
  }

  #flushKill(): void {
    if (this.#redis.status !== 'ready' || this.#killPublishing) return;
    void this.#flushKillNow();
  }

  async #flushKillNow(): Promise<void> {
    const record = this.#pendingKill;
    if (record === null) return;
    this.#killPublishing = true;
    try {
      const version = await publishKillRecord(this.#redis, record);
      record.version = version;
      if (this.#pendingKill === record) this.#pendingKill = null;
    } catch (error) {
      this.#host.onError(error, 'fleet: publishing the kill switch failed; retried every period');
    } finally {
      this.#killPublishing = false;
    }
  }

  #snapshot(): Record<string, unknown> {
    return { ...this.#host.snapshot(), fleet: this.status(), publishedMs: this.#host.nowMs() };
  }
}
