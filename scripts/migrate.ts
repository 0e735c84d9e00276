import { join } from 'node:path';
import { projectRoot } from '../shared/project-root.server.ts';
import { openDatabase } from '../upstream/db.ts';
import { loadUpstreamEnvOrExit } from '../upstream/env.ts';
import { grantApiRole, migrate } from '../upstream/migrate.ts';

/**
 * `npm run migrate`: applies the reference API's pending migrations to the database `npm run upstream` opens
 * (DATABASE_URL, else the PGlite directory UPSTREAM_DATA_DIR, default ./data/pglite) and exits — the
 * deployment's one-shot before the API starts (deploy/, ADR 039). The API migrates at start as well; both take
 * the same advisory lock, so running them together is safe. With API_DATABASE_URL (PostgreSQL only, ADR 067),
 * DATABASE_URL is the tables' owner and the API's role named there is created if missing and granted what
 * the API needs, after every run (so a new table is granted too); the API then connects with that URL and
 * cannot migrate, update or delete the change history, or drop its triggers.
 */
const env = loadUpstreamEnvOrExit();
const db = await openDatabase({
  databaseUrl: env.DATABASE_URL,
  dataDir: env.DATABASE_URL ? undefined : (env.UPSTREAM_DATA_DIR ?? join(projectRoot(import.meta.url), 'data', 'pglite')),
});
try {
  const ran = await migrate(db);
  process.stdout.write(ran.length > 0 ? `migrate: applied ${ran.length} migration(s): ${ran.join(', ')}\n` : 'migrate: the database is up to date\n');
  if (env.API_DATABASE_URL) {
    if (!env.DATABASE_URL) throw new Error('API_DATABASE_URL needs DATABASE_URL (the owner of the tables); an embedded PGlite database has one role');
    const api = new URL(env.API_DATABASE_URL);
    const role = decodeURIComponent(api.username);
    if (!role) throw new Error('API_DATABASE_URL names no user');
    await grantApiRole(db, role, api.password ? decodeURIComponent(api.password) : undefined);
    process.stdout.write(`migrate: the API's role ${role} may read and write the app's tables, and only read and append the change history\n`);
  }
} catch (error) {
  process.stderr.write(`migrate: ${(error as Error).message}\n`);
  process.exitCode = 1;
} finally {
  await db.close();
}
