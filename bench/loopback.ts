/**
 * What the suites that run the runtime against the simulator over loopback share
 * (bench/tick-to-trade, bench/fix): the raw TCP ping-pong floor, the simulator's wire-to-wire probe,
 * and the demo catalog cut to one market. Measures nothing by itself.
 */

import { readFileSync, writeFileSync } from 'node:fs';
import { connect, type Socket } from 'node:net';
import path from 'node:path';
import { pinEventLoop } from '../src/runtime/cpu-placement.ts';
import type { SimChild } from '../src/runtime/sim-child.ts';
import { BenchChild, REPO_DIR } from './child-process.ts';
import { createHistogram, nowNs, recordNs } from './harness.ts';
import type { Histogram } from './harness.ts';

/** The simulator's wire-to-wire probe answer (src/sim/server/probe.ts). */
export interface WireProbeSummary {
  count: number;
  p50Ns: number;
  p99Ns: number;
  p999Ns: number;
  maxNs: number;
  meanNs: number;
  deltaBatches: number;
  ordersWithoutDelta: number;
  ordersWithoutTicker: number;
}

const pause = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** The simulator's wire-to-wire probe over its simulator-only HTTP paths; null when it is off. */
export async function simProbe(sim: SimChild, action: 'reset' | 'read'): Promise<WireProbeSummary | null> {
  const response = await fetch(`${sim.ready.http}/_sim/probe${action === 'reset' ? '/reset' : ''}`, { method: action === 'reset' ? 'POST' : 'GET' });
  if (response.status !== 200) return null;
  return (await response.json()) as WireProbeSummary;
}

/** The demo catalog cut to `ticker`, so all synthetic activity lands on the bench's book. */
export function oneMarketCatalog(dir: string, ticker: string): string {
  const catalog = JSON.parse(readFileSync(path.join(REPO_DIR, 'config', 'markets.json'), 'utf8')) as { markets: { ticker: string }[] };
  catalog.markets = catalog.markets.filter((market) => market.ticker === ticker);
  const file = path.join(dir, 'markets.json');
  writeFileSync(file, JSON.stringify(catalog));
  return file;
}

/**
 * Ping-pong over loopback with a node:net echo server in a child process (bench/tick-to-trade/
 * echo-server.mjs): `requestBytes` out, `replyBytes` back, on the CPUs the runtime and the
 * simulator use. gapMs 0: back to back; otherwise a pause before each round trip, as between the
 * timed orders. The first `warmup` round trips are not recorded; bounded by 15 s.
 */
export async function loopbackRoundTrips(
  requestBytes: number,
  replyBytes: number,
  samples: number,
  warmup: number,
  pin: string | null,
  childCpus: string | null,
  gapMs: number,
): Promise<Histogram> {
  const echo = await BenchChild.start(path.join('bench', 'tick-to-trade', 'echo-server.mjs'), [String(requestBytes), String(replyBytes)], 10_000, childCpus);
  const unpin = pin === null ? null : pinEventLoop(pin);
  let socket: Socket | null = null;
  try {
    const open = connect({ host: '127.0.0.1', port: Number(echo.ready.port), noDelay: true });
    socket = open;
    await new Promise<void>((resolve, reject) => {
      open.once('connect', resolve);
      open.once('error', reject);
    });
    const request = Buffer.alloc(requestBytes, 0x62);
    let received = 0;
    let wake: (() => void) | null = null;
    open.on('data', (chunk: Buffer) => {
      received += chunk.length;
      if (received >= replyBytes) {
        received -= replyBytes;
        wake?.();
      }
    });
    const histogram = createHistogram();
    const deadline = Date.now() + 15_000;
    for (let i = 0; i < samples + warmup && Date.now() < deadline; i++) {
      if (gapMs > 0) await pause(gapMs);
      const done = new Promise<void>((resolve) => {
        wake = resolve;
      });
      const start = nowNs();
      open.write(request);
      await done;
      if (i >= warmup) recordNs(histogram, nowNs() - start);
    }
    return histogram;
  } finally {
    unpin?.();
    socket?.destroy();
    await echo.stop();
  }
}
