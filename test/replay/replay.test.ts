/**
 * Goal: a replay is deterministic and runs the live resync path. Two replays of the shipped
 * recording (made by bench/replay/make-fixture.ts: the simulator with a sequence-gap fault and
 * the sample market maker) give the same report and the same order requests byte for byte; the
 * recording's gaps break the book, a get_snapshot goes out and the recorded resync snapshot makes
 * it whole, as live; a gap the replay makes (a delta cut from the recording) does the same, the
 * book refusing deltas until the next recorded snapshot; bad recordings fail with their code.
 * Method: the Replay class in-process on test/fixtures/recordings; the CLI in a child process.
 */

import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { ApplyStatus } from '../../src/book/index.ts';
import { FILE_HEADER_BYTES, RECORD_HEADER_BYTES, RecordKind, readRecording, readRecordingFile, recordText } from '../../src/record/index.ts';
import type { Recording } from '../../src/record/index.ts';
import { loadConfig } from '../../src/runtime/config.ts';
import { Replay, ReplayError } from '../../src/replay/replay.ts';
import { FrameClass } from '../../src/replay/frame-class.ts';
import { formatReport } from '../../src/replay/report.ts';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const FIXTURE = path.join(ROOT, 'test', 'fixtures', 'recordings', 'sim-market-maker.prrc');
const CONFIG_PATH = path.join(ROOT, 'test', 'fixtures', 'recordings', 'replay-config.json');
const MARKET = 'KXDEMO-26DEC31-T50';
const config = loadConfig(CONFIG_PATH, {});
const work = mkdtempSync(path.join(tmpdir(), 'replay-test-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

function replayOf(recording: Recording): Replay {
  return new Replay({ recording, config, rootDir: ROOT });
}

/** The recording's bytes without record `skip`. */
function without(recording: Recording, skip: number): Buffer {
  const parts: Buffer[] = [recording.bytes.subarray(0, FILE_HEADER_BYTES)];
  for (let i = 0; i < recording.count; i++) {
    if (i === skip) continue;
    const start = recording.bodyStarts[i] - RECORD_HEADER_BYTES;
    parts.push(recording.bytes.subarray(start, recording.bodyStarts[i] + recording.bodyLengths[i]));
  }
  return Buffer.concat(parts);
}

function frameType(recording: Recording, i: number): string {
  return recording.kinds[i] === RecordKind.FRAME ? (/"type":"([a-z_]+)"/.exec(recordText(recording, i).slice(0, 96))?.[1] ?? '') : '';
}

function runCli(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, ['--import', 'tsx', path.join(ROOT, 'src', 'replay', 'main.ts'), ...args], { cwd: ROOT, timeout: 60_000 }, (error, stdout, stderr) => {
      resolve({ code: error === null ? 0 : typeof error.code === 'number' ? error.code : -1, stdout, stderr });
    });
  });
}

