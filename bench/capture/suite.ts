/**
 * Capture suite (issue "4 of 6", "Performance to reach"): `npm run capture -- --all-open` recording
 * the simulator's 5,000 synthetic markets at 50,000 book updates/s, and beside it in the same run
 * the floor of receiving the same data.
 *
 *   simulator (bench/scale/sim-child.ts, own process: N synthetic markets, activity at the rate,
 *   rate limits on, a Prime key)  --WebSocket-->  1. the capture CLI (capture-process.ts, own process)
 *                                                 2. baseline-child.ts: a plain `ws` client that
 *                                                    subscribes the same markets and only counts
 *
 * The two run one after the other against the same simulator, each for a warm-up (the first
 * snapshots of every book) and then a measured window (30 s; --quick 10 s, same markets and rate).
 * Over the window: the process's CPU time from /proc/<pid>/stat (all its threads) / wall time =
 * its share of one core; frames received (capture: its recording's FRAME records stamped inside the
 * window; baseline: its own count) per second and per CPU-second; the capture file's growth on
 * disk, per hour; receive lag (receive wall time - the frame's ts_ms, 1 ms resolution, from the
 * capture's own stamps in its recording; the quality report's figure over the whole file is in the
 * note). Lost frames: the quality reports' sequence gaps, resyncs, disconnects and dropped records
 * (no faults are injected, so every one is a loss), checked again by a sequence scan of the
 * recording (recording-check.ts); the baseline counts its own gaps. The simulator's delivered
 * update rate (it drops a backlog when its core is taken: src/sim/server/activity-driver.ts) and
 * CPU share are stated beside, with the load average, since on a shared 2-core machine the rate
 * asked is not always the rate made.
 * Then the catalog case (catalog-case.ts): `catalog add`'s path over the first records of the
 * capture's recording, rows a second and Parquet bytes against the recording's, beside DuckDB alone
 * writing as many rows to the same partitions.
 * Placement as bench/scale: the simulator on one CPU, the measured process on the other
 * (BENCH_PLACEMENT=off: none). Every wait is bounded; children are stopped by their own handles.
 */

import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import os, { tmpdir } from 'node:os';
import path from 'node:path';
import { placementForThisMachine } from '../../src/runtime/cpu-placement.ts';
import { BenchChild } from '../child-process.ts';
import type { BenchRow, BenchSuite } from '../harness.ts';
import { CaptureProcess, processCpuSeconds } from './capture-process.ts';
import { largestRecording, runCatalogCase, type CatalogCase } from './catalog-case.ts';
import { checkCapture, type RecordingCheck } from './recording-check.ts';

const SUITE = 'capture';
const MARKETS = 5_000;
const UPDATES_PER_SEC = 50_000;
const USER_ID = 'c0ffee00-0000-4000-8000-00000000ca97';
/** Records of the capture's recording the catalog case adds (--quick: a quarter). */
const CATALOG_RECORDS = 200_000;

interface Phase {
  markets: number;
  updatesPerSec: number;
  warmupMs: number;
  windowMs: number;
}

/** One measured window of a process: CPU, wall, the simulator's book updates, load. */
interface Window {
  wallMs: number;
  cpuSeconds: number;
  simCpuSeconds: number;
  /** Book updates the simulator made in the window, per second. */
  simUpdatesPerSec: number;
  loadAvg: string;
  /** Peak RSS of the measured process (sampled each second), bytes. */
  rssPeak: number;
}

interface SimStats {
  bookUpdates: number;
  atMs: number;
}

const pause = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));
const loadAverage = (): string => os.loadavg().map((value) => value.toFixed(2)).join(' ');
const round2 = (value: number): number => Math.round(value * 100) / 100;

function rssBytes(pid: number): number {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const match = /VmRSS:\s+(\d+) kB/.exec(status);
    return match === null ? 0 : Number(match[1]) * 1024;
  } catch {
    return 0;
  }
}

