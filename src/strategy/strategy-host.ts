/**
 * The strategy host: deploys plugin instances from `strategies[]` entries, binds each to a
 * subaccount, its markets and optionally an order group (created at start), hands it market data,
 * fills and order updates synchronously, drives one shared coarse timer, and stops, redeploys or
 * faults instances without restarting the process.
 *
 *   feed ──> host.onBookUpdate(book) ──> strategy.onBook(book, ctx) ──> ctx.place() ──> gate ──> OMS
 *
 * Dispatch is by market ticker to the instances trading it (one Map lookup, an array loop, no
 * allocation). A callback that throws faults its instance: it is deactivated at once (further
 * actions are refused), then stopped and its orders cancelled off the hot path.
 *
 * Stop: deactivate, onStop, cancel every live order through the gate, wait until the OMS shows
 * none live (re-sending cancels every `cancelRetryMs`, bounded by `drainTimeoutMs`), release the
 * order group. Redeploy: load and validate the new module first (a bad module leaves the running
 * instance alone), then stop the old instance and start the new one under the same strategy number,
 * so late fills of the old deployment still reach the strategy.
 *
 * This file owns deployment and dispatch; it never decides prices and never talks to the network.
 */

import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { DENY_NAMES } from '../risk/index.ts';
import type { ContextBinding } from './strategy-context.ts';
import { BoundStrategyContext } from './strategy-context.ts';
import { loadPlugin } from './plugin-loader.ts';
import type { LoadedPlugin, StrategyEntry } from './plugin-loader.ts';
import type { StrategyHostPorts } from './ports.ts';
import { StrategyError } from './strategy-error.ts';
import type { FillView, HeldIntentView, LifecycleView, OrderView, QuoteView, RfqView, Strategy, StrategyBook, TradeView } from './strategy.ts';

/** What the router tells of a held intent (its HeldIntent record, read structurally: strategy never imports the router). */
export interface HeldSource {
  readonly strategyId: number;
  readonly clientOrderId: string;
  readonly ticker: string;
  /** 0 create, 1 amend (router's HeldKind). */
  readonly kind: number;
}

type Writable<T> = { -readonly [K in keyof T]: T[K] };

export type DeploymentStatus = 'starting' | 'running' | 'stopping' | 'stopped' | 'faulted';

export interface StrategyHostOptions {
  ports: StrategyHostPorts;
  /** Plugin paths are relative to this directory (the project root). */
  rootDir: string;
  /** Resolution of the shared timer, ms (default 50): onTimer intervals are rounded up to it. */
  tickMs?: number;
  /** Longest wait for a stopping instance's orders to close, ms (default 5,000). */
  drainTimeoutMs?: number;
  /** Pause between checks while draining, ms (default 20). */
  drainPollMs?: number;
  /** Re-send cancels for orders still live after this long, ms (default 1,000). */
  cancelRetryMs?: number;
  /** The caller calls tick() every tickMs on its own clock (a replay, on the recording's): no interval timer. */
  drivenTicks?: boolean;
}

export const STRATEGY_HOST_DEFAULTS = Object.freeze({ tickMs: 50, drainTimeoutMs: 5_000, drainPollMs: 20, cancelRetryMs: 1_000 });

export interface DeploymentSummary {
  id: string;
  plugin: string;
  pluginName: string;
  strategyId: number;
  status: DeploymentStatus;
  subaccount: number;
  markets: readonly string[];
  orderGroup: number;
  accepted: number;
  /** Non-zero deny counts by code name. */
  denies: Record<string, number>;
  /** Message of the error that faulted the instance, '' otherwise. */
  fault: string;
}

class Deployment {
  status: DeploymentStatus = 'starting';
  nextTimerMs = 0;
  fault = '';
  /** The plugin's second instance for the keep-warm's rehearsal (plugin rehearse: true), null when none. */
  rehearsal: Strategy | null = null;
  constructor(
    readonly entry: StrategyEntry,
    readonly loaded: LoadedPlugin,
    readonly strategy: Strategy,
    readonly ctx: BoundStrategyContext,
    readonly orderGroupHandle: number,
    readonly timerIntervalMs: number,
    /** False: onBook only when the book's best bid or ask price moved (plugin bookUpdates 'bestPrice'). */
    readonly everyBookUpdate: boolean,
  ) {}
}

