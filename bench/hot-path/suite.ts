/**
 * Hot-path suite: the whole in-process tick-to-trade path with no sockets, hop by hop.
 *
 *   Feed.handleBytes(bytes) (the entry WsSession calls) -> byte scanner -> BookStore apply
 *     -> RuntimeFeedListener -> StrategyHost -> tick-to-trade onBook -> ctx.place -> Router
 *     -> RiskGate.check -> Oms.accept -> SinkOrderEntry.create (encode, take a signature, assemble
 *     the request, copy it into a byte buffer: bytes "out")
 *
 * wired by wiring.ts through the runtime's one graph builder (src/runtime/trading-graph.ts), fed recorded orderbook_delta frames
 * as the socket hands them over, UTF-8 bytes (bench/feed/delta-frames.ts, one market). Each frame is followed by one order: the driver
 * delivers the sink's acks between frames (never inside a timed frame), so the replace-mode
 * strategy always has its last bid acknowledged, and the previous bid's cancel goes out from the
 * ack, as in the runtime. A manual clock moves 10 ms per frame (rate budget, staleness) and the
 * OMS's coarse tick (journal flush) runs every 10 frames, outside the timed calls.
 *
 * Rows: the TickToTradeProbe's per-hop histograms (its own stamps), the driver's own clock around
 * handleBytes (frame in -> call returned), and in the same run the baselines: the same wiring with
 * the probe off (a second, independent instance), a naive pipeline (the bytes made a string,
 * JSON.parse, a Map book, an object literal order, JSON.stringify, the same request assembly and
 * byte copy) and the timer
 * floor (two clock reads). The three lanes are interleaved frame by frame, starting lane rotating,
 * so the machine's noise and GC pauses land on each alike. Bounded in frames and time.
 * Then the allocation rows: the probe-off lane and the naive one each handle more frames alone,
 * untimed, and report heap bytes and scavenges per 1,000,000 orders (allocation.ts).
 */

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createHistogram, latencyRow, nowNs, recordNs } from '../harness.ts';
import type { BenchRow, BenchSuite, Histogram } from '../harness.ts';
import { makeFeedStream } from '../feed/delta-frames.ts';
import { SinkOrderEntry } from './sink-order-entry.ts';
import { measureAllocation } from './allocation.ts';
import type { AllocationFloor, AllocationResult } from './allocation.ts';
import { PathLane, drive } from './lanes.ts';
import { NaiveLane } from './naive-lane.ts';
import type { DrivePhase } from './lanes.ts';
import { buildHotPath } from './wiring.ts';
import type { HotPath } from './wiring.ts';

const SUITE = 'hot-path';
const NAIVE = 'baseline: naive pipeline (utf8 string, JSON.parse, Map book, object literal, JSON.stringify), frame -> bytes';
const OUTER = 'frame in -> handleBytes returned (driver clock)';
const PROBE_OFF = 'baseline: same path, probe off: frame in -> handleBytes returned (driver clock)';
const SEED = 20261122;

interface Phase extends DrivePhase {
  /** Frames each lane handles alone, untimed, after the timed run: the allocation bytes rows (allocation.ts). */
  allocationFrames: number;
  /** The frames after those, unsampled: the scavenge rows (a scavenge is ~16 MiB: many frames for a count; a full run counts 1,000,000 orders, not a share scaled up; the strategy's intent cap is lifted for it, wiring.ts). */
  scavengeFrames: number;
}

