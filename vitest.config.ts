import { readdirSync } from 'node:fs';
import { sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

/**
 * Test files that run alone, after the rest: the live-vs-replay comparison holds a 60 s live run to
 * the percent, and another test file's work on the same 2 cores moves the live run's timing (its
 * quotes move later, and fills its replay cannot see: -8% in a CI run beside the other files).
 */
const SOLO = ['test/integration/replay-live-compare.test.ts'];

/**
 * Folders whose files share their worker's module cache (isolate: false), run first: they import
 * only the library under test (no process spawns, no environment left changed, no module mocks),
 * so re-importing it for every file was most of their time. Measured on 2 cores: 53 files of
 * core/book/risk/router/oms/strategy/market/telemetry 35 -> 19 s, 36 of feed/record/catalog/
 * clearing/fix/replay 95 -> 67 s; each whole-suite run of CI ~45 s shorter.
 */
const SHARED_FOLDERS = ['core', 'book', 'risk', 'router', 'oms', 'strategy', 'market', 'telemetry', 'feed', 'record', 'catalog', 'clearing', 'fix', 'replay', 'sim', 'exec',
  'runtime', 'integration', 'dashboard', 'net', 'bench', 'capture', 'architecture'];

/**
 * Files of those folders that stay isolated (project 'suite'). sim, exec: 2 s of imports a file
 * (the simulator, the routes), 79 files of them 158 -> 32 s of import on 2 cores, so each whole-suite
 * run and the Node 24 server run are a minute or more shorter; runtime, integration, dashboard, net,
 * bench likewise (the runtime imports nearly all of src). Kept out of the shared cache:
 *  - files that start processes: the main job (integration/main-process.ts), the simulator's main,
 *    a browser, taskset, a child node with V8 flags;
 *  - files with module mocks (vi.mock);
 *  - files that call kalshi-typescript on axios's default instance: each API object adds a request
 *    interceptor there, signing with its own key, so another file's interceptors (other simulators'
 *    keys) would sign these requests last (401s seen: kalshi-client after rfq/combos in one worker).
 *    Files that pass their own axios.create() are safe.
 * test/workers (environment changed, fake timers) and test/fleet (a redis-server child) stay isolated whole.
 */
const ISOLATED = [
  // processes
  'test/sim/main.test.ts', 'test/sim/probe.test.ts',
  'test/runtime/cli-help.test.ts', 'test/runtime/cpu-placement.test.ts', 'test/runtime/jit-tier-up.test.ts',
  'test/runtime/main-job-exit.test.ts', 'test/runtime/status-table-tty.test.ts',
  'test/integration/crash.test.ts', 'test/integration/kill-switch.test.ts', 'test/integration/main-job.test.ts',
  'test/dashboard/dashboard-browser.test.ts', 'test/dashboard/find-browser.test.ts', 'test/dashboard/fleet-page.test.ts', 'test/dashboard/main-job.test.ts',
  // module mocks
  'test/net/raw-http-pool.test.ts',
  // kalshi-typescript on axios's default instance
  'test/sim/server/kalshi-client.test.ts', 'test/sim/server/candlesticks.test.ts', 'test/integration/rfq-counterparties.test.ts',
];

// Every test file, as a path from the repository root (so a new file lands in its folder's project).
const TEST_FILES = (readdirSync(fileURLToPath(new URL('test', import.meta.url)), { recursive: true }) as string[])
  .filter((file) => file.endsWith('.test.ts'))
  .map((file) => `test/${file.split(sep).join('/')}`)
  .sort();
const SHARED = TEST_FILES.filter((file) => SHARED_FOLDERS.includes(file.split('/')[1]) && !ISOLATED.includes(file) && !SOLO.includes(file));
const SUITE = TEST_FILES.filter((file) => !SHARED.includes(file) && !SOLO.includes(file));

// Tests run in forks so native addons (uWebSockets.js) and worker threads behave as in production.
const shared = { pool: 'forks' as const, testTimeout: 20_000, hookTimeout: 20_000, maxWorkers: 2 };

export default defineConfig({
  test: {
    projects: [
      { extends: true, test: { ...shared, name: 'shared', include: SHARED, isolate: false, sequence: { groupOrder: 0 } } },
      { extends: true, test: { ...shared, name: 'suite', include: SUITE, sequence: { groupOrder: 1 } } },
      { extends: true, test: { ...shared, name: 'solo', include: SOLO, maxWorkers: 1, sequence: { groupOrder: 2 } } },
    ],
  },
});