/** Measures `pid` for `windowMs`: CPU from /proc, the simulator's updates, RSS each second. */
async function measureWindow(pid: number, sim: BenchChild, keyId: string, windowMs: number): Promise<Window & { startMs: number; endMs: number }> {
  const stats = async (): Promise<SimStats> => (await sim.command({ cmd: 'stats', keyId })) as unknown as SimStats;
  const simBefore = await stats();
  const simCpuBefore = sim.cpuSeconds() ?? 0;
  const cpuBefore = processCpuSeconds(pid) ?? 0;
  const startMs = Date.now();
  const loadBefore = loadAverage();
  let rssPeak = rssBytes(pid);
  for (let second = 0; second < Math.ceil(windowMs / 1000) && Date.now() - startMs < windowMs; second++) {
    await pause(Math.min(1000, windowMs - (Date.now() - startMs)));
    rssPeak = Math.max(rssPeak, rssBytes(pid));
  }
  const cpuAfter = processCpuSeconds(pid) ?? 0;
  const endMs = Date.now();
  const simAfter = await stats();
  const simCpuAfter = sim.cpuSeconds() ?? 0;
  const seconds = (endMs - startMs) / 1000;
  return {
    startMs, endMs, wallMs: endMs - startMs, cpuSeconds: cpuAfter - cpuBefore, simCpuSeconds: simCpuAfter - simCpuBefore,
    simUpdatesPerSec: (simAfter.bookUpdates - simBefore.bookUpdates) / ((simAfter.atMs - simBefore.atMs) / 1000 || seconds),
    loadAvg: `${loadBefore} -> ${loadAverage()}`, rssPeak,
  };
}

/** Bytes of the capture's recording files now. */
function recordingBytes(dir: string): number {
  let bytes = 0;
  for (const name of readdirSync(dir)) if (name.endsWith('.prrc')) bytes += statSync(path.join(dir, name)).size;
  return bytes;
}

interface CaptureResult {
  window: Window;
  markets: number;
  grownBytes: number;
  totalBytes: number;
  exitCode: number | null;
  check: RecordingCheck;
}

async function capturePhase(sim: BenchChild, key: { keyId: string; keyFile: string }, work: string, phase: Phase, cpus: string | null): Promise<CaptureResult> {
  const outDir = path.join(work, 'capture');
  mkdirSync(outDir, { recursive: true });
  const venue = { restUrl: `${String(sim.ready.http)}/trade-api/v2`, wsUrl: String(sim.ready.ws), keyId: key.keyId, keyFile: key.keyFile };
  const capture = await CaptureProcess.start(venue, outDir, 120_000, cpus);
  let exitCode: number | null = null;
  let window: Window & { startMs: number; endMs: number };
  let grownBytes = 0;
  try {
    await pause(phase.warmupMs);
    const bytesBefore = recordingBytes(outDir);
    window = await measureWindow(capture.pid, sim, key.keyId, phase.windowMs);
    grownBytes = recordingBytes(outDir) - bytesBefore;
  } finally {
    exitCode = await capture.stop(60_000);
  }
  return { window, markets: capture.markets, grownBytes, totalBytes: recordingBytes(outDir), exitCode, check: checkCapture(outDir, window.startMs, window.endMs) };
}

interface BaselineStats {
  frames: number;
  bytes: number;
  gaps: number;
  sequenced: number;
  lagSamples: number;
  lagMsP50: number;
  lagMsP99: number;
  errors: number;
  closed: boolean;
}

async function baselinePhase(sim: BenchChild, key: { keyId: string; keyFile: string }, work: string, tickers: readonly string[], phase: Phase, cpus: string | null): Promise<{ window: Window; stats: BaselineStats }> {
  const tickersFile = path.join(work, 'tickers.json');
  writeFileSync(tickersFile, JSON.stringify(tickers));
  const child = await BenchChild.start(path.join('bench', 'capture', 'baseline-child.ts'), [String(sim.ready.ws), key.keyId, key.keyFile, tickersFile], 60_000, cpus);
  try {
    await pause(phase.warmupMs);
    await child.command({ cmd: 'reset' });
    const window = await measureWindow(child.pid, sim, key.keyId, phase.windowMs);
    const stats = (await child.command({ cmd: 'stats' })) as unknown as BaselineStats;
    return { window, stats };
  } finally {
    await child.stop();
  }
}

