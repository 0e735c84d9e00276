import { join } from 'node:path';
import { projectRoot } from '../shared/project-root.server.ts';
import { openDatabase } from '../upstream/db.ts';
import { loadUpstreamEnvOrExit } from '../upstream/env.ts';
import { migrate } from '../upstream/migrate.ts';

/**
 * `npm run migrate`: applies the reference API's pending migrations to the database `npm run upstream` opens
 * (DATABASE_URL, else the PGlite directory UPSTREAM_DATA_DIR, default ./data/pglite) and exits — the
 * deployment's one-shot before the API starts (deploy/, ADR 039). The API migrates at start as well; both take
 * the same advisory lock, so running them together is safe.
 */
const env = loadUpstreamEnvOrExit();
const db = await openDatabase({
  databaseUrl: env.DATABASE_URL,
  dataDir: env.DATABASE_URL ? undefined : (env.UPSTREAM_DATA_DIR ?? join(projectRoot(import.meta.url), 'data', 'pglite')),
});
try {
  const ran = await migrate(db);
  process.stdout.write(ran.length > 0 ? `migrate: applied ${ran.length} migration(s): ${ran.join(', ')}\n` : 'migrate: the database is up to date\n');
} catch (error) {
  process.stderr.write(`migrate: ${(error as Error).message}\n`);
  process.exitCode = 1;
} finally {
  await db.close();
}
