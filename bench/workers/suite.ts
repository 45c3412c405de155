/**
 * Workers suite (issue 6 of 8): candlesticks and portfolio risk off the event loop, each beside the
 * same work on the main thread, in one process run.
 *
 * - Aggregation throughput: 1,000,000 trades over 100 markets into 1-minute candles, split in two
 *   batches on SharedArrayBuffers (no copy) for a pool of two threads (both cores), and for the
 *   runtime's default pool of one, against the same task (runCandleTask) run on the main thread.
 * - Event-loop stall: setImmediate round trips sampled every 1 ms while the runtime's pool (one
 *   thread: on two cores the other is the event loop's) aggregates the 1,000,000 trades and
 *   recomputes portfolio risk for 10,000 positions, against the same work on the main thread, and
 *   an idle loop.
 * - Tick-to-trade with the pool busy: the in-process hot path (bench/hot-path wiring, recorded
 *   orderbook_delta frames through Feed.handleBytes, one order per frame) timed while the pool
 *   works, against the same path with the pool idle.
 *
 * Every loop is bounded in count and time.
 */

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { CandleBatch, CandlePool, runCandleTask } from '../../src/workers/index.ts';
import { PortfolioInput, ROW_STRIDE, Row, inputOffsets, portfolioInputLength, runPortfolioTask } from '../../src/workers/index.ts';
import { makeFeedStream } from '../feed/delta-frames.ts';
import { SinkOrderEntry } from '../hot-path/sink-order-entry.ts';
import { FRAME_MS, buildHotPath } from '../hot-path/wiring.ts';
import type { HotPath } from '../hot-path/wiring.ts';
import { createHistogram, latencyRow, nowNs, recordNs } from '../harness.ts';
import type { BenchRow, BenchSuite, Histogram } from '../harness.ts';

const SUITE = 'workers';
const MARKETS = 100;
const START_MS = 1_798_761_600_000;
const AGG_POOL = 'aggregation in the pool (2 threads): trades/s';
const AGG_POOL_ONE = 'aggregation in the runtime\'s pool (1 thread, the default): trades/s';
const AGG_MAIN = 'aggregation on the main thread: trades/s';
const STALL_POOL = 'event-loop stall while the pool works (1M trades + risk for 10,000 positions)';
const STALL_MAIN = 'event-loop stall while the main thread does the same work';
const STALL_IDLE = 'event-loop stall, idle loop';
const T2T_BUSY = 'tick-to-trade in process (frame in -> handleBytes returned), pool busy';
const T2T_IDLE = 'tick-to-trade in process, pool idle';

/**
 * `trades` seeded trades over MARKETS markets, 1,000 per second of market time (1M trades: about 17
 * minutes, so 1-minute candles for 100 markets, as a live flush sees them), in `parts` shared batches.
 */
function tradeBatches(trades: number, parts: number): CandleBatch[] {
  const batches: CandleBatch[] = [];
  let state = 12345;
  const random = (): number => {
    state = (Math.imul(state, 1103515245) + 12345) & 0x7fffffff;
    return state / 0x80000000;
  };
  const per = Math.ceil(trades / parts);
  for (let part = 0; part < parts; part++) {
    const batch = CandleBatch.create(per, true);
    for (let i = 0; i < per && part * per + i < trades; i++) {
      const n = part * per + i;
      const price = 100 * (10 + Math.floor(random() * 80)); // 0.10..0.89 on the cent grid
      batch.appendTrade(n % MARKETS, START_MS + n, price, 100 * (1 + Math.floor(random() * 20)));
    }
    batches.push(batch);
  }
  return batches;
}

function candleInput(batch: CandleBatch, trades: number) {
  const endTs = Math.floor((START_MS + trades) / 1000) + 60;
  return {
    batch: batch.buffer,
    batchLength: batch.length,
    marketCount: MARKETS,
    intervalMinutes: 1,
    startTs: Math.floor(START_MS / 1000),
    endTs,
    asOfMs: endTs * 1000,
    maxCandidates: 10_000_000,
    seeds: null,
  };
}

