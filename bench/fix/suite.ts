/**
 * FIX suite (issue 14, "Performance to reach"): our FIX engine and route beside their baselines,
 * in one run, in three parts:
 *
 *   1. codec (codec.ts)           encode a NewOrderSingle, parse an ExecutionReport: ours vs
 *                                 jspurefix on the same messages; target p50 <= 1 us / 0.6 us and
 *                                 >= 5x jspurefix
 *   2. in process (in-process.ts) frame in -> FIX NewOrderSingle bytes ready through the runtime's
 *                                 graph builder, beside the REST route's figure (bench/hot-path's
 *                                 SinkOrderEntry) on the same frames; target within 10%
 *   3. wire to wire (wire.ts)     simulator's book change sent -> our NewOrderSingle received,
 *                                 against the simulator child (--fix --probe), beside a raw TCP
 *                                 ping-pong at the same pace and sizes; target within 1.3x
 *
 * The codec and in-process parts run first, under V8's default tiering (as bench/hot-path); the
 * wire part then switches on eager tier-up as `npm start` does. A missed target is reported on its
 * row (pass false, and the note says by how much); targets are never adjusted here. A part that
 * fails (the simulator does not start, say) gives a FAILED row with pass false (so --strict exits 1)
 * and the other parts still report.
 */

import type { BenchRow, BenchSuite } from '../harness.ts';
import { CODEC_FULL, CODEC_QUICK, codecRows } from './codec.ts';
import { IN_PROCESS_FULL, IN_PROCESS_QUICK, inProcessRows } from './in-process.ts';
import { WIRE_FULL, WIRE_QUICK, wireRows } from './wire.ts';

const SUITE = 'fix';

export default {
  name: SUITE,
  async run({ quick }): Promise<BenchRow[]> {
    const rows: BenchRow[] = [];
    // A part that fails leaves a failed row (pass false, the error in its note) and the others still
    // report: the wire part depends on the simulator child, the others on nothing outside this process.
    const part = async (name: string, target: string, run: () => Promise<BenchRow[]>): Promise<void> => {
      try {
        rows.push(...(await run()));
      } catch (error) {
        const text = error instanceof Error ? (error.stack ?? error.message) : String(error);
        console.error(`bench fix: part ${name} failed: ${text}`);
        rows.push({ suite: SUITE, case: `${name}: FAILED`, baseline: false, count: 0, target, pass: false, note: text.slice(0, 2_000) });
      }
    };
    await part('codec', 'encode <= 1 us, parse <= 0.6 us p50, each >= 5x jspurefix', () => codecRows(SUITE, quick ? CODEC_QUICK : CODEC_FULL));
    await part('in process', 'within 10% of the REST route', () => inProcessRows(SUITE, quick ? IN_PROCESS_QUICK : IN_PROCESS_FULL));
    await part('wire to wire', 'p50 <= 1.3x the paced ping-pong floor', () => wireRows(SUITE, quick ? WIRE_QUICK : WIRE_FULL));
    return rows;
  },
} satisfies BenchSuite;
