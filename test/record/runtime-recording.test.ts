/**
 * Goal: a recording's round trip. The runtime, recording (config record.enabled), trades the
 * sample market maker against the simulator over real sockets; its file then holds every frame the
 * feed received (as many FRAME records as the feed counted), the market it added, and each order
 * it sent with an answer; and replaying that file rebuilds the very book the live runtime ended
 * with. With recording off no file is written.
 * Method: the simulator in-process on 127.0.0.1 port 0 with seeded activity, the Runtime as the
 * main job wires it, the reader, and a Replay of the file.
 */

import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { RecordKind, readRecordingFile, recordText, recordedMarkets } from '../../src/record/index.ts';
import { validateConfig } from '../../src/runtime/config.ts';
import { Replay } from '../../src/replay/replay.ts';
import { MARKET, ROOT_DIR, createRuntime, entry, startTestSim, waitUntil } from '../integration/helpers.ts';
import type { OrderBook } from '../../src/book/index.ts';
import type { PriceGrid } from '../../src/core/index.ts';

const work = mkdtempSync(path.join(tmpdir(), 'runtime-recording-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

function levels(book: OrderBook): string {
  const out = new Int32Array(32);
  const bids = book.topBidLevels(32, out);
  const parts: string[] = [];
  for (let i = 0; i < bids; i++) parts.push(`b${book.grid.priceAt(out[i])}:${book.bidSizeAtLevel(out[i])}`);
  const asks = book.topAskLevels(32, out);
  for (let i = 0; i < asks; i++) parts.push(`a${book.grid.priceAt(out[i])}:${book.askSizeAtLevel(out[i])}`);
  return parts.join(' ');
}

describe('recording a live run', () => {
  it('records every frame, the market, orders and answers; a replay rebuilds the live book', async () => {
    const sim = await startTestSim({ seed: 3, activity: { updatesPerSec: 400 } });
    const recordDir = path.join(work, 'on');
    const strategy = entry('mm', 'strategies/market-maker.ts', {});
    const runtime = createRuntime(sim, {
      strategies: [strategy],
      journalPath: path.join(work, 'on-journal.jsonl'),
      options: { config: validateConfig({ risk: { rateLimitTier: 'prime' }, exec: { requestTimeoutMs: 1_000 }, strategies: [strategy], record: { enabled: true, dir: recordDir } }, '<test>', {}) },
    });
    try {
      await runtime.start();
      await waitUntil(() => runtime.oms.stats.ordersSent >= 2 && runtime.feed.counters.deltasApplied >= 100, 20_000, 'orders and deltas');
    } finally {
      await runtime.stop('test done');
      await sim.close();
    }
    const files = readdirSync(recordDir);
    expect(files).toHaveLength(1);
    expect(files[0]).toMatch(/^\d{4}-\d{2}-\d{2}T[\d-]+Z\.prrc$/);
    const recording = readRecordingFile(path.join(recordDir, files[0]));
    expect(recording.truncatedTailBytes).toBe(0);
    const count = (kind: number): number => recording.kinds.filter((k) => k === kind).length;
    expect(count(RecordKind.FRAME)).toBe(runtime.feed.counters.framesReceived);
    expect(runtime.recorder!.stats.droppedRecords).toBe(0);
    const market = recordedMarkets(recording).get(MARKET);
    expect(market).toMatchObject({ ticker: MARKET, open: true, priceLevelStructure: (runtime.feed.books.get(MARKET)!.grid as PriceGrid).structure });
    const orders: string[] = [];
    const answers: string[] = [];
    for (let i = 0; i < recording.count; i++) {
      if (recording.kinds[i] === RecordKind.ORDER) orders.push(recordText(recording, i));
      if (recording.kinds[i] === RecordKind.ANSWER) answers.push(recordText(recording, i));
    }
    const creates = orders.filter((text) => text.startsWith('create|'));
    expect(creates.length).toBe(runtime.oms.stats.ordersSent);
    for (const create of creates) {
      const clientOrderId = create.split('|')[1];
      expect(answers.some((answer) => answer.startsWith(`create_ack|${clientOrderId}|`) || answer.startsWith(`create_reject|${clientOrderId}|`)), clientOrderId).toBe(true);
    }
    // Frames in the order they arrived, each stamped at receipt: their times only go forward.
    let lastFrameNs = -1;
    for (let i = 0; i < recording.count; i++) {
      if (recording.kinds[i] !== RecordKind.FRAME) continue;
      expect(recording.timesNs[i]).toBeGreaterThanOrEqual(lastFrameNs);
      lastFrameNs = recording.timesNs[i];
    }

    const liveBook = levels(runtime.feed.books.get(MARKET)!);
    const replay = new Replay({ recording, config: runtime.config, rootDir: ROOT_DIR });
    await replay.start();
    await replay.run();
    const replayedBook = replay.graph.feed.books.get(MARKET)!;
    expect(replayedBook.synced).toBe(true);
    expect(levels(replayedBook)).toBe(liveBook);
    expect(liveBook.length).toBeGreaterThan(0);
    await replay.close();
  }, 60_000);

  it('writes nothing with record.enabled false (the default)', async () => {
    const sim = await startTestSim({ seed: 4 });
    const recordDir = path.join(work, 'off');
    const strategy = entry('mm', 'strategies/market-maker.ts', {});
    const runtime = createRuntime(sim, {
      strategies: [strategy],
      journalPath: path.join(work, 'off-journal.jsonl'),
      options: { config: validateConfig({ risk: { rateLimitTier: 'prime' }, strategies: [strategy], record: { dir: recordDir } }, '<test>', {}) },
    });
    try {
      await runtime.start();
      expect(runtime.recorder).toBeNull();
    } finally {
      await runtime.stop('test done');
      await sim.close();
    }
    expect(existsSync(recordDir)).toBe(false);
  }, 60_000);
});
