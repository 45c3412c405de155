/**
 * Cold-path suite: what one risk-gate check costs when other work ran since the last one, as on the
 * live runtime where an order follows tens of milliseconds of feed traffic, against the same check
 * run back to back (the baseline, as the hot-path and risk suites measure it).
 *
 *   loop: walk `gapMs` of memory (a 32 MiB array, stride 4 KiB + 24 B) -> time one gate.check
 *
 * The gate is optimized first (200,000 checks), so what the gap changes is the state of the caches
 * and predictors, not the JIT tier. The check passes (a post-only bid under the touch; a 'custom'
 * rate tier too large to run dry, as bench/risk does), so each run takes the whole accept path.
 * Every loop is bounded in count and time.
 */

import { createIntent, IntentKind, parsePrice, parseSignedCount, PriceGrid, systemClock } from '../../src/core/index.ts';
import { Deny, RiskGate, riskLimits } from '../../src/risk/index.ts';
import { consume, createHistogram, latencyRow, nowNs, recordNs } from '../harness.ts';
import type { BenchRow, BenchSuite } from '../harness.ts';
import { BenchBook } from '../risk/bench-book.ts';

const SUITE = 'cold-path';
const BACK_TO_BACK = 'gate check, back to back';

export default {
  name: SUITE,
  async run({ quick }): Promise<BenchRow[]> {
    const samples = quick ? 100 : 400;
    const book = new BenchBook(Date.now(), 5000, 6000); // $0.50 / $0.60
    const gate = new RiskGate({
      limits: riskLimits({ rateTier: 'custom', writeTokensPerSecond: 1e12, writeCapacityTokens: 1e15, readTokensPerSecond: 1e6 }),
      clock: systemClock,
    });
    const intent = createIntent();
    intent.kind = IntentKind.NEW;
    intent.market = gate.addMarket('KXCOLD-1', PriceGrid.fromStructure('linear_cent'), book);
    intent.side = 'bid';
    intent.price = parsePrice('0.40');
    intent.count = parseSignedCount('1');
    intent.postOnly = true;
    const check = (): void => {
      book.updatedAtMs = Date.now();
      const deny = gate.check(intent);
      if (deny !== Deny.NONE) throw new Error(`cold-path: the check was denied (${deny})`);
    };
    for (let i = 0; i < 200_000; i++) check(); // optimize

    const memory = new Float64Array(4 * 1024 * 1024); // 32 MiB: more than this machine's caches
    const walk = (ms: number): void => {
      const end = performance.now() + ms;
      let sum = 0;
      let k = 0;
      while (performance.now() < end) {
        for (let i = 0; i < 64; i++) sum += memory[(k = (k + 515) & (memory.length - 1))];
      }
      consume(sum);
    };
    const rows: BenchRow[] = [];
    const back = createHistogram();
    for (let i = 0; i < samples * 10; i++) {
      check();
      const start = nowNs();
      check();
      recordNs(back, nowNs() - start);
    }
    rows.push(latencyRow(SUITE, BACK_TO_BACK, true, back, { note: 'the second of two checks in a row' }));
    for (const gapMs of [0.1, 2, 10]) {
      const histogram = createHistogram();
      const deadline = performance.now() + 30_000;
      for (let i = 0; i < samples && performance.now() < deadline; i++) {
        walk(gapMs);
        const start = nowNs();
        check();
        recordNs(histogram, nowNs() - start);
      }
      rows.push(latencyRow(SUITE, `gate check after ${gapMs} ms of memory-walking work`, false, histogram, { compareTo: BACK_TO_BACK }));
    }
    return rows;
  },
} satisfies BenchSuite;
