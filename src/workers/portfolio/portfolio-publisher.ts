/**
 * PortfolioRiskPublisher: keeps the gate's portfolio snapshot (src/risk/portfolio-view.ts) current
 * from the worker pool, off the hot path.
 *
 *   every debounceMs (a timer, never per order): the ledger's version moved, or refreshMs passed
 *     -> pack every (market, subaccount) slot of the gate's ledger, with the OMS's cost basis,
 *        into one Float64Array (reused; moved to the worker and back)
 *     -> pool.run('portfolioRisk')        worker: computePortfolioRisk
 *     -> view.publish(snapshot)           one assignment; the gate reads it on its next check
 *
 * Changes are batched: however many orders and fills happen within debounceMs, one recompute
 * follows, and never two at once. The snapshot is stamped with the time it was packed, so a dead
 * or stuck worker shows as age: the gate denies orders that add risk once the age passes
 * risk.portfolioSnapshotMaxAgeMs (PORTFOLIO_RISK_STALE), while cancels and reducing orders pass.
 * A failed recompute (a worker that died: piscina starts another) is reported through onFailure
 * and the counters and tried again at the next tick; trading never stops for it.
 * This file owns the cadence, the packing and the event table; the arithmetic is portfolio-risk.ts.
 */

import { assert } from '../../core/index.ts';

/**
 * Ledger slots one recompute per debounceMs may pack. Packing and handing 5,000 markets' slots to
 * the worker took ~2.5 ms of the loop 20 times a second; above this many slots the recomputes come
 * no more often than debounceMs x slots / PACK_SLOTS (5,000 slots, 50 ms: every 250 ms).
 */
const PACK_SLOTS = 1_000;
import type { PortfolioView } from '../../risk/index.ts';
import type { CandlePool } from '../candles/candle-pool.ts';
import { PortfolioInput, ROW_STRIDE, Row, inputOffsets, portfolioInputLength } from './portfolio-risk.ts';
import type { PortfolioTaskInput, PortfolioTaskOutput } from './portfolio-task.ts';

/** What the publisher reads of the gate's exposure ledger (ExposureLedger satisfies it). */
export interface PortfolioLedger {
  readonly version: number;
  readonly slotCount: number;
  slotAt(index: number): { readonly market: number; readonly subaccount: number; readonly position: number; readonly bidCostMicro: number; readonly askCostMicro: number };
  addedMicro(subaccount: number): number;
  readonly addedMicroTotal: number;
}

export interface PortfolioPublisherOptions {
  ledger: PortfolioLedger;
  view: PortfolioView;
  /**
   * Signed cost in YES terms (micro-dollars) of `position` in (subaccount, market): the OMS's cost
   * basis. The runtime answers conservatively when it does not know it.
   */
  costMicro: (subaccount: number, market: number, position: number) => number;
  nowMs: () => number;
  /** How often changes are looked for (and at most one recompute starts), ms. */
  debounceMs: number;
  /** A recompute at least this often even without changes, so the snapshot's age shows a live worker, ms. */
  refreshMs: number;
  onFailure?: (error: unknown) => void;
}

export class PortfolioPublisherStats {
  recomputes = 0;
  failures = 0;
  /** Ticks that found the pool's queue full. */
  deferred = 0;
}

export class PortfolioRiskPublisher {
  readonly stats = new PortfolioPublisherStats();
  readonly view: PortfolioView;
  readonly #options: PortfolioPublisherOptions;
  readonly #eventIndex = new Map<string, number>();
  #mutual: number[] = [];
  #eventOf = new Int32Array(64).fill(-1);
  #marketCount = 0;
  #pool: CandlePool | null = null;
  #timer: NodeJS.Timeout | null = null;
  #inFlight = false;
  #packedVersion = -1;
  #packedAtMs = 0;
  /** When the last pack started (its nowMs): spaces packs out on large ledgers. */
  #startedAtMs = -Infinity;
  #generation = 0;
  #spare: Float64Array | null = null;
  #waiters: Array<() => void> = [];
  #lastError: unknown = null;

  constructor(options: PortfolioPublisherOptions) {
    this.#options = options;
    this.view = options.view;
  }

  /** Off the hot path (when a market is learnt): `market` belongs to event `eventTicker`. */
  setEvent(market: number, eventTicker: string, mutuallyExclusive: boolean): void {
    let index = this.#eventIndex.get(eventTicker);
    if (index === undefined) {
      index = this.#mutual.length;
      this.#eventIndex.set(eventTicker, index);
      this.#mutual.push(mutuallyExclusive ? 1 : 0);
    } else if (mutuallyExclusive) {
      this.#mutual[index] = 1;
    }
    this.#growMarkets(market + 1);
    this.#eventOf[market] = index;
    this.view.setEventOf(market, index);
    this.#packedVersion = -1; // the next tick recomputes with the new event table
  }

  /** Event index of an event ticker, -1 when unknown. */
  eventIndex(eventTicker: string): number {
    return this.#eventIndex.get(eventTicker) ?? -1;
  }

