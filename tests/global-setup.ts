import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openDatabase } from '../upstream/db.ts';
import { migrate } from '../upstream/migrate.ts';
import { findSecrets, RUN_LOG_DIR } from './support/run-log.ts';

/**
 * One migrated, empty PGlite database for the whole run, as a data directory tarball: every in-memory API the
 * tests start loads it (`UPSTREAM_PGLITE_TEMPLATE`, upstream/start.ts) instead of creating and migrating its
 * own, about 7 s less CPU a stack. Each stack still runs the migration step (a no-op) and its own seeding, so
 * nothing a test writes is shared. A unit-only run needs none.
 */
async function migratedTemplate(): Promise<() => void> {
  const args = process.argv.join(' ');
  if (/--project[= ]unit\b/.test(args) && !/--project[= ](integration|e2e)\b/.test(args)) return () => undefined;
  const dir = mkdtempSync(join(tmpdir(), 'bo-pglite-template-'));
  const db = await openDatabase({});
  try {
    await migrate(db);
    const { tar } = await db.snapshotDataDir!(async () => undefined);
    writeFileSync(join(dir, 'migrated.tar'), Buffer.from(await tar.arrayBuffer()));
  } finally {
    await db.close();
  }
  process.env.UPSTREAM_PGLITE_TEMPLATE = join(dir, 'migrated.tar');
  return () => rmSync(dir, { recursive: true, force: true });
}

/**
 * Around the whole run: start with no logs, and end by reading every test server's log (tests/.logs/).
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
