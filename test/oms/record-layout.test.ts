// Goal: a session's first fill changes no record's hidden class. The fill's numbers come out of the
// decoders as heap numbers when the fill path runs unoptimized (it first runs at the first fill);
// stored into fields laid out as small integers, they changed the fields' representation, V8
// deprecated the records' maps, and 62 optimized functions of the order path deoptimized at once
// ("wrong map": node --trace-deopt; --trace-migration showed Order's fillSum, venueFilled,
// filledCount and fees going from small integer to double ~7 s into the main job). The records a
// fill reaches lay those fields out as doubles from the start (core/double-layout.ts).
// Method: a child node with --allow-natives-syntax stores heap numbers as a fill does and compares
// each record's map with one that only held small integers (%HaveSameMap).

import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const CHILD = path.join(path.dirname(fileURLToPath(import.meta.url)), 'fixtures', 'record-layout-child.mjs');

interface MapCheck {
  before: boolean;
  after: boolean;
  values: number[];
}

describe('the records a fill reaches keep their hidden class', () => {
  it('Order, Position, the gate\'s ExposureSlot and the journal\'s ring slot, after heap numbers are stored', () => {
    const out = execFileSync(process.execPath, ['--import', 'tsx', '--allow-natives-syntax', CHILD], { timeout: 30_000 }).toString();
    const result = JSON.parse(out) as { heapNumbers: boolean } & Record<'order' | 'position' | 'exposureSlot' | 'journalEntry', MapCheck>;
    expect(result.heapNumbers).toBe(true); // the child really stored heap numbers
    for (const name of ['order', 'position', 'exposureSlot', 'journalEntry'] as const) {
      expect(result[name].before, name).toBe(true);
      expect(result[name].after, name).toBe(true);
    }
    // The numbers are the fill's, whatever their layout: 1.00 filled of 4.00, then 3.00 left; $0.0007 fee.
    expect(result.order.values).toEqual([100, 300, 7]);
    expect(result.position.values).toEqual([100, 7, 100]);
    expect(result.exposureSlot.values).toEqual([100, 100]);
    expect(result.journalEntry.values).toEqual([100, 7, 0]);
  });
});
