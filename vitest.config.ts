import { configDefaults, defineConfig } from 'vitest/config';

/**
 * Files that hold a real deadline or kill a real process (a Lambda invocation's last 1.8 s, a lease's
 * expiry, a tool's 300 ms time limit, `npm start` restarted, SST's program evaluated under Pulumi's mocks): they run one at a time,
 * after the rest, so that what they time is their own work and not a neighbour's.
 */
const serial = [
  'tests/lambda-handler.test.ts',
  'tests/lambda-runtime-api.test.ts',
  'tests/local-start.test.ts',
  'tests/durable.test.ts',
  'tests/durable-kills.test.ts',
  'tests/lease.test.ts',
  'tests/self-hosted-worker.test.ts',
  'tests/infra*.test.ts',
  'tests/switching.test.ts',
  'tests/loop.test.ts',
];

/**
 * `npm test` runs two projects one after the other: `parallel` (two files at a time: on a 2-core machine
 * most of a scenario test's time is spent waiting on loopback servers and child processes) and `serial`.
 * `npx vitest run <file>` runs one file wherever it belongs.
 */
export default defineConfig({
  test: {
    testTimeout: 30_000,
    hookTimeout: 30_000,
    pool: 'forks',
    // Request and run-end lines (info) would bury test output; tests/logs.test.ts turns them on for itself.
    env: { ZERO_LOG_LEVEL: 'warn' },
    projects: [
      {
        extends: true,
        test: {
          name: 'parallel',
          include: ['packages/*/src/**/*.test.ts', 'tests/**/*.test.ts', 'functions/**/*.test.ts', 'local/**/*.test.ts'],
          exclude: [...configDefaults.exclude, ...serial],
        },
      },
      { extends: true, test: { name: 'serial', include: serial } },
    ],
  },
});
