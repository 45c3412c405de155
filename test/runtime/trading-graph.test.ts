/**
 * Goal: the main job, the integration tests and the hot-path bench are built by the same graph
 * builder (src/runtime/trading-graph.ts), so what the bench measures and the tests check is the
 * path the main job runs; and the probe is handed to the gate, not wrapped around it.
 * Method: a Runtime as the main job and the integration tests construct it (no I/O beyond its
 * journal file) and the hot-path bench's buildHotPath over a sink; both expose a TradingGraph whose
 * components are the ones they use; a gate check stamps the probe's verdict time.
 */

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { generateKeyPairSync } from 'node:crypto';
import { afterAll, describe, expect, it } from 'vitest';
import { validateConfig } from '../../src/runtime/config.ts';
import { Runtime } from '../../src/runtime/runtime.ts';
import { TradingGraph } from '../../src/runtime/trading-graph.ts';
import { createLogger } from '../../src/telemetry/index.ts';
import { makeFeedStream } from '../../bench/feed/delta-frames.ts';
import { SinkOrderEntry } from '../../bench/hot-path/sink-order-entry.ts';
import { buildHotPath } from '../../bench/hot-path/wiring.ts';
import { createIntent } from '../../src/core/index.ts';

const work = mkdtempSync(join(tmpdir(), 'trading-graph-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

describe('one graph builder', () => {
  it('builds the Runtime (main job, integration tests) and the hot-path bench', async () => {
    const config = validateConfig({}, '<test>', {});
    const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
    const runtime = new Runtime({
      config,
      venue: { restUrl: 'http://127.0.0.1:1/trade-api/v2', wsUrl: 'ws://127.0.0.1:1/trade-api/ws/v2', keyId: 'k', privateKey },
      rootDir: work,
      journalPath: join(work, 'runtime.jsonl'),
      logger: createLogger({ level: 'silent', pretty: false }),
    });
    expect(runtime.graph).toBeInstanceOf(TradingGraph);
    expect([runtime.gate, runtime.feed, runtime.oms, runtime.host, runtime.probe]).toEqual([runtime.graph.gate, runtime.graph.feed, runtime.graph.oms, runtime.graph.host, runtime.graph.probe]);
    await runtime.oms.stop();

    const stream = makeFeedStream(1, 10, 7);
    const hotPath = await buildHotPath({ ticker: stream.tickers[0], grid: stream.grid, snapshotFrame: stream.snapshots[0], entry: new SinkOrderEntry(), journalPath: join(work, 'bench.jsonl'), mode: 'replace' });
    try {
      expect(hotPath.graph).toBeInstanceOf(TradingGraph);
      expect([hotPath.gate, hotPath.oms, hotPath.host]).toEqual([hotPath.graph.gate, hotPath.graph.oms, hotPath.graph.host]);
      expect(hotPath.host.summaries().map((s) => s.status)).toEqual(['running']);
    } finally {
      await hotPath.stop();
    }
  });

  it('hands the probe to the gate: every check stamps a verdict', async () => {
    const stream = makeFeedStream(1, 10, 7);
    const hotPath = await buildHotPath({ ticker: stream.tickers[0], grid: stream.grid, snapshotFrame: stream.snapshots[0], entry: new SinkOrderEntry(), journalPath: join(work, 'probe.jsonl'), mode: 'replace' });
    try {
      const probe = hotPath.probe;
      let verdicts = 0;
      const onVerdict = probe.onVerdict.bind(probe);
      probe.onVerdict = () => {
        verdicts++;
        onVerdict();
      };
      hotPath.gate.check(createIntent());
      hotPath.gate.check(createIntent());
      expect(verdicts).toBe(2);
    } finally {
      await hotPath.stop();
    }
  });

  it('the feed takes its per-frame stamps only while the probe is on', async () => {
    const stream = makeFeedStream(1, 10, 7);
    const hotPath = await buildHotPath({ ticker: stream.tickers[0], grid: stream.grid, snapshotFrame: stream.snapshots[0], entry: new SinkOrderEntry(), journalPath: join(work, 'stamps.jsonl'), mode: 'replace' });
    try {
      expect(hotPath.feed.hop.enabled).toBe(true);
      hotPath.probe.setEnabled(false);
      expect(hotPath.feed.hop.enabled).toBe(false);
      hotPath.probe.setEnabled(true);
      expect(hotPath.feed.hop.enabled).toBe(true);
    } finally {
      await hotPath.stop();
    }
  });
});
