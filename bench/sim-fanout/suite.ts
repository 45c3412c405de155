/**
 * Simulator fan-out bench: the simulator in a process of its own (`node --import tsx
 * src/sim/main.ts --port 0 --activity-rate N --probe`), one undici WebSocket client (signed
 * handshake with the demo key from the ready line) subscribed to orderbook_delta on every active
 * market, at several activity rates. Per rate it reports:
 *   - delivered deltas/s over the window, the rate the generator actually reached (deltas counted
 *     by their ts_ms, read to the end after the window), seq gaps and error 25 (must be none while
 *     the client keeps up), and the CPU the simulator spent;
 *   - wire-to-wire from the simulator's probe (GET /_sim/probe): the client answers a delta with a
 *     V2 create (IOC at the lowest price, at most ORDERS_PER_SEC, one in flight) and the sample is
 *     the order's arrival minus the send time of the last delta on its market, both on the
 *     simulator's clock (so no cross-process clock alignment);
 *   - the delta ts_ms -> receipt lag (1 ms resolution: shows whether the client keeps up, it is not
 *     a one-way latency);
 * beside the baseline of a raw loopback TCP floor in a child process (tcp-floor-child.ts): the
 * same delta texts the client received, newline-delimited, paced at the same rate in 10 ms ticks,
 * and the same order bytes answered with the simulator's own 201 body, measured the same way.
 * Every wait is bounded; quick mode fits in about 10 s (two rates, short windows).
 */

import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { WebSocket } from 'undici';
import {
  ACCESS_KEY_HEADER,
  ACCESS_SIGNATURE_HEADER,
  ACCESS_TIMESTAMP_HEADER,
  formatPrice,
  loadPrivateKey,
  PriceGrid,
  signRequest,
  type PriceRangeText,
} from '../../src/core/index.ts';
import { formatRate, latencyRow, round1, type BenchRow, type BenchSuite, type Histogram } from '../harness.ts';
import { BenchChild } from '../child-process.ts';
import { DeltaReader } from './delta-reader.ts';
import { OrderSender } from './order-sender.ts';

const SUITE = 'sim-fanout';
const HOST = '127.0.0.1';
const WS_PATH = '/trade-api/ws/v2';

interface Settings {
  rates: number[];
  warmupMs: number;
  windowMs: number;
  /** Longest wait after the window for the deltas generated in it. */
  drainMs: number;
  ordersPerSec: number;
  /** Texts kept for the floor's replay. */
  recordMax: number;
  /** No new rate starts after this long (ms since the suite started). */
  startBudgetMs: number;
}

const FULL: Settings = { rates: [10_000, 50_000, 100_000], warmupMs: 1000, windowMs: 5000, drainMs: 2000, ordersPerSec: 200, recordMax: 200_000, startBudgetMs: 120_000 };
const QUICK: Settings = { rates: [10_000, 50_000], warmupMs: 250, windowMs: 800, drainMs: 300, ordersPerSec: 200, recordMax: 40_000, startBudgetMs: 5000 };

function sleep(ms: number): Promise<void> {
  return new Promise((done) => setTimeout(done, ms));
}

/** Polls `ready` every 5 ms until true or timeoutMs passed; returns whether it became true. */
async function waitUntil(ready: () => boolean, timeoutMs: number): Promise<boolean> {
  const deadline = performance.now() + timeoutMs;
  while (!ready()) {
    if (performance.now() > deadline) return false;
    await sleep(5);
  }
  return true;
}

function label(rate: number): string {
  return `@${formatRate(rate)}/s`;
}

function percent(part: number, whole: number): string {
  return whole > 0 ? `${Math.round((part / whole) * 100)}%` : 'n/a';
}

function round2(value: number): number {
  return Math.round(value * 100) / 100;
}

function preemptions(run: Measured): string {
  return run.senderPreemptions === null ? 'preemptions n/a' : `preempted ${Math.round(run.senderPreemptions / run.seconds)}/s`;
}

function machine(run: Measured): string {
  return `load avg ${run.loadAverage.toFixed(1)} on ${os.cpus().length} cores`;
}

function microseconds(ns: number): string {
  return `${round1(ns / 1000)}us`;
}

/** Wire-to-wire summary as the probe (GET /_sim/probe) and the floor answer it. */
interface WireSummary {
  count: number;
  p50Ns: number;
  p99Ns: number;
  p999Ns: number;
  maxNs: number;
  meanNs: number;
}

