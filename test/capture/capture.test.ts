/**
 * Goal: the capture records the simulator's market data in the recording format across a file
 * rotation, a dropped connection and a sequence gap (each named in the closed file's quality
 * report), and follows a market created while it runs; every file it closes reads back with the
 * recording reader and has its report beside it.
 * Method: the simulator in-process on 127.0.0.1 port 0 with seeded activity; a Capture over real
 * sockets with a 2 s rotation and the budgeted read client; fault rules (ws_drop_delta, then
 * closeConnections) and engine.addMarket at run time; bounded waits on observable state.
 */

import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { RecordKind, readRecordingFile, recordedMarkets } from '../../src/record/index.ts';
import { Capture } from '../../src/capture/capture.ts';
import { qualityPathFor } from '../../src/capture/capture-files.ts';
import type { QualityReport } from '../../src/capture/capture-quality.ts';
import { openVenueReads } from '../../src/capture/venue-reads.ts';
import { loadPrivateKey } from '../../src/core/index.ts';
import { startTestSim, waitUntil } from '../integration/helpers.ts';

const work = mkdtempSync(path.join(tmpdir(), 'capture-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

const NEW_MARKET = 'KXDEMO-27JAN01-T60';

describe('capture', () => {
  it('rotates files, survives a disconnect and a gap, follows a new market; reports name them', async () => {
    const sim = await startTestSim({ seed: 5, activity: { updatesPerSec: 300 } });
    const venue = await openVenueReads(`${sim.httpUrl}/trade-api/v2`, sim.demoKey.keyId, loadPrivateKey(sim.demoKey.privateKeyPem), () => undefined);
    const reports: QualityReport[] = [];
    const capture = new Capture({
      wsUrl: sim.wsUrl,
      auth: { keyId: sim.demoKey.keyId, privateKey: loadPrivateKey(sim.demoKey.privateKeyPem) },
      reads: venue.reads,
      apiPrefix: venue.apiPrefix,
      selection: { kind: 'series', series: ['KXDEMO'] },
      dir: path.join(work, 'cap'),
      rotateMs: 2_000,
      onFileClosed: (report) => reports.push(report),
      feed: { reconnectMinMs: 50, reconnectMaxMs: 200 },
    });
    try {
      await capture.start();
      const initialMarkets = capture.marketCount;
      expect(initialMarkets).toBeGreaterThan(0);
      await waitUntil(() => (capture.quality?.frames ?? 0) > 50, 15_000, 'first frames');
      // A gap: the next delta is skipped but its seq spent. Dropped just after a rotation, while
      // every book waits for the snapshot the rotation asked for: no book can report it, and the
      // capture must count it all the same.
      sim.faults.add({ kind: 'ws_drop_delta', target: { times: 1, channel: 'orderbook_delta' } });
      await capture.rotate();
      await waitUntil(() => reports.some((r) => r.sequenceGaps > 0) || (capture.quality?.sequenceGaps ?? 0) > 0, 15_000, 'a gap');
      // A market created at run time in the followed series.
      const base = sim.engine.getMarket('KXDEMO-26DEC31-T50')!.spec;
      const event = sim.engine.getEvent(base.eventTicker)!.spec;
      expect(sim.engine.addMarket({ ...base, ticker: NEW_MARKET, eventTicker: 'KXDEMO-27JAN01', marketId: 'f0e1d2c3-b4a5-4968-8776-655443322111' }, { ...event, eventTicker: 'KXDEMO-27JAN01' })).toBeNull();
      await waitUntil(() => capture.marketCount === initialMarkets + 1, 15_000, 'the new market followed');
      // A lost connection: the feed reconnects, resubscribes; the capture goes on.
      const framesBefore = capture.feed.counters.framesReceived;
      sim.faults.closeConnections();
      await waitUntil(() => capture.feed.counters.disconnects >= 1 && capture.feed.counters.framesReceived > framesBefore + 50, 15_000, 'frames after the reconnect');
      await waitUntil(() => reports.length >= 3, 15_000, 'three rotations');
    } finally {
      await capture.stop();
      await venue.close();
      await sim.close();
    }
    const total = (key: 'sequenceGaps' | 'disconnects' | 'marketsAdded' | 'resyncs'): number => reports.reduce((sum, r) => sum + r[key], 0);
    expect(total('sequenceGaps')).toBeGreaterThanOrEqual(1);
    expect(total('disconnects')).toBeGreaterThanOrEqual(1);
    expect(total('marketsAdded')).toBe(1);
    expect(total('resyncs')).toBeGreaterThanOrEqual(1);
    expect(capture.closedFiles.length).toBe(reports.length);
    let frames = 0;
    let sawNewMarket = false;
    for (const [i, file] of capture.closedFiles.entries()) {
      expect(path.basename(file)).toMatch(/^capture-\d{8}T\d{6}Z(-\d+)?\.prrc$/);
      expect(existsSync(qualityPathFor(file))).toBe(true);
      expect(JSON.parse(readFileSync(qualityPathFor(file), 'utf8'))).toEqual(reports[i]);
      const recording = readRecordingFile(file);
      expect(recording.truncatedTailBytes).toBe(0);
      const frameCount = recording.kinds.filter((kind) => kind === RecordKind.FRAME).length;
      // Rotated files open with copies of the channels' subscribed replies; the report counts what arrived.
      expect(frameCount).toBeGreaterThanOrEqual(reports[i].frames);
      expect(recordedMarkets(recording).size).toBeGreaterThanOrEqual(1);
      if (recordedMarkets(recording).has(NEW_MARKET)) sawNewMarket = true;
      frames += reports[i].frames;
    }
    expect(sawNewMarket).toBe(true);
    expect(frames).toBe(capture.feed.counters.framesReceived);
  }, 90_000);
});
