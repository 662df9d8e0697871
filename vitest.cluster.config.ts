import { defineConfig } from 'vitest/config';

// `npm run test:cluster`: the scale-out run (test/cluster/*.cluster.ts), apart from `npm test`
// because it needs PostgreSQL (DATABASE_URL) and Redis (REDIS_URL, default redis://127.0.0.1:6379)
// and starts four service processes.
export default defineConfig({
  test: {
    include: ['test/cluster/**/*.cluster.ts'],
    pool: 'forks',
    maxWorkers: 1,
    minWorkers: 1,
    testTimeout: 120_000,
    hookTimeout: 180_000,
    reporters: ['default'],
  },
});