const NO_DEPLOYMENTS: readonly Deployment[] = Object.freeze([]);

export class StrategyHost {
  readonly #ports: StrategyHostPorts;
  readonly #rootDir: string;
  readonly #tickMs: number;
  readonly #drainTimeoutMs: number;
  readonly #drainPollMs: number;
  readonly #cancelRetryMs: number;
  readonly #drivenTicks: boolean;
  readonly #byId = new Map<string, Deployment>();
  /** ticker -> running deployments trading it; rebuilt on every start and stop (never per message). */
  #byMarket = new Map<string, Deployment[]>();
  /** Strategy number -> deployment; numbers are stable per id across redeploys. */
  readonly #byNumber: (Deployment | undefined)[] = [];
  readonly #numbers = new Map<string, number>();
  #running: Deployment[] = [];
  #rehearsals: readonly Strategy[] = [];
  #timer: NodeJS.Timeout | null = null;
  #generation = 0;
  readonly #scratch: OrderView[] = [];
  /** The one view onHeld receives (reused: a strategy reads it during the call). */
  readonly #heldView: Writable<HeldIntentView> = { clientOrderId: '', ticker: '', kind: 'create', sent: false, deny: 0 };
  /** Operations (deploy, stop, redeploy) run one at a time, in call order. */
  #queue: Promise<unknown> = Promise.resolve();
  /** Every plugin module ever deployed (file path) -> the strategy ids that ran it: attributes escaped errors. */
  readonly #modules = new Map<string, Set<string>>();

  constructor(options: StrategyHostOptions) {
    this.#ports = options.ports;
    this.#rootDir = options.rootDir;
    this.#tickMs = options.tickMs ?? STRATEGY_HOST_DEFAULTS.tickMs;
    this.#drainTimeoutMs = options.drainTimeoutMs ?? STRATEGY_HOST_DEFAULTS.drainTimeoutMs;
    this.#drainPollMs = options.drainPollMs ?? STRATEGY_HOST_DEFAULTS.drainPollMs;
    this.#cancelRetryMs = options.cancelRetryMs ?? STRATEGY_HOST_DEFAULTS.cancelRetryMs;
    this.#drivenTicks = options.drivenTicks === true;
  }

  // ---- deployment --------------------------------------------------------------------------------

