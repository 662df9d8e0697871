import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts', 'src/**/*.test.ts'],
    globalSetup: ['test/helpers/global-setup.ts'],
    pool: 'forks',
    // Tests wait on the database more than they compute: a few more files than cores.
    maxWorkers: 3,
    minWorkers: 1,
    // Process tests (test/proof, test/cli, test/process) start real services through
    // tsx: 5-15 s each on a quiet machine, several times that when the machine is shared.
    testTimeout: 180_000,
    hookTimeout: 120_000,
    reporters: ['default'],
    // A 409/403 reason an operation does not declare in config.reasons answers 500 (src/http/plugins/errors.ts);
    // an event whose data does not match the schema of its type throws (src/events/validate.ts).
    env: { DCM_STRICT_REASONS: '1', DCM_STRICT_EVENTS: '1' },
  },
});
