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
const SHARED = ['core', 'book', 'risk', 'router', 'oms', 'strategy', 'market', 'telemetry', 'feed', 'record', 'catalog', 'clearing', 'fix', 'replay']
  .map((folder) => `test/${folder}/**/*.test.ts`);

// Tests run in forks so native addons (uWebSockets.js) and worker threads behave as in production.
const shared = { pool: 'forks' as const, testTimeout: 20_000, hookTimeout: 20_000, maxWorkers: 2 };

export default defineConfig({
  test: {
    projects: [
      { extends: true, test: { ...shared, name: 'shared', include: SHARED, isolate: false, sequence: { groupOrder: 0 } } },
      { extends: true, test: { ...shared, name: 'suite', include: ['test/**/*.test.ts'], exclude: [...SOLO, ...SHARED], sequence: { groupOrder: 1 } } },
      { extends: true, test: { ...shared, name: 'solo', include: SOLO, maxWorkers: 1, sequence: { groupOrder: 2 } } },
    ],
  },
});