  get generation(): number {
    return this.#generation;
  }

  get lastError(): unknown {
    return this.#lastError;
  }

  start(pool: CandlePool): void {
    assert(this.#timer === null, 'PortfolioRiskPublisher.start twice');
    this.#pool = pool;
    this.#timer = setInterval(() => this.tick(), this.#options.debounceMs);
    this.#timer.unref();
    this.tick();
  }

  stop(): void {
    if (this.#timer !== null) clearInterval(this.#timer);
    this.#timer = null;
    this.#pool = null;
  }

  /** Resolves at the next published snapshot (or at once when one was published after `generation`). */
  published(after = this.view.generation): Promise<void> {
    if (this.view.generation > after) return Promise.resolve();
    return new Promise((resolve) => this.#waiters.push(resolve));
  }

  /** Starts a recompute when something changed or refreshMs passed and none is running. Never waits. */
  tick(): void {
    const pool = this.#pool;
    if (pool === null || this.#inFlight) return;
    const ledger = this.#options.ledger;
    const nowMs = this.#options.nowMs();
    if (ledger.version === this.#packedVersion && nowMs - this.#packedAtMs < this.#options.refreshMs) return;
    // A pack walks every ledger slot: above PACK_SLOTS the recomputes spread out in proportion.
    const slots = ledger.slotCount;
    if (slots > PACK_SLOTS && nowMs - this.#startedAtMs < (this.#options.debounceMs * slots) / PACK_SLOTS) return;
    this.#startedAtMs = nowMs;
    const input = this.#pack(nowMs);
    const generation = this.#generation + 1;
    const promise = pool.run<PortfolioTaskInput, PortfolioTaskOutput>('portfolioRisk', { input, generation }, [input.buffer as ArrayBuffer]);
    if (promise === null) {
      this.stats.deferred++;
      this.#spare = input;
      return;
    }
    this.#inFlight = true;
    const version = ledger.version;
    promise.then(
      (output) => {
        this.#inFlight = false;
        this.#spare = output.input;
        this.#generation = generation;
        this.#packedVersion = version;
        this.#packedAtMs = nowMs;
        this.stats.recomputes++;
        this.view.publish(output.snapshot);
        const waiters = this.#waiters;
        this.#waiters = [];
        for (const wake of waiters) wake();
      },
      (error: unknown) => {
        // The input went down with the worker (or the task): a fresh one is packed next time.
        this.#inFlight = false;
        this.#spare = null;
        this.stats.failures++;
        this.#lastError = error;
        this.#options.onFailure?.(error);
      },
    );
  }

  #growMarkets(count: number): void {
    if (count > this.#eventOf.length) {
      let size = this.#eventOf.length * 2;
      while (size < count) size *= 2;
      const grown = new Int32Array(size).fill(-1);
      grown.set(this.#eventOf);
      this.#eventOf = grown;
    }
    if (count > this.#marketCount) this.#marketCount = count;
  }

  #pack(nowMs: number): Float64Array {
    const { ledger, costMicro } = this.#options;
    const slots = ledger.slotCount;
    for (let i = 0; i < slots; i++) this.#growMarkets(ledger.slotAt(i).market + 1);
    const eventCount = this.#mutual.length;
    const marketCount = this.#marketCount;
    const length = portfolioInputLength(slots, eventCount, marketCount);
    let input = this.#spare;
    if (input === null || input.length < length) input = new Float64Array(Math.max(length, 2 * (input?.length ?? 0)));
    this.#spare = null;
    input[PortfolioInput.ROW_COUNT] = slots;
    input[PortfolioInput.EVENT_COUNT] = eventCount;
    input[PortfolioInput.MARKET_COUNT] = marketCount;
    input[PortfolioInput.PACKED_AT_MS] = nowMs;
    input[PortfolioInput.ADDED_TOTAL] = ledger.addedMicroTotal;
    for (let s = 0; s < 64; s++) input[PortfolioInput.SUB_ADDED + s] = ledger.addedMicro(s);
    for (let e = 0; e < eventCount; e++) input[PortfolioInput.MUTUAL + e] = this.#mutual[e];
    const { eventOf, rows } = inputOffsets(eventCount, marketCount);
    for (let m = 0; m < marketCount; m++) input[eventOf + m] = this.#eventOf[m];
    for (let i = 0; i < slots; i++) {
      const slot = ledger.slotAt(i);
      const at = rows + i * ROW_STRIDE;
      input[at + Row.MARKET] = slot.market;
      input[at + Row.SUBACCOUNT] = slot.subaccount;
      input[at + Row.POSITION] = slot.position;
      input[at + Row.COST] = slot.position === 0 ? 0 : costMicro(slot.subaccount, slot.market, slot.position);
      input[at + Row.BID_COST] = slot.bidCostMicro;
      input[at + Row.ASK_COST] = slot.askCostMicro;
    }
    return input;
  }
}
