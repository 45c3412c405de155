/**
 * Eager JIT tier-up for the trading process.
 *
 * Why: V8 optimizes a function once it has run enough bytecode (its interrupt budget, 66 KB by
 * default in Node 20). The hot path's strategy, risk and OMS functions run once per order, which
 * at tens of orders a second means minutes in baseline code: measured in bench/tick-to-trade at
 * ~60 orders/s, the gate's check was still in Sparkplug code (%GetOptimizationStatus) and cost
 * 30 µs per order against 0.4 µs optimized. A warm-up on scratch objects does not help: the first
 * live call deoptimizes it (wrong map, wrong call target) and the re-optimization waits for the
 * budget again. A smaller budget lets V8 optimize after a few dozen calls and re-optimize as soon
 * after a deopt; the cost is more (concurrent, off-thread) compilation early on.
 *
 * Process-wide, so only the process's owner applies it (main.ts, the benches), never a library.
 */

import { setFlagsFromString } from 'node:v8';

/** Bytecode budget per tier-up check: 1/33 of V8's default (67,584 in Node 20). */
export const EAGER_INTERRUPT_BUDGET = 2_048;

/** Applies the eager tier-up flags to this process's V8; idempotent. */
export function applyEagerTierUp(): void {
  setFlagsFromString(`--interrupt-budget=${EAGER_INTERRUPT_BUDGET}`);
}
