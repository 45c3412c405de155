// Monotonic time in nanoseconds as a plain number, for latency measurement. Owns no state.
// performance.now() allocates nothing (process.hrtime.bigint() allocates a BigInt per call) and
// is monotonic; milliseconds since process start times 1e6 stays a safe integer for ~104 days.

/** Monotonic nanoseconds since process start, rounded to an integer. Not wall-clock time. */
export function nowNs(): number {
  return Math.round(performance.now() * 1_000_000);
}
