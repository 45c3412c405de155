/**
 * Goal: `npm run sweep` writes its results table (results.json and a results.parquet DuckDB reads
 * back with the same rows) and an HTML report, `npm run replay --html` writes the one-run report,
 * and both render in a real browser with their plots present (inline SVG, nothing fetched).
 * Method: both CLIs in child processes on the shipped recording and config, a two-run grid on two
 * workers; DuckDB reads the Parquet; headless Chromium (found by test/dashboard/find-browser.ts,
 * driven by playwright-core) opens the files. With no browser the browser part fails in CI (CI or
 * PREDICTIONS_BROWSER_REQUIRED set) and elsewhere warns loudly and passes, as the dashboard's does.
 */

import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { DuckDBInstance } from '@duckdb/node-api';
import { chromium } from 'playwright-core';
import { afterAll, describe, expect, it } from 'vitest';
import { BROWSER_INSTALL_HINT, browserRequired, defaultBrowserLookup, findBrowser } from '../dashboard/find-browser.ts';
import { SWEEP_NODE_FLAGS } from '../../src/replay/sweep/sweep-pool.ts';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const FIXTURE = path.join(ROOT, 'test', 'fixtures', 'recordings', 'sim-market-maker.prrc');
const CONFIG = path.join(ROOT, 'test', 'fixtures', 'recordings', 'replay-config.json');
const work = mkdtempSync(path.join(tmpdir(), 'sweep-report-test-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

/** `script` as npm runs it: the sweep with its node flags (package.json). */
function runTs(script: string, args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  const flags = script.endsWith('sweep-main.ts') ? SWEEP_NODE_FLAGS : [];
  return new Promise((resolve) => {
    execFile(process.execPath, [...flags, '--import', 'tsx', path.join(ROOT, script), ...args], { cwd: ROOT, timeout: 240_000 }, (error, stdout, stderr) => {
      resolve({ code: error === null ? 0 : typeof error.code === 'number' ? error.code : -1, stdout, stderr });
    });
  });
}

async function plotsIn(files: string[]): Promise<number[] | null> {
  const found = findBrowser(defaultBrowserLookup());
  if (found === null) {
    const message = `sweep report browser test: no Chromium or Chrome on this machine; ${BROWSER_INSTALL_HINT}`;
    if (browserRequired(process.env)) throw new Error(`${message} (required here: CI or PREDICTIONS_BROWSER_REQUIRED is set)`);
    console.warn(`\n${'!'.repeat(100)}\n!! ${message}.\n!! The reports are NOT rendered in a browser on this run.\n${'!'.repeat(100)}\n`);
    return null;
  }
  const browser = await chromium.launch({ executablePath: found.executablePath, env: { ...process.env, ...found.env }, args: ['--no-sandbox'], headless: true, timeout: 20_000 });
  try {
    const page = await browser.newPage();
    const requests: string[] = [];
    page.on('request', (request) => {
      if (!request.url().startsWith('file:')) requests.push(request.url());
    });
    const counts: number[] = [];
    for (const file of files) {
      await page.goto(pathToFileURL(file).href, { timeout: 20_000 });
      // A plot that rendered has a size and drawn marks (a line or bars), not just an empty frame.
      const drawn = await page.locator('svg.plot').evaluateAll((svgs) => svgs.filter((svg) => svg.getBoundingClientRect().width > 100 && svg.querySelector('polyline, rect[fill]:not([fill="none"])') !== null).length);
      counts.push(drawn);
    }
    expect(requests).toEqual([]); // self-contained: nothing fetched
    return counts;
  } finally {
    await browser.close();
  }
}

describe('sweep and replay reports', () => {
  it('npm run sweep writes JSON, Parquet and an HTML report; replay --html writes the one-run report; both render', async () => {
    const grid = path.join(work, 'grid.json');
    writeFileSync(grid, JSON.stringify({ params: { 'strategies.0.params.halfSpreadTicks': [1, 3], 'replay.queueModel': ['risk_averse'] } }));
    const out = path.join(work, 'out');
    const sweep = await runTs('src/replay/sweep-main.ts', ['--data', FIXTURE, '--config', CONFIG, '--grid', grid, '--workers', '2', '--out', out]);
    expect(sweep.stderr).toContain('2/2 runs done');
    expect(sweep.code).toBe(0);
    const rows = JSON.parse(readFileSync(path.join(out, 'results.json'), 'utf8')) as Record<string, unknown>[];
    expect(rows.map((row) => row['strategies.0.params.halfSpreadTicks'])).toEqual([1, 3]);
    expect(rows.every((row) => row.status === 'ok' && typeof row.orderSha256 === 'string' && typeof row.pnlMicro === 'number')).toBe(true);
    const instance = await DuckDBInstance.create(':memory:');
    const connection = await instance.connect();
    const read = await connection.runAndReadAll(`SELECT "strategies.0.params.halfSpreadTicks" AS h, orderSha256, pnlMicro, fills FROM '${path.join(out, 'results.parquet')}' ORDER BY "index"`);
    const parquetRows = read.getRowObjects();
    connection.closeSync();
    instance.closeSync();
    expect(parquetRows.map((row) => [Number(row.h), row.orderSha256, Number(row.pnlMicro), Number(row.fills)])).toEqual(rows.map((row) => [row['strategies.0.params.halfSpreadTicks'], row.orderSha256, row.pnlMicro, row.fills]));
    const sweepHtml = readFileSync(path.join(out, 'report.html'), 'utf8');
    expect(sweepHtml).toContain('<svg');
    expect(sweepHtml).not.toMatch(/<script|https?:\/\/(?!www\.w3\.org)/);
    expect(sweepHtml).toContain('queue-position model');
    expect(sweepHtml).toContain('Markouts after its fills');

    const one = path.join(work, 'one.html');
    const replay = await runTs('src/replay/main.ts', [FIXTURE, '--config', CONFIG, '--html', one]);
    expect(replay.code).toBe(0);
    expect(existsSync(one)).toBe(true);
    // The one-run report names the same order hash the text report prints.
    const hash = /sha256 of the order requests: ([0-9a-f]{64})/.exec(replay.stdout)?.[1];
    expect(hash).toBeDefined();
    expect(readFileSync(one, 'utf8')).toContain(hash!);

    const counts = await plotsIn([path.join(out, 'report.html'), one]);
    if (counts !== null) {
      expect(counts[0]).toBeGreaterThanOrEqual(4); // by-parameter plots, the best run's curves and markouts
      expect(counts[1]).toBeGreaterThanOrEqual(3); // PnL, inventory, markouts
    }
  }, 300_000);
});