/** A portfolio of `positions` rows over 1,000 markets in 100 events (every tenth event mutually exclusive). */
function portfolioInput(positions: number): Float64Array {
  const markets = 1_000;
  const events = 100;
  const input = new Float64Array(portfolioInputLength(positions, events, markets));
  input[PortfolioInput.ROW_COUNT] = positions;
  input[PortfolioInput.EVENT_COUNT] = events;
  input[PortfolioInput.MARKET_COUNT] = markets;
  input[PortfolioInput.PACKED_AT_MS] = START_MS;
  for (let e = 0; e < events; e++) input[PortfolioInput.MUTUAL + e] = e % 10 === 0 ? 1 : 0;
  const { eventOf, rows } = inputOffsets(events, markets);
  for (let m = 0; m < markets; m++) input[eventOf + m] = m % events;
  for (let r = 0; r < positions; r++) {
    const at = rows + r * ROW_STRIDE;
    input[at + Row.MARKET] = r % markets;
    input[at + Row.SUBACCOUNT] = r % 64;
    input[at + Row.POSITION] = ((r % 7) - 3) * 100;
    input[at + Row.COST] = 4_000_000 + (r % 13) * 10_000;
    input[at + Row.BID_COST] = (r % 5) * 100_000;
    input[at + Row.ASK_COST] = (r % 3) * 100_000;
  }
  return input;
}

/**
 * Samples the event loop every 1 ms until stopped: each sample is the larger of the setImmediate
 * round trip and how late the 1 ms timer fired, so a block of synchronous work shows whole.
 */
function stallSampler(histogram: Histogram): () => void {
  const periodNs = 1_000_000;
  let pending = false;
  let scheduled = 0;
  let lastTimerNs = nowNs();
  let late = 0;
  const onImmediate = (): void => {
    pending = false;
    const roundTrip = nowNs() - scheduled;
    recordNs(histogram, roundTrip > late ? roundTrip : late);
  };
  const timer = setInterval(() => {
    const now = nowNs();
    late = now - lastTimerNs - periodNs;
    if (late < 0) late = 0;
    lastTimerNs = now;
    if (pending) return;
    pending = true;
    scheduled = now;
    setImmediate(onImmediate);
  }, 1);
  return () => clearInterval(timer);
}

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

