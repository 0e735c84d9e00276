import { writeFileSync } from 'node:fs';
import { openDatabase } from '../../upstream/db.ts';
import { migrate } from '../../upstream/migrate.ts';

/**
 * Writes one migrated, empty PGlite database to `path` as a data directory tarball: every in-memory API the tests
 * start loads it (`UPSTREAM_PGLITE_TEMPLATE`, upstream/start.ts) instead of creating and migrating its own, about
 * 7 s less CPU a stack. Each stack still runs the migration step (a no-op) and its own seeding, so nothing a test
 * writes is shared.
 */
export async function buildMigratedTemplate(path: string): Promise<void> {
  const db = await openDatabase({});
  try {
    await migrate(db);
    const { tar } = await db.snapshotDataDir!(async () => undefined);
    writeFileSync(path, Buffer.from(await tar.arrayBuffer()));
  } finally {
    await db.close();
  }
}
