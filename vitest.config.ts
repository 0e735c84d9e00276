import { defineConfig } from 'vitest/config';

/**
 * Three projects: fast unit tests, integration tests against the real upstream (in-process,
 * in-memory PGlite), and browser end-to-end tests (Debian chromium via playwright-core).
 * The unit and e2e projects' files share their worker process (`isolate: false`, ADR 077): a file starts and closes
 * its own stacks, and does not load the server, the API and PGlite's WebAssembly again (about 4 s of CPU a file).
 * The integration files keep a process each: in one shared process a file's metrics tests failed once in three runs
 * after another file's, a leak not yet found (ADR 077).
 */
export default defineConfig({
  test: {
    // Every test server logs to tests/.logs/; the run fails if a secret reaches any of those logs.
    globalSetup: ['./tests/global-setup.ts'],
    projects: [
      { extends: './vite.config.ts', test: { name: 'unit', include: ['tests/unit/**/*.test.{ts,tsx}'], environment: 'node', isolate: false } },
      {
        extends: './vite.config.ts',
        test: {
          name: 'integration',
          include: ['tests/integration/**/*.test.ts', 'tests/upstream/**/*.test.ts'],
          environment: 'node',
          testTimeout: 30_000,
          hookTimeout: 60_000,
        },
      },
      {
        extends: './vite.config.ts',
        test: {
          name: 'e2e',
          include: ['tests/e2e/**/*.test.ts'],
          environment: 'node',
          isolate: false,
          testTimeout: 60_000,
          hookTimeout: 120_000,
          // One browser at a time: the machine has two cores.
          fileParallelism: false,
        },
      },
    ],
  },
});
