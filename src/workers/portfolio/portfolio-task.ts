/**
 * The piscina task behind portfolio risk (the loader's `portfolioRisk` export): the packed input
 * (moved in) to a snapshot (moved out), with the input handed back for reuse. This file owns the
 * message shape; the arithmetic is portfolio-risk.ts.
 */

import { move, transferableSymbol, valueSymbol } from 'piscina';
import { assert } from '../../core/index.ts';
import { computePortfolioRisk } from './portfolio-risk.ts';

export interface PortfolioTaskInput {
  input: Float64Array;
  generation: number;
}

export interface PortfolioTaskOutput {
  snapshot: Float64Array;
  input: Float64Array;
}

export function runPortfolioTask(task: PortfolioTaskInput): PortfolioTaskOutput {
  assert(typeof task === 'object' && task !== null && task.input instanceof Float64Array, 'portfolio task: input must carry a Float64Array');
  return { snapshot: computePortfolioRisk(task.input, task.generation), input: task.input };
}

/** piscina entry: both arrays moved back, never cloned. */
export default function portfolioTask(task: PortfolioTaskInput): unknown {
  const output = runPortfolioTask(task);
  const transfer = [output.snapshot.buffer as ArrayBuffer, output.input.buffer as ArrayBuffer];
  return move({ [transferableSymbol]: transfer, [valueSymbol]: output } as unknown as ArrayBuffer);
}
