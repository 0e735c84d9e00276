import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildTemplates } from './support/pglite-template.ts';
import { findSecrets, RUN_LOG_DIR } from './support/run-log.ts';

/**
 * The PGlite templates every test stack loads (migrated; migrated and seeded: tests/support/pglite-template.ts):
 * built here for a plain `vitest run`, taken as given when `npm test`'s lanes (scripts/test-lanes.ts) built them for
 * both. A unit-only run needs none.
 */
async function migratedTemplate(): Promise<() => void> {
  if (process.env.UPSTREAM_PGLITE_TEMPLATE) return () => undefined;
  const args = process.argv.join(' ');
  if (/--project[= ]unit\b/.test(args) && !/--project[= ](integration|e2e)\b/.test(args)) return () => undefined;
  const dir = mkdtempSync(join(tmpdir(), 'bo-pglite-template-'));
  Object.assign(process.env, await buildTemplates(dir));
  return () => {
    delete process.env.UPSTREAM_PGLITE_TEMPLATE;
    delete process.env.UPSTREAM_PGLITE_SEEDED_TEMPLATE;
    rmSync(dir, { recursive: true, force: true });
  };
}

/**
 * Around the whole run: start with no logs, and end by reading every test server's log (tests/.logs/, or
 * tests/.logs/<lane>/ in one of `npm test`'s lanes).
 * A token, a session cookie, a password or a signature in any of them fails the run.
 */
export default async function setup() {
  rmSync(RUN_LOG_DIR, { recursive: true, force: true });
  const dropTemplate = await migratedTemplate();
  return () => {
    dropTemplate();
    let files: string[] = [];
    try {
      files = readdirSync(RUN_LOG_DIR);
    } catch {
      return; // no server was started (a unit-only run)
    }
    const leaks: string[] = [];
    let bytes = 0;
    for (const file of files) {
      const path = join(RUN_LOG_DIR, file);
      bytes += statSync(path).size;
      for (const leak of findSecrets(readFileSync(path, 'utf8'))) leaks.push(`${file}: ${leak}`);
    }
    process.stdout.write(`\nLogs of the run: ${files.length} files, ${(bytes / 1e6).toFixed(1)} MB read for secrets, ${leaks.length} found.\n`);
    if (leaks.length) throw new Error(`secrets in the test servers' logs:\n${leaks.slice(0, 20).join('\n')}`);
  };
}