export default {
  name: SUITE,
  async run({ quick }): Promise<BenchRow[]> {
    const phase: Phase = { markets: MARKETS, updatesPerSec: UPDATES_PER_SEC, warmupMs: quick ? 5_000 : 8_000, windowMs: quick ? 10_000 : 30_000 };
    const placement = process.env.BENCH_PLACEMENT === 'off' ? { plan: null, reason: 'placement off (BENCH_PLACEMENT=off)' } : placementForThisMachine();
    const work = mkdtempSync(path.join(tmpdir(), 'bench-capture-'));
    try {
      const sim = await BenchChild.start(path.join('bench', 'scale', 'sim-child.ts'), [work, String(phase.markets), String(phase.updatesPerSec)], 180_000, placement.plan?.simCpus ?? null);
      try {
        const reply = (await sim.command({ cmd: 'key', tier: 'prime', userId: USER_ID })) as { keyId: string; privateKeyPem: string };
        const key = { keyId: reply.keyId, keyFile: path.join(work, 'capture-key.pem') };
        writeFileSync(key.keyFile, reply.privateKeyPem, { mode: 0o600 });
        const cpus = placement.plan?.runtimeCpus ?? null;
        console.error(`bench capture: capture of ${phase.markets} markets at ${phase.updatesPerSec}/s, ${phase.windowMs / 1000} s window ...`);
        const capture = await capturePhase(sim, key, work, phase, cpus);
        console.error(`bench capture: baseline (plain ws client, ${capture.check.tickers.length} markets) ...`);
        const baseline = await baselinePhase(sim, key, work, capture.check.tickers, phase, cpus);
        const records = quick ? CATALOG_RECORDS / 4 : CATALOG_RECORDS;
        console.error(`bench capture: catalog add of the recording's first ${records} records, and DuckDB alone ...`);
        const catalog = await runCatalogCase(largestRecording(path.join(work, 'capture')), work, records);
        return [...rowsOf(phase, capture, baseline, placement.reason), ...catalogRows(catalog)];
      } finally {
        await sim.stop();
      }
    } finally {
      rmSync(work, { recursive: true, force: true });
    }
  },
} satisfies BenchSuite;

const CAPTURE_FRAMES = 'capture (`npm run capture -- --all-open`): frames recorded/s';
const BASELINE_FRAMES = 'baseline: plain ws client, receive and count only: frames/s';
const CAPTURE_LAG = 'capture: receive lag (receive - ts_ms)';
const BASELINE_LAG = 'baseline: plain ws client: receive lag (receive - ts_ms)';

function windowNote(window: Window, placementNote: string): string {
  const seconds = window.wallMs / 1000;
  return `${seconds.toFixed(1)} s window; simulator made ${Math.round(window.simUpdatesPerSec)} book updates/s at ${Math.round((window.simCpuSeconds / seconds) * 100)}% of a core; ` +
    `RSS peak ${(window.rssPeak / 1e6).toFixed(0)} MB; load average ${window.loadAvg}; ${placementNote}`;
}

