/**
 * Goal: the operator's dashboard works in a real browser against a runtime trading on the
 * simulator: the page shows the book with our own orders marked and a fill, and its kill switch
 * goes through the runtime's kill path (journaled, every order cancelled at the venue, no new
 * ones); the page and the WebSocket refuse a missing (401) or wrong (403) token.
 * Method: an in-process simulator, a Runtime wired as the main job wires it running the market
 * maker on subaccount 1 (quotes at 0.48 / 0.52), the shared OperatorSnapshots on a 100 ms timer
 * and a DashboardServer on 127.0.0.1 port 0; headless Chromium driven by playwright-core, found by
 * ./find-browser.ts (CHROMIUM_PATH, a system Chromium/Chrome, or the one the dev dependency
 * @sparticuz/chromium ships); a counterparty order fills our bid; the venue is asked over REST
 * (GET /portfolio/orders?status=resting) after the kill. Bounded waits. With no browser at all the
 * browser part fails in CI (CI or PREDICTIONS_BROWSER_REQUIRED set) and elsewhere warns loudly with
 * how to install one and passes; the token checks need no browser and always run. The fleet page
 * reads a fixed fleet through a stub reader (test/dashboard/fleet-page.test.ts reads a real Redis);
 * one runtime's name is HTML, which must show as text.
 */

import { request as httpRequest } from 'node:http';
import { join } from 'node:path';
import { chromium } from 'playwright-core';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DashboardServer, FleetView, OperatorSnapshots, dashboardToken } from '../../src/dashboard/index.ts';
import type { Runtime } from '../../src/runtime/runtime.ts';
import { BROWSER_INSTALL_HINT, browserRequired, defaultBrowserLookup, findBrowser } from './find-browser.ts';
import { MARKET, counterpartyKey, createRuntime, demoKey, entry, orderBody, rest, startTestSim, waitUntil } from '../integration/helpers.ts';
import type { TestSim } from '../integration/helpers.ts';

const SUBACCOUNT = 1;
let sim: TestSim;
let runtime: Runtime;
let snapshots: OperatorSnapshots;
let dashboard: DashboardServer;
const token = dashboardToken(null);
const kills: string[] = [];
const HOSTILE_NAME = '<img src=x onerror="document.title=\'pwned\'">';
const FLEET = [
  { name: 'rt-here', alive: true, snapshot: { openOrders: 2, pnlMicro: 1_500_000, positionsTotal: 1, killSwitch: null, strategies: [{ id: 'mm', status: 'running' }], fleet: { sharePpm: 490_000, leased: true, redisConnected: true, kill: null }, publishedMs: Date.now() } },
  { name: HOSTILE_NAME, alive: false, snapshot: { openOrders: 0, pnlMicro: 0, killSwitch: { reason: 'max loss', source: 'fleet: cli ops@desk', sinceMs: 1 }, strategies: [], fleet: { sharePpm: 0, leased: false, redisConnected: true, kill: null } } },
];

let browser: Browser | null = null;

/** Launches the browser find-browser.ts finds; null (after a loud warning) when there is none and none is required. */
async function launchBrowser(): Promise<Browser | null> {
  const found = findBrowser(defaultBrowserLookup());
  if (found === null) {
    const message = `dashboard browser test: no Chromium or Chrome on this machine; ${BROWSER_INSTALL_HINT}`;
    if (browserRequired(process.env)) throw new Error(`${message} (required here: CI or PREDICTIONS_BROWSER_REQUIRED is set)`);
    console.warn(`\n${'!'.repeat(100)}\n!! ${message}.\n!! The page is NOT tested in a browser on this run.\n${'!'.repeat(100)}\n`);
    return null;
  }
  return chromium.launch({ executablePath: found.executablePath, env: { ...process.env, ...found.env }, args: ['--no-sandbox'], headless: true, timeout: 20_000 });
}