export default {
  name: SUITE,
  async run({ quick }): Promise<BenchRow[]> {
    const phase: Phase = quick ? { warmup: 5_000, samples: 20_000, budgetMs: 4_000, allocationFrames: 20_000, scavengeFrames: 20_000 } : { warmup: 20_000, samples: 200_000, budgetMs: 30_000, allocationFrames: 100_000, scavengeFrames: 1_000_000 };
    const total = phase.warmup + phase.samples + phase.allocationFrames + phase.scavengeFrames;
    const stream = makeFeedStream(1, total, SEED);
    const work = mkdtempSync(path.join(tmpdir(), 'bench-hot-path-'));
    const rows: BenchRow[] = [];
    const paths: HotPath[] = [];
    try {
      const build = async (name: string, probeOn: boolean): Promise<PathLane<SinkOrderEntry>> => {
        const sink = new SinkOrderEntry();
        const hp = await buildHotPath({
          ticker: stream.tickers[0],
          grid: stream.grid,
          snapshotFrame: stream.snapshots[0],
          entry: sink,
          journalPath: path.join(work, `journal-${paths.length}.jsonl`),
          mode: 'replace',
          clockSteps: total,
        });
        paths.push(hp);
        hp.probe.setEnabled(probeOn);
        return new PathLane(name, hp, sink);
      };
      const on = await build(OUTER, true);
      const off = await build(PROBE_OFF, false);
      const naive = new NaiveLane();
      const bytes = stream.deltas.map((text) => Buffer.from(text, 'utf8'));
      const { timed: frames, next } = await drive([on, off, naive], bytes, phase);
      const { results: [ours, obvious], floor } = await measureAllocation([off, naive], bytes, next, phase.allocationFrames, phase.scavengeFrames);
      const probe = on.hp.probe;
      const note = `frames timed ${frames}, with an order ${probe.framesWithOrder}; requests ${on.sink.requests}, ${on.sink.bytes} bytes; orders sent ${on.hp.oms.stats.ordersSent}`;
      const hop = (name: string, histogram: Histogram, extra: Partial<BenchRow> = {}): BenchRow => latencyRow(SUITE, name, false, histogram, extra);
      rows.push(
        hop('hop: frame received -> decoded', probe.decode.histogram),
        hop('hop: decoded -> book applied', probe.book.histogram),
        hop('hop: book applied -> strategy intent', probe.strategy.histogram),
        hop('hop: strategy intent -> risk verdict', probe.risk.histogram),
        hop('hop: risk verdict -> exec called (OMS)', probe.oms.histogram),
        hop('hop: exec called -> returned (sink: encode, sign take, assemble, copy)', probe.exec.histogram),
        hop('tick-to-trade (probe): frame received -> exec returned', probe.total.histogram, { compareTo: NAIVE, note }),
        hop(OUTER, on.histogram, { compareTo: PROBE_OFF, note: 'probe on: its stamps included, and the end of the frame after the order' }),
        latencyRow(SUITE, PROBE_OFF, true, off.histogram, { note: `same wiring, probe.setEnabled(false); orders sent ${off.hp.oms.stats.ordersSent}` }),
        latencyRow(SUITE, NAIVE, true, naive.histogram, { note: `${naive.orders} orders; same frames, same request assembly and byte copy` }),
        timerFloor(phase),
        ...allocationRows(ours!, obvious!, floor),
      );
    } finally {
      for (const hp of paths) await hp.stop();
      rmSync(work, { recursive: true, force: true });
    }
    return rows;
  },
} satisfies BenchSuite;

const ALLOC_BYTES = 'allocation: heap bytes per 1M orders, same path (probe off), lane alone';
const ALLOC_BYTES_NAIVE = 'baseline: allocation: heap bytes per 1M orders, naive pipeline, lane alone';
const ALLOC_GC = 'allocation: scavenges (minor GC) per 1M orders, same path (probe off), lane alone';
const ALLOC_GC_NAIVE = 'baseline: allocation: scavenges (minor GC) per 1M orders, naive pipeline, lane alone';
const ALLOC_GC_FLOOR = 'floor: allocation: scavenges (minor GC) per 1M frames, the driver alone (an empty lane)';

/** The allocation phase as rows: bytes and scavenges per 1M orders, ours beside the naive pipeline's, and the driver's own scavenges (in both lanes' counts). */
function allocationRows(ours: AllocationResult, naive: AllocationResult, floor: AllocationFloor): BenchRow[] {
  const bytesRow = (name: string, baseline: boolean, r: AllocationResult, compareTo?: string): BenchRow => ({
    suite: SUITE, case: name, baseline, count: r.orders, value: r.bytesPerMillionOrders, unit: 'bytes',
    note: `${r.frames} frames, ${r.orders} orders, untimed; used-heap rises summed per frame, the driver's own subtracted (allocation.ts)`,
    ...(compareTo === undefined ? {} : { compareTo }),
  });
  const gcRow = (name: string, baseline: boolean, r: AllocationResult, compareTo?: string): BenchRow => ({
    suite: SUITE, case: name, baseline, count: r.scavengeOrders, value: r.scavengesPerMillionOrders, unit: 'scavenges',
    note: `${floor.frames} frames after those, ${r.scavengeOrders} orders, untimed, no heap sampling; the driver's own (floor row) included (allocation.ts)`,
    ...(compareTo === undefined ? {} : { compareTo }),
  });
  return [
    bytesRow(ALLOC_BYTES, false, ours, ALLOC_BYTES_NAIVE),
    bytesRow(ALLOC_BYTES_NAIVE, true, naive),
    gcRow(ALLOC_GC, false, ours, ALLOC_GC_NAIVE),
    gcRow(ALLOC_GC_NAIVE, true, naive),
    {
      suite: SUITE, case: ALLOC_GC_FLOOR, baseline: true, count: floor.frames, value: floor.scavengesPerMillionFrames, unit: 'scavenges',
      note: `${floor.frames} frames through a lane that does nothing, no heap sampling: the driver's loop and its turn of the event loop per 1,024 frames, counted in both lanes' scavenges above (one order a frame)`,
    },
  ];
}

function timerFloor(phase: Phase): BenchRow {
  const histogram = createHistogram();
  for (let i = 0; i < phase.samples; i++) {
    const start = nowNs();
    recordNs(histogram, nowNs() - start);
  }
  return latencyRow(SUITE, 'floor: two clock reads (driver nowNs)', true, histogram);
}