interface Measured {
  ordersPerSec: number;
  deltas: number;
  seconds: number;
  /** Sender CPU seconds in the window (null without /proc). */
  senderCpuSeconds: number | null;
  /** Sender switched out while runnable, in the window (null without /proc). */
  senderPreemptions: number | null;
  /** 1-minute load average at the window's end, and the machine's cores. */
  loadAverage: number;
  clientCpuSeconds: number;
  wire: WireSummary;
  wireNote: string;
  orders: string;
  reactionP50Ns: number;
  reactionP99Ns: number;
}

interface SimMeasured extends Measured {
  /** Deltas stamped (ts_ms) inside the window, and the window's wall-clock length. */
  generated: number;
  generatedSeconds: number;
  drained: boolean;
  seqGaps: number;
  overflowErrors: number;
  otherErrors: number;
  lag: Histogram;
  recordedFile: string;
  createdBody: string;
  /** Lowest price text per active market (the floor's order bytes are the same). */
  markets: Map<string, string>;
  keyId: string;
  privateKeyPath: string;
}

/** Active markets and their lowest tradable price text, from GET /markets. */
async function activeMarkets(httpUrl: string): Promise<Map<string, string>> {
  const response = await fetch(`${httpUrl}/trade-api/v2/markets?limit=1000`);
  if (response.status !== 200) throw new Error(`GET /markets answered ${response.status}`);
  const body = (await response.json()) as { markets: Array<{ ticker: string; status: string; price_ranges: PriceRangeText[] }> };
  const lowest = new Map<string, string>();
  for (const market of body.markets) {
    if (market.status !== 'active') continue;
    lowest.set(market.ticker, formatPrice(PriceGrid.fromPriceRanges(market.price_ranges).minPrice));
  }
  if (lowest.size === 0) throw new Error('the simulator has no active market');
  return lowest;
}

async function simProbe(httpUrl: string, method: 'GET' | 'POST'): Promise<WireSummary & { ordersWithoutDelta: number }> {
  const response = await fetch(`${httpUrl}${method === 'GET' ? '/_sim/probe' : '/_sim/probe/reset'}`, { method });
  if (response.status !== 200) throw new Error(`/_sim/probe answered ${response.status}: ${await response.text()}`);
  return (await response.json()) as WireSummary & { ordersWithoutDelta: number };
}

async function openWebSocket(wsUrl: string, keyId: string, privateKeyPath: string): Promise<WebSocket> {
  const timestampMs = Date.now();
  const headers = {
    [ACCESS_KEY_HEADER]: keyId,
    [ACCESS_TIMESTAMP_HEADER]: String(timestampMs),
    [ACCESS_SIGNATURE_HEADER]: signRequest(loadPrivateKey(privateKeyPath), timestampMs, 'GET', WS_PATH),
  };
  const socket = new WebSocket(wsUrl, { headers } as never);
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('websocket handshake timed out')), 10_000);
    socket.addEventListener('open', () => {
      clearTimeout(timer);
      resolve();
    }, { once: true });
    socket.addEventListener('error', () => {
      clearTimeout(timer);
      reject(new Error('websocket handshake failed'));
    }, { once: true });
  });
  return socket;
}

