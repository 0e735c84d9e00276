import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { projectRoot } from '../shared/project-root.server.ts';
import { RestoreError, restoreBackup } from '../upstream/backup/restore.ts';
import { loadUpstreamEnvOrExit } from '../upstream/env.ts';
import { defaultUploadDir } from '../upstream/start.ts';

/**
 * `npm run restore -- <archive> [--force]`: restores an archive of `npm run backup` (ADR 057) into the database and
 * upload store `npm run upstream` would open (DATABASE_URL, else UPSTREAM_DATA_DIR or ./data/pglite;
 * UPSTREAM_UPLOAD_DIR), which must be empty unless --force (which replaces what is there), then checks every
 * table's rows, the change history's last entry and every file against the archive. Stop the API first.
 */
const env = loadUpstreamEnvOrExit();
let parsed: { values: { force?: boolean }; positionals: string[] };
try {
  parsed = parseArgs({ options: { force: { type: 'boolean' } }, allowPositionals: true });
  if (parsed.positionals.length !== 1) throw new Error('name one archive');
} catch (error) {
  process.stderr.write(`restore: ${(error as Error).message}\nusage: npm run restore -- <archive> [--force]\n`);
  process.exit(2);
}
const dataDir = env.DATABASE_URL ? undefined : (env.UPSTREAM_DATA_DIR ?? join(projectRoot(import.meta.url), 'data', 'pglite'));
const uploadDir = env.UPSTREAM_UPLOAD_DIR ?? defaultUploadDir({ dataDir, databaseUrl: env.DATABASE_URL });
try {
  const manifest = await restoreBackup(parsed.positionals[0]!, { databaseUrl: env.DATABASE_URL, dataDir, uploadDir }, parsed.values.force ?? false);
  const rows = Object.values(manifest.tables).reduce((sum, n) => sum + n, 0);
  process.stdout.write(
    `restore: ok, the backup of ${manifest.createdAt} holds: ${Object.keys(manifest.tables).length} tables with ${rows} rows as counted, ` +
      `the change history ends at entry ${manifest.auditChainHead?.id ?? 'none'}, ${manifest.uploads.count} uploads match their checksums\n`,
  );
} catch (error) {
  const code = (error as NodeJS.ErrnoException).code;
  const message = error instanceof RestoreError ? error.message : code === 'ENOENT' ? `${parsed.positionals[0]} does not exist` : `restore failed: ${(error as Error).message}`;
  process.stderr.write(`restore: ${message}\n`);
  process.exitCode = 1;
}