async function venueResting(): Promise<unknown[]> {
  const reply = await rest(sim, demoKey(sim), 'GET', `/portfolio/orders?ticker=${MARKET}&status=resting&subaccount=${SUBACCOUNT}`);
  expect(reply.status).toBe(200);
  return reply.body.orders as unknown[];
}

/** The status of a WebSocket upgrade request to /ws with `query` (101 when accepted). */
function upgradeStatus(query: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = httpRequest({
      host: '127.0.0.1', port: dashboard.port, path: `/ws${query}`, timeout: 5_000,
      headers: { connection: 'Upgrade', upgrade: 'websocket', 'sec-websocket-version': '13', 'sec-websocket-key': 'dGhlIHNhbXBsZSBub25jZQ==' },
    });
    req.on('upgrade', (response, socket) => {
      socket.destroy();
      resolve(response.statusCode ?? 0);
    });
    req.on('response', (response) => {
      response.resume();
      resolve(response.statusCode ?? 0);
    });
    req.on('timeout', () => req.destroy(new Error('upgrade timed out')));
    req.on('error', reject);
    req.end();
  });
}

beforeAll(async () => {
  sim = await startTestSim();
  runtime = createRuntime(sim, {
    strategies: [entry('mm', 'strategies/market-maker.ts', { fairValue: '0.5000', halfSpreadTicks: 2, size: '3.00', maxPosition: '10.00', timerIntervalMs: 100 }, SUBACCOUNT)],
    journalPath: join(sim.workDir, 'dashboard.jsonl'),
  });
  await runtime.start();
  snapshots = new OperatorSnapshots(runtime, 100);
  dashboard = await DashboardServer.start({
    host: '127.0.0.1',
    port: 0,
    token,
    snapshots,
    // The main job's kill path (main.ts engageKillSwitch): the runtime's operator kill switch.
    onKill: (source) => {
      kills.push(source);
      void runtime.engageKillSwitch(source, 'operator');
    },
    fleet: new FleetView({ read: () => Promise.resolve(FLEET), intervalMs: 100, runtimeName: 'rt-here' }),
  });
  snapshots.start();
  browser = await launchBrowser();
}, 90_000);

afterAll(async () => {
  await browser?.close();
  snapshots?.stop();
  await dashboard?.stop();
  await runtime?.stop('test done');
  await sim?.close();
}, 30_000);

