// Goal: bench/hot-path's allocation rows count what the lane under test allocates: a lane that
// allocates nothing per frame shows 0 bytes and 0 scavenges, also when what ran before left the
// young generation nearly full, and a lane that allocates ~16 KB a frame shows its bytes and
// its scavenges, also when the young generation has grown to its largest.
// Method: measureAllocation on synthetic lanes and frames, bounded in frames; no timing asserted.
import { describe, expect, it } from 'vitest';
import v8 from 'node:v8';
import { measureAllocation, runAlone, type AllocationLane } from '../../bench/hot-path/allocation.ts';

const FRAMES = Array.from({ length: 40_000 }, (_, i) => Buffer.from(`{"frame":${i}}`));

/** One order a frame; allocates nothing. */
function quietLane(): AllocationLane & { orders: number } {
  return {
    orders: 0,
    step() {
      this.orders++;
    },
    between() {},
    ordersSoFar() {
      return this.orders;
    },
  };
}

let kept: unknown = null;

/**
 * One order a frame; ~16 KB of garbage a frame (an array of 2,048 small integers, 8 bytes each in
 * Node's V8 build, the last one kept): ~490 MB over the counting run, several times the largest
 * young generation V8 grows to (64 MB on Node 24; a file sharing its worker's isolate may start
 * with it grown, where a 1 KB-a-frame lane once counted no scavenge in 30,000 frames).
 */
function garbageLane(): AllocationLane & { orders: number } {
  return {
    orders: 0,
    step(bytes: Buffer) {
      kept = new Array<number>(2048).fill(bytes.length + this.orders);
      this.orders++;
    },
    between() {},
    ordersSoFar() {
      return this.orders;
    },
  };
}

/** Fills the young generation with short-lived objects until less than `leftBytes` of it is free. */
function fillYoungGeneration(leftBytes: number): number {
  let sum = 0;
  for (let i = 0; i < 1_000_000; i++) {
    sum += new Array<number>(120).fill(i).length;
    const young = v8.getHeapSpaceStatistics().find((space) => space.space_name === 'new_space');
    if (young === undefined || young.space_available_size < leftBytes) break;
  }
  return sum;
}

/** Grows the young generation towards its largest: many objects that survive a few scavenges. */
function growYoungGeneration(): number {
  const survivors: unknown[] = [];
  for (let round = 0; round < 200; round++) {
    for (let i = 0; i < 20_000; i++) survivors.push({ i, round });
    if (survivors.length > 600_000) survivors.splice(0, 300_000);
  }
  return survivors.length;
}

describe('bench/hot-path allocation measurement', () => {
  it('a lane that allocates nothing: 0 bytes and 0 scavenges per 1M orders', async () => {
    const { results } = await measureAllocation([quietLane()], FRAMES, 0, 4_000, 30_000);
    expect(results[0].orders).toBe(4_000);
    expect(results[0].scavengeOrders).toBe(30_000);
    expect(results[0].bytesPerMillionOrders).toBeLessThan(50_000_000); // < 50 bytes an order: the sampler's noise
    expect(results[0].scavengesPerMillionOrders).toBe(0);
  }, 60_000);

  it('garbage left just before a counting run is not counted against the lane', async () => {
    for (let round = 0; round < 3; round++) {
      fillYoungGeneration(8 * 1024); // the driver's own few KB would now tip a scavenge
      const run = await runAlone(quietLane(), FRAMES, 0, 30_000, false);
      expect(run.frames).toBe(30_000);
      expect(run.scavenges).toBe(0);
    }
  }, 60_000);

  it('a lane that allocates ~16 KB a frame: its bytes and its scavenges are counted', async () => {
    growYoungGeneration();
    const { results } = await measureAllocation([garbageLane()], FRAMES, 0, 4_000, 30_000);
    // 2,048 small integers: 16 KB+ an array (8 KB under pointer compression); per 1M orders, 8-17 GB.
    expect(results[0].bytesPerMillionOrders).toBeGreaterThan(6_000_000_000);
    expect(results[0].bytesPerMillionOrders).toBeLessThan(40_000_000_000);
    expect(results[0].scavengesPerMillionOrders).toBeGreaterThan(0);
    expect(kept).not.toBeNull();
  }, 60_000);
});
