/**
 * The rfq suite's simulator process (bench/child-process.ts's protocol: one JSON ready line on
 * stdout, then one JSON reply line per JSON command line on stdin), so the simulator's work (the
 * requester's answers, three `communications` broadcasts and a FIX QuoteRequest per RFQ, the lanes'
 * quote requests) never runs on the lanes' event loop. It holds:
 *
 *   - the simulator (startSim, FIX on, 127.0.0.1 port 0), the suite's one market with a resting
 *     0.45 bid and 0.55 ask from a liquidity user, and three maker keys, each its own user (so each
 *     lane sees every RFQ), at the simulator's default tier (basic: 100 write tokens/s, a quote 2);
 *   - the requester (the demo key): one RFQ of 10 contracts every PACE_MS on absolute ticks over
 *     signed REST from an undici pool, each deleted DELETE_AFTER ticks later at the half tick (its
 *     signing never beside a fresh RFQ; the venue keeps at most 100 open per user). It lives here,
 *     not in the bench process: its inline RSA signing (~1 ms per create and per delete) and its
 *     answers would otherwise run on the lanes' loop, right when the RFQ it created reaches them.
 *     Here they only decide when the simulator sends an RFQ, before any lane's t0.
 *
 * Ready line: {"event":"ready", http, ws, port, fix: {host, port}, makers: [{keyId, privateKeyPem}] x3}.
 * Commands: {"cmd":"pace", warmupMs, rfqs, boundMs} -> {"event":"paced", recorded, created,
 * createFailures, lastFailure, elapsedMs}. SIGTERM (BenchChild.stop) or the end of stdin closes
 * the simulator and exits. Measures nothing.
 *
 *   node --import tsx bench/rfq/sim-child.ts <work dir>
 */

import { createPrivateKey } from 'node:crypto';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { pino } from 'pino';
import { Pool } from 'undici';
import { signedHeaders } from '../../src/core/index.ts';
import { startSim, type SimHandle } from '../../src/sim/index.ts';

const TICKER = 'KXDEMO-26DEC31-T50';
const API = '/trade-api/v2';
const PACE_MS = 100; // 10 RFQs/s
const DELETE_AFTER = 10; // RFQs: each is deleted ~1 s after it was created
const MAKER_SUFFIXES = ['0000000bf0a1', '0000000bf0a2', '0000000bf0a3'];

const pause = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** A signed REST caller for one key (the requester's and the liquidity user's own pool). */
class SignedCaller {
  readonly #pool: Pool;
  readonly #keyId: string;
  readonly #key: ReturnType<typeof createPrivateKey>;

  constructor(origin: string, keyId: string, privateKeyPem: string) {
    this.#pool = new Pool(origin, { connections: 2 });
    this.#keyId = keyId;
    this.#key = createPrivateKey(privateKeyPem);
  }