  /**
   * Loads and validates every entry first (all problems reported at once), then starts them in
   * order. Throws StrategyError; instances started before a failure keep running.
   */
  start(entries: readonly StrategyEntry[]): Promise<void> {
    return this.#serial(async () => {
      const loaded = await loadEntries(entries, this.#rootDir, new Set(this.#byId.keys()));
      for (let i = 0; i < entries.length; i++) await this.#deploy(entries[i], loaded[i], null);
    });
  }

  /** Deploys one new entry. */
  deploy(entry: StrategyEntry): Promise<void> {
    return this.#serial(async () => {
      if (this.#byId.has(entry.id)) throw new StrategyError('STRATEGY_DUPLICATE_ID', entry.id, 'already running');
      const loaded = await loadPlugin(entry, { rootDir: this.#rootDir, cacheBust: this.#nextBust() });
      await this.#deploy(entry, loaded, null);
    });
  }

  /**
   * Replaces one running instance with `entry` (same id): loads the module again (cache-busting
   * import) and validates params before touching the running instance; then stops it (cancel,
   * drain) and starts the new one. An unknown id is deployed fresh.
   */
  redeploy(id: string, entry: StrategyEntry): Promise<void> {
    return this.#serial(async () => {
      if (entry.id !== id) throw new StrategyError('STRATEGY_UNKNOWN_ID', id, `redeploy entry has id ${entry.id}`);
      const loaded = await loadPlugin(entry, { rootDir: this.#rootDir, cacheBust: this.#nextBust() });
      const old = this.#byId.get(id) ?? null;
      const keepGroup = old !== null && old.entry.orderGroup !== null && entry.orderGroup !== null && old.entry.orderGroup.contractsLimit === entry.orderGroup.contractsLimit && old.entry.subaccount === entry.subaccount;
      if (old !== null) await this.#stop(old, !keepGroup);
      await this.#deploy(entry, loaded, keepGroup && old !== null ? old.orderGroupHandle : null);
    });
  }

  /** Stops one instance (cancel, drain, release its group). */
  stop(id: string): Promise<void> {
    return this.#serial(async () => {
      const deployment = this.#byId.get(id);
      if (deployment === undefined) throw new StrategyError('STRATEGY_UNKNOWN_ID', id, 'not running');
      await this.#stop(deployment, true);
    });
  }

  stopAll(): Promise<void> {
    return this.#serial(async () => {
      for (const deployment of [...this.#byId.values()]) await this.#stop(deployment, true);
      this.#stopTimer();
    });
  }

  /**
   * Stops every instance at once without cancelling anything or calling onStop: dispatch and the
   * timer end, every context refuses actions. A stand-in for a crash in tests, and the first,
   * synchronous step of an emergency stop (the kill switch then cancels at the exchange).
   */
  halt(): void {
    for (const d of this.#byId.values()) {
      if (d.status === 'running') d.status = 'stopped';
      d.ctx.setActive(false);
    }
    this.#reindex();
    this.#stopTimer();
  }

  /**
   * Brings the running set in line with `entries` (config reload): stops removed ids, deploys new
   * ones and redeploys entries whose content changed. Returns the ids acted on. Each redeploy is
   * independent: one failing entry is reported and the others proceed.
   */
  async applyEntries(entries: readonly StrategyEntry[]): Promise<{ stopped: string[]; deployed: string[]; redeployed: string[]; failed: { id: string; error: Error }[] }> {
    const result = { stopped: [] as string[], deployed: [] as string[], redeployed: [] as string[], failed: [] as { id: string; error: Error }[] };
    const wanted = new Map(entries.map((entry) => [entry.id, entry]));
    for (const id of [...this.#byId.keys()]) {
      if (wanted.has(id)) continue;
      try {
        await this.stop(id);
        result.stopped.push(id);
      } catch (error) {
        result.failed.push({ id, error: error as Error });
      }
    }
    for (const entry of entries) {
      const current = this.#byId.get(entry.id);
      try {
        if (current === undefined) {
          await this.deploy(entry);
          result.deployed.push(entry.id);
        } else if (current.status !== 'running' || entryKey(current.entry) !== entryKey(entry)) {
          await this.redeploy(entry.id, entry);
          result.redeployed.push(entry.id);
        }
      } catch (error) {
        result.failed.push({ id: entry.id, error: error as Error });
      }
    }
    return result;
  }

  /** The strategy number of an id (stable across redeploys), -1 when never deployed. */
  strategyNumber(id: string): number {
    return this.#numbers.get(id) ?? -1;
  }

  /** The live context of a running instance (tests and tools), undefined otherwise. */
  context(id: string): BoundStrategyContext | undefined {
    return this.#byId.get(id)?.ctx;
  }

  summaries(): DeploymentSummary[] {
    const out: DeploymentSummary[] = [];
    for (const d of this.#byId.values()) out.push(summaryOf(d));
    return out;
  }

  /** Sum of every running instance's deny counts, indexed by Deny code. */
  denyCounts(out: Float64Array): Float64Array {
    out.fill(0);
    for (const d of this.#byId.values()) {
      const denies = d.ctx.denies;
      for (let code = 0; code < denies.length && code < out.length; code++) out[code] += denies[code];
    }
    return out;
  }

  // ---- dispatch (hot path: synchronous, no allocation) -------------------------------------------

  onBookUpdate(book: StrategyBook): void {
    const list = this.#byMarket.get(book.ticker) ?? NO_DEPLOYMENTS;
    for (let i = 0; i < list.length; i++) {
      const d = list[i];
      if (d.status !== 'running') continue;
      // 'bestPrice': a change that moved no best price, unless the strategy asked for this market's next one.
      if (!d.everyBookUpdate && !book.topMoved) {
        const wanted = d.ctx.nextBookWanted;
        if (wanted.size === 0 || !wanted.delete(book.ticker)) continue;
      }
      try {
        d.strategy.onBook(book, d.ctx);
      } catch (error) {
        this.#fault(d, 'onBook', error);
      }
    }
  }

  /** The book resynchronised (a snapshot: topMoved): strategies see it through onBook again. */
  onBookResynced(book: StrategyBook): void {
    this.onBookUpdate(book);
  }

  onBookOutOfSync(book: StrategyBook): void {
    const list = this.#byMarket.get(book.ticker) ?? NO_DEPLOYMENTS;
    for (let i = 0; i < list.length; i++) {
      const d = list[i];
      if (d.status !== 'running' || d.strategy.onBookOutOfSync === undefined) continue;
      try {
        d.strategy.onBookOutOfSync(book, d.ctx);
      } catch (error) {
        this.#fault(d, 'onBookOutOfSync', error);
      }
    }
  }

  onTrade(trade: TradeView): void {
    const list = this.#byMarket.get(trade.marketTicker) ?? NO_DEPLOYMENTS;
    for (let i = 0; i < list.length; i++) {
      const d = list[i];
      if (d.status !== 'running' || d.strategy.onTrade === undefined) continue;
      try {
        d.strategy.onTrade(trade, d.ctx);
      } catch (error) {
        this.#fault(d, 'onTrade', error);
      }
    }
  }

  /**
   * One of our fills, after the OMS applied it. `strategyId` is the owner when the caller knows it
   * (the OMS does); otherwise the owner is looked up from the fill's client order id.
   */
  onFill(fill: FillView, strategyId = -1): void {
    let owner = strategyId;
    if (owner < 0 && fill.clientOrderId !== '') {
      const order = this.#ports.orders.order(fill.clientOrderId);
      if (order !== null) owner = order.strategyId;
    }
    const d = owner >= 0 ? this.#byNumber[owner] : undefined;
    if (d === undefined || d.status !== 'running' || d.strategy.onFill === undefined) return;
    try {
      d.strategy.onFill(fill, d.ctx);
    } catch (error) {
      this.#fault(d, 'onFill', error);
    }
  }

  /** One of our orders changed (state or counts), after the OMS applied it. */
  onOrderUpdate(order: OrderView): void {
    const d = order.strategyId >= 0 ? this.#byNumber[order.strategyId] : undefined;
    if (d === undefined || d.status !== 'running' || d.strategy.onOrderUpdate === undefined) return;
    try {
      d.strategy.onOrderUpdate(order, d.ctx);
    } catch (error) {
      this.#fault(d, 'onOrderUpdate', error);
    }
  }

  /** A create or amend the router held was sent or dropped (the router's HeldIntentListener). */
  onHeldIntent(entry: HeldSource, sent: boolean, deny: number): void {
    const d = entry.strategyId >= 0 ? this.#byNumber[entry.strategyId] : undefined;
    if (d === undefined || d.status !== 'running' || d.strategy.onHeld === undefined) return;
    const view = this.#heldView;
    view.clientOrderId = entry.clientOrderId;
    view.ticker = entry.ticker;
    view.kind = entry.kind === 0 ? 'create' : 'amend';
    view.sent = sent;
    view.deny = deny;
    try {
      d.strategy.onHeld(view, d.ctx);
    } catch (error) {
      this.#fault(d, 'onHeld', error);
    }
  }

  /** Market lifecycle to the instances of that market; event-level messages to every instance. */
  onLifecycle(event: LifecycleView): void {
    const list = event.marketTicker !== undefined && event.marketTicker !== '' ? (this.#byMarket.get(event.marketTicker) ?? NO_DEPLOYMENTS) : this.#running;
    for (let i = 0; i < list.length; i++) {
      const d = list[i];
      if (d.status !== 'running' || d.strategy.onLifecycle === undefined) continue;
      try {
        d.strategy.onLifecycle(event, d.ctx);
      } catch (error) {
        this.#fault(d, 'onLifecycle', error);
      }
    }
  }

  /** An RFQ created or deleted on a market: to the running instances trading it that implement onRfq. */
  onRfq(rfq: RfqView, deleted: boolean): void {
    const list = this.#byMarket.get(rfq.marketTicker) ?? NO_DEPLOYMENTS;
    for (let i = 0; i < list.length; i++) {
      const d = list[i];
      if (d.status !== 'running' || d.strategy.onRfq === undefined) continue;
      try {
        d.strategy.onRfq(rfq, d.ctx, deleted);
      } catch (error) {
        this.#fault(d, 'onRfq', error);
      }
    }
  }

  /** One of our quotes changed at the venue: to its strategy. */
  onQuoteUpdate(quote: QuoteView): void {
    const d = quote.strategyId >= 0 ? this.#byNumber[quote.strategyId] : undefined;
    if (d === undefined || d.status !== 'running' || d.strategy.onQuoteUpdate === undefined) return;
    try {
      d.strategy.onQuoteUpdate(quote, d.ctx);
    } catch (error) {
      this.#fault(d, 'onQuoteUpdate', error);
    }
  }

  /** One tick of the shared timer (also callable by tests with an injected clock). */
  tick(): void {
    const nowMs = this.#ports.clock.nowMs();
    const list = this.#running;
    for (let i = 0; i < list.length; i++) {
      const d = list[i];
      if (d.status !== 'running' || d.timerIntervalMs <= 0 || nowMs < d.nextTimerMs || d.strategy.onTimer === undefined) continue;
      d.nextTimerMs = nowMs + d.timerIntervalMs;
      try {
        d.strategy.onTimer(nowMs, d.ctx);
      } catch (error) {
        this.#fault(d, 'onTimer', error);
      }
    }
  }

  // ---- internals -----------------------------------------------------------------------------

  #serial<T>(operation: () => Promise<T>): Promise<T> {
    const run = this.#queue.then(operation, operation);
    this.#queue = run.catch(() => undefined);
    return run;
  }

  #nextBust(): string {
    this.#generation++;
    return `${Date.now().toString(36)}-${this.#generation}`;
  }

  #numberOf(id: string): number {
    let number = this.#numbers.get(id);
    if (number === undefined) {
      number = this.#numbers.size + 1; // 0 is left for orders no strategy owns
      this.#numbers.set(id, number);
    }
    return number;
  }

  async #deploy(entry: StrategyEntry, loaded: LoadedPlugin, reuseGroup: number | null): Promise<void> {
    const ports = this.#ports;
    const strategyId = this.#numberOf(entry.id);
    const route = ports.orders.routeIndex(entry.route ?? 'rest');
    if (route < 0) throw new StrategyError('STRATEGY_START_FAILED', entry.id, `route ${entry.route ?? 'rest'}: this runtime has no such order-entry route`);
    const modulePath = moduleFilePath(loaded.moduleUrl);
    let ids = this.#modules.get(modulePath);
    if (ids === undefined) this.#modules.set(modulePath, (ids = new Set<string>()));
    ids.add(entry.id);
    try {
      await ports.markets.ensureMarkets(entry.markets);
    } catch (error) {
      throw new StrategyError('STRATEGY_START_FAILED', entry.id, `markets ${entry.markets.join(', ')}: ${(error as Error).message}`);
    }
    let group = -1;
    if (reuseGroup !== null) group = reuseGroup;
    else if (entry.orderGroup !== null) {
      if (ports.orderGroups === null) throw new StrategyError('STRATEGY_START_FAILED', entry.id, 'an order group is configured but the runtime offers none');
      try {
        group = await ports.orderGroups.create(entry.subaccount, entry.orderGroup.contractsLimit);
      } catch (error) {
        throw new StrategyError('STRATEGY_START_FAILED', entry.id, `order group: ${(error as Error).message}`);
      }
    }
    let strategy: Strategy;
    try {
      strategy = loaded.plugin.create(loaded.params);
      if (typeof strategy !== 'object' || strategy === null || typeof strategy.onBook !== 'function') throw new Error('create() must return an object with onBook');
    } catch (error) {
      await this.#releaseGroup(entry, group);
      throw new StrategyError('STRATEGY_CREATE_FAILED', entry.id, (error as Error).message);
    }
    const rehearsal = loaded.plugin.rehearse === true ? this.#rehearsalOf(entry, loaded) : null;
    const binding: ContextBinding = {
      id: entry.id,
      strategyId,
      subaccount: entry.subaccount,
      orderGroup: group,
      markets: Object.freeze([...entry.markets]),
      params: loaded.params,
      log: ports.logger.child({ strategy: entry.id }),
      route,
    };
    const ctx = new BoundStrategyContext(binding, ports.orders, ports.markets, ports.clock, ports.candles ?? null, ports.quotes ?? null, ports.triggers ?? null);
    ports.orders.setHolding?.(strategyId, entry.holdIntents ?? true, entry.priority ?? 1);
    const interval = loaded.timerIntervalMs > 0 ? Math.max(loaded.timerIntervalMs, this.#tickMs) : 0;
    const deployment = new Deployment(entry, loaded, strategy, ctx, group, interval, loaded.everyBookUpdate);
    // Active before onStart so a strategy may place its first quotes there.
    ctx.setActive(true);
    try {
      strategy.onStart?.(ctx);
    } catch (error) {
      ctx.setActive(false);
      ctx.cancelAllForShutdown();
      await this.#releaseGroup(entry, group);
      throw new StrategyError('STRATEGY_START_FAILED', entry.id, `onStart threw: ${(error as Error).message}`);
    }
    deployment.status = 'running';
    deployment.rehearsal = rehearsal;
    deployment.nextTimerMs = ports.clock.nowMs() + interval;
    this.#byId.set(entry.id, deployment);
    this.#byNumber[strategyId] = deployment;
    this.#reindex();
    ctx.log.info({ plugin: entry.plugin, pluginName: loaded.plugin.name, markets: entry.markets, subaccount: entry.subaccount, orderGroup: group, timerIntervalMs: interval }, 'strategy started');
  }

  async #stop(d: Deployment, releaseGroup: boolean): Promise<void> {
    if (d.status === 'running' || d.status === 'faulted') {
      const wasRunning = d.status === 'running';
      d.status = 'stopping';
      d.ctx.setActive(false);
      this.#reindex();
      if (wasRunning) {
        try {
          d.strategy.onStop?.(d.ctx);
        } catch (error) {
          d.ctx.log.error({ err: error, code: 'STRATEGY_CALLBACK_THREW', callback: 'onStop' }, 'strategy onStop threw');
        }
      }
    }
    d.ctx.cancelQuotesForShutdown(); // open quotes withdrawn; accepted ones lapse unconfirmed
    const drained = await this.#drain(d);
    if (!drained) d.ctx.log.warn({ code: 'STRATEGY_DRAIN_TIMEOUT', timeoutMs: this.#drainTimeoutMs }, 'orders still live after stop; the OMS keeps tracking them');
    if (releaseGroup) await this.#releaseGroup(d.entry, d.orderGroupHandle);
    if (d.status === 'stopping') d.status = 'stopped';
    if (this.#byId.get(d.entry.id) === d) this.#byId.delete(d.entry.id);
    if (this.#byNumber[d.ctx.strategyId] === d) this.#byNumber[d.ctx.strategyId] = undefined;
    this.#reindex();
    d.ctx.log.info({ drained }, 'strategy stopped');
  }

  /** Cancels the instance's live orders and waits until the OMS shows none; false on timeout. */
  async #drain(d: Deployment): Promise<boolean> {
    // Real elapsed time, not the injected clock: this bounds how long a stop may take.
    const started = Date.now();
    let lastCancelMs = -Infinity;
    for (;;) {
      const live = this.#ports.orders.openOrders(d.ctx.strategyId, null, this.#scratch);
      if (live === 0) return true;
      const elapsed = Date.now() - started;
      if (elapsed >= this.#drainTimeoutMs) return false;
      if (elapsed - lastCancelMs >= this.#cancelRetryMs) {
        lastCancelMs = elapsed;
        d.ctx.cancelAllForShutdown();
      }
      await sleep(this.#drainPollMs);
    }
  }

  async #releaseGroup(entry: StrategyEntry, handle: number): Promise<void> {
    if (handle < 0 || this.#ports.orderGroups === null) return;
    try {
      await this.#ports.orderGroups.release(handle, entry.subaccount);
    } catch (error) {
      this.#ports.logger.warn({ strategy: entry.id, err: error, code: 'STRATEGY_GROUP_RELEASE_FAILED' }, 'order group release failed');
    }
  }

  /**
   * An error that escaped every callback to the process: a plugin's own timer that threw, or a
   * promise it left rejected. When the error's stack names a plugin module, every running
   * instance of that module is faulted as if a callback had thrown (orders cancelled, the rest
   * keep trading) and their ids are returned; instances already faulted or stopped absorb it.
   * Returns null when no plugin is named: the caller must end the process through its stop path.
   */
  faultEscapedError(error: unknown, origin: string): string[] | null {
    const stack = error instanceof Error && typeof error.stack === 'string' ? error.stack : '';
    if (stack === '') return null;
    let named: string[] | null = null;
    for (const [path, ids] of this.#modules) {
      if (!stack.includes(path) && !stack.includes(pathToFileURL(path).href)) continue;
      named ??= [];
      for (const id of ids) {
        named.push(id);
        const d = this.#byId.get(id);
        if (d !== undefined) this.#fault(d, origin, error);
      }
    }
    return named;
  }

  #fault(d: Deployment, callback: string, error: unknown): void {
    if (d.status !== 'running') return;
    d.status = 'faulted';
    d.fault = `${callback}: ${(error as Error)?.message ?? String(error)}`;
    d.ctx.setActive(false);
    d.ctx.log.error({ err: error, code: 'STRATEGY_CALLBACK_THREW', callback }, 'strategy callback threw; stopping it and cancelling its orders');
    // Cancels go out now (synchronously, through the gate); the drain finishes off the hot path.
    d.ctx.cancelAllForShutdown();
    d.ctx.cancelQuotesForShutdown();
    void this.#serial(async () => {
      if (this.#byId.get(d.entry.id) !== d) return;
      await this.#drain(d);
      this.#reindex();
    });
    this.#reindex();
  }

  /** The plugin's second instance for the keep-warm (plugin rehearse: true); null, with a warning, when create() fails. */
  #rehearsalOf(entry: StrategyEntry, loaded: LoadedPlugin): Strategy | null {
    try {
      const rehearsal = loaded.plugin.create(loaded.params);
      if (typeof rehearsal === 'object' && rehearsal !== null && typeof rehearsal.onBook === 'function') return rehearsal;
      throw new Error('create() must return an object with onBook');
    } catch (error) {
      this.#ports.logger.warn({ strategy: entry.id, err: error, code: 'STRATEGY_REHEARSAL_DROPPED' }, 'no keep-warm rehearsal for this strategy: its second instance could not be made');
      return null;
    }
  }

  /**
   * The second instances (plugin rehearse: true) of the running strategies, for the keep-warm's
   * rehearsal: the array is replaced when a strategy starts, stops or faults (never per call).
   */
  get rehearsals(): readonly Strategy[] {
    return this.#rehearsals;
  }

  /** A rehearsal instance threw: it leaves the rehearsal for good (the deployment itself runs on). */
  rehearsalFailed(rehearsal: Strategy, error: unknown): void {
    for (const d of this.#byId.values()) {
      if (d.rehearsal !== rehearsal) continue;
      d.rehearsal = null;
      d.ctx.log.warn({ err: error, code: 'STRATEGY_REHEARSAL_DROPPED' }, 'the keep-warm rehearsal of this strategy threw: dropped from the rehearsal');
    }
    this.#reindex();
  }

  #reindex(): void {
    const byMarket = new Map<string, Deployment[]>();
    const running: Deployment[] = [];
    const rehearsals: Strategy[] = [];
    for (const d of this.#byId.values()) {
      if (d.status !== 'running') continue;
      running.push(d);
      if (d.rehearsal !== null) rehearsals.push(d.rehearsal);
      for (const ticker of d.ctx.markets) {
        let list = byMarket.get(ticker);
        if (list === undefined) {
          list = [];
          byMarket.set(ticker, list);
        }
        list.push(d);
      }
    }
    this.#byMarket = byMarket;
    this.#running = running;
    this.#rehearsals = rehearsals;
    this.#syncTimer();
  }

  #syncTimer(): void {
    const wanted = !this.#drivenTicks && this.#running.some((d) => d.timerIntervalMs > 0);
    if (wanted && this.#timer === null) {
      this.#timer = setInterval(() => this.tick(), this.#tickMs);
      this.#timer.unref();
    } else if (!wanted) this.#stopTimer();
  }

  #stopTimer(): void {
    if (this.#timer !== null) {
      clearInterval(this.#timer);
      this.#timer = null;
    }
  }
}