export default {
  name: SUITE,
  async run({ quick }): Promise<BenchRow[]> {
    const trades = quick ? 200_000 : 1_000_000;
    const positions = quick ? 2_000 : 10_000;
    const rounds = quick ? 2 : 5;
    const rows: BenchRow[] = [];
    const wide = new CandlePool({ threads: 2, maxQueue: 16 });
    const pool = new CandlePool({ threads: 1, maxQueue: 16 }); // workers.threads' default
    const work = mkdtempSync(path.join(tmpdir(), 'bench-workers-'));
    let hotPath: HotPath | null = null;
    try {
      const batches = tradeBatches(trades, 2);
      const whole = tradeBatches(trades, 1)[0];
      const risk = portfolioInput(positions);

      // 1. Throughput: best of `rounds` for each, interleaved.
      let poolBest = 0;
      let oneBest = 0;
      let mainBest = 0;
      for (let round = 0; round < rounds; round++) {
        let start = performance.now();
        await Promise.all(batches.map((batch) => wide.submit({ batch, marketCount: MARKETS, intervalMinutes: 1, ...windowOf(trades) })!));
        poolBest = Math.max(poolBest, trades / ((performance.now() - start) / 1000));
        start = performance.now();
        await Promise.all(batches.map((batch) => pool.submit({ batch, marketCount: MARKETS, intervalMinutes: 1, ...windowOf(trades) })!));
        oneBest = Math.max(oneBest, trades / ((performance.now() - start) / 1000));
        start = performance.now();
        runCandleTask(candleInput(whole, trades));
        mainBest = Math.max(mainBest, trades / ((performance.now() - start) / 1000));
      }
      rows.push({ suite: SUITE, case: AGG_POOL, baseline: false, count: trades, opsPerSec: Math.round(poolBest), compareTo: AGG_MAIN, target: '>= 5M trades/s', pass: poolBest >= 5_000_000, note: `best of ${rounds}; 2 shared batches of ${trades / 2}, 100 markets, 1-minute candles` });
      rows.push({ suite: SUITE, case: AGG_POOL_ONE, baseline: false, count: trades, opsPerSec: Math.round(oneBest), compareTo: AGG_MAIN, target: '>= 5M trades/s', pass: oneBest >= 5_000_000, note: `best of ${rounds}; the pool the main job runs (workers.threads 1)` });
      rows.push({ suite: SUITE, case: AGG_MAIN, baseline: true, count: trades, opsPerSec: Math.round(mainBest), note: `best of ${rounds}; the same task (runCandleTask) on the event loop` });

      // 2. Stall: the same work in the pool, on the main thread, and none (after one unmeasured
      // round: the workers' first portfolio task loads its module).
      await pool.run('portfolioRisk', { input: risk.slice(), generation: 0 });
      const stallPool = createHistogram();
      const stallMain = createHistogram();
      const stallIdle = createHistogram();
      for (let round = 0; round < rounds; round++) {
        let stop = stallSampler(stallPool);
        await Promise.all([
          ...batches.map((batch) => pool.submit({ batch, marketCount: MARKETS, intervalMinutes: 1, ...windowOf(trades) })!),
          pool.run('portfolioRisk', { input: risk.slice(), generation: round + 1 })!, // a copy, as the publisher packs one
        ]);
        await sleep(5);
        stop();
        stop = stallSampler(stallMain);
        await sleep(5);
        runCandleTask(candleInput(whole, trades));
        await sleep(2);
        runPortfolioTask({ input: risk, generation: round + 1 });
        await sleep(5);
        stop();
        stop = stallSampler(stallIdle);
        await sleep(quick ? 50 : 200);
        stop();
      }
      rows.push(latencyRow(SUITE, STALL_POOL, false, stallPool, { compareTo: STALL_MAIN, target: 'p99 <= 1 ms', pass: stallPool.getValueAtPercentile(99) <= 1_000_000, note: `the runtime's pool (1 thread); samples every 1 ms, the larger of the setImmediate round trip and the timer's lateness; ${rounds} rounds` }));
      rows.push(latencyRow(SUITE, STALL_MAIN, true, stallMain, { note: 'the same aggregation and risk recompute run on the event loop' }));
      rows.push(latencyRow(SUITE, STALL_IDLE, true, stallIdle, { note: 'nothing else running' }));

      // 3. Tick-to-trade in process with the pool busy and idle, frames interleaved in blocks.
      const frames = quick ? 20_000 : 100_000;
      const stream = makeFeedStream(1, frames + 5_000, 20261124);
      const sink = new SinkOrderEntry();
      hotPath = await buildHotPath({ ticker: stream.tickers[0], grid: stream.grid, snapshotFrame: stream.snapshots[0], entry: sink, journalPath: path.join(work, 'journal.jsonl'), mode: 'replace' });
      hotPath.probe.setEnabled(false);
      const bytes = stream.deltas.map((text) => Buffer.from(text, 'utf8'));
      const busy = createHistogram();
      const idle = createHistogram();
      let next = 0;
      const frame = async (histogram: Histogram | null): Promise<void> => {
        sink.deliverAnswers(hotPath!.clock.nowMs());
        hotPath!.clock.advance(FRAME_MS);
        await null; // the OMS's order updates, as after a socket callback
        const data = bytes[next++];
        const start = nowNs();
        hotPath!.feed.handleBytes(data, 0, data.length);
        if (histogram !== null) recordNs(histogram, nowNs() - start);
        if ((next & 1023) === 0) await new Promise((resolve) => setImmediate(resolve));
      };
      for (let i = 0; i < 5_000; i++) await frame(null);
      const deadline = performance.now() + (quick ? 20_000 : 90_000);
      const block = 2_000;
      while (next + 2 * block <= bytes.length && performance.now() < deadline) {
        // Busy block: keep both threads working for the whole block.
        let working = true;
        const keepBusy = (async () => {
          while (working) await Promise.all(batches.map((batch) => pool.submit({ batch, marketCount: MARKETS, intervalMinutes: 1, ...windowOf(trades) })!));
        })();
        for (let i = 0; i < block; i++) await frame(busy);
        working = false;
        await keepBusy;
        for (let i = 0; i < block; i++) await frame(idle);
      }
      const ratio = busy.getValueAtPercentile(99) / Math.max(1, idle.getValueAtPercentile(99));
      rows.push(latencyRow(SUITE, T2T_BUSY, false, busy, { compareTo: T2T_IDLE, target: 'p99 within 10% of idle', pass: ratio <= 1.1, note: `p99 ${(ratio * 100 - 100).toFixed(0)}% vs idle; blocks of ${block} frames alternated; pool aggregating ${trades} trades per round` }));
      rows.push(latencyRow(SUITE, T2T_IDLE, true, idle, { note: 'the same wiring and frames with the pool idle' }));
      return rows;
    } finally {
      await hotPath?.stop();
      await pool.close();
      await wide.close();
      rmSync(work, { recursive: true, force: true });
    }
  },
} satisfies BenchSuite;

function windowOf(trades: number): { startTs: number; endTs: number; asOfMs: number; maxCandidates: number } {
  const endTs = Math.floor((START_MS + trades) / 1000) + 60;
  return { startTs: Math.floor(START_MS / 1000), endTs, asOfMs: endTs * 1000, maxCandidates: 10_000_000 };
}
