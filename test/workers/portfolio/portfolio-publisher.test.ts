// Goal: portfolio risk computed in a real worker reaches the risk gate without the gate ever
// waiting: the published snapshot enforces the worst-case loss limit; a snapshot older than
// limits.portfolioStaleMs denies orders that add risk with PORTFOLIO_RISK_STALE (cancels and
// reduce-only orders still pass) until a newer one is published; and a worker that dies mid-task
// is reported (CANDLE_WORKER_EXITED, counted), replaced by the pool, and the next recompute
// publishes, while the gate keeps allowing orders on the last snapshot.
// Method: a RiskGate over a ManualClock (the publisher packs with the same clock, so the
// snapshot's age is exact), the real CandlePool with a fixture loader that kills its worker once
// when a marker file exists; every wait is bounded in count and time; no timing is asserted.

import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it, vi } from 'vitest';
import { IntentKind, ManualClock, PriceGrid, createIntent, parsePrice, parseSignedCount } from '../../../src/core/index.ts';
import type { Count, Price } from '../../../src/core/index.ts';
import { Deny, PortfolioView, RiskGate, riskLimits } from '../../../src/risk/index.ts';
import { CandlePool, CandlePoolError, PortfolioRiskPublisher } from '../../../src/workers/index.ts';

const work = mkdtempSync(join(tmpdir(), 'portfolio-publisher-'));
const crashFile = join(work, 'crash');
process.env.WORKER_CRASH_FILE = crashFile; // read by the fixture in each worker (workers copy the environment when they start)
afterAll(() => rmSync(work, { recursive: true, force: true }));

const START_MS = 1_767_225_600_000;
const p = (text: string): Price => parsePrice(text);
const c = (text: string): Count => parseSignedCount(text);

let cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup();
  cleanups = [];
});

