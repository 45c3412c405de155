/**
 * A counter around the simulator's rate limiter, for the bench simulator children (scale, fleet,
 * capture through scale's): per caller (API key id) and bucket, the tokens admitted and the
 * requests refused (each refusal is one 429 answer). The wrapper is bench-only: it counts, then
 * returns the limiter's own verdict unchanged.
 */

import type { SimHandle } from '../src/sim/index.ts';

/** Cumulative admission counts of one caller. */
export interface KeyCounts {
  readTokens: number;
  readRefused: number;
  writeTokens: number;
  writeRefused: number;
}

export const ZERO_COUNTS: Readonly<KeyCounts> = { readTokens: 0, readRefused: 0, writeTokens: 0, writeRefused: 0 };

/** Wraps the limiter's admit() to count tokens and refusals per caller; the verdict is the limiter's own. */
export function countAdmissions(sim: SimHandle): Map<string, KeyCounts> {
  const counts = new Map<string, KeyCounts>();
  const limiter = sim.rateLimiter;
  const admit = limiter.admit.bind(limiter);
  limiter.admit = (callerId, tier, bucket, cost) => {
    const admitted = admit(callerId, tier, bucket, cost);
    let entry = counts.get(callerId);
    if (entry === undefined) {
      entry = { ...ZERO_COUNTS };
      counts.set(callerId, entry);
    }
    if (bucket === 'write') {
      if (admitted) entry.writeTokens += cost;
      else entry.writeRefused++;
    } else if (bucket === 'read') {
      if (admitted) entry.readTokens += cost;
      else entry.readRefused++;
    }
    return admitted;
  };
  return counts;
}
