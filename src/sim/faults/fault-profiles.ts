/**
 * Named fault profiles: sets of rules a run switches on by name (`--faults NAME`, or the
 * `faultProfile` option of startSim). Probabilities are per request or per delivered message and
 * draw from the run's seeded PRNG. This file owns the table only.
 */

import type { FaultRule } from './fault-rule.ts';

export const FAULT_PROFILES: Readonly<Record<string, readonly FaultRule[]>> = {
  /** No faults: the default. */
  none: [],
  /** Occasional 503s and slow answers on every REST route. */
  'flaky-rest': [
    { kind: 'rest_error', status: 503, target: { probability: 0.02 } },
    { kind: 'rest_delay', delayMs: 250, target: { probability: 0.05 } },
  ],
  /** REST answers that never come (the client must time out). */
  'hanging-rest': [{ kind: 'rest_hang', target: { probability: 0.02 } }],
  /** Orders applied but answered with a 5xx, no answer or a dropped connection. */
  'ambiguous-orders': [
    { kind: 'ambiguous_order', mode: 'error', status: 500, target: { probability: 0.03 } },
    { kind: 'ambiguous_order', mode: 'hang', target: { probability: 0.01 } },
    { kind: 'ambiguous_order', mode: 'close', target: { probability: 0.01 } },
  ],
  /** Sequence gaps on the order book feed: dropped and reordered deltas. */
  'gappy-feed': [
    { kind: 'ws_drop_delta', target: { probability: 0.001 } },
    { kind: 'ws_reorder_delta', target: { probability: 0.001 } },
  ],
  /** Rare terminal subscription errors and disconnects on the WebSocket. */
  'unstable-ws': [
    { kind: 'ws_buffer_overflow', target: { probability: 0.0002 } },
    { kind: 'ws_close', target: { probability: 0.0001 } },
  ],
  /** FIX: lost outbound messages (gaps; resent on KalshiRT/PT), rare drops, ambiguous EXCHANGE_UNAVAILABLE. */
  'flaky-fix': [
    { kind: 'fix_drop_outbound', target: { probability: 0.001 } },
    { kind: 'fix_disconnect', applied: true, target: { probability: 0.0005 } },
    { kind: 'fix_exchange_unavailable', applied: false, target: { probability: 0.01 } },
    { kind: 'fix_exchange_unavailable', applied: true, target: { probability: 0.01 } },
  ],
  /** Everything above at once. */
  chaos: [
    { kind: 'rest_error', status: 503, target: { probability: 0.02 } },
    { kind: 'rest_delay', delayMs: 250, target: { probability: 0.05 } },
    { kind: 'ambiguous_order', mode: 'error', status: 500, target: { probability: 0.02 } },
    { kind: 'ambiguous_order', mode: 'close', target: { probability: 0.01 } },
    { kind: 'ws_drop_delta', target: { probability: 0.001 } },
    { kind: 'ws_reorder_delta', target: { probability: 0.001 } },
    { kind: 'ws_buffer_overflow', target: { probability: 0.0002 } },
    { kind: 'ws_close', target: { probability: 0.0001 } },
  ],
};

export function faultProfileNames(): string[] {
  return Object.keys(FAULT_PROFILES);
}