/** One simulator process at one activity rate. */
async function measureSim(rate: number, settings: Settings, keysDir: string, workDir: string): Promise<SimMeasured> {
  const args = ['--port', '0', '--seed', '1', '--activity-rate', String(rate), '--probe', '--keys-dir', keysDir, '--log-level', 'warn'];
  const sim = await BenchChild.start('src/sim/main.ts', args, 30_000);
  let socket: WebSocket | null = null;
  let sender: OrderSender | null = null;
  try {
    const httpUrl = String(sim.ready.http);
    const markets = await activeMarkets(httpUrl);
    sender = new OrderSender({
      host: HOST,
      port: Number(new URL(httpUrl).port),
      keyId: String(sim.ready.keyId),
      privateKey: loadPrivateKey(String(sim.ready.privateKeyPath)),
      lowestPriceByTicker: markets,
      ordersPerSec: settings.ordersPerSec,
    });
    await sender.connect();
    const reader = new DeltaReader({ live: true, recordMax: settings.recordMax, onDelta: sender.onDelta });
    socket = await openWebSocket(String(sim.ready.ws), String(sim.ready.keyId), String(sim.ready.privateKeyPath));
    socket.addEventListener('message', (event) => reader.onText(event.data as string));
    socket.send(JSON.stringify({ id: 1, cmd: 'subscribe', params: { channels: ['orderbook_delta'], market_tickers: [...markets.keys()] } }));
    if (!(await waitUntil(() => reader.deltas > 0, 5000))) throw new Error(`no orderbook_delta within 5 s; sim stderr: ${sim.stderr.slice(-1000)}`);
    sender.enabled = true;
    await sleep(settings.warmupMs);
    sender.enabled = false;
    await sender.settle(1000);
    await simProbe(httpUrl, 'POST');
    reader.resetWindow();
    sender.resetWindow();
    sender.enabled = true;
    const simCpuStart = sim.cpuSeconds();
    const simSwitchesStart = sim.involuntarySwitches();
    const clientCpuStart = process.cpuUsage();
    const startMs = performance.now();
    reader.generatedFromMs = Date.now();
    await sleep(settings.windowMs);
    reader.generatedToMs = Date.now();
    const deltas = reader.deltas;
    const seconds = (performance.now() - startMs) / 1000;
    const simCpuEnd = sim.cpuSeconds();
    const simSwitchesEnd = sim.involuntarySwitches();
    const clientCpu = process.cpuUsage(clientCpuStart);
    sender.enabled = false;
    await sender.settle(1000);
    const wire = await simProbe(httpUrl, 'GET');
    // Every delta stamped before the window's end arrives before the first one stamped after it.
    const drained = await waitUntil(() => reader.newestTsMs >= reader.generatedToMs, settings.drainMs);
    const recordedFile = path.join(workDir, `deltas-${rate}.ndjson`);
    writeFileSync(recordedFile, `${reader.recorded.join('\n')}\n`);
    return {
      ordersPerSec: settings.ordersPerSec,
      deltas,
      seconds,
      senderCpuSeconds: simCpuStart === null || simCpuEnd === null ? null : simCpuEnd - simCpuStart,
      senderPreemptions: simSwitchesStart === null || simSwitchesEnd === null ? null : simSwitchesEnd - simSwitchesStart,
      loadAverage: os.loadavg()[0],
      clientCpuSeconds: (clientCpu.user + clientCpu.system) / 1e6,
      wire,
      wireNote: wire.ordersWithoutDelta > 0 ? `; ${wire.ordersWithoutDelta} orders had no delta to measure from` : '',
      orders: sender.statusText(),
      reactionP50Ns: sender.reaction.getValueAtPercentile(50),
      reactionP99Ns: sender.reaction.getValueAtPercentile(99),
      generated: reader.generated,
      generatedSeconds: (reader.generatedToMs - reader.generatedFromMs) / 1000,
      drained,
      seqGaps: reader.seqGaps,
      overflowErrors: reader.overflowErrors,
      otherErrors: reader.otherErrors,
      lag: reader.lag,
      recordedFile,
      createdBody: sender.firstCreatedBody,
      markets,
      keyId: String(sim.ready.keyId),
      privateKeyPath: String(sim.ready.privateKeyPath),
    };
  } finally {
    sender?.close();
    socket?.close();
    await sim.stop();
  }
}

