import { createHash } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { openDatabase, type Db } from '../../upstream/db.ts';
import { migrate } from '../../upstream/migrate.ts';
import { demoDate, seedDemo } from '../../upstream/seed.ts';
import { DEMO_PASSWORD, TEST_SCRYPT_COST } from './demo.ts';

/**
 * Writes one migrated, empty PGlite database to `path` as a data directory tarball: every in-memory API the tests
 * start loads it (`UPSTREAM_PGLITE_TEMPLATE`, upstream/start.ts) instead of creating and migrating its own, about
 * 7 s less CPU a stack. Each stack still runs the migration step (a no-op), so nothing a test writes is shared.
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

/**
 * The migrated copy with the demo data seeded as a test stack seeds it (the tests' demo password and scrypt cost), and
 * `<path>.json` naming what it was seeded with: a stack that would seed the same on the same UTC day loads it instead
 * (`UPSTREAM_PGLITE_SEEDED_TEMPLATE`, upstream/start.ts; ADR 077). Seeding is all it holds beyond the migrations: no
 * JWT secret, no history key, no history entry.
 */
export async function buildSeededTemplate(migratedPath: string, path: string): Promise<void> {
  const day = demoDate(0);
  const db = await openDatabase({ loadDataDir: new Blob([readFileSync(migratedPath)]) });
  try {
    await migrate(db);
    await seedDemo(db, DEMO_PASSWORD, TEST_SCRYPT_COST);
    const { tar } = await db.snapshotDataDir!(async () => undefined);
    writeFileSync(path, Buffer.from(await tar.arrayBuffer()));
  } finally {
    await db.close();
  }
  const passwordSha256 = createHash('sha256').update(DEMO_PASSWORD).digest('hex');
  writeFileSync(`${path}.json`, JSON.stringify({ day, scryptCost: TEST_SCRYPT_COST, passwordSha256 }));
}

/** Both copies in `dir`, with the environment that points every stack of this process and its children at them. */
export async function buildTemplates(dir: string): Promise<{ UPSTREAM_PGLITE_TEMPLATE: string; UPSTREAM_PGLITE_SEEDED_TEMPLATE: string }> {
  const migrated = join(dir, 'migrated.tar');
  const seeded = join(dir, 'seeded.tar');
  await buildMigratedTemplate(migrated);
  await buildSeededTemplate(migrated, seeded);
  return { UPSTREAM_PGLITE_TEMPLATE: migrated, UPSTREAM_PGLITE_SEEDED_TEMPLATE: seeded };
}

/**
 * A migrated, empty PGlite database (in memory, or in `dataDir`): loaded from the run's migrated copy when there is one
 * (`npm test` and a plain Vitest run build it), else migrated here. For tests that need the schema, not the migrating:
 * about 5 s less CPU each. The migration step still runs (a no-op on the copy).
 */
export async function openMigrated(dataDir?: string): Promise<Db> {
  const template = process.env.UPSTREAM_PGLITE_TEMPLATE;
  const db = await openDatabase({ dataDir, ...(template && existsSync(template) ? { loadDataDir: new Blob([readFileSync(template)]) } : {}) });
  await migrate(db);
  return db;
}
