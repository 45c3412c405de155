/**
 * Risk bench: RiskGate.check throughput (checks/s, target >= 2M/s) and per-check latency
 * percentiles on a recorded mix of intents over 200 markets with resting own orders, beside a
 * naive baseline (bench/risk/naive-gate.ts: Maps keyed by built strings, closures returning object
 * literals, array scans) answering the same verdicts, and a timer-floor row for the latency rows.
 * The gate runs with core's CoarseClock (a field read, refreshed by the runtime's 1 ms timer: the
 * production wiring) and, measured last so its clock shape cannot pollute the first rows' JIT
 * feedback, with the system clock (Date.now() per check) to show what a wall-clock read costs.
 * Rate tokens are configured unlimited so every check walks the whole path to the last step
 * instead of stopping at RATE_LIMITED. Every loop is bounded in count and time.
 */

import { CoarseClock, createIntent, IntentKind, PRICE_INVALID, PriceGrid, systemClock } from '../../src/core/index.ts';
import type { Clock, Count, OrderIntent, Price } from '../../src/core/index.ts';
import { Deny, RiskGate, riskLimits } from '../../src/risk/index.ts';
import { consume, latencyRow, measureLatency, measureThroughputInterleaved, throughputRow } from '../harness.ts';
import type { BenchRow, BenchSuite } from '../harness.ts';
import { BenchBook } from './bench-book.ts';
import { NaiveGate } from './naive-gate.ts';

const SUITE = 'risk';
const MARKETS = 200;
const INTENTS = 4096;
const TARGET_CHECKS_PER_SEC = 2_000_000;

interface Settings {
  roundMs: number;
  rounds: number;
  warmupMs: number;
  samples: number;
  latencyBudgetMs: number;
}

const FULL: Settings = { roundMs: 1000, rounds: 5, warmupMs: 500, samples: 1_000_000, latencyBudgetMs: 2000 };
const QUICK: Settings = { roundMs: 150, rounds: 3, warmupMs: 100, samples: 100_000, latencyBudgetMs: 300 };

/** Deterministic LCG so every run checks the same intents. */
function random(seed: { value: number }, n: number): number {
  seed.value = (seed.value * 1103515245 + 12345) % 2147483648;
  return (seed.value >>> 8) % n; // the low bits of this LCG cycle quickly
}

function buildGate(clock: Clock, books: BenchBook[], grid: PriceGrid): RiskGate {
  const gate = new RiskGate({
    clock,
    limits: riskLimits({
      rateTier: 'custom',
      writeTokensPerSecond: 1e12,
      writeCapacityTokens: 1e15,
      readTokensPerSecond: 1e6,
      orderCountMax: 100_000 as Count,
      marketPositionMax: 1_000_000 as Count,
      subaccountPositionMax: 1_000_000_000 as Count,
      bookStaleMs: 60_000,
    }),
  });
  for (let m = 0; m < MARKETS; m++) gate.addMarket(`KX-BENCH-${m}`, grid, books[m]);
  return gate;
}

export function buildScenario(): {
  intents: OrderIntent[];
  gateSystem: RiskGate;
  gateCoarse: RiskGate;
  naive: NaiveGate;
} {
  const grid = PriceGrid.fromStructure('linear_cent');
  const now = Date.now();
  const books: BenchBook[] = [];
  for (let m = 0; m < MARKETS; m++) books.push(new BenchBook(now, 4500 + 100 * (m % 5), 5500 + 100 * (m % 5)));
  const coarse = new CoarseClock(systemClock);
  const gateSystem = buildGate(systemClock, books, grid);
  const gateCoarse = buildGate(coarse, books, grid);
  const naive = new NaiveGate({ orderCountMax: 100_000, orderNotionalMax: 10_000_000, marketPositionMax: 1_000_000, bookStaleMs: 60_000 }, () => coarse.nowMs());
  for (let m = 0; m < MARKETS; m++) naive.addMarket(`KX-BENCH-${m}`, grid, books[m]);
  // Own resting orders: 4 bids and 4 asks per market in subaccount 0, away from the touch.
  for (let m = 0; m < MARKETS; m++) {
    for (let k = 0; k < 4; k++) {
      const bid = (3000 - 100 * k) as Price;
      const ask = (7000 + 100 * k) as Price;
      for (const gate of [gateSystem, gateCoarse]) {
        gate.exposure.addResting(m, 0, 'bid', bid, 500, 1);
        gate.exposure.addResting(m, 0, 'ask', ask, 500, 1);
      }
      naive.addResting(`KX-BENCH-${m}`, 0, 'bid', bid, 500);
      naive.addResting(`KX-BENCH-${m}`, 0, 'ask', ask, 500);
    }
  }
  // Mix: ~85% allowed quotes inside the spread, post-only crosses, self-crosses, off-grid prices.
  const seed = { value: 42 };
  const intents: OrderIntent[] = [];
  for (let i = 0; i < INTENTS; i++) {
    const intent = createIntent();
    intent.kind = IntentKind.NEW;
    intent.market = random(seed, MARKETS);
    intent.side = random(seed, 2) === 0 ? 'bid' : 'ask';
    const book = books[intent.market];
    const roll = random(seed, 100);
    intent.postOnly = true;
    if (roll < 85) intent.price = (intent.side === 'bid' ? book.bid - 100 * random(seed, 10) : book.ask + 100 * random(seed, 10)) as Price;
    else if (roll < 92) intent.price = (intent.side === 'bid' ? book.ask : book.bid) as Price; // post-only cross
    else if (roll < 97) {
      intent.postOnly = false;
      intent.price = (intent.side === 'bid' ? 7000 : 3000) as Price; // self-cross with own resting
    } else intent.price = (book.bid + 50) as Price; // off grid
    intent.count = (100 * (1 + random(seed, 20))) as Count;
    intent.subaccount = 0;
    intents.push(intent);
  }
  return { intents, gateSystem, gateCoarse, naive };
}