/** The raw TCP floor at the same rate, replaying the texts the simulator sent. */
async function measureFloor(floor: BenchChild, rate: number, settings: Settings, simRun: SimMeasured): Promise<Measured & { sentLines: number }> {
  const port = Number(floor.ready.port);
  const loaded = await floor.command({ cmd: 'load', file: simRun.recordedFile, responseBody: simRun.createdBody });
  if (Number(loaded.lines) === 0) throw new Error('floor: no delta texts to replay');
  const sender = new OrderSender({
    host: HOST,
    port,
    keyId: simRun.keyId,
    privateKey: loadPrivateKey(simRun.privateKeyPath),
    lowestPriceByTicker: simRun.markets,
    ordersPerSec: settings.ordersPerSec,
  });
  const stream = connect({ host: HOST, port, noDelay: true });
  try {
    await new Promise<void>((resolve, reject) => {
      stream.once('connect', resolve);
      stream.once('error', reject);
    });
    stream.on('error', () => undefined);
    stream.setEncoding('utf8');
    let rest = '';
    const fanIn = new DeltaReader({ live: false, recordMax: 0, onDelta: sender.onDelta });
    stream.on('data', (chunk: string) => {
      let text = rest + chunk;
      let start = 0;
      for (let newline = text.indexOf('\n'); newline >= 0; newline = text.indexOf('\n', start)) {
        fanIn.onText(text.slice(start, newline));
        start = newline + 1;
      }
      rest = start < text.length ? text.slice(start) : '';
      text = '';
    });
    stream.write('STREAM\n');
    await sender.connect();
    await floor.command({ cmd: 'stream', rate });
    sender.enabled = true;
    await sleep(settings.warmupMs);
    sender.enabled = false;
    await sender.settle(1000);
    await floor.command({ cmd: 'probe-reset' });
    fanIn.resetWindow();
    sender.resetWindow();
    sender.enabled = true;
    const cpuStart = floor.cpuSeconds();
    const switchesStart = floor.involuntarySwitches();
    const clientCpuStart = process.cpuUsage();
    const startMs = performance.now();
    await sleep(settings.windowMs);
    const deltas = fanIn.deltas;
    const seconds = (performance.now() - startMs) / 1000;
    const cpuEnd = floor.cpuSeconds();
    const switchesEnd = floor.involuntarySwitches();
    const clientCpu = process.cpuUsage(clientCpuStart);
    sender.enabled = false;
    await sender.settle(1000);
    const wire = (await floor.command({ cmd: 'probe' })) as unknown as WireSummary & { ordersWithoutLine: number };
    const stopped = await floor.command({ cmd: 'stop' });
    return {
      ordersPerSec: settings.ordersPerSec,
      deltas,
      seconds,
      senderCpuSeconds: cpuStart === null || cpuEnd === null ? null : cpuEnd - cpuStart,
      senderPreemptions: switchesStart === null || switchesEnd === null ? null : switchesEnd - switchesStart,
      loadAverage: os.loadavg()[0],
      clientCpuSeconds: (clientCpu.user + clientCpu.system) / 1e6,
      wire,
      wireNote: wire.ordersWithoutLine > 0 ? `; ${wire.ordersWithoutLine} orders had no line to measure from` : '',
      orders: sender.statusText(),
      reactionP50Ns: sender.reaction.getValueAtPercentile(50),
      reactionP99Ns: sender.reaction.getValueAtPercentile(99),
      sentLines: Number(stopped.sentLines),
    };
  } finally {
    sender.close();
    stream.destroy();
  }
}

