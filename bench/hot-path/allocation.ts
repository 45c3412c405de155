/**
 * Allocation per order on the hot path: bytes the JS heap grew by and minor collections
 * (scavenges) while one lane alone handles a run of frames, scaled to 1,000,000 orders. The p99
 * gap to the naive pipeline is mostly scavenges, and a scavenge's count follows the bytes
 * allocated, so this is the number the order pool, the journal ring and the reused request buffer
 * are judged by (bench/hot-path/suite.ts prints it beside the latency rows).
 *
 * Method. Node 20's v8.getHeapStatistics has no running total of allocated bytes, so the heap's
 * used size is sampled after every frame and the rises are summed (a fall is a collection; the few
 * bytes allocated between the last sample and that collection are lost, one frame's worth per
 * scavenge, well under 1%). Sampling allocates a little itself, and the driver a little: an
 * empty lane run the same way measures that, and it is subtracted. Scavenges are counted by a
 * PerformanceObserver on 'gc' entries of kind minor, in a second run over the next frames without
 * the sampling (its statistics object per frame would be most of the collections counted; a count
 * cannot be subtracted), so what remains of the driver's is its loop and its turn of the event
 * loop per 1,024 frames, reported as the floor. Each counting run starts from an empty young
 * generation (a full collection before its observer starts): otherwise what the phases before it
 * left there (the sampling run's statistics objects, the other lanes' garbage) could tip one
 * scavenge into a lane that allocated nothing, and the count would say more about the run order
 * than about the lane. Untimed, one lane at a time, bounded in frames.
 * Owns the measurement only; never changes what a lane does.
 */

import { PerformanceObserver, constants } from 'node:perf_hooks';
import { setImmediate as nextTurn } from 'node:timers/promises';
import v8 from 'node:v8';
import { runInNewContext } from 'node:vm';

/** What the allocation phase needs of a lane: the frame, the work between frames, and its order count so far. */
export interface AllocationLane {
  step(bytes: Buffer, timed: boolean): void;
  between(frame: number): void;
  ordersSoFar(): number;
}

/** The driver alone (an empty lane): its scavenges are in every lane's count (a count cannot be subtracted per lane: the row beside says it). */
export interface AllocationFloor {
  frames: number;
  scavengesPerMillionFrames: number;
}

export interface AllocationResult {
  frames: number;
  orders: number;
  /** Heap bytes allocated per 1,000,000 orders (the driver's and the sampler's own subtracted). */
  bytesPerMillionOrders: number;
  /** Minor collections per 1,000,000 orders (the second, unsampled run). */
  scavengesPerMillionOrders: number;
  /** Orders of that run. */
  scavengeOrders: number;
}

const EMPTY_LANE: AllocationLane = { step() {}, between() {}, ordersSoFar: () => 0 };

/** Sums the rises of the heap's used size between samples. */
class HeapRises {
  bytes = 0;
  #last = v8.getHeapStatistics().used_heap_size;

  sample(): void {
    const used = v8.getHeapStatistics().used_heap_size;
    if (used > this.#last) this.bytes += used - this.#last;
    this.#last = used;
  }
}

/** A full collection, through V8's gc exposed at run time (the bench's own process only). */
function collectGarbage(): void {
  v8.setFlagsFromString('--expose-gc');
  (runInNewContext('gc') as () => void)();
}

/**
 * One lane alone over frames [first, first + count): the heap's rises summed with `sampleHeap`,
 * else the scavenges counted (from an empty young generation). Exported for its test.
 */
export async function runAlone(lane: AllocationLane, frames: readonly Buffer[], first: number, count: number, sampleHeap: boolean): Promise<{ bytes: number; scavenges: number; orders: number; frames: number }> {
  if (!sampleHeap) collectGarbage(); // before the observer: its collection is not counted
  let scavenges = 0;
  const observer = new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) {
      if ((entry as unknown as { detail?: { kind?: number } }).detail?.kind === constants.NODE_PERFORMANCE_GC_MINOR) scavenges++;
    }
  });
  observer.observe({ entryTypes: ['gc'] });
  const ordersBefore = lane.ordersSoFar();
  const rises = new HeapRises();
  let done = 0;
  const end = Math.min(first + count, frames.length);
  // Runs of 1,024 frames in one synchronous call, as drive() does (no await per frame), then a
  // turn of the event loop for the journal's writes.
  for (let i = first; i < end; ) {
    const stop = Math.min(end, i + 1024);
    for (; i < stop; i++) {
      lane.between(i);
      lane.step(frames[i], false);
      if (sampleHeap) rises.sample();
      done++;
    }
    await nextTurn();
  }
  await nextTurn(); // gc entries are delivered asynchronously
  observer.disconnect();
  return { bytes: rises.bytes, scavenges, orders: lane.ordersSoFar() - ordersBefore, frames: done };
}

/**
 * Runs each lane alone over frames [first, first + bytesFrames) sampling the heap, then over the
 * next `scavengeFrames` counting collections (every lane sees the same frames, in stream order
 * after what it saw before) and reports per 1M orders, with the driver's own scavenges (an empty
 * lane's, unsampled) per 1M frames. `first` must be where the lanes' previous frames ended, so the
 * books stay in sequence.
 */
export async function measureAllocation(lanes: readonly AllocationLane[], frames: readonly Buffer[], first: number, bytesFrames: number, scavengeFrames: number): Promise<{ results: AllocationResult[]; floor: AllocationFloor }> {
  const floorBytes = await runAlone(EMPTY_LANE, frames, first, bytesFrames, true);
  const floorPerFrame = floorBytes.frames === 0 ? 0 : floorBytes.bytes / floorBytes.frames;
  const results: AllocationResult[] = [];
  for (const lane of lanes) {
    const run = await runAlone(lane, frames, first, bytesFrames, true);
    const bytes = Math.max(0, run.bytes - floorPerFrame * run.frames);
    results.push({ frames: run.frames, orders: run.orders, bytesPerMillionOrders: run.orders === 0 ? 0 : Math.round((bytes * 1_000_000) / run.orders), scavengesPerMillionOrders: 0, scavengeOrders: 0 });
  }
  const second = first + bytesFrames;
  const floor = await runAlone(EMPTY_LANE, frames, second, scavengeFrames, false);
  for (let k = 0; k < lanes.length; k++) {
    const run = await runAlone(lanes[k]!, frames, second, scavengeFrames, false);
    results[k]!.scavengesPerMillionOrders = run.orders === 0 ? 0 : Math.round((run.scavenges * 1_000_000) / run.orders);
    results[k]!.scavengeOrders = run.orders;
  }
  return { results, floor: { frames: floor.frames, scavengesPerMillionFrames: floor.frames === 0 ? 0 : Math.round((floor.scavenges * 1_000_000) / floor.frames) } };
}
