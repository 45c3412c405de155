/**
 * WebSocket client suite: how long a text frame takes from a uWebSockets.js server in another
 * process (the simulator's server library) to the feed's frame callback, through our RFC 6455
 * client (src/net/raw-websocket.ts, the feed's only one: the frame's bytes in place, with
 * `utf8: 'listener'` as the feed runs it) and through undici's WebSocket (the baseline, kept here
 * only: a MessageEvent with the frame as a string), one orderbook_delta-sized frame every 10 ms
 * (about the pace of the runtime's orders, so both clients meet a process that was idle) and
 * every 1 ms.
 *
 *   server: t = CLOCK_MONOTONIC ns, ws.send(...)  ->  client callback: CLOCK_MONOTONIC - t
 *
 * process.hrtime.bigint() reads CLOCK_MONOTONIC, one clock for every process on the machine, so
 * no offset is estimated. Rounds alternate between the clients (each with a fresh connection) so
 * the machine's noise falls on both alike. The server child is placed on the simulator's CPUs and
 * this thread on the runtime's (src/runtime/cpu-placement.ts), as in `npm start`.
 * Every loop is bounded in count and time; the child is stopped by its handle (bench/child-process.ts).
 */

import path from 'node:path';
import { WebSocket } from 'undici';
import { RawWebSocket } from '../../src/net/index.ts';
import { pinEventLoop, placementForThisMachine } from '../../src/runtime/cpu-placement.ts';
import { BenchChild } from '../child-process.ts';
import { createHistogram, latencyRow, recordNs } from '../harness.ts';
import type { BenchRow, BenchSuite, Histogram } from '../harness.ts';

const SUITE = 'ws-client';
const WARMUP_FRAMES = 20;

type Client = 'raw' | 'undici';

const pause = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** Send time (ns) the server put in the frame's "t" field. */
function sentNs(text: string): bigint {
  const start = text.indexOf('"t":') + 4;
  return BigInt(text.slice(start, text.indexOf(',', start)));
}

/** The same from the frame's bytes (read after the clock: not part of the timed path). */
function sentNsOfBytes(bytes: Buffer, start: number, end: number): bigint {
  return sentNs(bytes.toString('latin1', start, end));
}

export default {
  name: SUITE,
  async run({ quick }): Promise<BenchRow[]> {
    const rows: BenchRow[] = [];
    const placement = placementForThisMachine();
    const unpin = placement.plan === null ? null : pinEventLoop(placement.plan.runtimeCpus);
    try {
      for (const gapMs of [10, 1]) {
        const frames = quick ? (gapMs === 10 ? 100 : 500) : gapMs === 10 ? 1_000 : 5_000;
        const histograms = await paced(gapMs, frames, quick ? 2 : 4, placement.plan?.simCpus ?? null);
        const note = `${frames} frames per client, ${gapMs} ms apart; ${placement.reason}`;
        rows.push(latencyRow(SUITE, `ours (raw-websocket.ts): server send -> ontext (bytes), ${gapMs} ms pace`, false, histograms.raw, {
          compareTo: `undici WebSocket: server send -> onmessage, ${gapMs} ms pace`, note,
        }));
        rows.push(latencyRow(SUITE, `undici WebSocket: server send -> onmessage, ${gapMs} ms pace`, true, histograms.undici, { note }));
      }
    } finally {
      unpin?.();
    }
    return rows;
  },
} satisfies BenchSuite;

/** `rounds` rounds per client, alternating, `frames` timed frames in all per client. */
async function paced(gapMs: number, frames: number, rounds: number, childCpus: string | null): Promise<Record<Client, Histogram>> {
  const server = await BenchChild.start(path.join('bench', 'ws-client', 'server.mjs'), [String(gapMs)], 10_000, childCpus);
  try {
    const url = `ws://127.0.0.1:${Number(server.ready.port)}/bench`;
    const histograms: Record<Client, Histogram> = { raw: createHistogram(), undici: createHistogram() };
    const perRound = Math.ceil(frames / rounds);
    for (let round = 0; round < rounds; round++) {
      for (const client of ['raw', 'undici'] as const) await receive(client, url, perRound, histograms[client], gapMs);
    }
    return histograms;
  } finally {
    await server.stop();
  }
}

/** One connection: skips WARMUP_FRAMES, then records `count` frames (bounded in time). */
async function receive(client: Client, url: string, count: number, histogram: Histogram, gapMs: number): Promise<void> {
  let seen = 0;
  let finish: () => void = () => {};
  const done = new Promise<void>((resolve) => {
    finish = resolve;
  });
  const onLatency = (latency: number): void => {
    if (++seen > WARMUP_FRAMES) recordNs(histogram, latency);
    if (seen === WARMUP_FRAMES + count) finish();
  };
  let socket: RawWebSocket | WebSocket;
  if (client === 'raw') {
    const raw = new RawWebSocket(url, { utf8: 'listener' });
    raw.ontext = (bytes, start, end) => {
      const now = process.hrtime.bigint();
      onLatency(Number(now - sentNsOfBytes(bytes, start, end)));
      return true;
    };
    socket = raw;
  } else {
    const undici = new WebSocket(url);
    undici.onmessage = (event: { data: unknown }) => {
      const now = process.hrtime.bigint();
      if (typeof event.data === 'string') onLatency(Number(now - sentNs(event.data)));
    };
    socket = undici;
  }
  const limitMs = (WARMUP_FRAMES + count) * gapMs * 3 + 10_000;
  await Promise.race([done, pause(limitMs)]);
  if (socket instanceof RawWebSocket) socket.ontext = null;
  else socket.onmessage = null;
  socket.close();
  if (seen < WARMUP_FRAMES + count) throw new Error(`ws-client: ${client} received ${seen} of ${WARMUP_FRAMES + count} frames within ${limitMs} ms`);
}