async function waitUntil(check: () => boolean, what: string, rounds = 500): Promise<void> {
  for (let i = 0; i < rounds; i++) {
    if (check()) return;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  throw new Error(`not reached within ${rounds} rounds: ${what}`);
}

function setup(limits: Parameters<typeof riskLimits>[0]) {
  const clock = new ManualClock(START_MS);
  const view = new PortfolioView();
  const gate = new RiskGate({ limits: riskLimits({ rateTier: 'prime', ...limits }), clock, portfolio: view });
  const book = { synced: true, updatedAtMs: START_MS, bestBid: () => p('0.40'), bestAsk: () => p('0.60') };
  const market = gate.addMarket('KX-A', PriceGrid.fromStructure('linear_cent'), book);
  const failures: CandlePoolError[] = [];
  const pool = new CandlePool({ threads: 1, filename: new URL('./fixtures/crash-once-loader.mjs', import.meta.url).href, onFailure: (error) => failures.push(error) });
  // Long positions were bought at $0.40 a contract.
  const publisher = new PortfolioRiskPublisher({
    ledger: gate.exposure,
    view,
    costMicro: (_subaccount, _market, position) => position * p('0.40'),
    nowMs: () => clock.nowMs(),
    debounceMs: 5,
    refreshMs: 3_600_000, // only changes trigger a recompute here, so age is the test's to move
    onFailure: () => {},
  });
  cleanups.push(() => publisher.stop(), () => pool.close());
  const intent = createIntent();
  intent.kind = IntentKind.NEW;
  intent.market = market;
  intent.side = 'bid';
  intent.price = p('0.50');
  intent.count = c('10');
  const freshBook = (): void => {
    book.updatedAtMs = clock.nowMs();
  };
  return { clock, view, gate, market, pool, publisher, failures, intent, freshBook };
}

describe('portfolio risk publisher: the gate reads the last snapshot', () => {
  it('enforces the worst-case loss limit from the published snapshot', async () => {
    const w = setup({ worstLossSubaccountMax: 100_000 as never }); // $10
    w.gate.exposure.setPosition(w.market, 0, c('10')); // 10 contracts at $0.40: $4 lost if NO
    w.publisher.start(w.pool);
    await w.publisher.published(0);
    expect(w.view.subaccountLossMicro(0)).toBe(4_000_000);
    expect(w.gate.check(w.intent)).toBe(Deny.NONE); // $4 + 10 x $0.50 = $9
    w.intent.count = c('14'); // $4 + $7 = $11
    expect(w.gate.check(w.intent)).toBe(Deny.WORST_LOSS_SUBACCOUNT_LIMIT);
    expect(w.gate.detail.actual).toBe(11_000_000);
    // Resting orders added after the snapshot count before the next one is published.
    w.intent.count = c('2'); // $1
    expect(w.gate.check(w.intent)).toBe(Deny.NONE); // $4 + $1
    w.gate.exposure.addResting(w.market, 0, 'bid', p('0.50'), c('12'), 1); // +$6 resting
    expect(w.gate.check(w.intent)).toBe(Deny.WORST_LOSS_SUBACCOUNT_LIMIT); // $4 + $6 + $1 > $10, before any new snapshot
    expect(w.gate.detail.actual).toBe(11_000_000);
  });

  it('a stale snapshot denies orders that add risk with PORTFOLIO_RISK_STALE until a newer one is published', async () => {
    const w = setup({ portfolioStaleMs: 1_000 });
    expect(w.gate.check(w.intent)).toBe(Deny.PORTFOLIO_RISK_STALE); // nothing published yet
    w.publisher.start(w.pool);
    await w.publisher.published(0);
    expect(w.gate.check(w.intent)).toBe(Deny.NONE);

    w.clock.advance(1_001); // nothing changed, so nothing recomputed: the snapshot ages
    w.freshBook();
    expect(w.gate.check(w.intent)).toBe(Deny.PORTFOLIO_RISK_STALE);
    expect(w.gate.detail.subject).toBe('limits.portfolioStaleMs');
    expect(w.gate.detail.actual).toBe(1_001);
    // What only lowers risk still passes: a cancel, and a reduce-only order against a position.
    const cancel = createIntent();
    cancel.kind = IntentKind.CANCEL;
    expect(w.gate.check(cancel)).toBe(Deny.NONE);
    w.gate.exposure.setPosition(w.market, 0, c('10'));
    const reduce = createIntent();
    Object.assign(reduce, { kind: IntentKind.NEW, market: w.market, side: 'ask', price: p('0.55'), count: c('5'), reduceOnly: true });
    expect(w.gate.check(reduce)).toBe(Deny.NONE);

    // The position change above moved the ledger's version: the next tick recomputes, stamped now.
    const generation = w.view.generation;
    await w.publisher.published(generation);
    expect(w.view.packedAtMs).toBe(w.clock.nowMs());
    expect(w.gate.check(w.intent)).toBe(Deny.NONE);
  });

  it('a worker that dies mid-recompute is reported and replaced; trading goes on from the last snapshot', async () => {
    const w = setup({ portfolioStaleMs: 60_000, worstLossSubaccountMax: 100_000_000 as never });
    w.publisher.start(w.pool);
    await w.publisher.published(0);
    const before = w.view.generation;

    writeFileSync(crashFile, 'once');
    w.gate.exposure.setPosition(w.market, 0, c('10')); // a change: the next tick recomputes, and its worker dies
    await waitUntil(() => w.publisher.stats.failures >= 1, 'the failed recompute reported');
    expect(w.failures.map((f) => f.code)).toEqual(['CANDLE_WORKER_EXITED']);
    expect(w.pool.workerExits).toBe(1);
    // The gate never waited and still trades on the last snapshot.
    expect(w.view.generation).toBe(before);
    expect(w.gate.check(w.intent)).toBe(Deny.NONE);

    // The pool replaced the worker; the publisher tries again at its next tick and publishes.
    await waitUntil(() => w.view.generation > before, 'a snapshot from the replacement worker');
    expect(w.view.subaccountLossMicro(0)).toBe(4_000_000);
    expect(w.publisher.stats.recomputes).toBeGreaterThanOrEqual(2);
    expect(w.gate.check(w.intent)).toBe(Deny.NONE);
  });
});

describe('portfolio risk publisher: cadence at scale', () => {
  it('recomputes every debounce up to 1,000 ledger slots and spreads out in proportion above (5,000 slots, 50 ms: every 250 ms)', async () => {
    const packsOver = async (slotCount: number): Promise<number> => {
      const clock = new ManualClock(START_MS);
      let version = 0;
      let runs = 0;
      const slot = { market: 0, subaccount: 0, position: 0, bidCostMicro: 0, askCostMicro: 0 };
      const ledger = { get version() { return version; }, slotCount, slotAt: () => slot, addedMicro: () => 0, addedMicroTotal: 0 };
      // A pool whose every task fails at once: each pack is counted, and the next tick may pack again.
      const pool = { run: () => { runs++; return Promise.reject(new Error('test: no worker')); } } as unknown as CandlePool;
      const publisher = new PortfolioRiskPublisher({ ledger, view: new PortfolioView(), costMicro: () => 0, nowMs: () => clock.nowMs(), debounceMs: 50, refreshMs: 1_000, onFailure: () => {} });
      // Only the test's ticks count: the publisher's own 50 ms interval, on real time, once added a
      // 42nd pack when a setImmediate below took longer than that on a loaded CI machine.
      vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval'] });
      publisher.start(pool);
      try {
        for (let tick = 0; tick < 40; tick++) {
          await new Promise((resolve) => setImmediate(resolve)); // the failed task settles
          clock.advance(50);
          version++; // the ledger changed: each tick wants a recompute
          publisher.tick();
        }
      } finally {
        publisher.stop();
        vi.useRealTimers();
      }
      return runs;
    };
    expect(await packsOver(100)).toBe(41);
    expect(await packsOver(5_000)).toBe(1 + 40 / 5);
  });
});
