// Goal: the exposure ledger keeps its hidden class when its running totals pass V8's small-integer
// range. A total kept in a number field (the cost ever added, in micro-dollars) passed 2^30 after a
// few thousand orders; the field changed representation, V8 deprecated the ledger's map, the
// gate's optimized checks deoptimized, and the live intent -> verdict hop stayed ~20 µs slower
// for the rest of the run (bench/tick-to-trade; found with --trace-deopt: "overflow" in
// OrderBookings.sync, then "wrong map" in the gate's checks).
// The rate budget's count of write tokens spent is the same kind of total (days of trading).
// Method: a child node with --allow-natives-syntax drives one ledger past 2^31 micro-dollars and
// one budget past 2^31 tokens spent, and compares each one's map with an instance that never left
// the small-integer range (%HaveSameMap).

import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const CHILD = path.join(path.dirname(fileURLToPath(import.meta.url)), 'fixtures', 'ledger-map-child.mjs');

interface MapCheck {
  before: boolean;
  after: boolean;
  total: number;
}

describe('the gate\'s running totals keep their hidden class', () => {
  it('ExposureLedger past 2^31 micro-dollars added, RateBudget past 2^31 tokens spent', () => {
    const out = execFileSync(process.execPath, ['--import', 'tsx', '--allow-natives-syntax', CHILD], { timeout: 30_000 }).toString();
    const result = JSON.parse(out) as { ledger: MapCheck; budget: MapCheck };
    for (const [name, check] of Object.entries(result)) {
      expect(check.total, name).toBeGreaterThan(2 ** 31); // the total really left the range
      expect(check.before, name).toBe(true);
      expect(check.after, name).toBe(true);
    }
  });
});
