/**
 * The scale suite's simulator process (bench/child-process.ts's protocol: one JSON ready line on
 * stdout, then one JSON reply line per JSON command line on stdin), so the venue's work (matching,
 * N books of activity, the fan-out) never runs on the runtime's event loop. It holds:
 *
 *   - the simulator (startSim, 127.0.0.1 port 0) with N synthetic markets (KXSYN...) after the demo
 *     catalog's, resting liquidity on every book (so each has a mid to quote around at once),
 *     activity at the given update rate, no RFQ participants, rate limits on;
 *   - a counter around its rate limiter's admit() (bench/admission-meter.ts), per key and bucket:
 *     tokens admitted, requests refused (each refusal is one 429 answer).
 *
 * Ready line: {"event":"ready", pid, http, ws, tickers: [the N synthetic tickers]}.
 * Commands:
 *   {"cmd":"key", tier, userId}  -> {"event":"key", keyId, privateKeyPem}: a read+write key of that
 *                                   tier owned by its own user (each bench run trades as a fresh user);
 *   {"cmd":"stats", keyId, userId} -> {"event":"stats", readTokens, readRefused, writeTokens,
 *                                   writeRefused, resting, bookUpdates, atMs}.
 * SIGTERM (BenchChild.stop) or the end of stdin closes the simulator and exits. Measures nothing.
 *
 *   node --import tsx bench/scale/sim-child.ts <work dir> <markets> <updates per second>
 */

import path from 'node:path';
import { createInterface } from 'node:readline';
import { pino } from 'pino';
import { startSim, type SimHandle } from '../../src/sim/index.ts';
import type { RateLimitTier } from '../../src/sim/rate-limit/index.ts';
import { ZERO_COUNTS, countAdmissions, type KeyCounts } from '../admission-meter.ts';

const SYNTHETIC_PREFIX = 'KXSYN';

interface Command {
  cmd: string;
  tier?: RateLimitTier;
  userId?: string;
  keyId?: string;
}

function answer(sim: SimHandle, counts: Map<string, KeyCounts>, command: Command): Record<string, unknown> {
  if (command.cmd === 'key') {
    const key = sim.createApiKey({ scopes: ['read', 'write'], tier: command.tier ?? 'basic', userId: command.userId });
    return { event: 'key', keyId: key.keyId, privateKeyPem: key.privateKeyPem };
  }
  if (command.cmd === 'stats') {
    const entry = counts.get(command.keyId ?? '') ?? ZERO_COUNTS;
    const resting = command.userId === undefined ? 0 : sim.engine.restingOrders(command.userId).length;
    return { event: 'stats', ...entry, resting, bookUpdates: sim.engine.bookUpdateCount, atMs: Date.now() };
  }
  return { event: 'error', message: `unknown command ${command.cmd}` };
}

async function main(): Promise<void> {
  const [work, marketsText, rateText] = process.argv.slice(2);
  if (work === undefined || marketsText === undefined || rateText === undefined) throw new Error('usage: sim-child.ts <work dir> <markets> <updates per second>');
  const sim = await startSim({
    host: '127.0.0.1',
    port: 0,
    keysDir: path.join(work, 'keys'),
    logger: pino({ level: 'silent' }),
    syntheticMarkets: Number(marketsText),
    activity: { updatesPerSec: Number(rateText), rfqsPerMinute: 0 },
    seedLiquidity: true,
  });
  const counts = countAdmissions(sim);
  let stopping = false;
  const stop = async (): Promise<void> => {
    if (stopping) return;
    stopping = true;
    await sim.close().catch(() => undefined);
    process.exit(0);
  };
  process.on('SIGTERM', () => void stop());
  const tickers = sim.engine.markets().filter((market) => market.ticker.startsWith(SYNTHETIC_PREFIX) && market.status === 'active').map((market) => market.ticker);
  process.stdout.write(`${JSON.stringify({ event: 'ready', pid: process.pid, http: sim.httpUrl, ws: sim.wsUrl, tickers })}\n`);
  const lines = createInterface({ input: process.stdin });
  lines.on('close', () => void stop()); // the parent is gone
  for await (const line of lines) {
    if (line.trim() === '') continue;
    process.stdout.write(`${JSON.stringify(answer(sim, counts, JSON.parse(line) as Command))}\n`);
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`bench scale sim child: ${(error as Error).stack ?? String(error)}\n`);
  process.exit(1);
});
