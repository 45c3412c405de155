/**
 * The piscina task: one CandleBatch (its buffer, moved or shared), a request window and the
 * markets' seeds in; the candlesticks (a CandleTable's Float64Array, moved back), the plan's
 * adjustment, the seeds after the batch and the batch buffer itself (moved back, so the caller
 * can refill it) out. `runCandleTask` is the same work as a plain function, for the main thread
 * and tests; the default export wraps its result so piscina transfers the buffers instead of
 * cloning them. This file owns the task's message shapes; the arithmetic is candle-aggregator.ts.
 *
 * Loaded in workers through candle-task-loader.mjs (which registers tsx first), never directly.
 */

import { move, transferableSymbol, valueSymbol } from 'piscina';
import { assert } from '../../core/index.ts';
import { CandleAggregator } from './candle-aggregator.ts';
import { CandleBatch, type BatchBuffer } from './candle-batch.ts';
import { MAX_AGGREGATE_CANDIDATES, planCandles } from './candle-plan.ts';
import { CANDLE_STRIDE, CandleTable } from './candle-table.ts';

export interface CandleTaskInput {
  /** The CandleBatch's buffer and how many rows of it are written. */
  batch: BatchBuffer;
  batchLength: number;
  /** Market indexes in the batch run 0..marketCount-1. */
  marketCount: number;
  intervalMinutes: number;
  /** Requested window, Unix seconds (candles ending in [startTs, endTs]). */
  startTs: number;
  endTs: number;
  /** Time up to which the batch is complete, Unix ms: no candle for a later period. */
  asOfMs: number;
  /** Default MAX_AGGREGATE_CANDIDATES. */
  maxCandidates?: number;
  /** SEED_STRIDE values per market (candle-table.ts), or null for fresh markets. */
  seeds: Float64Array | null;
}

export interface CandleTaskOutput {
  /** CandleTable values: `rows` rows of CANDLE_STRIDE; read with `new CandleTable(candles, rows)`. */
  candles: Float64Array;
  rows: number;
  adjusted: boolean;
  adjustedEndTs: number;
  /** Each market's state after the batch (SEED_STRIDE values per market). */
  seeds: Float64Array;
  /** The input buffer, handed back (moved when it was an ArrayBuffer) for reuse. */
  batch: BatchBuffer;
}

/** The task's work, synchronously, on whatever thread calls it. */
export function runCandleTask(input: CandleTaskInput): CandleTaskOutput {
  assert(typeof input === 'object' && input !== null, 'candle task: input must be an object');
  const batch = new CandleBatch(input.batch, input.batchLength);
  const plan = planCandles(input.intervalMinutes, input.startTs, input.endTs, input.marketCount, input.maxCandidates ?? MAX_AGGREGATE_CANDIDATES);
  const table = CandleTable.create(plan.periods * input.marketCount);
  const aggregator = new CandleAggregator(plan, input.marketCount, input.asOfMs, table, input.seeds);
  aggregator.apply(batch);
  aggregator.finish();
  // Hand back only the rows written: a view would still move the whole buffer.
  const used = table.length === table.capacity ? table.values : table.values.slice(0, table.length * CANDLE_STRIDE);
  return {
    candles: used,
    rows: table.length,
    adjusted: plan.adjusted,
    adjustedEndTs: plan.adjustedEndTs,
    seeds: aggregator.seedsOut(),
    batch: input.batch,
  };
}

/** piscina entry: the output with its ArrayBuffers marked for transfer (SharedArrayBuffers are shared). */
export default function candleTask(input: CandleTaskInput): unknown {
  const output = runCandleTask(input);
  const transfer: ArrayBuffer[] = [output.candles.buffer as ArrayBuffer, output.seeds.buffer as ArrayBuffer];
  if (output.batch instanceof ArrayBuffer) transfer.push(output.batch);
  return move({ [transferableSymbol]: transfer, [valueSymbol]: output } as unknown as ArrayBuffer);
}