function rowsFor(rate: number, simRun: SimMeasured, floorRun: Measured & { sentLines: number }): BenchRow[] {
  const at = label(rate);
  const deliveredPerSec = Math.round(simRun.deltas / simRun.seconds);
  const generatedPerSec = Math.round(simRun.generated / simRun.generatedSeconds);
  const floorPerSec = Math.round(floorRun.deltas / floorRun.seconds);
  const cpuPerDelta = (cpuSeconds: number | null, deltas: number): string =>
    cpuSeconds === null || deltas === 0 ? 'n/a' : `${microseconds((cpuSeconds * 1e9) / deltas)} CPU/delta`;
  const generatorNote =
    `requested ${formatRate(rate)}/s, generator reached ${formatRate(generatedPerSec)}/s (${percent(generatedPerSec, rate)})` +
    (simRun.drained ? '' : ' (not all of the window read back in time: a floor)') +
    `; delivered ${percent(deliveredPerSec, rate)} of requested`;
  const keepUp = simRun.seqGaps === 0 && simRun.overflowErrors === 0;
  const wireRow = (caseName: string, baseline: boolean, run: Measured, extra: Partial<BenchRow>): BenchRow => ({
    suite: SUITE,
    case: caseName,
    baseline,
    count: run.wire.count,
    p50Ns: run.wire.p50Ns,
    p99Ns: run.wire.p99Ns,
    p999Ns: run.wire.p999Ns,
    maxNs: run.wire.maxNs,
    meanNs: run.wire.meanNs,
    ...extra,
  });
  return [
    {
      suite: SUITE,
      case: `ws fan-out ${at}`,
      baseline: false,
      count: simRun.deltas,
      opsPerSec: deliveredPerSec,
      // The simulator process's CPU, not this one's: deltas generated per sim CPU-second is its
      // ceiling on a core of its own; cpu below ~0.9 with a shortfall means the core was taken.
      ...(simRun.senderCpuSeconds === null || simRun.senderCpuSeconds === 0
        ? {}
        : { opsPerCpuSec: Math.round(simRun.generated / simRun.senderCpuSeconds), cpuShare: round2(simRun.senderCpuSeconds / simRun.seconds) }),
      compareTo: `tcp floor ${at}`,
      target: 'no seq gap, no code 25',
      pass: keepUp,
      note:
        `${generatorNote}; ${simRun.markets.size} markets, 1 undici client; seq gaps ${simRun.seqGaps}, code 25 x${simRun.overflowErrors}, ` +
        `other errors ${simRun.otherErrors}; ops/cpu-s and cpu: the sim process (${cpuPerDelta(simRun.senderCpuSeconds, simRun.generated)}, engine + activity included, ` +
        `${preemptions(simRun)}); client ${percent(simRun.clientCpuSeconds, simRun.seconds)} of a core; ${machine(simRun)}`,
    },
    {
      suite: SUITE,
      case: `tcp floor ${at}`,
      baseline: true,
      count: floorRun.deltas,
      opsPerSec: floorPerSec,
      note:
        `same delta texts newline-delimited over node:net, paced in 10 ms ticks (child process); wrote ${floorRun.sentLines}; ` +
        `floor ${cpuPerDelta(floorRun.senderCpuSeconds, floorRun.deltas)} (${floorRun.senderCpuSeconds === null ? 'n/a' : percent(floorRun.senderCpuSeconds, floorRun.seconds)} of a core, ` +
        `${preemptions(floorRun)}); client ${percent(floorRun.clientCpuSeconds, floorRun.seconds)} of a core; ${machine(floorRun)}`,
    },
    wireRow(`wire-to-wire ${at}`, false, simRun, {
      compareTo: `tcp floor wire-to-wire ${at}`,
      note:
        `sim probe: last delta batch on the market handed to uWS -> order request arrival, sim clock; client reacts at most ` +
        `${simRun.ordersPerSec}/s, one in flight, raw HTTP/1.1 (reaction p50 ${microseconds(simRun.reactionP50Ns)}, p99 ${microseconds(simRun.reactionP99Ns)}); ` +
        `answers ${simRun.orders}${simRun.wireNote}`,
    }),
    wireRow(`tcp floor wire-to-wire ${at}`, true, floorRun, {
      note: `same order bytes to the floor child, answered with the sim's 201 body; reaction p50 ${microseconds(floorRun.reactionP50Ns)}; answers ${floorRun.orders}${floorRun.wireNote}`,
    }),
    latencyRow(SUITE, `delta ts_ms -> receipt ${at}`, false, simRun.lag, {
      note: 'wall ms at receipt - ts_ms (1 ms resolution; ts_ms is the generator tick): whether the client keeps up, not a one-way latency',
    }),
  ];
}

const suite: BenchSuite = {
  name: SUITE,
  async run({ quick }) {
    const settings = quick ? QUICK : FULL;
    const startedMs = performance.now();
    const workDir = mkdtempSync(path.join(os.tmpdir(), 'bench-sim-fanout-'));
    const keysDir = path.join(workDir, 'keys');
    const rows: BenchRow[] = [];
    // The floor starts beside the first simulator (both are idle until measured).
    const floorStarting = BenchChild.start('bench/sim-fanout/tcp-floor-child.ts', [], 30_000);
    floorStarting.catch(() => undefined);
    let floor: BenchChild | null = null;
    try {
      for (const rate of settings.rates) {
        if (performance.now() - startedMs > settings.startBudgetMs) {
          rows.push({ suite: SUITE, case: `ws fan-out ${label(rate)}`, baseline: false, count: 0, note: `skipped: the ${quick ? 'quick' : 'full'} run's time budget was spent` });
          continue;
        }
        const simRun = await measureSim(rate, settings, keysDir, workDir);
        floor ??= await floorStarting;
        const floorRun = await measureFloor(floor, rate, settings, simRun);
        rows.push(...rowsFor(rate, simRun, floorRun));
      }
    } finally {
      floor ??= await floorStarting.catch(() => null);
      await floor?.stop();
      rmSync(workDir, { recursive: true, force: true });
    }
    return rows;
  },
};

export default suite;
