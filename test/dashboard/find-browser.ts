/**
 * Finds a Chromium for the dashboard's browser test (and anything else that drives one with
 * playwright-core, which downloads no browser). In order:
 *   1. CHROMIUM_PATH, when set (a user's own Chrome or Chromium);
 *   2. a system Chromium or Chrome: each directory of PATH, then the usual install paths;
 *   3. the headless Chromium that the dev dependency `@sparticuz/chromium` ships inside its npm
 *      tarball (brotli-compressed, Linux x64, glibc 2.25+), unpacked once into a cache directory with
 *      the NSS libraries it brings (a fresh machine may have no libnss3).
 * None found is an answer, not an error: the caller decides whether a missing browser fails
 * (`browserRequired`: in CI) or is reported loudly and passed over (a developer's machine).
 */

import { execFileSync } from 'node:child_process';
import { accessSync, constants, existsSync, mkdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { delimiter, dirname, join } from 'node:path';
import { brotliDecompressSync } from 'node:zlib';

export interface FoundBrowser {
  executablePath: string;
  /** Extra environment for the browser process (the shipped Chromium's library path). */
  env: Record<string, string>;
  source: 'CHROMIUM_PATH' | 'system' | '@sparticuz/chromium';
}

export interface BrowserLookup {
  env: Readonly<Record<string, string | undefined>>;
  platform: NodeJS.Platform;
  arch: string;
  /** Directory of the installed @sparticuz/chromium package, null when it is not installed. */
  shippedPackageDir: () => string | null;
  /** Where the shipped Chromium is unpacked. */
  cacheDir: string;
  /** Install paths tried after PATH (BROWSER_PATHS). */
  usualPaths: readonly string[];
}

/** Executable names looked up in PATH, most specific first. */
export const BROWSER_NAMES: readonly string[] = ['chromium', 'chromium-browser', 'google-chrome', 'google-chrome-stable', 'chrome'];
/** Usual install paths when PATH has none (Debian's wrapper target, snap, Google's .deb). */
export const BROWSER_PATHS: readonly string[] = [
  '/usr/bin/chromium', '/usr/bin/chromium-browser', '/usr/lib/chromium/chromium', '/snap/bin/chromium',
  '/usr/bin/google-chrome', '/usr/bin/google-chrome-stable', '/opt/google/chrome/chrome',
];

export const BROWSER_INSTALL_HINT =
  'install one: `npm ci` (the dev dependency @sparticuz/chromium ships one for Linux x64), ' +
  '`apt-get install -y chromium`, or set CHROMIUM_PATH to a Chrome/Chromium executable';

/** True in CI (CI set and not "false"/"0") or when PREDICTIONS_BROWSER_REQUIRED=1: a missing browser fails. */
export function browserRequired(env: Readonly<Record<string, string | undefined>>): boolean {
  const flag = (value: string | undefined): boolean => value !== undefined && value !== '' && value !== '0' && value.toLowerCase() !== 'false';
  return flag(env.CI) || flag(env.PREDICTIONS_BROWSER_REQUIRED);
}

function isExecutableFile(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return statSync(path).isFile();
  } catch {
    return false;
  }
}

/** A system browser: PATH first, then the usual paths. */
export function systemBrowser(env: Readonly<Record<string, string | undefined>>, usualPaths: readonly string[] = BROWSER_PATHS): string | null {
  const dirs = (env.PATH ?? '').split(delimiter).filter((dir) => dir !== '');
  for (const name of BROWSER_NAMES) {
    for (const dir of dirs) {
      const candidate = join(dir, name);
      if (isExecutableFile(candidate)) return candidate;
    }
  }
  return usualPaths.find(isExecutableFile) ?? null;
}

/**
 * Unpacks the shipped Chromium into `cacheDir` once (keyed by the package's version) and returns
 * it; concurrent test processes each write a temporary file and rename it, so none sees half a file.
 */
export function unpackShippedChromium(packageDir: string, cacheDir: string): FoundBrowser {
  const version = (JSON.parse(readFileSync(join(packageDir, 'package.json'), 'utf8')) as { version: string }).version;
  const dir = join(cacheDir, `sparticuz-chromium-${version}`);
  const executablePath = join(dir, 'chromium');
  const libDir = join(dir, 'al2023', 'lib');
  mkdirSync(dir, { recursive: true });
  if (!existsSync(libDir)) {
    // The package's NSS libraries (tar inside brotli); Debian and Ubuntu always have tar.
    const staging = join(dir, `al2023.${process.pid}`);
    rmSync(staging, { recursive: true, force: true });
    mkdirSync(staging);
    writeFileSync(join(staging, 'al2023.tar'), brotliDecompressSync(readFileSync(join(packageDir, 'bin', 'al2023.tar.br'))));
    execFileSync('tar', ['-xf', join(staging, 'al2023.tar'), '-C', staging]);
    rmSync(join(staging, 'al2023.tar'));
    try {
      renameSync(staging, join(dir, 'al2023'));
    } catch {
      rmSync(staging, { recursive: true, force: true }); // another process won the race
    }
  }
  if (!isExecutableFile(executablePath)) {
    const partial = `${executablePath}.${process.pid}`;
    writeFileSync(partial, brotliDecompressSync(readFileSync(join(packageDir, 'bin', 'chromium.br'))), { mode: 0o755 });
    renameSync(partial, executablePath);
  }
  return { executablePath, env: { LD_LIBRARY_PATH: libDir }, source: '@sparticuz/chromium' };
}

/** The browser to drive, or null when there is none on this machine. */
export function findBrowser(lookup: BrowserLookup): FoundBrowser | null {
  const explicit = lookup.env.CHROMIUM_PATH;
  if (explicit !== undefined && explicit !== '') {
    if (!isExecutableFile(explicit)) throw new Error(`CHROMIUM_PATH=${explicit} is not an executable file`);
    return { executablePath: explicit, env: {}, source: 'CHROMIUM_PATH' };
  }
  const system = systemBrowser(lookup.env, lookup.usualPaths);
  if (system !== null) return { executablePath: system, env: {}, source: 'system' };
  if (lookup.platform !== 'linux' || lookup.arch !== 'x64') return null; // the shipped build is Linux x64 only
  const packageDir = lookup.shippedPackageDir();
  return packageDir === null ? null : unpackShippedChromium(packageDir, lookup.cacheDir);
}

/** This process's lookup: its environment, and @sparticuz/chromium as installed beside this repo. */
export function defaultBrowserLookup(): BrowserLookup {
  const require = createRequire(import.meta.url);
  return {
    env: process.env,
    platform: process.platform,
    arch: process.arch,
    shippedPackageDir: () => {
      let dir: string;
      try {
        dir = dirname(require.resolve('@sparticuz/chromium')); // its exports map hides package.json
      } catch {
        return null;
      }
      for (let up = 0; up < 4; up++, dir = dirname(dir)) {
        if (existsSync(join(dir, 'bin', 'chromium.br'))) return dir;
      }
      return null;
    },
    cacheDir: join(tmpdir(), 'predictions-trading-runtime-browser'),
    usualPaths: BROWSER_PATHS,
  };
}
