import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['packages/*/src/**/*.test.ts', 'tests/**/*.test.ts', 'functions/**/*.test.ts', 'local/**/*.test.ts'],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    pool: 'forks',
    // Request and run-end lines (info) would bury test output; tests/logs.test.ts turns them on for itself.
    env: { ZERO_LOG_LEVEL: 'warn' },
  },
});
