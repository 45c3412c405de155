/**
 * CandleFeed: the runtime's live candlesticks, kept current by the worker pool.
 *
 *   hot path (main thread)                       off the hot path
 *   onTrade / onTop  -> CandleBatch row (shared buffer, no object per row, never waits)
 *   flush timer: batch + published snapshot + spare snapshot -> pool.run('candleSeries')
 *                                                 worker: advanceSeries(source -> target)
 *   answer: published = target (one assignment); the batch is free again
 *   strategies: view(ticker, minutes).close(i) reads the published snapshot, never waiting
 *
 * Book tops are appended only when the top changed (bid or ask), trades always. Rows are clamped to
 * time order per market and to the last flush's instant, so the worker's aggregation never sees a
 * row out of order or in a period it already closed. Batches are preallocated (a fixed ring); when
 * every batch is full or busy, rows are dropped and counted (never a wait, never a growth). One
 * task runs at a time: each advances the snapshot the previous one published.
 *
 * Failures: a worker that exits mid-task is replaced by piscina and the same batch is tried again
 * (RETRIES_MAX times); a task that fails (a broken invariant) loses its batch, counted. Both are
 * reported through the pool's onFailure and the counters; candles keep flowing from the next batch.
 *
 * At start the runtime backfills each market from the venue (backfill()); the venue's candles are
 * written into the published snapshot between tasks. This file owns the batching, the snapshot
 * pair and the views; the arithmetic is candle-series.ts.
 */

import { assert } from '../../core/index.ts';
import { CandleBatch, PRICE_MAX, ROW_COUNT_MAX, UNCHANGED } from './candle-batch.ts';
import type { CandlePool } from './candle-pool.ts';
import type { CandleSeriesTaskInput, CandleSeriesTaskOutput } from './candle-series-task.ts';
import { CANDLE_STRIDE, CandleField, NULL_PRICE, type Candle } from './candle-table.ts';
import { createSeries, intervalIndex, readCandle, ringOffset, seriesAsOfMs, seriesGeneration, writeBackfill } from './candle-series.ts';

/** Tries of one batch after its worker exited (piscina starts a new worker each time). */
const RETRIES_MAX = 2;

export interface CandleFeedOptions {
  /** Interval lengths kept, minutes (1, 60, 1440 are the venue's). */
  intervals: readonly number[];
  /** Candles kept per market per interval (the newest is the period in progress). */
  kept: number;
  /** Markets that can be tracked; later ones get no candles (counted in marketsRefused). */
  marketsMax: number;
  /** Rows per batch and batches in the ring. */
  batchRows: number;
  batchCount: number;
  /** Unix ms. */
  nowMs: () => number;
}

export class CandleFeedStats {
  rowsAppended = 0;
  /** Top changes and trades dropped because every batch was full or in a task. */
  rowsDropped = 0;
  /** Rows with a price or count outside the batch's ranges (never appended). */
  rowsInvalid = 0;
  tasksCompleted = 0;
  /** Tasks whose worker exited and were tried again. */
  retries = 0;
  /** Batches lost to a failed task (or one that kept killing its worker). */
  batchesLost = 0;
  marketsRefused = 0;
}

/** The read side strategies get: one market at one interval, oldest candle first. */
export class LiveCandles {
  readonly ticker: string;
  readonly intervalMinutes: number;
  readonly #feed: CandleFeed;
  readonly #ring: number;

  constructor(feed: CandleFeed, ticker: string, intervalMinutes: number, ring: number) {
    this.#feed = feed;
    this.ticker = ticker;
    this.intervalMinutes = intervalMinutes;
    this.#ring = ring;
  }

  /** Candles available (0 until the first flush or backfill). */
  get length(): number {
    return this.#feed.published[this.#ring];
  }