const suite: BenchSuite = {
  name: SUITE,
  async run({ quick }): Promise<BenchRow[]> {
    const s = quick ? QUICK : FULL;
    const { intents, gateSystem, gateCoarse, naive } = buildScenario();
    // Same verdicts, or the comparison is meaningless.
    const verdicts = new Map<number, number>();
    for (const intent of intents) {
      const ours = gateSystem.check(intent);
      const theirs = naive.check(intent);
      if (ours !== theirs) throw new Error(`risk bench: gate ${ours} vs naive ${theirs} for market ${intent.market} ${intent.side} ${intent.price}`);
      verdicts.set(ours, (verdicts.get(ours) ?? 0) + 1);
    }
    const mix = [...verdicts].map(([code, n]) => `${code === Deny.NONE ? 'NONE' : code}:${n}`).join(' ');

    const n = intents.length;
    const loop = (gate: { check(intent: OrderIntent): number }) => (): void => {
      let acc = 0;
      for (let i = 0; i < n; i++) acc += gate.check(intents[i]);
      consume(acc);
    };
    const options = { roundMs: s.roundMs, rounds: s.rounds, warmupMs: s.warmupMs, maxCallsPerRound: 1_000_000 };
    const note = `${n} intents over ${MARKETS} markets, verdicts ${mix}`;
    const NAIVE = 'naive gate (Maps, closures, literals)';
    const [coarse, baseline] = measureThroughputInterleaved(
      [
        { run: loop(gateCoarse), opsPerCall: n },
        { run: loop(naive), opsPerCall: n },
      ],
      options,
    );
    const rows: BenchRow[] = [
      throughputRow(SUITE, 'gate.check (coarse clock)', false, coarse, {
        note,
        compareTo: NAIVE,
        target: '>= 2M checks/s',
        pass: coarse.opsPerSec >= TARGET_CHECKS_PER_SEC,
      }),
      throughputRow(SUITE, NAIVE, true, baseline, { note: `${note}; same coarse clock` }),
    ];

    let cursor = 0;
    const floor = measureLatency(() => consume(cursor++), { samples: s.samples, timeBudgetMs: s.latencyBudgetMs });
    cursor = 0;
    const latencyOurs = measureLatency(() => consume(gateCoarse.check(intents[cursor++ & (INTENTS - 1)])), { samples: s.samples, timeBudgetMs: s.latencyBudgetMs });
    cursor = 0;
    const latencyNaive = measureLatency(() => consume(naive.check(intents[cursor++ & (INTENTS - 1)])), { samples: s.samples, timeBudgetMs: s.latencyBudgetMs });
    rows.push(
      latencyRow(SUITE, 'gate.check latency (coarse clock)', false, latencyOurs, { compareTo: 'naive gate latency', note: 'per call, includes the timer floor' }),
      latencyRow(SUITE, 'naive gate latency', true, latencyNaive, { note: 'per call, includes the timer floor' }),
      latencyRow(SUITE, 'timer floor (performance.now pair)', true, floor, { note: 'cost of timing one call' }),
    );

    // Last: the same gate code with a wall clock read per check (a second clock shape from here on).
    const [system] = measureThroughputInterleaved([{ run: loop(gateSystem), opsPerCall: n }], options);
    rows.push(
      throughputRow(SUITE, 'gate.check (Date.now clock)', false, system, {
        note: `${note}; one Date.now() per check`,
        compareTo: NAIVE,
        target: '>= 2M checks/s',
        pass: system.opsPerSec >= TARGET_CHECKS_PER_SEC,
      }),
    );
    consume(PRICE_INVALID);
    return rows;
  },
};

export default suite;
