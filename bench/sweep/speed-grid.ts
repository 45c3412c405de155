/** The replays/s cases' combinations (speed-child.ts, queue-rate.ts): halfSpreadTicks 1..4 x `runs / 4` order latencies. */

import { expandGrid, parseGridSpec } from '../../src/replay/sweep/grid.ts';
import type { Combination } from '../../src/replay/sweep/grid.ts';

export function speedCombinations(runs: number): Combination[] {
  return expandGrid(parseGridSpec({ params: { 'strategies.0.params.halfSpreadTicks': [1, 2, 3, 4], 'replay.orderLatencyUs': Array.from({ length: runs / 4 }, (_, k) => 100 + 200 * k) } }));
}
