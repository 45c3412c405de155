/**
 * The piscina task behind the runtime's live candlesticks (the loader's `candleSeries` export):
 * advances the published series snapshot (`source`) by one CandleBatch into the spare one
 * (`target`). All three buffers are SharedArrayBuffers, so nothing is copied or moved between
 * threads; the answer is the new generation only. The main thread never writes `source` or the
 * batch while the task runs and never reads `target` until the answer (candle-feed.ts).
 * This file owns the message shape; the work is candle-series.ts.
 */

import { assert } from '../../core/index.ts';
import { CandleBatch } from './candle-batch.ts';
import { advanceSeries, seriesGeneration } from './candle-series.ts';

export interface CandleSeriesTaskInput {
  source: SharedArrayBuffer;
  target: SharedArrayBuffer;
  batch: SharedArrayBuffer;
  batchLength: number;
  /** Rows up to this instant (Unix ms) are in the batch; no row is later. */
  asOfMs: number;
}

export interface CandleSeriesTaskOutput {
  generation: number;
}

export function runCandleSeriesTask(input: CandleSeriesTaskInput): CandleSeriesTaskOutput {
  assert(typeof input === 'object' && input !== null, 'candle series task: input must be an object');
  const target = new Float64Array(input.target);
  advanceSeries(new Float64Array(input.source), target, new CandleBatch(input.batch, input.batchLength), input.asOfMs);
  return { generation: seriesGeneration(target) };
}

export default runCandleSeriesTask;