  async call(method: 'GET' | 'POST' | 'DELETE', relative: string, body?: unknown): Promise<{ status: number; body: Record<string, unknown> }> {
    const fullPath = `${API}${relative}`;
    const response = await this.#pool.request({
      method,
      path: fullPath,
      headers: { ...signedHeaders(this.#keyId, this.#key, Date.now(), method, fullPath), ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await response.body.text();
    return { status: response.statusCode, body: text === '' ? {} : (JSON.parse(text) as Record<string, unknown>) };
  }

  close(): Promise<void> {
    return this.#pool.close();
  }
}

export interface Paced {
  /** RFQ ids created after the warm-up, in order. */
  recorded: string[];
  created: number;
  createFailures: number;
  lastFailure: string;
  elapsedMs: number;
}

/** The requester: one RFQ per PACE_MS on absolute ticks, each deleted DELETE_AFTER ticks later at a half tick. */
async function paceRfqs(requester: SignedCaller, warmupMs: number, rfqs: number, deadlineMs: number): Promise<Paced> {
  const startMs = performance.now();
  const warmupTicks = Math.ceil(warmupMs / PACE_MS);
  const totalTicks = warmupTicks + rfqs;
  const open: (string | null)[] = [];
  const result: Paced = { recorded: [], created: 0, createFailures: 0, lastFailure: '', elapsedMs: 0 };
  const deletes: Promise<unknown>[] = [];
  for (let tick = 0; tick < totalTicks && Date.now() < deadlineMs; tick++) {
    const due = startMs + tick * PACE_MS;
    const wait = due - performance.now();
    if (wait > 0) await pause(wait);
    const created = await requester.call('POST', '/communications/rfqs', { market_ticker: TICKER, contracts_fp: '10.00', rest_remainder: false });
    const id = created.status === 201 && typeof created.body.id === 'string' ? created.body.id : null;
    if (id === null) {
      result.createFailures++;
      result.lastFailure = `${created.status} ${JSON.stringify(created.body).slice(0, 200)}`;
    } else {
      result.created++;
      if (tick >= warmupTicks) result.recorded.push(id);
    }
    open.push(id);
    const old = open.length > DELETE_AFTER ? open.shift() : null;
    if (old !== null && old !== undefined) {
      const half = due + PACE_MS / 2 - performance.now();
      if (half > 0) await pause(half);
      deletes.push(requester.call('DELETE', `/communications/rfqs/${old}`).catch(() => undefined));
    }
  }
  await pause(1_000); // the last quotes
  for (const id of open) if (id !== null) deletes.push(requester.call('DELETE', `/communications/rfqs/${id}`).catch(() => undefined));
  await Promise.all(deletes);
  result.elapsedMs = performance.now() - startMs;
  return result;
}

async function placeBook(sim: SimHandle): Promise<void> {
  const liquidity = sim.createApiKey({ scopes: ['read', 'write'], userId: 'c0ffee00-0000-4000-8000-0000000bf001', subaccount: 0 });
  const caller = new SignedCaller(sim.httpUrl, liquidity.keyId, liquidity.privateKeyPem);
  try {
    for (const [side, price] of [['bid', '0.4500'], ['ask', '0.5500']] as const) {
      const placed = await caller.call('POST', '/portfolio/events/orders', {
        ticker: TICKER, client_order_id: `bench-rfq-${side}-${process.pid}`, side, count: '50.00', price,
        time_in_force: 'good_till_canceled', self_trade_prevention_type: 'taker_at_cross',
      });
      if (placed.status !== 201) throw new Error(`bench rfq: the liquidity ${side} was refused: ${placed.status} ${JSON.stringify(placed.body)}`);
    }
  } finally {
    await caller.close();
  }
}

async function main(): Promise<void> {
  const work = process.argv[2];
  if (work === undefined) throw new Error('usage: sim-child.ts <work dir>');
  const sim = await startSim({ keysDir: path.join(work, 'keys'), logger: pino({ level: 'silent' }), host: '127.0.0.1', port: 0, fix: { enabled: true } });
  if (sim.fix === null) throw new Error('bench rfq: the simulator started without its FIX acceptor');
  const requester = new SignedCaller(sim.httpUrl, sim.demoKey.keyId, sim.demoKey.privateKeyPem);
  let stopping = false;
  const stop = async (): Promise<void> => {
    if (stopping) return;
    stopping = true;
    await requester.close().catch(() => undefined);
    await sim.close().catch(() => undefined);
    process.exit(0);
  };
  process.on('SIGTERM', () => void stop());
  await placeBook(sim);
  const makers = MAKER_SUFFIXES.map((suffix) => sim.createApiKey({ scopes: ['read', 'write'], userId: `c0ffee00-0000-4000-8000-${suffix}` }));
  process.stdout.write(`${JSON.stringify({
    event: 'ready', pid: process.pid, http: sim.httpUrl, ws: sim.wsUrl, port: sim.port,
    fix: { host: sim.fix.host, port: sim.fix.ports.KalshiRFQ },
    makers: makers.map((key) => ({ keyId: key.keyId, privateKeyPem: key.privateKeyPem })),
  })}\n`);
  const lines = createInterface({ input: process.stdin });
  lines.on('close', () => void stop()); // the parent is gone
  for await (const line of lines) {
    if (line.trim() === '') continue;
    const command = JSON.parse(line) as { cmd: string; warmupMs?: number; rfqs?: number; boundMs?: number };
    if (command.cmd === 'pace') {
      const paced = await paceRfqs(requester, command.warmupMs ?? 0, command.rfqs ?? 0, Date.now() + (command.boundMs ?? 60_000));
      process.stdout.write(`${JSON.stringify({ event: 'paced', ...paced })}\n`);
    } else {
      process.stdout.write(`${JSON.stringify({ event: 'error', message: `unknown command ${command.cmd}` })}\n`);
    }
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`bench rfq sim child: ${(error as Error).stack ?? String(error)}\n`);
  process.exit(1);
});
