/**
 * Eager JIT tier-up for the trading process.
 *
 * Why: V8 optimizes a function only after it has run for a while. The hot path's strategy, risk
 * and OMS functions run once per order, which at tens of orders a second means minutes in baseline
 * code: measured in bench/tick-to-trade at ~60 orders/s (Node 20), the gate's check was still in
 * Sparkplug code (%GetOptimizationStatus) and cost 30 µs per order against 0.4 µs optimized. A
 * warm-up on scratch objects does not help: the first live call deoptimizes it (wrong map, wrong
 * call target) and the re-optimization waits for the threshold again. Lower thresholds let V8
 * optimize after a few dozen calls; the cost is more (concurrent, off-thread) compilation early on.
 *
 * The knobs differ by V8 version, so the flags come from a table keyed by V8 major version. An
 * unknown flag is not an error for V8 (it prints "unrecognized flag" and carries on untuned), so
 * only flags of a known V8 are ever passed; on any other V8 nothing is set and a warning says so.
 * test/runtime/jit-tier-up.test.ts checks the running Node's entry against `node --v8-options` and
 * measures calls-to-TurboFan with and without it.
 *
 * Calls a function needed to reach TurboFan, measured with --no-concurrent-recompilation (a
 * 20-iteration loop / a straight-line gate-like check whose ICs change in its first calls / the
 * same after a deopt on a new map). Node 20 with the flag: 6 / 80 / 501; V8's defaults: Node 20
 * 120 / 2,264 / 501, Node 22 178 / 3,011 / 3,001, Node 24 871 / 10,603 / 11,657. With the flags
 * below: Node 22 6 / 75 / 65; Node 24 6 / 72 / 84 (Maglev, the mid tier, at 3 / 31 / 41).
 *
 * Process-wide, so only the process's owner applies it (main.ts, the benches), never a library.
 */

import { setFlagsFromString } from 'node:v8';

/** Eager tier-up flags by V8 major version; V8's defaults in comments. */
export const EAGER_TIER_UP_FLAGS: Readonly<Record<number, readonly string[]>> = {
  // Node 20 (V8 11.3): one bytecode budget per tier-up check, whatever the function's size.
  11: [
    '--interrupt-budget=2048', // 67,584: 1/33 of it
  ],
  // Node 22 (V8 12.4): budgets are invocation counts (x bytecode length); Maglev is off in Node 22.
  12: [
    '--invocation-count-for-turbofan=64', // 3,000
    '--minimum-invocations-after-ic-update=24', // 500: each IC change (a new map, a first branch) pushes tier-up back this far
  ],
  // Node 24 (V8 13.6): Maglev (mid tier) first, then TurboFan.
  13: [
    '--invocation-count-for-maglev=20', // 400
    '--invocation-count-for-maglev-with-delay=20', // 600: added to the above after a deopt
    '--invocation-count-for-turbofan=40', // 3,000, counted in Maglev code
    '--minimum-invocations-after-ic-update=20', // 500
  ],
};

/** The eager tier-up flags for a V8 version (`process.versions.v8` format), or null if unknown. */
export function eagerTierUpFlags(v8Version: string = process.versions.v8): readonly string[] | null {
  const major = Number.parseInt(v8Version, 10);
  return Object.hasOwn(EAGER_TIER_UP_FLAGS, major) ? EAGER_TIER_UP_FLAGS[major]! : null;
}

/**
 * Applies the eager tier-up flags to this process's V8; idempotent. Returns the flags applied:
 * none (and a process warning) on a V8 the table does not know.
 */
export function applyEagerTierUp(): readonly string[] {
  const flags = eagerTierUpFlags();
  if (flags === null) {
    process.emitWarning(`eager JIT tier-up: no flags known for V8 ${process.versions.v8} (Node ${process.versions.node}); V8's default tiering`);
    return [];
  }
  for (const flag of flags) setFlagsFromString(flag);
  return flags;
}