describe('replay', () => {
  it('is deterministic: the same recording and config give the same orders and report, byte for byte', async () => {
    const runs: { json: string; text: string; log: string }[] = [];
    for (let run = 0; run < 2; run++) {
      const replay = replayOf(readRecordingFile(FIXTURE));
      await replay.start();
      const report = await replay.run();
      runs.push({ json: JSON.stringify(report), text: formatReport(report), log: replay.venue.log.join('\n') });
      // Not an empty run: the strategy traded and the venue filled some of it.
      expect(report.orders.sent).toBeGreaterThan(10);
      expect(report.fills.count).toBeGreaterThan(0);
      expect(report.replay.framesDelivered).toBeGreaterThan(800);
      await replay.close();
    }
    expect(runs[1].log).toBe(runs[0].log);
    expect(runs[1].json).toBe(runs[0].json);
    expect(runs[1].text).toBe(runs[0].text);
  });

  it('a different latency model gives different orders (the model is really applied)', async () => {
    const replay = new Replay({ recording: readRecordingFile(FIXTURE), config, rootDir: ROOT, orderLatencyUs: 20_000, answerLatencyUs: 20_000 });
    await replay.start();
    const report = await replay.run();
    await replay.close();
    // The fixed model's defaults (a recording's own hops are the default since replay-live-compare).
    const base = new Replay({ recording: readRecordingFile(FIXTURE), config, rootDir: ROOT, latency: 'fixed' });
    await base.start();
    const baseReport = await base.run();
    await base.close();
    expect(report.hopsUs.replayOrderToAck.p50).toBe(40_000);
    expect(baseReport.hopsUs.replayOrderToAck.p50).toBe(1_000);
    expect(report.orders.sha256).not.toBe(baseReport.orders.sha256);
  });

  it('resyncs the recording\'s gaps as live: gap, get_snapshot, the recorded snapshot', async () => {
    const replay = replayOf(readRecordingFile(FIXTURE));
    await replay.start();
    const report = await replay.run();
    expect(report.book.seqGaps).toBeGreaterThan(0);
    expect(report.book.resyncsRequested).toBe(report.book.seqGaps);
    expect(report.book.resyncsCompleted).toBe(report.book.seqGaps);
    expect(replay.session!.commands.get('get_snapshot')).toBe(report.book.seqGaps);
    expect(replay.graph.feed.books.get(MARKET)!.synced).toBe(true);
    await replay.close();
  });

  it('a gap the replay makes breaks the book until the next recorded snapshot, then trading resumes', async () => {
    const original = readRecordingFile(FIXTURE);
    // The fifth delta after the first snapshot, and the first later snapshot (a live resync).
    let firstSnapshot = -1;
    let deltasSeen = 0;
    let cut = -1;
    let nextSnapshot = -1;
    for (let i = 0; i < original.count; i++) {
      const type = frameType(original, i);
      if (type === 'orderbook_snapshot' && firstSnapshot === -1) firstSnapshot = i;
      else if (type === 'orderbook_delta' && firstSnapshot !== -1 && cut === -1 && ++deltasSeen === 5) cut = i;
      else if (type === 'orderbook_snapshot' && cut !== -1) {
        nextSnapshot = i;
        break;
      }
    }
    expect(cut).toBeGreaterThan(firstSnapshot);
    expect(nextSnapshot).toBeGreaterThan(cut);
    const gappy = readRecording(without(original, cut), 'gappy');
    const replay = replayOf(gappy);
    await replay.start();
    // Frames up to and including the delta after the cut: the book must be broken by a gap.
    let framesToAfterCut = 0;
    for (let i = 0; i <= cut; i++) if (original.kinds[i] === RecordKind.FRAME && replay.classes[i] !== FrameClass.SKIP) framesToAfterCut++;
    await replay.advance(framesToAfterCut);
    const book = replay.graph.feed.books.get(MARKET)!;
    expect(book.synced).toBe(false);
    expect(book.outOfSyncReason).toBe(ApplyStatus.SEQ_GAP);
    expect(replay.session!.commands.get('get_snapshot')).toBe(1);
    const refusedBefore = replay.graph.feed.counters.deltasRefused;
    // Up to the next recorded snapshot: whole again.
    let framesToSnapshot = 0;
    for (let i = 0; i < nextSnapshot; i++) if (gappy.kinds[i] === RecordKind.FRAME && replay.classes[i] !== FrameClass.SKIP) framesToSnapshot++;
    await replay.advance(framesToSnapshot);
    expect(book.synced).toBe(true);
    expect(replay.graph.feed.counters.deltasRefused).toBeGreaterThan(refusedBefore);
    const report = await replay.run();
    expect(report.book.resyncsCompleted).toBeGreaterThanOrEqual(1);
    expect(report.orders.sent).toBeGreaterThan(0);
    await replay.close();
  });

  it('replays a recording whose last record was cut by a crash, and says so', async () => {
    const bytes = readFileSync(FIXTURE);
    const file = path.join(work, 'cut.prrc');
    writeFileSync(file, bytes.subarray(0, bytes.length - 5));
    const replay = replayOf(readRecordingFile(file));
    await replay.start();
    const report = await replay.run();
    await replay.close();
    expect(report.recording.truncatedTailBytes).toBeGreaterThan(0);
    expect(formatReport(report)).toContain('truncated tail');
  });

  it('replays the shipped runtime configuration, whose strategy trades in an order group at the venue', async () => {
    const runtimeConfig = loadConfig(path.join(ROOT, 'config', 'runtime.json'), {});
    expect(runtimeConfig.strategies[0].orderGroup).not.toBeNull();
    const replay = new Replay({ recording: readRecordingFile(FIXTURE), config: runtimeConfig, rootDir: ROOT });
    await replay.start();
    const report = await replay.run();
    const groups = replay.venue.engine.listOrderGroups('replay', runtimeConfig.strategies[0].subaccount);
    await replay.close();
    expect(report.orders.sent).toBeGreaterThan(0);
    expect(Array.isArray(groups) && groups.length).toBe(1);
  });

  it('refuses a configuration that trades a market the recording never added', () => {
    const other = loadConfig(CONFIG_PATH, {});
    const strategies = other.strategies.map((entry) => ({ ...entry, markets: ['KXNOPE-26DEC31-T1'] }));
    const run = (): Replay => new Replay({ recording: readRecordingFile(FIXTURE), config: { ...other, strategies } as typeof other, rootDir: ROOT });
    expect(run).toThrow(ReplayError);
    expect(run).toThrow(/REPLAY_UNKNOWN_MARKET: strategy mm-replay trades KXNOPE-26DEC31-T1.*KXDEMO-26DEC31-T50/);
  });

  it('the CLI prints the same JSON twice, and a coded error for a bad recording', async () => {
    const a = await runCli([FIXTURE, '--config', CONFIG_PATH, '--json']);
    const b = await runCli([FIXTURE, '--config', CONFIG_PATH, '--json']);
    expect(a.code).toBe(0);
    expect(a.stdout).toBe(b.stdout);
    expect(JSON.parse(a.stdout).orders.sent).toBeGreaterThan(0);
    const corrupt = Buffer.from(readFileSync(FIXTURE));
    corrupt[FILE_HEADER_BYTES] = 0x00;
    const file = path.join(work, 'corrupt.prrc');
    writeFileSync(file, corrupt);
    const bad = await runCli([file, '--config', CONFIG_PATH]);
    expect(bad.code).toBe(3);
    expect(bad.stderr).toContain('RECORDING_CORRUPT');
    const usage = await runCli(['--config', CONFIG_PATH]);
    expect(usage.code).toBe(2);
    expect(usage.stderr).toContain('usage');
  }, 120_000);
});
