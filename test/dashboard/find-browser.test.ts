/**
 * Goal: the browser test finds a browser where one can be had (CHROMIUM_PATH, PATH, the usual
 * paths, the Chromium shipped in @sparticuz/chromium) and knows when a missing one must fail (CI).
 * Method: fake PATHs and environments over temporary directories holding executable stubs; the
 * shipped Chromium is really unpacked from the installed dev dependency and run (`--version`).
 */

import { execFileSync } from 'node:child_process';
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { BROWSER_PATHS, browserRequired, defaultBrowserLookup, findBrowser, systemBrowser } from './find-browser.ts';
import type { BrowserLookup } from './find-browser.ts';

const root = mkdtempSync(join(tmpdir(), 'find-browser-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

function stub(dir: string, name: string, executable = true): string {
  const path = join(dir, name);
  writeFileSync(path, '#!/bin/sh\necho stub\n');
  chmodSync(path, executable ? 0o755 : 0o644);
  return path;
}

function lookup(env: Record<string, string | undefined>, shipped: string | null = null, usualPaths: readonly string[] = []): BrowserLookup {
  return { env, platform: 'linux', arch: 'x64', shippedPackageDir: () => shipped, cacheDir: join(root, 'cache'), usualPaths };
}

describe('browserRequired', () => {
  it('is true in CI or when PREDICTIONS_BROWSER_REQUIRED is set, false otherwise', () => {
    expect(browserRequired({ CI: 'true' })).toBe(true);
    expect(browserRequired({ CI: '1' })).toBe(true);
    expect(browserRequired({ PREDICTIONS_BROWSER_REQUIRED: '1' })).toBe(true);
    expect(browserRequired({})).toBe(false);
    expect(browserRequired({ CI: '' })).toBe(false);
    expect(browserRequired({ CI: 'false' })).toBe(false);
    expect(browserRequired({ CI: '0', PREDICTIONS_BROWSER_REQUIRED: '0' })).toBe(false);
  });
});

describe('findBrowser', () => {
  it('takes the first executable browser name in PATH order, skipping non-executable files', () => {
    const a = mkdtempSync(join(root, 'a-'));
    const b = mkdtempSync(join(root, 'b-'));
    stub(a, 'chromium', false);
    const chrome = stub(a, 'google-chrome');
    const chromium = stub(b, 'chromium');
    expect(systemBrowser({ PATH: `${a}:${b}` })).toBe(chromium); // chromium is preferred over chrome
    expect(findBrowser(lookup({ PATH: a }))).toEqual({ executablePath: chrome, env: {}, source: 'system' });
  });

  it('prefers CHROMIUM_PATH and refuses one that is not executable', () => {
    const dir = mkdtempSync(join(root, 'explicit-'));
    const mine = stub(dir, 'my-chrome');
    stub(dir, 'chromium');
    expect(findBrowser(lookup({ PATH: dir, CHROMIUM_PATH: mine }))?.executablePath).toBe(mine);
    expect(() => findBrowser(lookup({ CHROMIUM_PATH: join(dir, 'missing') }))).toThrow(/not an executable file/);
  });

  it('falls back to the usual install paths when PATH has no browser', () => {
    const empty = mkdtempSync(join(root, 'empty-'));
    const usual = stub(mkdtempSync(join(root, 'usual-')), 'chrome');
    expect(findBrowser(lookup({ PATH: empty }, null, ['/nonexistent/chromium', usual]))?.executablePath).toBe(usual);
    expect(BROWSER_PATHS).toContain('/usr/bin/chromium');
  });

  it('answers null with no browser in PATH, none at the usual paths and no shipped one (or none for this platform)', () => {
    const empty = mkdtempSync(join(root, 'empty-'));
    expect(findBrowser(lookup({ PATH: empty }))).toBeNull();
    expect(findBrowser(lookup({}))).toBeNull();
    expect(findBrowser({ ...lookup({ PATH: empty }), platform: 'darwin', shippedPackageDir: () => '/nonexistent' })).toBeNull();
  });

  it('unpacks the Chromium shipped in @sparticuz/chromium, which then runs on this machine', () => {
    const empty = mkdtempSync(join(root, 'empty-'));
    const shipped = defaultBrowserLookup().shippedPackageDir();
    expect(shipped).not.toBeNull();
    // The cache the browser test uses too: unpacked once per machine (about 15 s), then reused.
    const shared = { ...lookup({ PATH: empty }, shipped), cacheDir: defaultBrowserLookup().cacheDir };
    const browser = findBrowser(shared);
    expect(browser?.source).toBe('@sparticuz/chromium');
    const version = execFileSync(browser!.executablePath, ['--version'], { encoding: 'utf8', env: { ...process.env, ...browser!.env }, timeout: 30_000 });
    expect(version).toMatch(/^Chromium \d+\./);
    // A second lookup reuses the unpacked copy.
    expect(findBrowser(shared)).toEqual(browser);
  }, 120_000);
});
