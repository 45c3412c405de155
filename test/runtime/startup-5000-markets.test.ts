// Goal: the runtime starts a strategy on 5,000 markets on the Basic tier without a 429 reaching
// its caller and with every book synced: market facts come in batches (GET /markets?tickers=...,
// 100 a request) through the one budgeted read client, whose budget is the account's own (GET
// /account/limits, risk.rateLimitTier "auto"), and the subscriptions go out in chunks.
// Method: an in-process simulator with 5,000 synthetic markets and the demo key at Basic (200 read
// tokens/s, 100 write), real sockets on 127.0.0.1; the runtime wired as the main job wires it.

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { syntheticCatalogJson } from '../../src/sim/engine/synthetic-catalog.ts';
import { validateConfig } from '../../src/runtime/config.ts';
import { Runtime } from '../../src/runtime/runtime.ts';
import { createLogger } from '../../src/telemetry/index.ts';
import { startTestSim } from '../sim/helpers/test-sim.ts';
import { ROOT_DIR, demoKey } from '../integration/helpers.ts';

const MARKETS = 5_000;
type Sim = Awaited<ReturnType<typeof startTestSim>>;

describe('runtime start-up on 5,000 markets at the Basic tier', () => {
  let sim: Sim;
  let dir: string;
  let runtime: Runtime | null = null;

  beforeAll(async () => {
    sim = await startTestSim({ syntheticMarkets: MARKETS, demoKeyTier: 'basic' });
    dir = mkdtempSync(join(tmpdir(), 'startup-5000-'));
  });

  afterAll(async () => {
    await runtime?.stop();
    await sim.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('starts, adopts the exchange\'s budgets, and syncs every book with no 429 reaching start()', async () => {
    const tickers = syntheticCatalogJson(MARKETS, 1).markets.map((market) => market.ticker as string);
    expect(tickers.length).toBe(MARKETS);
    const config = validateConfig({
      risk: { rateLimitTier: 'auto' },
      exec: { requestTimeoutMs: 2_000 },
      // Candles (and their backfill: 50 batched reads an interval) stay on; portfolio risk is off
      // only because its first snapshot waits for the worker pool's cold start, which is not what
      // this test measures.
      workers: { portfolioRisk: false },
      strategies: [{ id: 'idle', plugin: 'strategies/taker.ts', subaccount: 0, orderGroup: null, markets: tickers, params: { maxOrders: 0 } }],
    }, '<startup-5000>', {});
    const key = demoKey(sim);
    runtime = new Runtime({
      config,
      venue: { restUrl: `${sim.httpUrl}/trade-api/v2`, wsUrl: sim.wsUrl, keyId: key.keyId, privateKey: key.privateKey },
      rootDir: ROOT_DIR,
      journalPath: join(dir, 'journal.jsonl'),
      logger: createLogger({ level: 'silent', pretty: false }),
      strategies: config.strategies,
      startTimeoutMs: 15_000,
    });
    const startedMs = Date.now();
    await runtime.start(); // rejects on any error a 429 would have caused
    const elapsedMs = Date.now() - startedMs;

    // The exchange's answer (Basic) is in force: read 200/s for the client, write 100/s for the gate.
    expect(runtime.account.reads.pacer.refillPerSecond).toBe(200);
    expect(runtime.gate.budget.writePerSecond).toBe(100);
    expect(runtime.gate.budget.readPerSecond).toBe(200);
    // The burst was paced: more reads than one bucket holds, so some waited for refill.
    expect(runtime.account.reads.pacer.waits).toBeGreaterThan(0);

    const status = runtime.status();
    expect(status.booksTotal).toBe(MARKETS);
    expect(status.booksSynced).toBe(MARKETS);
    expect(status.strategies).toEqual([{ id: 'idle', status: expect.any(String) }]);
    // Reported, not asserted (no timing assertions): the start-up time against the floor.
    console.log(`start-up on ${MARKETS} markets at Basic: ${elapsedMs} ms; 429s retried: ${runtime.account.reads.retries}; reads waited: ${runtime.account.reads.pacer.waits}`);
  }, 30_000);
});
