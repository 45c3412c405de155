/**
 * Sim matching bench: the simulator engine's order throughput and per-order latency on a
 * realistic mix (resting adds a few levels behind the best, IOC takers crossing the spread,
 * cancels of live orders; 20 markets on four grids, ~300 live orders per market), beside a naive
 * sorted-array matcher replaying the same stream in the same run. The engine case includes what
 * the simulator really does per order: validation, collateral, fees, positions, fills, trades and
 * listener calls (a counting listener is subscribed). Target: >= 500k orders/s in process.
 * Every loop is bounded in count and time.
 */

import { consume, latencyRow, measureLatency, measureThroughputInterleaved, throughputRow, type BenchRow, type BenchSuite } from '../harness.ts';
import { EngineDriver, NaiveDriver, type Driver } from './drivers.ts';
import { makeOrderStream } from './order-stream.ts';

const SUITE = 'sim-matching';
const MARKETS = 20;

interface Settings {
  streamLength: number;
  batch: number;
  roundMs: number;
  rounds: number;
  warmupMs: number;
  samples: number;
  latencyBudgetMs: number;
}

const FULL: Settings = { streamLength: 1_000_000, batch: 10_000, roundMs: 1000, rounds: 5, warmupMs: 1000, samples: 1_000_000, latencyBudgetMs: 3000 };
const QUICK: Settings = { streamLength: 200_000, batch: 5_000, roundMs: 200, rounds: 3, warmupMs: 200, samples: 100_000, latencyBudgetMs: 500 };

/** Cursor over the stream shared by a driver's batches, wrapping at the end. */
function batchRunner(driver: Driver, length: number, batch: number): () => void {
  let next = 0;
  return () => {
    for (let k = 0; k < batch; k++) {
      driver.step(next);
      next = next + 1 === length ? 0 : next + 1;
    }
  };
}

function singleRunner(driver: Driver, length: number): () => void {
  let next = 0;
  return () => {
    driver.step(next);
    next = next + 1 === length ? 0 : next + 1;
  };
}

const suite: BenchSuite = {
  name: SUITE,
  async run({ quick }) {
    const s = quick ? QUICK : FULL;
    const stream = makeOrderStream(s.streamLength, MARKETS, 20260611, 60, 20);
    const ours = new EngineDriver(stream, MARKETS);
    const naive = new NaiveDriver(stream, MARKETS);
    const [oursRate, naiveRate] = measureThroughputInterleaved(
      [
        { run: batchRunner(ours, stream.length, s.batch), opsPerCall: s.batch },
        { run: batchRunner(naive, stream.length, s.batch), opsPerCall: s.batch },
      ],
      { roundMs: s.roundMs, rounds: s.rounds, warmupMs: s.warmupMs, maxCallsPerRound: 100_000 },
    );
    consume(ours.events.deltas);
    const mix = `mix 60% add / 20% IOC taker / 20% cancel, ${MARKETS} markets, <= 300 live orders per market; resting now: ours ${ours.resting()}, naive ${naive.resting()}`;
    const rows: BenchRow[] = [
      throughputRow(SUITE, 'engine orders/s', false, oursRate, { compareTo: 'naive sorted-array orders/s', target: '>= 500k/s', pass: oursRate.opsPerSec >= 500_000, note: mix }),
      throughputRow(SUITE, 'naive sorted-array orders/s', true, naiveRate, { note: 'book only: no money, fees or events' }),
    ];
    const oursLatency = measureLatency(singleRunner(ours, stream.length), { samples: s.samples, timeBudgetMs: s.latencyBudgetMs });
    const naiveLatency = measureLatency(singleRunner(naive, stream.length), { samples: s.samples, timeBudgetMs: s.latencyBudgetMs });
    const floor = measureLatency(() => {}, { samples: s.samples, timeBudgetMs: Math.min(500, s.latencyBudgetMs) });
    rows.push(
      latencyRow(SUITE, 'engine per-order latency', false, oursLatency, { compareTo: 'naive per-order latency', note: 'one create or cancel incl. driver' }),
      latencyRow(SUITE, 'naive per-order latency', true, naiveLatency),
      latencyRow(SUITE, 'timer floor', true, floor, { note: 'two performance.now() reads' }),
    );
    return rows;
  },
};

export default suite;
