/**
 * `tsx bench/replay/make-fixture.ts [--seconds N] [--out FILE]`: makes the small recording the
 * record/replay tests and the replay bench use (test/fixtures/recordings/sim-market-maker.prrc).
 * It runs the simulator in-process with seeded market activity and sequence-gap faults (four
 * deltas of the market dropped, so the recording holds gaps and the live run's resync snapshots), and the
 * runtime as the main job wires it, recording (config record.enabled), with the sample market
 * maker of test/fixtures/recordings/replay-config.json, for a few seconds; then stops both and
 * moves the recording to --out. Not run by tests: its output is committed.
 */

import { mkdtempSync, readdirSync, renameSync, rmSync, statSync } from 'node:fs';
import { readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { pino } from 'pino';
import { startSim } from '../../src/sim/index.ts';
import { validateConfig } from '../../src/runtime/config.ts';
import { Runtime } from '../../src/runtime/runtime.ts';
import { createLogger } from '../../src/telemetry/index.ts';
import { createPrivateKey } from 'node:crypto';

const ROOT_DIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const FIXTURE_DIR = path.join(ROOT_DIR, 'test', 'fixtures', 'recordings');

async function main(): Promise<void> {
  const args = process.argv.slice(2);
  const secondsAt = args.indexOf('--seconds');
  const seconds = secondsAt === -1 ? 5 : Number(args[secondsAt + 1]);
  const outAt = args.indexOf('--out');
  const out = outAt === -1 ? path.join(FIXTURE_DIR, 'sim-market-maker.prrc') : path.resolve(args[outAt + 1]);
  const work = mkdtempSync(path.join(tmpdir(), 'replay-fixture-'));
  const sim = await startSim({ keysDir: path.join(work, 'keys'), logger: pino({ level: 'silent' }), seed: 7, activity: { updatesPerSec: 1500 } });
  // Gaps on purpose, at fixed points of the market's delta stream: the recording must show the live
  // resync path (a gap, get_snapshot, the snapshot) every time it is made.
  for (const skip of [120, 300, 480, 660]) sim.faults.add({ kind: 'ws_drop_delta', target: { skip, times: 1, channel: 'orderbook_delta', marketTicker: 'KXDEMO-26DEC31-T50' } });
  const raw = JSON.parse(readFileSync(path.join(FIXTURE_DIR, 'replay-config.json'), 'utf8')) as Record<string, unknown>;
  const recordDir = path.join(work, 'recordings');
  const config = validateConfig({ ...raw, record: { enabled: true, dir: recordDir } }, '<fixture>', {});
  const key = sim.demoKey;
  const runtime = new Runtime({
    config,
    venue: { restUrl: `${sim.httpUrl}/trade-api/v2`, wsUrl: sim.wsUrl, keyId: key.keyId, privateKey: createPrivateKey(key.privateKeyPem) },
    rootDir: ROOT_DIR,
    journalPath: path.join(work, 'journal.jsonl'),
    logger: createLogger({ level: 'warn', pretty: false }),
    strategies: config.strategies,
    startTimeoutMs: 5_000,
  });
  await runtime.start();
  // Bounded in time: the run lasts `seconds`, then the stop path (cancel-all) is recorded too.
  await new Promise((resolve) => setTimeout(resolve, seconds * 1000));
  const counters = runtime.feed.counters;
  await runtime.stop('fixture done');
  await sim.close();
  const files = readdirSync(recordDir);
  if (files.length !== 1) throw new Error(`expected one recording, found ${files.length}`);
  renameSync(path.join(recordDir, files[0]), out);
  rmSync(work, { recursive: true, force: true });
  const status = runtime.status();
  console.log(JSON.stringify({ out: path.relative(ROOT_DIR, out), bytes: statSync(out).size, orders: status.ordersSent, fills: status.fills, seqGaps: counters.seqGaps, resyncs: counters.resyncsCompleted, recorder: runtime.recorder?.stats }));
}

await main();
