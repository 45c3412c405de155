/**
 * `npx tsx scripts/dashboard-screenshot.ts [out.png]`: makes the README's dashboard screenshot
 * (default docs/dashboard.png). Starts the simulator in this process with synthetic activity, a
 * runtime trading the sample market maker on it, the operator snapshot and the dashboard on
 * 127.0.0.1 port 0; a second simulator user sells into our bid so a fill, a position and PnL
 * show; then headless Chromium (the system's, `command -v chromium`, through playwright-core)
 * loads the page and saves a full-page PNG. The token never appears in the image: the page strips
 * it from the address bar, and the screenshot has no address bar. Bounded waits; everything it
 * starts is stopped before it exits.
 */

import { execFileSync } from 'node:child_process';
import { createPrivateKey } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { pino } from 'pino';
import { chromium } from 'playwright-core';
import { request } from 'undici';
import { signedHeaders } from '../src/core/index.ts';
import { DashboardServer, OperatorSnapshots, dashboardToken } from '../src/dashboard/index.ts';
import { validateConfig } from '../src/runtime/config.ts';
import { Runtime } from '../src/runtime/runtime.ts';
import { startSim } from '../src/sim/index.ts';
import { createLogger } from '../src/telemetry/index.ts';

const ROOT_DIR = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const MARKET = 'KXDEMO-26DEC31-T50';
const out = resolve(process.argv[2] ?? join(ROOT_DIR, 'docs', 'dashboard.png'));
const pause = (ms: number): Promise<void> => new Promise((done) => setTimeout(done, ms));

async function waitFor(check: () => boolean, timeoutMs: number, what: string): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await pause(20);
  }
}

async function main(): Promise<void> {
  const work = mkdtempSync(join(tmpdir(), 'dashboard-screenshot-'));
  const sim = await startSim({ keysDir: join(work, 'keys'), logger: pino({ level: 'silent' }), activity: { updatesPerSec: 40 } });
  let runtime: Runtime | null = null;
  let snapshots: OperatorSnapshots | null = null;
  let dashboard: DashboardServer | null = null;
  const browser = await chromium.launch({ executablePath: execFileSync('sh', ['-c', 'command -v chromium'], { encoding: 'utf8' }).trim(), args: ['--no-sandbox'], headless: true, timeout: 20_000 });
  try {
    const config = validateConfig(
      {
        risk: { rateLimitTier: 'prime' },
        strategies: [{ id: 'mm', plugin: 'strategies/market-maker.ts', subaccount: 1, orderGroup: null, markets: [MARKET], params: { fairValue: null, halfSpreadTicks: 2, size: '3.00', maxPosition: '10.00' } }],
      },
      '<dashboard screenshot>',
      {},
    );
    runtime = new Runtime({
      config,
      venue: { restUrl: `${sim.httpUrl}/trade-api/v2`, wsUrl: sim.wsUrl, keyId: sim.demoKey.keyId, privateKey: createPrivateKey(sim.demoKey.privateKeyPem) },
      rootDir: ROOT_DIR,
      journalPath: join(work, 'journal.jsonl'),
      logger: createLogger({ level: 'silent', pretty: false }),
    });
    await runtime.start();
    const running = runtime;
    snapshots = new OperatorSnapshots(runtime, 250);
    const token = dashboardToken(null);
    dashboard = await DashboardServer.start({ host: '127.0.0.1', port: 0, token, snapshots, onKill: (source) => void running.engageKillSwitch(source, 'operator') });
    snapshots.start();
    await waitFor(() => running.oms.liveOrders().some((order) => order.side === 'bid' && order.state !== 0), 10_000, 'a resting bid');
    await pause(3_000);
    // A second user sells 2.00 into our best bid, immediate-or-cancel: one fill for the page.
    const bid = running.oms.liveOrders().filter((order) => order.side === 'bid').sort((a, b) => b.price - a.price)[0];
    const counterparty = sim.createApiKey({ scopes: ['read', 'write'], userId: 'screenshot-counterparty', subaccount: 0, tier: 'prime' });
    const path = '/trade-api/v2/portfolio/events/orders';
    const body = JSON.stringify({ ticker: MARKET, client_order_id: `shot-${Date.now()}`, side: 'ask', count: '2.00', price: (bid.price / 10_000).toFixed(4), time_in_force: 'immediate_or_cancel', self_trade_prevention_type: 'taker_at_cross' });
    const reply = await request(`${sim.httpUrl}${path}`, { method: 'POST', headers: { ...signedHeaders(counterparty.keyId, createPrivateKey(counterparty.privateKeyPem), Date.now(), 'POST', path), 'content-type': 'application/json' }, body });
    const answer = await reply.body.text();
    if (reply.statusCode !== 201) throw new Error(`counterparty order: ${reply.statusCode} ${answer}`);
    process.stdout.write(`counterparty: ${answer.slice(0, 300)}\n`);
    await waitFor(() => running.listener.stats.fillMessages > 0, 10_000, 'the fill');
    const page = await browser.newPage({ viewport: { width: 1440, height: 1000 }, deviceScaleFactor: 1 });
    await page.goto(`${dashboard.url}?token=${encodeURIComponent(token)}`, { timeout: 10_000 });
    await page.locator('[data-testid="book"]').waitFor({ timeout: 10_000 });
    // Some PnL points and latency samples accumulate in the page before the picture.
    await pause(6_000);
    mkdirSync(dirname(out), { recursive: true });
    await page.screenshot({ path: out, fullPage: true });
    process.stdout.write(`wrote ${out}\n`);
  } finally {
    await browser.close();
    snapshots?.stop();
    await dashboard?.stop();
    await runtime?.stop('screenshot done');
    await sim.close();
    rmSync(work, { recursive: true, force: true });
  }
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    process.stderr.write(`dashboard-screenshot: ${(error as Error).stack ?? String(error)}\n`);
    process.exit(1);
  },
);