/**
 * Loads every entry's plugin and validates its params without starting anything; throws one
 * StrategyError listing every problem (ids used twice, modules missing or invalid, bad params).
 * The main job calls it before it starts a venue, so a bad config fails fast.
 */
export async function loadEntries(entries: readonly StrategyEntry[], rootDir: string, runningIds: ReadonlySet<string> = new Set()): Promise<LoadedPlugin[]> {
  const seen = new Set<string>();
  const errors: StrategyError[] = [];
  const loaded: LoadedPlugin[] = [];
  for (const entry of entries) {
    if (seen.has(entry.id) || runningIds.has(entry.id)) {
      errors.push(new StrategyError('STRATEGY_DUPLICATE_ID', entry.id, 'id used twice'));
      continue;
    }
    seen.add(entry.id);
    try {
      loaded.push(await loadPlugin(entry, { rootDir }));
    } catch (error) {
      errors.push(error instanceof StrategyError ? error : new StrategyError('STRATEGY_PLUGIN_INVALID', entry.id, (error as Error).message));
    }
  }
  if (errors.length === 1) throw errors[0];
  if (errors.length > 1) {
    const problems = errors.map((error) => error.message);
    throw new StrategyError(errors[0].code, errors[0].strategyId, `${errors.length} problems in strategies[]`, problems);
  }
  return loaded;
}

function entryKey(entry: StrategyEntry): string {
  return JSON.stringify([entry.plugin, entry.subaccount, entry.orderGroup, entry.markets, entry.params]);
}

function summaryOf(d: Deployment): DeploymentSummary {
  const denies: Record<string, number> = {};
  const counts = d.ctx.denies;
  for (let code = 1; code < counts.length; code++) if (counts[code] !== 0) denies[DENY_NAMES[code]] = counts[code];
  let accepted = 0;
  for (const n of d.ctx.accepted) accepted += n;
  accepted += d.ctx.quotesAccepted;
  return {
    id: d.entry.id,
    plugin: d.entry.plugin,
    pluginName: d.loaded.plugin.name,
    strategyId: d.ctx.strategyId,
    status: d.status,
    subaccount: d.entry.subaccount,
    markets: d.ctx.markets,
    orderGroup: d.orderGroupHandle,
    accepted,
    denies,
    fault: d.fault,
  };
}

/** The plugin's file path without the redeploy cache-bust query, as stack frames show it. */
function moduleFilePath(moduleUrl: string): string {
  const url = new URL(moduleUrl);
  url.search = '';
  return fileURLToPath(url);
}
