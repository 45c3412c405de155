// Goal: the tick-to-trade suite's perf-trace pairing (bench/tick-to-trade/syscall-trace.ts) pairs
// each order write of the runtime's thread with the simulator's read of the same bytes, whatever
// order perf printed them in: small writes (WebSocket frames) and other threads' writes are not
// order writes, reads of other processes' threads and reads of another size never pair, a read is
// paired once, and a read beyond the 50 ms window is left. Kernel time is the write's duration,
// the wake its entry to the read's return.
// Method: pairOrderWrites on hand-made perf trace lines in perf's own format.

import { describe, expect, it } from 'vitest';
import { pairOrderWrites } from '../../bench/tick-to-trade/syscall-trace.ts';

const RUNTIME = 100;
const SIM = new Set([200, 201]);
const line = (ms: number, durationMs: number, comm: string, tid: number, call: string, ret: number): string =>
  `${ms.toFixed(3).padStart(10)} (${durationMs.toFixed(3).padStart(6)} ms): ${comm}/${tid} ${call}(fd: 23, buf: 0x7f0000001000, count: ${ret})${' '.repeat(20)}= ${ret}`;

describe('perf trace pairing', () => {
  it('pairs order writes with the simulator reads of their bytes, once each, in the window', () => {
    const text = [
      '# perf trace header',
      line(1.000, 0.040, 'node', RUNTIME, 'write', 812), // order 1
      line(1.010, 0.002, 'node', RUNTIME, 'write', 40), // a WebSocket pong: not an order
      line(1.300, 0.005, 'node', 999, 'write', 812), // another thread of ours: not the event loop
      line(1.250, 0.010, 'uv', 201, 'recvfrom', 812), // printed after, returned at 1.260: pairs with order 1
      line(1.200, 0.001, 'node', 300, 'read', 812), // a thread of neither side
      line(2.000, 0.050, 'node', RUNTIME, 'writev', 700), // order 2
      line(2.100, 0.020, 'node', 200, 'read', 699), // another size
      line(2.300, 0.004, 'node', 200, 'read', 700), // pairs with order 2 (returned 2.304)
      line(2.400, 0.004, 'node', 200, 'read', 700), // a second read of that size: stays unpaired
      line(3.000, 0.030, 'node', RUNTIME, 'write', 900), // order 3: its read comes too late
      line(60.000, 0.010, 'node', 200, 'read', 900),
      '     3.100 ( 0.010 ms): node/100 write(fd: 23, buf: 0x1, count: 900) ... [continued]',
    ].join('\n');
    const result = pairOrderWrites(text, RUNTIME, SIM, 500);
    expect(result.writes).toBe(3);
    expect(result.paired).toBe(2);
    expect(result.kernelWrite.totalCount).toBe(3);
    expect(result.kernelWrite.maxValue).toBeGreaterThanOrEqual(49_000);
    expect(result.wake.totalCount).toBe(2);
    // Order 1: entry 1.000 ms -> read returned 1.260 ms; order 2: 2.000 -> 2.304.
    expect(result.wake.getValueAtPercentile(1)).toBeGreaterThanOrEqual(259_000);
    expect(result.wake.getValueAtPercentile(1)).toBeLessThanOrEqual(261_000);
    expect(result.wake.maxValue).toBeGreaterThanOrEqual(303_000);
    expect(result.wake.maxValue).toBeLessThanOrEqual(305_000);
  });
});
