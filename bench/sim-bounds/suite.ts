/**
 * Simulator bounds bench: does one hostile signed-in client (A) still raise another client's (B)
 * latency? The simulator runs in a process of its own (`src/sim/main.ts --activity-rate 2000`), A in
 * another (hostile-child.ts), B in this one (status-prober.ts: unsigned GET /exchange/status on
 * keep-alive sockets from several loopback addresses, samples timed without coordinated omission).
 * For each load A runs (idle, a huge subscribe, repeated channels up to the subscription cap, many
 * 64-character client order ids, 1 MB ids, a 1,000-order listing), B's p50/p99/max go beside B's
 * latency with A idle, in the same run, and the note gives what A got done and the CPU the
 * simulator spent. A second idle window at the end shows whether the simulator recovered.
 * Quick mode: 1.5 s windows (the whole suite in about 20 s); full: 5 s windows.
 */

import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { formatPrice, PriceGrid, type PriceRangeText } from '../../src/core/index.ts';
import { BenchChild } from '../child-process.ts';
import { latencyRow, type BenchRow, type BenchSuite } from '../harness.ts';
import { StatusProber } from './status-prober.ts';

const SUITE = 'sim-bounds';
const ACTIVITY_RATE = 2000;
/** B's sockets (one loopback address each) and request rate: 15/s per address, under the Basic 20/s. */
const B_ADDRESSES = 8;
const B_RATE_PER_SEC = 120;

interface Settings {
  windowMs: number;
  /** A runs this long before B's window opens (its load reaches steady state). */
  rampMs: number;
  graceMs: number;
}

const FULL: Settings = { windowMs: 5000, rampMs: 1000, graceMs: 5000 };
const QUICK: Settings = { windowMs: 1500, rampMs: 400, graceMs: 3000 };

const LOADS: ReadonlyArray<{ load: string; label: string }> = [
  { load: 'idle', label: 'A idle' },
  { load: 'huge-subscribe', label: 'A huge subscribe (400k tickers in one frame; 200 x 2,500)' },
  { load: 'repeated-channels', label: 'A repeated channels (20k in one subscribe; 1,000 subs on every market)' },
  { load: 'max-length-ids', label: 'A 64-char client order ids (batch creates at its write budget)' },
  { load: 'oversize-ids', label: 'A 1 MB client order ids (refused)' },
  { load: 'big-listing', label: 'A GET /portfolio/orders?limit=1000 at its read budget' },
  { load: 'idle', label: 'A idle again' },
];

function sleep(ms: number): Promise<void> {
  return new Promise((done) => setTimeout(done, ms));
}

/** Active markets and their lowest tradable price text (resting bids there never trade). */
async function lowestPrices(httpUrl: string): Promise<Record<string, string>> {
  const response = await fetch(`${httpUrl}/trade-api/v2/markets?limit=1000`);
  if (response.status !== 200) throw new Error(`GET /markets answered ${response.status}`);
  const body = (await response.json()) as { markets: Array<{ ticker: string; status: string; price_ranges: PriceRangeText[] }> };
  const lowest: Record<string, string> = {};
  for (const market of body.markets) {
    if (market.status === 'active') lowest[market.ticker] = formatPrice(PriceGrid.fromPriceRanges(market.price_ranges).minPrice);
  }
  if (Object.keys(lowest).length === 0) throw new Error('the simulator has no active market');
  return lowest;
}

function statusText(statuses: Map<number, number>): string {
  return [...statuses.entries()].map(([status, count]) => `${status} x${count}`).join(', ');
}

function countersText(counters: Record<string, unknown>): string {
  return Object.entries(counters)
    .filter(([name]) => name !== 'load' && name !== 'ok')
    .map(([name, value]) => `${name} ${String(value)}`)
    .join(', ');
}

const suite: BenchSuite = {
  name: SUITE,
  async run({ quick }) {
    const settings = quick ? QUICK : FULL;
    const workDir = mkdtempSync(path.join(os.tmpdir(), 'bench-sim-bounds-'));
    const rows: BenchRow[] = [];
    let sim: BenchChild | null = null;
    let hostile: BenchChild | null = null;
    let prober: StatusProber | null = null;
    try {
      sim = await BenchChild.start(
        'src/sim/main.ts',
        ['--port', '0', '--seed', '1', '--activity-rate', String(ACTIVITY_RATE), '--keys-dir', path.join(workDir, 'keys'), '--log-level', 'warn'],
        30_000,
      );
      hostile = await BenchChild.start('bench/sim-bounds/hostile-child.ts', [], 30_000);
      const httpUrl = String(sim.ready.http);
      const markets = await lowestPrices(httpUrl);
      const init = await hostile.command({
        cmd: 'init',
        http: httpUrl,
        ws: String(sim.ready.ws),
        keyId: String(sim.ready.keyId),
        privateKeyPath: String(sim.ready.privateKeyPath),
        markets,
      });
      if (init.ok !== true) throw new Error(`hostile child: ${JSON.stringify(init)}`);
      prober = new StatusProber(Number(new URL(httpUrl).port), B_ADDRESSES);
      await prober.open();
      await prober.measure(B_RATE_PER_SEC, 300, settings.graceMs); // warm-up, not reported
      const baseline = `B, ${LOADS[0].label}`;
      for (const { load, label } of LOADS) {
        const started = await hostile.command({ cmd: 'start', load });
        if (started.ok !== true) throw new Error(`hostile child: ${JSON.stringify(started)}`);
        await sleep(settings.rampMs);
        const cpuStart = sim.cpuSeconds();
        const wallStart = performance.now();
        const result = await prober.measure(B_RATE_PER_SEC, settings.windowMs, settings.graceMs);
        const cpuEnd = sim.cpuSeconds();
        const simCpu = cpuStart === null || cpuEnd === null ? 'n/a' : `${Math.round(((cpuEnd - cpuStart) / ((performance.now() - wallStart) / 1000)) * 100)}%`;
        const counters = await hostile.command({ cmd: 'stop' }, 20_000);
        const caseName = `B, ${label}`;
        rows.push(
          latencyRow(SUITE, caseName, caseName === baseline, result.histogram, {
            ...(caseName === baseline ? {} : { compareTo: baseline }),
            note:
              `B: GET /exchange/status at ${B_RATE_PER_SEC}/s from ${B_ADDRESSES} addresses (${statusText(result.statuses)}` +
              `${result.unanswered > 0 ? `; ${result.unanswered} unanswered` : ''}); sim CPU ${simCpu} of a core, activity ${ACTIVITY_RATE}/s; ` +
              `A: ${countersText(counters) || 'nothing'}; ${os.cpus().length} cores, load avg ${os.loadavg()[0].toFixed(1)}`,
          }),
        );
      }
    } finally {
      prober?.close();
      await hostile?.stop();
      await sim?.stop();
      rmSync(workDir, { recursive: true, force: true });
    }
    return rows;
  },
};

export default suite;