function rowsOf(phase: Phase, capture: CaptureResult, baseline: { window: Window; stats: BaselineStats }, placementNote: string): BenchRow[] {
  const check = capture.check;
  const seconds = capture.window.wallMs / 1000;
  const baseSeconds = baseline.window.wallMs / 1000;
  const cpuShare = capture.window.cpuSeconds / seconds;
  const baseCpuShare = baseline.window.cpuSeconds / baseSeconds;
  const scale = `${capture.markets.toLocaleString('en-US')} markets (asked ${phase.markets.toLocaleString('en-US')} synthetic + the demo catalog's), ${phase.updatesPerSec.toLocaleString('en-US')} updates/s asked`;
  const lost = check.sequenceGaps + check.resyncs + check.disconnects + check.droppedRecords + check.scannedGaps;
  const row = (caseName: string, baseline: boolean, extra: Partial<BenchRow>): BenchRow => ({ suite: SUITE, case: caseName, baseline, count: 1, ...extra });
  const captureNote = windowNote(capture.window, placementNote);
  const baseNote = windowNote(baseline.window, placementNote);
  return [
    row('capture: lost frames (sequence gaps; no faults injected)', false, {
      value: check.sequenceGaps, unit: 'gaps', target: '0', pass: lost === 0,
      note: `quality reports (${check.reports.length} files): ${check.frames} frames, ${check.sequenceGaps} gaps, ${check.resyncs} resyncs, ${check.disconnects} disconnects, ${check.droppedRecords} dropped records; ` +
        `sequence scan of the recording: ${check.scannedGaps} gaps over ${check.scannedSequenced} sequenced frames; capture exit code ${capture.exitCode}; ${scale}`,
    }),
    row('baseline: plain ws client: lost frames (sequence gaps)', true, {
      value: baseline.stats.gaps, unit: 'gaps', note: `${baseline.stats.sequenced} sequenced frames in the window; ${baseline.stats.errors} error frames; socket closed: ${baseline.stats.closed}`,
    }),
    row(CAPTURE_FRAMES, false, {
      count: check.windowFrames, opsPerSec: Math.round(check.windowFrames / seconds), opsPerCpuSec: Math.round(check.windowFrames / Math.max(capture.window.cpuSeconds, 0.01)),
      cpuShare: round2(cpuShare), compareTo: BASELINE_FRAMES,
      note: `FRAME records stamped in the window; ${((capture.window.cpuSeconds * 1e6) / Math.max(check.windowFrames, 1)).toFixed(1)} us CPU a frame; ${captureNote}`,
    }),
    row(BASELINE_FRAMES, true, {
      count: baseline.stats.frames, opsPerSec: Math.round(baseline.stats.frames / baseSeconds), opsPerCpuSec: Math.round(baseline.stats.frames / Math.max(baseline.window.cpuSeconds, 0.01)),
      cpuShare: round2(baseCpuShare), note: `${((baseline.window.cpuSeconds * 1e6) / Math.max(baseline.stats.frames, 1)).toFixed(1)} us CPU a frame; ${baseNote}`,
    }),
    row('capture: CPU share of one core', false, {
      value: round2(cpuShare * 100), unit: '% of a core', cpuShare: round2(cpuShare),
      note: `capture process (all threads) CPU ${capture.window.cpuSeconds.toFixed(2)} s over ${seconds.toFixed(1)} s; baseline client ${round2(baseCpuShare * 100)}% of a core for ${Math.round(baseline.stats.frames / baseSeconds)} frames/s`,
    }),
    row('capture: disk MB per hour', false, {
      value: round2((capture.grownBytes / 1e6 / seconds) * 3600), unit: 'MB/h',
      note: `recording grew ${(capture.grownBytes / 1e6).toFixed(1)} MB in the window (frame bodies in it: ${(check.windowFrameBytes / 1e6).toFixed(1)} MB); ${(capture.totalBytes / 1e6).toFixed(1)} MB on disk in all, with the start's snapshots`,
    }),
    row(CAPTURE_LAG, false, {
      count: check.windowLagSamples, p50Ns: check.windowLagMsP50 * 1e6, p99Ns: check.windowLagMsP99 * 1e6, compareTo: BASELINE_LAG, value: check.windowLagMsP99, unit: 'ms p99',
      note: `deltas and trades stamped in the window, from the capture's own receive stamps; its quality report over the whole file: p50 ${check.reportLagMsP50} ms, p99 ${check.reportLagMsP99} ms; 1 ms resolution`,
    }),
    row(BASELINE_LAG, true, {
      count: baseline.stats.lagSamples, p50Ns: baseline.stats.lagMsP50 * 1e6, p99Ns: baseline.stats.lagMsP99 * 1e6, value: baseline.stats.lagMsP99, unit: 'ms p99',
      note: 'Date.now() at the message event - ts_ms; 1 ms resolution',
    }),
  ];
}

const CATALOG_RATE = 'catalog add (the capture\'s first records): rows written/s';
const CATALOG_BASELINE = 'baseline: DuckDB alone, book-delta rows from range() to the same Parquet partitions: rows/s';

function catalogRows(catalog: CatalogCase): BenchRow[] {
  const base = catalog.baseline;
  return [
    {
      suite: SUITE, case: CATALOG_RATE, baseline: false, count: catalog.rows, opsPerSec: Math.round(catalog.rows / catalog.seconds), compareTo: CATALOG_BASELINE,
      note: `${catalog.records.toLocaleString('en-US')} records read, decoded by the feed and appended (${catalog.deltaRows.toLocaleString('en-US')} book deltas, the rest tops, depth 5 at 1 s, trades, lifecycle), ` +
        `${catalog.markets.toLocaleString('en-US')} markets, ${catalog.parquetFiles.toLocaleString('en-US')} Parquet files, ${catalog.seconds.toFixed(1)} s from the read to the last file`,
    },
    {
      suite: SUITE, case: CATALOG_BASELINE, baseline: true, count: base.rows, opsPerSec: Math.round(base.rows / base.seconds),
      note: `the same row count over ${catalog.markets.toLocaleString('en-US')} markets, zstd, partitioned by date and market: ${base.parquetFiles.toLocaleString('en-US')} files, ${(base.parquetBytes / 1e6).toFixed(1)} MB, ${base.seconds.toFixed(1)} s`,
    },
    {
      suite: SUITE, case: 'catalog: Parquet size against the recording', baseline: false, count: 1, value: round2(catalog.parquetBytes / Math.max(1, catalog.recordingBytes)), unit: 'x recording',
      note: `${(catalog.parquetBytes / 1e6).toFixed(1)} MB of Parquet from ${(catalog.recordingBytes / 1e6).toFixed(1)} MB of recording (${catalog.records.toLocaleString('en-US')} records)`,
    },
  ];
}
