import { defineConfig } from 'vitest/config';

// Tests run in forks so native addons (uWebSockets.js) and worker threads behave as in production.
export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    pool: 'forks',
    testTimeout: 20_000,
    hookTimeout: 20_000,
    maxWorkers: 2,
  },
});
