import { defineConfig } from 'vitest/config';

/**
 * Three projects: fast unit tests, integration tests against the real upstream (in-process,
 * in-memory PGlite), and browser end-to-end tests (Debian chromium via playwright-core).
 * Each project's files share their worker process (`isolate: false`, ADR 077): a file starts and closes its own
 * stacks, and does not load the server, the API and PGlite's WebAssembly again (about 4 s of CPU a file). A test
 * stack never sheds load (tests/support/stack.ts): in a shared process a file's synchronous work once made the next
 * file's stack answer 503 (ADR 077).
 */
/**
 * Browser files that `npm test` runs in its server lane, one at a time beside that lane's own files
 * (scripts/test-lanes.ts): the browser lane is the longer one (about 1,050 s against 900 s in fresh-clone runs), and
 * these (about 140 s) even them out. `vitest run --project 'e2e*'` runs every browser file.
 */
const E2E_TAIL = ['tests/e2e/dispatch.test.ts', 'tests/e2e/live-updates.test.ts', 'tests/e2e/generated-entity.test.ts', 'tests/e2e/language-sweep.test.ts'];

function e2eProject(name: string, files: { include: string[]; exclude?: string[] }) {
  return {
    extends: './vite.config.ts',
    test: {
      name,
      ...files,
      environment: 'node',
      isolate: false,
      testTimeout: 60_000,
      hookTimeout: 120_000,
      // One browser at a time in a lane: the machine has two cores.
      fileParallelism: false,
    },
  };
}

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
          isolate: false,
          testTimeout: 30_000,
          hookTimeout: 60_000,
        },
      },
      e2eProject('e2e', { include: ['tests/e2e/**/*.test.ts'], exclude: E2E_TAIL }),
      e2eProject('e2e-tail', { include: E2E_TAIL }),
    ],
  },
});
