import { defineConfig } from 'vitest/config';

/**
 * `npm run test:corpora`: attacks drawn from the public corpora in ../shared/security-corpora
 * (found beside the project or one of its parent folders). Not part of `npm test`, which must
 * not depend on files outside the repository; `.ci/run` runs both.
 */
export default defineConfig({
  test: {
    include: ['corpora/**/*.test.ts'],
    testTimeout: 30 * 60_000,
    hookTimeout: 60_000,
    pool: 'forks',
    env: { ZERO_LOG_LEVEL: 'warn' },
  },
});
