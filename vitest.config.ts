import { defineConfig } from 'vitest/config';

/**
 * Test files that run alone, after the rest: the live-vs-replay comparison holds a 60 s live run to
 * the percent, and another test file's work on the same 2 cores moves the live run's timing (its
 * quotes move later, and fills its replay cannot see: -8% in a CI run beside the other files).
 */
const SOLO = ['test/integration/replay-live-compare.test.ts'];

// Tests run in forks so native addons (uWebSockets.js) and worker threads behave as in production.
const shared = { pool: 'forks' as const, testTimeout: 20_000, hookTimeout: 20_000 };

export default defineConfig({
  test: {
    projects: [
      { extends: true, test: { ...shared, name: 'suite', include: ['test/**/*.test.ts'], exclude: SOLO, maxWorkers: 2, sequence: { groupOrder: 0 } } },
      { extends: true, test: { ...shared, name: 'solo', include: SOLO, maxWorkers: 1, sequence: { groupOrder: 1 } } },
    ],
  },
});
