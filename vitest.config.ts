import { defineConfig } from 'vitest/config';

/**
 * Three projects: fast unit tests, integration tests against the real upstream (in-process,
 * in-memory PGlite), and browser end-to-end tests (Debian chromium via playwright-core).
 */
export default defineConfig({
  test: {
    // Every test server logs to tests/.logs/; the run fails if a secret reaches any of those logs.
    globalSetup: ['./tests/global-setup.ts'],
    projects: [
      { extends: './vite.config.ts', test: { name: 'unit', include: ['tests/unit/**/*.test.{ts,tsx}'], environment: 'node' } },
      {
        extends: './vite.config.ts',
        test: { name: 'integration', include: ['tests/integration/**/*.test.ts', 'tests/upstream/**/*.test.ts'], environment: 'node', testTimeout: 30_000, hookTimeout: 60_000 },
      },
      {
        extends: './vite.config.ts',
        test: {
          name: 'e2e',
          include: ['tests/e2e/**/*.test.ts'],
          environment: 'node',
          testTimeout: 60_000,
          hookTimeout: 120_000,
          // One browser at a time: the machine has two cores.
          fileParallelism: false,
        },
      },
    ],
  },
});
