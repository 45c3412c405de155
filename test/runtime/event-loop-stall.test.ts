// Goal: the runtime reports event-loop stall measured by setImmediate round trips: a loop kept
// busy by a callback shows up as a stall at least as long as the work that blocked it (a lower
// bound, which the loop cannot beat), an idle loop keeps sampling, and the status line and its
// JSON carry the stall and the worker pool's queue depth.
// Method: the real sampler on a 1 ms interval beside timer callbacks that busy-wait 3 ms, bounded
// in rounds; formatting on a hand-built RuntimeStatus. Only lower bounds on what was blocked are
// asserted, never how fast anything ran.

import { describe, expect, it } from 'vitest';
import { EventLoopStall } from '../../src/runtime/event-loop-stall.ts';
import type { RuntimeStatus } from '../../src/runtime/runtime.ts';
import { statusJson, statusText } from '../../src/runtime/status-line.ts';

function busyWait(ms: number): void {
  const until = performance.now() + ms;
  while (performance.now() < until) {
    // blocking the loop on purpose
  }
}

describe('event-loop stall (setImmediate round trips)', () => {
  it('sees a loop blocked by a callback, below the resolution of monitorEventLoopDelay too', async () => {
    const stall = new EventLoopStall(1);
    stall.start();
    try {
      // A timer callback that blocks after the sampler scheduled its immediate delays that
      // immediate by the whole block; rounds are bounded, and one such ordering suffices.
      // (bounded in count and time; a loaded machine may take more rounds to hit the ordering)
      const deadline = Date.now() + 10_000;
      for (let round = 0; round < 2_000 && stall.summary().maxUs < 3_000 && Date.now() < deadline; round++) {
        await new Promise<void>((resolve) => setTimeout(() => {
          busyWait(3);
          resolve();
        }, 1));
      }
      const summary = stall.summary();
      expect(summary.maxUs).toBeGreaterThanOrEqual(3_000);
      expect(summary.samples).toBeGreaterThan(0);
      expect(summary.p50Us).toBeLessThanOrEqual(summary.maxUs);
      stall.reset();
      expect(stall.summary()).toEqual({ samples: 0, p50Us: 0, p99Us: 0, maxUs: 0 });
    } finally {
      stall.stop();
    }
    expect(stall.running).toBe(false);
  });

  it('is on the status line and in its JSON, with the pool queue depth', () => {
    const status: RuntimeStatus = {
      booksSynced: 1, booksTotal: 1, openOrders: 0, ordersSent: 0, fills: 0, positions: [], pnlMicro: 0,
      tickToTradeUsP50: 0, tickToTradeUsP99: 0, tickToTradeCount: 0, denies: {}, feedState: 'open', strategies: [], killSwitch: null,
      eventLoopStall: { samples: 50, p50Us: 12.34, p99Us: 456.7, maxUs: 2_345 },
      workers: { queueDepth: 2, inFlight: 3, completed: 40, failed: 1, workerExits: 1, candleBatchesQueued: 1, candleRowsDropped: 0, portfolioAgeMs: 120 },
    };
    expect(statusText(status, 3)).toBe('3s | books 1/1 | open 0 | sent 0 | fills 0 | pos flat | PnL $0.0000 | t2t n/a | denies none | loop p99 457µs max 2345µs | pool q 2 run 3 fail 1 exits 1 risk age 120ms');
    const json = JSON.parse(statusJson(status, 3));
    expect(json.eventLoopStallUs).toEqual({ samples: 50, p50Us: 12.34, p99Us: 456.7, maxUs: 2_345 });
    expect(json.workers.queueDepth).toBe(2);
    expect(statusText({ ...status, workers: null, eventLoopStall: { samples: 0, p50Us: 0, p99Us: 0, maxUs: 0 } }, 3).endsWith('denies none | loop n/a')).toBe(true);
  });
});
