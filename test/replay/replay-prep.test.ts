import { readFileSync } from 'node:fs';
import path from 'node:path';
import { Writable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { readRecordingFile } from '../../src/record/index.ts';
import { validateConfig } from '../../src/runtime/config.ts';
import { classifyFrames } from '../../src/replay/frame-class.ts';
import { Replay } from '../../src/replay/replay.ts';
import type { ReplayOptions } from '../../src/replay/replay.ts';
import type { ReplayReport } from '../../src/replay/report.ts';
import { createReplayProgress, framesToReplay } from '../../src/replay/replay-progress.ts';
import { recordingOfShared, replayPrepOfShared, shareRecording } from '../../src/replay/sweep/shared-recording.ts';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const FIXTURE = path.join(ROOT, 'test', 'fixtures', 'recordings', 'sim-market-maker.prrc');
const CONFIG_PATH = path.join(ROOT, 'test', 'fixtures', 'recordings', 'replay-config.json');
const config = validateConfig(JSON.parse(readFileSync(CONFIG_PATH, 'utf8')), CONFIG_PATH, {});

async function replayOf(options: Omit<ReplayOptions, 'config' | 'rootDir'>): Promise<ReplayReport> {
  const replay = new Replay({ config, rootDir: ROOT, ...options });
  try {
    await replay.start();
    return await replay.run();
  } finally {
    await replay.close();
  }
}

/** A terminal-like stream that keeps what is written. */
function ttyStream(): { stream: NodeJS.WriteStream; text: () => string } {
  const chunks: string[] = [];
  const stream = new Writable({ write(chunk, _encoding, done) { chunks.push(String(chunk)); done(); } }) as unknown as NodeJS.WriteStream;
  Object.assign(stream, { isTTY: true, columns: 120, cursorTo: () => true, clearLine: () => true, moveCursor: () => true });
  return { stream, text: () => chunks.join('') };
}

describe('replay prep', () => {
  it('shares the frame classes as bytes beside the recording, and replays with them give the same report as without', async () => {
    const recording = readRecordingFile(FIXTURE);
    const shared = shareRecording(recording);
    expect(shared.prep!.classes).toBeInstanceOf(SharedArrayBuffer);
    expect(Array.from(new Uint8Array(shared.prep!.classes))).toEqual(Array.from(classifyFrames(recording).classes));
    const view = recordingOfShared(shared);
    const prep = replayPrepOfShared(shared, view);
    expect(prep.frames.classes.buffer).toBe(shared.prep!.classes);
    const alone = await replayOf({ recording: readRecordingFile(FIXTURE) });
    // Twice on one prep: a run leaves nothing in it that changes the next.
    const first = await replayOf({ recording: view, prep });
    const second = await replayOf({ recording: view, prep, orderLatencyUs: 2_000 });
    const third = await replayOf({ recording: view, prep });
    expect(first).toEqual(alone);
    expect(third).toEqual(alone);
    expect(second.orders.sha256).not.toBe(first.orders.sha256);
    expect(first.hopsUs.recordedFrameToOrder.count).toBeGreaterThan(0);
  }, 120_000);
});

describe('replay progress', () => {
  it('draws a bar of frames on a terminal, reaching the total, without changing the run', async () => {
    const recording = readRecordingFile(FIXTURE);
    const total = framesToReplay(recording, undefined);
    const { stream, text } = ttyStream();
    const progress = createReplayProgress(total, false, stream)!;
    const seen: number[] = [];
    const report = await replayOf({ recording, onProgress: (done) => { seen.push(done); progress.update(done); } });
    progress.stop();
    expect(seen.length).toBeGreaterThan(0);
    expect(seen).toEqual([...seen].sort((a, b) => a - b));
    expect(text()).toContain(`${total}/${total} frames`);
    expect(report).toEqual(await replayOf({ recording: readRecordingFile(FIXTURE) }));
  }, 120_000);

  it('shows nothing when not a terminal or with --json', () => {
    const { stream } = ttyStream();
    expect(createReplayProgress(100, true, stream)).toBeNull();
    expect(createReplayProgress(100, false, Object.assign(new Writable(), { isTTY: false }) as unknown as NodeJS.WriteStream)).toBeNull();
    expect(framesToReplay(readRecordingFile(FIXTURE), 10)).toBe(10);
  });
});
