/**
 * A risk-gate BookView whose best prices the bench sets directly (bench/risk, bench/cold-path):
 * the gate reads only synced, updatedAtMs and the two best prices.
 */

import type { Price } from '../../src/core/index.ts';
import type { BookView } from '../../src/risk/index.ts';

export class BenchBook implements BookView {
  synced = true;
  updatedAtMs: number;
  bid: Price;
  ask: Price;
  constructor(nowMs: number, bid: number, ask: number) {
    this.updatedAtMs = nowMs;
    this.bid = bid as Price;
    this.ask = ask as Price;
  }
  bestBid(): Price {
    return this.bid;
  }
  bestAsk(): Price {
    return this.ask;
  }
}
