/**
 * The fleet suite's simulator process (bench/child-process.ts's protocol: one JSON ready line on
 * stdout, then one JSON reply line per JSON command line on stdin), so the venue's work never runs
 * on the runtimes' event loop. It holds the simulator (startSim, 127.0.0.1 port 0) with one market
 * (the ticker given), resting liquidity, activity at the given update rate, rate limits on, and a
 * counter around its rate limiter's admit() (bench/admission-meter.ts), per key: tokens admitted
 * and requests refused (each refusal is one 429 answer).
 *
 * Ready line: {"event":"ready", pid, http, ws}.
 * Commands:
 *   {"cmd":"key", tier, userId} -> {"event":"key", keyId, privateKeyPem}: a read+write key of that
 *                                  tier owned by `userId` (each phase trades as a user of its own);
 *   {"cmd":"stats", keyId}      -> {"event":"stats", readTokens, readRefused, writeTokens, writeRefused, atMs}.
 * SIGTERM or the end of stdin closes the simulator and exits.
 *
 *   node --import tsx bench/fleet/sim-child.ts <work dir> <ticker> <updates per second>
 */

import path from 'node:path';
import { createInterface } from 'node:readline';
import { pino } from 'pino';
import { startSim, type SimHandle } from '../../src/sim/index.ts';
import type { RateLimitTier } from '../../src/sim/rate-limit/index.ts';
import { ZERO_COUNTS, countAdmissions, type KeyCounts } from '../admission-meter.ts';
import { oneMarketCatalog } from '../loopback.ts';

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
  if (command.cmd === 'stats') return { event: 'stats', ...(counts.get(command.keyId ?? '') ?? ZERO_COUNTS), atMs: Date.now() };
  return { event: 'error', message: `unknown command ${command.cmd}` };
}

async function main(): Promise<void> {
  const [work, ticker, rateText] = process.argv.slice(2);
  if (work === undefined || ticker === undefined || rateText === undefined) throw new Error('usage: sim-child.ts <work dir> <ticker> <updates per second>');
  const sim = await startSim({
    host: '127.0.0.1',
    port: 0,
    marketsFile: oneMarketCatalog(work, ticker),
    keysDir: path.join(work, 'keys'),
    logger: pino({ level: 'silent' }),
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
  process.stdout.write(`${JSON.stringify({ event: 'ready', pid: process.pid, http: sim.httpUrl, ws: sim.wsUrl })}\n`);
  const lines = createInterface({ input: process.stdin });
  lines.on('close', () => void stop()); // the parent is gone
  for await (const line of lines) {
    if (line.trim() === '') continue;
    process.stdout.write(`${JSON.stringify(answer(sim, counts, JSON.parse(line) as Command))}\n`);
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`bench fleet sim child: ${(error as Error).stack ?? String(error)}\n`);
  process.exit(1);
});
