import { mkdirSync, readdirSync, rmSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { projectRoot } from '../shared/project-root.server.ts';
import { createBackup } from '../upstream/backup/backup.ts';
import { loadUpstreamEnvOrExit } from '../upstream/env.ts';
import { defaultUploadDir } from '../upstream/start.ts';

/**
 * `npm run backup [-- --out FILE]`: one compressed archive of the API's database and upload store (ADR 057) —
 * DATABASE_URL through pg_dump, else the PGlite directory UPSTREAM_DATA_DIR (default ./data/pglite), copied by the
 * API that holds it or opened here when none runs; the uploads of UPSTREAM_UPLOAD_DIR (default beside it). The
 * archive goes to BACKUP_DIR (./backups) as bike-backup-<time>.tar.gz; with BACKUP_KEEP the oldest beyond that
 * many are removed after a backup succeeded.
 */
const PREFIX = 'bike-backup-';
const SUFFIX = '.tar.gz';

const env = loadUpstreamEnvOrExit();
let args: { out?: string };
try {
  args = parseArgs({ options: { out: { type: 'string' } } }).values;
} catch (error) {
  process.stderr.write(`backup: ${(error as Error).message}\nusage: npm run backup [-- --out FILE]\n`);
  process.exit(2);
}
const dataDir = env.DATABASE_URL ? undefined : (env.UPSTREAM_DATA_DIR ?? join(projectRoot(import.meta.url), 'data', 'pglite'));
const uploadDir = env.UPSTREAM_UPLOAD_DIR ?? defaultUploadDir({ dataDir, databaseUrl: env.DATABASE_URL });
const now = new Date();
const outFile = resolve(
  args.out ??
    join(
      env.BACKUP_DIR,
      `${PREFIX}${now
        .toISOString()
        .replace(/[-:]/g, '')
        .replace(/\.\d+Z$/, 'Z')}${SUFFIX}`,
    ),
);
mkdirSync(resolve(outFile, '..'), { recursive: true });
try {
  const manifest = await createBackup({ databaseUrl: env.DATABASE_URL, dataDir, uploadDir }, outFile, now);
  const rows = Object.values(manifest.tables).reduce((sum, n) => sum + n, 0);
  process.stdout.write(
    `backup: ${outFile}\n  ${Object.keys(manifest.tables).length} tables, ${rows} rows, migration ${manifest.lastMigration ?? 'none'}, ` +
      `change history up to entry ${manifest.auditChainHead?.id ?? 'none'}, ${manifest.uploads.count} uploads (${manifest.uploads.bytes} bytes)\n`,
  );
  if (manifest.uploads.missing.length > 0) process.stdout.write(`  ${manifest.uploads.missing.length} stored uploads had no file: ${manifest.uploads.missing.join(', ')}\n`);
  if (env.BACKUP_KEEP && !args.out) {
    const archives = readdirSync(env.BACKUP_DIR)
      .filter((name) => name.startsWith(PREFIX) && name.endsWith(SUFFIX))
      .sort();
    for (const old of archives.slice(0, Math.max(0, archives.length - env.BACKUP_KEEP))) {
      rmSync(join(env.BACKUP_DIR, old));
      process.stdout.write(`  removed the older ${old} (BACKUP_KEEP=${env.BACKUP_KEEP})\n`);
    }
  }
} catch (error) {
  process.stderr.write(`backup failed: ${(error as Error).message}\n`);
  process.exitCode = 1;
}