  /** Generation of the snapshot read (bumps at every publish). */
  get generation(): number {
    return seriesGeneration(this.#feed.published);
  }

  /** A CandleField value of candle `index` (0 oldest, length-1 newest); allocation-free. */
  field(index: number, field: number): number {
    const values = this.#feed.published;
    if (index < 0 || index >= values[this.#ring]) return NULL_PRICE;
    return values[this.#ring + 1 + index * CANDLE_STRIDE + field];
  }

  endTs(index: number): number {
    return this.field(index, CandleField.END_TS);
  }

  open(index: number): number {
    return this.field(index, CandleField.OPEN);
  }

  high(index: number): number {
    return this.field(index, CandleField.HIGH);
  }

  low(index: number): number {
    return this.field(index, CandleField.LOW);
  }

  /** Last trade price of the period, -1 (PRICE_INVALID) when it had none. */
  close(index: number): number {
    return this.field(index, CandleField.CLOSE);
  }

  mean(index: number): number {
    return this.field(index, CandleField.MEAN);
  }

  volume(index: number): number {
    return this.field(index, CandleField.VOLUME);
  }

  yesBidClose(index: number): number {
    return this.field(index, CandleField.BID_CLOSE);
  }

  yesAskClose(index: number): number {
    return this.field(index, CandleField.ASK_CLOSE);
  }

  /** Candle `index` as a record (allocates); null when out of range. */
  candle(index: number): Candle | null {
    const values = this.#feed.published;
    if (index < 0 || index >= values[this.#ring]) return null;
    return readCandle(values, this.#ring + 1 + index * CANDLE_STRIDE);
  }
}

interface PendingBackfill {
  slot: number;
  interval: number;
  candles: readonly Candle[];
}

export class CandleFeed {
  readonly stats = new CandleFeedStats();
  readonly intervals: readonly number[];
  readonly #options: CandleFeedOptions;
  readonly #slotOf = new Map<string, number>();
  readonly #tickers: string[] = [];
  readonly #views: LiveCandles[][] = [];
  readonly #lastBid: Int32Array;
  readonly #lastAsk: Int32Array;
  readonly #lastTs: Float64Array;
  readonly #batches: CandleBatch[] = [];
  /** Batch indexes waiting for a task, FIFO in a fixed ring. */
  readonly #queue: Int32Array;
  #queueHead = 0;
  #queueLength = 0;
  #filling = 0;
  /** Busy flags per batch: filling, queued or in a task. */
  readonly #busy: Uint8Array;
  #snapshots: [Float64Array, Float64Array];
  #publishedIndex = 0;
  /** The published snapshot: what every view reads. */
  published: Float64Array;
  #pool: CandlePool | null = null;
  #timer: NodeJS.Timeout | null = null;
  #inTask = -1;
  #tries = 0;
  /** Rows are never older than the instant of the last task submitted. */
  #floorMs = 0;
  #maxRowMs = 0;
  #backfills: PendingBackfill[] = [];
  #idleWaiters: Array<() => void> = [];

  constructor(options: CandleFeedOptions) {
    assert(options.batchCount >= 2, 'CandleFeed: at least two batches (one filling, one in a task)');
    this.#options = options;
    this.intervals = Object.freeze([...options.intervals]);
    this.#snapshots = [createSeries(options.marketsMax, options.intervals, options.kept), createSeries(options.marketsMax, options.intervals, options.kept)];
    this.published = this.#snapshots[0];
    this.#lastBid = new Int32Array(options.marketsMax).fill(-2);
    this.#lastAsk = new Int32Array(options.marketsMax).fill(-2);
    this.#lastTs = new Float64Array(options.marketsMax);
    for (let i = 0; i < options.batchCount; i++) this.#batches.push(CandleBatch.create(options.batchRows, true));
    this.#queue = new Int32Array(options.batchCount);
    this.#busy = new Uint8Array(options.batchCount);
    this.#busy[0] = 1;
  }

  /** Starts candles for a market (off the hot path); its slot, or -1 when marketsMax are tracked. */
  track(ticker: string): number {
    const known = this.#slotOf.get(ticker);
    if (known !== undefined) return known;
    const slot = this.#tickers.length;
    if (slot >= this.#options.marketsMax) {
      this.stats.marketsRefused++;
      return -1;
    }
    this.#tickers.push(ticker);
    this.#slotOf.set(ticker, slot);
    this.#views.push(this.intervals.map((minutes, i) => new LiveCandles(this, ticker, minutes, ringOffset(this.published, slot, i))));
    return slot;
  }

  get tickers(): readonly string[] {
    return this.#tickers;
  }

  /** The live candles of a tracked market at a kept interval; null otherwise. Allocation-free. */
  view(ticker: string, intervalMinutes: number): LiveCandles | null {
    const slot = this.#slotOf.get(ticker);
    if (slot === undefined) return null;
    const index = intervalIndex(this.published, intervalMinutes);
    return index < 0 ? null : this.#views[slot][index];
  }

  get generation(): number {
    return seriesGeneration(this.published);
  }

  get asOfMs(): number {
    return seriesAsOfMs(this.published);
  }

  /** Batches waiting for a task (the candle side of the pool's queue). */
  get batchesQueued(): number {
    return this.#queueLength;
  }

  // ---- the hot path: one typed-array row, or nothing ------------------------------------------

  /** A public trade: YES price (1/10,000 $), count (1/100 contract), venue time (ms, < 0: now). */
  onTrade(ticker: string, yesPrice: number, count: number, tsMs: number): void {
    const slot = this.#slotOf.get(ticker);
    if (slot === undefined) return;
    if (!(yesPrice >= 0 && yesPrice <= PRICE_MAX && count > 0 && count <= ROW_COUNT_MAX)) {
      this.stats.rowsInvalid++;
      return;
    }
    this.#append(slot, this.#timeOf(slot, tsMs), yesPrice, count, UNCHANGED, UNCHANGED);
  }

  /** The book's top after an update (PRICE_INVALID / < 0 side: empty, written as 0); only a change is kept. */
  onTop(ticker: string, yesBid: number, yesAsk: number): void {
    const slot = this.#slotOf.get(ticker);
    if (slot === undefined) return;
    const bid = yesBid > 0 && yesBid <= PRICE_MAX ? yesBid : 0;
    const ask = yesAsk > 0 && yesAsk <= PRICE_MAX ? yesAsk : 0;
    if (bid === this.#lastBid[slot] && ask === this.#lastAsk[slot]) return;
    this.#lastBid[slot] = bid;
    this.#lastAsk[slot] = ask;
    this.#append(slot, this.#timeOf(slot, -1), 0, 0, bid, ask);
  }

  #timeOf(slot: number, tsMs: number): number {
    let ts = tsMs >= 0 ? tsMs : this.#options.nowMs();
    if (ts < this.#lastTs[slot]) ts = this.#lastTs[slot];
    if (ts < this.#floorMs) ts = this.#floorMs;
    this.#lastTs[slot] = ts;
    if (ts > this.#maxRowMs) this.#maxRowMs = ts;
    return ts;
  }

  #append(slot: number, tsMs: number, price: number, count: number, bid: number, ask: number): void {
    let batch = this.#batches[this.#filling];
    if (batch.full) {
      if (!this.#rotate()) {
        this.stats.rowsDropped++;
        return;
      }
      batch = this.#batches[this.#filling];
    }
    batch.appendRow(slot, tsMs, price, count, bid, ask, UNCHANGED);
    this.stats.rowsAppended++;
  }

  /** Queues the filling batch and takes a free one; false when none is free. */
  #rotate(): boolean {
    const batches = this.#batches.length;
    for (let i = 1; i < batches; i++) {
      const next = (this.#filling + i) % batches;
      if (this.#busy[next] === 0) {
        this.#enqueue(this.#filling);
        this.#busy[next] = 1;
        this.#batches[next].clear();
        this.#filling = next;
        return true;
      }
    }
    return false;
  }

  #enqueue(index: number): void {
    this.#queue[(this.#queueHead + this.#queueLength) % this.#queue.length] = index;
    this.#queueLength++;
  }

  // ---- off the hot path -----------------------------------------------------------------------

  /** Starts flushing every `flushMs` through `pool`. */
  start(pool: CandlePool, flushMs: number): void {
    assert(this.#timer === null, 'CandleFeed.start twice');
    this.#pool = pool;
    this.#timer = setInterval(() => this.flush(), flushMs);
    this.#timer.unref();
  }

  /** Queues the venue's candles of one market (oldest first) for the snapshot; applied between tasks. */
  backfill(ticker: string, intervalMinutes: number, candles: readonly Candle[]): boolean {
    const slot = this.#slotOf.get(ticker);
    const interval = intervalIndex(this.published, intervalMinutes);
    if (slot === undefined || interval < 0) return false;
    this.#backfills.push({ slot, interval, candles });
    if (this.#inTask < 0) this.#applyBackfills();
    return true;
  }

  /**
   * Hands the oldest queued batch (else the filling one, even empty: candles of periods without
   * events still appear) to the pool, unless a task is running. Never waits.
   */
  flush(): void {
    const pool = this.#pool;
    if (pool === null || this.#inTask >= 0) return;
    this.#applyBackfills();
    let index: number;
    if (this.#queueLength > 0) {
      index = this.#queue[this.#queueHead];
    } else {
      index = this.#filling;
      if (!this.#rotate()) return; // every other batch is busy: the next answer frees one
      index = this.#queue[this.#queueHead];
    }
    const asOfMs = Math.max(this.#options.nowMs(), this.#maxRowMs, this.#floorMs, seriesAsOfMs(this.published));
    const batch = this.#batches[index];
    const input: CandleSeriesTaskInput = {
      source: this.published.buffer as SharedArrayBuffer,
      target: this.#snapshots[1 - this.#publishedIndex].buffer as SharedArrayBuffer,
      batch: batch.buffer as SharedArrayBuffer,
      batchLength: batch.length,
      asOfMs,
    };
    const promise = pool.run<CandleSeriesTaskInput, CandleSeriesTaskOutput>('candleSeries', input);
    if (promise === null) return; // the pool's queue is full: try at the next tick
    this.#floorMs = asOfMs;
    this.#inTask = index;
    promise.then(
      () => this.#settled(true, false),
      (error: unknown) => this.#settled(false, (error as { code?: string }).code === 'CANDLE_WORKER_EXITED'),
    );
  }

  #settled(ok: boolean, workerExited: boolean): void {
    const index = this.#inTask;
    this.#inTask = -1;
    if (ok) {
      this.#publishedIndex = 1 - this.#publishedIndex;
      this.published = this.#snapshots[this.#publishedIndex];
      this.stats.tasksCompleted++;
    } else if (workerExited && this.#tries < RETRIES_MAX) {
      // The same batch stays at the head of the queue for the next flush (a new worker by then).
      this.#tries++;
      this.stats.retries++;
      this.#wakeIdle();
      return;
    } else {
      this.stats.batchesLost++;
    }
    this.#tries = 0;
    this.#queueHead = (this.#queueHead + 1) % this.#queue.length;
    this.#queueLength--;
    this.#busy[index] = 0;
    this.#applyBackfills();
    this.#wakeIdle();
    // Full batches waiting: keep going now rather than at the next tick.
    if (this.#queueLength > 0) this.flush();
  }

  #wakeIdle(): void {
    const waiters = this.#idleWaiters;
    this.#idleWaiters = [];
    for (const wake of waiters) wake();
  }

  #applyBackfills(): void {
    if (this.#backfills.length === 0) return;
    const pending = this.#backfills;
    this.#backfills = [];
    for (const { slot, interval, candles } of pending) writeBackfill(this.published, slot, interval, candles);
  }

  /** Resolves once no task runs (tests, stop). */
  idle(): Promise<void> {
    if (this.#inTask < 0) return Promise.resolve();
    return new Promise((resolve) => this.#idleWaiters.push(resolve));
  }

  /** Stops the timer; the pool is the caller's to close. */
  stop(): void {
    if (this.#timer !== null) clearInterval(this.#timer);
    this.#timer = null;
    this.#pool = null;
  }
}