describe('dashboard in a browser', () => {
  it('refuses the page and the WebSocket without the token (401) or with a wrong one (403)', async () => {
    const page = `http://127.0.0.1:${dashboard.port}/`;
    expect((await fetch(page)).status).toBe(401);
    expect((await fetch(`${page}?token=`)).status).toBe(401);
    const wrong = await fetch(`${page}?token=${encodeURIComponent(`${token.slice(0, -1)}${token.endsWith('x') ? 'y' : 'x'}`)}`);
    expect(wrong.status).toBe(403);
    expect(await wrong.text()).not.toContain(token);
    expect((await fetch(`${page}?token=${encodeURIComponent(token)}`)).status).toBe(200);
    expect(await upgradeStatus('')).toBe(401);
    expect(await upgradeStatus('?token=wrong')).toBe(403);
    expect(await upgradeStatus(`?token=${encodeURIComponent(token)}`)).toBe(101);
  });

  it('shows the fleet table with each runtime alive or not, share and kill state, data as text only', async () => {
    if (browser === null) return; // no browser and none required: warned loudly in beforeAll
    const page = await browser.newPage();
    const problems: string[] = [];
    page.on('pageerror', (error) => problems.push(error.message));
    await page.goto(`http://127.0.0.1:${dashboard.port}/?token=${encodeURIComponent(token)}`, { timeout: 10_000 });
    await page.locator('[data-testid="fleet"]').waitFor({ state: 'visible', timeout: 10_000 });
    const here = page.locator('[data-testid="fleet-row"][data-name="rt-here"][data-alive="true"]');
    await here.waitFor({ timeout: 10_000 });
    expect(await here.innerText()).toContain('49.0%');
    expect(await here.innerText()).toContain('1.50');
    const gone = page.locator('[data-testid="fleet-row"][data-alive="false"]');
    expect(await gone.count()).toBe(1);
    expect(await gone.getAttribute('data-name')).toBe(HOSTILE_NAME);
    expect(await gone.innerText()).toContain(HOSTILE_NAME);
    expect(await gone.innerText()).toContain('ENGAGED by fleet: cli ops@desk: max loss');
    expect(await page.locator('#fleet img').count()).toBe(0);
    expect(await page.title()).not.toBe('pwned');
    expect(await page.locator('[data-testid="fleet-summary"]').innerText()).toContain('1 of 2 runtimes alive');
    expect(problems).toEqual([]);
    await page.close();
  }, 30_000);

  it('shows the book with own orders and a fill, and its kill switch cancels everything at the venue', async () => {
    if (browser === null) return; // no browser and none required: warned loudly in beforeAll
    await waitUntil(async () => (await venueResting()).length === 2, 10_000, 'the market maker quoting both sides');
    const page = await browser.newPage();
    const problems: string[] = [];
    page.on('pageerror', (error) => problems.push(error.message));
    page.on('requestfailed', (request) => problems.push(`request failed: ${request.url()}`));
    await page.goto(`http://127.0.0.1:${dashboard.port}/?token=${encodeURIComponent(token)}`, { timeout: 10_000 });
    // The token is stripped from the address bar once read.
    expect(page.url()).toBe(`http://127.0.0.1:${dashboard.port}/`);
    await page.locator('[data-testid="conn-state"]', { hasText: 'live' }).waitFor({ timeout: 10_000 });
    // The book, with our two quotes marked on their levels (0.48 bid, 0.52 ask, 3.00 each).
    const book = page.locator(`[data-testid="book"][data-ticker="${MARKET}"]`);
    await book.waitFor({ timeout: 10_000 });
    await book.locator('tr[data-side="bid"][data-price="4800"][data-own="300"]').waitFor({ timeout: 10_000 });
    await book.locator('tr[data-side="ask"][data-price="5200"][data-own="300"]').waitFor({ timeout: 10_000 });
    expect(await page.locator('[data-testid="order"]').count()).toBe(2);

    // A counterparty sells 2.00 into our bid: the page shows the fill and the position.
    const fill = await rest(sim, counterpartyKey(sim), 'POST', '/portfolio/events/orders', orderBody('ask', '0.4800', '2.00', 'immediate_or_cancel'));
    expect(fill.status).toBe(201);
    await page.locator('[data-testid="fills"]', { hasText: '1' }).waitFor({ timeout: 10_000 });
    await page.locator('[data-testid="position"]', { hasText: '2.00' }).waitFor({ timeout: 10_000 });

    // The kill switch: a click, then the confirmation.
    await page.click('[data-testid="kill-button"]');
    await page.click('[data-testid="kill-confirm"]');
    await page.locator('[data-testid="kill-state"]', { hasText: 'ENGAGED' }).waitFor({ timeout: 10_000 });
    expect(kills).toEqual(['dashboard']);
    expect(runtime.oms.killSwitchState).toMatchObject({ source: 'operator', reason: 'dashboard' });
    await waitUntil(async () => (await venueResting()).length === 0, 10_000, 'no resting order at the venue after the kill switch');
    expect(await venueResting()).toEqual([]);
    // As after any kill switch: the strategy keeps running and nothing new rests.
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(await venueResting()).toEqual([]);
    expect(runtime.status().denies.KILL_SWITCH ?? 0).toBeGreaterThan(0);
    expect(await page.locator('[data-testid="kill-button"]').isDisabled()).toBe(true);
    expect(problems).toEqual([]);
    await page.close();
  }, 60_000);
});
